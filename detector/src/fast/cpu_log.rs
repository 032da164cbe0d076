//! CPU uncached and scratchpad accesses made while a request is pending: the engine node of
//! that request, still to come, races with those made after the request. Nothing else needs
//! them later (a CPU node is ordered after everything already seen, and before every later
//! request), so the log holds only accesses after the oldest pending request and is empty
//! whenever no request is pending.

use std::collections::VecDeque;

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
    /// In CPU order.
    entries: VecDeque<LoggedAccess>,
}

impl CpuLog {
    pub fn push(&mut self, access: LoggedAccess) {
        self.entries.push_back(access);
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
