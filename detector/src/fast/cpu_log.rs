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
use crate::event::{Access, Pos, Range, Space};
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
    /// Logs a CPU access (`node`, an `access` of `range` in `space`). (Not as a
    /// [`LoggedAccess`]: an access that joins an entry, nearly every one in a loop, builds no
    /// footprint of its own.)
    pub fn push(&mut self, node: RaceNode, space: Space, access: Access, range: Range) {
        let last_request = self.last_request;
        let joinable = self.entries.iter_mut().rev().take(JOIN_WINDOW).find(|e| {
            e.node.pred > last_request
                && e.node.origin.pc == node.origin.pc
                && e.node.id.kind == node.id.kind
                && e.space == space
        });
        match joinable {
            Some(entry) => {
                let ranges = match access {
                    Access::Read => &mut entry.footprint.reads,
                    Access::Write => &mut entry.footprint.writes,
                };
                bytes::insert(ranges, range);
            }
            None => self.entries.push_back(LoggedAccess { node, space, footprint: Footprint::access(access, range) }),
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
    use crate::event::Origin;
    use crate::node::{NodeId, NodeKind};

    /// Logs a 4-byte read of `start` by the instruction at `pc`, at CPU position `pos`.
    fn read(log: &mut CpuLog, pos: Pos, pc: u32, start: u32) {
        let kind = NodeKind::cpu_access(Space::Dram, Access::Read);
        let node = RaceNode {
            id: NodeId { kind, pos, line: None },
            origin: Origin { pc, cycle: pos, ctx: 0 },
            pred: pos,
            succ: Some(pos),
        };
        log.push(node, Space::Dram, Access::Read, Range::new(start, 4));
    }

    #[test]
    fn a_loop_of_accesses_joins_until_the_next_request() {
        let mut log = CpuLog::default();
        log.request(1);
        for i in 0..100 {
            read(&mut log, 2 + 2 * i, 0x100, 0x1000 + 4 * i as u32); // two sites, interleaved
            read(&mut log, 3 + 2 * i, 0x200, 0x8000 + 4 * i as u32);
        }
        assert_eq!(log.len(), 2);
        let first = log.after(1).next().unwrap();
        assert_eq!(first.node.pred, 2, "the entry is its first access");
        assert_eq!(first.footprint.reads, [Range::new(0x1000, 400)]);
        log.request(300);
        read(&mut log, 301, 0x100, 0x2000);
        assert_eq!(log.len(), 3, "an access after a request starts a new entry");
        assert_eq!(log.after(250).count(), 1);
    }
}
