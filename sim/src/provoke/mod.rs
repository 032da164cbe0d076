//! `mxpsim provoke`: makes a reported race happen, both ways, and shows what it breaks.
//!
//! The firmware runs once with the race checker to find the races, once more under an empty
//! schedule that only probes the racing bytes (the first run's values), then, for each chosen
//! finding, once per order of its two sides under the directives of [`plan`] (the machine is
//! deterministic, so each re-run is the first run up to the first change a directive makes).
//! Each re-run is compared with the probing run: console, exit, the racing bytes the engine
//! node read or left, and memory at the end.

pub mod json;
pub mod model;
pub mod plan;
pub mod text;

use crate::config::MachineConfig;
use crate::elf::Image;
use crate::exit_code::RunEnd;
use crate::machine::RunNotes;
use crate::machine::{Limits, Machine};
use crate::race_check::{Findings, Landmark, RaceCheck};
use crate::report::{self, model::Finding};
use crate::semihost::{Captured, Semihost};
use crate::source_map::SourceMap;
use model::{Attempt, BytesDiff, Divergence, Effect, LineDiff, Provoked, ProvokedFinding, Verdict};
use mxpsim_detector::event::{CacheOp, Pos, Range, Scope, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::Config as DetectorConfig;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::schedule::{Directive, Happened, Probe, Schedule};
use mxpsim_models::timeline::Recorder;
use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// Everything a run of the firmware needs; each run builds its own machine from it.
pub struct Setup<'a> {
    pub config: &'a MachineConfig,
    pub image: &'a Image,
    pub cmdline: String,
    pub limits: Limits,
    pub detector: DetectorConfig,
    /// Record a timeline of the re-runs of the first finding chosen, over this window
    /// (`--timeline-window`; `Some(None)`: the whole run).
    pub timeline: Option<Option<String>>,
    /// How many of a finding's races (site pair and line) are tried, in the detector's order,
    /// until one changes the output or exit status (`None`: all).
    pub tries: Option<usize>,
    /// How findings are built (and so numbered), as in the race report.
    pub options: crate::report::Options,
}

/// Which findings to provoke.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Selection {
    All,
    /// 1-based numbers, as the race report numbers findings.
    Numbers(Vec<usize>),
}

/// What one run left behind.
struct Capture {
    console: Vec<u8>,
    /// The timeline, if one was recorded, with the run's call contexts.
    timeline: Option<(Recorder, CallTree)>,
    end: RunEnd,
    instructions: u64,
    memory: Memory,
    schedule: Option<Schedule>,
}

/// Memory after a run.
struct Memory {
    /// DRAM's pages that are not all zero, by address
    /// ([`mxpsim_models::memory_system::MemorySystem::peek_dram_pages`]).
    dram: BTreeMap<u32, Box<[u8]>>,
    scratchpad: Vec<u8>,
}

/// Runs the first run, the probing run and every attempt. `Err`: a selected number that is
/// not a finding.
pub fn provoke(setup: &Setup, source: &SourceMap, selection: &Selection) -> Result<Provoked, String> {
    let (first, findings, notes) = run(setup, None, None);
    let report = report::build(&findings, source, &notes, &setup.options, first.end.clone());
    let total = report.findings.len();
    let chosen: Vec<(usize, Finding)> = match selection {
        Selection::All => report.findings.into_iter().enumerate().map(|(i, f)| (i + 1, f)).collect(),
        Selection::Numbers(numbers) => {
            if let Some(n) = numbers.iter().find(|&&n| n == 0 || n > total) {
                return Err(format!("--race {n}: the first run has {total} finding(s), numbered from 1"));
            }
            let mut numbers = numbers.clone();
            numbers.sort_unstable();
            numbers.dedup();
            numbers.iter().map(|&n| (n, report.findings[n - 1].clone())).collect()
        }
    };
    // A schedule may send the firmware into a loop: re-runs stop at ten times the first
    // run's instructions (plus ten million), unless a limit was given.
    let mut limits = setup.limits.clone();
    limits.max_insns = limits.max_insns.or(Some(first.instructions.saturating_mul(10).saturating_add(10_000_000)));
    let setup = &Setup {
        limits,
        cmdline: setup.cmdline.clone(),
        timeline: setup.timeline.clone(),
        options: setup.options.clone(),
        ..*setup
    };
    // The races each finding may try, as findings of their own.
    let races: Vec<Vec<Finding>> = chosen
        .iter()
        .map(|(_, f)| (0..f.races.len().min(setup.tries.unwrap_or(usize::MAX))).map(|k| with_race(f, k)).collect())
        .collect();
    let last_invalidation = |line: u32, before: Pos| last_invalidation(&findings, line, before);
    let halves = &findings.second_halves;
    let instruction = |pos: Pos| match (halves.contains(&pos), halves.contains(&(pos + 1))) {
        (true, _) => (pos - 1, pos),
        (false, true) => (pos, pos + 1),
        (false, false) => (pos, pos),
    };
    let context = plan::Context {
        write_back: setup.config.geometry().write_back,
        last_invalidation: &last_invalidation,
        instruction: &instruction,
    };
    let plans: Vec<Vec<Result<[plan::Plan; 2], String>>> =
        races.iter().map(|races| races.iter().map(|race| plan::plans(race, &context)).collect()).collect();
    // The probing run: every race's bytes, and the instruction at every CPU node a plan names.
    let probes: Vec<Probe> = races.iter().flatten().filter_map(probe_of).collect();
    let anchors = plans.iter().flatten().flatten().flatten().flat_map(|p| &p.directives).filter_map(|d| d.cpu_anchor());
    let (baseline, ..) = run(setup, Some(Schedule::new(Vec::new(), probes).watching(anchors)), None);
    // Round k tries the k-th race of every finding none of whose earlier races changed the
    // program's output or exit status (harmful); the attempts of a round run in parallel, one
    // machine each.
    let mut tried: Vec<Vec<Result<Vec<Attempt>, String>>> = vec![Vec::new(); chosen.len()];
    for k in 0.. {
        // (An attempt that did not do all it planned does not end the search.)
        let changed = |results: &[Result<Vec<Attempt>, String>]| {
            results.iter().flatten().flatten().any(|a| a.realised && a.verdict() == Some(Verdict::Harmful))
        };
        let round: Vec<(usize, Result<[plan::Plan; 2], String>)> = (0..chosen.len())
            .filter(|&i| k < races[i].len() && !changed(&tried[i]))
            .map(|i| (i, plans[i][k].clone()))
            .collect();
        if round.is_empty() {
            break;
        }
        let jobs: Vec<(usize, plan::Plan)> = round
            .iter()
            .filter_map(|(i, p)| p.as_ref().ok().map(|p| (*i, p.clone())))
            .flat_map(|(i, plans)| plans.into_iter().map(move |p| (i, p)))
            .collect();
        let attempts: Vec<(usize, Attempt)> = jobs
            .into_par_iter()
            .map(|(i, plan)| {
                let race = &races[i][k];
                let schedule = Schedule::new(plan.directives.clone(), probe_of(race).into_iter().collect());
                let recorder = match (&setup.timeline, i) {
                    (Some(window), 0) => {
                        Some(crate::timeline::recorder(window.as_deref()).expect("checked by the caller"))
                    }
                    _ => None,
                };
                let (capture, ..) = run(setup, Some(schedule), recorder);
                (i, attempt(plan, race, &baseline, capture))
            })
            .collect();
        let mut by_finding: Vec<Vec<Attempt>> = vec![Vec::new(); chosen.len()];
        for (i, attempt) in attempts {
            by_finding[i].push(attempt);
        }
        for (i, plans) in round {
            tried[i].push(plans.map(|_| std::mem::take(&mut by_finding[i])));
        }
    }
    let findings = chosen
        .into_iter()
        .zip(races)
        .zip(tried)
        .map(|(((number, finding), mut races), tried)| {
            // The race shown: the first with the worst effect (the first, if none could be tried).
            let verdict = |r: &Result<Vec<Attempt>, String>| {
                r.as_ref().ok().and_then(|a| a.iter().filter_map(Attempt::verdict).max())
            };
            let worst = tried.iter().map(verdict).max().flatten();
            // (Every finding has a race, so round 0 tried each.)
            let race = tried.iter().position(|r| verdict(r) == worst).expect("a race was tried");
            let tried_count = tried.len();
            let attempts = tried.into_iter().nth(race).expect("the race was tried");
            let races_total = finding.occurrences as usize;
            ProvokedFinding {
                number,
                finding: races.swap_remove(race),
                attempts,
                race,
                races: races_total,
                tried: tried_count,
            }
        })
        .collect();
    Ok(Provoked { first_end: first.end, findings_total: total, findings })
}

/// The finding as its `k`-th race alone: that race's sides and racing bytes.
fn with_race(finding: &Finding, k: usize) -> Finding {
    let race = &finding.races[k];
    let mut alone = Finding { races: Vec::new(), ..finding.clone() };
    alone.sides = race.sides.clone();
    alone.bytes = race.bytes.clone();
    alone
}

/// The position of the latest flush or invalidate of `line` (or of the whole cache) before
/// `before` in the first run (0: none).
fn last_invalidation(findings: &Findings, line: u32, before: Pos) -> Pos {
    let ends_line = |l: &Landmark| match *l {
        Landmark::Maintenance { op: CacheOp::Flush | CacheOp::Inval, scope, .. } => {
            scope == Scope::All || scope == Scope::Line(line)
        }
        _ => false,
    };
    findings.landmarks.range(..before).rev().find(|(_, l)| ends_line(l)).map_or(0, |(&pos, _)| pos)
}

/// The probe of a finding: its racing bytes around its engine node.
fn probe_of(finding: &Finding) -> Option<Probe> {
    let engine = finding.sides.iter().find(|s| s.kind.is_engine())?;
    Some(Probe::new(engine.node.id.pos, finding.space, finding.bytes.clone()))
}

/// One run of the firmware, race checker on, under `schedule` if given, recording a timeline
/// if `timeline` is given.
fn run(setup: &Setup, schedule: Option<Schedule>, timeline: Option<Recorder>) -> (Capture, Findings, RunNotes) {
    let console = Captured::default();
    let host = Semihost::new(
        Box::new(console.clone()),
        Box::new(console.clone()),
        setup.cmdline.clone(),
        setup.config.clock_hz,
    );
    let race = RaceCheck::new(setup.detector, false).expect("the configuration was validated");
    let mut machine =
        Machine::new(setup.config, setup.image.clone(), host, race).expect("the first run placed the image");
    machine.watch_heap();
    machine.set_limits(setup.limits.clone());
    if let Some(schedule) = schedule {
        machine.bus.set_schedule(schedule);
    }
    if let Some(recorder) = timeline {
        machine.bus.record_timeline(recorder);
    }
    let end = machine.run(&mut (), |_| {}).end();
    let instructions = machine.stats().instructions;
    let mut dram = BTreeMap::new();
    machine.bus.peek_dram_pages(|addr, bytes| {
        dram.insert(addr, bytes.into());
    });
    let memory = Memory { dram, scratchpad: machine.bus.mxp().scratchpad().to_vec() };
    let schedule = machine.bus.take_schedule();
    let mut notes = machine.notes();
    let timeline = notes.timeline.take().map(|t| (t, notes.calls.clone()));
    let findings = machine.into_sink().finish();
    let console = console.0.borrow().clone();
    (Capture { console, timeline, end, instructions, memory, schedule }, findings, notes)
}

/// An attempt's result next to the probing run.
fn attempt(plan: plan::Plan, finding: &Finding, baseline: &Capture, this: Capture) -> Attempt {
    let happened = this.schedule.as_ref().map_or_else(Vec::new, |s| s.log.clone());
    let cut_short = Attempt::cut_short_of(&baseline.end, &this.end);
    let diverged = diverged(baseline, &this);
    let realised = realised(&plan.directives, &happened) && diverged.is_none();
    // (A run cut short, or compared with one cut short, has no effect to show: its
    // differences are where the signal stopped it.)
    let effect = match cut_short {
        Some(_) => Effect::default(),
        None => {
            let console = console_diff(&baseline.console, &this.console, 6);
            let (memory, memory_bytes) = memory_changes(&baseline.memory, &this.memory, 8);
            Effect {
                console: console.0,
                console_lines: console.1,
                end: (baseline.end != this.end).then(|| (baseline.end.clone(), this.end.clone())),
                other_side: probe_diffs(finding, baseline, &this),
                memory,
                memory_bytes,
            }
        }
    };
    Attempt {
        first: plan.first,
        directives: plan.directives,
        happened,
        realised,
        diverged,
        cut_short,
        effect,
        timeline: this.timeline,
    }
}

/// The first CPU node a directive names that the re-run reached at another instruction than
/// the probing run (or never reached): the program took another path before it.
fn diverged(baseline: &Capture, this: &Capture) -> Option<Divergence> {
    let (Some(first), Some(this)) = (&baseline.schedule, &this.schedule) else { return None };
    this.anchors.iter().find_map(|(&node, &now)| {
        let then = first.anchors.get(&node).copied().flatten();
        (then != now).then_some(Divergence { node, first: then, this: now })
    })
}

/// True if every directive did what it planned.
fn realised(directives: &[Directive], happened: &[Happened]) -> bool {
    let cut_short = happened
        .iter()
        .any(|h| matches!(h, Happened::Released { forced: true, .. } | Happened::KeptLine { ended_by_cpu: true, .. }));
    let done = |d: &Directive| match d {
        Directive::HoldEngine { .. } => happened.iter().any(|h| matches!(h, Happened::Released { .. })),
        Directive::HurryEngine { .. } => happened.iter().any(|h| matches!(h, Happened::Hurried { .. })),
        // A line with nothing dirty to write back: its store did not come first.
        Directive::WriteBackBefore { .. } => {
            happened.iter().any(|h| matches!(h, Happened::WroteBack { bytes, .. } if *bytes > 0))
        }
        Directive::RefreshAfter { .. } => happened.iter().any(|h| matches!(h, Happened::Refreshed { .. })),
        Directive::WriteBackBeforeAccess { .. } => {
            happened.iter().any(|h| matches!(h, Happened::WroteBackBeforeAccess { bytes, .. } if *bytes > 0))
        }
        Directive::RefreshAfterAccess { .. } => {
            happened.iter().any(|h| matches!(h, Happened::RefreshedAfterAccess { .. }))
        }
        Directive::KeepLine { .. } => happened.iter().any(|h| matches!(h, Happened::KeptLine { .. })),
        Directive::EngineFirst { .. } => happened.iter().any(|h| matches!(h, Happened::Ordered { .. })),
        Directive::ReleaseAfter { .. } | Directive::LetGoAfter { .. } => {
            happened.iter().any(|h| matches!(h, Happened::KeptLine { .. }))
        }
    };
    !cut_short && directives.iter().all(done)
}

/// The console's changes from the first run (a line diff): the first `limit` lines gone
/// or new, and how many there are in all.
fn console_diff(first: &[u8], this: &[u8], limit: usize) -> (Vec<LineDiff>, usize) {
    let (a, b) = (String::from_utf8_lossy(first), String::from_utf8_lossy(this));
    let diff = similar::TextDiff::from_lines(a.as_ref(), b.as_ref());
    let text = |c: &similar::Change<&str>| c.value().trim_end_matches('\n').to_string();
    let changes: Vec<LineDiff> = diff
        .iter_all_changes()
        .filter_map(|c| match c.tag() {
            similar::ChangeTag::Equal => None,
            similar::ChangeTag::Delete => {
                Some(LineDiff { line: c.old_index()? + 1, first: Some(text(&c)), this: None })
            }
            similar::ChangeTag::Insert => {
                Some(LineDiff { line: c.new_index()? + 1, first: None, this: Some(text(&c)) })
            }
        })
        .collect();
    let total = changes.len();
    (changes.into_iter().take(limit).collect(), total)
}

/// The racing bytes the engine node read (just before it) or left (just after), where they
/// differ.
fn probe_diffs(finding: &Finding, baseline: &Capture, this: &Capture) -> Vec<BytesDiff> {
    let Some(wanted) = probe_of(finding) else { return Vec::new() };
    // Two findings may share an engine node: their probes differ in their bytes.
    let find = |c: &Capture| {
        let probes = &c.schedule.as_ref()?.probes;
        probes
            .iter()
            .find(|p| p.request == wanted.request && p.space == wanted.space && p.ranges == wanted.ranges)
            .cloned()
    };
    let (Some(a), Some(b)) = (find(baseline), find(this)) else { return Vec::new() };
    let engine = finding.sides.iter().find(|s| s.kind.is_engine()).expect("a probed finding has an engine side");
    let (reads, writes) = touches(engine.kind, finding.space);
    let mut diffs = Vec::new();
    for (when, shown, x, y) in [("read", reads, &a.before, &b.before), ("left", writes, &a.after, &b.after)] {
        if !shown {
            continue;
        }
        diffs.extend(runs(x, y, &a.ranges, 4).into_iter().map(|(start, len, first, this)| BytesDiff {
            space: a.space,
            start,
            len,
            when: Some(when),
            first,
            this,
        }));
    }
    diffs
}

/// Whether an engine node of `kind` reads and writes bytes in `space`.
fn touches(kind: NodeKind, space: Space) -> (bool, bool) {
    match (kind, space) {
        (NodeKind::DmaToScratchpad, Space::Dram) | (NodeKind::DmaToHost, Space::Scratchpad) => (true, false),
        (NodeKind::DmaToScratchpad, Space::Scratchpad) | (NodeKind::DmaToHost, Space::Dram) => (false, true),
        _ => (true, true),
    }
}

/// Memory at the end: the first `limit` runs of differing bytes, DRAM then scratchpad, and
/// how many bytes differ in all.
fn memory_changes(first: &Memory, this: &Memory, limit: usize) -> (Vec<BytesDiff>, u64) {
    let spans: Vec<(u32, Vec<u8>, Vec<u8>)> = dram_spans(first, this).collect();
    let bytes =
        spans.iter().map(|(_, x, y)| differing(x, y)).sum::<u64>() + differing(&first.scratchpad, &this.scratchpad);
    let mut diffs = Vec::new();
    let add = |space, start, x: &[u8], y: &[u8], diffs: &mut Vec<BytesDiff>| {
        let found = runs(x, y, &[Range::new(start, x.len() as u32)], limit - diffs.len());
        diffs.extend(memory_diffs(space, found));
    };
    // DRAM span by span (between spans both runs' bytes are zero: no run crosses one) until
    // the limit, then the scratchpad.
    for (start, x, y) in &spans {
        if diffs.len() >= limit {
            break;
        }
        add(Space::Dram, *start, x, y, &mut diffs);
    }
    add(Space::Scratchpad, 0, &first.scratchpad, &this.scratchpad, &mut diffs);
    (diffs, bytes)
}

/// Runs of differing bytes in `space` (from [`runs`]), as the report shows memory's.
fn memory_diffs(space: Space, found: Vec<(u32, u32, Vec<u8>, Vec<u8>)>) -> impl Iterator<Item = BytesDiff> {
    found.into_iter().map(move |(start, len, first, this)| BytesDiff { space, start, len, when: None, first, this })
}

/// The stretches of consecutive DRAM pages that either run's memory holds, in address order,
/// each as its address and both runs' bytes (a page one of them lacks is zeros): DRAM outside
/// them is zero after both runs.
fn dram_spans<'a>(first: &'a Memory, this: &'a Memory) -> impl Iterator<Item = (u32, Vec<u8>, Vec<u8>)> + 'a {
    let mut addrs = first.dram.keys().chain(this.dram.keys()).copied().collect::<BTreeSet<u32>>().into_iter();
    let page = |memory: &Memory, addr: u32, len: usize| match memory.dram.get(&addr) {
        Some(bytes) => bytes.to_vec(),
        None => vec![0; len],
    };
    let len_at = |addr: u32| first.dram.get(&addr).or_else(|| this.dram.get(&addr)).map_or(0, |p| p.len());
    let mut next = addrs.next();
    std::iter::from_fn(move || {
        let start = next?;
        let (mut x, mut y) = (Vec::new(), Vec::new());
        // (In 64 bits: DRAM may end at the top of the address space.)
        let mut at = u64::from(start);
        while let Some(addr) = next.filter(|&addr| u64::from(addr) == at) {
            let len = len_at(addr);
            x.extend(page(first, addr, len));
            y.extend(page(this, addr, len));
            at += len as u64;
            next = addrs.next();
        }
        Some((start, x, y))
    })
}

/// Bytes that differ between two images of the same size.
fn differing(x: &[u8], y: &[u8]) -> u64 {
    let chunks = x.chunks(4096).zip(y.chunks(4096)).filter(|(a, b)| a != b);
    chunks.map(|(a, b)| a.iter().zip(b).filter(|(p, q)| p != q).count() as u64).sum()
}

/// Differing bytes closer than this are one run.
const GAP: usize = 16;

/// The first `limit` runs of differing bytes between `x` and `y`, which hold the bytes of
/// `ranges` in order: each as (address, length, first 16 bytes of `x`, of `y`). Differences
/// less than [`GAP`] bytes apart are one run.
fn runs(x: &[u8], y: &[u8], ranges: &[Range], limit: usize) -> Vec<(u32, u32, Vec<u8>, Vec<u8>)> {
    let mut out = Vec::new();
    let mut offset = 0usize;
    for range in ranges {
        let end = (offset + range.len as usize).min(x.len()).min(y.len());
        let (a, b) = (&x[offset.min(end)..end], &y[offset.min(end)..end]);
        offset += range.len as usize;
        let mut current: Option<(usize, usize)> = None;
        let close = |run: (usize, usize), out: &mut Vec<_>| {
            let shown = run.0..run.1.min(run.0 + 16);
            out.push((
                range.start + run.0 as u32,
                (run.1 - run.0) as u32,
                a[shown.clone()].to_vec(),
                b[shown].to_vec(),
            ));
        };
        for (i, _) in a.iter().zip(b).enumerate().filter(|(_, (p, q))| p != q) {
            current = match current {
                Some((start, stop)) if i < stop + GAP => Some((start, i + 1)),
                before => {
                    // A new run: the one before it is whole, and this one is only begun
                    // when there is room for it (none with a limit already used up).
                    if let Some(run) = before {
                        close(run, &mut out);
                    }
                    if out.len() >= limit {
                        return out;
                    }
                    Some((i, i + 1))
                }
            };
        }
        if let Some(run) = current {
            close(run, &mut out);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const PAGE: usize = 4096;

    /// DRAM of `pages` pages at `base` after a run: `writes` (page, offset, value) on zeros,
    /// as the capture keeps it (its pages that are not all zero) and whole.
    fn memory(base: u32, pages: usize, writes: &[(usize, usize, u8)], scratchpad: Vec<u8>) -> (Memory, Vec<u8>) {
        let mut whole = vec![0; pages * PAGE];
        for &(page, offset, value) in writes {
            whole[page * PAGE + offset] = value;
        }
        let dram = whole
            .chunks(PAGE)
            .enumerate()
            .filter(|(_, bytes)| bytes.iter().any(|&b| b != 0))
            .map(|(i, bytes)| (base + (i * PAGE) as u32, bytes.into()))
            .collect();
        (Memory { dram, scratchpad }, whole)
    }

    /// What the capture of all of DRAM as one image gave: the runs of differing bytes over
    /// the whole image, then the scratchpad's with what the limit leaves.
    fn from_whole_images(
        x: &[u8],
        y: &[u8],
        base: u32,
        first: &Memory,
        this: &Memory,
        limit: usize,
    ) -> (Vec<BytesDiff>, u64) {
        let mut diffs = Vec::new();
        let spaces = [(Space::Dram, x, y, base), (Space::Scratchpad, &first.scratchpad[..], &this.scratchpad[..], 0)];
        for (space, x, y, start) in spaces {
            let found = runs(x, y, &[Range::new(start, x.len() as u32)], limit - diffs.len());
            diffs.extend(memory_diffs(space, found));
        }
        (diffs, differing(x, y) + differing(&first.scratchpad, &this.scratchpad))
    }

    fn writes() -> impl Strategy<Value = Vec<(usize, usize, u8)>> {
        // Bytes near the ends of pages and anywhere, in 6 pages, so that runs meet page ends
        // and spans of one page or several come and go.
        let offset = prop_oneof![0..24usize, PAGE - 24..PAGE, 0..PAGE];
        prop::collection::vec((0..6usize, offset, 1..=255u8), 0..40)
    }

    /// A limit already used up shows nothing more: DRAM's runs filled it, so the
    /// scratchpad's first run is left out (it was shown, one run past the limit).
    #[test]
    fn a_limit_used_up_shows_no_more_runs() {
        assert_eq!(runs(&[0; 21], &[1; 21], &[Range::new(0, 21)], 0), vec![], "one run");
        // Bytes 0 and 39 differ: more than `GAP` apart, two runs.
        let mut far = [0u8; 40];
        (far[0], far[39]) = (1, 1);
        assert_eq!(runs(&[0; 40], &far, &[Range::new(0, 40)], 0), vec![], "two runs");
        assert_eq!(runs(&[0; 40], &far, &[Range::new(0, 40)], 1), vec![(0, 1, vec![0], vec![1])]);
    }

    /// 256 bytes, a few of them set: runs far apart too (a limit that DRAM's runs fill is
    /// then met by several of the scratchpad's).
    fn scratchpad() -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec((0..256usize, 1..=255u8), 0..6).prop_map(|writes| {
            let mut bytes = vec![0; 256];
            for (at, value) in writes {
                bytes[at] = value;
            }
            bytes
        })
    }

    proptest! {
        /// Span by span, the differences and their count are those of the whole images,
        /// wherever DRAM lies (at the top of the address space too) and whatever the limit.
        #[test]
        fn memory_changes_are_those_of_the_whole_images(
            first_writes in writes(),
            this_writes in writes(),
            same in prop::collection::vec((0..6usize, 0..PAGE, 1..=255u8), 0..10),
            scratchpads in (scratchpad(), scratchpad()),
            top in any::<bool>(),
            limit in 1..12usize,
        ) {
            let base = if top { 0u32.wrapping_sub(6 * PAGE as u32) } else { 0x8000_0000 };
            let (first, x) = memory(base, 6, &[&same[..], &first_writes].concat(), scratchpads.0);
            let (this, y) = memory(base, 6, &[&same[..], &this_writes].concat(), scratchpads.1);
            let changes = memory_changes(&first, &this, limit);
            prop_assert!(changes.0.len() <= limit, "{} runs shown, limit {}", changes.0.len(), limit);
            prop_assert_eq!(changes, from_whole_images(&x, &y, base, &first, &this, limit));
        }
    }
}
