//! Test support: legal event streams built from a CPU program and an engine schedule, and
//! the comparison of the fast detector with the reference.

#![allow(dead_code)] // Each test binary uses its own part of this module.

pub mod strategies;

use std::collections::{BTreeMap, BTreeSet};

use mxpsim_detector::event::{
    Access, CacheGeometry, CacheOp, DmaDir, Event, Origin, Pos, Range, Request, Scope, Space, WriteBack,
};
use mxpsim_detector::fast::FastDetector;
use mxpsim_detector::interlock::{interlocked, EngineOp};
use mxpsim_detector::node::{NodeId, NodeKind};
use mxpsim_detector::reference::{Analysis, Reference};
use mxpsim_detector::{Config, Race};

/// What an engine node will do, fixed when it is requested.
#[derive(Clone, Debug)]
pub enum Work {
    Dma { dir: DmaDir, host: Vec<Range>, scratchpad: Vec<Range> },
    Vector { reads: Vec<Range>, writes: Vec<Range> },
}

impl Work {
    fn request(&self) -> Request {
        match self {
            Work::Dma { dir, .. } => Request::Dma(*dir),
            Work::Vector { .. } => Request::Vector,
        }
    }

    fn is_dma(&self) -> bool {
        matches!(self, Work::Dma { .. })
    }

    fn op(&self) -> EngineOp<'_> {
        match self {
            Work::Dma { dir, scratchpad, .. } => EngineOp::Dma { dir: *dir, scratchpad },
            Work::Vector { reads, writes } => EngineOp::Vector { reads, writes },
        }
    }

    fn event(&self, request: Pos) -> Event {
        match self.clone() {
            Work::Dma { dir, host, scratchpad } => Event::Dma { request, dir, host, scratchpad, cycle: 0 },
            Work::Vector { reads, writes } => Event::Vector { request, insn: 0, a_reads: 0, reads, writes, cycle: 0 },
        }
    }
}

/// One CPU step of a test program (`pc` names its site).
#[derive(Clone, Debug)]
pub enum Step {
    Direct { space: Space, access: Access, range: Range, pc: u32 },
    Cached { access: Access, range: Range, pc: u32 },
    Maintain { op: CacheOp, scope: Scope },
    Request { work: Work, pc: u32 },
    Sync,
}

/// Interleaves the engine nodes into the CPU program, as a legal engine could: each after
/// its request, before the next sync, in queue order, and after every earlier op of the
/// other queue it is interlocked with. Before each CPU step, `schedule` says how many
/// ready engine nodes run (and which); the stream may end with requests still pending.
pub fn stream(program: &[Step], schedule: &[u8]) -> Vec<Event> {
    let mut decisions = schedule.iter().copied().chain(std::iter::repeat(0));
    let mut events = Vec::new();
    let mut pending: Vec<(Pos, Work)> = Vec::new();
    let mut pos: Pos = 0;
    let run = |count: usize, pending: &mut Vec<(Pos, Work)>, events: &mut Vec<Event>, pick: u8| {
        for _ in 0..count {
            let ready: Vec<usize> = (0..pending.len())
                .filter(|&i| {
                    let (_, work) = &pending[i];
                    pending[..i]
                        .iter()
                        .all(|(_, earlier)| earlier.is_dma() != work.is_dma() && !interlocked(earlier.op(), work.op()))
                })
                .collect();
            if ready.is_empty() {
                return;
            }
            let (request, work) = pending.remove(ready[pick as usize % ready.len()]);
            events.push(work.event(request));
        }
    };
    for step in program {
        let d = decisions.next().unwrap_or(0);
        run((d % 4) as usize, &mut pending, &mut events, d / 4);
        pos += 1;
        let origin = |pc| Origin { pc, cycle: pos, ctx: 0 };
        let event = match step {
            Step::Direct { space, access, range, pc } => {
                Event::CpuAccess { space: *space, access: *access, range: *range, origin: origin(*pc) }
            }
            Step::Cached { access, range, pc } => Event::Cached { access: *access, range: *range, origin: origin(*pc) },
            Step::Maintain { op, scope } => Event::CacheMaintenance { op: *op, scope: *scope, origin: origin(0) },
            Step::Request { work, pc } => {
                pending.push((pos, work.clone()));
                Event::Request { request: work.request(), origin: origin(*pc) }
            }
            Step::Sync => {
                run(usize::MAX, &mut pending, &mut events, 0);
                Event::Sync { origin: origin(0) }
            }
        };
        events.push(event);
    }
    events
}

pub fn config(line_size: u32, write_back: WriteBack, cpu_uncached_vs_cache: bool) -> Config {
    Config { geometry: CacheGeometry { line_size, write_back }, cpu_uncached_vs_cache }
}

/// Runs the fast detector over a legal stream.
pub fn fast_races(config: Config, events: &[Event]) -> Vec<Race> {
    let mut fast = FastDetector::new(config).expect("valid config");
    let mut races = Vec::new();
    for event in events {
        fast.observe(event).expect("legal stream");
        races.extend(fast.drain_races());
    }
    races
}

pub fn reference(config: Config, events: &[Event]) -> Analysis {
    let mut reference = Reference::new(config);
    for event in events {
        reference.observe(event).expect("legal stream");
    }
    reference.analyse()
}

/// A racing pair on one byte: (node, node, space, byte), nodes in order.
pub type Triple = (NodeId, NodeId, Space, u32);

fn bytes_of(ranges: &[Range]) -> impl Iterator<Item = u32> + '_ {
    ranges.iter().flat_map(|r| r.start..(r.end() as u32))
}

pub fn fast_triples(races: &[Race]) -> BTreeSet<Triple> {
    races.iter().flat_map(|r| bytes_of(&r.bytes).map(move |x| (r.a.id, r.b.id, r.space, x))).collect()
}

pub fn reference_triples(analysis: &Analysis) -> BTreeSet<Triple> {
    analysis.races().iter().flat_map(|r| bytes_of(&r.bytes).map(move |x| (r.a, r.b, r.space, x))).collect()
}

/// True when `fast` may stand for `original` in a race (see the `fast` module doc): the same
/// node; a cache node of the same kind, line and epoch; or a writer of the same kind that
/// `original` happens before.
fn represents(analysis: &Analysis, fast: NodeId, original: NodeId) -> bool {
    if fast == original {
        return true;
    }
    if fast.kind != original.kind {
        return false;
    }
    match fast.kind {
        NodeKind::Alloc | NodeKind::WriteBack => {
            fast.line == original.line && analysis.cache_epoch(fast) == analysis.cache_epoch(original)
        }
        NodeKind::DmaToHost | NodeKind::CpuUncachedWrite => analysis.happens_before(original, fast),
        _ => false,
    }
}

/// For each CPU access (by position), what decides whether the fast detector's CPU log may
/// join it to an earlier access: its instruction and the number of requests before it.
fn join_keys(events: &[Event]) -> BTreeMap<Pos, (u32, usize)> {
    let (mut pos, mut requests, mut keys) = (0, 0, BTreeMap::new());
    for event in events {
        match event {
            Event::Dma { .. } | Event::Vector { .. } => continue,
            Event::Request { .. } => requests += 1,
            Event::CpuAccess { origin, .. } => {
                keys.insert(pos + 1, (origin.pc, requests));
            }
            _ => {}
        }
        pos += 1;
    }
    keys
}

/// True when the CPU log may have joined the access `original` to the entry of `fast` (see
/// `src/fast/cpu_log.rs`): the same kind and instruction, `fast` first, no request between.
fn joins(keys: &BTreeMap<Pos, (u32, usize)>, fast: NodeId, original: NodeId) -> bool {
    fast == original
        || (fast.kind == original.kind
            && fast.pos <= original.pos
            && keys.get(&fast.pos).is_some()
            && keys.get(&fast.pos) == keys.get(&original.pos))
}

/// The equivalence the fast detector promises. Returns a description of the first
/// violation.
pub fn check_equivalence(config: Config, events: &[Event]) -> Result<(), String> {
    let analysis = reference(config, events);
    let fast = fast_races(config, events);
    let fast_set = fast_triples(&fast);
    let reference_set = reference_triples(&analysis);
    let keys = join_keys(events);
    let mut reference_by_byte: BTreeMap<(Space, u32), Vec<(NodeId, NodeId)>> = BTreeMap::new();
    for &(a, b, space, x) in &reference_set {
        reference_by_byte.entry((space, x)).or_default().push((a, b));
    }
    for &(fa, fb, space, x) in fast_set.difference(&reference_set) {
        // Reported for a joined access: the reference has the race with the access itself.
        let stands_for_one = reference_by_byte.get(&(space, x)).is_some_and(|pairs| {
            pairs.iter().any(|&(a, b)| {
                (joins(&keys, fa, a) && joins(&keys, fb, b)) || (joins(&keys, fa, b) && joins(&keys, fb, a))
            })
        });
        if !stands_for_one {
            return Err(format!("fast reports a race the reference does not: {:?}", (fa, fb, space, x)));
        }
    }
    let mut by_byte: BTreeMap<(Space, u32), Vec<(NodeId, NodeId)>> = BTreeMap::new();
    for &(a, b, space, x) in &fast_set {
        by_byte.entry((space, x)).or_default().push((a, b));
    }
    let stands = |fast: NodeId, original: NodeId| represents(&analysis, fast, original) || joins(&keys, fast, original);
    for &(a, b, space, x) in &reference_set {
        let covered = by_byte.get(&(space, x)).is_some_and(|pairs| {
            pairs.iter().any(|&(fa, fb)| (stands(fa, a) && stands(fb, b)) || (stands(fa, b) && stands(fb, a)))
        });
        if !covered {
            return Err(format!("fast misses a race: {:?}", (a, b, space, x)));
        }
    }
    Ok(())
}
