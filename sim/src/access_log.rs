//! The last cached accesses to each cache line, for reports. A write-back races from the
//! first store that dirtied its line, but the store a flush must follow is the *last* one
//! before the other side started; and whether a race is false sharing depends on which bytes
//! the CPU's own access touched. The detector keeps neither, so the race checker logs them.
//!
//! Per line: the latest store, the latest store before the request that was the newest when
//! a store came after it, and the latest read. "The last store before position `p`" is then
//! known exactly when `p` is past the latest store, or `p` is that request; otherwise the log
//! says nothing (and a report falls back to the first store of the dirty epoch).

use mxpsim_detector::event::{Origin, Pos, Range};
use mxpsim_models::events::Quiet;
use std::mem::offset_of;

/// A cached access: its CPU position, where it comes from, and its bytes (within the line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Logged {
    pub pos: Pos,
    pub origin: Origin,
    pub range: Range,
}

#[derive(Clone, Copy, Debug, Default)]
struct LineAccesses {
    /// The latest store (pos 0: none).
    last_store: Logged,
    /// A request position and the last store before it (pos 0: none).
    before_request: (Pos, Logged),
    /// The latest read's position and bytes (pos 0: none).
    last_read: (Pos, Range),
}

/// 4 KiB of addresses per page.
const PAGE_SHIFT: u32 = 12;

// (So the log's lines are the detector's: the race checker's quiet case compares its
// lines with the log's open one.)
const _: () = assert!(mxpsim_detector::bytes::MAX_LINE_SIZE <= 1 << PAGE_SHIFT);

/// Pages of the 32-bit address space.
const PAGES: usize = 1 << (32 - PAGE_SHIFT);

pub struct AccessLog {
    line_shift: u32,
    lines_per_page: usize,
    /// The position of the newest request so far (0: none).
    last_request: Pos,
    /// The latest store, while it is not yet in its slot (pos 0: none), and the newest
    /// request when it was made. A store to the same line with no request between replaces
    /// it here, without a look-up: a loop filling a buffer stores to each line many times
    /// over, and only its last store before a request (and the last of all) can be asked
    /// for — the ones between change nothing in the slot (see [`AccessLog::store`]).
    /// Written to its slot before any other store and any question.
    held: Logged,
    held_request: Pos,
    /// [`Quiet::OPEN`] with the held store's line while a store there replaces it
    /// (no request since), else 0: one compare, also for compiled code (the race checker's
    /// quiet case).
    open: u64,
    /// Every page of the 32-bit address space, allocated when first touched: one indexed
    /// load per access (the table itself is zero pages until used; an array, so that the
    /// index needs no bounds check).
    pages: Box<[Option<Box<[LineAccesses]>>; PAGES]>,
}

/// A page's lines, none accessed yet. Cold and out of line: the callers are on every store's
/// path, and an allocation inlined there made each of them save and restore six registers.
#[cold]
#[inline(never)]
fn new_page(lines: usize) -> Box<[LineAccesses]> {
    vec![LineAccesses::default(); lines].into_boxed_slice()
}

impl AccessLog {
    /// A log for `line_size`-byte lines (a power of two, at most 4 KiB).
    pub fn new(line_size: u32) -> Self {
        let line_shift = line_size.trailing_zeros().min(PAGE_SHIFT);
        let pages = vec![None; PAGES].into_boxed_slice().try_into().expect("PAGES entries");
        AccessLog {
            line_shift,
            lines_per_page: 1 << (PAGE_SHIFT - line_shift),
            last_request: 0,
            held: Logged::default(),
            held_request: 0,
            open: 0,
            pages,
        }
    }

    #[inline]
    fn slot(&mut self, addr: u32) -> &mut LineAccesses {
        let lines = self.lines_per_page;
        let page = self.pages[(addr >> PAGE_SHIFT) as usize].get_or_insert_with(|| new_page(lines));
        let index = (addr & ((1 << PAGE_SHIFT) - 1)) >> self.line_shift;
        &mut page[index as usize]
    }

    /// A request at CPU position `pos` (later than every one before).
    pub fn request(&mut self, pos: Pos) {
        self.last_request = pos;
        self.open = 0;
    }

    /// A store at CPU position `pos` of `range` (within one line).
    ///
    /// Of stores to one line with the same newest request, only the first can change the
    /// slot's `before_request` (each later one finds an earlier store of the run as the
    /// line's last, made after that request), so logging only the last of them leaves the
    /// slot as logging every one would.
    #[inline]
    pub fn store(&mut self, range: Range, pos: Pos, origin: Origin) {
        let store = Logged { pos, origin, range };
        let line = range.start & (u32::MAX << self.line_shift);
        if self.open != Quiet::OPEN | u64::from(line) {
            self.write_held();
            self.held_request = self.last_request;
            self.open = Quiet::OPEN | u64::from(line);
        }
        self.held = store;
    }

    /// Where, from the log's start, a store that replaces the held one goes: `open`, and the
    /// held store's position, origin and bytes (for the race checker's [`Quiet`] case).
    pub const OPEN: usize = offset_of!(AccessLog, open);
    pub const HELD_POS: usize = offset_of!(AccessLog, held.pos);
    pub const HELD_ORIGIN: usize = offset_of!(AccessLog, held.origin);
    pub const HELD_RANGE: usize = offset_of!(AccessLog, held.range);

    /// Writes the held store (if any) to its slot.
    fn write_held(&mut self) {
        let (store, last_request) = (self.held, self.held_request);
        if store.pos == 0 {
            return;
        }
        (self.held.pos, self.open) = (0, 0);
        let slot = self.slot(store.range.start);
        // (Asked in this order, a program with no request yet stores without loading the
        // slot: the load, a cache miss per line, was a third of the race checker's own cost.)
        if last_request != 0 && slot.last_store.pos != 0 && slot.last_store.pos < last_request {
            slot.before_request = (last_request, slot.last_store);
        }
        slot.last_store = store;
    }

    /// A read at CPU position `pos` of `range` (within one line).
    #[inline]
    pub fn read(&mut self, range: Range, pos: Pos) {
        self.slot(range.start).last_read = (pos, range);
    }

    /// The last store to the line at `line` before position `p`, if the log knows it exactly.
    pub fn last_store_before(&mut self, line: u32, p: Pos) -> Option<Logged> {
        self.write_held();
        let slot = *self.slot(line);
        if slot.last_store.pos != 0 && slot.last_store.pos < p {
            Some(slot.last_store)
        } else if slot.before_request.0 == p && slot.before_request.1.pos != 0 {
            Some(slot.before_request.1)
        } else {
            None
        }
    }

    /// The bytes of the access to the line at `line` at position `pos`, if it is still the
    /// line's latest read or one of its stores kept.
    pub fn bytes_at(&mut self, line: u32, pos: Pos) -> Option<Range> {
        self.write_held();
        let slot = *self.slot(line);
        let stores = [slot.last_store, slot.before_request.1].map(|s| (s.pos, s.range));
        [slot.last_read].into_iter().chain(stores).find(|a| a.0 == pos && pos != 0).map(|a| a.1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A store (line 0..4, word 0..8 of a 32-byte line), or a request between stores.
    #[derive(Clone, Copy, Debug)]
    enum Step {
        Store { line: u32, word: u32 },
        Request,
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            4 => (0..4u32, 0..8u32).prop_map(|(line, word)| Step::Store { line, word }),
            1 => Just(Step::Request),
        ]
    }

    proptest! {
        // (Each case makes two logs, each with a 16 MB page table.)
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Holding back a run of stores to one line changes no answer: a log that writes
        /// every store to its slot at once answers every question alike.
        #[test]
        fn holding_back_stores_to_one_line_changes_no_answer(steps in prop::collection::vec(step(), 1..60)) {
            let base = 0x8000_1000;
            let (mut held, mut direct) = (AccessLog::new(32), AccessLog::new(32));
            let mut pos = 0;
            for s in steps {
                pos += 1;
                match s {
                    Step::Request => {
                        held.request(pos);
                        direct.request(pos);
                    }
                    Step::Store { line, word } => {
                        let range = Range::new(base + line * 32 + word * 4, 4);
                        let origin = Origin { pc: 0x100 + pos as u32 * 4, cycle: pos, ctx: 0 };
                        held.store(range, pos, origin);
                        direct.store(range, pos, origin);
                        direct.write_held();
                    }
                }
            }
            for line in (0..4).map(|l| base + l * 32) {
                for p in 0..=pos + 1 {
                    prop_assert_eq!(held.last_store_before(line, p), direct.last_store_before(line, p));
                    prop_assert_eq!(held.bytes_at(line, p), direct.bytes_at(line, p));
                }
            }
        }
    }

    fn at(pc: u32) -> Origin {
        Origin { pc, cycle: 0, ctx: 0 }
    }

    #[test]
    fn knows_the_last_store_before_a_request_or_the_present() {
        let mut log = AccessLog::new(32);
        let line = 0x8000_1000;
        let word = |addr| Range::new(addr, 4);
        log.store(word(line + 4), 1, at(0x10));
        log.store(word(line + 8), 2, at(0x14));
        // Request at 3; stores at 4 and 6 (another line at 5).
        log.request(3);
        log.store(word(line), 4, at(0x18));
        log.store(word(0x8000_2000), 5, at(0x1c));
        log.store(Range::new(line + 31, 1), 6, at(0x20));
        assert_eq!(log.last_store_before(line, 3).map(|s| s.pos), Some(2), "the last store before the request");
        assert_eq!(log.last_store_before(line, 7).map(|s| s.pos), Some(6), "the last store of all");
        assert_eq!(log.last_store_before(line, 5), None, "between stores of the log: unknown");
        assert_eq!(log.last_store_before(0x8000_2000, 9).map(|s| s.origin.pc), Some(0x1c));
        assert_eq!(log.last_store_before(0x8000_3000, 9), None, "never stored to");
        log.read(Range::new(line + 2, 2), 7);
        assert_eq!(log.bytes_at(line, 7), Some(Range::new(line + 2, 2)));
        assert_eq!(log.bytes_at(line, 6), Some(Range::new(line + 31, 1)));
        assert_eq!(log.bytes_at(line, 1), None, "forgotten");
    }
}
