//! `provoke`'s result as JSON: each finding as the race report's JSON has it (issue 8's
//! schema, `schemas/race-report.schema.json`), with the orders tried, their directives, what
//! they did (data, and the text renderer's sentence), the differences and the verdicts.
//! Documented by `schemas/provoke.schema.json`.

use super::model::{Attempt, BytesDiff, Provoked, ProvokedFinding};
use crate::report;
use mxpsim_detector::event::Space;
use serde_json::{json, Value};

/// The format's version: raised when a field changes meaning or goes away.
pub const SCHEMA_VERSION: u32 = 1;

pub fn render(p: &Provoked, machine: &crate::config::MachineConfig) -> String {
    let value = json!({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "mxpsim", "version": env!("CARGO_PKG_VERSION")},
        "machine": machine,
        "first_run": p.first_end,
        "findings_total": p.findings_total,
        "findings": p.findings.iter().map(finding).collect::<Vec<_>>(),
        "summary": super::text::summary(p),
    });
    serde_json::to_string_pretty(&value).expect("plain data") + "\n"
}

fn finding(f: &ProvokedFinding) -> Value {
    json!({
        "number": f.number,
        "finding": report::json::finding(&f.finding),
        "race": f.race + 1,
        "races": f.races,
        "races_tried": f.tried,
        "verdict": f.verdict(),
        "not_tried": f.attempts.as_ref().err(),
        "attempts": f.attempts.as_ref().map_or_else(|_| Vec::new(), |a| a.iter().map(|a| attempt(f, a)).collect()),
    })
}

fn attempt(f: &ProvokedFinding, a: &Attempt) -> Value {
    let e = &a.effect;
    json!({
        "order": if a.first == 0 { "a-before-b" } else { "b-before-a" },
        "directives": a.directives,
        "happened": a.happened,
        "happened_text": a.happened.iter().map(|h| super::text::happened(h, &f.finding)).collect::<Vec<_>>(),
        "realised": a.realised,
        "diverged": a.diverged,
        "cut_short": a.cut_short,
        "console": e.console,
        "console_lines": e.console_lines,
        "end": e.end.as_ref().map(|(first, this)| json!({"first_run": first, "this_run": this})),
        "other_side": e.other_side.iter().map(bytes).collect::<Vec<_>>(),
        "memory": e.memory.iter().map(bytes).collect::<Vec<_>>(),
        "memory_bytes": e.memory_bytes,
        "verdict": a.verdict(),
    })
}

fn bytes(d: &BytesDiff) -> Value {
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    json!({
        "space": match d.space { Space::Dram => "DRAM", Space::Scratchpad => "scratchpad" },
        "start": format!("{:#010x}", d.start),
        "len": d.len,
        "when": d.when,
        "first_run": hex(&d.first),
        "this_run": hex(&d.this),
    })
}
