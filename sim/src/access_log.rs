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
use mxpsim_models::events::HeldStores;
use std::mem::{offset_of, size_of};

/// A cached access: its CPU position, where it comes from, and its bytes (within the line).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Logged {
    pub pos: Pos,
    pub origin: Origin,
    pub range: Range,
}

/// What a line's log keeps besides its latest store.
#[derive(Clone, Copy, Debug, Default)]
struct OtherAccesses {
    /// A request position and the last store before it (pos 0: none).
    before_request: (Pos, Logged),
    /// The latest read's position and bytes (pos 0: none).
    last_read: (Pos, Range),
}

/// The log of one page's lines. The latest stores lie apart from the rest: writing a held
/// store out (most of the log's work: every line a program writes, again after each
/// request) then writes 32 bytes into a dense array of them, a stride of 32 bytes a line
/// where it was 88 with the rest between. (cpubench under `--race-check`, best of 10
/// interleaved runs: 599 -> 542 ms; 531 ms with no writes out at all.)
struct Page {
    /// Per line, the latest store (pos 0: none).
    last_store: Box<[Logged]>,
    others: Box<[OtherAccesses]>,
}

/// 4 KiB of addresses per page.
const PAGE_SHIFT: u32 = 12;

// (So the log's lines are the detector's: the race checker's quiet case finds its held
// stores by the detector's lines.)
const _: () = assert!(mxpsim_detector::bytes::MAX_LINE_SIZE <= 1 << PAGE_SHIFT);

/// Pages of the 32-bit address space.
const PAGES: usize = 1 << (32 - PAGE_SHIFT);

/// Stores held back at once, one per line, direct-mapped by line number (a power of two): as
/// many lines as 128 KiB of 32-byte lines, so that a store to a line the detector's quiet
/// filter holds mostly finds its own held store to replace, inline in compiled code. (512 made
/// 225,000 of cpubench's first 3 × 10⁷ instructions' stores leave compiled code to write
/// another line's held store out; 4,096: host instructions −2.3 %. 16,384 beside the filter's
/// 65,536 lines, 2026-12-07: −0.5 %, wall time the same, four times the memory.)
const HELD: usize = 4096;

/// A store not yet written to its line's slot.
#[derive(Clone, Copy, Debug, Default)]
struct Held {
    /// [`HeldStores::key_of`] the store's line while a store there replaces it (in the
    /// generation of [`AccessLog::key_base`]: no request since); 0: none.
    key: u64,
    /// The store (pos 0: none).
    store: Logged,
    /// The newest request when it was made.
    request: Pos,
}

pub struct AccessLog {
    line_shift: u32,
    lines_per_page: usize,
    /// The position of the newest request so far (0: none).
    last_request: Pos,
    /// The key base ([`HeldStores::key_base`]) of generation one more than the requests so
    /// far (wrapping before 2^32): the held stores of earlier generations are replaced by no
    /// store.
    key_base: u64,
    /// The latest store to each of a few lines, while it is not yet in its slot. A store to
    /// the same line with no request between replaces it here, without a look-up: a loop
    /// filling a buffer stores to each line many times over, and only its last store before
    /// a request (and the last of all) can be asked for — the ones between change nothing in
    /// the slot (see [`AccessLog::store`]). Written to its slot before another line's store
    /// takes its place and before any question about its line.
    held: Box<[Held; HELD]>,
    /// Per page of the 32-bit address space: 1 + the index of its lines in `pages`, 0 until
    /// the page is first touched. (Integers, so that the table is the allocator's zeroed
    /// memory, no page of it touched until used: a table of `Option<Box<_>>` is written
    /// through when made, 16 MB of page faults, 9 ms of system time, in every run. An array,
    /// so that the index needs no bounds check.)
    page_numbers: Box<[u32; PAGES]>,
    /// The lines of the pages touched, in the order they were.
    pages: Vec<Page>,
}

impl AccessLog {
    /// A log for `line_size`-byte lines (a power of two, at most 4 KiB).
    pub fn new(line_size: u32) -> Self {
        let line_shift = line_size.trailing_zeros().min(PAGE_SHIFT);
        let page_numbers = vec![0; PAGES].into_boxed_slice().try_into().expect("PAGES entries");
        AccessLog {
            line_shift,
            lines_per_page: 1 << (PAGE_SHIFT - line_shift),
            last_request: 0,
            key_base: HeldStores::key_base(1),
            held: Box::new([Held::default(); HELD]),
            page_numbers,
            pages: Vec::new(),
        }
    }

    /// The page of `addr` and the index of its line there.
    #[inline]
    fn page_and_index(&mut self, addr: u32) -> (&mut Page, usize) {
        let page = (addr >> PAGE_SHIFT) as usize;
        let number = match self.page_numbers[page] {
            0 => self.new_page(page),
            n => n,
        };
        let index = (addr & ((1 << PAGE_SHIFT) - 1)) >> self.line_shift;
        (&mut self.pages[number as usize - 1], index as usize)
    }

    /// Makes page `page`'s lines, none accessed yet; returns its number. Cold and out of line:
    /// the callers are on every store's path, and an allocation inlined there made each of
    /// them save and restore six registers.
    #[cold]
    #[inline(never)]
    fn new_page(&mut self, page: usize) -> u32 {
        let lines = self.lines_per_page;
        self.pages.push(Page {
            last_store: vec![Logged::default(); lines].into_boxed_slice(),
            others: vec![OtherAccesses::default(); lines].into_boxed_slice(),
        });
        let number = u32::try_from(self.pages.len()).expect("at most 2^20 pages");
        self.page_numbers[page] = number;
        number
    }

    /// Which held store the line at `line` has.
    #[inline(always)]
    fn held_index(&self, line: u32) -> usize {
        (line >> self.line_shift) as usize % HELD
    }

    /// A request at CPU position `pos` (later than every one before).
    pub fn request(&mut self, pos: Pos) {
        self.last_request = pos;
        self.key_base = self.key_base.wrapping_add(HeldStores::NEXT_GENERATION);
        if self.key_base == 0 {
            // (Keys keep 32 bits of it: written out, no key of before can come again.)
            (0..HELD).for_each(|i| self.write_held(i));
            self.key_base = HeldStores::key_base(1);
        }
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
        let key = HeldStores::key_of(self.key_base, line);
        let index = self.held_index(line);
        if self.held[index].key == key {
            self.held[index].store = store;
        } else {
            self.write_held(index);
            self.held[index] = Held { key, store, request: self.last_request };
        }
    }

    /// Where the held stores are, for the race checker's quiet case
    /// ([`mxpsim_models::events::Quiet`]).
    pub const HELD_STORES: HeldStores = HeldStores {
        entries: offset_of!(AccessLog, held),
        key_base: offset_of!(AccessLog, key_base),
        slots: HELD,
        stride: size_of::<Held>(),
        key: offset_of!(Held, key),
        pos: offset_of!(Held, store.pos),
        origin: offset_of!(Held, store.origin),
        range: offset_of!(Held, store.range),
    };

    /// Writes held store `index` (if any) to its line's slot.
    fn write_held(&mut self, index: usize) {
        let Held { store, request, .. } = std::mem::take(&mut self.held[index]);
        if store.pos == 0 {
            return;
        }
        let (page, i) = self.page_and_index(store.range.start);
        let last = &mut page.last_store[i];
        // (Asked in this order, a program with no request yet stores without loading the
        // slot: the load, a cache miss per line, was a third of the race checker's own cost.)
        if request != 0 && last.pos != 0 && last.pos < request {
            page.others[i].before_request = (request, *last);
        }
        *last = store;
    }

    /// Writes the held store of the line at `line` (if any) to its slot, before a question.
    fn write_held_of(&mut self, line: u32) {
        self.write_held(self.held_index(line));
    }

    /// A read at CPU position `pos` of `range` (within one line).
    #[inline]
    pub fn read(&mut self, range: Range, pos: Pos) {
        let (page, i) = self.page_and_index(range.start);
        page.others[i].last_read = (pos, range);
    }

    /// The last store to the line at `line` before position `p`, if the log knows it exactly.
    pub fn last_store_before(&mut self, line: u32, p: Pos) -> Option<Logged> {
        let (last_store, OtherAccesses { before_request, .. }) = self.line_log(line);
        if last_store.pos != 0 && last_store.pos < p {
            Some(last_store)
        } else if before_request.0 == p && before_request.1.pos != 0 {
            Some(before_request.1)
        } else {
            None
        }
    }

    /// The bytes of the access to the line at `line` at position `pos`, if it is still the
    /// line's latest read or one of its stores kept.
    pub fn bytes_at(&mut self, line: u32, pos: Pos) -> Option<Range> {
        let (last_store, OtherAccesses { before_request, last_read }) = self.line_log(line);
        let stores = [last_store, before_request.1].map(|s| (s.pos, s.range));
        [last_read].into_iter().chain(stores).find(|a| a.0 == pos && pos != 0).map(|a| a.1)
    }

    /// The log of the line at `line`, its held store written out first.
    fn line_log(&mut self, line: u32) -> (Logged, OtherAccesses) {
        self.write_held_of(line);
        let (page, i) = self.page_and_index(line);
        (page.last_store[i], page.others[i])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A store (line 0..6, word 0..8 of a 32-byte line), a request between stores, or a
    /// question about a line's last store.
    #[derive(Clone, Copy, Debug)]
    enum Step {
        Store { line: u32, word: u32 },
        Request,
        Ask { line: u32 },
    }

    fn step() -> impl Strategy<Value = Step> {
        prop_oneof![
            6 => (0..6u32, 0..8u32).prop_map(|(line, word)| Step::Store { line, word }),
            1 => Just(Step::Request),
            1 => (0..6u32).prop_map(|line| Step::Ask { line }),
        ]
    }

    proptest! {
        // (Each case makes two logs, each with a 4 MB page table.)
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Holding back a run of stores to a line changes no answer: a log that writes every
        /// store to its slot at once answers every question alike. (Lines 4 and 5 share
        /// held stores with 0 and 1; questions come between stores too.)
        #[test]
        fn holding_back_stores_to_one_line_changes_no_answer(steps in prop::collection::vec(step(), 1..60)) {
            let base = 0x8000_1000;
            let (mut held, mut direct) = (AccessLog::new(32), AccessLog::new(32));
            let line_of = |l: u32| base + 32 * if l < 4 { l } else { l - 4 + HELD as u32 };
            let mut pos = 0;
            for s in steps {
                pos += 1;
                match s {
                    Step::Ask { line } => {
                        let line = line_of(line);
                        prop_assert_eq!(held.last_store_before(line, pos), direct.last_store_before(line, pos));
                    }
                    Step::Request => {
                        held.request(pos);
                        direct.request(pos);
                    }
                    Step::Store { line, word } => {
                        let range = Range::new(line_of(line) + word * 4, 4);
                        let origin = Origin { pc: 0x100 + pos as u32 * 4, cycle: pos, ctx: 0 };
                        held.store(range, pos, origin);
                        direct.store(range, pos, origin);
                        direct.write_held_of(range.start);
                    }
                }
            }
            for line in (0..6).map(line_of) {
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
    fn a_request_that_wraps_the_generations_writes_the_held_stores_out_first() {
        let mut log = AccessLog::new(32);
        let line = 0x8000_1000;
        log.store(Range::new(line, 4), 1, at(0x10));
        // The 2^32-th request: no held key of before may come again.
        log.key_base = HeldStores::key_base((1 << 32) - 1);
        log.request(2);
        assert_eq!(log.key_base, HeldStores::key_base(1));
        log.store(Range::new(line + 4, 4), 3, at(0x14));
        assert_eq!(log.last_store_before(line, 2).map(|s| s.pos), Some(1), "the store before the request");
        assert_eq!(log.last_store_before(line, 4).map(|s| s.pos), Some(3));
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
