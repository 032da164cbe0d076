//! Race reports in the firmware's terms: both accesses (what they are, PC → function →
//! `file:line`, cycle), the bytes and the variable they belong to, and why nothing orders
//! them; as text (coloured on a terminal) or JSON.

use crate::race_check::{Findings, Landmark};
use crate::source_map::SourceMap;
use mxpsim_detector::event::{CacheOp, Pos, Range, Request, Scope, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::race::ReportEntry;
use mxpsim_detector::RaceNode;
use serde_json::{json, Value};
use std::fmt::Write;

pub struct Renderer<'a> {
    pub findings: &'a Findings,
    pub source: &'a SourceMap,
    pub colour: bool,
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Dram => "DRAM",
        Space::Scratchpad => "scratchpad",
    }
}

fn ranges(bytes: &[Range]) -> String {
    bytes.iter().map(|r| format!("{:#x}..{:#x}", r.start, r.end())).collect::<Vec<_>>().join(", ")
}

impl Renderer<'_> {
    /// A code location in full.
    fn at(&self, pc: u32) -> String {
        self.source.code(pc).to_string()
    }

    /// What a node is, with where it comes from.
    fn node(&self, n: &RaceNode) -> String {
        let at = self.at(n.origin.pc);
        let cycle = n.origin.cycle;
        let line = n.id.line.map_or(String::new(), |l| format!("{l:#010x}"));
        match n.id.kind {
            NodeKind::WriteBack => format!("write-back of line {line}, dirtied by the store at {at} (cycle {cycle})"),
            NodeKind::Alloc => format!("fill of line {line} from memory, for the load at {at} (cycle {cycle})"),
            NodeKind::CpuUncachedRead => format!("uncached load at {at} (cycle {cycle})"),
            NodeKind::CpuUncachedWrite => format!("uncached store at {at} (cycle {cycle})"),
            NodeKind::CpuSpRead => format!("CPU load from the scratchpad at {at} (cycle {cycle})"),
            NodeKind::CpuSpWrite => format!("CPU store to the scratchpad at {at} (cycle {cycle})"),
            NodeKind::DmaToScratchpad => {
                format!("DMA read of DRAM into the scratchpad (vbx_dma_to_vector) requested at {at} (cycle {cycle})")
            }
            NodeKind::DmaToHost => {
                format!("DMA write of DRAM from the scratchpad (vbx_dma_to_host) requested at {at} (cycle {cycle})")
            }
            NodeKind::Vector => format!("vector instruction requested at {at} (cycle {cycle})"),
        }
    }

    /// The ordering node at CPU position `pos`, in words.
    fn landmark(&self, pos: Pos) -> String {
        match self.findings.landmarks.get(&pos) {
            Some(Landmark::Sync { origin }) => format!("the vbx_sync() returning at {}", self.at(origin.pc)),
            Some(Landmark::Maintenance { op, scope, origin }) => {
                let what = match op {
                    CacheOp::Clean => "clean",
                    CacheOp::Flush => "flush",
                    CacheOp::Inval => "invalidate",
                };
                let of = match scope {
                    Scope::Line(l) => format!("line {l:#010x}"),
                    Scope::All => "the whole cache".into(),
                };
                format!("the {what} of {of} at {}", self.at(origin.pc))
            }
            Some(Landmark::Request { request, origin }) => {
                let what = match request {
                    Request::Vector => "vector instruction",
                    Request::Dma(_) => "DMA request",
                };
                format!("the {what} at {}", self.at(origin.pc))
            }
            None => "a CPU access".into(),
        }
    }

    /// Where `y` may start, in words.
    fn start_of(&self, y: &RaceNode) -> String {
        match y.id.kind {
            NodeKind::Alloc if y.pred == 0 => {
                "the start of the run, since when the line may be fetched at any time".into()
            }
            NodeKind::Alloc => format!("{}, since when the line may be fetched at any time", self.landmark(y.pred)),
            NodeKind::WriteBack => format!("the store that dirtied the line (CPU node {})", y.pred),
            k if k.is_engine() => format!("the request (CPU node {})", y.pred),
            _ => format!("that access (CPU node {})", y.pred),
        }
    }

    /// Why `x` is not ordered before `y`: what would complete `x` does not come before `y`
    /// may start.
    fn not_before(&self, x: &RaceNode, y: &RaceNode) -> String {
        let start = self.start_of(y);
        match (x.id.kind, x.succ) {
            (NodeKind::WriteBack, None) => format!(
                "no clean, flush or invalidate of line {:#010x} follows the store, so the write-back may happen after {start}",
                x.id.line.unwrap_or(0)
            ),
            (k, None) if k.is_engine() => {
                format!("no vbx_sync() follows the request, so the engine may still be working after {start}")
            }
            (_, None) => format!("nothing completes it before {start}"),
            (k, Some(succ)) if !k.is_cache() && !k.is_engine() => {
                format!("the access itself (CPU node {succ}) comes after {start}")
            }
            (NodeKind::Alloc, Some(succ)) => {
                format!("the fill is needed only by the load (CPU node {succ}), which comes after {start}")
            }
            (_, Some(succ)) => {
                format!("it is complete only at {} (CPU node {succ}), which comes after {start}", self.landmark(succ))
            }
        }
    }

    fn bytes_owner(&self, space: Space, bytes: &[Range]) -> String {
        match (space, bytes.first()) {
            (Space::Dram, Some(r)) => self.source.data(r.start).map_or(String::new(), |v| format!(" in `{v}`")),
            _ => String::new(),
        }
    }

    /// The human report.
    pub fn text(&self) -> String {
        let report = &self.findings.report;
        let mut out = String::new();
        let total = report.len();
        for (i, entry) in report.entries().enumerate() {
            let r = &entry.first;
            let head = format!("race {} of {total}", i + 1);
            let head = if self.colour {
                crossterm::style::Stylize::bold(crossterm::style::Stylize::red(head)).to_string()
            } else {
                head
            };
            let _ = writeln!(
                out,
                "{head}: {} bytes {}{} ({} occurrence{})",
                space_name(r.space),
                ranges(&entry.bytes),
                self.bytes_owner(r.space, &entry.bytes),
                entry.occurrences,
                if entry.occurrences == 1 { "" } else { "s" }
            );
            let _ = writeln!(out, "  A: {}", self.node(&r.a));
            let _ = writeln!(out, "  B: {}", self.node(&r.b));
            let _ = writeln!(out, "  why nothing orders them:");
            let _ = writeln!(out, "    A before B? {}", self.not_before(&r.a, &r.b));
            let _ = writeln!(out, "    B before A? {}", self.not_before(&r.b, &r.a));
        }
        let _ = write!(
            out,
            "mxpsim: race check: {total} distinct race{} ({} occurrence{})",
            if total == 1 { "" } else { "s" },
            report.entries().map(|e| e.occurrences).sum::<u64>(),
            if report.entries().map(|e| e.occurrences).sum::<u64>() == 1 { "" } else { "s" }
        );
        if self.findings.stream_errors > 0 {
            let _ = write!(out, "\nmxpsim: warning: {} malformed events were ignored", self.findings.stream_errors);
        }
        out
    }

    fn node_json(&self, n: &RaceNode) -> Value {
        json!({
            "kind": n.id.kind.to_string(),
            "pc": format!("{:#010x}", n.origin.pc),
            "function": self.source.symbols().describe(n.origin.pc).to_string(),
            "line": self.source.line_of(n.origin.pc),
            "cycle": n.origin.cycle,
            "cache_line": n.id.line.map(|l| format!("{l:#010x}")),
            "cpu_node": n.id.pos,
            "pred": n.pred,
            "succ": n.succ,
            "description": self.node(n),
        })
    }

    fn entry_json(&self, entry: &ReportEntry) -> Value {
        let r = &entry.first;
        json!({
            "space": space_name(r.space),
            "bytes": entry.bytes.iter().map(|b| json!({"start": format!("{:#x}", b.start), "len": b.len})).collect::<Vec<_>>(),
            "variable": self.bytes_owner(r.space, &entry.bytes).trim().trim_start_matches("in ").trim_matches('`'),
            "occurrences": entry.occurrences,
            "a": self.node_json(&r.a),
            "b": self.node_json(&r.b),
            "why": [self.not_before(&r.a, &r.b), self.not_before(&r.b, &r.a)],
        })
    }

    /// The JSON report.
    pub fn json(&self) -> String {
        let races: Vec<Value> = self.findings.report.entries().map(|e| self.entry_json(e)).collect();
        let value = json!({ "races": races, "stream_errors": self.findings.stream_errors });
        serde_json::to_string_pretty(&value).expect("plain data") + "\n"
    }
}
