//! Ordering facts from the whole run's timeline: the first `vbx_sync()` after a request, a
//! line's next clean/flush/invalidate after a store, its last flush/invalidate before a load.
//! Computed once the run has ended, so a sync that came after the race was found counts.
//! These are the `pred`/`succ` of `race-semantics.md` §3 (see `detector/src/fast/mod.rs`),
//! told with the nodes that decide them.

use crate::race_check::Landmark;
use mxpsim_detector::event::{CacheOp, Pos, Scope};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::RaceNode;
use std::collections::BTreeMap;

/// The run's ordering nodes by CPU position, indexed for the questions below: a report may
/// ask them for each of a million races, and a scan of the landmarks for each (there are
/// tens of thousands in an SDK port) took minutes.
pub struct Timeline {
    /// The syncs' positions, in order.
    syncs: Vec<Pos>,
    /// Cleans, flushes and invalidates (`maintenance`), and flushes and invalidates alone
    /// (`invalidations`), each by the line they name or of the whole cache.
    maintenance: ByLine,
    invalidations: ByLine,
}

/// Positions of cache maintenance, in order: of each line, and of the whole cache.
#[derive(Default)]
struct ByLine {
    lines: BTreeMap<u32, Vec<Pos>>,
    all: Vec<Pos>,
}

impl ByLine {
    fn add(&mut self, scope: Scope, pos: Pos) {
        match scope {
            Scope::All => self.all.push(pos),
            Scope::Line(line) => self.lines.entry(line).or_default().push(pos),
        }
    }

    /// The positions that cover `line`: its own and the whole cache's.
    fn covering(&self, line: u32) -> [&[Pos]; 2] {
        [self.lines.get(&line).map_or(&[][..], Vec::as_slice), &self.all]
    }

    /// The first position after `after` that covers `line`.
    fn first_after(&self, line: u32, after: Pos) -> Option<Pos> {
        self.covering(line).iter().filter_map(|ps| ps.get(ps.partition_point(|&p| p <= after)).copied()).min()
    }

    /// The last position before `before` that covers `line`.
    fn last_before(&self, line: u32, before: Pos) -> Option<Pos> {
        self.covering(line).iter().filter_map(|ps| ps[..ps.partition_point(|&p| p < before)].last().copied()).max()
    }
}

impl Timeline {
    pub fn new(landmarks: &BTreeMap<Pos, Landmark>) -> Self {
        let mut t = Timeline { syncs: Vec::new(), maintenance: ByLine::default(), invalidations: ByLine::default() };
        for (&pos, landmark) in landmarks {
            match *landmark {
                Landmark::Sync { .. } => t.syncs.push(pos),
                Landmark::Maintenance { op, scope, .. } => {
                    t.maintenance.add(scope, pos);
                    if matches!(op, CacheOp::Flush | CacheOp::Inval) {
                        t.invalidations.add(scope, pos);
                    }
                }
                _ => {}
            }
        }
        t
    }

    /// The first `sync` after position `after`.
    pub fn first_sync_after(&self, after: Pos) -> Option<Pos> {
        self.syncs.get(self.syncs.partition_point(|&p| p <= after)).copied()
    }

    /// The first clean/flush/invalidate of `line` after `after` (what ends a dirty epoch).
    pub fn next_maintenance(&self, line: u32, after: Pos) -> Option<Pos> {
        self.maintenance.first_after(line, after)
    }

    /// The last flush/invalidate of `line` before `before` (after which a fill may happen).
    pub fn last_invalidation(&self, line: u32, before: Pos) -> Option<Pos> {
        self.invalidations.last_before(line, before)
    }

    /// `node` with its interval as the whole run decides it (`pred`, `succ`; succ `None`:
    /// nothing after it orders it).
    pub fn final_interval(&self, node: &RaceNode) -> RaceNode {
        let (pred, succ) = match node.id.kind {
            k if k.is_engine() => (node.id.pos, self.first_sync_after(node.id.pos)),
            NodeKind::WriteBack => (node.id.pos, self.next_maintenance(node.id.line.unwrap_or(0), node.id.pos)),
            NodeKind::Alloc => {
                (self.last_invalidation(node.id.line.unwrap_or(0), node.id.pos).unwrap_or(0), Some(node.id.pos))
            }
            _ => (node.id.pos, Some(node.id.pos)),
        };
        RaceNode { pred, succ, ..*node }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mxpsim_detector::event::{Origin, Request};

    #[test]
    fn finds_syncs_and_maintenance_around_a_position() {
        let origin = Origin::default();
        let landmarks: BTreeMap<Pos, Landmark> = [
            (2, Landmark::Maintenance { op: CacheOp::Flush, scope: Scope::Line(0x40), origin }),
            (4, Landmark::Request { request: Request::Vector, origin }),
            (6, Landmark::Maintenance { op: CacheOp::Clean, scope: Scope::Line(0x80), origin }),
            (7, Landmark::Maintenance { op: CacheOp::Clean, scope: Scope::All, origin }),
            (9, Landmark::Sync { origin }),
        ]
        .into();
        let t = Timeline::new(&landmarks);
        assert_eq!(t.first_sync_after(4), Some(9));
        assert_eq!(t.first_sync_after(9), None);
        assert_eq!(t.next_maintenance(0x40, 2), Some(7), "the whole-cache clean");
        assert_eq!(t.next_maintenance(0x80, 1), Some(6));
        assert_eq!(t.last_invalidation(0x40, 9), Some(2), "cleans do not invalidate");
        assert_eq!(t.last_invalidation(0x80, 9), None);
    }

    /// The answers as a scan of the landmarks finds them (the definition the index keeps).
    fn scanned(landmarks: &BTreeMap<Pos, Landmark>, line: u32, at: Pos) -> [Option<Pos>; 3] {
        let covers = |scope: Scope| scope == Scope::All || scope == Scope::Line(line);
        let sync = landmarks.range(at + 1..).find(|(_, l)| matches!(l, Landmark::Sync { .. }));
        let next =
            landmarks.range(at + 1..).find(|(_, l)| matches!(l, Landmark::Maintenance { scope, .. } if covers(*scope)));
        let last = landmarks.range(..at).rev().find(|(_, l)| {
            matches!(l, Landmark::Maintenance { op: CacheOp::Flush | CacheOp::Inval, scope, .. } if covers(*scope))
        });
        [sync, next, last].map(|found| found.map(|(&p, _)| p))
    }

    proptest::proptest! {
        #[test]
        fn the_index_answers_as_a_scan_of_the_landmarks(
            marks in proptest::collection::btree_map(0..200u64, (0..5u8, 0..4u32), 0..60),
            line in 0..4u32,
            at in 0..210u64,
        ) {
            let origin = Origin::default();
            let ops = [CacheOp::Clean, CacheOp::Flush, CacheOp::Inval];
            let landmarks: BTreeMap<Pos, Landmark> = marks
                .into_iter()
                .map(|(pos, (kind, l))| {
                    let scope = if l == 3 { Scope::All } else { Scope::Line(l * 0x40) };
                    let landmark = match kind {
                        0 => Landmark::Sync { origin },
                        1 => Landmark::Request { request: Request::Vector, origin },
                        k => Landmark::Maintenance { op: ops[k as usize - 2], scope, origin },
                    };
                    (pos, landmark)
                })
                .collect();
            let t = Timeline::new(&landmarks);
            let line = line * 0x40;
            let indexed = [t.first_sync_after(at), t.next_maintenance(line, at), t.last_invalidation(line, at)];
            proptest::prop_assert_eq!(indexed, scanned(&landmarks, line, at));
        }
    }
}
