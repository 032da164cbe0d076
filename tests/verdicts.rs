//! The race verdicts of the SDK ports (`firmware/apps`) over the README's grid — line size
//! {16, 32, 64} × write-back granularity {line, byte}, default layout — pinned in
//! `tests/verdicts.expected`: per program and configuration, the exit status, the number of
//! distinct races and their kinds (no cycle counts: the README's table shows verdicts).
//!
//! After an intended change (a new port, a detector fix), rewrite the file with
//! `MXPSIM_BLESS=1 cargo test --test verdicts` and review its diff: every changed line is a
//! changed verdict, to be explained in the README's table.
//!
//! The same sweep's whole CSV (instructions, cycles, miss rate, write-backs) is pinned in
//! `tests/sdk-ports.csv`, and the small test programs' in `tests/small-programs.csv`: the
//! identical-results table of issue 16, so that work on speed provably changes nothing
//! simulated. A deliberate change of timing is blessed the same way, with its reason in the
//! commit.

mod common;
use common::{mxpsim, stderr, temp};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// `program cache status races signature`, one line per sweep row.
fn verdict_lines(csv: &str) -> String {
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().expect("a header").split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap_or_else(|| panic!("no {name} column"));
    let keep = ["program", "cache", "status", "races", "signature"].map(column);
    let mut out = String::new();
    for line in lines {
        // The cache column holds commas itself ("line=16,wb=line"): it is quoted.
        let fields = split_csv(line);
        let row: Vec<&str> = keep.iter().map(|&i| fields[i].as_str()).collect();
        out +=
            &format!("{:<24} {:<16} {:>3} {:>5}  {}\n", row[0], row[1], row[2], row[3], row[4]).replace("  \n", "\n");
    }
    out
}

/// Splits one CSV line (RFC 4180 quoting).
fn split_csv(line: &str) -> Vec<String> {
    let (mut fields, mut field, mut quoted) = (Vec::new(), String::new(), false);
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' if quoted && chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            '"' => quoted = !quoted,
            ',' if !quoted => fields.push(std::mem::take(&mut field)),
            c => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// The `.elf` files of `firmware/bin/DIR`, sorted.
fn elfs(dir: &str) -> Vec<String> {
    let mut elfs: Vec<String> = std::fs::read_dir(root().join("firmware/bin").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".elf"))
        .collect();
    elfs.sort();
    elfs
}

/// `sweep --exit-zero` of `programs` over `grid`: its CSV.
fn sweep_csv(name: &str, grid: &[&str], programs: &[String]) -> String {
    let csv = temp(&format!("{name}.csv"));
    let mut args = vec!["sweep", "--exit-zero", "--csv", &csv];
    args.extend(grid);
    args.extend(programs.iter().map(String::as_str));
    let o = mxpsim(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    std::fs::read_to_string(&csv).unwrap()
}

/// Compares `got` with `tests/FILE` (or rewrites it under `MXPSIM_BLESS=1`); `what` says what
/// a difference means.
fn pinned(file: &str, got: &str, what: &str) {
    let expected_path = root().join("tests").join(file);
    if std::env::var_os("MXPSIM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&expected_path, got).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    if got != expected {
        let diff: Vec<String> = expected
            .lines()
            .filter(|l| !got.lines().any(|g| g == *l))
            .map(|l| format!("- {l}"))
            .chain(got.lines().filter(|g| !expected.lines().any(|l| l == *g)).map(|g| format!("+ {g}")))
            .collect();
        panic!("{what} (MXPSIM_BLESS=1 cargo test --test verdicts rewrites tests/{file}):\n{}", diff.join("\n"));
    }
}

/// The SDK ports over the README's grid: their verdicts (`tests/verdicts.expected`, the
/// README's table) and everything simulated — instructions, cycles, miss rate, write-backs,
/// races — (`tests/sdk-ports.csv`), byte for byte: a change that should only make mxpsim
/// faster must leave both alone.
#[test]
fn sdk_port_verdicts_are_pinned() {
    let csv = sweep_csv("verdicts", &["--line", "16,32,64", "--wb", "line,byte"], &elfs("apps"));
    pinned("verdicts.expected", &verdict_lines(&csv), "the verdicts changed");
    pinned("sdk-ports.csv", &csv, "what is simulated changed");
}

/// Every small test program (`firmware/bin/{tests,mxp-tests,race-tests}`) at 32- and 64-byte
/// lines, both write-back granularities: the same, in `tests/small-programs.csv`.
#[test]
fn small_programs_simulate_as_pinned() {
    // (Not `malloc`: 60 million instructions of allocator churn, 90 % of the whole set's;
    // tests/firmware.rs runs it.)
    let programs: Vec<String> = ["tests", "mxp-tests", "race-tests"]
        .iter()
        .flat_map(|d| elfs(d))
        .filter(|p| !p.ends_with("/malloc.elf"))
        .collect();
    // (At most 10^8 cycles: runaway_dma's DMA of 2^32 rows lasts 2^36, a minute of host time
    // per cell; every other program ends within 3 * 10^6. Where the cycle limit stops it is
    // pinned as well.)
    let csv = sweep_csv("small", &["--line", "32,64", "--wb", "line,byte", "--max-cycles", "100000000"], &programs);
    pinned("small-programs.csv", &csv, "what is simulated changed");
}

#[test]
fn csv_fields_split_with_quotes() {
    assert_eq!(split_csv(r#"a,"line=16,wb=line",0,,"x ""y""""#), ["a", "line=16,wb=line", "0", "", r#"x "y""#]);
}
