//! `--timeline FILE`: a run as a trace that Perfetto's UI (ui.perfetto.dev) and
//! `chrome://tracing` open, in Chrome's trace-event JSON format.
//!
//! Why that format and not Perfetto's protobuf: both viewers read it, it needs nothing but
//! `serde_json`, and a reader can check it with any JSON tool; the protobuf format is more
//! compact but needs its schema compiled in and `chrome://tracing` does not read it. The size
//! is bounded instead: `--timeline-window FROM:TO` keeps a window of cycles, and at most
//! [`LIMIT`] records are kept (the file says how many were left out).
//!
//! Time is simulated cycles: one microsecond on the viewer's axis is one cycle. Tracks (one
//! process, one thread per track): the CPU's function spans (from the call contexts), the
//! CPU's waits for the accelerator, the DMA queue and the vector queue (one slice per
//! command, named by where it was requested), the cache (an instant per fill and write-back),
//! and each race finding as a flow arrow from side A to side B. Under `provoke`, what the
//! schedule did is marked on the track it concerns.

use crate::report::model::Finding;
use crate::report::text::{kind_words, short};
use crate::source_map::{demangle, SourceMap};
use mxpsim_detector::node::NodeKind;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::schedule::Happened;
use mxpsim_models::timeline::{CacheAction, Queue, Record, Recorder};
use serde_json::{json, Value};

/// Records kept at most (about 100 bytes each in the file).
pub const LIMIT: usize = 2_000_000;

/// The tracks, as trace "threads".
const CPU: u32 = 1;
const WAITS: u32 = 2;
const DMA: u32 = 3;
const VECTOR: u32 = 4;
const CACHE: u32 = 5;

/// A recorder for the window `FROM:TO` (either side may be empty: the run's start or end).
pub fn recorder(window: Option<&str>) -> Result<Recorder, String> {
    let (from, to) = match window {
        None => (0, u64::MAX),
        Some(text) => {
            let (a, b) =
                text.split_once(':').ok_or_else(|| format!("--timeline-window {text}: expected FROM:TO (cycles)"))?;
            let parse = |s: &str, empty: u64| match s.trim() {
                "" => Ok(empty),
                s => s.parse::<u64>().map_err(|e| format!("--timeline-window {text}: {s}: {e}")),
            };
            let (from, to) = (parse(a, 0)?, parse(b, u64::MAX)?);
            if from >= to {
                return Err(format!("--timeline-window {text}: the window is empty"));
            }
            (from, to)
        }
    };
    Ok(Recorder::new(from, to, LIMIT))
}

/// What the timeline shows of a run besides its records.
pub struct Context<'a> {
    pub program: &'a str,
    pub source: &'a SourceMap,
    pub calls: &'a CallTree,
    /// The run's race findings with their numbers (each becomes a flow arrow).
    pub findings: Vec<(usize, &'a Finding)>,
    /// What a deliberate schedule did (`provoke`).
    pub happened: &'a [Happened],
}

/// The trace, as JSON text.
pub fn render(recorder: Recorder, context: &Context) -> String {
    let window = recorder.window();
    let (records, dropped) = recorder.finish();
    let mut events = Events(String::new());
    events.push(
        json!({"ph": "M", "name": "process_name", "pid": 1, "args": {"name": format!("mxpsim: {}", context.program)}}),
    );
    for (tid, name) in
        [(CPU, "CPU"), (WAITS, "CPU waits for the MXP"), (DMA, "DMA queue"), (VECTOR, "vector queue"), (CACHE, "cache")]
    {
        events.push(json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": name}}));
        events.push(json!({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid, "args": {"sort_index": tid}}));
    }
    let end = records.iter().map(|r| match *r {
        Record::Engine { end, .. } | Record::Wait { end, .. } => end,
        other => other.cycle(),
    });
    let last = end.max().unwrap_or(window.0).max(window.0);
    spans(&mut events, &records, context, window.0, last);
    for record in &records {
        match *record {
            Record::Engine { queue, pc, start, end, .. } => {
                let (tid, what) = match queue {
                    Queue::Dma { to_host: false } => (DMA, kind_words(NodeKind::DmaToScratchpad)),
                    Queue::Dma { to_host: true } => (DMA, kind_words(NodeKind::DmaToHost)),
                    Queue::Vector => (VECTOR, kind_words(NodeKind::Vector)),
                };
                let (line, inlined) = where_(context.source, pc);
                events.push(json!({"ph": "X", "pid": 1, "tid": tid, "ts": start, "dur": end - start,
                    "name": format!("{what} at {line}"), "args": {"pc": format!("{pc:#010x}"), "source": inlined}}));
            }
            Record::Wait { pc, start, end } => {
                let (line, inlined) = where_(context.source, pc);
                events.push(json!({"ph": "X", "pid": 1, "tid": WAITS, "ts": start, "dur": end - start,
                    "name": format!("waits at {line}"), "args": {"pc": format!("{pc:#010x}"), "source": inlined}}));
            }
            Record::Cache { action, line, cycle } => {
                let what = match action {
                    CacheAction::Fill => "fill",
                    CacheAction::WriteBack => "write-back",
                };
                events.push(json!({"ph": "i", "s": "t", "pid": 1, "tid": CACHE, "ts": cycle,
                    "name": format!("{what} {line:#010x}")}));
            }
            Record::Context { .. } => {}
        }
    }
    for &(n, f) in &context.findings {
        flow(&mut events, n, f, &records, window);
    }
    for h in context.happened {
        if let Some((tid, cycle, name)) = mark(h) {
            if (window.0..window.1).contains(&cycle) {
                events.push(json!({"ph": "i", "s": "t", "pid": 1, "tid": tid, "ts": cycle, "name": name}));
            }
        }
    }
    let doc = json!({
        "traceEvents": [],
        "otherData": {
            "tool": "mxpsim",
            "time_unit": "1 us on the time axis = 1 simulated cycle",
            "window": {"from": window.0, "to": if window.1 == u64::MAX { Value::Null } else { json!(window.1) }},
            "records_left_out": dropped,
        },
    });
    // The events go in where the document has its empty list (wherever serde_json puts the
    // key), as the document would have them: copied once.
    let doc = serde_json::to_string(&doc).expect("plain data");
    let list = doc.find(r#""traceEvents":[]"#).expect("the list is in the document") + r#""traceEvents":["#.len();
    let mut text = String::with_capacity(doc.len() + events.0.len() + 1);
    text += &doc[..list];
    text += &events.0;
    text += &doc[list..];
    text + "\n"
}

/// The trace's events, as the JSON text of their list (without its brackets): each event
/// is turned into text as it is made. (A list of JSON values took some 1.9 KB of memory an
/// event: 3.7 GB for the two million records a timeline keeps, where the file is 100 MB.)
struct Events(String);

impl Events {
    fn push(&mut self, event: Value) {
        if !self.0.is_empty() {
            self.0.push(',');
        }
        self.0 += &serde_json::to_string(&event).expect("plain data");
    }
}

/// Where the instruction at `pc` is: the firmware's own line (the outermost of an inline
/// chain), and the whole chain.
fn where_(source: &SourceMap, pc: u32) -> (String, String) {
    match source.line_of(pc) {
        Some(chain) => (chain.rsplit(" inlined at ").next().unwrap_or(&chain).to_string(), chain),
        None => (format!("{pc:#010x}"), format!("{pc:#010x}")),
    }
}

/// The CPU's function spans, from the call-context changes.
fn spans(events: &mut Events, records: &[Record], context: &Context, from: u64, last: u64) {
    let name = |pc: u32| context.source.function_name(pc).map_or_else(|| format!("{pc:#010x}"), demangle);
    // The open spans: (context, name), outermost first.
    let mut open: Vec<(u32, String)> = Vec::new();
    for record in records {
        let Record::Context { ctx, pc, cycle } = *record else { continue };
        let cycle = cycle.max(from);
        // The contexts from `ctx` up to the root, each with its function: for `ctx`, where
        // the jump landed; for each caller, the function its call site is in.
        let mut chain = vec![(ctx, name(pc))];
        let mut c = ctx;
        for (site, _) in context.calls.frames(ctx) {
            c = context.calls.parent(c);
            chain.push((c, name(site)));
        }
        chain.reverse();
        let common = open.iter().zip(&chain).take_while(|(a, b)| a.0 == b.0).count();
        while open.len() > common {
            let (_, n) = open.pop().expect("checked");
            events.push(json!({"ph": "E", "pid": 1, "tid": CPU, "ts": cycle, "name": n}));
        }
        for (c, n) in chain.into_iter().skip(common) {
            events.push(json!({"ph": "B", "pid": 1, "tid": CPU, "ts": cycle, "name": n}));
            open.push((c, n));
        }
    }
    while let Some((_, n)) = open.pop() {
        events.push(json!({"ph": "E", "pid": 1, "tid": CPU, "ts": last, "name": n}));
    }
}

/// A finding as a flow arrow from side A to side B, each on its track at its cycle.
fn flow(events: &mut Events, n: usize, f: &Finding, records: &[Record], window: (u64, u64)) {
    let place = |i: usize| {
        let side = &f.sides[i];
        if side.kind.is_engine() {
            // Inside the command's slice, where the viewer binds the arrow.
            records.iter().find_map(|r| match *r {
                Record::Engine { request, queue, start, end, .. } if request == side.node.id.pos => {
                    Some((if queue == Queue::Vector { VECTOR } else { DMA }, start + (end - start) / 2))
                }
                _ => None,
            })
        } else {
            Some((CPU, side.site.cycle))
        }
    };
    let (Some(a), Some(b)) = (place(0), place(1)) else { return };
    if !(window.0..window.1).contains(&a.1) || !(window.0..window.1).contains(&b.1) {
        return;
    }
    let name = format!("race {n}: {} ({})", f.class(), short(&f.sides[0].site));
    events.push(json!({"ph": "s", "id": n, "cat": "race", "name": name, "pid": 1, "tid": a.0, "ts": a.1}));
    events.push(json!({"ph": "f", "bp": "e", "id": n, "cat": "race", "name": name, "pid": 1, "tid": b.0, "ts": b.1}));
}

/// Where and how a schedule's action shows: (track, cycle, name).
fn mark(h: &Happened) -> Option<(u32, u64, String)> {
    Some(match *h {
        Happened::Held { request, cycle } => {
            (DMA, cycle, format!("provoke: held the node requested at CPU node {request}"))
        }
        Happened::Released { cycle, .. } => (DMA, cycle, "provoke: hold released".to_string()),
        Happened::Hurried { cycle, scheduled: Some(_), .. } => (DMA, cycle, "provoke: hurried".to_string()),
        Happened::Hurried { .. } => return None,
        Happened::WroteBack { line, cycle, bytes, .. } | Happened::WroteBackBeforeAccess { line, cycle, bytes, .. } => {
            (CACHE, cycle, format!("provoke: forced write-back {line:#010x} ({bytes} bytes)"))
        }
        Happened::Refreshed { line, cycle, .. } | Happened::RefreshedAfterAccess { line, cycle, .. } => {
            (CACHE, cycle, format!("provoke: refreshed {line:#010x}"))
        }
        Happened::Filled { line, cycle, .. } => (CACHE, cycle, format!("provoke: kept {line:#010x} from here")),
        Happened::Ordered { cycle, already: false, .. } => (VECTOR, cycle, "provoke: reordered the engine".to_string()),
        Happened::Ordered { .. } => return None,
        Happened::Waited { cycle, .. } => (VECTOR, cycle, "provoke: engine waits for a request".to_string()),
        Happened::KeptLine { line, cycle, .. } => (CACHE, cycle, format!("provoke: let {line:#010x} go")),
    })
}
