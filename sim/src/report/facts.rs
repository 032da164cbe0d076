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

/// The run's ordering nodes by CPU position.
pub struct Timeline<'a> {
    pub landmarks: &'a BTreeMap<Pos, Landmark>,
}

fn covers(scope: Scope, line: u32) -> bool {
    scope == Scope::All || scope == Scope::Line(line)
}

impl Timeline<'_> {
    /// The first `sync` after position `after`.
    pub fn first_sync_after(&self, after: Pos) -> Option<Pos> {
        self.landmarks.range(after + 1..).find(|(_, l)| matches!(l, Landmark::Sync { .. })).map(|(&p, _)| p)
    }

    /// The first clean/flush/invalidate of `line` after `after` (what ends a dirty epoch).
    pub fn next_maintenance(&self, line: u32, after: Pos) -> Option<Pos> {
        self.landmarks
            .range(after + 1..)
            .find(|(_, l)| matches!(l, Landmark::Maintenance { scope, .. } if covers(*scope, line)))
            .map(|(&p, _)| p)
    }

    /// The last flush/invalidate of `line` before `before` (after which a fill may happen).
    pub fn last_invalidation(&self, line: u32, before: Pos) -> Option<Pos> {
        self.landmarks
            .range(..before)
            .rev()
            .find(|(_, l)| {
                matches!(l, Landmark::Maintenance { op: CacheOp::Flush | CacheOp::Inval, scope, .. } if covers(*scope, line))
            })
            .map(|(&p, _)| p)
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
        let t = Timeline { landmarks: &landmarks };
        assert_eq!(t.first_sync_after(4), Some(9));
        assert_eq!(t.first_sync_after(9), None);
        assert_eq!(t.next_maintenance(0x40, 2), Some(7), "the whole-cache clean");
        assert_eq!(t.next_maintenance(0x80, 1), Some(6));
        assert_eq!(t.last_invalidation(0x40, 9), Some(2), "cleans do not invalidate");
        assert_eq!(t.last_invalidation(0x80, 9), None);
    }
}
