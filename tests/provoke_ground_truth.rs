//! `mxpsim provoke` against the detector's ground truth (issue 15, point 3): random small
//! programs of the ground truth's machine (`detector/tests/ground_truth/machine.rs`), run for
//! real on mxpsim by `firmware/mxp-tests/op_machine.c`, each ending with a flush of the whole
//! cache and a `vbx_sync()` (so the machine's end, "every dirty line written back and every
//! engine op done", is part of the program).
//!
//! For each program the machine enumerates every outcome (values loaded, DRAM, scratchpad)
//! that a schedule allowed by `race-semantics.md` gives. Then:
//!
//! 1. mxpsim's own run (default schedule) gives one of those outcomes (or, where the program
//!    invalidates a dirty line, one of those of the machine whose `inval` may drop the data,
//!    as mxpsim's does: outside the model, see `ground_truth.rs`);
//! 2. if the outcomes differ, mxpsim reports a race (the ground truth's property, in situ);
//! 3. every schedule `provoke` forces gives one of those outcomes (the same proviso): its
//!    schedules are the model's;
//! 4. if the outcomes differ, one of `provoke`'s schedules gives an outcome other than the
//!    default run's: **the property of the issue**.
//!
//! Both write-back granularities, line sizes 16, 32 and 64, CPU-uncached-vs-cache races on
//! (the machine has that nondeterminism). `PGT_CASES` programs per granularity (default
//! 150), seed `PGT_SEED`.

mod common;
#[path = "../detector/tests/ground_truth/machine.rs"]
mod machine;

use common::{elf, mxpsim, stderr, temp};
use machine::{Machine, Op, Rng, Semantics, DRAM, SP};
use mxpsim_detector::event::{Access, CacheOp, DmaDir, WriteBack};
use rayon::prelude::*;
use serde_json::Value;
use std::collections::BTreeSet;

/// Values loaded, DRAM, scratchpad.
type Outcome = (Vec<u8>, [u8; DRAM], [u8; SP]);

/// The program's operation as `op_machine.c` reads it.
fn token(op: Op) -> String {
    let access = |a: Access| if a == Access::Read { 'L' } else { 'S' };
    match op {
        Op::Cached(a, off, len) => format!("{}c{off}.{len}", access(a)),
        Op::Uncached(a, off, len) => format!("{}u{off}.{len}", access(a)),
        Op::Sp(a, off, len) => format!("{}s{off}.{len}", access(a)),
        Op::Maint(c, line) => {
            let c = match c {
                CacheOp::Clean => 'c',
                CacheOp::Flush => 'f',
                CacheOp::Inval => 'i',
            };
            format!("M{c}{}", line.map_or('a', |l| (b'0' + l) as char))
        }
        Op::Dma(DmaDir::ToScratchpad, h, s, n) => format!("Dv{h}.{s}.{n}"),
        Op::Dma(DmaDir::ToHost, h, s, n) => format!("Dh{h}.{s}.{n}"),
        Op::Vector(src, dst, n) => format!("V{src}.{dst}.{n}"),
        Op::Sync => "Y".into(),
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len() / 2).map(|i| u8::from_str_radix(&s[2 * i..2 * i + 2], 16).expect("hex")).collect()
}

/// "outcome L=.. D=.. S=..".
fn parse_outcome(line: &str) -> Option<Outcome> {
    let mut fields = line.strip_prefix("outcome ")?.split(' ');
    let mut field = |key: &str| fields.next()?.strip_prefix(key).map(unhex);
    let loaded = field("L=")?;
    let dram = field("D=")?.try_into().ok()?;
    let sp = field("S=")?.try_into().ok()?;
    Some((loaded, dram, sp))
}

fn ground_truth(prog: &[Op], sem: Semantics) -> BTreeSet<Outcome> {
    let outcomes = Machine::new(prog, sem).outcomes(usize::MAX);
    outcomes.into_iter().map(|(loaded, n, dram, sp)| (loaded[..n as usize].to_vec(), dram, sp)).collect()
}

struct Checked {
    nondeterministic: bool,
    provoked_other: bool,
}

/// Runs `prog` on mxpsim and under `provoke`; checks points 1–4 of the module documentation.
/// `id` (the program's number) names its files apart from those of the checks beside it.
fn check(id: usize, prog: &[Op], write_back: WriteBack, line: u32) -> Result<Checked, String> {
    let truth = ground_truth(prog, Semantics::model(write_back));
    // mxpsim's invalidate drops a dirty line's data, as hardware does (outside the model,
    // documented in ground_truth.rs): its outcomes are those of the machine that may too,
    // which include the model's.
    let possible = ground_truth(prog, Semantics { inval_discards: true, ..Semantics::model(write_back) });
    let wb = if write_back == WriteBack::Line { "line" } else { "byte" };
    let cache = format!("line={line},wb={wb}");
    let fw = elf("mxp-tests", "op_machine");
    let tokens: Vec<String> = prog.iter().map(|&op| token(op)).collect();
    let mut args = vec!["run", "--race-check", "--race-uncached", "--cache", &cache, &fw, "--"];
    args.extend(tokens.iter().map(String::as_str));
    let o = mxpsim(&args);
    let console = String::from_utf8_lossy(&o.stdout).into_owned();
    let default = console.lines().find_map(parse_outcome).ok_or_else(|| format!("no outcome: {console}"))?;
    let raced = match o.status.code() {
        Some(0) => false,
        Some(66) => true,
        _ => return Err(format!("exit {:?}: {}", o.status.code(), stderr(&o))),
    };
    let show = |o: &Outcome| format!("{o:02x?}");
    if !possible.contains(&default) {
        return Err(format!("the default run's outcome {} is none of the machine's: {possible:02x?}", show(&default)));
    }
    let nondeterministic = truth.len() > 1;
    if nondeterministic && !raced {
        return Err(format!("the model's outcomes differ ({truth:02x?}) and no race was reported"));
    }
    if !raced {
        return Ok(Checked { nondeterministic, provoked_other: false });
    }
    let out = temp(&format!("pgt-{id}-{}-{line}-{wb}.json", tokens.join("_").replace('.', "-")));
    let mut args = vec!["provoke", "--race-uncached", "--cache", &cache, "--report-format", "json"];
    args.extend(["--report-file", &out, &fw, "--"]);
    args.extend(tokens.iter().map(String::as_str));
    let o = mxpsim(&args);
    if o.status.code() != Some(0) {
        return Err(format!("provoke: exit {:?}: {}", o.status.code(), stderr(&o)));
    }
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let mut provoked_other = false;
    for finding in doc["findings"].as_array().unwrap() {
        for attempt in finding["attempts"].as_array().unwrap() {
            let changed =
                attempt["console"].as_array().unwrap().iter().find_map(|d| d["this"].as_str().and_then(parse_outcome));
            let outcome = changed.unwrap_or_else(|| default.clone());
            if !possible.contains(&outcome) {
                return Err(format!(
                    "provoke's schedule ({}) gave {}, none of the machine's outcomes {possible:02x?}",
                    attempt["happened_text"],
                    show(&outcome)
                ));
            }
            provoked_other |= outcome != default;
        }
    }
    if nondeterministic && !provoked_other {
        let tried: Vec<String> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| format!("{} {}: {}", f["finding"]["class"], f["verdict"], f["not_tried"]))
            .collect();
        return Err(format!(
            "the model's outcomes differ ({truth:02x?}; default {}) and no provoked schedule changed it: {tried:?}",
            show(&default)
        ));
    }
    Ok(Checked { nondeterministic, provoked_other })
}

#[test]
fn provoke_reaches_another_outcome_whenever_the_model_has_one() {
    let cases: u64 = std::env::var("PGT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(150);
    let seed: u64 = std::env::var("PGT_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x9e37_79b9_7f4a_7c15);
    // The same programs for both granularities, drawn in order, then checked in parallel
    // (each check is two mxpsim processes); results come back in draw order.
    let mut rng = Rng(seed | 1);
    let programs: Vec<(u32, Vec<Op>)> = (0..cases)
        .map(|case| {
            let len = 2 + rng.below(5) as usize;
            let mut prog: Vec<Op> = (0..len).map(|_| rng.op()).collect();
            prog.extend([Op::Maint(CacheOp::Flush, None), Op::Sync]);
            ([16, 32, 64][case as usize % 3], prog)
        })
        .collect();
    let granularities = [WriteBack::Line, WriteBack::DirtyBytes];
    let checked: Vec<Vec<Result<Checked, String>>> = granularities
        .par_iter()
        .map(|&write_back| {
            programs.par_iter().enumerate().map(|(id, (line, prog))| check(id, prog, write_back, *line)).collect()
        })
        .collect();
    let mut failures = Vec::new();
    for (write_back, results) in granularities.iter().zip(&checked) {
        let (mut nondeterministic, mut provoked) = (0, 0);
        for ((line, prog), result) in programs.iter().zip(results) {
            match result {
                Ok(c) => {
                    nondeterministic += c.nondeterministic as u32;
                    provoked += (c.nondeterministic && c.provoked_other) as u32;
                }
                Err(e) => failures.push(format!("{write_back:?} line={line} {}: {e}", {
                    prog.iter().map(|&op| token(op)).collect::<Vec<_>>().join(" ")
                })),
            }
        }
        eprintln!("{write_back:?}: {cases} programs, {nondeterministic} with several outcomes, {provoked} provoked");
    }
    assert!(failures.is_empty(), "{} failure(s):\n{}", failures.len(), failures.join("\n"));
}
