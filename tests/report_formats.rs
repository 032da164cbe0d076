//! Machine-readable outputs validate against the schemas shipped in `schemas/`: the race
//! report as JSON (`race-report.schema.json`) and as SARIF 2.1.0 (OASIS's
//! `sarif-schema-2.1.0.json`) for every SDK port and race test program, `--stats-json`
//! (`stats.schema.json`) and `sweep --json` (`sweep.schema.json`).

mod common;
use common::{elf, mxpsim, stderr, temp};
use rayon::prelude::*;
use serde_json::Value;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn load(path: &str) -> Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn validator(schema: &str) -> jsonschema::Validator {
    let schema = load(root().join("schemas").join(schema).to_str().unwrap());
    jsonschema::validator_for(&schema).expect("a valid schema")
}

/// The validation errors of `instance`, as lines.
fn problems(validator: &jsonschema::Validator, name: &str, instance: &Value) -> Vec<String> {
    validator.iter_errors(instance).take(5).map(|e| format!("{name}: {e} at {}", e.instance_path())).collect()
}

fn elfs(dir: &str) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(root().join("firmware/bin").join(dir))
        .unwrap()
        .map(|e| e.unwrap().path().to_str().unwrap().to_string())
        .filter(|p| p.ends_with(".elf"))
        .collect();
    out.sort();
    out
}

/// Runs `--race-check` with `format` on `elf` (extra options first); returns the report.
fn report(elf: &str, format: &str, options: &[&str]) -> Value {
    let name = std::path::Path::new(elf).file_stem().unwrap().to_str().unwrap().to_string();
    let file = temp(&format!("{name}.{format}"));
    let mut args = vec!["run", "--race-check", "--report-format", format, "--report-file", &file];
    args.extend(options);
    args.push(elf);
    let o = mxpsim(&args);
    assert!(matches!(o.status.code(), Some(0 | 66)), "{name}: {}", stderr(&o));
    load(&file)
}

/// Both reports of one `--race-check` run of `elf` (`--report-also`): JSON and SARIF.
fn both_reports(elf: &str, options: &[&str]) -> (Value, Value) {
    let name = std::path::Path::new(elf).file_stem().unwrap().to_str().unwrap().to_string();
    let sarif = temp(&format!("{name}.both.sarif"));
    let also = format!("sarif:{sarif}");
    let json = report(elf, "json", &[options, &["--report-also", &also]].concat());
    (json, load(&sarif))
}

#[test]
fn race_reports_validate_as_json_and_sarif() {
    let (json, sarif) = (validator("race-report.schema.json"), validator("sarif-schema-2.1.0.json"));
    // One run per program, all in parallel; the problems are gathered back in program order.
    let (apps, tests) = (elfs("apps"), elfs("race-tests"));
    let programs: Vec<(&String, &[&str])> =
        apps.iter().map(|e| (e, &["--cache", "line=64"][..])).chain(tests.iter().map(|e| (e, &[][..]))).collect();
    let checked: Vec<(Vec<String>, usize)> = programs
        .par_iter()
        .map(|(elf, options)| {
            let (report, log) = both_reports(elf, options);
            let found = [problems(&json, elf, &report), problems(&sarif, elf, &log)].concat();
            (found, log["runs"][0]["results"].as_array().unwrap().len())
        })
        .collect();
    // The SDK ports' results (they come first); the race tests' are not counted.
    let results: usize = checked[..apps.len()].iter().map(|(_, n)| n).sum();
    let all: Vec<String> = checked.into_iter().flat_map(|(found, _)| found).collect();
    assert!(all.is_empty(), "{} problems:\n{}", all.len(), all.join("\n"));
    assert!(results > 0, "the SDK ports race at 64-byte lines");
}

/// One result per finding, with its rule, both sides as thread flows, and user-code
/// locations relative to the source root; a suppressed finding stays, marked suppressed.
#[test]
fn sarif_results_carry_both_stacks_and_suppressions() {
    let app = elf("apps", "vbw_vec_add_2021");
    let log = report(&app, "sarif", &["--cache", "line=64"]);
    let run = &log["runs"][0];
    let results = run["results"].as_array().unwrap();
    assert_eq!(results.len(), 1);
    let r = &results[0];
    assert_eq!(r["ruleId"], "write-back-vs-dma-read");
    assert_eq!(run["tool"]["driver"]["rules"][r["ruleIndex"].as_u64().unwrap() as usize]["id"], r["ruleId"]);
    let flows = r["codeFlows"][0]["threadFlows"].as_array().unwrap();
    assert_eq!(flows.len(), 2);
    // Outermost first: the last step is the innermost frame; user code has a file.
    let files: Vec<&str> = r["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["physicalLocation"]["artifactLocation"]["uri"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["firmware/apps/vbw_vec_add.c", "firmware/apps/vbw_vec_add.c"]);
    assert!(r.get("suppressions").is_none());

    let supp = temp("sarif.supp");
    std::fs::write(&supp, "race:vbw_vec_add\n").unwrap();
    let log = report(&app, "sarif", &["--cache", "line=64", "--suppressions", &supp]);
    let r = &log["runs"][0]["results"][0];
    assert_eq!(r["suppressions"][0]["kind"], "external");
    assert_eq!(r["suppressions"][0]["justification"], "suppressions file line 1: race:vbw_vec_add");
}

#[test]
fn stats_and_sweep_tables_validate() {
    let stats = validator("stats.schema.json");
    let mut all = Vec::new();
    for (cache, elf) in [("off", elf("tests", "hello")), ("line=64", elf("apps", "vbw_vec_add_2021"))] {
        let file = temp(&format!("stats-{cache}.json"));
        let o = mxpsim(&["run", "--cache", cache, "--stats-json", &file, &elf]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        all.extend(problems(&stats, &file, &load(&file)));
    }
    let sweep = validator("sweep.schema.json");
    let file = temp("sweep.json");
    let apps = [elf("apps", "vbw_vec_add_2021"), elf("tests", "tohost_fail")];
    let o = mxpsim(&[
        "sweep",
        "--exit-zero",
        "--line",
        "16,64",
        "--max-insns",
        "3000000",
        "--json",
        &file,
        &apps[0],
        &apps[1],
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    all.extend(problems(&sweep, &file, &load(&file)));
    assert!(all.is_empty(), "{}", all.join("\n"));
}

/// `--report-also` writes, from one run, exactly the reports that separate runs write in
/// each format; the main report stays where it was (the human one on standard error).
#[test]
fn one_run_writes_every_format_as_separate_runs_do() {
    let app = elf("apps", "vbw_vec_add_2021");
    let file = |format: &str| temp(&format!("also.{format}"));
    let also: Vec<String> = ["json", "sarif", "human"].iter().map(|f| format!("{f}:{}", file(f))).collect();
    let mut args = vec!["run", "--race-check", "--cache", "line=64"];
    for a in &also {
        args.extend(["--report-also", a]);
    }
    args.push(&app);
    let o = mxpsim(&args);
    assert_eq!(o.status.code(), Some(66), "{}", stderr(&o));
    let read = |path: &str| std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(read(&file("human")), stderr(&o), "the human report, as on standard error");
    for format in ["json", "sarif"] {
        let alone = temp(&format!("alone.{format}"));
        let single = mxpsim(&[
            "run",
            "--race-check",
            "--cache",
            "line=64",
            "--report-format",
            format,
            "--report-file",
            &alone,
            &app,
        ]);
        assert_eq!(single.status.code(), Some(66), "{}", stderr(&single));
        assert_eq!(read(&file(format)), read(&alone), "{format}");
    }
}
