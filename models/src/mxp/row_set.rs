//! The bytes of a command with many rows, in bounded memory and time.
//!
//! Events list an engine node's bytes one range per row. A 2-D DMA or a 2-D/3-D vector
//! instruction may have up to 2^32 rows (2^64 for a 3-D one), most of them repeats: above
//! [`LISTED_ROWS`] rows an event lists the union of the rows instead (the same bytes, which is
//! all the detector and the interlocks look at), sized by the bytes touched, not by the rows.

use mxpsim_detector::event::Range;

/// The most rows an event lists one by one.
pub const LISTED_ROWS: u64 = 4096;

/// The union of ranges given one by one: a range touching the last one merges into it (rows
/// with a stride no longer than the row), and the list is sorted and merged whenever it has
/// doubled, so it never holds much more than twice the disjoint ranges of the union.
#[derive(Default)]
pub struct RangeUnion {
    ranges: Vec<Range>,
    compact_at: usize,
}

impl RangeUnion {
    pub fn add(&mut self, range: Range) {
        if range.is_empty() {
            return;
        }
        if let Some(last) = self.ranges.last_mut() {
            if let Some(merged) = merge(*last, range) {
                *last = merged;
                return;
            }
        }
        self.ranges.push(range);
        if self.ranges.len() > self.compact_at.max(1024) {
            self.compact();
            self.compact_at = 2 * self.ranges.len();
        }
    }

    /// The union: sorted, disjoint, not touching.
    pub fn finish(mut self) -> Vec<Range> {
        self.compact();
        self.ranges
    }

    fn compact(&mut self) {
        self.ranges.sort_unstable();
        let mut out: Vec<Range> = Vec::with_capacity(self.ranges.len());
        for &r in &self.ranges {
            match out.last_mut().and_then(|last| merge(*last, r).map(|m| (last, m))) {
                Some((last, merged)) => *last = merged,
                None => out.push(r),
            }
        }
        self.ranges = out;
    }
}

/// One range covering `a` and `b` when they overlap or touch (and it fits a range).
fn merge(a: Range, b: Range) -> Option<Range> {
    let start = a.start.min(b.start);
    let end = a.end().max(b.end());
    let touch = u64::from(a.start) <= b.end() && u64::from(b.start) <= a.end();
    (touch && end - u64::from(start) <= u64::from(u32::MAX)).then(|| Range::new(start, (end - start as u64) as u32))
}

/// A set of offsets in `0..size` (a multiple of 64: a scratchpad's size), one bit each, where
/// moving a member past either end wraps it around (the scratchpad's addresses do).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bitmap {
    words: Vec<u64>,
    size: u32,
}

impl Bitmap {
    pub fn new(size: u32) -> Self {
        Bitmap { words: vec![0; (size as usize).div_ceil(64)], size }
    }

    /// The set `{at}`.
    pub fn single(size: u32, at: u32) -> Self {
        let mut set = Bitmap::new(size);
        set.words[at as usize / 64] |= 1 << (at % 64);
        set
    }

    /// The set with every member also moved by 0, `step`, 2·`step`, …, (`count` − 1)·`step`
    /// modulo the size (a Minkowski sum), in 2·log2(`count`) rotated unions.
    pub fn repeat(&self, step: i64, count: u64) -> Bitmap {
        if count <= 1 || step == 0 {
            return self.clone();
        }
        let by = |k: u64| (i128::from(step) * i128::from(k)).rem_euclid(self.size.into()) as u32;
        // Invariant: `sum` = self moved by 0..k steps. Doubling k, then adding one, bit by bit
        // of `count` from the top.
        let mut sum = self.clone();
        let mut k: u64 = 1;
        for bit in (0..63 - count.leading_zeros()).rev() {
            let moved = sum.rotated(by(k));
            sum.or(&moved);
            k *= 2;
            if count >> bit & 1 == 1 {
                sum.or(&self.rotated(by(k)));
                k += 1;
            }
        }
        mxpsim_detector::invariant!(k == count);
        sum
    }

    fn or(&mut self, other: &Bitmap) {
        self.words.iter_mut().zip(&other.words).for_each(|(a, b)| *a |= b);
    }

    /// Every member moved up by `by` (< size), wrapping past the end.
    fn rotated(&self, by: u32) -> Bitmap {
        let mut out = Bitmap::new(self.size);
        let n = self.words.len();
        let (word_shift, bit_shift) = (by as usize / 64, by % 64);
        for (i, &w) in self.words.iter().enumerate() {
            if w == 0 {
                continue;
            }
            let low = (i + word_shift) % n;
            out.words[low] |= w << bit_shift;
            if bit_shift != 0 {
                out.words[(low + 1) % n] |= w >> (64 - bit_shift);
            }
        }
        out
    }

    /// The members as sorted, disjoint, not touching ranges (a word at a time where a word
    /// does not change whether the current run goes on).
    pub fn ranges(&self) -> Vec<Range> {
        let mut out = Vec::new();
        let mut start = None;
        for (i, &word) in self.words.iter().enumerate() {
            let base = i as u32 * 64;
            match (word, start) {
                (0, None) | (u64::MAX, Some(_)) => continue,
                _ => {}
            }
            for bit in 0..64u32.min(self.size - base) {
                match (word >> bit & 1 == 1, start) {
                    (true, None) => start = Some(base + bit),
                    (false, Some(s)) => {
                        out.push(Range::new(s, base + bit - s));
                        start = None;
                    }
                    _ => {}
                }
            }
        }
        if let Some(s) = start {
            out.push(Range::new(s, self.size - s));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    fn bytes(ranges: &[Range]) -> BTreeSet<u64> {
        ranges.iter().flat_map(|r| u64::from(r.start)..r.end()).collect()
    }

    #[test]
    fn a_union_is_the_same_bytes_sorted_and_merged() {
        let rows = [(10, 4), (14, 2), (0, 3), (12, 1), (40, 8), (2, 2), (100, 0)];
        let mut union = RangeUnion::default();
        let given: Vec<Range> = rows.iter().map(|&(s, l)| Range::new(s, l)).collect();
        given.iter().for_each(|&r| union.add(r));
        let got = union.finish();
        assert_eq!(got, vec![Range::new(0, 4), Range::new(10, 6), Range::new(40, 8)]);
        assert_eq!(bytes(&got), bytes(&given));
    }

    #[test]
    fn a_union_of_many_repeats_stays_small() {
        let mut union = RangeUnion::default();
        for i in 0..1_000_000u32 {
            union.add(Range::new(if i % 2 == 0 { 0 } else { 1 << 31 }, 4));
            assert!(union.ranges.len() <= 2048);
        }
        assert_eq!(union.finish(), vec![Range::new(0, 4), Range::new(1 << 31, 4)]);
    }

    #[test]
    fn repeat_is_the_minkowski_sum_modulo_the_size() {
        let cases = [(3u32, 5i64, 1u64), (3, 5, 2), (3, 5, 13), (200, -7, 29), (0, 1, 64), (5, 64, 3), (500, 7, 9)];
        let more = [(10, -3, 1000), (1, 1 << 31, 1 << 32), (0, 192, 1 << 20)];
        for (start, step, count) in cases.into_iter().chain(more) {
            let got = Bitmap::single(512, start).repeat(step, count);
            let moved = |k: i64| (i128::from(start) + i128::from(k) * i128::from(step)).rem_euclid(512) as u64;
            let want: BTreeSet<u64> = (0..count.min(4096) as i64).map(moved).collect();
            assert_eq!(bytes(&got.ranges()), want, "start {start} step {step} count {count}");
        }
    }

    #[test]
    fn rotations_cross_words_and_the_end() {
        let set = Bitmap::single(256, 63).repeat(1, 3); // 63, 64, 65
        assert_eq!(set.rotated(70).ranges(), vec![Range::new(133, 3)]);
        assert_eq!(set.rotated(256 - 63).ranges(), vec![Range::new(0, 3)]);
        assert_eq!(set.rotated(256 - 64).ranges(), vec![Range::new(0, 2), Range::new(255, 1)]);
        assert_eq!(set.rotated(192).ranges(), vec![Range::new(0, 2), Range::new(255, 1)]);
    }
}
