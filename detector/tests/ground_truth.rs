//! Ground truth (`race-semantics.md` §4): for small programs, run a concrete machine under
//! *every* cache behaviour and engine timing the model allows, and check that every program
//! whose outcome can differ between two such schedules is reported by the detector.
//!
//! # The concrete machine
//!
//! * **Memory**: 8 bytes of DRAM (two cache lines of 4 bytes at [`BASE`]) and 4 bytes of
//!   scratchpad, each byte with a distinct initial value. Every store writes values unique
//!   to its site (`0x80 | site << 2 | byte`), so a lost or reordered write changes the
//!   outcome.
//! * **Cache** (line size 4, write-back granularity `Line` or `DirtyBytes`): per line the
//!   cached data, a mask of present bytes and a mask of dirty bytes. CPU cached loads need
//!   their bytes present and return the cached data; cached stores write the cache only
//!   (write-back), setting the bytes dirty. With whole-line write-back the cache is
//!   write-allocate: a store needs the whole line present, since a write-back writes all of
//!   it. With dirty-byte write-back a store needs nothing present (write-validate).
//! * **The model's freedom for the cache**, as floating actions that may fire between any
//!   two steps of the CPU:
//!   * *fetch* (`alloc`, §2.7: "the line may have been fetched, or prefetched, at any time
//!     since it was last invalidated"): copy DRAM into the line's non-dirty bytes and make
//!     the whole line present. A line can be fetched again at any time, which is the same as
//!     a silent eviction followed by a later fetch, so a read sees DRAM as it was at any
//!     moment since the line's last flush/inval (not clean: a clean keeps the line valid).
//!     With whole-line write-back a line is only fetched while clean (such a cache cannot
//!     merge a fetch under dirty bytes; it must write back first, which is also allowed).
//!   * *write-back* (`wb`, §2.6): a dirty line may be written back at any time; it writes
//!     the whole line (`Line`) or only its dirty bytes (`DirtyBytes`), and makes it clean.
//!     `clean`, `flush` and `inval` of a line (or of all lines) can only run once the line
//!     is clean, i.e. the write-back happened *before* its successor, as §2.6 orders it;
//!     flush/inval then drop the line.
//!   * Consequently the only CPU-visible events of the cache are DRAM reads at any moment
//!     within `[last flush/inval, load]` and DRAM writes at any moment within
//!     `[store, next clean/flush/inval]`: the intervals of §3, nothing more and nothing less.
//! * **Engine** (§2.2–2.5): a DMA (to scratchpad: DRAM → scratchpad; to host: scratchpad →
//!   DRAM) or vector op (`dst[i] = src[i] + 0x40` on the scratchpad) runs atomically at any
//!   moment after its request and before the next `sync` (or the end), DMA in FIFO order,
//!   vector ops in program order, and a later op never before an earlier one the interlocks
//!   (`mxpsim_detector::interlock::interlocked`, the one shared definition) make it wait
//!   for. Several ops may be in flight at once. `sync` waits for all of them.
//! * **Uncached** CPU loads/stores go straight to DRAM and scratchpad accesses straight to
//!   the scratchpad: nothing is coherent.
//! * **End of the program**: every pending engine op completes and every dirty line is
//!   written back ("the data will eventually be written back", paper §3.2), in any order
//!   with each other. Otherwise a write that is never cleaned would make almost every program
//!   nondeterministic without any race.
//! * **Outcome** = (every value loaded, in program order; final DRAM; final scratchpad).
//!
//! The enumerator explores the whole reachable state graph (a DFS with a visited set, so it
//! covers every interleaving of the floating actions with the CPU steps and with each
//! other), stopping as soon as two different outcomes are found.
//!
//! # The property
//!
//! The event stream of the program (CPU events in program order, each engine node placed
//! right before the `sync` that follows its request, or at the end, in request order, which
//! is always legal) is fed to [`Detector`] with `cpu_uncached_vs_cache` on (the machine has
//! uncached-vs-cache nondeterminism, which §2 reports only with that option). Then:
//! **outcomes differ ⇒ at least one race**. The converse is not required: a reported race
//! whose schedules all give the same outcome is benign (counted, not failed). The stream is
//! also fed with every engine node right after its request (the other extreme of legal
//! timing), and whether any race is reported must be the same both ways.
//!
//! Sensitivity of the oracle: with `cpu_uncached_vs_cache` off the check fails at once on
//! `cached store; uncached load` of the same byte (the two loaded values differ, the option
//! is what reports it), so the enumeration does find what the detector must catch.
//!
//! # What is deliberately outside the property (and counted or shown separately)
//!
//! * **`inval` discarding dirty data.** Real hardware may invalidate a dirty line whose data
//!   never reached DRAM. That makes `store; inval` nondeterministic with a single memory
//!   node and no pair to race, so it is not a race in §1–§2; the model's behaviours have the
//!   `wb` happen before its successor. The main enumeration follows the model;
//!   [`inval_discard_is_not_a_race`] shows the hardware variant.
//! * **Whole-line write-back of stale bytes.** With `WriteBack::Line` a `wb` also writes
//!   the bytes the CPU did not store, with the values of the line's last fetch, which may be
//!   as old as its last flush/inval. A DRAM write (uncached store or DMA to host) after that
//!   fetch and before the cached store is clobbered or not depending on whether the line
//!   stayed cached. race-semantics.md §2 as written misses this (it has no `alloc` for
//!   stores); the detectors implement the extension in `detector/README.md` (under
//!   whole-line write-back a store has an `alloc` too), and
//!   [`line_writeback_of_stale_bytes_is_reported`] pins the minimal programs.
//!
//! # Runs
//!
//! * [`exhaustive_programs`]: every program of 1 to 3 operations over a 26-operation
//!   alphabet (two DRAM bytes of line 0 and one of line 1, one scratchpad byte, all
//!   maintenance ops on line 0 plus flush-all, both DMA directions, two vector ops, sync),
//!   and every program of 4 operations over a 13-operation one centred on one line (cached
//!   and uncached accesses to two of its bytes, its three maintenance ops, a DMA each way, a
//!   vector op, a scratchpad store, sync), for both granularities. `GT_DEPTH=4` extends the
//!   26-operation alphabet to every program of 4 (about a minute).
//! * [`random_programs`]: `GT_CASES` (default 30000) random programs of 2 to 8 operations
//!   over every 1-, 2- and 4-byte aligned range, both lines, all-lines maintenance, for both
//!   granularities; seed `GT_SEED`.
//!
//! A failure prints the program, shrunk by deleting operations while it still fails, and its
//! event stream.

#[path = "ground_truth/machine.rs"]
mod machine;

use std::time::Instant;

use machine::*;

use mxpsim_detector::event::{
    Access, CacheGeometry, CacheOp, DmaDir, Event, Origin, Pos, Request, Scope, Space, WriteBack,
};
use mxpsim_detector::reference::Reference;
use mxpsim_detector::{Config, Detector};

// ---------------------------------------------------------------------------------------
// The event stream and the detector
// ---------------------------------------------------------------------------------------

fn origin(i: usize) -> Origin {
    Origin { pc: 0x100 + 4 * i as u32, cycle: i as u64, ctx: 0 }
}

/// Where engine nodes go in the stream (both legal; the verdict must not depend on it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Placement {
    /// Right before the sync that follows the request (or at the end), in request order.
    Late,
    /// Right after the request.
    Early,
}

/// CPU events in program order; each engine node placed per `placement`.
fn events(prog: &[Op]) -> Vec<Event> {
    events_placed(prog, Placement::Late)
}

fn events_placed(prog: &[Op], placement: Placement) -> Vec<Event> {
    let mut out = Vec::new();
    let mut pending: Vec<(Pos, Op)> = Vec::new();
    let flush = |out: &mut Vec<Event>, pending: &mut Vec<(Pos, Op)>| {
        for (request, op) in pending.drain(..) {
            out.push(match op {
                Op::Dma(dir, h, p, n) => Event::Dma {
                    request,
                    dir,
                    host: vec![dram_range(h, n)],
                    scratchpad: vec![sp_range(p, n)],
                    cycle: 0,
                },
                Op::Vector(src, dst, n) => Event::Vector {
                    request,
                    insn: 0,
                    a_reads: 1,
                    reads: vec![sp_range(src, n)],
                    writes: vec![sp_range(dst, n)],
                    cycle: 0,
                },
                _ => unreachable!(),
            });
        }
    };
    for (i, &op) in prog.iter().enumerate() {
        let pos = i as Pos + 1;
        let origin = origin(i);
        let event = match op {
            Op::Cached(access, off, len) => Event::Cached { access, range: dram_range(off, len), origin },
            Op::Uncached(access, off, len) => {
                Event::CpuAccess { space: Space::Dram, access, range: dram_range(off, len), origin }
            }
            Op::Sp(access, off, len) => {
                Event::CpuAccess { space: Space::Scratchpad, access, range: sp_range(off, len), origin }
            }
            Op::Maint(op, scope) => {
                let scope = match scope {
                    Some(l) => Scope::Line(BASE + (l as usize * LINE) as u32),
                    None => Scope::All,
                };
                Event::CacheMaintenance { op, scope, origin }
            }
            Op::Dma(dir, ..) => {
                pending.push((pos, op));
                Event::Request { request: Request::Dma(dir), origin }
            }
            Op::Vector(..) => {
                pending.push((pos, op));
                Event::Request { request: Request::Vector, origin }
            }
            Op::Sync => {
                flush(&mut out, &mut pending);
                Event::Sync { origin }
            }
        };
        out.push(event);
        if placement == Placement::Early {
            flush(&mut out, &mut pending);
        }
    }
    flush(&mut out, &mut pending);
    out
}

fn config(write_back: WriteBack) -> Config {
    Config { geometry: CacheGeometry { line_size: LINE as u32, write_back }, cpu_uncached_vs_cache: true }
}

/// The detector's report on the program (engine nodes as late as legal): `Some(text)` if it
/// found races. Also runs the stream with engine nodes as early as legal and fails if the
/// verdict changes (it must not depend on engine timing).
fn detect(prog: &[Op], write_back: WriteBack) -> Option<String> {
    let run = |placement| {
        let mut detector = Detector::new(config(write_back)).expect("line size 4 is accepted");
        for event in events_placed(prog, placement) {
            detector.observe(&event).unwrap_or_else(|e| panic!("illegal stream for {prog:?}: {e}"));
        }
        let report = detector.finish();
        (!report.is_empty()).then(|| format!("{report:#?}"))
    };
    let late = run(Placement::Late);
    let early = run(Placement::Early);
    assert_eq!(
        late.is_some(),
        early.is_some(),
        "the verdict depends on where engine nodes are placed: {write_back:?} {prog:?}\nlate: {late:?}\nearly: {early:?}"
    );
    late
}

// ---------------------------------------------------------------------------------------
// Checking and shrinking
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Deterministic, no race reported.
    Quiet,
    /// Outcomes differ, race reported.
    Caught,
    /// Race reported, every schedule gives the same outcome.
    Benign,
    /// Outcomes differ, no race reported.
    Missed,
}

fn verdict(prog: &[Op], write_back: WriteBack) -> Verdict {
    let reported = detect(prog, write_back).is_some();
    let differ = outcomes_differ(prog, Semantics::model(write_back));
    match (differ, reported) {
        (false, false) => Verdict::Quiet,
        (true, true) => Verdict::Caught,
        (false, true) => Verdict::Benign,
        (true, false) => Verdict::Missed,
    }
}

/// Deletes operations while the program keeps the verdict `v`.
fn shrink(prog: &[Op], write_back: WriteBack, v: Verdict) -> Vec<Op> {
    let mut prog = prog.to_vec();
    'outer: loop {
        for i in 0..prog.len() {
            let mut smaller = prog.clone();
            smaller.remove(i);
            if !smaller.is_empty() && verdict(&smaller, write_back) == v {
                prog = smaller;
                continue 'outer;
            }
        }
        return prog;
    }
}

fn describe(prog: &[Op], write_back: WriteBack) -> String {
    let mut s = format!("write-back {write_back:?}, line size {LINE}, program {prog:?}\nevent stream:\n");
    for e in events(prog) {
        s += &format!("  {e:?}\n");
    }
    let mut reference = Reference::new(config(write_back));
    for e in events(prog) {
        reference.observe(&e).expect("legal stream");
    }
    let races = reference.analyse().races().len();
    s += &format!("reference graph (§1–§2 literally): {races} race(s)\n");
    let outs = Machine::new(prog, Semantics::model(write_back)).outcomes(usize::MAX);
    s += &format!("{} distinct outcomes (loaded bytes; DRAM; scratchpad):\n", outs.len());
    for (loaded, n, dram, sp) in outs.iter().take(8) {
        s += &format!("  {:02x?}; {dram:02x?}; {sp:02x?}\n", &loaded[..*n as usize]);
    }
    s
}

#[derive(Debug, Default)]
struct Stats {
    programs: u64,
    quiet: u64,
    caught: u64,
    benign: u64,
    missed: u64,
    first_miss: Option<Vec<Op>>,
}

impl Stats {
    fn add(&mut self, prog: &[Op], write_back: WriteBack) {
        self.programs += 1;
        match verdict(prog, write_back) {
            Verdict::Quiet => self.quiet += 1,
            Verdict::Caught => self.caught += 1,
            Verdict::Benign => self.benign += 1,
            Verdict::Missed => {
                self.missed += 1;
                if self.first_miss.is_none() {
                    self.first_miss = Some(prog.to_vec());
                }
            }
        }
    }

    fn conclude(&self, name: &str, write_back: WriteBack, started: Instant) {
        eprintln!(
            "{name} {write_back:?}: {} programs in {:.1?}: {} deterministic and silent, {} nondeterministic and \
             reported, {} reported but deterministic (benign), {} missed",
            self.programs,
            started.elapsed(),
            self.quiet,
            self.caught,
            self.benign,
            self.missed
        );
        if let Some(prog) = &self.first_miss {
            let small = shrink(prog, write_back, Verdict::Missed);
            panic!("outcomes differ but no race is reported (shrunk):\n{}", describe(&small, write_back));
        }
        // The oracle must see both kinds of program, or the check is vacuous.
        assert!(self.caught > 0 && self.quiet > 0, "degenerate generator: {self:?}");
    }
}

// ---------------------------------------------------------------------------------------
// Generators
// ---------------------------------------------------------------------------------------

/// 13 operations around line 0, for every program of 4.
fn small_alphabet() -> Vec<Op> {
    use Access::*;
    vec![
        Op::Cached(Read, 0, 1),
        Op::Cached(Write, 0, 1),
        Op::Cached(Write, 1, 1),
        Op::Uncached(Read, 1, 1),
        Op::Uncached(Write, 1, 1),
        Op::Maint(CacheOp::Clean, Some(0)),
        Op::Maint(CacheOp::Flush, Some(0)),
        Op::Maint(CacheOp::Inval, Some(0)),
        Op::Dma(DmaDir::ToScratchpad, 0, 0, 1),
        Op::Dma(DmaDir::ToHost, 1, 0, 1),
        Op::Vector(1, 0, 1),
        Op::Sp(Write, 0, 1),
        Op::Sync,
    ]
}

fn alphabet() -> Vec<Op> {
    use Access::*;
    let dram = [(0u8, 1u8), (1, 1), (4, 1)];
    let mut ops = Vec::new();
    for &(o, n) in &dram {
        for a in [Read, Write] {
            ops.push(Op::Cached(a, o, n));
            ops.push(Op::Uncached(a, o, n));
        }
    }
    ops.push(Op::Sp(Read, 0, 1));
    ops.push(Op::Sp(Write, 0, 1));
    for c in [CacheOp::Clean, CacheOp::Flush, CacheOp::Inval] {
        ops.push(Op::Maint(c, Some(0)));
    }
    ops.push(Op::Maint(CacheOp::Flush, None));
    for dir in [DmaDir::ToScratchpad, DmaDir::ToHost] {
        ops.push(Op::Dma(dir, 0, 0, 1));
        ops.push(Op::Dma(dir, 4, 0, 1));
    }
    ops.push(Op::Vector(0, 1, 1));
    ops.push(Op::Vector(1, 0, 1));
    ops.push(Op::Sync);
    ops
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

/// Calls `f` on every program of exactly `len` operations over `ops`.
fn every_program(ops: &[Op], len: usize, prog: &mut Vec<Op>, f: &mut dyn FnMut(&[Op])) {
    if prog.len() == len {
        return f(prog);
    }
    for &op in ops {
        prog.push(op);
        every_program(ops, len, prog, f);
        prog.pop();
    }
}

#[test]
fn exhaustive_programs() {
    let (large, small) = (alphabet(), small_alphabet());
    let depth: usize = std::env::var("GT_DEPTH").ok().and_then(|v| v.parse().ok()).unwrap_or(3);
    for write_back in [WriteBack::Line, WriteBack::DirtyBytes] {
        let started = Instant::now();
        let mut stats = Stats::default();
        for len in 1..=depth {
            every_program(&large, len, &mut Vec::new(), &mut |p| stats.add(p, write_back));
        }
        every_program(&small, 4, &mut Vec::new(), &mut |p| stats.add(p, write_back));
        stats.conclude(&format!("exhaustive (1-{depth} of 26 ops, 4 of 13)"), write_back, started);
    }
}

#[test]
fn random_programs() {
    let cases: u64 = std::env::var("GT_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(30_000);
    let seed: u64 = std::env::var("GT_SEED").ok().and_then(|v| v.parse().ok()).unwrap_or(0x5eed_cafe_f00d_0001);
    for write_back in [WriteBack::Line, WriteBack::DirtyBytes] {
        let started = Instant::now();
        let mut rng = Rng(seed | 1);
        let mut stats = Stats::default();
        for _ in 0..cases {
            let len = 2 + rng.below(7) as usize;
            let prog: Vec<Op> = (0..len).map(|_| rng.op()).collect();
            stats.add(&prog, write_back);
        }
        stats.conclude(&format!("random (2-8 ops, seed {seed:#x})"), write_back, started);
    }
}

/// The oracle itself: a known race is nondeterministic, its synchronised twin is not.
#[test]
fn oracle_sanity() {
    use Access::*;
    for wb in [WriteBack::Line, WriteBack::DirtyBytes] {
        let sem = Semantics::model(wb);
        // DMA to host vs an uncached read before the sync.
        let racy = [Op::Dma(DmaDir::ToHost, 0, 0, 1), Op::Uncached(Read, 0, 1), Op::Sync];
        let fixed = [Op::Dma(DmaDir::ToHost, 0, 0, 1), Op::Sync, Op::Uncached(Read, 0, 1)];
        assert!(outcomes_differ(&racy, sem) && detect(&racy, wb).is_some());
        assert!(!outcomes_differ(&fixed, sem) && detect(&fixed, wb).is_none());
        // Stale line: read, DMA into DRAM, read again without invalidating.
        let stale = [Op::Cached(Read, 0, 1), Op::Dma(DmaDir::ToHost, 0, 0, 1), Op::Sync, Op::Cached(Read, 0, 1)];
        let fixed = [
            Op::Cached(Read, 0, 1),
            Op::Dma(DmaDir::ToHost, 0, 0, 1),
            Op::Sync,
            Op::Maint(CacheOp::Inval, Some(0)),
            Op::Cached(Read, 0, 1),
        ];
        assert!(outcomes_differ(&stale, sem) && detect(&stale, wb).is_some());
        assert!(!outcomes_differ(&fixed, sem) && detect(&fixed, wb).is_none());
        // A dirty line written back under a DMA reading DRAM.
        let wb_race = [Op::Cached(Write, 0, 1), Op::Dma(DmaDir::ToScratchpad, 0, 0, 1), Op::Sync];
        let fixed = [
            Op::Cached(Write, 0, 1),
            Op::Maint(CacheOp::Clean, Some(0)),
            Op::Dma(DmaDir::ToScratchpad, 0, 0, 1),
            Op::Sync,
        ];
        assert!(outcomes_differ(&wb_race, sem) && detect(&wb_race, wb).is_some());
        assert!(!outcomes_differ(&fixed, sem) && detect(&fixed, wb).is_none());
    }
    // Granularity matters: a store to byte 0 and a DMA to host of byte 1 of the same line.
    let shared = [Op::Cached(Write, 0, 1), Op::Dma(DmaDir::ToHost, 1, 0, 1), Op::Sync];
    assert!(outcomes_differ(&shared, Semantics::model(WriteBack::Line)));
    assert!(detect(&shared, WriteBack::Line).is_some());
    assert!(!outcomes_differ(&shared, Semantics::model(WriteBack::DirtyBytes)));
    assert!(detect(&shared, WriteBack::DirtyBytes).is_none());
}

/// Hardware `inval` may drop dirty data: `store; inval` is then nondeterministic with no
/// pair of nodes to race (one `wb` that may or may not happen). Not a race in §1–§2, and not
/// reported; the model's behaviours (write-back before its successor) make it deterministic.
#[test]
fn inval_discard_is_not_a_race() {
    let prog = [Op::Cached(Access::Write, 0, 1), Op::Maint(CacheOp::Inval, Some(0))];
    for wb in [WriteBack::Line, WriteBack::DirtyBytes] {
        assert!(outcomes_differ(&prog, Semantics { inval_discards: true, ..Semantics::model(wb) }));
        assert!(!outcomes_differ(&prog, Semantics::model(wb)));
        assert!(detect(&prog, wb).is_none());
    }
}

/// Whole-line write-back of stale bytes (see the module documentation): a line fetched
/// before a DMA to host writes one of its bytes, then a cached store to another byte of it
/// after the sync. If the line stayed cached, its write-back puts the stale byte back over
/// the DMA's result; if it was evicted and refetched for the store, the DMA's result
/// survives. §2 as written orders the DMA before the `wb` (DMA → sync → store → `wb`) and has
/// no `alloc` for the store; the store's `alloc` of the extension (`detector/README.md`)
/// races with the DMA. The outcomes differ only through the stale fetch (`fresh_on_store`
/// removes it) and only under whole-line write-back.
///
/// The shortest form needs no read and no DMA, only the model's prefetch freedom and the
/// footnote-5 option: `uncached store byte 0; cached store byte 1` (the line prefetched
/// before the uncached store, written back whole after the cached one).
#[test]
fn line_writeback_of_stale_bytes_is_reported() {
    use Access::*;
    let dma = [Op::Cached(Read, 0, 1), Op::Dma(DmaDir::ToHost, 1, 0, 1), Op::Sync, Op::Cached(Write, 0, 1)];
    let uncached = [Op::Uncached(Write, 0, 1), Op::Cached(Write, 1, 1)];
    let mut missed = Vec::new();
    for prog in [&dma[..], &uncached[..]] {
        assert!(outcomes_differ(prog, Semantics::model(WriteBack::Line)));
        let fresh = Semantics { fresh_on_store: true, ..Semantics::model(WriteBack::Line) };
        assert!(!outcomes_differ(prog, fresh));
        assert!(!outcomes_differ(prog, Semantics::model(WriteBack::DirtyBytes)));
        if detect(prog, WriteBack::Line).is_none() {
            missed.push(describe(prog, WriteBack::Line));
        }
    }
    assert!(missed.is_empty(), "outcomes differ, no race reported:\n{}", missed.join("\n"));
}
