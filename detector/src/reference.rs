//! The reference detector: `race-semantics.md` §1–§2 taken literally. It keeps the whole
//! stream, builds the explicit happens-before graph (every node, every edge), computes
//! reachability by search and compares every pair of nodes. Quadratic in time and memory:
//! it exists to check the fast detector on small streams, never to run on real ones.

use std::collections::{BTreeMap, BTreeSet};

use crate::bytes::{self, LineMask};
use crate::config::{Config, StreamError};
use crate::event::{Access, CacheOp, Event, Pos, Range, Request, Scope, Space, WriteBack};
use crate::interlock::{interlocked, EngineOp};
use crate::node::{EngineFootprint, Footprint, NodeId, NodeKind};

/// A race as the reference finds it: two nodes and the bytes they conflict on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct RefRace {
    pub a: NodeId,
    pub b: NodeId,
    pub space: Space,
    pub bytes: Vec<Range>,
}

/// Collects a stream; [`Reference::analyse`] builds the graph.
#[derive(Clone, Debug)]
pub struct Reference {
    config: Config,
    /// CPU nodes in order: position `i + 1` is `cpu[i]`.
    cpu: Vec<Event>,
    /// Engine nodes by the position of their request.
    engine: BTreeMap<Pos, Event>,
}

impl Reference {
    pub fn new(config: Config) -> Reference {
        Reference { config, cpu: Vec::new(), engine: BTreeMap::new() }
    }

    /// Records one event. Checks only what the graph needs: an engine node names a request
    /// of its kind that has no engine node yet.
    pub fn observe(&mut self, event: &Event) -> Result<(), StreamError> {
        let (request, wanted) = match event {
            Event::Dma { request, dir, .. } => (*request, Request::Dma(*dir)),
            Event::Vector { request, .. } => (*request, Request::Vector),
            _ => {
                self.cpu.push(event.clone());
                return Ok(());
            }
        };
        let index = request.checked_sub(1).map(|i| i as usize);
        match index.and_then(|i| self.cpu.get(i)) {
            Some(Event::Request { request: asked, .. }) if !self.engine.contains_key(&request) => {
                if *asked != wanted {
                    return Err(StreamError::WrongEngine { request, expected: *asked });
                }
            }
            _ => return Err(StreamError::UnknownRequest { request }),
        }
        self.engine.insert(request, event.clone());
        Ok(())
    }

    pub fn analyse(&self) -> Analysis {
        GraphBuilder::new(self).build()
    }
}

/// A memory-touching node of the graph.
#[derive(Clone, Debug)]
struct MemNode {
    id: NodeId,
    space: Space,
    footprint: Footprint,
    /// For cache nodes, the epoch of their line they belong to: for `alloc`, the last
    /// flush/inval of the line before the read (its pred); for `wb`, the last
    /// clean/flush/inval of the line before the access that created it.
    epoch: Option<Pos>,
    graph: usize,
}

/// The happens-before graph and its races.
#[derive(Clone, Debug)]
pub struct Analysis {
    nodes: Vec<MemNode>,
    by_id: BTreeMap<NodeId, usize>,
    /// `reach[i]`: the graph nodes reachable from memory node `i` (excluding itself).
    reach: Vec<Vec<bool>>,
    races: Vec<RefRace>,
}

impl Analysis {
    /// Every race, in order.
    pub fn races(&self) -> &[RefRace] {
        &self.races
    }

    /// True when `a` happens before `b` (both must be memory nodes of this graph).
    pub fn happens_before(&self, a: NodeId, b: NodeId) -> bool {
        match (self.by_id.get(&a), self.by_id.get(&b)) {
            (Some(&i), Some(&j)) => self.reach[i][self.nodes[j].graph],
            _ => false,
        }
    }

    /// True when the graph has a node with this name.
    pub fn contains(&self, id: NodeId) -> bool {
        self.by_id.contains_key(&id)
    }

    /// For a cache node, the epoch of its line it belongs to (see the fast detector's
    /// documentation for why nodes of one epoch are interchangeable).
    pub fn cache_epoch(&self, id: NodeId) -> Option<Pos> {
        self.by_id.get(&id).and_then(|&i| self.nodes[i].epoch)
    }
}

/// Per-line cache facts while walking the CPU timeline.
#[derive(Clone, Debug, Default)]
struct LineFacts {
    /// Last line-scope flush/inval.
    last_inval: Pos,
    /// Last line-scope clean/flush/inval.
    last_maintenance: Pos,
    /// Bytes written since the last clean/flush/inval.
    dirty: LineMask,
    /// `wb` nodes still waiting for the next clean/flush/inval of the line.
    waiting: Vec<usize>,
}

struct GraphBuilder<'a> {
    reference: &'a Reference,
    /// Graph nodes 0..cpu.len() are the CPU nodes (position - 1); the rest are derived.
    edges: Vec<Vec<usize>>,
    nodes: Vec<MemNode>,
    lines: BTreeMap<u32, LineFacts>,
    last_all_inval: Pos,
    last_all_maintenance: Pos,
}

impl<'a> GraphBuilder<'a> {
    fn new(reference: &'a Reference) -> Self {
        GraphBuilder {
            reference,
            edges: vec![Vec::new(); reference.cpu.len()],
            nodes: Vec::new(),
            lines: BTreeMap::new(),
            last_all_inval: 0,
            last_all_maintenance: 0,
        }
    }

    fn cpu_graph(pos: Pos) -> usize {
        (pos - 1) as usize
    }

    fn add_node(&mut self, id: NodeId, space: Space, footprint: Footprint, epoch: Option<Pos>) -> usize {
        let graph = self.edges.len();
        self.edges.push(Vec::new());
        self.nodes.push(MemNode { id, space, footprint, epoch, graph });
        graph
    }

    fn edge(&mut self, from: usize, to: usize) {
        self.edges[from].push(to);
    }

    fn build(mut self) -> Analysis {
        let cpu_count = self.reference.cpu.len() as Pos;
        for (i, event) in self.reference.cpu.iter().enumerate() {
            let pos = i as Pos + 1;
            if pos < cpu_count {
                self.edge(Self::cpu_graph(pos), Self::cpu_graph(pos + 1)); // 1. program order
            }
            match event {
                Event::CpuAccess { space, access, range, .. } => {
                    let id = NodeId { kind: NodeKind::cpu_access(*space, *access), pos, line: None };
                    self.nodes.push(MemNode {
                        id,
                        space: *space,
                        footprint: Footprint::access(*access, *range),
                        epoch: None,
                        graph: Self::cpu_graph(pos),
                    });
                }
                Event::Cached { access, range, .. } => self.cached(pos, *access, *range, cpu_count),
                Event::CacheMaintenance { op, scope, .. } => self.maintenance(pos, *op, *scope),
                _ => {}
            }
        }
        self.engine();
        self.finish()
    }

    fn line_size(&self) -> u32 {
        self.reference.config.geometry.line_size
    }

    fn cached(&mut self, pos: Pos, access: Access, range: Range, cpu_count: Pos) {
        let line_size = self.line_size();
        let write_back = self.reference.config.geometry.write_back;
        for (line, part) in bytes::split_by_line(range, line_size) {
            let facts = self.lines.entry(line).or_default().clone();
            let whole = bytes::line_range(line, line_size);
            let wb_bytes = |dirty: LineMask| match write_back {
                WriteBack::Line => vec![whole],
                WriteBack::DirtyBytes => dirty.ranges(line),
            };
            let dirty_epoch = facts.last_maintenance.max(self.last_all_maintenance);
            // 7. last flush/inval -> alloc -> cr -> next CPU node. Under whole-line
            // write-back a write has its `alloc` too (the extension of §2 documented in
            // detector/README.md): the bytes of the line it did not write reach memory in
            // its `wb` as they were fetched.
            if access == Access::Read || write_back == WriteBack::Line {
                let valid_since = facts.last_inval.max(self.last_all_inval);
                let alloc = self.add_node(
                    NodeId { kind: NodeKind::Alloc, pos, line: Some(line) },
                    Space::Dram,
                    Footprint::access(Access::Read, whole),
                    Some(valid_since),
                );
                if valid_since > 0 {
                    self.edge(Self::cpu_graph(valid_since), alloc);
                }
                if pos < cpu_count {
                    self.edge(alloc, Self::cpu_graph(pos + 1));
                }
            }
            let (kind, footprint, epoch, dirty) = match access {
                Access::Read => {
                    if facts.dirty.is_empty() {
                        continue;
                    }
                    // 8. Thm 3.3: a read of a dirty line adds a wb copy after the read.
                    (NodeKind::WriteBack, wb_bytes(facts.dirty), dirty_epoch, facts.dirty)
                }
                Access::Write => {
                    let dirty = facts.dirty.union(LineMask::of(line, part));
                    (NodeKind::WriteBack, wb_bytes(dirty), dirty_epoch, dirty)
                }
            };
            // 6. cached access -> (cw/cr) -> wb -> next clean/flush/inval of the line.
            let wb = self.add_node(
                NodeId { kind, pos, line: Some(line) },
                Space::Dram,
                Footprint { reads: vec![], writes: footprint },
                Some(epoch),
            );
            self.edge(Self::cpu_graph(pos), wb);
            let facts = self.lines.entry(line).or_default();
            facts.dirty = dirty;
            facts.waiting.push(wb);
        }
    }

    fn maintenance(&mut self, pos: Pos, op: CacheOp, scope: Scope) {
        let invalidates = matches!(op, CacheOp::Flush | CacheOp::Inval);
        let target = Self::cpu_graph(pos);
        let lines: Vec<u32> = match scope {
            Scope::Line(addr) => vec![self.reference.config.geometry.line_of(addr)],
            Scope::All => {
                self.last_all_maintenance = pos;
                if invalidates {
                    self.last_all_inval = pos;
                }
                self.lines.keys().copied().collect()
            }
        };
        for line in lines {
            let facts = self.lines.entry(line).or_default();
            let waiting = std::mem::take(&mut facts.waiting);
            facts.dirty = LineMask::EMPTY;
            if matches!(scope, Scope::Line(_)) {
                facts.last_maintenance = pos;
                if invalidates {
                    facts.last_inval = pos;
                }
            }
            for wb in waiting {
                self.edge(wb, target);
            }
        }
    }

    fn engine(&mut self) {
        let syncs: BTreeSet<Pos> = self
            .reference
            .cpu
            .iter()
            .enumerate()
            .filter(|(_, e)| matches!(e, Event::Sync { .. }))
            .map(|(i, _)| i as Pos + 1)
            .collect();
        let mut dma_queue = Vec::new();
        let mut vector_queue = Vec::new();
        let mut ops: Vec<(Pos, usize, EngineOp<'_>)> = Vec::new();
        for (&request, event) in &self.reference.engine {
            let (kind, queue) = match event {
                Event::Dma { dir, .. } => (NodeKind::dma(*dir), &mut dma_queue),
                _ => (NodeKind::Vector, &mut vector_queue),
            };
            let footprint = EngineFootprint::of(event).unwrap_or_default();
            let id = NodeId { kind, pos: request, line: None };
            // One graph node, present in both spaces' comparisons.
            let graph = self.add_node(id, Space::Dram, footprint.dram, None);
            self.nodes.push(MemNode {
                id,
                space: Space::Scratchpad,
                footprint: footprint.scratchpad,
                epoch: None,
                graph,
            });
            queue.push(graph);
            self.edge(Self::cpu_graph(request), graph); // 2. request
            if let Some(&sync) = syncs.range(request..).next() {
                self.edge(graph, Self::cpu_graph(sync)); // 5. sync
            }
            if let Some(op) = EngineOp::of(event) {
                ops.push((request, graph, op));
            }
        }
        for queue in [dma_queue, vector_queue] {
            for pair in queue.windows(2) {
                self.edge(pair[0], pair[1]); // 3. queue order
            }
        }
        for (i, &(_, earlier, earlier_op)) in ops.iter().enumerate() {
            for &(_, later, later_op) in &ops[i + 1..] {
                if interlocked(earlier_op, later_op) {
                    self.edge(earlier, later); // 4. interlocks
                }
            }
        }
    }

    fn reachable_from(&self, start: usize) -> Vec<bool> {
        let mut seen = vec![false; self.edges.len()];
        let mut stack: Vec<usize> = self.edges[start].clone();
        while let Some(n) = stack.pop() {
            if !seen[n] {
                seen[n] = true;
                stack.extend_from_slice(&self.edges[n]);
            }
        }
        seen
    }

    fn finish(self) -> Analysis {
        let reach: Vec<Vec<bool>> = self.nodes.iter().map(|n| self.reachable_from(n.graph)).collect();
        let report_uncached_vs_cache = self.reference.config.cpu_uncached_vs_cache;
        let mut races = Vec::new();
        for (i, x) in self.nodes.iter().enumerate() {
            for (j, y) in self.nodes.iter().enumerate().skip(i + 1) {
                let (kx, ky) = (x.id.kind, y.id.kind);
                let skip = x.space != y.space
                    || (kx.is_cache() && ky.is_cache())
                    || (!report_uncached_vs_cache
                        && ((kx.is_cpu_uncached() && ky.is_cache()) || (kx.is_cache() && ky.is_cpu_uncached())))
                    || reach[i][y.graph]
                    || reach[j][x.graph];
                if skip {
                    continue;
                }
                let conflict = x.footprint.conflicts(&y.footprint);
                if !conflict.is_empty() {
                    let (a, b) = if x.id <= y.id { (x.id, y.id) } else { (y.id, x.id) };
                    races.push(RefRace { a, b, space: x.space, bytes: conflict });
                }
            }
        }
        races.sort();
        let by_id = self.nodes.iter().enumerate().map(|(i, n)| (n.id, i)).collect();
        Analysis { nodes: self.nodes, by_id, reach, races }
    }
}
