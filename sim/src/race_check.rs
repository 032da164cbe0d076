//! `--race-check`: the race detector as an event sink, plus the few facts reports need that
//! the detector does not keep: where each ordering node (sync, maintenance, request) was,
//! and for a race with a cache node, the CPU access behind it (for a write-back, the last
//! store to its line before the other side).

use crate::access_log::{AccessLog, Logged};
use mxpsim_detector::event::{Access, CacheOp, Event, Origin, Pos, Range, Request, Scope, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::race::RaceKey;
use mxpsim_detector::{Config, ConfigError, Detector, Report, StreamError};
use mxpsim_models::events::{EventSink, Quiet, QuietFields};
use std::collections::{BTreeMap, BTreeSet};
use std::mem::offset_of;

/// An ordering-only CPU node, by what a report says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Landmark {
    Maintenance { op: CacheOp, scope: Scope, origin: Origin },
    Request { request: Request, origin: Origin },
    Sync { origin: Origin },
}

/// What the access log knew of a race's cache side when the race was found.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheSide {
    /// The bytes of the access that created the node (the read of an `alloc`, the store of
    /// a `wb`).
    pub own: Option<Range>,
    /// For a `wb`: the last store to the line before the other side's start.
    pub last_store: Option<Logged>,
}

/// A race's vector side: the instruction and which of its operands hold racing bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VectorSide {
    /// The instruction's word 0 (opcode and mode).
    pub insn: u32,
    pub a: bool,
    pub b: bool,
    pub d: bool,
}

/// What a race check found.
pub struct Findings {
    pub report: Report,
    /// Ordering nodes by CPU position.
    pub landmarks: BTreeMap<Pos, Landmark>,
    /// For each distinct race (its first occurrence) with a cache side: what the access log
    /// knew of it when the race was found.
    pub cache_sides: BTreeMap<RaceKey, CacheSide>,
    /// For each distinct race (its first occurrence) with a vector side: its instruction
    /// and operands.
    pub vector_sides: BTreeMap<RaceKey, VectorSide>,
    /// Events that broke the stream's contract (a simulator bug if ever non-zero).
    pub stream_errors: u64,
    pub first_stream_error: Option<StreamError>,
    /// The cache line size the check assumed.
    pub line_size: u32,
    /// CPU nodes that are the write half of an atomic read-modify-write (an AMO: a read and a
    /// write of one origin, consecutive): nothing may come between it and the node before.
    pub second_halves: BTreeSet<Pos>,
    /// Events observed.
    pub events: u64,
}

pub struct RaceCheck {
    detector: Detector,
    line_size: u32,
    halt_on_race: bool,
    /// A race was found, and the run halts at the first (one flag: it is read after every
    /// CPU access).
    halting: bool,
    /// Events observed other than cached accesses, and the CPU positions they took: the
    /// cached accesses are the rest of the positions (so that one taken inline needs no
    /// count of its own).
    other_events: u64,
    other_positions: Pos,
    landmarks: BTreeMap<Pos, Landmark>,
    accesses: AccessLog,
    cache_sides: BTreeMap<RaceKey, CacheSide>,
    /// The vector nodes (`Event::Vector`) since the last sync, in arrival order: after the
    /// sync nothing new can race with them.
    vectors: Vec<Event>,
    vector_sides: BTreeMap<RaceKey, VectorSide>,
    stream_errors: u64,
    first_stream_error: Option<StreamError>,
    /// The last CPU read `cached` was called for: its position (0: none) and origin (an
    /// AMO's write follows it at once; a read taken inline by the quiet case is not noted,
    /// and takes a position, so that no write right after it is taken for an AMO's).
    last_read: (Pos, Origin),
    second_halves: BTreeSet<Pos>,
}

impl RaceCheck {
    pub fn new(config: Config, halt_on_race: bool) -> Result<Self, ConfigError> {
        Ok(RaceCheck {
            line_size: config.geometry.line_size,
            detector: Detector::new(config)?,
            halt_on_race,
            halting: false,
            other_events: 0,
            other_positions: 0,
            landmarks: BTreeMap::new(),
            accesses: AccessLog::new(config.geometry.line_size),
            cache_sides: BTreeMap::new(),
            vectors: Vec::new(),
            vector_sides: BTreeMap::new(),
            stream_errors: 0,
            first_stream_error: None,
            last_read: (0, Origin::default()),
            second_halves: BTreeSet::new(),
        })
    }

    /// The distinct races found so far.
    pub fn races_so_far(&self) -> &mxpsim_detector::race::Report {
        self.detector.report()
    }

    pub fn finish(self) -> Findings {
        let events = self.other_events + self.detector.position() - self.other_positions;
        Findings {
            report: self.detector.finish(),
            landmarks: self.landmarks,
            cache_sides: self.cache_sides,
            vector_sides: self.vector_sides,
            stream_errors: self.stream_errors,
            first_stream_error: self.first_stream_error,
            line_size: self.line_size,
            events,
            second_halves: self.second_halves,
        }
    }

    /// Remembers an ordering node the detector has just placed on the CPU timeline.
    fn note_landmark(&mut self, event: &Event) {
        let landmark = match *event {
            Event::CacheMaintenance { op, scope, origin } => Landmark::Maintenance { op, scope, origin },
            Event::Request { request, origin } => {
                self.accesses.request(self.detector.position());
                Landmark::Request { request, origin }
            }
            Event::Sync { origin } => {
                self.vectors.clear();
                Landmark::Sync { origin }
            }
            _ => return,
        };
        self.landmarks.insert(self.detector.position(), landmark);
    }

    /// Notes an access's position and origin: a write right after a read of the same origin
    /// is an AMO's second half.
    #[inline(always)]
    fn note_half(&mut self, access: Access, origin: Origin, pos: Pos) {
        match access {
            Access::Read => self.last_read = (pos, origin),
            // (The position first: it alone rules out nearly every write. Position 0 is no
            // read, whatever the origin.)
            Access::Write if self.last_read.0 == pos - 1 && self.last_read.0 != 0 && self.last_read.1 == origin => {
                self.note_second_half(pos)
            }
            Access::Write => {}
        }
    }

    /// Rare (AMOs), and kept out of the paths of every store.
    #[cold]
    #[inline(never)]
    fn note_second_half(&mut self, pos: Pos) {
        self.second_halves.insert(pos);
    }

    /// Notes a cached access's half of an AMO (at CPU position `pos`); a store is logged.
    #[inline(always)]
    fn note_cached(&mut self, access: Access, range: Range, origin: Origin, pos: Pos) {
        self.note_half(access, origin, pos);
        if access == Access::Write {
            self.accesses.store(range, pos, origin);
        }
    }

    /// A store the detector's quiet filter has taken (to a dirty line under whole-line
    /// write-back: it changes nothing but the position): only noted. Out of line, and
    /// apart from `cached_in_full`, whose prologue and checks were half of a store's cost.
    #[inline(never)]
    fn quiet_store(&mut self, range: Range, origin: Origin) {
        self.note_cached(Access::Write, range, origin, self.detector.position());
    }

    /// A cached access that `EventSink::cached` does not take inline (a store or a read the
    /// quiet filter does not cover): noted, then observed in full. Out of line: the memory
    /// system makes events at every load and store form, and the inlined copies are the
    /// interpreter's loop.
    #[inline(never)]
    fn cached_in_full(&mut self, access: Access, range: Range, origin: Origin) {
        let pos = self.detector.position() + 1;
        self.note_cached(access, range, origin, pos);
        // A read's fill races with an engine node that comes later only if a request whose
        // node has not arrived is pending now (the detector's own rule: a request made later
        // orders the read before its node); a race found at the read itself takes its bytes
        // from the event.
        if access == Access::Read && self.detector.request_pending() {
            self.accesses.read(range, pos);
        }
        let found = self.detector.observe_cached(access, range, origin);
        if found > 0 {
            self.halting = self.halt_on_race;
            self.note_sides(&Event::Cached { access, range, origin });
        }
    }

    /// An access outside the cache that the detector took as quiet
    /// ([`Detector::observe_cpu_quiet`]): it races with nothing and is no landmark, so it is
    /// counted and noted as [`RaceCheck::emit_other`] would, without the event's full
    /// observation (140 host instructions an access, for the 9.6 million uncached loads of
    /// vbw_mtx_xp).
    #[inline]
    fn quiet_cpu_access(&mut self, access: Access, origin: Origin) {
        self.other_events += 1;
        self.other_positions += 1;
        self.note_half(access, origin, self.detector.position());
    }

    #[inline(never)] // Rare next to cached and quiet accesses.
    fn emit_other(&mut self, event: Event) {
        self.other_events += 1;
        if let Event::CpuAccess { access, origin, .. } = event {
            self.note_half(access, origin, self.detector.position() + 1);
        }
        let before = self.detector.position();
        let observed = self.observe(&event);
        self.other_positions += self.detector.position() - before;
        if observed {
            self.note_landmark(&event);
            if let Event::Vector { .. } = event {
                self.vectors.push(event);
            }
        }
    }

    /// Feeds the detector; false if the event broke the stream's contract (and was ignored).
    fn observe(&mut self, event: &Event) -> bool {
        match self.detector.observe(event) {
            Ok(0) => true,
            Ok(_) => {
                self.halting = self.halt_on_race;
                self.note_sides(event);
                true
            }
            Err(e) => {
                self.stream_error(e);
                false
            }
        }
    }

    /// Notes what the detector does not keep of each new distinct race's sides, while it is
    /// still known: for a cache side, the CPU access behind it and, for a write-back, the last
    /// store to its line before the other side's start (what a flush must follow); for a
    /// vector side, the instruction and its racing operands. `current` is the event being
    /// observed.
    #[cold]
    #[inline(never)]
    fn note_sides(&mut self, current: &Event) {
        // A race of a key an earlier one of this event had can only add a vector side
        // (whether one is found depends on the race's bytes): skipped otherwise.
        for (race, &repeated) in self.detector.fresh().iter().zip(self.detector.fresh_repeats()) {
            let is_vector = race.a.id.kind == NodeKind::Vector || race.b.id.kind == NodeKind::Vector;
            if repeated && !is_vector {
                continue;
            }
            // Only the first race of a key counts: it is the one the report keeps.
            let key = race.key();
            let vector_other = match (race.a.id.kind, race.b.id.kind) {
                (NodeKind::Vector, _) => Some((&race.a, race.b.id.kind)),
                (_, NodeKind::Vector) => Some((&race.b, race.a.id.kind)),
                _ => None,
            };
            if let Some((vector, other)) = vector_other.filter(|_| !self.vector_sides.contains_key(&key)) {
                // Against a node that only reads the scratchpad, only D's writes conflict.
                let other_writes = matches!(other, NodeKind::CpuSpWrite | NodeKind::DmaToScratchpad);
                if let Some(side) = self.vector_side(vector.id.pos, &race.bytes, other_writes, current) {
                    self.vector_sides.insert(key, side);
                }
            }
            let (cache, other) = match (race.a.id.kind.is_cache(), race.b.id.kind.is_cache()) {
                (true, false) => (&race.a, &race.b),
                (false, true) => (&race.b, &race.a),
                _ => continue,
            };
            let Some(line) = cache.id.line else { continue };
            if let std::collections::btree_map::Entry::Vacant(e) = self.cache_sides.entry(key) {
                let last_store = match cache.id.kind {
                    NodeKind::WriteBack => {
                        self.accesses.last_store_before(line, other.pred).filter(|s| s.pos >= cache.pred)
                    }
                    _ => None,
                };
                // The node's own access: the one being observed (the latest CPU node), or a
                // logged one (a race found later is with a store, or a read made while a
                // request was pending: both logged).
                let own = match current {
                    Event::Cached { range, .. } if cache.id.pos == self.detector.position() => Some(*range),
                    _ => self.accesses.bytes_at(line, cache.id.pos),
                };
                e.insert(CacheSide { own, last_store });
            }
        }
    }

    /// The vector node of `request` (the event being observed, or one kept since the last
    /// sync) and which of its operands conflict on `bytes` with the other side: its reads
    /// only if the other side writes.
    fn vector_side(&self, request: Pos, bytes: &[Range], other_writes: bool, current: &Event) -> Option<VectorSide> {
        let node = std::iter::once(current).chain(self.vectors.iter().rev()).find_map(|e| match e {
            Event::Vector { request: r, insn, a_reads, reads, writes, .. } if *r == request => {
                Some((*insn, *a_reads, reads, writes))
            }
            _ => None,
        });
        let (insn, a_reads, reads, writes) = node?;
        let touches = |ranges: &[Range]| ranges.iter().any(|r| bytes.iter().any(|b| b.overlaps(*r)));
        let (a, b) = reads.split_at((a_reads as usize).min(reads.len()));
        Some(VectorSide { insn, a: other_writes && touches(a), b: other_writes && touches(b), d: touches(writes) })
    }

    #[cold]
    #[inline(never)]
    fn stream_error(&mut self, e: StreamError) {
        // Counted and summed up once at the end (a damaged trace may hold millions).
        tracing::debug!("race detector: event stream error: {e}");
        self.stream_errors += 1;
        self.first_stream_error.get_or_insert(e);
    }
}

impl EventSink for RaceCheck {
    #[inline]
    fn emit(&mut self, event: Event) {
        match event {
            Event::Cached { access, range, origin } => self.cached(access, range, origin),
            Event::CpuAccess { space, access, range, origin } => self.cpu_access(space, access, range, origin),
            _ => self.emit_other(event),
        }
    }

    /// A CPU access outside the cache: taken as quiet where the detector can
    /// ([`Detector::observe_cpu_quiet`]), without building the event.
    #[inline(always)]
    fn cpu_access(&mut self, space: Space, access: Access, range: Range, origin: Origin) {
        if self.detector.observe_cpu_quiet(space) {
            self.quiet_cpu_access(access, origin);
        } else {
            self.emit_other(Event::CpuAccess { space, access, range, origin });
        }
    }

    /// A cached access (nearly every event): no landmark, and no event built. A read the
    /// detector's quiet filter takes (not logged) is inlined where the hardware makes it; a
    /// write it takes is a call to `quiet_store`; everything else goes to `cached_in_full`.
    /// (Inlining quiet writes with their store to the access log made the interpreter's loop
    /// slower: callgrind, vbw_mtx_median 7.71e9 -> 8.00e9 host instructions. Taking them in
    /// `cached_in_full` cost 94 host instructions per store, `quiet_store` 52:
    /// vbw_mtx_median_argb32's first 6e7 instructions, 6.61e9 -> 6.21e9.)
    #[inline(always)]
    fn cached(&mut self, access: Access, range: Range, origin: Origin) {
        match access {
            // (No read the filter takes needs logging: while a request is pending, the
            // filter is empty.)
            Access::Read if self.detector.observe_quiet(access, range) => {
                mxpsim_detector::invariant!(!self.detector.request_pending());
                self.note_cached(access, range, origin, self.detector.position());
            }
            Access::Write if self.detector.observe_quiet(access, range) => self.quiet_store(range, origin),
            _ => self.cached_in_full(access, range, origin),
        }
    }

    fn position(&self) -> Pos {
        self.detector.position()
    }

    fn wants_halt(&self) -> bool {
        self.halting
    }

    /// The accesses `cached` takes inline, but for a store to a line whose held store is
    /// another's (written out).
    fn quiet(&self) -> Option<Quiet> {
        let at = QuietFields {
            detector: Detector::INLINE_QUIET.within(offset_of!(RaceCheck, detector)),
            held: AccessLog::HELD_STORES.within(offset_of!(RaceCheck, accesses)),
        };
        Some(Quiet { line_shift: self.line_size.trailing_zeros(), at })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mxpsim_detector::event::{CacheGeometry, WriteBack};

    fn checker() -> RaceCheck {
        let geometry = CacheGeometry { line_size: 32, write_back: WriteBack::Line };
        RaceCheck::new(Config { geometry, cpu_uncached_vs_cache: false }, false).unwrap()
    }

    #[test]
    fn a_write_right_after_a_read_of_its_origin_is_a_second_half_and_the_first_event_never() {
        let word = |addr| Range::new(addr, 4);
        let at = Origin::default();
        let mut check = checker();
        // The first event: a write with the origin that "no read yet" is kept with.
        check.cached(Access::Write, word(0x8000_0000), at);
        let amo = Origin { pc: 0x100, cycle: 7, ctx: 0 };
        check.cached(Access::Read, word(0x8000_0040), amo);
        check.cached(Access::Write, word(0x8000_0040), amo);
        // Not after a read of another origin.
        check.cached(Access::Read, word(0x8000_0040), at);
        check.cached(Access::Write, word(0x8000_0040), amo);
        assert_eq!(check.finish().second_halves.into_iter().collect::<Vec<_>>(), vec![3]);
    }

    #[test]
    fn stores_to_a_dirty_line_are_logged_and_counted_as_every_other() {
        let word = |addr| Range::new(addr, 4);
        let at = |pc| Origin { pc, cycle: u64::from(pc), ctx: 0 };
        let line = 0x8000_0040;
        let mut check = checker();
        // The first store starts the line's dirty epoch; the next ones change nothing but
        // the position (the detector's quiet filter takes them).
        check.cached(Access::Write, word(line), at(0x10));
        check.cached(Access::Write, word(line + 4), at(0x14));
        // An AMO on the dirty line: its write is a second half all the same.
        check.cached(Access::Read, word(line + 8), at(0x18));
        check.cached(Access::Write, word(line + 8), at(0x18));
        check.cached(Access::Write, word(line + 12), at(0x1c));
        assert_eq!(check.detector.position(), 5);
        let last = check.accesses.last_store_before(line, 6).unwrap();
        assert_eq!((last.pos, last.origin, last.range), (5, at(0x1c), word(line + 12)));
        assert_eq!(check.accesses.bytes_at(line, 4), None, "not the latest store any more");
        let findings = check.finish();
        assert_eq!(findings.events, 5);
        assert_eq!(findings.second_halves.into_iter().collect::<Vec<_>>(), vec![4]);
    }

    /// A step of a stream for [`the_quiet_case_takes_what_cached_would`].
    #[derive(Clone, Copy, Debug)]
    enum Step {
        /// A cached access of `width` bytes at word `word` (of 8) of line `line` (of 4), by
        /// the instruction at `pc`.
        Cached {
            write: bool,
            line: u32,
            word: u32,
            width: u32,
            pc: u32,
        },
        /// An AMO on a word: its read and its write, one origin.
        Amo {
            line: u32,
            word: u32,
        },
        /// A DMA request over a line (its transfer comes at a `Complete`).
        Request {
            to_host: bool,
            line: u32,
        },
        /// The oldest pending request's transfer.
        Complete,
        /// Every pending transfer, then a sync.
        Sync,
        Maintain {
            op: u8,
            line: u32,
        },
    }

    fn step() -> impl proptest::strategy::Strategy<Value = Step> {
        use proptest::prelude::*;
        let line = || 0..4u32;
        prop_oneof![
            12 => (any::<bool>(), line(), 0..8u32, prop::sample::select(vec![1u32, 2, 4]), 0..3u32)
                .prop_map(|(write, line, word, width, pc)| Step::Cached { write, line, word, width, pc: 0x100 + 4 * pc }),
            1 => (line(), 0..8u32).prop_map(|(line, word)| Step::Amo { line, word }),
            1 => (any::<bool>(), line()).prop_map(|(to_host, line)| Step::Request { to_host, line }),
            1 => Just(Step::Complete),
            1 => Just(Step::Sync),
            1 => (0..3u8, line()).prop_map(|(op, line)| Step::Maintain { op, line }),
        ]
    }

    /// The PC of the AMOs of [`stream`].
    const AMO_PC: u32 = 0x200;

    /// The events of `steps`, in order (a DMA's scratchpad bytes at its line's offset).
    fn stream(steps: &[Step]) -> Vec<Event> {
        use mxpsim_detector::event::DmaDir;
        let base = 0x8000_0000;
        let mut events = Vec::new();
        let mut pos = 0;
        let mut pending = std::collections::VecDeque::new();
        let origin = |pc, cycle| Origin { pc, cycle, ctx: (cycle % 3) as u32 };
        let transfer = |(request, dir, line): (Pos, DmaDir, u32), cycle| Event::Dma {
            request,
            dir,
            host: vec![Range::new(base + 32 * line, 32)],
            scratchpad: vec![Range::new(32 * line, 32)],
            cycle,
        };
        for (cycle, step) in steps.iter().enumerate().map(|(c, s)| (c as u64, *s)) {
            match step {
                Step::Cached { write, line, word, width, pc } => {
                    let access = if write { Access::Write } else { Access::Read };
                    let start = base + 32 * line + ((4 * word) & !(width - 1));
                    events.push(Event::Cached { access, range: Range::new(start, width), origin: origin(pc, cycle) });
                    pos += 1;
                }
                Step::Amo { line, word } => {
                    let range = Range::new(base + 32 * line + 4 * word, 4);
                    for access in [Access::Read, Access::Write] {
                        events.push(Event::Cached { access, range, origin: origin(AMO_PC, cycle) });
                    }
                    pos += 2;
                }
                Step::Request { to_host, line } => {
                    let dir = if to_host { DmaDir::ToHost } else { DmaDir::ToScratchpad };
                    events.push(Event::Request { request: Request::Dma(dir), origin: origin(0x300, cycle) });
                    pos += 1;
                    pending.push_back((pos, dir, line));
                }
                Step::Complete => events.extend(pending.pop_front().map(|p| transfer(p, cycle))),
                Step::Sync => {
                    events.extend(pending.drain(..).map(|p| transfer(p, cycle)));
                    events.push(Event::Sync { origin: origin(0x400, cycle) });
                    pos += 1;
                }
                Step::Maintain { op, line } => {
                    let op = [CacheOp::Clean, CacheOp::Flush, CacheOp::Inval][op as usize];
                    let scope = Scope::Line(base + 32 * line);
                    events.push(Event::CacheMaintenance { op, scope, origin: origin(0x500, cycle) });
                    pos += 1;
                }
            }
        }
        events
    }

    proptest::proptest! {
        // (Each case makes two checkers, each with a 4 MB page table.)
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

        /// The accesses the quiet case takes (`Quiet::take`, what compiled code does)
        /// leave the checker as `cached` leaves it: the same findings, the same answers of the
        /// access log.
        #[test]
        fn the_quiet_case_takes_what_cached_would(
            steps in proptest::collection::vec(step(), 1..120),
            write_back in proptest::sample::select(vec![WriteBack::Line, WriteBack::DirtyBytes]),
        ) {
            let geometry = CacheGeometry { line_size: 32, write_back };
            let config = Config { geometry, cpu_uncached_vs_cache: false };
            let (mut called, mut inline) = (RaceCheck::new(config, false).unwrap(), RaceCheck::new(config, false).unwrap());
            let quiet = inline.quiet().expect("a quiet case");
            for event in stream(&steps) {
                // (Not an AMO's: the quiet case is for accesses of instructions that make one.)
                let amo = matches!(event, Event::Cached { origin, .. } if origin.pc == AMO_PC);
                if let (Event::Cached { access, range, origin }, false) = (&event, amo) {
                    let (access, range, origin) = (*access, *range, *origin);
                    let base = (&mut inline as *mut RaceCheck).cast();
                    // SAFETY: the checker's fields, at its offsets.
                    if !unsafe { quiet.take(base, access, range, origin) } {
                        inline.cached(access, range, origin);
                    }
                } else {
                    inline.emit(event.clone());
                }
                called.emit(event);
            }
            for line in (0..4).map(|l| 0x8000_0000 + 32 * l) {
                for p in 0..=called.detector.position() + 1 {
                    proptest::prop_assert_eq!(called.accesses.last_store_before(line, p), inline.accesses.last_store_before(line, p));
                    proptest::prop_assert_eq!(called.accesses.bytes_at(line, p), inline.accesses.bytes_at(line, p));
                }
            }
            let (called, inline) = (called.finish(), inline.finish());
            proptest::prop_assert_eq!(&called.report, &inline.report);
            proptest::prop_assert_eq!(&called.landmarks, &inline.landmarks);
            proptest::prop_assert_eq!(&called.cache_sides, &inline.cache_sides);
            proptest::prop_assert_eq!(&called.vector_sides, &inline.vector_sides);
            proptest::prop_assert_eq!(&called.second_halves, &inline.second_halves);
            proptest::prop_assert_eq!((called.events, called.stream_errors), (inline.events, inline.stream_errors));
        }
    }

    #[test]
    fn the_quiet_case_takes_a_quiet_lines_reads_and_a_dirty_lines_stores() {
        let line = 0x8000_0040;
        let mut check = checker();
        let at = Origin { pc: 0x10, cycle: 1, ctx: 2 };
        let take_from = |check: &mut RaceCheck, access, addr, at| {
            let quiet = check.quiet().expect("a quiet case");
            // SAFETY: the checker's fields, at its offsets.
            unsafe { quiet.take((check as *mut RaceCheck).cast(), access, Range::new(addr, 4), at) }
        };
        let take = |check: &mut RaceCheck, access, addr| take_from(check, access, addr, at);
        assert!(!take(&mut check, Access::Read, line), "nothing quiet yet");
        check.cached(Access::Read, Range::new(line, 4), at);
        assert!(take(&mut check, Access::Read, line + 4));
        assert!(!take(&mut check, Access::Write, line), "a clean line's store starts its dirty epoch");
        check.cached(Access::Write, Range::new(line, 4), at);
        assert!(take(&mut check, Access::Write, line + 8));
        assert!(take(&mut check, Access::Read, line + 12));
        assert!(take(&mut check, Access::Write, line + 12), "after a read taken (not noted)");
        check.cached(Access::Read, Range::new(line + 16, 4), at);
        let next = Origin { pc: 0x14, cycle: 2, ..at };
        assert!(take_from(&mut check, Access::Write, line + 16, next), "right after a read noted");
        assert!(!take(&mut check, Access::Read, line + 32), "another line");
        let quiet = check.quiet().expect("a quiet case");
        // SAFETY: the checker's fields, at its offsets.
        let empty = unsafe { quiet.take((&mut check as *mut RaceCheck).cast(), Access::Read, Range::new(line, 0), at) };
        assert!(!empty, "an empty access (the detector's full path takes it)");
        assert_eq!(check.detector.position(), 8);
        let last = check.accesses.last_store_before(line, 9).expect("the store taken");
        assert_eq!((last.pos, last.range, last.origin), (8, Range::new(line + 16, 4), next));
        let findings = check.finish();
        assert_eq!(findings.events, 8);
        assert!(findings.second_halves.is_empty(), "a store of another instruction is no AMO's second half");
    }
}
