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
//! simulator makes its events), and behind it a few recent ones, direct-mapped by line
//! number, so that a loop that reads one buffer and writes another (or its stack) keeps
//! each of its lines.

use crate::event::Access;

/// Recent lines kept (a power of two).
const SLOTS: usize = 8;

/// The last line found quiet. (A struct, not an entry as below: the inlined check came out
/// cheaper so, by callgrind, vbw_mtx_median 7.71e9 against 8.03e9 host instructions.)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Last {
    line: u32,
    /// A write to the line changes nothing either.
    writes_too: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct QuietLines {
    last: Option<Last>,
    line_shift: u32,
    /// Recent lines found quiet. Per slot: 0 (empty), or an entry: the line's address shifted
    /// left by 2, bit 1 set when writes to it change nothing either, bit 0 set — so that a
    /// look is one compare.
    recent: [u64; SLOTS],
}

impl QuietLines {
    pub fn new(line_size: u32) -> QuietLines {
        QuietLines { last: None, line_shift: line_size.trailing_zeros(), recent: [0; SLOTS] }
    }

    fn entry(line: u32, writes_too: bool) -> u64 {
        u64::from(line) << 2 | u64::from(writes_too) << 1 | 1
    }

    fn covered(entry: u64, line: u32, access: Access) -> bool {
        match access {
            Access::Read => entry | 2 == Self::entry(line, true),
            Access::Write => entry == Self::entry(line, true),
        }
    }

    fn slot(&self, line: u32) -> usize {
        (line >> self.line_shift) as usize % SLOTS
    }

    /// True when `access` to `line` (within it) changes nothing but the position, by the
    /// last line found quiet.
    #[inline(always)]
    pub fn covers_last(&self, line: u32, access: Access) -> bool {
        matches!(self.last, Some(last) if last.line == line && (access == Access::Read || last.writes_too))
    }

    /// Like [`QuietLines::covers_last`], by the recent lines; a line found there becomes
    /// the last.
    #[inline]
    pub fn covers_recent(&mut self, line: u32, access: Access) -> bool {
        let entry = self.recent[self.slot(line)];
        let covered = Self::covered(entry, line, access);
        if covered {
            self.last = Some(Last { line, writes_too: entry & 2 != 0 });
        }
        covered
    }

    /// `line` has been found quiet; `writes_too`: it is dirty under whole-line write-back.
    #[inline]
    pub fn insert(&mut self, line: u32, writes_too: bool) {
        let slot = self.slot(line);
        self.last = Some(Last { line, writes_too });
        self.recent[slot] = Self::entry(line, writes_too);
    }

    /// An event that may end the quiet of any line.
    #[inline]
    pub fn clear(&mut self) {
        self.last = None;
        self.recent = [0; SLOTS];
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // Line 0 (and lines of one byte) are lines like any other.
        let mut bytes = QuietLines::new(1);
        assert!(!bytes.covers_last(0, Access::Read) && !bytes.covers_recent(0, Access::Read), "empty is not line 0");
        bytes.insert(0, true);
        assert!(bytes.covers_last(0, Access::Write) && !bytes.covers_recent(1, Access::Read));
    }
}
