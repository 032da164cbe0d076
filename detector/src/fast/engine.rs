//! The accelerator side: requests awaiting their engine node, and the engine nodes that have
//! run but are not yet synced, with what orders them among themselves.
//!
//! # Ordering engine nodes
//!
//! Queue-order and interlock edges both go from an earlier request to a later one, and each
//! queue is a chain, so "`o` reaches `e` through engine edges" is decided by a two-entry
//! vector clock: `e.clock[q]` is the sequence number (in queue `q`) of the latest node of `q`
//! that reaches `e` (or is `e`). It is the maximum of the clock of `e`'s queue predecessor and
//! of the clocks of the other-queue nodes `e` is interlocked after; since clocks grow along
//! each queue, only the latest such node is needed. Nodes synced before `e`'s request can be
//! left out: they, and everything reaching them, are ordered before `e` through the `sync`
//! anyway. In a legal stream an engine node arrives after every node that reaches it, so the
//! clock is complete when it arrives; a node that arrives after a later-requested node that
//! waits for it is a [`StreamError::InterlockOrder`].

use std::collections::VecDeque;

use crate::config::StreamError;
use crate::event::{DmaDir, Event, Origin, Pos, Range, Request};
use crate::interlock::{interlocked, EngineOp};
use crate::node::{EngineFootprint, NodeId, NodeKind};
use crate::race::RaceNode;

use super::dram::NodeKey;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Queue {
    Dma = 0,
    Vector = 1,
}

impl Queue {
    fn of(request: Request) -> Queue {
        match request {
            Request::Dma(_) => Queue::Dma,
            Request::Vector => Queue::Vector,
        }
    }

    fn other(self) -> Queue {
        match self {
            Queue::Dma => Queue::Vector,
            Queue::Vector => Queue::Dma,
        }
    }
}

#[derive(Clone, Copy, Debug)]
struct PendingRequest {
    pos: Pos,
    request: Request,
    origin: Origin,
}

/// An engine node that has run and is not yet synced.
#[derive(Clone, Debug)]
pub(crate) struct EngineNode {
    pub node: RaceNode,
    pub footprint: EngineFootprint,
    /// The direction, for DMA transfers.
    pub dir: Option<DmaDir>,
    pub dram_key: Option<NodeKey>,
    queue: Queue,
    seq: u64,
    clock: [u64; 2],
}

impl EngineNode {
    fn op(&self) -> EngineOp<'_> {
        let sp = &self.footprint.scratchpad;
        match self.dir {
            Some(dir @ DmaDir::ToScratchpad) => EngineOp::Dma { dir, scratchpad: &sp.writes },
            Some(dir @ DmaDir::ToHost) => EngineOp::Dma { dir, scratchpad: &sp.reads },
            None => EngineOp::Vector { reads: &sp.reads, writes: &sp.writes },
        }
    }

    /// The DRAM bytes the node touches, normalised.
    pub fn host_ranges(&self) -> Vec<Range> {
        let dram = &self.footprint.dram;
        crate::bytes::normalize(dram.reads.iter().chain(&dram.writes).copied().collect())
    }

    pub fn writes_dram(&self) -> bool {
        self.dir == Some(DmaDir::ToHost)
    }
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Engine {
    pending: [VecDeque<PendingRequest>; 2],
    next_seq: [u64; 2],
    /// Clock of the last node to arrive in each queue (kept across syncs).
    last_clock: [[u64; 2]; 2],
    /// Arrived, not yet synced, per queue ([`Queue`] as index), each in arrival order: so in
    /// the order of their requests and of their sequence numbers, and a search for the other
    /// queue's nodes (all an engine node is checked against) is a binary search and a scan of
    /// those alone. (One list of both made a vector op scan every vector op since the last
    /// sync: quadratic in long unsynced stretches, a fifth of sobel's time.)
    unsynced: [Vec<EngineNode>; 2],
    /// The position of the oldest pending request (0: none), kept up to date by
    /// [`Engine::request`] and [`Engine::arrive`]: every cached access asks for it.
    oldest: Pos,
}

impl Engine {
    pub fn request(&mut self, pos: Pos, request: Request, origin: Origin) {
        self.pending[Queue::of(request) as usize].push_back(PendingRequest { pos, request, origin });
        // Requests come in CPU order: a pending older one stays the oldest.
        if self.oldest == 0 {
            self.oldest = pos;
        }
    }

    #[inline]
    pub fn oldest_pending(&self) -> Option<Pos> {
        (self.oldest != 0).then_some(self.oldest)
    }

    pub fn unsynced(&self) -> impl Iterator<Item = &EngineNode> {
        self.unsynced.iter().flatten()
    }

    /// True when a DMA transfer has arrived and is not yet synced: the only engine nodes
    /// that touch DRAM.
    #[inline]
    pub fn has_unsynced_dma(&self) -> bool {
        !self.unsynced[Queue::Dma as usize].is_empty()
    }

    #[inline]
    pub fn unsynced_count(&self) -> usize {
        self.unsynced.iter().map(Vec::len).sum()
    }

    /// Checks an engine node against the stream contract and prepares it (without changing
    /// anything): it must carry out the oldest pending request of its queue, and must not
    /// arrive after a later-requested node that the interlocks make wait for it.
    pub fn admit(&self, event: &Event) -> Result<EngineNode, StreamError> {
        let footprint = EngineFootprint::of(event);
        let (request, dir, footprint) = match (event, footprint) {
            (Event::Dma { request, dir, .. }, Some(f)) => (*request, Some(*dir), f),
            (Event::Vector { request, .. }, Some(f)) => (*request, None, f),
            _ => return Err(StreamError::UnknownRequest { request: 0 }),
        };
        let wanted = dir.map_or(Request::Vector, Request::Dma);
        let queue = Queue::of(wanted);
        let head = self.pending[queue as usize].front();
        let pending = match head {
            Some(head) if head.pos == request => *head,
            _ => return Err(self.misplaced(request, queue)),
        };
        if pending.request != wanted {
            return Err(StreamError::WrongEngine { request, expected: pending.request });
        }
        let seq = self.next_seq[queue as usize] + 1;
        let mut node = EngineNode {
            node: RaceNode {
                id: NodeId { kind: dir.map_or(NodeKind::Vector, NodeKind::dma), pos: request, line: None },
                origin: pending.origin,
                pred: request,
                succ: None,
            },
            footprint,
            dir,
            dram_key: None,
            queue,
            seq,
            clock: [0; 2],
        };
        let other = queue.other() as usize;
        let others = &self.unsynced[other];
        let requested_before = others.partition_point(|o| o.node.pred < request);
        if let Some(later) = others[requested_before..].iter().find(|o| interlocked(node.op(), o.op())) {
            return Err(StreamError::InterlockOrder { earlier: request, later: later.node.pred });
        }
        let mut clock = self.last_clock[queue as usize];
        clock[queue as usize] = seq;
        let unordered = others.partition_point(|o| o.seq <= clock[other]);
        let waited_for = others[unordered.min(requested_before)..requested_before]
            .iter()
            .rev()
            .find(|o| interlocked(o.op(), node.op()));
        if let Some(o) = waited_for {
            clock = [clock[0].max(o.clock[0]), clock[1].max(o.clock[1])];
        }
        node.clock = clock;
        Ok(node)
    }

    fn misplaced(&self, request: Pos, queue: Queue) -> StreamError {
        if let Some(head) = self.pending[queue as usize]
            .front()
            .filter(|_| self.pending[queue as usize].iter().any(|r| r.pos == request))
        {
            return StreamError::OutOfQueueOrder { request, expected: head.pos };
        }
        match self.pending[queue.other() as usize].iter().find(|r| r.pos == request) {
            Some(r) => StreamError::WrongEngine { request, expected: r.request },
            None => StreamError::UnknownRequest { request },
        }
    }

    /// Records an admitted node as arrived.
    pub fn arrive(&mut self, node: EngineNode) {
        let queue = node.queue as usize;
        self.pending[queue].pop_front();
        self.oldest = self.pending.iter().filter_map(|q| q.front().map(|r| r.pos)).min().unwrap_or(0);
        self.next_seq[queue] = node.seq;
        self.last_clock[queue] = node.clock;
        self.unsynced[queue].push(node);
    }

    /// The unsynced nodes of the other queue that `node` (admitted, not yet arrived) is not
    /// ordered after. (Same-queue nodes are ordered by the queue; nothing arrived earlier can
    /// be ordered after `node` in a legal stream.)
    pub fn concurrent_with<'a>(&'a self, node: &'a EngineNode) -> impl Iterator<Item = &'a EngineNode> {
        let others = &self.unsynced[node.queue.other() as usize];
        others[others.partition_point(|o| o.seq <= node.clock[node.queue.other() as usize])..].iter()
    }

    /// A `sync` at `pos`: every request must have its engine node; returns the nodes it
    /// completes.
    pub fn sync(&mut self, pos: Pos) -> Result<Vec<EngineNode>, StreamError> {
        if let Some(request) = self.oldest_pending() {
            return Err(StreamError::SyncBeforeEngineNode { sync: pos, request });
        }
        let [dma, vector] = std::mem::take(&mut self.unsynced);
        Ok(dma.into_iter().chain(vector).collect())
    }
}
