//! The race verdicts of the SDK ports (`firmware/apps`) over the README's grid — line size
//! {16, 32, 64} × write-back granularity {line, byte}, default layout — pinned in
//! `tests/verdicts.expected`: per program and configuration, the exit status, the number of
//! distinct races and their kinds. Cycle counts are left out (they change with any timing
//! tweak; the verdicts must not).
//!
//! After an intended change (a new port, a detector fix), rewrite the file with
//! `MXPSIM_BLESS=1 cargo test --test verdicts` and review its diff: every changed line is a
//! changed verdict, to be explained in the README's table.

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

#[test]
fn sdk_port_verdicts_are_pinned() {
    let bin = root().join("firmware/bin/apps");
    let mut elfs: Vec<String> = std::fs::read_dir(&bin)
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".elf"))
        .collect();
    elfs.sort();
    let csv = temp("verdicts.csv");
    let mut args = vec!["sweep", "--exit-zero", "--line", "16,32,64", "--wb", "line,byte", "--csv", &csv];
    args.extend(elfs.iter().map(String::as_str));
    let o = mxpsim(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let got = verdict_lines(&std::fs::read_to_string(&csv).unwrap());
    let expected_path = root().join("tests/verdicts.expected");
    if std::env::var_os("MXPSIM_BLESS").is_some_and(|v| v == "1") {
        std::fs::write(&expected_path, &got).unwrap();
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
        panic!(
            "the verdicts changed (MXPSIM_BLESS=1 cargo test --test verdicts rewrites tests/verdicts.expected):\n{}",
            diff.join("\n")
        );
    }
}

#[test]
fn csv_fields_split_with_quotes() {
    assert_eq!(split_csv(r#"a,"line=16,wb=line",0,,"x ""y""""#), ["a", "line=16,wb=line", "0", "", r#"x "y""#]);
}
