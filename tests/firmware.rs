//! Every firmware test program in `firmware/tests/` and `firmware/mxp-tests/` (the
//! accelerator through the SDK work-alike), and the benchmarks in `firmware/bench/` (which
//! compute checksums over 10^8 instructions), runs under mxpsim and, as an independent
//! oracle for the CPU, under QEMU: both must print exactly the program's `.expected` output on
//! standard output and exit with the status its header declares (`expect-exit: N`).
//!
//! Programs QEMU cannot run (the riscv-tests `tohost` convention, deliberate trap loops) say
//! `qemu: skip` in their header. QEMU is required (CI installs it); set `MXPSIM_SKIP_QEMU=1`
//! to run only the mxpsim half on a machine without it.
//!
//! The data really lives in the simulated cache, so a cache model bug corrupts results: every
//! program also runs under a few deliberately awkward cache configurations ([`CACHES`]) and
//! must print the same. Programs whose output shows the default cache's behaviour say
//! `cache: default-only`; SDK ports whose own races corrupt their data with longer lines (a
//! finding, not a simulator bug: README, "SDK programs") say `cache: max-line N` and skip the
//! configurations with longer lines.

use libtest_mimic::{Arguments, Failed, Trial};
use std::path::{Path, PathBuf};
use std::process::Command;

/// What a program must print.
enum Expected {
    /// Exactly this (`NAME.expected`).
    Stdout(Vec<u8>),
    /// A line `Test passed!` (programs whose output has cycle counts: `output:
    /// timing-dependent` in the header).
    TestPassed,
}

struct Program {
    name: String,
    elf: PathBuf,
    expected: Expected,
    expect_exit: i32,
    qemu_skip: bool,
    /// The `--machine` it runs on (`machine-preset: NAME` in the header), if not the default.
    machine: Option<String>,
    default_cache_only: bool,
    /// The longest cache line the program's output is indifferent to.
    max_line: Option<u32>,
    /// More `mxpsim run` options (`run-options: …` in the header), e.g. a limit the test
    /// expects the run to reach.
    run_options: Vec<String>,
}

/// Cache configurations every program must be indifferent to (label, `--cache`, line size):
/// tiny and direct-mapped with byte-granular write-back; write-through; random replacement,
/// fully associative; no cache.
const CACHES: [(&str, &str, u32); 4] = [
    ("tiny", "size=256,line=16,ways=1,wb=byte", 16),
    ("through", "size=1K,line=32,ways=2,write=through,policy=fifo", 32),
    ("random", "size=2K,line=64,ways=full,policy=random,seed=7", 64),
    ("off", "off", 0),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn header_value<'a>(source: &'a str, key: &str) -> Option<&'a str> {
    source.lines().find_map(|line| line.split_once(key).map(|(_, v)| v.trim()))
}

/// The programs built from `firmware/DIR/*.{c,cpp,S}` into `firmware/bin/DIR/`.
fn discover(dir: &str) -> Vec<Program> {
    discover_built(dir, dir)
}

/// The programs built from `firmware/SOURCES/*.{c,cpp,S}` into `firmware/bin/BIN/` (the same
/// sources built twice: `bench` as rv32im and as rv32imac).
fn discover_built(sources: &str, bin: &str) -> Vec<Program> {
    let bin = root().join("firmware/bin").join(bin);
    let dir = root().join("firmware").join(sources);
    let mut sources: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("readable directory").path())
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("c" | "cpp" | "S")))
        .collect();
    sources.sort();
    sources
        .into_iter()
        .map(|src| {
            let name = src.file_stem().unwrap().to_str().unwrap().to_string();
            let text = std::fs::read_to_string(&src).unwrap();
            let expect_exit = header_value(&text, "expect-exit:")
                .unwrap_or_else(|| panic!("{}: no `expect-exit:` line", src.display()))
                .split_whitespace()
                .next()
                .unwrap()
                .parse()
                .unwrap_or_else(|e| panic!("{}: bad expect-exit: {e}", src.display()));
            let expected = match header_value(&text, "output: timing-dependent") {
                Some(_) => Expected::TestPassed,
                None => Expected::Stdout(
                    std::fs::read(src.with_extension("expected"))
                        .unwrap_or_else(|e| panic!("{}: no .expected file: {e}", src.display())),
                ),
            };
            Program {
                elf: bin.join(format!("{name}.elf")),
                name: format!("{}/{name}", bin.file_name().unwrap().to_str().unwrap()),
                qemu_skip: header_value(&text, "qemu: skip").is_some(),
                machine: header_value(&text, "machine-preset:").map(str::to_string),
                default_cache_only: header_value(&text, "cache: default-only").is_some(),
                max_line: header_value(&text, "cache: max-line").map(|v| {
                    let n = v.split_whitespace().next().unwrap_or_default();
                    n.parse().unwrap_or_else(|e| panic!("{}: bad `cache: max-line`: {e}", src.display()))
                }),
                run_options: header_value(&text, "run-options:")
                    .map_or_else(Vec::new, |v| v.split_whitespace().map(str::to_string).collect()),
                expected,
                expect_exit,
            }
        })
        .collect()
}

/// Compares a finished run with the program's expectations.
fn check(p: &Program, runner: &str, output: std::process::Output) -> Result<(), Failed> {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut problems = Vec::new();
    match &p.expected {
        Expected::Stdout(expected) if output.stdout != *expected => problems.push(format!(
            "stdout differs from {}.expected\n--- expected\n{}\n--- got\n{stdout}",
            p.name,
            String::from_utf8_lossy(expected)
        )),
        Expected::TestPassed if !stdout.lines().any(|l| l == "Test passed!") => {
            problems.push(format!("no \"Test passed!\" line\n--- got\n{stdout}"))
        }
        _ => {}
    }
    if output.status.code() != Some(p.expect_exit) {
        problems.push(format!("exit status {:?}, expected {}", output.status.code(), p.expect_exit));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        Err(format!("{runner} on {}: {}\n--- stderr\n{stderr}", p.name, problems.join("\n")).into())
    }
}

fn run_mxpsim(p: &Program, cache: Option<&str>) -> Result<(), Failed> {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mxpsim"));
    command.args(["run", "--max-insns", "1000000000"]);
    if let Some(machine) = &p.machine {
        command.args(["--machine", machine]);
    }
    if let Some(spec) = cache {
        command.args(["--cache", spec]);
    }
    let output = command.args(&p.run_options).arg(&p.elf).output()?;
    check(p, &format!("mxpsim --cache {}", cache.unwrap_or("(default)")), output)
}

fn run_qemu(p: &Program) -> Result<(), Failed> {
    let output = Command::new("timeout")
        .args(["60", "qemu-system-riscv32", "-machine", "virt", "-bios", "none", "-nographic"])
        // Virtual time: the timer counts instructions and skips ahead while the hart waits,
        // so that a loaded host (the tests run side by side) changes no program's output
        // (`virt/timer_irq` bounds how many periods pass).
        .args(["-icount", "shift=0,sleep=off"])
        // Without a chardev QEMU writes the semihosting console to its stderr; the UART
        // shares it (mux), so the two streams keep their order on standard output.
        .args(["-monitor", "none", "-chardev", "stdio,mux=on,id=semihost", "-serial", "chardev:semihost"])
        .args(["-semihosting-config", "enable=on,target=native,chardev=semihost", "-device"])
        // The generic loader starts at the ELF's entry (`-kernel` with `-bios none` jumps to
        // RAM's base) and loads segments into flash too.
        .arg(format!("loader,file={},cpu-num=0", p.elf.display()))
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| {
            format!("cannot start qemu-system-riscv32 ({e}); install qemu-system-misc or set MXPSIM_SKIP_QEMU=1")
        })?;
    if output.status.code() == Some(127) {
        return Err("qemu-system-riscv32 not found; install qemu-system-misc or set MXPSIM_SKIP_QEMU=1".into());
    }
    check(p, "qemu", output)
}

fn main() {
    let args = Arguments::from_args();
    let skip_qemu = std::env::var_os("MXPSIM_SKIP_QEMU").is_some_and(|v| v == "1");
    let mut trials = Vec::new();
    let programs = discover("tests")
        .into_iter()
        .chain(discover("bench"))
        .chain(discover_built("bench", "bench-rvc"))
        .chain(discover("imac"))
        .chain(discover("virt"))
        .chain(discover("flash"))
        .chain(discover("mxp-tests"))
        .chain(discover("apps"));
    for p in programs.map(std::sync::Arc::new) {
        assert!(Path::new(&p.elf).exists(), "{} is missing: run scripts/build-firmware.sh", p.elf.display());
        let ignore_qemu = p.qemu_skip || skip_qemu;
        let (name, q) = (p.name.clone(), p.clone());
        if !p.default_cache_only {
            for (label, spec, line) in CACHES {
                if p.max_line.is_some_and(|max| line > max) {
                    continue;
                }
                let p = p.clone();
                trials.push(Trial::test(format!("{name}::mxpsim_cache_{label}"), move || run_mxpsim(&p, Some(spec))));
            }
        }
        trials.push(Trial::test(format!("{name}::mxpsim"), move || run_mxpsim(&p, None)));
        trials.push(Trial::test(format!("{name}::qemu"), move || run_qemu(&q)).with_ignored_flag(ignore_qemu));
    }
    libtest_mimic::run(&args, trials).exit();
}
