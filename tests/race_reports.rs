//! The race-report test set (`firmware/race-tests/`): each program's header states, from its
//! source and `race-semantics.md`, the findings a report must give — written before any run
//! (see `firmware/race-tests/README.md` for the syntax). This test runs each program under
//! `--race-check` and checks every stated key field of the JSON report: the number of
//! findings, and per finding the class, the top user frame of each side (the source line
//! tagged `/* @TAG */`), the object the racing bytes belong to, the fix, and for a race
//! with a vector instruction, its opcode and the operands holding racing bytes (a finding
//! without `vector=` must have no vector side).
//!

mod common;

use common::{elf, mxpsim, provoke_verdicts, stderr, temp};
use rayon::prelude::*;
use serde_json::Value;
use std::path::{Path, PathBuf};

struct Expected {
    class: String,
    a: String,
    b: String,
    object: Option<String>,
    fix: Option<String>,
    /// The vector side's opcode and racing operands: `VADD:D`, `VMUL:A+B`.
    vector: Option<String>,
}

/// One machine configuration of a program and what its report must give.
struct Case {
    /// The `race-check:` options (none: the default machine).
    options: String,
    count: usize,
    findings: Vec<Expected>,
    /// The `expect-provoke:` lines: `CLASS a-before-b=V b-before-a=V` or `CLASS not-tried`.
    provoke: Vec<String>,
}

/// The header's cases: the expectations before the first `race-check:` line are the default
/// machine's; each `race-check: OPTIONS` line starts another case, with the expectations
/// that follow it.
fn cases(source: &str) -> Vec<Case> {
    /// A case being read: its options, count (once given), findings and provoke lines.
    type Reading = (String, Option<usize>, Vec<Expected>, Vec<String>);
    let head = source.split("*/").next().unwrap_or("");
    let mut cases: Vec<Reading> = vec![(String::new(), None, Vec::new(), Vec::new())];
    for line in head.lines().map(|l| l.trim_start_matches([' ', '*'])) {
        let case = cases.last_mut().expect("one case at least");
        if let Some(options) = line.strip_prefix("race-check:") {
            cases.push((options.trim().to_string(), None, Vec::new(), Vec::new()));
        } else if let Some(count) = line.strip_prefix("expect-findings:") {
            case.1 = Some(count.trim().parse().expect("expect-findings: N"));
        } else if let Some(spec) = line.strip_prefix("expect-finding:") {
            case.2.push(expected(spec.trim()));
        } else if let Some(spec) = line.strip_prefix("expect-provoke:") {
            case.3.push(spec.split_whitespace().collect::<Vec<_>>().join(" "));
        }
    }
    let cases: Vec<Case> = cases
        .into_iter()
        .filter_map(|(options, count, findings, provoke)| {
            assert!(count.is_some() || findings.is_empty(), "expect-finding without expect-findings");
            Some(Case { options, count: count?, findings, provoke })
        })
        .collect();
    assert!(!cases.is_empty(), "no expect-findings line");
    cases
}

/// The 1-based line carrying `/* @tag */`.
fn tag_line(source: &str, tag: &str) -> u64 {
    let mark = format!("/* @{tag} */");
    let n = source.lines().position(|l| l.contains(&mark)).unwrap_or_else(|| panic!("no {mark} in the source"));
    n as u64 + 1
}

/// One `expect-finding:` line: `X/Y a=@TAG b=@TAG [object=NAME] [fix=KIND] [vector=OP:OPS]`.
fn expected(spec: &str) -> Expected {
    let mut words = spec.split_whitespace();
    let class = words.next().expect("a class").to_string();
    let mut e = Expected { class, a: String::new(), b: String::new(), object: None, fix: None, vector: None };
    for w in words {
        let (k, v) = w.split_once('=').expect("key=value");
        match k {
            "a" => e.a = v.trim_start_matches('@').into(),
            "b" => e.b = v.trim_start_matches('@').into(),
            "object" => e.object = Some(v.into()),
            "fix" => e.fix = Some(v.into()),
            "vector" => e.vector = Some(v.into()),
            _ => panic!("unknown key {k}"),
        }
    }
    e
}

/// The object name a finding's first object has, as the header writes it: a global's DWARF
/// path (`desc.len`, `shared.data`) without its element range (the headers name variables
/// and fields; `rx[1..3]` is `rx`), `stack:f/local` for a local variable of `f` named from
/// DWARF, `stack:f` for other bytes of `f`'s stack frame, else the kind (`heap`, `scratchpad`).
fn object_name(finding: &Value) -> String {
    let o = &finding["objects"][0];
    match o["kind"].as_str().unwrap_or("") {
        "global" => without_elements(o["path"].as_str().or(o["name"].as_str()).unwrap_or("")),
        "stack" => {
            let function = o["function"].as_str().unwrap_or("");
            match o["path"].as_str() {
                Some(local) => format!("stack:{function}/{}", without_elements(local)),
                None => format!("stack:{function}"),
            }
        }
        k => k.into(),
    }
}

/// `rx[1..3]` → `rx`, `m[0][0..4]` → `m`, `cfg.rows[2].x` → `cfg.rows.x`.
fn without_elements(path: &str) -> String {
    let mut depth = 0;
    path.chars()
        .filter(|&c| {
            match c {
                '[' => depth += 1,
                ']' => depth -= 1,
                _ => return depth == 0,
            }
            false
        })
        .collect()
}

/// `VADD:D`: the opcode and racing operands of a finding's vector side, if it has one.
fn vector_use(finding: &Value) -> Option<String> {
    let v = [&finding["a"]["vector"], &finding["b"]["vector"]].into_iter().find(|v| !v.is_null())?;
    let operands: Vec<&str> = v["operands"].as_array()?.iter().filter_map(Value::as_str).collect();
    Some(format!("{}:{}", v["opcode"].as_str()?, operands.join("+")))
}

fn top_line(side: &Value, file: &str) -> Option<u64> {
    let top = &side["top_user_frame"];
    (top["file"].as_str() == Some(file)).then(|| top["line"].as_u64()).flatten()
}

/// Checks every case of one program; returns what does not hold.
fn check(path: &Path) -> Vec<String> {
    let source = std::fs::read_to_string(path).unwrap();
    let program = path.file_stem().unwrap().to_str().unwrap();
    cases(&source).iter().enumerate().flat_map(|(i, case)| check_case(&source, program, i, case)).collect()
}

/// Runs case `i` of `program`; returns what does not hold.
fn check_case(source: &str, program: &str, i: usize, case: &Case) -> Vec<String> {
    let name = format!("{program} [{}]", case.options);
    let file = format!("firmware/race-tests/{program}.c");
    let elf = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("firmware/bin/race-tests/{program}.elf"));
    let (elf, report) = (elf.to_str().unwrap().to_string(), temp(&format!("{program}-{i}.json")));
    let mut args = vec!["run", "--race-check", "--report-format", "json", "--report-file", &report];
    args.extend(case.options.split_whitespace());
    args.push(&elf);
    let o = mxpsim(&args);
    let (count, wanted, file) = (case.count, &case.findings, file.as_str());
    let mut problems = Vec::new();
    let status = o.status.code();
    if status != Some(if count == 0 { 0 } else { 66 }) {
        problems.push(format!("{name}: exit status {status:?}: {}", stderr(&o)));
        return problems;
    }
    let json: Value = serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    let findings = json["findings"].as_array().unwrap();
    if findings.len() != count {
        let got: Vec<String> = findings.iter().map(|f| f["class"].to_string()).collect();
        problems.push(format!("{name}: {} findings ({got:?}), expected {count}", findings.len()));
    }
    for e in wanted {
        let (a, b) = (tag_line(source, &e.a), tag_line(source, &e.b));
        let same_sites = |f: &&Value| {
            f["class"] == e.class.as_str() && top_line(&f["a"], file) == Some(a) && top_line(&f["b"], file) == Some(b)
        };
        let Some(f) = findings.iter().find(same_sites) else {
            let got: Vec<String> = findings
                .iter()
                .map(|f| format!("{} a={:?} b={:?}", f["class"], top_line(&f["a"], file), top_line(&f["b"], file)))
                .collect();
            problems.push(format!("{name}: no {} finding between lines {a} and {b}; found {got:?}", e.class));
            continue;
        };
        if let Some(object) = &e.object {
            if object_name(f) != *object {
                problems.push(format!("{name}: object {}, expected {object}", object_name(f)));
            }
        }
        if vector_use(f) != e.vector {
            problems.push(format!("{name}: vector side {:?}, expected {:?}", vector_use(f), e.vector));
        }
        if let Some(fix) = &e.fix {
            if f["fix"]["kind"] != fix.as_str() {
                problems.push(format!("{name}: fix {}, expected {fix}", f["fix"]["kind"]));
            }
        }
    }
    problems
}

/// The race test programs' sources, sorted.
fn programs() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("firmware/race-tests");
    let mut programs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "c"))
        .collect();
    programs.sort();
    programs
}

#[test]
fn race_reports_name_what_each_program_states() {
    let programs = programs();
    assert!(programs.len() >= 30, "the set has {} programs", programs.len());
    let problems: Vec<String> = programs.par_iter().flat_map_iter(|p| check(p)).collect();
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// `mxpsim provoke` gives each finding the verdicts its program's `expect-provoke:` lines
/// state (derived by hand from the source, the model and the schedules: the README of
/// firmware/race-tests), compared as a multiset per machine configuration.
#[test]
fn provoke_verdicts_are_what_each_program_states() {
    // Per program: its problems and the number of expect-provoke lines checked.
    let results: Vec<(Vec<String>, usize)> = programs().par_iter().map(|p| provoke_verdicts_of(p)).collect();
    let checked: usize = results.iter().map(|(_, checked)| checked).sum();
    let problems: Vec<String> = results.into_iter().flat_map(|(problems, _)| problems).collect();
    assert!(checked >= 40, "only {checked} expect-provoke lines");
    assert!(problems.is_empty(), "{} problems:\n{}", problems.len(), problems.join("\n"));
}

/// One program's part of [`provoke_verdicts_are_what_each_program_states`]: the problems, and
/// how many `expect-provoke:` lines were checked.
fn provoke_verdicts_of(path: &Path) -> (Vec<String>, usize) {
    let mut problems = Vec::new();
    let mut checked = 0;
    let source = std::fs::read_to_string(path).unwrap();
    let program = path.file_stem().unwrap().to_str().unwrap();
    for (i, case) in cases(&source).iter().enumerate() {
        if case.count == 0 {
            continue;
        }
        let out = temp(&format!("provoke-{program}-{i}.json"));
        let mut args = vec!["provoke", "--report-format", "json", "--report-file", &out];
        args.extend(case.options.split_whitespace());
        let elf = elf("race-tests", program);
        args.push(&elf);
        let o = mxpsim(&args);
        if o.status.code() != Some(0) {
            problems.push(format!("{program} [{}]: exit {:?}: {}", case.options, o.status.code(), stderr(&o)));
            continue;
        }
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        let mut got: Vec<String> = doc["findings"].as_array().unwrap().iter().map(provoke_verdicts).collect();
        let mut want = case.provoke.clone();
        got.sort();
        want.sort();
        checked += want.len();
        if got != want {
            problems.push(format!("{program} [{}]: expected {want:?}, provoke gives {got:?}", case.options));
        }
    }
    (problems, checked)
}
