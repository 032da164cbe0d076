//! The detector's filter in front of its line states (r2vm's L0 filter in front of a cache
//! model, for the race detector): lines that a cached access has found *quiet*, where the
//! next cached accesses change nothing but the position.
//!
//! A line is quiet when no request is pending (so no read is recorded for an engine node
//! still to come) and the line is not flagged (no DRAM node to check an `alloc` or `wb`
//! against), and a write skipped needs the line dirty. Only a request (pending), an engine
//! node or an uncached write checked against the cache (flags) and cache maintenance (dirty)
//! can change these; the detector clears the filter at every event other than a cached
//! access or a CPU access that flags nothing (a sync too: simpler than proving it harmless).
//! Until then a read of a quiet line changes nothing, and neither does a write to it once
//! it is dirty under whole-line write-back (its epoch's first `wb` already covers the line).
//!
//! Two levels: the line of the last access that found one (one compare, inlined where the
//! simulator makes its events), and behind it the recent ones, direct-mapped by line number,
//! more than a data cache holds lines (so that a loop over a few buffers and its stack keeps
//! each of its lines, and a working set larger than the cache stays quiet: the lines it misses
//! in the cache are not new to the detector). Their entries carry the
//! filter's generation, so that clearing them — at nearly every engine event of a vector
//! program — is a count, not a sweep.

use crate::event::Access;
use std::mem::offset_of;

/// Recent lines kept (a power of two): 2 MiB of 32-byte lines, 128 times what the default
/// 16 KiB cache holds, so that a working set the size of a second-level cache stays quiet
/// once its lines are dirty. (With 1,024, as many as a 32 KiB cache holds, a program that
/// missed in the cache missed here too, and each miss's accesses were observed in full:
/// cpubench under `--race-check`, first 3 × 10⁷ instructions, 412,000 full observations,
/// 8,192 slots 74,000 — the first store of each dirty epoch; host instructions −3.6 %, fewer
/// host cache misses. 8,192 slots still sent nearly every store that missed in the cache to a
/// full observation when the program sweeps more than 256 KiB — cpubench's sieve marks a
/// 2 MB array: 1.97 million full writes in the whole run. 65,536 slots, 2026-12-07: cpubench
/// whole run 8.870 → 8.457 × 10⁹ host instructions, host D1 misses 29.6 → 27.2 million,
/// best wall time of 10 interleaved runs 655 → 582 ms; the SDK ports unchanged
/// (`scripts/bench-apps --baseline`: 1.00). 32,768 slots had given −1.1 %: the sieve's array
/// did not fit.)
/// The entries a program touches are those of its lines, whatever the table's size: the
/// table is zeroed memory, its pages made as they are first used.
const SLOTS: usize = 65536;

/// Where an entry's generation starts: above the line's address (shifted left by 2) and its
/// two flags.
const GENERATION_SHIFT: u32 = 34;

/// The last line found quiet. (A struct, not an entry as below: the inlined check came out
/// cheaper so, by callgrind, vbw_mtx_median 7.71e9 against 8.03e9 host instructions.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Last {
    line: u32,
    /// What the line covers: 0 (no line), [`InlineQuiet::READS`] or [`InlineQuiet::WRITES`]
    /// (reads and writes: it is dirty under whole-line write-back).
    covers: u32,
}

/// Where a caller that takes quiet accesses inline (compiled code) finds the filter's recent
/// lines and the position, as byte offsets from an object holding them (the detector:
/// [`crate::Detector::INLINE_QUIET`]): a pointer at `recent` to [`InlineQuiet::SLOTS`] `u64`
/// entries (the same pointer for the object's life), the generation's stamp a `u64` at
/// `stamp` ([`InlineQuiet::stamp`]), the [`Pos`](crate::event::Pos) at `now`.
/// An access within a line is quiet when its recent entry covers it
/// ([`InlineQuiet::covering`]); taking it is adding one to the position, as
/// [`crate::Detector::observe_quiet`] does. (The last line is always also in its recent entry,
/// covering what it covers: it is a short way to the same answer, which such a caller needs
/// neither to ask nor to keep.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InlineQuiet {
    pub now: usize,
    pub recent: usize,
    pub stamp: usize,
}

impl InlineQuiet {
    /// `covers` of a last line whose reads change nothing.
    const READS: u32 = 1;
    /// `covers` of a last line whose reads and writes change nothing.
    const WRITES: u32 = 2;
    /// Entries of the recent lines (a power of two).
    pub const SLOTS: usize = SLOTS;
    /// What a new generation adds to the stamp ([`InlineQuiet::stamp`]).
    pub const NEXT_GENERATION: u64 = 1 << GENERATION_SHIFT;

    /// The least `covers` under which `access` is quiet.
    #[inline(always)]
    pub(crate) const fn needed(access: Access) -> u32 {
        match access {
            Access::Read => Self::READS,
            Access::Write => Self::WRITES,
        }
    }

    /// The recent entry of `line` (in lines of `1 << line_shift` bytes).
    #[inline(always)]
    pub const fn slot(line: u32, line_shift: u32) -> usize {
        (line >> line_shift) as usize % SLOTS
    }

    /// The stamp of `generation`: the entry that covers writes to line 0 in it. (Kept so,
    /// not as the generation's number: the look in compiled code is two host instructions
    /// shorter.)
    #[inline(always)]
    pub const fn stamp(generation: u64) -> u64 {
        generation << GENERATION_SHIFT | 3
    }

    /// The entry that covers writes to `line` in the generation of `stamp`: an entry `e`
    /// covers a write when it is this, a read when `e | 2` is.
    #[inline(always)]
    pub const fn covering(stamp: u64, line: u32) -> u64 {
        stamp | (line as u64) << 2
    }

    /// What a covering entry makes the last line cover: bit 1 is its writes.
    #[inline(always)]
    const fn covers_of(entry: u64) -> u32 {
        if entry & 2 != 0 {
            Self::WRITES
        } else {
            Self::READS
        }
    }

    /// The same fields, in an object that holds this one `by` bytes from its start.
    pub const fn within(self, by: usize) -> InlineQuiet {
        InlineQuiet { now: self.now + by, recent: self.recent + by, stamp: self.stamp + by }
    }
}

impl Last {
    fn of(line: u32, writes_too: bool) -> Last {
        Last { line, covers: if writes_too { InlineQuiet::WRITES } else { InlineQuiet::READS } }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct QuietLines {
    last: Last,
    line_shift: u32,
    /// Recent lines found quiet. Per slot an entry: the generation it was made in (from bit
    /// [`GENERATION_SHIFT`]), the line's address shifted left by 2, bit 1 set when writes to
    /// it change nothing either, bit 0 set — so that a look is one compare. An entry of an
    /// earlier generation (or 0) holds nothing.
    recent: Box<[u64; SLOTS]>,
    /// The current generation's stamp ([`InlineQuiet::stamp`]; generations from 1).
    stamp: u64,
}

impl QuietLines {
    pub fn new(line_size: u32) -> QuietLines {
        QuietLines {
            last: Last::default(),
            line_shift: line_size.trailing_zeros(),
            // (From `vec!`: the allocator's zeroed memory, no page touched until used, and no
            // array built on the stack first.)
            recent: vec![0; SLOTS].into_boxed_slice().try_into().expect("SLOTS entries"),
            stamp: InlineQuiet::stamp(1),
        }
    }

    fn entry(&self, line: u32, writes_too: bool) -> u64 {
        let covering = InlineQuiet::covering(self.stamp, line);
        if writes_too {
            covering
        } else {
            covering & !2
        }
    }

    fn covered(&self, entry: u64, line: u32, access: Access) -> bool {
        let covering = InlineQuiet::covering(self.stamp, line);
        match access {
            Access::Read => entry | 2 == covering,
            Access::Write => entry == covering,
        }
    }

    fn slot(&self, line: u32) -> usize {
        InlineQuiet::slot(line, self.line_shift)
    }

    /// True when `access` to `line` (within it) changes nothing but the position, by the
    /// last line found quiet.
    #[inline(always)]
    pub fn covers_last(&self, line: u32, access: Access) -> bool {
        self.last.line == line && self.last.covers >= InlineQuiet::needed(access)
    }

    /// Like [`QuietLines::covers_last`], by the recent lines; a line found there becomes
    /// the last.
    #[inline]
    pub fn covers_recent(&mut self, line: u32, access: Access) -> bool {
        let entry = self.recent[self.slot(line)];
        let covered = self.covered(entry, line, access);
        if covered {
            self.last = Last { line, covers: InlineQuiet::covers_of(entry) };
        }
        covered
    }

    /// `line` has been found quiet; `writes_too`: it is dirty under whole-line write-back.
    #[inline]
    pub fn insert(&mut self, line: u32, writes_too: bool) {
        let slot = self.slot(line);
        self.last = Last::of(line, writes_too);
        self.recent[slot] = self.entry(line, writes_too);
    }

    /// Where the recent lines are, from the filter's start (for [`InlineQuiet`]). (A `Box`
    /// of a sized array: a pointer.)
    pub const RECENT: usize = offset_of!(QuietLines, recent);
    pub const STAMP: usize = offset_of!(QuietLines, stamp);

    /// An event that may end the quiet of any line.
    #[inline]
    pub fn clear(&mut self) {
        self.last = Last::default();
        self.stamp = self.stamp.wrapping_add(InlineQuiet::NEXT_GENERATION);
        if self.stamp < InlineQuiet::NEXT_GENERATION {
            // (After 2^30 clears, generation 0: the generations start again, from a table
            // holding nothing.)
            self.recent.fill(0);
            self.stamp = InlineQuiet::stamp(1);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Copy, Debug)]
    enum Op {
        Insert(u32, bool),
        Look(u32, bool),
        Clear,
    }

    proptest! {
        /// The last line is always in its recent entry, covering what the entry covers: the
        /// recent entries alone answer what both do (what `InlineQuiet` relies on).
        #[test]
        fn the_last_line_is_in_its_recent_entry(ops in prop::collection::vec(
            prop_oneof![
                (0..3000u32, any::<bool>()).prop_map(|(l, w)| Op::Insert(l * 32, w)),
                (0..3000u32, any::<bool>()).prop_map(|(l, w)| Op::Look(l * 32, w)),
                Just(Op::Clear),
            ],
            1..200,
        )) {
            let mut quiet = QuietLines::new(32);
            for op in ops {
                match op {
                    Op::Insert(line, writes) => quiet.insert(line, writes),
                    Op::Look(line, write) => {
                        let access = if write { Access::Write } else { Access::Read };
                        let last = quiet.covers_last(line, access);
                        prop_assert!(!last || quiet.covers_recent(line, access));
                        quiet.covers_recent(line, access);
                    }
                    Op::Clear => quiet.clear(),
                }
                let last = quiet.last;
                if last.covers != 0 {
                    let writes = last.covers == InlineQuiet::WRITES;
                    prop_assert_eq!(quiet.recent[quiet.slot(last.line)], quiet.entry(last.line, writes));
                }
            }
        }
    }

    #[test]
    fn a_line_covers_reads_and_dirty_lines_writes_until_cleared_or_replaced() {
        let mut quiet = QuietLines::new(32);
        quiet.insert(0x1000, false);
        assert!(quiet.covers_last(0x1000, Access::Read));
        assert!(!quiet.covers_last(0x1000, Access::Write), "a clean line's write starts an epoch");
        quiet.insert(0x1000, true);
        assert!(quiet.covers_last(0x1000, Access::Write));
        // Another line in another slot is kept beside it, and becomes the last when found.
        quiet.insert(0x1020, false);
        assert!(!quiet.covers_last(0x1000, Access::Read));
        assert!(quiet.covers_recent(0x1000, Access::Write));
        assert!(quiet.covers_last(0x1000, Access::Write) && quiet.covers_recent(0x1020, Access::Read));
        // One in the same slot replaces it.
        quiet.insert(0x1000 + 32 * SLOTS as u32, false);
        assert!(!quiet.covers_recent(0x1000, Access::Read));
        assert!(!quiet.covers_recent(0x1020 + 32 * SLOTS as u32, Access::Read), "a line not inserted");
        quiet.clear();
        assert!(
            !quiet.covers_recent(0x1020, Access::Read) && !quiet.covers_last(0x1000 + 32 * SLOTS as u32, Access::Read)
        );
        // Entries of an earlier generation hold nothing, also once the generations wrap.
        let mut wrapping = QuietLines::new(32);
        wrapping.insert(0x1000, true);
        wrapping.stamp = InlineQuiet::stamp((1 << (64 - GENERATION_SHIFT)) - 1);
        wrapping.insert(0x2000, true);
        assert!(wrapping.covers_recent(0x2000, Access::Write) && !wrapping.covers_recent(0x1000, Access::Read));
        wrapping.clear();
        assert_eq!(wrapping.stamp, InlineQuiet::stamp(1));
        assert!(!wrapping.covers_recent(0x1000, Access::Read), "an entry from before the wrap");
        assert!(!wrapping.covers_recent(0x2000, Access::Read));
        // Line 0 (and lines of one byte) are lines like any other.
        let mut bytes = QuietLines::new(1);
        assert!(!bytes.covers_last(0, Access::Read) && !bytes.covers_recent(0, Access::Read), "empty is not line 0");
        bytes.insert(0, true);
        assert!(bytes.covers_last(0, Access::Write) && !bytes.covers_recent(1, Access::Read));
    }
}
