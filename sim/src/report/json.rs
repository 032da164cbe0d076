//! The JSON report: the model as data, with the text renderer's sentences only where a
//! field is explicitly prose (`why_text`, `fix.text`). Versioned by [`SCHEMA_VERSION`] and
//! documented by `schemas/race-report.schema.json`, which every report the tests produce
//! must validate against (a field added here without the schema fails them).

use super::model::*;
use super::text;
use mxpsim_detector::event::{CacheOp, Space};
use serde_json::{json, Value};

/// The report's format version: raised when a field changes meaning or goes away (added
/// fields keep it).
pub const SCHEMA_VERSION: u32 = 1;

/// How many byte ranges a finding lists.
const RANGES: usize = 64;

fn hex(v: u32) -> String {
    format!("{v:#010x}")
}

fn frame_json(f: &Frame) -> Value {
    json!({
        "pc": hex(f.source.pc),
        "function": f.source.function,
        "file": f.source.file,
        "line": f.source.line,
        "inlined": f.source.inlined,
        "user": f.user,
    })
}

fn site(s: &Site) -> Value {
    json!({
        "cpu_node": s.pos,
        "pc": hex(s.pc),
        "cycle": s.cycle,
        "stack": s.stack.iter().map(frame_json).collect::<Vec<_>>(),
        "stack_truncated": s.truncated,
        "top_user_frame": s.top_user_frame().map(frame_json),
    })
}

fn object(o: &Object) -> Value {
    match o {
        Object::Global { name, addr, size, from, to, path } => json!({
            "kind": "global", "name": name, "path": path, "addr": hex(*addr), "size": size, "from": from, "to": to,
        }),
        Object::Heap { block, from, to } => json!({
            "kind": "heap",
            "start": hex(block.start),
            "size": block.size,
            "function": block.function,
            "freed": block.freed,
            "allocation_stack": block.stack.iter().map(frame_json).collect::<Vec<_>>(),
            "from": from,
            "to": to,
        }),
        Object::Scratchpad { block, from, to } => json!({
            "kind": "scratchpad",
            "from": from,
            "to": to,
            "block": block.as_ref().map(|b| json!({
                "offset": b.start,
                "size": b.size,
                "function": b.function,
                "allocation_stack": b.stack.iter().map(frame_json).collect::<Vec<_>>(),
            })),
        }),
        Object::Stack { function, frame, path, from, to, called_from, .. } => json!({
            "kind": "stack", "function": function, "frame": hex(*frame), "path": path, "from": from, "to": to,
            "called_from": called_from.as_ref().map(frame_json),
        }),
        Object::Unnamed { from, to } => json!({"kind": "unnamed", "from": hex(*from), "to": format!("{to:#010x}")}),
    }
}

fn landmark(l: &Landmark) -> Value {
    let what = match l.what {
        LandmarkKind::Sync => "sync".to_string(),
        LandmarkKind::Request => "request".to_string(),
        LandmarkKind::Maintenance { op, whole_cache } => {
            let op = match op {
                CacheOp::Clean => "clean",
                CacheOp::Flush => "flush",
                CacheOp::Inval => "inval",
            };
            format!("{op} {}", if whole_cache { "all" } else { "line" })
        }
    };
    json!({"what": what, "site": site(&l.site)})
}

/// The structured ordering facts of one direction.
fn facts(o: &Ordering) -> Value {
    let opt = |l: &Option<Landmark>| l.as_ref().map(landmark);
    match o {
        Ordering::NoSyncBetween { request, then, sync } => json!({
            "missing": "sync", "request": landmark(request), "then": site(then), "first_sync_after_request": opt(sync),
        }),
        Ordering::NoFlushBetween { line, store, then, next } => json!({
            "missing": "flush", "line": hex(*line), "store": site(store), "then": site(then),
            "next_maintenance_after_store": opt(next),
        }),
        Ordering::FillMayPrecede { line, load, since, done, request } => json!({
            "missing": "invalidate", "line": hex(*line), "load": site(load),
            "last_invalidation_before_load": opt(since), "sync_before_load": opt(done), "request": opt(request),
        }),
        Ordering::NoInterlock { first, second } => json!({
            "missing": "sync", "first_request": landmark(first), "second_request": landmark(second),
            "interlock": "write-after-write is never interlocked",
        }),
        Ordering::ProgramOrder { x, y } => json!({"missing": "none-possible", "x": site(x), "y": site(y)}),
    }
}

/// A side: its node (kind, position, final interval), where it comes from (the site's
/// position, pc, cycle and stack, `#0` innermost), and what ends it.
fn side(s: &Side) -> Value {
    let mut value = site(&s.site);
    let fields = json!({
        "kind": s.kind.to_string(),
        "short": s.kind.short(),
        "cache_line": s.node.id.line.map(hex),
        "node_pos": s.node.id.pos,
        "pred": s.node.pred,
        "succ": s.node.succ,
        "end": s.end.as_ref().map(landmark),
        "last_store": s.last_store_known,
        "first_store": s.first_store.as_ref().map(site),
        "accessed_bytes": s.accessed.map(|r| json!({"start": hex(r.start), "len": r.len})),
        "vector": s.vector.as_ref().map(|v| json!({
            "call": v.call, "mode": v.mode, "opcode": v.opcode, "operands": v.operands.iter().map(|o| o.name()).collect::<Vec<_>>(),
        })),
    });
    let object = value.as_object_mut().expect("a site is an object");
    object.extend(fields.as_object().expect("an object").clone());
    value
}

/// A line object the cache side's access touched: the side (`a`/`b`) and the object's index.
fn touched(side: usize, object: usize) -> Value {
    let side = if side == 0 { "a" } else { "b" };
    json!({"side": side, "object": object})
}

pub fn finding(f: &Finding) -> Value {
    json!({
        "class": f.class(),
        "rule": f.rule(),
        "space": match f.space { Space::Dram => "DRAM", Space::Scratchpad => "scratchpad" },
        "a": side(&f.sides[0]),
        "b": side(&f.sides[1]),
        "bytes": f.bytes.iter().take(RANGES).map(|b| json!({"start": hex(b.start), "len": b.len})).collect::<Vec<_>>(),
        "byte_ranges": f.bytes.len(),
        "byte_count": f.bytes.iter().map(|b| b.len as u64).sum::<u64>(),
        "cache_lines": f.cache_lines,
        "sites": f.sites,
        "occurrences": f.occurrences,
        "objects": f.objects.iter().map(object).collect::<Vec<_>>(),
        "line": f.line.as_ref().map(|l| json!({
            "addr": hex(l.line), "size": l.size, "objects": l.objects.iter().map(object).collect::<Vec<_>>(),
            "touched": l.touched.iter().map(|&(side, object)| touched(side, object)).collect::<Vec<_>>(),
        })),
        "facts": [facts(&f.why[0]), facts(&f.why[1])],
        "why_text": [text::ordering(&f.why[0]), text::ordering(&f.why[1])],
        "fix": {"kind": f.fix.kind.name(), "direction": if f.fix.direction == 0 { "a-before-b" } else { "b-before-a" }, "text": text::fix(f)},
    })
}

/// Renders `report`; `machine` is the configuration the run used (`None` for `detect`,
/// which knows only the trace's cache geometry).
pub fn render(report: &Report, machine: Option<&crate::config::MachineConfig>) -> String {
    let value = json!({
        "schema_version": SCHEMA_VERSION,
        "tool": {"name": "mxpsim", "version": env!("CARGO_PKG_VERSION")},
        "outcome": report.outcome,
        "complete": report.outcome.complete(),
        "machine": machine,
        "events": report.events,
        "stream_errors": report.stream_errors,
        "races": report.findings.len(),
        "suppressed": report.suppressed.len(),
        "occurrences": report.occurrences(),
        "findings": report.findings.iter().map(finding).collect::<Vec<_>>(),
        "suppressed_findings": report.suppressed.iter().map(|(f, _)| finding(f)).collect::<Vec<_>>(),
        "suppressions": report.suppressions.iter().map(|u| json!({
            "suppression": u.suppression.to_string(), "line": u.suppression.line,
            "findings": u.findings, "occurrences": u.occurrences,
        })).collect::<Vec<_>>(),
    });
    serde_json::to_string_pretty(&value).expect("plain data") + "\n"
}
