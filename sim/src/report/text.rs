//! The human report: a headline per finding, both sides with their stacks, the memory, why
//! nothing orders them, the fix, and a SUMMARY line (ThreadSanitizer's shape).

use super::model::*;
use mxpsim_detector::event::{CacheOp, Range, Space};
use mxpsim_detector::node::NodeKind;
use std::fmt::Write;

/// Renders `report`; `colour` adds terminal styles to the headlines; `verbose` lists the
/// suppressions that matched.
pub fn render(report: &Report, colour: bool, verbose: bool) -> String {
    let mut out = String::new();
    let total = report.findings.len();
    for (i, f) in report.findings.iter().enumerate() {
        finding(&mut out, f, i + 1, total, colour);
    }
    for used in &report.suppressions {
        let s = &used.suppression;
        if used.findings == 0 {
            let _ = writeln!(out, "mxpsim: warning: suppression `{s}` (line {}) matched nothing", s.line);
        } else if verbose {
            let _ = writeln!(
                out,
                "mxpsim: suppression `{s}` (line {}) matched {} finding{} ({} occurrence{})",
                s.line,
                used.findings,
                plural(used.findings as u64),
                used.occurrences,
                plural(used.occurrences)
            );
        }
    }
    let _ = writeln!(out, "{}", summary(report));
    if report.stream_errors > 0 {
        let _ = writeln!(out, "mxpsim: warning: {} malformed events were ignored", report.stream_errors);
    }
    out
}

/// `SUMMARY: mxpsim: 2 data races (1 suppressed) in 2627 events, 5 occurrences; the
/// firmware exited with status 0`.
pub fn summary(report: &Report) -> String {
    let total = report.findings.len();
    let suppressed = match report.suppressed.len() {
        0 => String::new(),
        n => format!(" ({n} suppressed)"),
    };
    let occurrences = report.occurrences();
    let incomplete = if report.outcome.complete() { "" } else { ": races after that point are unknown" };
    format!(
        "SUMMARY: mxpsim: {total} data race{}{suppressed} in {} events, {occurrences} occurrence{}; {}{incomplete}",
        plural(total as u64),
        report.events,
        plural(occurrences),
        report.outcome.describe()
    )
}

pub fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// What a kind of node is, in a few words.
pub fn kind_words(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::CpuUncachedRead => "uncached CPU load",
        NodeKind::CpuUncachedWrite => "uncached CPU store",
        NodeKind::CpuSpRead => "CPU load from the scratchpad",
        NodeKind::CpuSpWrite => "CPU store to the scratchpad",
        NodeKind::Alloc => "fill of a cache line",
        NodeKind::WriteBack => "write-back of a dirty cache line",
        NodeKind::DmaToScratchpad => "DMA read of DRAM (vbx_dma_to_vector)",
        NodeKind::DmaToHost => "DMA write to DRAM (vbx_dma_to_host)",
        NodeKind::Vector => "vector instruction",
    }
}

/// A site in one phrase: `main (app.c:57)`, or `memset (memset.S:21), called from main
/// (app.c:57)` when the instruction is in runtime code (named by its outermost runtime
/// frame: the API the user called).
pub fn short(site: &Site) -> String {
    let name = |f: &Frame| f.source.function.clone().unwrap_or_else(|| format!("{:#010x}", f.source.pc));
    let at = |f: &Frame| f.source.location().map_or(String::new(), |l| format!(" ({l})"));
    let top = site.stack.iter().position(|f| f.user);
    match top {
        Some(0) => format!("{}{}", name(&site.stack[0]), at(&site.stack[0])),
        Some(i) => format!(
            "{}{}, called from {}{}",
            name(&site.stack[i - 1]),
            at(&site.stack[i - 1]),
            name(&site.stack[i]),
            at(&site.stack[i])
        ),
        None => site.stack.first().map_or(format!("{:#010x}", site.pc), |f| format!("{}{}", name(f), at(f))),
    }
}

fn stack(out: &mut String, site: &Site, indent: &str) {
    for (i, f) in site.stack.iter().enumerate() {
        let function = f.source.function.as_deref().unwrap_or("??");
        let location = f.source.location().unwrap_or_default();
        let inlined = if f.source.inlined { " (inlined)" } else { "" };
        let mark = if f.user { "" } else { "  [runtime]" };
        let _ = writeln!(out, "{indent}#{i} {:#010x} in {function} {location}{inlined}{mark}", f.source.pc);
    }
    if site.truncated {
        let _ = writeln!(out, "{indent}... (deeper frames cut: --stack-depth)");
    }
}

fn ranges(bytes: &[Range]) -> String {
    const SHOWN: usize = 4;
    let mut text = bytes.iter().take(SHOWN).map(|r| format!("{r}")).collect::<Vec<_>>().join(", ");
    if bytes.len() > SHOWN {
        let _ = write!(text, " and {} more ranges", bytes.len() - SHOWN);
    }
    text
}

/// Where a heap block was allocated, in one phrase.
fn allocated(block: &HeapBlock) -> String {
    let top = block.stack.iter().find(|f| f.user).or(block.stack.first());
    let at = top.and_then(|f| f.source.location()).map_or(String::new(), |l| format!(" at {l}"));
    format!("{} bytes from {}{at}", block.size, block.function)
}

pub fn object(o: &Object) -> String {
    match o {
        Object::Global { name, size, from, to, path, .. } => {
            let shown = path.as_deref().unwrap_or(name);
            if *from == 0 && *to == *size as u64 {
                format!("`{shown}`")
            } else {
                format!("`{shown}` (bytes {from:#x}..{to:#x} of `{name}`, {size} bytes)")
            }
        }
        Object::Heap { block, from, to } => format!(
            "{}heap block {:#010x} bytes +{from:#x}..+{to:#x} ({})",
            if block.freed { "freed " } else { "" },
            block.start,
            allocated(block)
        ),
        Object::Stack { function, path, from, to, called_from, .. } => {
            let function = function.as_deref().unwrap_or("??");
            let call = called_from
                .as_ref()
                .and_then(|f| f.source.location())
                .map_or(String::new(), |l| format!(" (called at {l})"));
            let frame = format!("the stack frame of `{function}`{call}, bytes {from:+}..{to:+} from its frame address");
            match path {
                Some(p) => format!("`{p}` in {frame}"),
                None => frame,
            }
        }
        Object::Scratchpad { block: None, from, to } => format!("scratchpad {from:#x}..{to:#x}"),
        Object::Scratchpad { block: Some(b), from, to } => format!(
            "scratchpad {from:#x}..{to:#x}: bytes +{:#x}..+{:#x} of the scratchpad block at {:#x} ({})",
            from - b.start,
            to - b.start as u64,
            b.start,
            allocated(b)
        ),
        Object::Unnamed { from, to } => format!("{from:#010x}..{to:#010x}"),
    }
}

/// ` (4 bytes at 0x80001000)`: what a cache side's access touched, when known.
fn accessed(s: &Side) -> String {
    s.accessed.map_or(String::new(), |r| format!(" ({} byte{} at {:#010x})", r.len, plural(r.len as u64), r.start))
}

/// One side in a line: `write-back of line 0x80430000, dirty since … at cycle 7664368`.
pub fn side_title(s: &Side) -> String {
    let cycle = s.site.cycle;
    match s.kind {
        NodeKind::WriteBack => {
            let which = if s.last_store_known {
                "the last store to it before the other side"
            } else {
                "the store that dirtied it"
            };
            let size = accessed(s);
            format!(
                "write-back of line {:#010x}, dirty since {which}{size} at cycle {cycle}",
                s.node.id.line.unwrap_or(0)
            )
        }
        NodeKind::Alloc => {
            format!("fill of line {:#010x} for the access at cycle {cycle}", s.node.id.line.unwrap_or(0))
        }
        NodeKind::Vector => {
            let insn = s.vector.as_ref().map_or(String::new(), vector_use);
            format!("{}{insn} requested at cycle {cycle}", kind_words(s.kind))
        }
        k if k.is_engine() => format!("{} requested at cycle {cycle}", kind_words(k)),
        k => format!("{} at cycle {cycle}", kind_words(k)),
    }
}

fn side(out: &mut String, label: &str, s: &Side) {
    let what = side_title(s);
    let _ = writeln!(out, "  {label}: {what}:");
    stack(out, &s.site, "      ");
    match (&s.end, s.kind) {
        (Some(end), _) => {
            let _ = writeln!(out, "    ends by {}", landmark(end));
        }
        (None, k) if k.is_engine() => {
            let _ = writeln!(out, "    no vbx_sync() after the request before the run ended");
        }
        (None, NodeKind::WriteBack) => {
            let _ = writeln!(out, "    no clean, flush or invalidate of the line after the store before the run ended");
        }
        _ => {}
    }
    // The epoch's first store, when it is another line of code than the last one.
    if let Some(first) = s.first_store.as_ref().filter(|f| short(f) != short(&s.site)) {
        let _ = writeln!(out, "    the line was first dirtied (this time) by the store in {}", short(first));
    }
}

/// ` vbx(VVWWWSSS, VADD), operand A,`: which instruction, and where in it the racing bytes are.
fn vector_use(v: &VectorUse) -> String {
    let operands: Vec<_> = v.operands.iter().map(|o| o.name()).collect();
    match operands.len() {
        0 => format!(" {},", v.insn()),
        1 => format!(" {}, operand {},", v.insn(), operands[0]),
        _ => format!(" {}, operands {},", v.insn(), operands.join(" and ")),
    }
}

pub fn landmark(l: &Landmark) -> String {
    let what = match l.what {
        LandmarkKind::Sync => "the vbx_sync()".to_string(),
        LandmarkKind::Request => "the request".to_string(),
        LandmarkKind::Maintenance { op, whole_cache } => {
            let op = match op {
                CacheOp::Clean => "clean",
                CacheOp::Flush => "flush",
                CacheOp::Inval => "invalidate",
            };
            format!("the {op} of {}", if whole_cache { "the whole cache" } else { "the line" })
        }
    };
    format!("{what} in {}", short(&l.site))
}

/// One direction of "why nothing orders them", in words.
pub fn ordering(o: &Ordering) -> String {
    match o {
        Ordering::NoSyncBetween { request, then, sync } => format!(
            "no vbx_sync() between the request in {} and {}; the first sync after the request is {}",
            short(&request.site),
            short(then),
            sync.as_ref().map_or("none (the run ended first)".into(), |s| format!("later: {}", landmark(s)))
        ),
        Ordering::NoFlushBetween { line, store, then, next } => format!(
            "the store in {} is followed by {} with no clean or flush of line {line:#010x} between them; the line's next maintenance is {}",
            short(store),
            short(then),
            next.as_ref().map_or("none (the run ended first)".into(), |m| format!("later: {}", landmark(m)))
        ),
        Ordering::FillMayPrecede { line, load, since, done, request } => {
            let since = since.as_ref().map_or("the start of the run".into(), landmark);
            let after = match (done, request) {
                (Some(sync), _) => format!("; it ends at {}, and no invalidate of the line follows that before the load", landmark(sync)),
                (None, Some(request)) => format!("; no vbx_sync() after the request in {} comes before the load", short(&request.site)),
                (None, None) => String::new(),
            };
            format!(
                "the load in {} may find line {line:#010x} filled any time after {since}, before the other side is done{after}",
                short(load)
            )
        }
        Ordering::NoInterlock { first, second } => {
            format!(
                "no interlock orders the engine's work of the request in {} and of the later one in {}: both write these scratchpad bytes, and write-after-write is never interlocked; and no vbx_sync() lies between the requests",
                short(&first.site),
                short(&second.site)
            )
        }
        Ordering::ProgramOrder { x, y } => format!(
            "impossible as written: {} comes after {} in program order",
            short(x),
            short(y)
        ),
    }
}

/// The fix, in words.
pub fn fix(f: &Finding) -> String {
    if f.fix.kind != FixKind::Align {
        return ordering_fix(f);
    }
    let line = f.line.as_ref().map_or(0, |l| l.line);
    let line_size = f.line.as_ref().map_or(0, |l| l.size);
    let or = match &f.why[f.fix.direction] {
        Ordering::ProgramOrder { .. } => String::new(),
        _ => format!("; or {}", ordering_fix(f)),
    };
    format!(
        "the racing bytes only share line {line:#010x} with the bytes the CPU accessed: align and pad the buffers to the {line_size}-byte line size{or}"
    )
}

/// The ordering edge that would order the finding's fix direction, in words.
fn ordering_fix(f: &Finding) -> String {
    match &f.why[f.fix.direction] {
        Ordering::NoSyncBetween { request, then, .. } => {
            format!("call vbx_sync() after the request in {} and before {}", short(&request.site), short(then))
        }
        Ordering::NoInterlock { first, second, .. } => format!(
            "call vbx_sync() between the request in {} and the one in {}",
            short(&first.site),
            short(&second.site)
        ),
        Ordering::NoFlushBetween { line, store, then, .. } => format!(
            "flush or clean line {line:#010x} (vbx_dcache_flush) after the store in {} and before {}",
            short(store),
            short(then)
        ),
        Ordering::FillMayPrecede { line, load, done: None, request: Some(r), .. } => format!(
            "call vbx_sync() after the request in {}, then invalidate (or flush) line {line:#010x}, before the load in {}",
            short(&r.site),
            short(load)
        ),
        Ordering::FillMayPrecede { line, load, .. } => format!(
            "invalidate (or flush) line {line:#010x} after the other side is done and before the load in {}",
            short(load)
        ),
        Ordering::ProgramOrder { .. } => "reorder the two accesses, or separate their data".into(),
    }
}

/// What races, in words: `write-back of a dirty cache line vs DMA read of DRAM (vbx_dma_to_vector)`.
pub fn title(f: &Finding) -> String {
    format!("{} vs {}", kind_words(f.sides[0].kind), kind_words(f.sides[1].kind))
}

fn finding(out: &mut String, f: &Finding, n: usize, total: usize, colour: bool) {
    let head = format!("data race {n} of {total}: {} ({})", title(f), f.class());
    let head =
        if colour { crossterm::style::Stylize::bold(crossterm::style::Stylize::red(head)).to_string() } else { head };
    let _ = writeln!(out, "{head}");
    let _ = writeln!(out, "  between {} and {}", short(&f.sides[0].site), short(&f.sides[1].site));
    side(out, "A", &f.sides[0]);
    side(out, "B", &f.sides[1]);
    let space = match f.space {
        Space::Dram => "DRAM",
        Space::Scratchpad => "scratchpad",
    };
    let count: u64 = f.bytes.iter().map(|r| r.len as u64).sum();
    let lines = match f.cache_lines {
        0 => String::new(),
        n => format!(", {n} cache line{}", plural(n as u64)),
    };
    let _ = writeln!(
        out,
        "  memory: {space} bytes {} ({count} bytes; {} site pair{}{lines})",
        ranges(&f.bytes),
        f.sites,
        plural(f.sites as u64)
    );
    for o in &f.objects {
        let _ = writeln!(out, "    in {}", object(o));
        if let Object::Heap { block, .. } | Object::Scratchpad { block: Some(block), .. } = o {
            let _ = writeln!(out, "      allocated at:");
            stack(
                out,
                &Site { pos: 0, pc: 0, ctx: 0, cycle: 0, stack: block.stack.clone(), truncated: false },
                "        ",
            );
        }
    }
    if let Some(line) = f.line.as_ref().filter(|l| !l.objects.is_empty()) {
        let parts: Vec<String> = line.objects.iter().map(object).collect();
        let _ = writeln!(out, "  line {:#010x} ({} bytes) holds: {}", line.line, line.size, parts.join("; "));
        for &(side, object) in &line.touched {
            let label = ["A", "B"][side];
            let _ = writeln!(out, "    {label}'s CPU access touched {}", self::object(&line.objects[object]));
        }
    }
    let _ = writeln!(out, "  why nothing orders them:");
    let _ = writeln!(out, "    A before B? {}", ordering(&f.why[0]));
    let _ = writeln!(out, "    B before A? {}", ordering(&f.why[1]));
    let _ = writeln!(out, "  fix ({}): {}", f.fix.kind.name(), fix(f));
}
