//! `provoke`'s result for people: per finding, each order tried in words (what the directives
//! did, with cycles), what came out different, and a verdict; a SUMMARY line.

use super::model::{Attempt, BytesDiff, Provoked, ProvokedFinding, Verdict};
use crate::report::model::{Finding, Side};
use crate::report::text::{kind_words, landmark, object, plural, short, title};
use mxpsim_detector::event::{Pos, Range, Space};
use mxpsim_models::schedule::Happened;
use std::fmt::Write;

pub fn render(p: &Provoked) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "provoke: {} of the first run's {} finding{} ({}), each made to happen both ways",
        p.findings.len(),
        p.findings_total,
        plural(p.findings_total as u64),
        p.first_end.describe()
    );
    for f in &p.findings {
        out.push('\n');
        finding(&mut out, f);
    }
    let _ = writeln!(out, "\n{}", summary(p));
    out
}

/// `SUMMARY: provoke: 2 findings: 1 harmful, 0 silent corruption, 1 benign in this run, 0 not
/// tried` (and `, 2 cut short by a signal` when a signal left findings without a verdict).
pub fn summary(p: &Provoked) -> String {
    let count = |v: Option<Verdict>| p.findings.iter().filter(|f| f.verdict() == v).count();
    let cut_short = p.findings.iter().filter(|f| f.cut_short()).count();
    let mut line = format!(
        "SUMMARY: provoke: {} finding{}: {} harmful, {} silent corruption, {} benign in this run, {} not tried",
        p.findings.len(),
        plural(p.findings.len() as u64),
        count(Some(Verdict::Harmful)),
        count(Some(Verdict::SilentCorruption)),
        count(Some(Verdict::Benign)),
        count(None) - cut_short
    );
    if cut_short > 0 {
        let _ = write!(line, ", {cut_short} cut short by a signal");
    }
    line
}

fn finding(out: &mut String, pf: &ProvokedFinding) {
    let f = &pf.finding;
    let _ = writeln!(out, "finding {}: {} ({})", pf.number, title(f), f.class());
    let _ = writeln!(out, "  A: {}", side_name(&f.sides[0]));
    let _ = writeln!(out, "  B: {}", side_name(&f.sides[1]));
    if pf.races > 1 {
        let _ = writeln!(
            out,
            "  race {} of its {} (site pair and line); {} tried, in order (the search stops at the first harmful one)",
            pf.race + 1,
            pf.races,
            pf.tried
        );
    }
    let attempts = match &pf.attempts {
        Ok(a) => a,
        Err(why) => {
            let _ = writeln!(out, "  not tried: {why}");
            return;
        }
    };
    for a in attempts {
        attempt(out, f, a);
    }
    if let Some(v) = pf.verdict() {
        let caught = attempts.iter().any(|a| a.effect.end.as_ref().is_some_and(|(_, end)| end.status() != Ok(0)));
        let how = match (v, caught) {
            (Verdict::Harmful, true) => " (the firmware's exit status shows it)",
            (Verdict::Harmful, false) => " (the output changes; the exit status does not)",
            _ => "",
        };
        let _ = writeln!(out, "  verdict: {}{how}", v.words());
    }
}

/// A side in a phrase: `the write-back of line 0x80430000 (last store: main (app.c:45))`.
fn side_name(s: &Side) -> String {
    match s.kind {
        k if k.is_cache() => {
            let line = s.node.id.line.unwrap_or(0);
            let what = if k == mxpsim_detector::node::NodeKind::WriteBack { "write-back" } else { "fill" };
            format!("the {what} of line {line:#010x} for the access in {}", short(&s.site))
        }
        k if k.is_engine() => format!("the {} requested in {}", kind_words(k), short(&s.site)),
        k => format!("the {} in {}", kind_words(k), short(&s.site)),
    }
}

fn attempt(out: &mut String, f: &Finding, a: &Attempt) {
    let (first, second) = if a.first == 0 { ("A", "B") } else { ("B", "A") };
    let realised = if a.realised { "" } else { " (not fully: see below)" };
    let _ = writeln!(out, "  {first} before {second}{realised}:");
    for h in &a.happened {
        let _ = writeln!(out, "    {}", happened(h, f));
    }
    if let Some(d) = &a.diverged {
        let pc = |pc: Option<u32>| pc.map_or("not reached".to_string(), |pc| format!("pc {pc:#010x}"));
        let _ = writeln!(
            out,
            "    the program took another path before CPU node {} (first run: {}, now {}): the directives from there on name other nodes",
            d.node,
            pc(d.first),
            pc(d.this)
        );
    }
    if let Some(end) = &a.cut_short {
        let _ = writeln!(out, "    {}: no verdict (a run cut short says nothing of the race)", end.describe());
        return;
    }
    let e = &a.effect;
    let engine = f.sides.iter().find(|s| s.kind.is_engine()).map_or("the engine node", |s| kind_words(s.kind));
    for d in &e.other_side {
        let what = if d.when == Some("read") { "read" } else { "left" };
        let _ = writeln!(out, "    what the {engine} {what}: {}", bytes(d));
    }
    if !e.other_side.is_empty() {
        for o in &f.objects {
            let _ = writeln!(out, "      in {}", object(o));
        }
    }
    if e.console_lines > 0 {
        let _ = writeln!(out, "    console: {} line{} changed", e.console_lines, plural(e.console_lines as u64));
    }
    for c in &e.console {
        match (&c.first, &c.this) {
            (Some(gone), _) => writeln!(out, "      - {gone:?} (line {} of the first run)", c.line),
            (None, Some(new)) => writeln!(out, "      + {new:?} (line {})", c.line),
            (None, None) => Ok(()),
        }
        .expect("writing to a String");
    }
    if let Some((first_end, this_end)) = &e.end {
        let _ = writeln!(out, "    {} (first run: {})", this_end.describe(), first_end.describe());
    }
    match e.memory_bytes {
        0 => {}
        n => {
            let _ = writeln!(out, "    memory at the end: {n} byte{} differ", plural(n));
            for d in &e.memory {
                let racing = f.space == d.space && f.bytes.iter().any(|r| r.overlaps(Range::new(d.start, d.len)));
                let mark = if racing { " (the racing bytes)" } else { "" };
                let _ = writeln!(out, "      {}{mark}", bytes(d));
            }
        }
    }
    if e.console_lines == 0 && e.end.is_none() && e.memory_bytes == 0 && e.other_side.is_empty() {
        let _ = writeln!(out, "    console, exit status and memory as in the first run");
    }
    let _ = writeln!(out, "    => {}", e.verdict().words());
}

/// `DRAM 0x80430010..0x80430020 (16 bytes): first run 01 02 …, now 00 00 …`.
fn bytes(d: &BytesDiff) -> String {
    let space = match d.space {
        Space::Dram => "DRAM",
        Space::Scratchpad => "scratchpad offset",
    };
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<Vec<_>>().join(" ");
    let more = if d.len as usize > d.first.len() { " …" } else { "" };
    format!(
        "{space} {:#010x}..{:#010x} ({} byte{}): first run {}{more}, now {}{more}",
        d.start,
        d.start as u64 + d.len as u64,
        d.len,
        plural(d.len as u64),
        hex(&d.first),
        hex(&d.this)
    )
}

/// The side of an engine-vs-engine finding requested at `request`, as `A (the vector
/// instruction)`; and the other one.
fn side_at(f: &Finding, request: Pos) -> String {
    let i = f.sides.iter().position(|s| s.node.id.pos == request).unwrap_or(0);
    format!("{} (the {})", ["A", "B"][i], kind_words(f.sides[i].kind))
}

fn side_other(f: &Finding, request: Pos) -> String {
    let i = f.sides.iter().position(|s| s.node.id.pos == request).unwrap_or(0);
    format!("{} (the {})", ["A", "B"][1 - i], kind_words(f.sides[1 - i].kind))
}

/// What one directive did, in a sentence.
pub fn happened(h: &Happened, f: &Finding) -> String {
    // The side the directives move the cache or the engine around: the engine node, or the
    // CPU access that bypasses the cache (`--race-uncached`).
    let e = f.sides.iter().position(|s| s.kind.is_engine()).unwrap_or_else(|| {
        f.sides.iter().position(|s| !s.kind.is_cache()).expect("a provoked finding has a side that is no cache node")
    });
    let (engine, other) = (&f.sides[e], &f.sides[1 - e]);
    let node = format!("{} (the {})", ["A", "B"][e], kind_words(engine.kind));
    // The CPU nodes directives name: either side's access, the landmark that ends the other
    // side's interval, or (a fill) the node after the line's last flush or invalidate.
    let until = |pos| match other.end.as_ref() {
        Some(end) if other.node.succ == Some(pos) && other.node.id.pos != pos => landmark(end),
        _ if other.node.id.pos == pos => format!("the access in {}", short(&other.site)),
        _ if engine.node.id.pos == pos && !engine.kind.is_engine() => node.clone(),
        _ => format!("CPU node {pos}"),
    };
    match *h {
        Happened::Held { cycle, .. } => format!("held {node} from cycle {cycle} on"),
        Happened::Released { after, cycle, forced: false, .. } => {
            format!("let it take effect at cycle {cycle}, after {}", until(after))
        }
        Happened::Released { cycle, forced: true, .. } => format!(
            "the CPU waited for the engine (a vbx_sync()) at cycle {cycle} before that point: the hold ended there"
        ),
        Happened::Hurried { before, cycle, scheduled: Some(at), .. } => {
            format!("made {node} take effect at cycle {cycle} (its own time: {at}), before {}", until(before))
        }
        Happened::Hurried { before, .. } => format!("{node} had already taken effect before {}", until(before)),
        Happened::WroteBack { line, bytes: 0, cycle, .. } => {
            format!("line {line:#010x} was not dirty at cycle {cycle}, just before {node} took effect")
        }
        Happened::WroteBack { line, bytes, cycle, .. } => format!(
            "wrote back line {line:#010x} ({bytes} byte{}) at cycle {cycle}, just before {node} took effect",
            plural(bytes as u64)
        ),
        Happened::Refreshed { line, present: false, cycle, .. } => {
            format!("line {line:#010x} was not cached at cycle {cycle}, just after {node}: the next access fills it")
        }
        Happened::Refreshed { line, bytes, cycle, .. } => format!(
            "read line {line:#010x}'s {bytes} clean byte{} again at cycle {cycle}, just after {node}, as a fill after an eviction would",
            plural(bytes as u64)
        ),
        Happened::WroteBackBeforeAccess { line, bytes: 0, cycle, before } => {
            format!("line {line:#010x} was not dirty at cycle {cycle}, just before {}", until(before))
        }
        Happened::WroteBackBeforeAccess { line, bytes, cycle, before } => format!(
            "wrote back line {line:#010x} ({bytes} byte{}) at cycle {cycle}, just before {}",
            plural(bytes as u64),
            until(before)
        ),
        Happened::RefreshedAfterAccess { line, present: false, cycle, after, .. } => format!(
            "line {line:#010x} was not cached at cycle {cycle}, just after {}: the next access fills it",
            until(after)
        ),
        Happened::RefreshedAfterAccess { line, bytes, cycle, after, .. } => format!(
            "read line {line:#010x}'s {bytes} clean byte{} again at cycle {cycle}, just after {}, as a fill after an eviction would",
            plural(bytes as u64),
            until(after)
        ),
        Happened::Ordered { first, cycle, already: false, .. } => {
            format!("made {} take effect at cycle {cycle}, just before {}", side_at(f, first), side_other(f, first))
        }
        Happened::Ordered { first, .. } => {
            format!("{} had taken effect before {} was due", side_at(f, first), side_other(f, first))
        }
        Happened::Waited { first, cycle, .. } => format!(
            "held {} (and the engine work due after it) from cycle {cycle} on, until {} was requested",
            side_other(f, first),
            side_at(f, first)
        ),
        Happened::Filled { line, before, cycle, cached } => format!(
            "took line {line:#010x}'s bytes at cycle {cycle}, before CPU node {before} ({}), and kept them as they were from then on",
            if cached {
                "as cached then"
            } else {
                "as a fill right after its last flush or invalidate reads them: the earliest fill the model allows"
            }
        ),
        Happened::KeptLine { line, ended_by_cpu: true, .. } => {
            format!("a flush or invalidate of line {line:#010x} by the CPU ended the keep before {node}")
        }
        Happened::KeptLine { line, kept, bytes, cycle, .. } => format!(
            "let line {line:#010x} go at cycle {cycle} ({kept} eviction{} had put its bytes aside; {bytes} byte{} memory did not have went to it then)",
            plural(kept as u64),
            plural(bytes as u64)
        ),
    }
}
