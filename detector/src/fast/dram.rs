//! The live DRAM nodes that are not cache nodes, indexed by byte range: engine nodes not yet
//! synced (DMA transfers in either direction), and the *stale writers* — synced DMA-to-host
//! transfers, and with `cpu_uncached_vs_cache` CPU uncached writes — that a future `alloc`
//! can still race with because its line has not been flushed or invalidated since.
//!
//! Ranges are condensed: the index is a sorted map of disjoint segments, each listing the
//! nodes that touch all of its bytes, so a 64 KiB transfer is one segment, not 64 Ki entries.
//!
//! # Domination (bounded memory)
//!
//! A stale writer `w1` of a byte is dropped from that byte when a writer `w2` of the same
//! kind arrives with `w1.succ <= w2.pred` (so `w1` happens before `w2`): a future `alloc`
//! `[f, r]` races with `w1` iff `f < w1.succ`, which implies `f < w2.succ`, and `r > w2.pred`
//! holds for every future read. So every future race with `w1` on that byte has a twin with
//! `w2` (Lemma 3.4 of the paper, in interval form), and each byte keeps at most the writers
//! of one sync epoch per kind.

use std::collections::BTreeMap;

use crate::event::{Pos, Range};
use crate::race::RaceNode;

pub(crate) type NodeKey = u32;

/// A non-cache node touching DRAM.
#[derive(Clone, Debug)]
pub(crate) struct DramNode {
    pub node: RaceNode,
    pub writes: bool,
    /// Segments listing this node; the node is freed when none does.
    refs: u32,
}

impl DramNode {
    pub fn new(node: RaceNode, writes: bool) -> DramNode {
        DramNode { node, writes, refs: 0 }
    }

    pub fn synced(&self) -> bool {
        self.node.succ.is_some()
    }

    /// True when every future race with `self` on a byte has a twin with `newer` there.
    fn dominated_by(&self, newer: &DramNode) -> bool {
        self.writes
            && newer.writes
            && self.node.id.kind == newer.node.id.kind
            && self.node.succ.is_some_and(|succ| succ <= newer.node.pred)
    }
}

#[derive(Clone, Debug)]
struct Segment {
    end: u64,
    /// Sorted, so that equal lists of neighbours can be merged.
    nodes: Vec<NodeKey>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct DramIndex {
    segments: BTreeMap<u32, Segment>,
    nodes: Vec<Option<DramNode>>,
    free: Vec<NodeKey>,
}

impl DramIndex {
    pub fn node(&self, key: NodeKey) -> Option<&DramNode> {
        self.nodes.get(key as usize).and_then(Option::as_ref)
    }

    /// (segments, live nodes): the index's size, for memory checks.
    pub fn size(&self) -> (usize, usize) {
        (self.segments.len(), self.nodes.len() - self.free.len())
    }

    /// Adds a node over `ranges`, dropping the stale writers it dominates there. Returns
    /// `None` (and keeps nothing) when the ranges hold no byte.
    pub fn insert(&mut self, node: DramNode, ranges: &[Range]) -> Option<NodeKey> {
        if ranges.iter().all(|r| r.is_empty()) {
            return None;
        }
        let key = match self.free.pop() {
            Some(key) => {
                self.nodes[key as usize] = Some(node);
                key
            }
            None => {
                self.nodes.push(Some(node));
                (self.nodes.len() - 1) as NodeKey
            }
        };
        for &range in ranges.iter().filter(|r| !r.is_empty()) {
            self.cover(range);
            for start in self.starts_within(range) {
                let listed = self.segment_nodes(start);
                let new = self.nodes[key as usize].as_ref();
                let dominated: Vec<NodeKey> = listed
                    .iter()
                    .copied()
                    .filter(|&k| {
                        let old = self.node(k);
                        matches!((old, new), (Some(old), Some(new)) if old.dominated_by(new))
                    })
                    .collect();
                for k in dominated {
                    self.unlist(start, k);
                }
                self.list(start, key);
            }
            self.coalesce(range.start, range.end());
        }
        Some(key)
    }

    /// Records the `sync` that completes an engine node.
    pub fn set_succ(&mut self, key: NodeKey, succ: Pos) {
        if let Some(Some(node)) = self.nodes.get_mut(key as usize) {
            node.node.succ = Some(succ);
        }
    }

    /// Removes a node from `ranges` (where it was inserted): freed once listed nowhere.
    pub fn remove(&mut self, key: NodeKey, ranges: &[Range]) {
        for &range in ranges.iter().filter(|r| !r.is_empty()) {
            for start in self.starts_overlapping(range) {
                self.unlist(start, key);
            }
            self.coalesce(range.start, range.end());
        }
    }

    /// Drops the synced nodes (stale writers) from `range`, or from everywhere: called when a
    /// flush or invalidate has made them unable to race with any later `alloc` there.
    pub fn forget_synced(&mut self, range: Option<Range>) {
        let candidates = match range {
            Some(range) => self.starts_overlapping(range),
            None => self.segments.keys().copied().collect(),
        };
        let is_synced = |index: &Self, k: NodeKey| index.node(k).is_some_and(DramNode::synced);
        if !candidates.iter().any(|&s| self.segment_nodes(s).iter().any(|&k| is_synced(self, k))) {
            return;
        }
        let (starts, lo, hi) = match range {
            Some(range) => {
                self.split_at(range.start as u64);
                self.split_at(range.end());
                (self.starts_within(range), range.start, range.end())
            }
            None => (candidates, 0, 1 << 32),
        };
        for start in starts {
            let synced: Vec<NodeKey> =
                self.segment_nodes(start).iter().copied().filter(|&k| is_synced(self, k)).collect();
            for k in synced {
                self.unlist(start, k);
            }
        }
        self.coalesce(lo, hi);
    }

    /// The nodes overlapping `range`, each with the bytes of `range` it touches (normalised),
    /// in key order.
    pub fn overlapping(&self, range: Range) -> BTreeMap<NodeKey, Vec<Range>> {
        self.overlapping_where(range, |_| true)
    }

    /// [`DramIndex::overlapping`] of the nodes `keep` accepts (asked before anything is
    /// gathered for a node: the CPU's uncached accesses to a buffer that synced DMA writes
    /// cover ask for the unsynced ones, which are rarely there).
    pub fn overlapping_where(&self, range: Range, keep: impl Fn(&DramNode) -> bool) -> BTreeMap<NodeKey, Vec<Range>> {
        let mut out: BTreeMap<NodeKey, Vec<Range>> = BTreeMap::new();
        for (start, seg) in self.segments_overlapping(range) {
            let piece = Range::new(start, (seg.end - start as u64) as u32);
            if let Some(common) = piece.intersection(range) {
                for &k in seg.nodes.iter().filter(|&&k| self.node(k).is_some_and(&keep)) {
                    out.entry(k).or_default().push(common);
                }
            }
        }
        for ranges in out.values_mut() {
            *ranges = crate::bytes::normalize(std::mem::take(ranges));
        }
        out
    }

    fn segment_nodes(&self, start: u32) -> &[NodeKey] {
        self.segments.get(&start).map_or(&[], |s| &s.nodes)
    }

    /// The segments overlapping `range`, in address order. (An iterator, not a list: the
    /// CPU's uncached accesses look here once each, and nearly always find nothing to keep.)
    fn segments_overlapping(&self, range: Range) -> impl Iterator<Item = (u32, &Segment)> {
        let before = self.segments.range(..range.start).next_back().filter(|(_, seg)| seg.end > range.start as u64);
        before
            .into_iter()
            .chain(self.segments.range(range.start..).take_while(move |(&s, _)| (s as u64) < range.end()))
            .map(|(&s, seg)| (s, seg))
    }

    /// Starts of the segments overlapping `range` (a list: the callers change the index).
    fn starts_overlapping(&self, range: Range) -> Vec<u32> {
        self.segments_overlapping(range).map(|(s, _)| s).collect()
    }

    /// Starts of the segments inside `range` (after splitting at its ends).
    fn starts_within(&self, range: Range) -> Vec<u32> {
        self.segments.range(range.start..).take_while(|(&s, _)| (s as u64) < range.end()).map(|(&s, _)| s).collect()
    }

    /// Makes `range` exactly covered by whole segments (splitting and filling gaps).
    fn cover(&mut self, range: Range) {
        self.split_at(range.start as u64);
        self.split_at(range.end());
        let mut cursor = range.start as u64;
        let existing: Vec<(u32, u64)> =
            self.starts_within(range).into_iter().map(|s| (s, self.segments[&s].end)).collect();
        for (start, end) in existing {
            if cursor < start as u64 {
                self.segments.insert(cursor as u32, Segment { end: start as u64, nodes: Vec::new() });
            }
            cursor = end;
        }
        if cursor < range.end() {
            self.segments.insert(cursor as u32, Segment { end: range.end(), nodes: Vec::new() });
        }
    }

    /// Splits the segment straddling `at` (if any) into two.
    fn split_at(&mut self, at: u64) {
        let Ok(at32) = u32::try_from(at) else { return };
        let Some((&start, seg)) = self.segments.range_mut(..at32).next_back() else {
            return;
        };
        if seg.end <= at {
            return;
        }
        let tail = Segment { end: seg.end, nodes: seg.nodes.clone() };
        seg.end = at;
        crate::invariant!(start < at32);
        for &k in &tail.nodes {
            self.add_ref(k);
        }
        self.segments.insert(at32, tail);
    }

    /// Merges equal neighbours and drops empty segments among those starting in `[lo, hi]`
    /// and the one before `lo`.
    fn coalesce(&mut self, lo: u32, hi: u64) {
        let first = self.segments.range(..lo).next_back().map_or(lo, |(&s, _)| s);
        let starts: Vec<u32> =
            self.segments.range(first..).take_while(|(&s, _)| s as u64 <= hi).map(|(&s, _)| s).collect();
        let mut previous: Option<u32> = None;
        for start in starts {
            let Some(seg) = self.segments.get(&start) else {
                continue;
            };
            if seg.nodes.is_empty() {
                self.segments.remove(&start);
                continue;
            }
            let mergeable = previous.filter(|prev| {
                let prev_seg = &self.segments[prev];
                prev_seg.end == start as u64 && prev_seg.nodes == seg.nodes
            });
            match mergeable {
                Some(prev) => {
                    let Some(merged) = self.segments.remove(&start) else {
                        continue;
                    };
                    for &k in &merged.nodes {
                        self.drop_ref(k);
                    }
                    if let Some(p) = self.segments.get_mut(&prev) {
                        p.end = merged.end;
                    }
                }
                None => previous = Some(start),
            }
        }
    }

    fn list(&mut self, start: u32, key: NodeKey) {
        let Some(seg) = self.segments.get_mut(&start) else {
            return;
        };
        if let Err(at) = seg.nodes.binary_search(&key) {
            seg.nodes.insert(at, key);
            self.add_ref(key);
        }
    }

    fn unlist(&mut self, start: u32, key: NodeKey) {
        let Some(seg) = self.segments.get_mut(&start) else {
            return;
        };
        if let Ok(at) = seg.nodes.binary_search(&key) {
            seg.nodes.remove(at);
            self.drop_ref(key);
        }
    }

    fn add_ref(&mut self, key: NodeKey) {
        if let Some(Some(node)) = self.nodes.get_mut(key as usize) {
            node.refs += 1;
        }
    }

    fn drop_ref(&mut self, key: NodeKey) {
        if let Some(slot) = self.nodes.get_mut(key as usize) {
            if let Some(node) = slot {
                node.refs -= 1;
                if node.refs == 0 {
                    *slot = None;
                    self.free.push(key);
                }
            }
        }
    }
}
