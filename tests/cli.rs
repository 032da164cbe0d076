//! The command line's contract: bad input of every kind gets one clear error line and its own
//! exit status, never a panic; runs are deterministic; the trace has the documented format.

mod common;
use common::{elf, firmware, interrupted, interrupted_after, mxpsim, stderr, temp};
use std::os::unix::process::ExitStatusExt;

/// Runs `mxpsim run FILE` and checks the status and that the one error line says `message`.
fn assert_fails(args: &[&str], status: i32, message: &str) {
    let o = mxpsim(args);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(status), "args {args:?}\nstderr: {err}");
    assert!(err.contains(message), "args {args:?}: stderr lacks {message:?}:\n{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(err.lines().filter(|l| l.starts_with("mxpsim: error:")).count(), 1, "{err}");
}

/// Writes `bytes` to a fresh file in the test's temporary directory.
fn temp_file(name: &str, bytes: &[u8]) -> String {
    let path = temp(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

/// hello.elf with some header bytes changed.
fn patched_hello(name: &str, patch: impl FnOnce(&mut Vec<u8>)) -> String {
    let mut bytes = std::fs::read(firmware("hello")).unwrap();
    patch(&mut bytes);
    temp_file(name, &bytes)
}

/// A segment whose size runs past the end of the address space (a damaged size): the hint
/// says so, not "memory at X and at X" (issue 13).
#[test]
fn a_segment_past_the_end_of_the_address_space_is_said_to_be() {
    let damaged = patched_hello("huge-segment.elf", |b| {
        let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        let (phoff, phentsize) = (word(b, 28), u16::from_le_bytes([b[42], b[43]]) as usize);
        let load = (0..).map(|k| phoff + k * phentsize).find(|&ph| word(b, ph) == 1).unwrap();
        b[load + 20..load + 24].copy_from_slice(&0xf000_0000u32.to_le_bytes()); // p_memsz
    });
    assert_fails(&["run", &damaged], 107, "past the end of the address space (is a size in the file damaged?)");
}

/// A symbol name that is not UTF-8 is named as such (issue 13: "a header field cannot be read:
/// invalid utf8").
#[test]
fn a_name_that_is_not_utf8_is_said_to_be() {
    let damaged = patched_hello("bad-name.elf", |b| {
        let word = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap()) as usize;
        let (shoff, shentsize, shnum) = (word(b, 32), 40, u16::from_le_bytes([b[48], b[49]]) as usize);
        // The symbol table's string table: the section its sh_link names.
        let symtab = (0..shnum).map(|k| shoff + k * shentsize).find(|&sh| word(b, sh + 4) == 2).unwrap();
        let strtab = shoff + word(b, symtab + 24) * shentsize;
        let at = word(b, strtab + 16) + 1; // the first name's first byte
        b[at] = 0xff;
    });
    assert_fails(&["run", &damaged], 102, "a name in a string table (of symbols or sections) is not UTF-8 text");
}

#[test]
fn missing_file() {
    assert_fails(&["run", "/nonexistent/fw.elf"], 101, "cannot read the file");
}

#[test]
fn not_an_elf_file() {
    let text = temp_file("text.elf", b"just some text\n");
    assert_fails(&["run", &text], 102, "not an ELF file");
    let empty = temp_file("empty.elf", b"");
    assert_fails(&["run", &empty], 102, "not an ELF file");
}

#[test]
fn truncated_elf_file() {
    let bytes = std::fs::read(firmware("hello")).unwrap();
    let cut = temp_file("truncated.elf", &bytes[..40]);
    assert_fails(&["run", &cut], 102, "malformed ELF file");
}

#[test]
fn elf64_file() {
    let f = patched_hello("elf64.elf", |b| b[4] = 2);
    assert_fails(&["run", &f], 103, "64-bit ELF file");
}

#[test]
fn big_endian_file() {
    let f = patched_hello("be.elf", |b| b[5] = 2);
    assert_fails(&["run", &f], 104, "big-endian ELF file");
}

#[test]
fn foreign_machine() {
    let f = patched_hello("arm.elf", |b| b[18..20].copy_from_slice(&40u16.to_le_bytes()));
    assert_fails(&["run", &f], 105, "ELF file for ARM, not RISC-V");
}

#[test]
fn a_float_abi_is_refused_up_front() {
    let f = patched_hello("hardfloat.elf", |b| b[36] |= 4); // e_flags: EF_RISCV_FLOAT_ABI_DOUBLE
    assert_fails(&["run", &f], 105, "a floating-point ABI");
}

#[test]
fn no_loadable_segment() {
    let f = patched_hello("noload.elf", |b| {
        let phoff = u32::from_le_bytes(b[28..32].try_into().unwrap()) as usize;
        let phnum = u16::from_le_bytes(b[44..46].try_into().unwrap()) as usize;
        for i in 0..phnum {
            let p_type = phoff + 32 * i;
            if b[p_type..p_type + 4] == 1u32.to_le_bytes() {
                b[p_type..p_type + 4].copy_from_slice(&4u32.to_le_bytes()); // PT_LOAD → PT_NOTE
            }
        }
    });
    assert_fails(&["run", &f], 106, "no loadable (PT_LOAD) segment");
}

/// A firmware the machine cannot hold left every output given for its run empty (they were
/// created before the image was placed): they are left as they were now, for `run` and
/// `provoke` alike.
#[test]
fn a_refused_run_leaves_its_output_files_alone() {
    let report = temp_file("kept-report.json", b"an earlier report\n");
    let stats = temp_file("kept-stats.json", b"earlier statistics\n");
    let fresh = temp("not-created.json");
    let _ = std::fs::remove_file(&fresh);
    let hello = firmware("hello");
    let outputs = ["--race-check", "--report-file", &report, "--stats-json", &stats, "--timeline", &fresh];
    let with_outputs = |before: &[&'static str], after: &[&str]| {
        [&["run"][..], before, &outputs, after].concat().into_iter().map(String::from).collect::<Vec<_>>()
    };
    for (args, status, why) in [
        (with_outputs(&["--dram-size", "1M"], &[&hello]), 107, "lies outside memory"),
        (with_outputs(&["--suppressions", "/nonexistent/s.toml"], &[&hello]), 110, "suppressions"),
        (with_outputs(&["--timeline-window", "x"], &[&hello]), 2, "--timeline-window"),
        (with_outputs(&[], &[&hello, "--", "two words"]), 2, "cannot reach the firmware whole"),
        (
            vec![
                "provoke".into(),
                "--dram-size".into(),
                "1M".into(),
                "--report-file".into(),
                report.clone(),
                hello.clone(),
            ],
            107,
            "lies outside memory",
        ),
        (
            vec![
                "provoke".into(),
                "--timeline".into(),
                fresh.clone(),
                "--timeline-window".into(),
                "x".into(),
                "--report-file".into(),
                report.clone(),
                hello.clone(),
            ],
            2,
            "--timeline-window",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        assert_fails(&args, status, why);
        assert_eq!(std::fs::read_to_string(&report).unwrap(), "an earlier report\n", "{args:?}");
        assert_eq!(std::fs::read_to_string(&stats).unwrap(), "earlier statistics\n", "{args:?}");
        assert!(!std::path::Path::new(&fresh).exists(), "{args:?}");
    }
}

#[test]
fn image_outside_memory() {
    // The firmware's data and stack live above 2 MiB into DRAM.
    assert_fails(&["run", "--dram-size", "1M", &firmware("hello")], 107, "lies outside memory");
    // The hint names the setting that fixes it: following it runs the firmware.
    let o = mxpsim(&["run", "--dram-size", "1M", &firmware("hello")]);
    let err = stderr(&o);
    let size = err.split("--dram-size ").nth(1).and_then(|t| t.split(' ').next()).expect(&err).to_string();
    let o = mxpsim(&["run", "--dram-size", &size, &firmware("hello")]);
    assert_eq!(o.status.code(), Some(0), "--dram-size {size}: {}", stderr(&o));
    // Linked below DRAM: the hint is DRAM's base.
    let config = temp("high-dram.toml");
    std::fs::write(&config, "[memory]\ndram_base = 0x90000000\n").unwrap();
    let o = mxpsim(&["run", "--config", &config, &firmware("hello")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(107), "{err}");
    let base = err.split("`dram_base = ").nth(1).and_then(|t| t.split('`').next()).expect(&err).to_string();
    std::fs::write(&config, format!("[memory]\ndram_base = {base}\n")).unwrap();
    let o = mxpsim(&["run", "--config", &config, &firmware("hello")]);
    assert_eq!(o.status.code(), Some(0), "dram_base = {base}: {}", stderr(&o));
    // Code in flash, data in RAM: no one DRAM holds both; the `virt` preset has both.
    let flash = elf("flash", "flash_ram");
    let o = mxpsim(&["run", &flash]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(107), "{err}");
    let preset = err.split("--machine ").nth(1).map(str::trim).expect(&err).to_string();
    let o = mxpsim(&["run", "--machine", &preset, &flash]);
    assert_eq!(o.status.code(), Some(0), "--machine {preset}: {}", stderr(&o));
    // An entry point in no segment is no memory's fault (it was told "--dram-size 32M",
    // smaller than the DRAM it had).
    let lost = patched_hello("entry-lost.elf", |b| b[24..28].copy_from_slice(&0x9000_0000u32.to_le_bytes()));
    assert_fails(&["run", &lost], 107, "the entry point lies in none of the image's loadable segments");
}

/// A command-line error is one line like every other failure (clap's own message was three
/// to seven lines, with no `mxpsim: error:`); a mistyped subcommand is named as one (it ran
/// as `run` with the word as the firmware).
#[test]
fn command_line_errors_are_one_line() {
    let hello = firmware("hello");
    assert_fails(&["run", "--max-insns", "abc", &hello], 2, "invalid value 'abc' for '--max-insns <N>'");
    assert_fails(&["run", "--max-insns", "-1", &hello], 2, "unexpected argument '-1'");
    assert_fails(&["run"], 2, "<FIRMWARE>");
    assert_fails(&["detetc", "x.trace"], 2, "a similar subcommand exists: 'detect'");
    // No command at all said the tool's description as its error.
    assert_fails(&[], 2, "mxpsim: error: no command given (run, sweep, detect, provoke, config;");
    for args in [vec!["run", "--max-insns", "-1", &hello], vec!["detetc", "x.trace"], vec!["run"], vec![]] {
        assert_eq!(stderr(&mxpsim(&args)).lines().count(), 1, "{args:?}");
    }
}

/// Help that cannot be written is a failed output, as any other (it exited 0).
#[test]
fn help_to_a_full_disk_fails() {
    let full = std::fs::File::create("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim")).arg("--help").stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(122), "{}", stderr(&o));
}

#[test]
fn invalid_configuration() {
    assert_fails(&["run", "--dram-size", "1000", &firmware("hello")], 110, "dram_size");
}

#[test]
fn bad_command_line() {
    let o = mxpsim(&["run"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("FIRMWARE"));
    let o = mxpsim(&["run", "--dram-size", "lots", &firmware("hello")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not a size"));
}

#[test]
fn runaway_firmware_hits_the_instruction_limit() {
    assert_fails(&["run", "--max-insns", "1000", &firmware("hello")], 120, "instruction limit reached: 1000");
}

/// The firmware's output cut in the middle of a line ("Hel"): where it shares a place with
/// mxpsim's lines (`2>&1`), the error starts a line of its own (it was "Helmxpsim: error:");
/// where it does not, standard error gets no stray newline.
#[test]
fn an_error_after_an_unfinished_line_starts_its_own() {
    let args = ["run", "--max-insns", "40", &firmware("htif_console")];
    let both = temp("unfinished.out");
    let file = std::fs::File::create(&both).unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(args)
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .status()
        .unwrap();
    assert_eq!(status.code(), Some(120));
    let text = std::fs::read_to_string(&both).unwrap();
    assert!(text.starts_with("Hel\nmxpsim: error: instruction limit reached"), "{text:?}");

    let o = mxpsim(&args);
    assert_eq!(o.stdout, b"Hel");
    assert!(stderr(&o).starts_with("mxpsim: error: instruction limit reached"), "{}", stderr(&o));
}

#[test]
fn trap_without_a_handler_names_the_faulting_instruction() {
    assert_fails(
        &["run", &firmware("no_trap_handler")],
        121,
        "unhandled trap: illegal instruction (mcause 2, instruction 0x00000000) at 0x80000004 <_start+0x4>",
    );
}

/// Handlers that cannot get through: each run ends with 121, naming the first trap and why.
#[test]
fn trap_handlers_that_cannot_get_through_end_the_run() {
    for (program, message) in [
        // Faults on its own stack before returning, every time: it retires an instruction
        // between the faults, so only counting traps without `mret` stops it: after the illegal
        // instruction, 10,000 faults (the last pushes at 0x9000_0000 - 10,000 × 16 + 12).
        (
            "trap_storm",
            "unhandled trap: illegal instruction (mcause 2, instruction 0x00000000) at 0x80000010 <_start+0x10>; \
             the trap handler at mtvec 0x80000018 cannot get through: store access fault (mcause 7, address \
             0x8ffd8f0c) at 0x8000001c <handler+0x4>",
        ),
        // Returns to the trapping instruction unchanged, every time: each trap has its `mret`,
        // so only seeing the same trap come back at once ends it.
        (
            "trap_retry",
            "unhandled trap: illegal instruction (mcause 2, instruction 0x00000000) at 0x8000000c <_start+0xc>; \
             the trap handler at mtvec 0x80000014 cannot get through: it returns to the instruction, which traps again",
        ),
        // Returns elsewhere, to code that brings the same trap back in the same state (5
        // instructions a round, no `mret` to the trapping instruction).
        (
            "trap_elsewhere",
            "unhandled trap: illegal instruction (mcause 2, instruction 0x00000000) at 0x80000010 <again+0x4>; \
             the trap handler at mtvec 0x80000018 cannot get through: the same trap comes back, time after time, \
             with every register and CSR as before",
        ),
    ] {
        assert_fails(&["run", &firmware(program)], 121, message);
    }
}

#[test]
fn failing_riscv_test_reports_its_number() {
    let o = mxpsim(&["run", &firmware("tohost_fail")]);
    assert_eq!(o.status.code(), Some(3));
    assert!(stderr(&o).contains("test 3 failed"));
}

/// A `tohost` symbol that cannot serve (a damaged symbol table) is said, not ignored silently
/// (issue 13: such riscv-tests programs spun without a word).
#[test]
fn an_unusable_tohost_symbol_is_said() {
    for bad in ["0x10000000", "0x80000004"] {
        let damaged = temp(&format!("tohost-{bad}.elf"));
        let objcopy = std::process::Command::new("riscv64-unknown-elf-objcopy")
            .args(["--strip-symbol", "tohost", "--add-symbol", &format!("tohost={bad},global")])
            .args([&firmware("tohost_pass"), &damaged])
            .status()
            .expect("the RISC-V toolchain (scripts/test installs it)");
        assert!(objcopy.success());
        let o = mxpsim(&["run", "--max-insns", "100000", &damaged]);
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(120), "{err}");
        assert!(
            err.starts_with(&format!("mxpsim: warning: {damaged}: the symbol `tohost` ({bad:0>10}) is not 8 aligned")),
            "{err}"
        );
    }
}

#[test]
fn help_explains_the_commands() {
    let o = mxpsim(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("run") && text.contains("Exit status"), "{text}");
    let o = mxpsim(&["run", "--help"]);
    let text = String::from_utf8_lossy(&o.stdout);
    for flag in ["--max-insns", "--trace", "--stats", "--dram-size"] {
        assert!(text.contains(flag), "run --help lacks {flag}");
    }
}

#[test]
fn trace_lists_every_retired_instruction() {
    let trace = temp_file("hello.trace", b"");
    let o = mxpsim(&["run", "--stats", "--trace", &trace, &firmware("hello")]);
    assert_eq!(o.status.code(), Some(0));
    let text = std::fs::read_to_string(&trace).unwrap();
    // picolibc's _start: sp, then gp.
    let first = text.lines().next().unwrap();
    assert!(first.starts_with("80000000  02000117  auipc sp, 0x2000"), "{first}");
    assert!(first.ends_with("sp=0x82000000"), "{first}");
    let retired = stderr(&o)
        .lines()
        .find_map(|l| l.strip_prefix("Instructions"))
        .map(|n| n.trim().parse::<usize>().unwrap())
        .unwrap();
    assert_eq!(text.lines().filter(|l| !l.contains("  trap: ")).count(), retired);
}

#[test]
fn runs_are_byte_identical() {
    let run = |trace: &str| {
        let o = mxpsim(&["run", "--stats", "--trace", trace, &firmware("printf_int")]);
        (o.stdout, o.stderr, std::fs::read(trace).unwrap())
    };
    let a = run(&temp_file("a.trace", b""));
    let b = run(&temp_file("b.trace", b""));
    assert!(a == b, "two runs of the same ELF differ");
}

/// `--signature` dumps `begin_signature`..`end_signature` as the CPU sees it, in Spike's
/// format. Expected from signature.c: words (i + 1) * 0x11111111 for i < 4, then the
/// initial 0xdeadbeef; the same with and without a write-back cache holding them dirty.
#[test]
fn signature_dump_is_spikes_format() {
    let elf = firmware("signature");
    let words = ["11111111", "22222222", "33333333", "44444444", "deadbeef"];
    for cache in ["size=32K", "off"] {
        let file = temp(&format!("sig-{cache}.txt"));
        let o = mxpsim(&["run", "--cache", cache, "--signature", &file, &elf]);
        assert_eq!(o.status.code(), Some(0), "{}", String::from_utf8_lossy(&o.stderr));
        assert_eq!(std::fs::read_to_string(&file).unwrap(), words.map(|w| format!("{w}\n")).concat());
    }
    // 8 bytes a line: the higher word first; the last line padded with zero bytes.
    let file = temp("sig8.txt");
    let o = mxpsim(&["run", "--signature", &file, "--signature-granularity", "8", &elf]);
    assert_eq!(o.status.code(), Some(0));
    let want = "2222222211111111\n4444444433333333\n00000000deadbeef\n";
    assert_eq!(std::fs::read_to_string(&file).unwrap(), want);
    // A firmware without the symbols fails before running.
    let o = mxpsim(&["run", "--signature", &file, &firmware("hello")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no `begin_signature` symbol"));
    assert!(o.stdout.is_empty(), "the firmware did not run");
}

/// A fault gets a note on stderr, whatever the firmware's handler does with it (the
/// programs' own handler prints "trapped" and exits 1): the instruction, and what the
/// address holds or the instruction needs (fault_uart.c, fault_float.c).
#[test]
fn faults_are_diagnosed() {
    let o = mxpsim(&["run", &firmware("fault_uart")]);
    let err = stderr(&o);
    assert_eq!((o.status.code(), o.stdout.as_slice()), (Some(1), &b"trapped\n"[..]), "{err}");
    assert!(err.contains("mxpsim: note: the firmware took a trap: load access fault at "), "{err}");
    assert!(err.contains("`lbu "), "the instruction: {err}");
    assert!(
        err.contains("nothing is mapped at 0x10000005 (the `virt` machine has the UART there: --machine virt)"),
        "{err}"
    );
    let o = mxpsim(&["run", &firmware("fault_float")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("mxpsim: note: the firmware took a trap: illegal instruction at "), "{err}");
    assert!(err.contains("an instruction of the F/D (floating point) extension"), "{err}");
    let o = mxpsim(&["run", &firmware("hello")]);
    assert!(!stderr(&o).contains("mxpsim: note"), "no fault, no note: {}", stderr(&o));
}

/// A `wfi` nothing can wake ends the run with its own status and says why (wfi_forever.c);
/// the firmware's output before it is delivered.
#[test]
fn a_wfi_that_nothing_can_wake_ends_the_run() {
    let o = mxpsim(&["run", "--machine", "virt", &elf("virt", "wfi_forever")]);
    let err = stderr(&o);
    assert_eq!((o.status.code(), o.stdout.as_slice()), (Some(125), &b"going to sleep\n"[..]), "{err}");
    assert!(err.contains("mxpsim: error: the firmware waits for an interrupt that can never come (wfi at "), "{err}");
    assert!(err.contains("<main+"), "the wfi's function: {err}");
    assert!(err.contains(": no interrupt is enabled in mie"), "{err}");
}

/// The UART receives mxpsim's standard input, byte by byte, until it ends
/// (uart_console.c echoes what it read).
#[test]
fn the_uart_receives_standard_input() {
    use std::io::Write;
    let elf = elf("virt", "uart_console");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(["run", "--machine", "virt"])
        .arg(&elf)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"typed").unwrap();
    let o = child.wait_with_output().unwrap();
    assert_eq!(String::from_utf8_lossy(&o.stdout), "Hello from the UART!\nreceived 5 bytes: typed\n");
}

/// Configuration values out of range are refused with the field named, before any arithmetic
/// on them (line × ways once overflowed into a division by zero; a 2^32-entry write buffer
/// was allocated).
#[test]
fn out_of_range_cache_settings_are_refused() {
    assert_fails(&["config", "--cache", "line=256,ways=16777216"], 110, "cache.ways: 16777216 is not from 1 to 4096");
    assert_fails(&["run", "--cache", "wbuf=4294967295", &firmware("hello")], 110, "cache.write_buffer: 4294967295");
    let hello = firmware("hello");
    let sweep = ["sweep", "--line", "256", "--ways", "16777216", &hello];
    assert_fails(&sweep, 110, "--ways 16777216: invalid configuration: cache.ways: 16777216 is not from 1 to 4096");
    // From a machine file: the message names the file.
    let file = temp_file("huge-ways.toml", b"[cache]\nline = 256\nways = 16777216\n");
    let message = format!("{file}: invalid configuration: cache.ways: 16777216 is not from 1 to 4096");
    assert_fails(&["config", "--machine", &file], 110, &message);
    let file = temp_file("enabled-yes.toml", b"[cache]\nenabled = \"yes\"\n");
    assert_fails(&["run", "--machine", &file, &hello], 110, "cache.enabled");
}

/// A full disk on standard output is an output failure with one line, not an abort.
#[test]
fn a_full_standard_output_is_an_output_failure() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim")).arg("config").stdout(full).output().unwrap();
    assert_eq!(o.status.code(), Some(122), "{}", stderr(&o));
    assert!(stderr(&o).contains("mxpsim: error: cannot write the configuration to standard output"), "{}", stderr(&o));
}

/// The same ELF by a relative path, an absolute path and a symlink: byte-identical output and
/// statistics (the firmware's argv[0] is the file name, not the path as typed).
#[test]
fn a_run_does_not_depend_on_how_the_elf_path_is_spelled() {
    let absolute = firmware("hello");
    let relative = "firmware/bin/tests/hello.elf";
    let dir = temp("elsewhere");
    std::fs::create_dir_all(&dir).unwrap();
    let link = format!("{dir}/hello.elf");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(&absolute, &link).unwrap();
    let run = |path: &str| {
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
            .args(["run", "--stats", path])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .unwrap();
        (o.stdout, o.stderr)
    };
    let first = run(relative);
    assert!(String::from_utf8_lossy(&first.1).contains("Instructions"), "{}", String::from_utf8_lossy(&first.1));
    assert_eq!(run(&absolute), first, "absolute path");
    assert_eq!(run(&link), first, "a symlink of the same name elsewhere");
}

#[test]
fn ctrl_c_stops_the_run_and_delivers_everything_it_has() {
    let (trace, stats) = (temp("interrupted.trace"), temp("interrupted.json"));
    let fw = elf("bench", "cpubench");
    let args = ["run", "--race-check", "--record-trace", &trace, "--stats-json", &stats, &fw];
    let o = interrupted(&args, "-INT", "sigint");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(130), "{err}");
    assert!(err.contains("mxpsim: error: interrupted by SIGINT after"), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 0 data races") && err.contains("the run was interrupted (SIGINT)"), "{err}");
    // The firmware's output so far is all there: the same as a run stopped at that instruction.
    let count = err.split("interrupted by SIGINT after ").nth(1).and_then(|t| t.split(' ').next()).unwrap();
    let limited = mxpsim(&["run", "--max-insns", count, &fw]);
    assert_eq!(limited.status.code(), Some(120), "{}", stderr(&limited));
    assert_eq!(o.stdout, limited.stdout);
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(json["instructions"].as_u64().unwrap() > 0);
    // The trace was finished properly: `detect` reads it whole and names how the run ended.
    let d = mxpsim(&["detect", &trace]);
    assert_eq!(d.status.code(), Some(0), "{}", stderr(&d));
    assert!(stderr(&d).contains("the run was interrupted (SIGINT)"), "{}", stderr(&d));
}

#[test]
fn sigterm_stops_the_run_with_its_own_status() {
    let trace = temp("terminated.trace");
    let o =
        interrupted(&["run", "--race-check", "--record-trace", &trace, &elf("bench", "cpubench")], "-TERM", "sigterm");
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(stderr(&o).contains("interrupted by SIGTERM"), "{}", stderr(&o));
    let d = mxpsim(&["detect", &trace]);
    assert_eq!(d.status.code(), Some(0), "{}", stderr(&d));
    assert!(stderr(&d).contains("the run was interrupted (SIGTERM)"), "{}", stderr(&d));
}

/// A recording killed outright (SIGKILL: nothing can be finished) reads back as cut short,
/// never as a complete run with fewer races (issue 13: it read back as "0 races").
#[test]
fn a_recording_killed_outright_reads_back_as_cut_short() {
    let trace = temp("killed.trace");
    let o =
        interrupted(&["run", "--race-check", "--record-trace", &trace, &elf("bench", "cpubench")], "-KILL", "sigkill");
    assert_eq!(o.status.signal(), Some(9));
    assert_fails(&["detect", &trace], 108, "the recording was cut short");
}

/// A signal during `provoke` ends it with the signal's status, after what it found so far.
#[test]
fn sigterm_stops_provoke_with_its_own_status() {
    let o = interrupted(&["provoke", &elf("bench", "cpubench")], "-TERM", "provoke-sigterm");
    assert_eq!(o.status.code(), Some(143), "{}", stderr(&o));
    assert!(stderr(&o).contains("provoke: interrupted"), "{}", stderr(&o));
    assert!(String::from_utf8_lossy(&o.stdout).contains("SUMMARY: provoke:"));
}

/// After a signal, no re-run has a verdict that the signal made: a re-run cut short, or
/// compared with a probing run cut short, says so and shows no differences (every re-run
/// after a Ctrl-C read as harmful: "console: 56 lines changed" for runs of 0 instructions).
#[test]
fn provoke_gives_no_verdict_to_runs_a_signal_cut_short() {
    let report = temp("provoke-cut.json");
    let args = ["provoke", "--report-format", "json", "--report-file", &report, &elf("apps", "vbw_vec_fft")];
    let o = interrupted_after(std::time::Duration::from_millis(1500), &args, &[], "-INT", "provoke-cut");
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let attempts: Vec<&serde_json::Value> =
        json["findings"].as_array().unwrap().iter().flat_map(|f| f["attempts"].as_array().unwrap()).collect();
    // (On a slow host the signal may come before the first run found a race: then nothing
    // was re-run, and the first run says it was cut short.)
    assert!(
        attempts.iter().any(|a| !a["cut_short"].is_null())
            || (attempts.is_empty() && json["first_run"]["kind"] == "interrupted"),
        "the signal came before the runs ended: {}",
        json["summary"]
    );
    for a in &attempts {
        if a["cut_short"].is_null() {
            assert!(!a["verdict"].is_null(), "{a}");
        } else {
            assert_eq!(a["cut_short"]["kind"], "interrupted", "{a}");
            assert!(a["verdict"].is_null() && a["console_lines"] == 0 && a["memory_bytes"] == 0, "{a}");
        }
    }
    if !attempts.is_empty() {
        assert!(json["summary"].as_str().unwrap().contains("cut short by a signal"), "{}", json["summary"]);
    }
}

/// `provoke` of a first run that does not finish fails as `run` does, after its report (it
/// exited 0).
#[test]
fn provoke_of_a_run_that_does_not_finish_fails_as_run_does() {
    for (args, status) in [(vec!["--max-insns", "0"], 120), (vec!["--max-cycles", "5000"], 120)] {
        let mut all = vec!["provoke"];
        all.extend(&args);
        let fw = elf("race-tests", "wb_dma_r_pending_store");
        all.push(&fw);
        let o = mxpsim(&all);
        assert_eq!(o.status.code(), Some(status), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains("provoke: the first run did not finish"), "{}", stderr(&o));
        assert!(String::from_utf8_lossy(&o.stdout).contains("SUMMARY: provoke:"), "the report is delivered");
    }
    assert_fails(&["provoke", &firmware("no_trap_handler")], 121, "provoke: the first run did not finish");
}

#[test]
fn the_cycle_limit_stops_a_run() {
    assert_fails(
        &["run", "--max-cycles", "1000", &firmware("hello")],
        120,
        "cycle limit reached: the clock is at cycle",
    );
}

/// A recorded trace of a racy program, and its bytes.
fn recorded_trace(name: &str) -> (String, Vec<u8>) {
    let path = temp(name);
    let o = mxpsim(&["run", "--race-check", "--record-trace", &path, &elf("race-tests", "wb_dma_r_pending_store")]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    let bytes = std::fs::read(&path).unwrap();
    (path, bytes)
}

/// An endless input (`/dev/zero` as the firmware or the machine) was read until the host's
/// memory ran out; a character device is refused at once now, with the input's status.
#[test]
fn endless_inputs_are_refused() {
    let device = "longer than 1048576 bytes (a character device, not a file)";
    assert_fails(&["run", "/dev/zero"], 101, &format!("/dev/zero: cannot read the file: {device}"));
    assert_fails(&["config", "--machine", "/dev/zero"], 110, &format!("cannot read /dev/zero: {device}"));
    assert_fails(&["sweep", "--grid", "/dev/zero", &firmware("hello")], 110, "cannot read /dev/zero");
    // /dev/null is an empty file, as it was: the default machine.
    let o = mxpsim(&["config", "--machine", "/dev/null"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// A closed standard output or error took every write for a success: the firmware's
/// console, a sweep's rows, the race report lost with status 0 (or 66). Refused now before
/// anything runs (122, said on standard error when that is open); a closed standard input
/// is an empty one.
#[test]
fn closed_standard_streams() {
    let closed = |redirect: &str, args: &[&str]| {
        let script = format!("exec \"$0\" \"$@\" {redirect}");
        let mut command = std::process::Command::new("sh");
        command.args(["-c", &script, env!("CARGO_BIN_EXE_mxpsim")]).args(args);
        command.output().unwrap()
    };
    let hello = firmware("hello");
    for args in [vec!["run", hello.as_str()], vec!["config"], vec!["sweep", "--line", "16,32", hello.as_str()]] {
        let o = closed(">&-", &args);
        assert_eq!(o.status.code(), Some(122), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).starts_with("mxpsim: error: standard output is closed"), "{}", stderr(&o));
    }
    let o = closed("2>&-", &["run", "--race-check", &elf("race-tests", "wb_dma_r_pending_store")]);
    assert_eq!(o.status.code(), Some(122));
    // /dev/null given on purpose, read-write as Python's DEVNULL opens it, is no closed stream.
    let o = closed("1<>/dev/null 2<>/dev/null", &["run", &hello]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = closed("<&-", &["run", &hello]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let expected = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("firmware/tests/hello.expected");
    assert_eq!(o.stdout, std::fs::read(expected).unwrap());
}

/// A firmware printing without end into a pipe whose reader went away (`| head`) ran for
/// ever: Rust ignores SIGPIPE and the console's errors were only noted. The run stops now, as
/// a filter does: status 141, no error line, the files asked for written.
#[test]
fn a_console_whose_reader_went_away_stops_the_run() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let stats = temp("flood-stats.json");
    let _ = std::fs::remove_file(&stats);
    let mut child = Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(["run", "--stats-json", &stats, &firmware("console_flood"), "--", "0"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away before the first line.
    drop(child.stdout.take());
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("the run went on printing into the closed pipe");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut err = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
    assert_eq!(status.code(), Some(141), "{err}");
    assert!(!err.contains("error"), "{err}");
    let stats: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&stats).unwrap()).unwrap();
    assert!(stats["instructions"].as_u64().unwrap() > 0, "{stats}");
}

/// `detect --elf` of another firmware than the trace's named the races' bytes and lines from
/// the wrong file without a word; it warns now, and the verdict (the trace's) stays. The
/// same program rebuilt with other debug information is the same firmware.
#[test]
fn detect_warns_of_an_elf_that_is_not_the_recorded_firmware() {
    let (trace, _) = recorded_trace("for-elf-check.trace");
    let warning = "not the firmware the trace was recorded from";
    let recorded = elf("race-tests", "wb_dma_r_pending_store");
    let same = mxpsim(&["detect", "--elf", &recorded, &trace]);
    assert_eq!(same.status.code(), Some(66), "{}", stderr(&same));
    assert!(!stderr(&same).contains(warning), "{}", stderr(&same));
    let stripped = temp("stripped-recorded.elf");
    let strip = std::process::Command::new("riscv64-unknown-elf-strip")
        .args(["--strip-debug", "-o", &stripped, &recorded])
        .status()
        .expect("riscv64-unknown-elf-strip runs");
    assert!(strip.success());
    let o = mxpsim(&["detect", "--elf", &stripped, &trace]);
    assert!(!stderr(&o).contains(warning), "{}", stderr(&o));
    let other = mxpsim(&["detect", "--elf", &firmware("hello"), &trace]);
    assert_eq!(other.status.code(), same.status.code(), "{}", stderr(&other));
    assert_eq!(stderr(&other).matches(warning).count(), 1, "{}", stderr(&other));
}

/// Ctrl-C during `detect` reports the events read so far and says it is a part (issue 13: it
/// printed nothing). The trace comes through a pipe: half of it, the signal, then the rest.
#[test]
fn ctrl_c_during_detect_reports_the_events_read_so_far() {
    use std::io::Write;
    let (path, full) = recorded_trace("for-detect.trace");
    let whole = mxpsim(&["detect", &path]);
    let summary = stderr(&whole);
    let total: u64 = summary.split(" events").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    let fifo = temp("detect.fifo");
    assert!(std::process::Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let err = temp("detect-interrupted.err");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(["detect", &fifo])
        .stderr(std::fs::File::create(&err).unwrap())
        .spawn()
        .unwrap();
    let mut pipe = std::fs::OpenOptions::new().write(true).open(&fifo).unwrap();
    pipe.write_all(&full[..full.len() / 2]).unwrap();
    pipe.flush().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap().success());
    std::thread::sleep(std::time::Duration::from_millis(200));
    // (It may have stopped reading already: then the rest finds no reader.)
    let _ = pipe.write_all(&full[full.len() / 2..]);
    drop(pipe);
    let status = child.wait().unwrap();
    let err = std::fs::read_to_string(err).unwrap();
    assert_eq!(status.code(), Some(130), "{err}");
    let read: u64 = err
        .split("the report covers the first ")
        .nth(1)
        .and_then(|t| t.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{err}"));
    assert!(read > 0 && read < total, "{read} of {total} events:\n{err}");
    assert!(err.contains("SUMMARY: mxpsim: ") && err.contains(&format!("in {read} events")), "{err}");
    assert!(err.contains("the recording ends after"), "{err}");
}

/// Bytes after a valid trailer: refused, unless `--partial`, which analyses every frame before
/// them (issue 13: `--partial` refused them too).
#[test]
fn bytes_after_the_trailer_are_refused_unless_partial() {
    let (_, mut bytes) = recorded_trace("extended.trace");
    bytes.push(0x55);
    let extended = temp_file("extended-plus.trace", &bytes);
    assert_fails(&["detect", &extended], 124, "bytes after its trailer");
    let o = mxpsim(&["detect", "--partial", &extended]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(66), "{err}");
    assert!(err.contains("mxpsim: warning:") && err.contains("SUMMARY: mxpsim: 1 data race"), "{err}");
}

#[test]
fn a_cut_trace_is_refused_unless_partial_and_a_damaged_one_is_refused() {
    let (_, full) = recorded_trace("whole.trace");
    let cut = temp_file("cut.trace", &full[..full.len() * 2 / 3]);
    let o = mxpsim(&["detect", &cut]);
    assert_fails(&["detect", &cut], 108, "the recording was cut short");
    assert!(stderr(&o).contains("--partial analyses them"), "{}", stderr(&o));
    let p = mxpsim(&["detect", "--partial", &cut]);
    assert!(matches!(p.status.code(), Some(0 | 66)), "{}", stderr(&p));
    assert!(stderr(&p).contains("the recording ends after"), "{}", stderr(&p));
    // One byte in the middle changed, without making or removing a frame boundary (a zero):
    // the frame no longer decodes, or decodes as something else and fails the checksum.
    let mut damaged = full.clone();
    let at = (full.len() / 2..).find(|&i| full[i] >= 2).unwrap();
    damaged[at] ^= 0x01;
    let damaged = temp_file("damaged.trace", &damaged);
    let o = mxpsim(&["detect", &damaged]);
    assert!(matches!(o.status.code(), Some(124)), "{}", stderr(&o));
    assert_eq!(stderr(&o).lines().filter(|l| l.starts_with("mxpsim: error:")).count(), 1, "{}", stderr(&o));
}

#[test]
fn a_report_file_that_cannot_be_written_sends_the_report_to_standard_error() {
    let o =
        mxpsim(&["run", "--race-check", "--report-file", "/dev/full", &elf("race-tests", "wb_dma_r_pending_store")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(122), "{err}");
    assert!(err.contains("SUMMARY: mxpsim: 1 data race"), "the report is on standard error:\n{err}");
    assert!(err.contains("(the race report went to standard error, above)"), "{err}");
}

/// Every file asked for that cannot be written after the run goes to standard error instead
/// (issue 13: the statistics and the signature were lost).
#[test]
fn statistics_and_signature_files_that_cannot_be_written_go_to_standard_error() {
    let o = mxpsim(&["run", "--stats-json", "/dev/full", &firmware("hello")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(122), "{err}");
    let json = &err[err.find('{').expect("the JSON is on standard error")..err.rfind('}').unwrap() + 1];
    let stats: serde_json::Value = serde_json::from_str(json).unwrap();
    assert!(stats["instructions"].as_u64().unwrap() > 0, "{err}");
    assert!(err.contains("(the statistics went to standard error, above)"), "{err}");

    let o = mxpsim(&["run", "--signature", "/dev/full", &firmware("signature")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(122), "{err}");
    let expected = std::fs::read_to_string(temp_signature()).unwrap();
    assert!(err.starts_with(&expected), "{err}");
    assert!(err.contains("(the signature went to standard error, above)"), "{err}");
}

/// Two files that fail are two errors: the second is not hidden by the first (it was).
#[test]
fn every_output_file_that_fails_is_said() {
    let o = mxpsim(&["run", "--stats-json", "/dev/full", "--signature", "/dev/full", &firmware("signature")]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(122), "{err}");
    let errors: Vec<_> = err.lines().filter(|l| l.starts_with("mxpsim: error:")).collect();
    assert_eq!(errors.len(), 2, "{err}");
    assert!(errors[0].contains("(the statistics went to standard error, above)"), "{err}");
    assert!(errors[1].contains("(the signature went to standard error, above)"), "{err}");
}

/// The signature of `signature.elf`, written to a file as asked.
fn temp_signature() -> String {
    let path = temp("written.signature");
    let o = mxpsim(&["run", "--signature", &path, &firmware("signature")]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    path
}

#[test]
fn firmware_output_to_a_full_disk_is_reported_once() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(["run", &firmware("printf_int")])
        .stdout(full)
        .output()
        .unwrap();
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(122), "{err}");
    assert_eq!(err.matches("cannot write the firmware's output to standard output").count(), 1, "{err}");
}

/// Runs mxpsim with its standard output a stream whose reader has already gone (`| head`
/// that exited): returns the status and standard error. The reader is gone before mxpsim
/// starts (a socket pair whose other end is closed: a write fails with EPIPE, as into such a
/// pipe), so the outcome does not depend on who runs first. (A pipe closed just after the
/// spawn was not: under load, mxpsim could write a short output into the pipe's buffer first.)
fn into_a_closed_pipe(args: &[&str]) -> (Option<i32>, String) {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(ours);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(args)
        .stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    (o.status.code(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn a_closed_pipe_ends_mxpsim_quietly_with_the_conventional_status() {
    // Found by issue 13: sweep and config aborted on a closed pipe.
    for args in [
        vec!["sweep", "--line", "16,32", &firmware("hello")[..]],
        vec!["config"],
        vec!["run", &firmware("printf_int")[..]],
    ] {
        let (status, err) = into_a_closed_pipe(&args);
        assert_eq!(status, Some(141), "{args:?}: {err}");
        assert!(!err.contains("panicked") && !err.contains("error"), "{args:?}: {err}");
    }
}

/// mxpsim with standard output and standard error both the write end of a pipe whose reader
/// has gone (`2>&1 | head -1` once head is done).
fn both_into_a_closed_pipe(args: &[&str]) -> Option<i32> {
    let (ours, theirs) = std::os::unix::net::UnixStream::pair().unwrap();
    drop(ours);
    let err = theirs.try_clone().unwrap();
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(args)
        .stdout(std::process::Stdio::from(std::os::fd::OwnedFd::from(theirs)))
        .stderr(std::process::Stdio::from(std::os::fd::OwnedFd::from(err)))
        .status()
        .unwrap();
    status.code()
}

/// mxpsim with standard error on a full disk.
fn with_a_full_stderr(args: &[&str]) -> Option<i32> {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim")).args(args).stderr(full).output().unwrap();
    o.status.code()
}

/// Found by issue 13's audit: notes, statistics and the lines that say how a run ended were
/// written with a call that panics when standard error fails (an "internal error", 100).
#[test]
fn a_closed_or_full_standard_error_never_makes_mxpsim_fail_as_a_bug() {
    let hello = firmware("hello");
    let race = elf("race-tests", "wb_dma_r_pending_store");
    // A reader that went away: quietly, 141, whatever was being written.
    for args in [
        vec!["run", "--stats", &hello[..]],
        vec!["run", "--race-check", &race[..]],
        vec!["run", &firmware("trap_storm")[..]],
    ] {
        let expected = if args.contains(&&firmware("trap_storm")[..]) { 121 } else { 141 };
        assert_eq!(both_into_a_closed_pipe(&args), Some(expected), "{args:?}");
    }
    // A full disk: the run's own failure first, else an output failure.
    assert_eq!(with_a_full_stderr(&["run", "--max-insns", "1000", &hello]), Some(120));
    assert_eq!(with_a_full_stderr(&["run", "--stats", &hello]), Some(122));
    assert_eq!(with_a_full_stderr(&["run", &hello]), Some(0), "nothing to write, nothing lost");
}

#[test]
fn a_full_standard_error_does_not_abort_the_race_report() {
    let full = std::fs::OpenOptions::new().write(true).open("/dev/full").unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(["run", "--race-check", &elf("race-tests", "wb_dma_r_pending_store")])
        .stderr(full)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(122), "the report could not be written");
}

/// Found by issue 13's audit: a trace cut before its header was whole said "cut short" but
/// exited as a damaged trace (124).
#[test]
fn a_trace_cut_inside_its_header_was_cut_short() {
    use mxpsim_detector::event::{CacheGeometry, Range, WriteBack};
    use mxpsim_sim::event_trace::{Header, TraceWriter};
    let geometry = CacheGeometry { line_size: 64, write_back: WriteBack::Line };
    let header = Header::new(geometry, vec![Range::new(0x8000_0000, 64 << 20)], 256 << 10, 0);
    let mut bytes = Vec::new();
    TraceWriter::new(&mut bytes, &header).unwrap();
    // Nothing, the magic number alone, and the header's first bytes.
    for cut in [0, 8, 12] {
        let trace = temp_file(&format!("cut{cut}.trace"), &bytes[..cut]);
        assert_fails(&["detect", &trace], 108, "cut short");
    }
}

#[test]
fn detect_refuses_events_outside_the_recorded_machine() {
    // Found by issue 13: a crafted trace's 4 GiB DMA made `detect` allocate 10.7 GB.
    use mxpsim_detector::event::{CacheGeometry, DmaDir, Event, Origin, Range, Request, WriteBack};
    use mxpsim_models::events::EventSink;
    use mxpsim_sim::event_trace::{Header, TraceWriter};
    let geometry = CacheGeometry { line_size: 64, write_back: WriteBack::Line };
    let header = Header::new(geometry, vec![Range::new(0x8000_0000, 64 << 20)], 256 << 10, 0);
    let mut bytes = Vec::new();
    let mut w = TraceWriter::new(&mut bytes, &header).unwrap();
    let origin = Origin { pc: 0x8000_0100, cycle: 10, ctx: 0 };
    w.emit(Event::Request { request: Request::Dma(DmaDir::ToScratchpad), origin });
    let (host, scratchpad) = (vec![Range::new(0, u32::MAX)], vec![Range::new(0, 64)]);
    w.emit(Event::Dma { request: 1, dir: DmaDir::ToScratchpad, host, scratchpad, cycle: 20 });
    w.emit(Event::Sync { origin });
    let end = mxpsim_sim::exit_code::RunEnd::Exited { status: 0 };
    w.finish(&Default::default(), &end).unwrap();
    let trace = temp_file("crafted.trace", &bytes);
    assert_fails(&["detect", &trace], 124, "events naming bytes outside the recorded machine: 1");
}

#[test]
fn detect_sums_up_events_the_detector_rejects_in_one_line() {
    // Found by issue 13: 100,000 impossible events gave 100,002 log lines and exit 0.
    use mxpsim_detector::event::{CacheGeometry, DmaDir, Event, Range, WriteBack};
    use mxpsim_models::events::EventSink;
    use mxpsim_sim::event_trace::{Header, TraceWriter};
    let geometry = CacheGeometry { line_size: 64, write_back: WriteBack::Line };
    let header = Header::new(geometry, vec![Range::new(0x8000_0000, 64 << 20)], 256 << 10, 0);
    let mut bytes = Vec::new();
    let mut w = TraceWriter::new(&mut bytes, &header).unwrap();
    for _ in 0..10_000 {
        // An engine node for a request that was never made.
        let (host, scratchpad) = (vec![Range::new(0x8000_0000, 64)], vec![Range::new(0, 64)]);
        w.emit(Event::Dma { request: 7, dir: DmaDir::ToScratchpad, host, scratchpad, cycle: 20 });
    }
    w.finish(&Default::default(), &mxpsim_sim::exit_code::RunEnd::Exited { status: 0 }).unwrap();
    let trace = temp_file("impossible.trace", &bytes);
    assert_fails(&["detect", &trace], 124, "events the race detector rejects as impossible in a run: 10000");
    assert!(stderr(&mxpsim(&["detect", &trace])).lines().count() < 10);
}

#[test]
fn a_bad_cache_line_in_a_trace_header_is_a_damaged_trace() {
    // Found by issue 13: it exited 110 (a configuration error) without naming the file.
    use mxpsim_detector::event::{CacheGeometry, Range, WriteBack};
    use mxpsim_sim::event_trace::{Header, TraceWriter};
    let geometry = CacheGeometry { line_size: 48, write_back: WriteBack::Line };
    let header = Header::new(geometry, vec![Range::new(0x8000_0000, 64 << 20)], 256 << 10, 0);
    let mut bytes = Vec::new();
    let w = TraceWriter::new(&mut bytes, &header).unwrap();
    w.finish(&Default::default(), &mxpsim_sim::exit_code::RunEnd::Exited { status: 0 }).unwrap();
    let trace = temp_file("bad-line.trace", &bytes);
    assert_fails(&["detect", &trace], 124, "bad-line.trace: ");
}

/// A trace path that names a directory cannot be read, as for `run` (issue 13: it was a
/// damaged trace, 124).
#[test]
fn detect_of_a_directory_is_unreadable() {
    let dir = std::env::temp_dir();
    assert_fails(&["detect", dir.to_str().unwrap()], 101, "Is a directory");
}

#[test]
fn race_report_files_are_checked_before_the_run() {
    let hello = firmware("hello");
    let file = temp("twice.txt");
    let also = format!("human:{file}");
    assert_fails(
        &["run", "--race-check", "--report-file", &file, "--report-also", &also, &hello],
        2,
        "are one file (each output needs its own)",
    );
    assert!(!std::path::Path::new(&file).exists(), "nothing is written before the check");
    for (bad, says) in [("xml:out", "unknown format 'xml'"), ("json", "expected FORMAT:FILE"), ("json:", "no FILE")] {
        let o = mxpsim(&["run", "--race-check", "--report-also", bad, &hello]);
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(stderr(&o).contains(says), "{bad}: {}", stderr(&o));
    }
    assert_fails(&["run", "--report-also", &also, &hello], 2, "--report-also needs --race-check");
}

/// An output that is one of the command's inputs, by any spelling, is refused before
/// anything is created: the firmware emptied by its own race report ended in SIGBUS (the
/// debug information was mapped from the file), a trace or a shard was destroyed.
#[test]
fn an_output_that_is_an_input_is_refused_and_the_input_kept() {
    let original = std::fs::read(elf("race-tests", "wb_dma_r_pending_store")).unwrap();
    let fw = temp_file("own-report.elf", &original);
    let dotted = {
        let path = std::path::Path::new(&fw);
        path.parent().unwrap().join(".").join(path.file_name().unwrap()).to_str().unwrap().to_string()
    };
    let also = format!("json:{dotted}");
    for args in [
        vec!["run", "--race-check", "--report-file", &fw, &fw],
        vec!["run", "--race-check", "--report-also", &also, &fw],
        vec!["run", "--stats-json", &dotted, &fw],
        vec!["run", "--trace", &fw, &fw],
        vec!["provoke", "--report-file", &fw, &fw],
        vec!["sweep", "--csv", &dotted, &fw],
    ] {
        assert_fails(&args, 2, "writing it would destroy it");
        assert_eq!(std::fs::read(&fw).unwrap(), original, "{args:?} left the firmware as it was");
    }
    let trace = temp("own-report.trace");
    let o = mxpsim(&["run", "--race-check", "--record-trace", &trace, &fw]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    let recorded = std::fs::read(&trace).unwrap();
    assert_fails(&["detect", "--report-file", &trace, &trace], 2, "is the trace");
    assert_fails(&["detect", "--elf", &fw, "--report-also", &also, &trace], 2, "is --elf");
    assert_eq!(std::fs::read(&trace).unwrap(), recorded);
}

/// Two outputs that are one file lost all but one (the statistics under the report); the
/// null device takes any number of them.
#[test]
fn two_outputs_that_are_one_file_are_refused() {
    let fw = elf("race-tests", "wb_dma_r_pending_store");
    let out = temp("one-file.txt");
    let _ = std::fs::remove_file(&out);
    assert_fails(&["run", "--race-check", "--stats-json", &out, "--report-file", &out, &fw], 2, "are one file");
    assert!(!std::path::Path::new(&out).exists(), "nothing is created before the check");
    let o = mxpsim(&["run", "--race-check", "--stats-json", "/dev/null", "--report-file", "/dev/null", &fw]);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
}
