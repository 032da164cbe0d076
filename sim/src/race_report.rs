//! Race reports in the firmware's terms: both accesses (what they are, PC → function →
//! `file:line`, cycle), the bytes and the variable they belong to, and why nothing orders
//! them; as text (coloured on a terminal) or JSON.

use crate::heap::{Block, HeapLog};
use crate::race_check::{Findings, Landmark};
use crate::source_map::SourceMap;
use mxpsim_detector::event::{CacheOp, Pos, Range, Request, Scope, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::race::Race;
use mxpsim_detector::race::RaceGroup;
use mxpsim_detector::RaceNode;
use serde_json::{json, Value};
use std::fmt::Write;

pub struct Renderer<'a> {
    pub findings: &'a Findings,
    pub source: &'a SourceMap,
    /// The firmware's heap blocks, to name the bytes that are not a global variable's.
    pub heap: &'a HeapLog,
    pub colour: bool,
}

fn space_name(space: Space) -> &'static str {
    match space {
        Space::Dram => "DRAM",
        Space::Scratchpad => "scratchpad",
    }
}

/// When a race happened, for naming its bytes: when its later node was created.
fn race_cycle(race: &Race) -> u64 {
    race.a.origin.cycle.max(race.b.origin.cycle)
}

/// How many byte ranges a JSON race lists.
const JSON_RANGES: usize = 64;

/// Byte ranges as `0x10..0x20, 0x40..0x48`; past the first few, a count.
fn ranges(bytes: &[Range]) -> String {
    const SHOWN: usize = 8;
    let mut text =
        bytes.iter().take(SHOWN).map(|r| format!("{:#x}..{:#x}", r.start, r.end())).collect::<Vec<_>>().join(", ");
    if bytes.len() > SHOWN {
        let total: u64 = bytes.iter().map(|r| r.len as u64).sum();
        let _ = write!(text, " and {} more ranges ({total} bytes in all)", bytes.len() - SHOWN);
    }
    text
}

/// `, over N cache lines` for a race found on several lines.
fn lines_note(lines: usize) -> String {
    if lines > 1 {
        format!(", over {lines} cache lines")
    } else {
        String::new()
    }
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
            NodeKind::WriteBack => format!("write-back of line {line}, dirty since the store at {at} (cycle {cycle})"),
            NodeKind::Alloc => format!("fill of line {line} from memory, needed by the access at {at} (cycle {cycle})"),
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
                format!("the fill is needed only by the access (CPU node {succ}), which comes after {start}")
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

    /// A heap block, as `heap block 0x80410050 (16384 bytes from vbx_shared_malloc at …)`.
    fn block(&self, b: &Block, cycle: u64) -> String {
        let freed = if b.freed.is_some_and(|f| f <= cycle) { "freed " } else { "" };
        format!(
            "{freed}heap block {:#010x} ({} bytes from {} at {})",
            b.start,
            b.size,
            b.function,
            self.at(b.call_site)
        )
    }

    /// The race's bytes as part of the heap block that held them when the race happened.
    fn heap_owner(&self, race: &Race, bytes: &[Range]) -> Option<(&Block, String)> {
        let first = bytes.first().filter(|_| race.space == Space::Dram)?;
        let last = bytes.last()?.end();
        let cycle = race_cycle(race);
        let block = self.heap.owner(first.start, cycle)?;
        let off = |addr: u64| addr - block.start as u64;
        let mut text =
            format!("bytes +{:#x}..+{:#x} of {}", off(first.start as u64), off(last), self.block(block, cycle));
        if last > block.end() {
            text.push_str(" and beyond");
        }
        Some((block, text))
    }

    /// What the cache line of a `wb`/`alloc` node holds: the heap blocks sharing it.
    fn line_holds(&self, race: &Race) -> Option<(u32, Vec<&Block>)> {
        let line = [&race.a, &race.b].into_iter().find_map(|n| n.id.line)?;
        let size = self.findings.line_size;
        Some((line, self.heap.overlapping(line, size, race_cycle(race))))
    }

    fn line_holds_text(&self, line: u32, blocks: &[&Block], cycle: u64) -> String {
        let parts: Vec<String> = blocks
            .iter()
            .map(|b| {
                let from = (b.start as u64).max(line as u64);
                let to = b.end().min(line as u64 + self.findings.line_size as u64);
                format!("{from:#x}..{to:#x} of {}", self.block(b, cycle))
            })
            .collect();
        format!("line {line:#010x} holds {}", parts.join("; "))
    }

    /// The human report.
    pub fn text(&self) -> String {
        let groups = self.findings.report.groups();
        let mut out = String::new();
        let total = groups.len();
        for (i, group) in groups.iter().enumerate() {
            let r = group.first();
            let (bytes, occurrences) = (group.bytes(), group.occurrences());
            let head = format!("race {} of {total}", i + 1);
            let head = if self.colour {
                crossterm::style::Stylize::bold(crossterm::style::Stylize::red(head)).to_string()
            } else {
                head
            };
            let _ = writeln!(
                out,
                "{head}: {} bytes {}{} ({occurrences} occurrence{}{})",
                space_name(r.space),
                ranges(&bytes),
                self.bytes_owner(r.space, &bytes),
                if occurrences == 1 { "" } else { "s" },
                lines_note(group.entries.len()),
            );
            if let Some((_, owner)) = self.heap_owner(r, &bytes) {
                let _ = writeln!(out, "  {owner}");
            }
            let _ = writeln!(out, "  A: {}", self.node(&r.a));
            let _ = writeln!(out, "  B: {}", self.node(&r.b));
            if let Some((line, blocks)) = self.line_holds(r).filter(|(_, b)| !b.is_empty()) {
                let _ = writeln!(out, "  {}", self.line_holds_text(line, &blocks, race_cycle(r)));
            }
            let _ = writeln!(out, "  why nothing orders them:");
            let _ = writeln!(out, "    A before B? {}", self.not_before(&r.a, &r.b));
            let _ = writeln!(out, "    B before A? {}", self.not_before(&r.b, &r.a));
        }
        let occurrences: u64 = groups.iter().map(|g| g.occurrences()).sum();
        let _ = write!(
            out,
            "mxpsim: race check: {total} distinct race{} ({occurrences} occurrence{}) in {} events",
            if total == 1 { "" } else { "s" },
            if occurrences == 1 { "" } else { "s" },
            self.findings.events
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

    fn block_json(&self, b: &Block, cycle: u64) -> Value {
        json!({
            "start": format!("{:#010x}", b.start),
            "size": b.size,
            "function": b.function,
            "call_site": self.source.symbols().describe(b.call_site).to_string(),
            "call_line": self.source.line_of(b.call_site),
            "freed": b.freed.is_some_and(|f| f <= cycle),
        })
    }

    fn group_json(&self, group: &RaceGroup) -> Value {
        let r = group.first();
        let bytes = group.bytes();
        json!({
            "space": space_name(r.space),
            // The first ranges only (a loop over a large buffer gives millions), with totals.
            "bytes": bytes.iter().take(JSON_RANGES).map(|b| json!({"start": format!("{:#x}", b.start), "len": b.len})).collect::<Vec<_>>(),
            "byte_ranges": bytes.len(),
            "byte_count": bytes.iter().map(|b| b.len as u64).sum::<u64>(),
            "cache_lines": group.entries.len(),
            "variable": self.bytes_owner(r.space, &bytes).trim().trim_start_matches("in ").trim_matches('`'),
            "heap_block": self.heap_owner(r, &bytes).map(|(b, _)| self.block_json(b, race_cycle(r))),
            "line_blocks": self
                .line_holds(r)
                .map(|(_, blocks)| blocks.iter().map(|b| self.block_json(b, race_cycle(r))).collect::<Vec<_>>()),
            "occurrences": group.occurrences(),
            "a": self.node_json(&r.a),
            "b": self.node_json(&r.b),
            "why": [self.not_before(&r.a, &r.b), self.not_before(&r.b, &r.a)],
        })
    }

    /// The JSON report.
    pub fn json(&self) -> String {
        let races: Vec<Value> = self.findings.report.groups().iter().map(|g| self.group_json(g)).collect();
        let value =
            json!({ "races": races, "events": self.findings.events, "stream_errors": self.findings.stream_errors });
        serde_json::to_string_pretty(&value).expect("plain data") + "\n"
    }
}
