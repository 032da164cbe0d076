//! CPU uncached and scratchpad accesses made while a request is pending: the engine node of
//! that request, still to come, races with those made after the request. Nothing else needs
//! them later (a CPU node is ordered after everything already seen, and before every later
//! request), so the log holds only accesses after the oldest pending request and is empty
//! whenever no request is pending.
//!
//! It stays small while requests wait (a loop reading a DMA's destination before the sync):
//! an access joins a recent entry of the same instruction and kind when no request came
//! between them. That loses nothing: an engine node still to come belongs to a request made
//! before the entry's first access, so it races with every access of the entry or none, on
//! the union of their bytes; reports, keyed by instruction, are the same (the entry keeps
//! its first access as its node; the joined ones are not counted as separate occurrences).

use std::collections::VecDeque;

use crate::bytes;
use crate::event::{Pos, Space};
use crate::node::Footprint;
use crate::race::RaceNode;

#[derive(Clone, Debug)]
pub(crate) struct LoggedAccess {
    pub node: RaceNode,
    pub space: Space,
    pub footprint: Footprint,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct CpuLog {
    /// In CPU order (of their first access).
    entries: VecDeque<LoggedAccess>,
    /// The position of the latest request.
    last_request: Pos,
}

/// How many of the latest entries an access may join (a loop body's few sites).
const JOIN_WINDOW: usize = 4;

impl CpuLog {
    pub fn push(&mut self, access: LoggedAccess) {
        let last_request = self.last_request;
        let joinable = self.entries.iter_mut().rev().take(JOIN_WINDOW).find(|e| {
            e.node.pred > last_request
                && e.node.origin.pc == access.node.origin.pc
                && e.node.id.kind == access.node.id.kind
                && e.space == access.space
        });
        match joinable {
            Some(entry) => {
                for r in access.footprint.reads {
                    bytes::insert(&mut entry.footprint.reads, r);
                }
                for r in access.footprint.writes {
                    bytes::insert(&mut entry.footprint.writes, r);
                }
            }
            None => self.entries.push_back(access),
        }
    }

    /// A request was made at `pos`: later accesses no longer join earlier entries.
    pub fn request(&mut self, pos: Pos) {
        self.last_request = pos;
    }

    /// Drops the accesses no future engine node can race with: those at or before `horizon`,
    /// the smallest request position still to come.
    pub fn forget_up_to(&mut self, horizon: Pos) {
        while self.entries.front().is_some_and(|a| a.node.pred <= horizon) {
            self.entries.pop_front();
        }
    }

    /// The accesses after CPU position `request`.
    pub fn after(&self, request: Pos) -> impl Iterator<Item = &LoggedAccess> {
        let first = self.entries.partition_point(|a| a.node.pred <= request);
        self.entries.range(first..)
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event::{Access, Origin, Range};
    use crate::node::{NodeId, NodeKind};

    fn access(pos: Pos, pc: u32, start: u32) -> LoggedAccess {
        let kind = NodeKind::cpu_access(Space::Dram, Access::Read);
        LoggedAccess {
            node: RaceNode {
                id: NodeId { kind, pos, line: None },
                origin: Origin { pc, cycle: pos, ctx: 0 },
                pred: pos,
                succ: Some(pos),
            },
            space: Space::Dram,
            footprint: Footprint::access(Access::Read, Range::new(start, 4)),
        }
    }

    #[test]
    fn a_loop_of_accesses_joins_until_the_next_request() {
        let mut log = CpuLog::default();
        log.request(1);
        for i in 0..100 {
            log.push(access(2 + 2 * i, 0x100, 0x1000 + 4 * i as u32)); // two sites, interleaved
            log.push(access(3 + 2 * i, 0x200, 0x8000 + 4 * i as u32));
        }
        assert_eq!(log.len(), 2);
        let first = log.after(1).next().unwrap();
        assert_eq!(first.node.pred, 2, "the entry is its first access");
        assert_eq!(first.footprint.reads, [Range::new(0x1000, 400)]);
        log.request(300);
        log.push(access(301, 0x100, 0x2000));
        assert_eq!(log.len(), 3, "an access after a request starts a new entry");
        assert_eq!(log.after(250).count(), 1);
    }
}
