//! Byte sets: normalised lists of ranges, and the bit masks used for the bytes of one cache
//! line. Both detectors express "which bytes" with these, so that their answers compare
//! directly.

use crate::event::Range;

/// Sorts and merges `ranges` (dropping empty ones): the canonical form of a byte set.
pub fn normalize(mut ranges: Vec<Range>) -> Vec<Range> {
    ranges.retain(|r| !r.is_empty());
    ranges.sort_unstable();
    // In place (no second vector: races are built with millions of these in some runs).
    ranges.dedup_by(|r, last| {
        // Merge when touching or overlapping, unless the union would not fit a `Range`.
        let merge = r.start as u64 <= last.end() && r.end().max(last.end()) - (last.start as u64) <= u32::MAX as u64;
        if merge {
            let end = r.end().max(last.end());
            last.len = (end - last.start as u64) as u32;
        }
        merge
    });
    ranges
}

/// Adds `range` to `set` (normalised, and kept so), merging it with the ranges it touches:
/// O(log n) plus the ranges merged, and O(1) moves when ranges arrive in address order.
pub fn insert(set: &mut Vec<Range>, range: Range) {
    if range.is_empty() {
        return;
    }
    // The ranges that touch or overlap `range`: set[lo..hi].
    let lo = set.partition_point(|s| s.end() < range.start as u64);
    let hi = set.partition_point(|s| (s.start as u64) <= range.end());
    let start = set[lo..hi].first().map_or(range.start, |s| s.start.min(range.start));
    let end = set[lo..hi].last().map_or(range.end(), |s| s.end().max(range.end()));
    if end - start as u64 > u32::MAX as u64 {
        // The union would not fit a `Range` (a near-4-GiB set): the slow, general path.
        let mut all = std::mem::take(set);
        all.push(range);
        *set = normalize(all);
        return;
    }
    set.splice(lo..hi, [Range::new(start, (end - start as u64) as u32)]);
}

/// True when every byte of `ranges` lies in `set` (normalised: sorted, disjoint, merged).
pub fn covers(set: &[Range], ranges: &[Range]) -> bool {
    ranges.iter().filter(|r| !r.is_empty()).all(|r| {
        // The last range of `set` starting at or before `r`: normalised, so it alone can hold it.
        let i = set.partition_point(|s| s.start <= r.start);
        i > 0 && set[i - 1].end() >= r.end()
    })
}

/// The bytes common to both sets (in any form; the result is normalised).
pub fn intersect(a: &[Range], b: &[Range]) -> Vec<Range> {
    let mut out = Vec::new();
    push_common(a, b, &mut out);
    normalize(out)
}

/// Pushes onto `out` the common part of each range of `a` with each of `b` (not
/// normalised: for a caller gathering several sets' before normalising once).
pub fn push_common(a: &[Range], b: &[Range], out: &mut Vec<Range>) {
    for x in a {
        out.extend(b.iter().filter_map(|y| x.intersection(*y)));
    }
}

/// The line-aligned pieces of `range`: `(line address, the part of range inside that line)`.
/// `line_size` must be a power of two.
#[inline]
pub fn split_by_line(range: Range, line_size: u32) -> impl Iterator<Item = (u32, Range)> {
    let shift = line_size.trailing_zeros();
    let line_size = line_size as u64;
    let end = range.end();
    let first_line = range.start as u64 & !(line_size - 1);
    // A shift, not a division: this is on every cached access.
    let lines = if range.is_empty() { 0 } else { (end - first_line + line_size - 1) >> shift };
    (0..lines).map(move |i| {
        let line = first_line + i * line_size;
        let start = (range.start as u64).max(line);
        let stop = end.min(line + line_size);
        (line as u32, Range::new(start as u32, (stop - start) as u32))
    })
}

/// The whole line at `line` as a range.
pub fn line_range(line: u32, line_size: u32) -> Range {
    Range::new(line, line_size)
}

/// The largest line size a [`LineMask`] can describe.
pub const MAX_LINE_SIZE: u32 = 256;

const WORDS: usize = (MAX_LINE_SIZE / 64) as usize;

/// A set of bytes within one cache line: bit `i` is byte `line + i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct LineMask([u64; WORDS]);

impl LineMask {
    pub const EMPTY: LineMask = LineMask([0; WORDS]);

    /// The bytes of `part`, which must lie within the line at `line`.
    #[inline]
    pub fn of(line: u32, part: Range) -> LineMask {
        let first = part.start.wrapping_sub(line);
        let end = first + part.len;
        if end <= 64 {
            // All in the first word (lines of up to 64 bytes always are). `first` < 64 unless
            // the part is empty, and then the shift moves no ones.
            let ones = if part.len >= 64 { u64::MAX } else { (1u64 << part.len) - 1 };
            let mut words = [0; WORDS];
            words[0] = ones.wrapping_shl(first);
            return LineMask(words);
        }
        // The bits below `n` of a word (all of them from 64 on); branch-free, as this is on
        // every cached write under byte-granular write-back.
        let below = |n: u32| if n >= 64 { u64::MAX } else { (1u64 << n) - 1 };
        LineMask(std::array::from_fn(|i| {
            let base = 64 * i as u32;
            below(end.saturating_sub(base)) & !below(first.saturating_sub(base))
        }))
    }

    /// Every byte of a line of `line_size` bytes.
    pub fn full(line_size: u32) -> LineMask {
        LineMask::of(0, Range::new(0, line_size))
    }

    #[inline]
    pub fn is_empty(&self) -> bool {
        self.0.iter().all(|&w| w == 0)
    }

    #[inline]
    pub fn union(self, other: LineMask) -> LineMask {
        LineMask(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    #[inline]
    pub fn intersection(self, other: LineMask) -> LineMask {
        LineMask(std::array::from_fn(|i| self.0[i] & other.0[i]))
    }

    #[inline]
    pub fn without(self, other: LineMask) -> LineMask {
        LineMask(std::array::from_fn(|i| self.0[i] & !other.0[i]))
    }

    /// The ranges of the bytes in the set, for the line at `line`.
    pub fn ranges(self, line: u32) -> Vec<Range> {
        let mut out: Vec<Range> = Vec::new();
        for (i, &word) in self.0.iter().enumerate() {
            let mut word = word;
            let mut offset = 64 * i as u32;
            while word != 0 {
                let skip = word.trailing_zeros();
                word >>= skip;
                offset += skip;
                let run = word.trailing_ones();
                out.push(Range::new(line + offset, run));
                word = word.checked_shr(run).unwrap_or(0);
                offset += run;
            }
        }
        normalize(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_merges_touching_and_overlapping() {
        let got = normalize(vec![
            Range::new(10, 5),
            Range::new(0, 4),
            Range::new(4, 2),
            Range::new(12, 10),
            Range::new(30, 0),
        ]);
        assert_eq!(got, vec![Range::new(0, 6), Range::new(10, 12)]);
        // A union longer than a `Range` can say stays two ranges.
        let wide = vec![Range::new(10, u32::MAX), Range::new(0, u32::MAX)];
        assert_eq!(normalize(wide), vec![Range::new(0, u32::MAX), Range::new(10, u32::MAX)]);
    }

    #[test]
    fn insert_keeps_the_set_normalised() {
        let mut set = Vec::new();
        let mut all = Vec::new();
        // A deterministic shuffle of touching, overlapping and separate ranges.
        for i in 0..200u32 {
            let r = Range::new((i * 37) % 301, (i * 7) % 5);
            insert(&mut set, r);
            all.push(r);
            assert_eq!(set, normalize(all.clone()), "after {r:?}");
        }
    }

    #[test]
    fn covers_means_every_byte_is_in_the_set() {
        let set = normalize(vec![Range::new(0, 6), Range::new(10, 12)]);
        assert!(covers(&set, &[Range::new(0, 6), Range::new(12, 4), Range::new(21, 1), Range::new(40, 0)]));
        assert!(!covers(&set, &[Range::new(5, 2)]), "runs past the first range");
        assert!(!covers(&set, &[Range::new(8, 1)]), "in the gap");
        assert!(!covers(&set, &[Range::new(21, 2)]), "runs past the end");
        assert!(!covers(&[], &[Range::new(0, 1)]));
    }

    #[test]
    fn split_by_line_cuts_at_line_boundaries() {
        let parts: Vec<_> = split_by_line(Range::new(14, 20), 16).collect();
        assert_eq!(parts, vec![(0, Range::new(14, 2)), (16, Range::new(16, 16)), (32, Range::new(32, 2))]);
        assert_eq!(split_by_line(Range::new(5, 0), 16).count(), 0);
        let top: Vec<_> = split_by_line(Range::new(0xffff_fff8, 8), 16).collect();
        assert_eq!(top, vec![(0xffff_fff0, Range::new(0xffff_fff8, 8))]);
    }

    #[test]
    fn masks_of_every_part_of_a_line() {
        for line_size in [16, 64, 128, 256] {
            let line = 0x1000 * line_size;
            for first in 0..line_size {
                for len in 0..=line_size - first {
                    let mut words = [0u64; WORDS];
                    for bit in first..first + len {
                        words[bit as usize / 64] |= 1 << (bit % 64);
                    }
                    assert_eq!(LineMask::of(line, Range::new(line + first, len)), LineMask(words), "{first} {len}");
                }
            }
        }
    }

    #[test]
    fn masks_round_trip() {
        let m = LineMask::of(32, Range::new(34, 3)).union(LineMask::of(32, Range::new(40, 2)));
        assert_eq!(m.ranges(32), vec![Range::new(34, 3), Range::new(40, 2)]);
        assert_eq!(LineMask::full(256).ranges(0), vec![Range::new(0, 256)]);
        let across = LineMask::of(0, Range::new(60, 10));
        assert_eq!(across.ranges(0x100), vec![Range::new(0x13c, 10)]);
        assert_eq!(LineMask::full(64).without(across).ranges(0), vec![Range::new(0, 60)]);
        assert!(LineMask::of(0, Range::new(0, 4)).intersection(LineMask::of(0, Range::new(4, 4))).is_empty());
    }
}
