//! Fuzzing the command line's contract (issue 13): every bad input ends with a documented
//! exit status and one clear `mxpsim: error:` line, never a panic, an abort or a hang.
//!
//! Three families, one test each, make random inputs from a fixed seed, run the `mxpsim`
//! binary on each with a timeout, and judge how it ended with [`oracle`]:
//!
//! * `mutated_elf_files`: `hello.elf` and an SDK race test program, with bytes changed in
//!   their ELF header, program and section headers, symbol and string tables and DWARF
//!   sections, or cut short, run with `--race-check` (the race report reads DWARF);
//! * `random_configurations`: `--cache` specs, TOML machine files and `--dram-size` values
//!   (plausible, out of range, of the wrong type, malformed, 100 KB long) for `config` and
//!   for `run`;
//! * `mutated_event_traces`: a recorded event trace with bits flipped, chunks copied, removed
//!   or appended, frame delimiters added or dropped, or cut short, for `detect`.
//!
//! The accelerator's command streams are fuzzed on the model (`models/src/mxp/tests.rs`).
//!
//! Each family runs `FUZZ_CASES` cases (default 2000; the three families together take about
//! half a minute on the 2-core CI machine in the dev profile). A failing case is reported with
//! `FUZZ_SEED` and its number; its inputs stay in the tests' temporary directory beside a
//! `.sh` script that runs the failing command again. A longer campaign, on other inputs:
//!
//! ```text
//! FUZZ_CASES=5000 FUZZ_SEED=2 cargo test --release --test fuzz -- --nocapture
//! ```
//!
//! (The release profile aborts on a panic: the case then fails as killed by SIGABRT.)

mod common;
use common::{elf, firmware, mxpsim, stderr, temp};
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use rayon::prelude::*;
use std::collections::BTreeSet;
use std::fs::File;
use std::ops::Range;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// Cases per family unless `FUZZ_CASES` says otherwise.
const DEFAULT_CASES: u64 = 2000;
/// The campaign's seed unless `FUZZ_SEED` says otherwise ("mxpsim").
const DEFAULT_SEED: u64 = 0x6d78_7073_696d;
/// Far longer than any case takes on a loaded 2-core machine in the dev profile: a case
/// still running then hangs.
const TIMEOUT: Duration = Duration::from_secs(20);
const POLL: Duration = Duration::from_millis(2);
/// Every run of a damaged firmware stops after this many instructions: it may loop forever.
const MAX_INSNS: &str = "2000000";
/// The same for `run` under a random configuration (hello.elf needs far fewer).
const CONFIG_RUN_INSNS: &str = "100000";
/// The longest diagnostic line accepted: input echoed in a message must be cut short (a
/// message may still be long: a path, two cut words, the list of a table's fields).
const MAX_LINE: usize = 512;
/// The size of the long values: under the kernel's 128 KiB limit on one argument.
const LONG: usize = 100_000;
/// Lines of standard error shown for a failing case.
const TAIL_LINES: usize = 15;

/// `--race-check` / `detect` found races: not a failure.
const RACES_FOUND: i32 = 66;
/// Bad command line: clap's own errors start with `error:`, not `mxpsim: error:`.
const USAGE: i32 = 2;
/// mxpsim's internal error (its panic hook), and a process that aborted.
const INTERNAL: i32 = 100;
const ABORT: i32 = 134;

/// An SDK race test program with DWARF: its race report names functions, lines and
/// variables from the debug information, and its run has heap and scratchpad events.
const RACY: &str = "wb_dma_r_pending_store";

// ---------------------------------------------------------------------------------------------
// Running cases and judging them.

/// What a command may exit with besides mxpsim's failure statuses.
#[derive(Clone, Copy)]
enum Expect {
    /// A run: the firmware's own status, whatever it is (a damaged firmware may exit with any).
    AnyStatus,
    /// `config` and `detect`: these only.
    Statuses(&'static [i32]),
}

/// One fuzz case: its command lines and the files they read.
#[derive(Default)]
struct Case {
    /// Command lines (without the program) and what each may exit with.
    commands: Vec<(Vec<String>, Expect)>,
    /// Files written for the case: removed when it passes, kept when it fails.
    inputs: Vec<String>,
    /// How its inputs were made, for the failure report.
    how: Vec<String>,
}

impl Case {
    /// Writes the input file `STEM.EXT`; returns its path.
    fn input(&mut self, stem: &str, ext: &str, bytes: &[u8]) -> String {
        let path = temp(&format!("{stem}.{ext}"));
        std::fs::write(&path, bytes).expect("the temporary directory is writable");
        self.inputs.push(path.clone());
        path
    }
}

/// Runs `FUZZ_CASES` cases that `make` builds (from the case's generator and the stem of its
/// file names) and fails with the reproduction of every failing one. Each case has a
/// generator of its own (seed and number), so they run in parallel and fail in order.
fn fuzz(family: &str, make: impl Fn(&mut Gen, &str) -> Case + Sync) {
    let seed = env_number("FUZZ_SEED", DEFAULT_SEED);
    let cases = env_number("FUZZ_CASES", DEFAULT_CASES);
    let failures = failure_statuses();
    let start = Instant::now();
    let failed: Vec<String> = (0..cases)
        .into_par_iter()
        .filter_map(|number| {
            let stem = format!("fuzz-{family}-{number}");
            let case = make(&mut Gen::new(seed, number), &stem);
            let why = run_case(&case, &stem, &failures).err()?;
            Some(format!("{family} case {number} (FUZZ_SEED={seed:#x}): {why}"))
        })
        .collect();
    eprintln!("fuzz {family}: {cases} cases, {} failed, {:.1?}", failed.len(), start.elapsed());
    let shown = failed.len().min(10);
    assert!(
        failed.is_empty(),
        "{} of {cases} {family} cases failed (the first {shown} below):\n\n{}",
        failed.len(),
        failed[..shown].join("\n\n")
    );
}

fn env_number(name: &str, default: u64) -> u64 {
    let Ok(text) = std::env::var(name) else { return default };
    let parsed = match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => text.parse(),
    };
    parsed.unwrap_or_else(|_| panic!("{name}={text} is not a number"))
}

/// mxpsim's failure statuses, read from the exit status table of `mxpsim --help` so that the
/// oracle follows `sim/src/exit_code.rs`: every numbered row but races found.
fn failure_statuses() -> BTreeSet<i32> {
    let help = String::from_utf8_lossy(&mxpsim(&["--help"]).stdout).into_owned();
    let table = help.split_once("Exit status").map_or("", |(_, table)| table);
    let statuses: BTreeSet<i32> = table
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next()?.parse::<i32>().ok())
        .filter(|&status| status != RACES_FOUND)
        .collect();
    assert!(statuses.contains(&USAGE) && statuses.contains(&102), "no exit status table in --help:\n{help}");
    statuses
}

/// Runs each command of `case` and judges it; removes the case's files when all pass, else
/// keeps them and says how to reproduce the failure.
fn run_case(case: &Case, stem: &str, failures: &BTreeSet<i32>) -> Result<(), String> {
    let mut outputs = Vec::new();
    for (k, (args, expect)) in case.commands.iter().enumerate() {
        let (out, err) = (temp(&format!("{stem}-{k}.stdout")), temp(&format!("{stem}-{k}.stderr")));
        let status = run_with_timeout(args, &out, &err);
        let text = String::from_utf8_lossy(&std::fs::read(&err).unwrap_or_default()).into_owned();
        let verdict = match status {
            Some(status) => oracle(status, &text, *expect, failures),
            None => Err(format!("hang: still running after {TIMEOUT:?} (killed)")),
        };
        if let Err(why) = verdict {
            let how = if case.how.is_empty() { "-".to_string() } else { case.how.join("; ") };
            return Err(format!(
                "{why}\n  inputs: {how}\n  reproduce: sh {}\n  standard error ({err}), last lines:\n{}",
                reproduction_script(stem, args),
                tail(&text)
            ));
        }
        outputs.extend([out, err]);
    }
    for file in case.inputs.iter().chain(&outputs) {
        let _ = std::fs::remove_file(file);
    }
    Ok(())
}

/// Runs mxpsim with `args`, standard input empty and standard output and error in files
/// (no pipe to fill up); `None` when it had to be killed after [`TIMEOUT`].
fn run_with_timeout(args: &[String], stdout: &str, stderr: &str) -> Option<ExitStatus> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mxpsim"))
        .args(args)
        .env_remove("RUST_LOG")
        .stdin(Stdio::null())
        .stdout(File::create(stdout).expect("the temporary directory is writable"))
        .stderr(File::create(stderr).expect("the temporary directory is writable"))
        .spawn()
        .expect("mxpsim starts");
    let start = Instant::now();
    while start.elapsed() < TIMEOUT {
        if let Some(status) = child.try_wait().expect("mxpsim can be waited for") {
            return Some(status);
        }
        std::thread::sleep(POLL);
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// The contract for bad input: a normal exit with a documented status; for mxpsim's failures
/// exactly one error line; never a panic, an abort or an allocation failure; diagnostics
/// short enough to read. `Err` says what broke it.
fn oracle(status: ExitStatus, stderr: &str, expect: Expect, failures: &BTreeSet<i32>) -> Result<(), String> {
    let Some(code) = status.code() else {
        return Err(format!("killed by signal {}", status.signal().unwrap_or(0)));
    };
    // 101 is both Rust's status for a panic and mxpsim's "cannot read": the text tells.
    for telltale in ["panicked at", "RUST_BACKTRACE", "memory allocation of"] {
        if stderr.contains(telltale) {
            return Err(format!("status {code}, and standard error says {telltale:?}"));
        }
    }
    if matches!(code, INTERNAL | ABORT) && !firmware_exited_with(stderr, code) {
        let what = if code == INTERNAL { "mxpsim's internal error" } else { "an abort" };
        return Err(format!("status {code}: {what}"));
    }
    if let Some(long) = stderr.lines().find(|l| is_diagnostic(l) && l.chars().count() > MAX_LINE) {
        return Err(format!(
            "a diagnostic line of {} characters (echoed input is not cut short): {}",
            long.chars().count(),
            cut(long, 200)
        ));
    }
    let errors = stderr.lines().filter(|l| is_error_line(l, code)).count();
    if failures.contains(&code) {
        return match errors {
            1 => Ok(()),
            0 if firmware_exited_with(stderr, code) => Ok(()),
            n => Err(format!("status {code} (a failure of mxpsim) with {n} error lines, not one")),
        };
    }
    if errors > 0 {
        return Err(format!("status {code} is not a failure of mxpsim, yet standard error has {errors} error line(s)"));
    }
    match expect {
        Expect::AnyStatus => Ok(()),
        Expect::Statuses(allowed) if allowed.contains(&code) => Ok(()),
        Expect::Statuses(allowed) => Err(format!("status {code}: neither a failure of mxpsim nor one of {allowed:?}")),
    }
}

/// mxpsim's one error line; for a bad command line also clap's.
fn is_error_line(line: &str, code: i32) -> bool {
    line.starts_with("mxpsim: error:") || (code == USAGE && line.starts_with("error:"))
}

/// A line mxpsim (or clap) writes about the input, as opposed to the firmware's console or
/// the race report.
fn is_diagnostic(line: &str) -> bool {
    line.starts_with("mxpsim:") || line.starts_with("error:")
}

/// True when the firmware itself ended the run with `code`: the race report's SUMMARY says it
/// exited with that status, or mxpsim reported a failing riscv-tests `tohost` verdict. (A
/// damaged firmware may exit with any number, mxpsim's included.)
fn firmware_exited_with(stderr: &str, code: i32) -> bool {
    stderr.lines().any(|line| {
        let summary = line.strip_prefix("SUMMARY: mxpsim:");
        let exited = summary.and_then(|s| s.rsplit_once("the firmware exited with status "));
        let exited = exited.and_then(|(_, status)| status.parse::<i64>().ok());
        // The process status keeps the low 8 bits of the firmware's.
        exited.is_some_and(|status| i32::from(status as u8) == code) || line.starts_with("mxpsim: tohost = ")
    })
}

/// Writes `STEM.sh`, which runs the failing command again; returns its path.
fn reproduction_script(stem: &str, args: &[String]) -> String {
    let quote = |arg: &str| format!("'{}'", arg.replace('\'', r"'\''"));
    let words: Vec<String> =
        std::iter::once(env!("CARGO_BIN_EXE_mxpsim")).chain(args.iter().map(String::as_str)).map(quote).collect();
    let path = temp(&format!("{stem}.sh"));
    std::fs::write(&path, format!("#!/bin/sh\n{} </dev/null\n", words.join(" ")))
        .expect("the temporary directory is writable");
    path
}

/// The last lines of standard error, cut to a readable width and indented.
fn tail(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let last = &lines[lines.len().saturating_sub(TAIL_LINES)..];
    last.iter().map(|line| format!("    {}", cut(line, 300))).collect::<Vec<_>>().join("\n")
}

/// `text` cut to `max` characters, saying how long it was.
fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((end, _)) => format!("{}… ({} bytes)", &text[..end], text.len()),
    }
}

// ---------------------------------------------------------------------------------------------
// Random choices.

/// A case's random choices, seeded by the campaign's seed and the case's number.
struct Gen {
    rng: Xoshiro256PlusPlus,
    /// A 100 KB command-line value was made: one per case keeps every argument under the
    /// kernel's 128 KiB limit (a `--cache` spec's items share one argument).
    long_made: bool,
}

/// Values each setting accepts somewhere: sizes, counts, policy names, booleans.
const PLAUSIBLE: &[&str] = &[
    "16",
    "32",
    "64",
    "128",
    "256",
    "1",
    "4",
    "4096",
    "16K",
    "64M",
    "full",
    "lru",
    "fifo",
    "plru",
    "random",
    "back",
    "through",
    "line",
    "byte",
    "dirty-bytes",
    "true",
    "false",
];
/// Numbers at and past the edges of the integer types and units, and near-numbers.
const EDGE_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-2147483648",
    "2147483648",
    "4294967295",
    "4294967296",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999",
    "0x",
    "0xffffffff",
    "0x100000000",
    "0x7fffffff",
    "4G",
    "4095M",
    "1e9",
    "1.5",
    "+5",
    " 64 ",
    "0b101",
    "64KiB",
    "64Q",
    "NaN",
    "inf",
    "",
];
/// Text that is no value at all.
const ODD_TEXT: &[&str] =
    &["é", "日本語", "\u{202e}evil", "a b", "\t", "\\", "\"", "'", "%s%n", "$(id)", "--help", "-", "=", ",", "K"];
/// TOML integers at the edges of u32, i64 and TOML's notations.
const TOML_INTEGERS: &[&str] = &[
    "0",
    "-1",
    "1",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "0xffffffff",
    "0x100000000",
    "0o777",
    "0b1010",
    "1_000",
    "+1",
];
/// TOML values of the other types.
const TOML_OTHER: &[&str] = &[
    "1.5",
    "-0.0",
    "inf",
    "nan",
    "1e400",
    "true",
    "false",
    "[]",
    "[1, 2, 3]",
    "[4, 15, 16, 17]",
    "[[1], [2]]",
    "[\"a\", 1]",
    "[-1, -1]",
    "{}",
    "{ a = 1 }",
    "1979-05-27T07:32:00Z",
    "07:32:00",
    "\"\"\"multi\nline\"\"\"",
];
const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz_0123456789";

impl Gen {
    fn new(seed: u64, case: u64) -> Gen {
        Gen { rng: Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(case)), long_made: false }
    }

    /// A number below `n` (> 0).
    fn below(&mut self, n: usize) -> usize {
        (self.rng.next_u64() % n as u64) as usize
    }

    fn chance(&mut self, percent: usize) -> bool {
        self.below(100) < percent
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    fn u32(&mut self) -> u32 {
        self.rng.next_u32()
    }

    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.rng.next_u32() as u8).collect()
    }

    /// A short identifier-like word.
    fn word(&mut self) -> String {
        let n = 1 + self.below(12);
        (0..n).map(|_| *self.pick(ALPHABET) as char).collect()
    }

    /// A number, decimal or hexadecimal.
    fn number(&mut self) -> String {
        let n = self.u32();
        if self.chance(50) {
            n.to_string()
        } else {
            format!("{n:#x}")
        }
    }

    /// A value for a command-line setting: plausible, out of range, malformed or 100 KB long.
    fn arg_value(&mut self) -> String {
        match self.below(6) {
            0 => self.pick(PLAUSIBLE).to_string(),
            1 => self.pick(EDGE_NUMBERS).to_string(),
            2 => self.number(),
            3 => self.word(),
            4 => self.pick(ODD_TEXT).to_string(),
            _ if self.long_made => self.word(),
            _ => {
                self.long_made = true;
                match self.below(4) {
                    0 => "9".repeat(LONG),
                    1 => format!("0x{}", "f".repeat(LONG)),
                    2 => "a".repeat(LONG),
                    _ => "=".repeat(LONG),
                }
            }
        }
    }

    /// A TOML value of any type, in and out of every field's range, now and then 100 KB long.
    fn toml_value(&mut self) -> String {
        match self.below(6) {
            0 => self.pick(TOML_INTEGERS).to_string(),
            1 => self.number(),
            2 => self.pick(TOML_OTHER).to_string(),
            // A string: Rust's escapes are mostly TOML's, `\u{…}` is not.
            3 => format!("{:?}", self.arg_value()),
            4 => self.pick(PLAUSIBLE).to_string(),
            _ if self.chance(50) => "9".repeat(LONG),
            _ => format!("\"{}\"", "a".repeat(LONG)),
        }
    }
}

/// Inserts `new` into `bytes` at `at`.
fn insert_bytes(bytes: &mut Vec<u8>, at: usize, new: &[u8]) {
    let tail = bytes.split_off(at);
    bytes.extend_from_slice(new);
    bytes.extend(tail);
}

/// Removes `range` from `bytes`.
fn remove_bytes(bytes: &mut Vec<u8>, range: Range<usize>) {
    let tail = bytes.split_off(range.end);
    bytes.truncate(range.start);
    bytes.extend(tail);
}

// ---------------------------------------------------------------------------------------------
// Damaged ELF files.

/// A named byte range of an ELF file.
struct Region {
    name: String,
    bytes: Range<usize>,
}

/// The parts of an ELF32 file worth damaging: its header, program and section headers,
/// symbol and string tables and DWARF sections, and the file as a whole (read from the
/// intact file; no more parsing than that).
fn elf_regions(elf: &[u8]) -> Vec<Region> {
    let half = |at: usize| usize::from(u16::from_le_bytes([elf[at], elf[at + 1]]));
    let word = |at: usize| u32::from_le_bytes([elf[at], elf[at + 1], elf[at + 2], elf[at + 3]]) as usize;
    let (phoff, phentsize, phnum) = (word(28), half(42), half(44));
    let (shoff, shentsize, shnum, shstrndx) = (word(32), half(46), half(48), half(50));
    // sh_name, sh_type, sh_offset, sh_size of section `i`.
    let section = |i: usize| {
        let at = shoff + i * shentsize;
        (word(at), word(at + 4), word(at + 16), word(at + 20))
    };
    let region = |name: &str, bytes: Range<usize>| Region { name: name.to_string(), bytes };
    let mut regions = vec![
        region("ELF header", 0..52),
        region("program headers", phoff..phoff + phnum * phentsize),
        region("section headers", shoff..shoff + shnum * shentsize),
        region("the file", 0..elf.len()),
    ];
    let names = section(shstrndx).2;
    const SHT_NOBITS: usize = 8;
    for i in 1..shnum {
        let (name, kind, offset, size) = section(i);
        let name = &elf[names + name..];
        let name = String::from_utf8_lossy(&name[..name.iter().position(|&b| b == 0).unwrap_or(name.len())]);
        let wanted = name.starts_with(".debug_") || [".symtab", ".strtab", ".shstrtab"].contains(&&*name);
        if wanted && kind != SHT_NOBITS && size > 0 {
            regions.push(region(&name, offset..offset + size));
        }
    }
    regions
}

/// Values that break sizes, offsets, counts and indices: zero, sign boundaries, all ones,
/// and sizes around the file's own.
fn interesting(g: &mut Gen, file_len: usize) -> u32 {
    let len = file_len as u32;
    *g.pick(&[
        0,
        1,
        2,
        0x7f,
        0x80,
        0xff,
        0x100,
        0xffff,
        0x1_0000,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_fffe,
        0xffff_ffff,
        len - 1,
        len,
        len + 1,
        len / 2,
    ])
}

/// One change to an ELF file inside one of its `regions`: a flipped bit, a random byte, a
/// field overwritten with an interesting value, or a cut. Returns what it did.
fn mutate_elf(g: &mut Gen, elf: &mut Vec<u8>, regions: &[Region], original_len: usize) -> String {
    let region = g.pick(regions);
    let name = &region.name;
    // An earlier cut may have taken some or all of the region.
    let range = region.bytes.start.min(elf.len())..region.bytes.end.min(elf.len());
    if range.is_empty() {
        return format!("nothing ({name} was cut off)");
    }
    let at = range.start + g.below(range.len());
    match g.below(10) {
        0..=2 => {
            let bit = g.below(8);
            elf[at] ^= 1 << bit;
            format!("bit {bit} flipped at {at:#x} ({name})")
        }
        3 | 4 => {
            let byte = g.u32() as u8;
            elf[at] = byte;
            format!("byte {byte:#04x} at {at:#x} ({name})")
        }
        5..=8 => {
            let width = *g.pick(&[1, 2, 4]);
            // Header and table fields are aligned to their size from the region's start.
            let at = range.start + (at - range.start) / width * width;
            let end = (at + width).min(elf.len());
            let value = interesting(g, original_len);
            elf[at..end].copy_from_slice(&value.to_le_bytes()[..end - at]);
            format!("{width}-byte field at {at:#x} = {value:#x} ({name})")
        }
        _ => {
            elf.truncate(at);
            format!("cut at {at:#x} ({name})")
        }
    }
}

#[test]
fn mutated_elf_files() {
    let bases: Vec<(&str, Vec<u8>, Vec<Region>)> = [("hello", firmware("hello")), (RACY, elf("race-tests", RACY))]
        .into_iter()
        .map(|(name, path)| {
            let bytes = std::fs::read(&path).unwrap();
            let regions = elf_regions(&bytes);
            for wanted in ["program headers", ".symtab", ".strtab", ".debug_info", ".debug_line", ".debug_str"] {
                assert!(regions.iter().any(|r| r.name == wanted), "{path} has no {wanted}");
            }
            (name, bytes, regions)
        })
        .collect();
    fuzz("elf", |g, stem| {
        let (name, original, regions) = g.pick(&bases);
        let mut bytes = original.clone();
        let n = 1 + g.below(3);
        let changes: Vec<String> = (0..n).map(|_| mutate_elf(g, &mut bytes, regions, original.len())).collect();
        let mut case = Case::default();
        let path = case.input(stem, "elf", &bytes);
        case.how.push(format!("{name}.elf: {}", changes.join("; ")));
        // --race-check: the report reads DWARF, and its SUMMARY tells a firmware's own exit
        // status from a failure of mxpsim with the same number.
        let run = ["run", "--race-check", "--max-insns", MAX_INSNS, path.as_str()].map(String::from).to_vec();
        case.commands.push((run, Expect::AnyStatus));
        case
    });
}

// ---------------------------------------------------------------------------------------------
// Random configurations.

/// The `--cache` keys (sim/src/config.rs, `apply_cache_overrides`).
const CACHE_KEYS: &[&str] = &["size", "line", "ways", "policy", "write", "wb", "hit", "wbuf", "seed", "enabled"];

/// The machine file's tables and fields (what `mxpsim config` prints), with valid values.
const MACHINE_FILE: &[(&str, &[(&str, &str)])] = &[
    ("", &[("clock_hz", "100000000")]),
    (
        "[memory]",
        &[
            ("dram_base", "0x80000000"),
            ("dram_size", "0x4000000"),
            ("uncached_alias", "0xc0000000"),
            ("sysctl", "0x40000000"),
        ],
    ),
    (
        "[[memory.regions]]",
        &[
            ("name", "\"flash\""),
            ("base", "0x20000000"),
            ("size", "0x4000000"),
            ("kind", "\"rom\""),
            ("cached", "true"),
        ],
    ),
    (
        "[cache]",
        &[
            ("enabled", "true"),
            ("size", "16384"),
            ("line", "32"),
            ("ways", "4"),
            ("policy", "\"lru\""),
            ("write", "\"back\""),
            ("writeback", "\"line\""),
            ("hit_latency", "1"),
            ("write_buffer", "4"),
            ("seed", "1"),
        ],
    ),
    ("[axi]", &[("read_latency", "20"), ("write_latency", "20"), ("data_width", "4"), ("max_burst", "16")]),
    ("[cpu]", &[("taken_branch", "2"), ("jump", "2"), ("mul", "2"), ("div", "32")]),
    (
        "[mxp]",
        &[
            ("port", "0x40010000"),
            ("scratchpad", "0x50000000"),
            ("scratchpad_size", "0x40000"),
            ("lanes", "4"),
            ("fifo_depth", "16"),
            ("dma_queue", "2"),
            ("mask_waves", "256"),
            ("fxp_frac_bits", "[4, 15, 16]"),
            ("custom_lanes", "[4, 4]"),
        ],
    ),
    ("[devices.clint]", &[("base", "0x2000000"), ("timebase_hz", "10000000")]),
    ("[devices.uart]", &[("base", "0x10000000")]),
];

/// Table headers that are misspelt, unknown, of the wrong kind or not headers at all.
const ODD_TABLES: &[&str] = &[
    "[cachee]",
    "[devices.foo]",
    "[memory.regions]",
    "[[cache]]",
    "[devices]",
    "[mxp.extra]",
    "[]",
    "[\"cache\"]",
    "[[memory.regions.x]]",
    "[cache",
    "[memory]]",
];

/// Lines that are not TOML, or TOML that is not a machine.
const STRAY_LINES: &[&str] = &[
    "=",
    "[",
    "[[",
    "key =",
    "\"unterminated = 1",
    "a.b.c = 1",
    "]]",
    "= 1",
    "x = \"\\q\"",
    "x = 1 2",
    "\u{0}",
    "x = [1,",
    "x = { y = ",
    "clock_hz = 1\nclock_hz = 2",
];

/// A machine file's table: its header line (none at the top level) and its lines.
#[derive(Clone)]
struct Table {
    header: String,
    lines: Vec<String>,
}

/// A random machine file: some of the tables and fields with valid values, then a few changes
/// (values of every type and size, unknown and misspelt keys and tables, duplicates, stray
/// lines), now and then with bytes that are not UTF-8, a NUL or a cut. Returns the file and
/// what was changed.
fn machine_file(g: &mut Gen) -> (Vec<u8>, String) {
    let mut tables = Vec::new();
    for &(header, fields) in MACHINE_FILE {
        if !header.is_empty() && !g.chance(60) {
            continue;
        }
        let mut lines = Vec::new();
        for &(key, value) in fields {
            if g.chance(50) {
                lines.push(format!("{key} = {value}"));
            }
        }
        tables.push(Table { header: header.to_string(), lines });
    }
    let n = 1 + g.below(4);
    let mut how: Vec<String> = (0..n).map(|_| change_machine(g, &mut tables)).collect();
    let mut text = Vec::new();
    for table in &tables {
        for line in std::iter::once(&table.header).filter(|h| !h.is_empty()).chain(&table.lines) {
            text.extend_from_slice(line.as_bytes());
            text.push(b'\n');
        }
    }
    if g.chance(20) {
        how.push(damage_text(g, &mut text));
    }
    (text, how.join("; "))
}

/// One change to a machine file's tables; returns what it did.
fn change_machine(g: &mut Gen, tables: &mut Vec<Table>) -> String {
    let t = g.below(tables.len());
    let header = if tables[t].header.is_empty() { "(top level)".to_string() } else { tables[t].header.clone() };
    let count = tables[t].lines.len();
    let line = if count == 0 { None } else { Some(g.below(count)) };
    let key_of = |text: &str| text.split(" = ").next().unwrap_or("").to_string();
    match g.below(7) {
        0 | 1 => {
            // A field's value, of any type and size; a field of any table when this has none.
            let key = match line {
                Some(i) => key_of(&tables[t].lines[i]),
                None => {
                    let keys: Vec<&str> = MACHINE_FILE.iter().flat_map(|(_, f)| f.iter().map(|(k, _)| *k)).collect();
                    g.pick(&keys).to_string()
                }
            };
            let value = g.toml_value();
            let new = format!("{key} = {value}");
            match line {
                Some(i) => tables[t].lines[i] = new,
                None => tables[t].lines.push(new),
            }
            format!("{header} {key} = {}", cut(&value, 40))
        }
        2 => {
            // A key misspelt, unknown, empty or 10 000 characters long.
            let old = line.map_or_else(|| "clock_hz".to_string(), |i| key_of(&tables[t].lines[i]));
            let key = match g.below(5) {
                0 => g.word(),
                1 => format!("{old}_"),
                2 => old.to_uppercase(),
                3 => "\"\"".to_string(),
                _ => "k".repeat(LONG / 10),
            };
            match line {
                Some(i) => {
                    tables[t].lines[i] = tables[t].lines[i].replacen(&old, &key, 1);
                    format!("{header} key {old} renamed {}", cut(&key, 40))
                }
                None => {
                    tables[t].lines.push(format!("{key} = 1"));
                    format!("{header} gets key {}", cut(&key, 40))
                }
            }
        }
        3 => {
            let new = if g.chance(80) { g.pick(ODD_TABLES).to_string() } else { format!("[{}]", g.word()) };
            tables[t].header = new.clone();
            format!("{header} renamed {new}")
        }
        4 => match line {
            Some(i) if g.chance(50) => {
                let copy = tables[t].lines[i].clone();
                tables[t].lines.push(copy);
                format!("{header} {} twice", key_of(&tables[t].lines[i]))
            }
            _ => {
                let copy = tables[t].clone();
                tables.push(copy);
                format!("{header} twice")
            }
        },
        5 => {
            let stray = g.pick(STRAY_LINES);
            tables[t].lines.push(stray.to_string());
            format!("{header} gets line {stray:?}")
        }
        _ => {
            tables[t].header.clear();
            format!("{header} without its header")
        }
    }
}

/// Damages a text file's bytes: a cut, bytes that are not UTF-8, or a NUL.
fn damage_text(g: &mut Gen, text: &mut Vec<u8>) -> String {
    let at = g.below(text.len() + 1);
    match g.below(3) {
        0 => {
            text.truncate(at);
            format!("cut at byte {at}")
        }
        1 => {
            insert_bytes(text, at, &[0xff, 0xfe]);
            format!("bytes ff fe (not UTF-8) at byte {at}")
        }
        _ => {
            insert_bytes(text, at, &[0]);
            format!("a NUL at byte {at}")
        }
    }
}

/// A `--cache` spec: 1 to 5 items, `off`/`on`, known and unknown keys, any values.
fn cache_spec(g: &mut Gen) -> String {
    let n = 1 + g.below(5);
    let mut items = Vec::new();
    for _ in 0..n {
        let item = match g.below(10) {
            0 => g.pick(&["off", "on", "", "=", "size", "=64", "size==1"]).to_string(),
            1 => {
                let key = g.word();
                format!("{key}={}", g.arg_value())
            }
            _ => {
                let key = g.pick(CACHE_KEYS);
                format!("{key}={}", g.arg_value())
            }
        };
        items.push(item);
    }
    items.join(",")
}

#[test]
fn random_configurations() {
    let hello = firmware("hello");
    fuzz("config", |g, stem| {
        let mut case = Case::default();
        let mut machine = Vec::new();
        if g.chance(60) {
            let file = if g.chance(90) {
                let (text, how) = machine_file(g);
                case.how.push(how);
                case.input(stem, "toml", &text)
            } else {
                // Presets that exist and do not, and paths that are no machine file.
                g.pick(&["virt", "nosuch", "", "/nonexistent/machine.toml", "."]).to_string()
            };
            machine.extend(["--machine".to_string(), file]);
        }
        if machine.is_empty() || g.chance(40) {
            machine.extend(["--cache".to_string(), cache_spec(g)]);
        }
        if g.chance(25) {
            machine.push(format!("--dram-size={}", g.arg_value()));
        }
        let config = [vec!["config".to_string()], machine.clone()].concat();
        let run = ["run", "--max-insns", CONFIG_RUN_INSNS].map(String::from).to_vec();
        let run = [run, machine, vec![hello.clone()]].concat();
        case.commands = vec![(config, Expect::Statuses(&[0])), (run, Expect::AnyStatus)];
        case
    });
}

// ---------------------------------------------------------------------------------------------
// Damaged event traces.

/// The magic and the header frame, with a little of the first event: where a quarter of the
/// byte changes go.
const TRACE_HEAD: usize = 16;

/// A random run of up to 4 KiB of a `len`-byte file (`len` > 0).
fn chunk(g: &mut Gen, len: usize) -> Range<usize> {
    let n = 1 + g.below(len.min(4096));
    let start = g.below(len - n + 1);
    start..start + n
}

/// One change to an event trace: a flipped bit, a run of one byte, a cut, a chunk copied,
/// removed or appended, random bytes appended, a frame delimiter (zero byte) added or
/// dropped. Returns what it did.
fn mutate_trace(g: &mut Gen, trace: &mut Vec<u8>) -> String {
    if trace.is_empty() {
        let n = 1 + g.below(64);
        trace.extend(g.bytes(n));
        return format!("{n} random bytes into the emptied file");
    }
    let len = trace.len();
    let at = if g.chance(25) { g.below(len.min(TRACE_HEAD)) } else { g.below(len) };
    match g.below(9) {
        0 | 1 => {
            let bit = g.below(8);
            trace[at] ^= 1 << bit;
            format!("bit {bit} flipped at {at:#x}")
        }
        2 => {
            let byte = *g.pick(&[0x00u8, 0x01, 0x7f, 0x80, 0xff]);
            let n = (1 + g.below(16)).min(len - at);
            trace[at..at + n].fill(byte);
            format!("{n} bytes {byte:#04x} at {at:#x}")
        }
        3 => {
            trace.truncate(at);
            format!("cut at {at:#x}")
        }
        4 => {
            let from = chunk(g, len);
            let copy = trace[from.clone()].to_vec();
            let to = g.below(len + 1);
            insert_bytes(trace, to, &copy);
            format!("bytes {:#x}..{:#x} copied to {to:#x}", from.start, from.end)
        }
        5 => {
            let gone = chunk(g, len);
            let what = format!("bytes {:#x}..{:#x} removed", gone.start, gone.end);
            remove_bytes(trace, gone);
            what
        }
        6 => {
            let from = chunk(g, len);
            let copy = trace[from.clone()].to_vec();
            trace.extend_from_slice(&copy);
            format!("bytes {:#x}..{:#x} appended", from.start, from.end)
        }
        7 => {
            let n = 1 + g.below(4096);
            trace.extend(g.bytes(n));
            format!("{n} random bytes appended")
        }
        _ if trace[at] == 0 => {
            trace.remove(at);
            format!("the frame delimiter at {at:#x} removed")
        }
        _ => {
            insert_bytes(trace, at, &[0]);
            format!("a frame delimiter inserted at {at:#x}")
        }
    }
}

#[test]
fn mutated_event_traces() {
    let racy = elf("race-tests", RACY);
    let recorded = temp("fuzz-trace-recorded.trace");
    let o = mxpsim(&["run", "--race-check", "--record-trace", &recorded, &racy]);
    assert_eq!(o.status.code(), Some(RACES_FOUND), "recording the trace: {}", stderr(&o));
    let original = std::fs::read(&recorded).unwrap();
    fuzz("trace", |g, stem| {
        let mut trace = original.clone();
        let n = 1 + g.below(3);
        let changes: Vec<String> = (0..n).map(|_| mutate_trace(g, &mut trace)).collect();
        let mut case = Case::default();
        let path = case.input(stem, "trace", &trace);
        case.how.push(changes.join("; "));
        let mut detect = vec!["detect".to_string(), path];
        if g.chance(50) {
            // Names from DWARF for whatever PCs and call contexts the damage made.
            detect.extend(["--elf".to_string(), racy.clone()]);
        }
        if g.chance(30) {
            detect.extend(["--report-format".to_string(), g.pick(&["json", "sarif"]).to_string()]);
        }
        case.commands.push((detect, Expect::Statuses(&[0, RACES_FOUND])));
        case
    });
}
