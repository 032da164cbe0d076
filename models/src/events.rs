//! Where the hardware reports its memory-interface events (the detector's vocabulary,
//! [`mxpsim_detector::event`]). Components are generic over the sink; with the unit sink
//! `()` nothing is built or stored, so an unobserved run pays nothing.

use mxpsim_detector::event::{Access, Event, Origin, Pos, Range, Space};
use mxpsim_detector::fast::InlineQuiet;

pub trait EventSink {
    /// False for sinks that drop everything: producers skip building the events.
    const ENABLED: bool = true;
    fn emit(&mut self, event: Event);
    /// `Event::Cached`, nearly every event of a run: a sink with a shorter path for it than
    /// building and matching the whole event (the race checker) overrides this.
    #[inline(always)]
    fn cached(&mut self, access: Access, range: Range, origin: Origin) {
        self.emit(Event::Cached { access, range, origin });
    }
    /// `Event::CpuAccess`, a CPU access outside the cache (uncached DRAM, the scratchpad):
    /// like [`EventSink::cached`], for the sink with a shorter path for the usual case.
    #[inline(always)]
    fn cpu_access(&mut self, space: Space, access: Access, range: Range, origin: Origin) {
        self.emit(Event::CpuAccess { space, access, range, origin });
    }
    /// The CPU nodes received so far: the position of the latest on the CPU timeline (what
    /// an engine node names its request by). The sink numbers them, so that the producer
    /// need not count them too: the race checker answers with its detector's count, a
    /// trace writer on its own counts them itself.
    fn position(&self) -> Pos;
    /// True once the sink wants the run to stop (a race checker told to halt on the first
    /// race). Checked after every CPU load and store.
    fn wants_halt(&self) -> bool {
        false
    }
    /// The sink's quiet case, if it has one that compiled code may take inline instead of
    /// calling [`EventSink::cached`] ([`Quiet::take`]). It may not change during a run of the
    /// hart.
    fn quiet(&self) -> Option<Quiet> {
        None
    }
}

/// A sink's quiet case ([`EventSink::quiet`]): cached accesses, each within a line of
/// `1 << line_shift` bytes, that change nothing but the sink's position and what it notes of
/// the latest accesses (the race checker's accesses that its detector's quiet filter
/// takes), so that compiled code can take them with a few loads and stores, at offsets from
/// the sink's address ([`Quiet::take`] says which, and how).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quiet {
    pub line_shift: u32,
    pub at: QuietFields,
}

/// Where the state of a sink's [`Quiet`] case lies, as byte offsets from the sink's start:
/// its detector's quiet filter and position ([`InlineQuiet`]) and the stores it holds back
/// ([`HeldStores`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuietFields {
    pub detector: InlineQuiet,
    pub held: HeldStores,
}

/// A sink's stores held back, one per line, direct-mapped by line number: a pointer at
/// `entries` (the same for the sink's life) to `slots` entries (a power of two) of `stride`
/// bytes, and the generation's key base (a `u64` at `key_base`: [`HeldStores::key_base`]).
/// An entry whose `u64` at `key` is [`HeldStores::key_of`] `line` holds a store to `line`
/// that a store there replaces: its [`Pos`] at `pos`, [`Origin`] at `origin` and [`Range`]
/// at `range` (offsets in the entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldStores {
    pub entries: usize,
    pub key_base: usize,
    pub slots: usize,
    pub stride: usize,
    pub key: usize,
    pub pos: usize,
    pub origin: usize,
    pub range: usize,
}

impl HeldStores {
    /// The same, in an object that holds these `by` bytes from its start.
    pub const fn within(self, by: usize) -> HeldStores {
        HeldStores { entries: self.entries + by, key_base: self.key_base + by, ..self }
    }

    /// The entry of `line` (lines of `1 << line_shift` bytes).
    pub const fn index(&self, line: u32, line_shift: u32) -> usize {
        (line >> line_shift) as usize % self.slots
    }

    /// What a new generation adds to the key base.
    pub const NEXT_GENERATION: u64 = 1 << 32;

    /// The key base of `generation`: `generation << 32`. (Kept so, not as the generation's
    /// number: the look in compiled code is a host instruction shorter.)
    pub const fn key_base(generation: u64) -> u64 {
        generation << 32
    }

    /// The key of an entry that holds a store to `line` in the generation of `key_base`.
    pub const fn key_of(key_base: u64, line: u32) -> u64 {
        key_base | line as u64
    }
}

impl QuietFields {
    /// The same fields, in an object that holds the sink `by` bytes from its start.
    pub const fn within(self, by: usize) -> QuietFields {
        QuietFields { detector: self.detector.within(by), held: self.held.within(by) }
    }
}

impl Quiet {
    /// Takes a cached `access` of `range` from `origin` if it is quiet (true), as compiled code
    /// does, in the state at offsets [`Quiet::at`] from `base`: `range` not empty and within a
    /// line whose recent entry in the detector's filter covers the access ([`InlineQuiet`]); a
    /// store also only to a line with a store held. Taken: the next position, and for a
    /// store, the store held over the one before. Nothing else: the filter stays as it is (its
    /// last line only answers sooner what the recent entries say), and a read is not noted
    /// (only an AMO's write asks for the read before it). The definition of what compiled
    /// code emits; the sinks with a quiet case check theirs against it.
    ///
    /// For an access of an instruction that makes one, not of an AMO (compiled code makes
    /// none): a sink knows an AMO's write, its second half, by the read just before it with
    /// the same origin — the same instruction at the same cycle — which no store of an
    /// instruction that makes one access has, so it need not look for the read here.
    ///
    /// # Safety
    /// `base` points at a live sink (or what holds it, [`QuietFields::within`]) whose
    /// fields are at these offsets, and nothing else uses it meanwhile.
    pub unsafe fn take(&self, base: *mut u8, access: Access, range: Range, origin: Origin) -> bool {
        let line = range.start & (u32::MAX << self.line_shift);
        if range.len == 0 || u64::from(range.start - line) + u64::from(range.len) > 1 << self.line_shift {
            return false;
        }
        let at = self.at;
        // SAFETY: the caller's.
        unsafe {
            let field = |offset: usize| base.add(offset);
            let now = field(at.detector.now).cast::<Pos>();
            let recent = *field(at.detector.recent).cast::<*const u64>();
            let entry = *recent.add(InlineQuiet::slot(line, self.line_shift));
            let covering = InlineQuiet::covering(*field(at.detector.stamp).cast::<u64>(), line);
            let covered = match access {
                Access::Read => entry | 2 == covering,
                Access::Write => entry == covering,
            };
            if !covered {
                return false;
            }
            let held = at.held;
            let entries = *field(held.entries).cast::<*mut u8>();
            let entry = entries.add(held.index(line, self.line_shift) * held.stride);
            if access == Access::Write {
                let key_base = *field(held.key_base).cast::<u64>();
                if *entry.add(held.key).cast::<u64>() != HeldStores::key_of(key_base, line) {
                    return false;
                }
            }
            *now += 1;
            if access == Access::Write {
                *entry.add(held.pos).cast::<Pos>() = *now;
                *entry.add(held.origin).cast::<Origin>() = origin;
                *entry.add(held.range).cast::<Range>() = range;
            }
        }
        true
    }
}

impl EventSink for () {
    const ENABLED: bool = false;
    fn emit(&mut self, _: Event) {}
    fn position(&self) -> Pos {
        0
    }
}

/// Collects events in memory (tests, and small runs).
impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
    fn position(&self) -> Pos {
        self.iter().filter(|e| e.is_cpu_node()).count() as Pos
    }
}
