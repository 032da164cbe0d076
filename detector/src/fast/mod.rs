//! The fast detector: one online pass over the stream, using the interval form of
//! `race-semantics.md` §3 and keeping only the nodes that something still to come can race
//! with.
//!
//! # The interval form, and why it equals the graph
//!
//! Every node `x` gets `pred(x)`, the latest CPU node that happens before it, and `succ(x)`,
//! the earliest CPU node it happens before (∞ while unknown):
//!
//! | node | pred | succ |
//! |---|---|---|
//! | CPU node at `p` | `p` | `p` |
//! | engine node requested at `q` | `q` | first `sync` after `q` |
//! | `wb` of a cached access at `p` (write, or Thm 3.3 read) | `p` | next clean/flush/inval of its line |
//! | `alloc` of a cached read at `p` (and, under whole-line write-back, of a cached write: see `detector/README.md`) | last flush/inval of its line before `p` (0: none) | `p` |
//!
//! These are what the graph's edges give. Edges *into* the engine from elsewhere are request
//! edges, and *out of* it are sync edges; edges into cache nodes come only from the CPU (the
//! access itself, or the flush/inval before an `alloc`), and edges out of them go only to CPU
//! nodes (`wb` → maintenance, `alloc` → `cr` → next CPU node) or to another cache node (`cr`
//! → the Thm 3.3 `wb` copy). (`alloc`'s succ is really `p + 1`, through `cr`; no non-cache
//! node has pred `p`, as `p` is a cached read, so `p` gives the same verdicts.)
//!
//! **Lemma 1.** For `x`, `y` not both engine nodes and not both cache nodes, `x` happens
//! before `y` iff `succ(x) <= pred(y)`. *If*: `x` reaches `succ(x)`, program order leads to
//! `pred(y)`, which reaches `y`. *Only if*: by the edges above, a path from `x` to `y` must
//! pass a CPU node unless both ends are engine nodes (a path staying in the engine) or cache
//! nodes (`alloc` → `cr` → `wb`); the first CPU node `c` on it satisfies `succ(x) <= c`, the
//! last `c'` satisfies `c' <= pred(y)`, and `c <= c'` as CPU nodes are a chain.
//!
//! **Lemma 2.** Two engine nodes are ordered iff an engine-only path (queue order,
//! interlocks) joins them or their intervals are ordered: a path leaving the engine goes
//! through a `sync` after the first node's request, so it is at least the first node's succ;
//! it re-enters by a request, at most the second node's pred; and engine-only segments of a
//! mixed path only move from earlier to later requests, so they move succ and pred the same
//! way. Engine-only paths are decided by the vector clocks of [`engine`]; the only engine
//! pairs that can race are a DMA and a vector op on the scratchpad (same-queue nodes are
//! chained, vector ops touch no DRAM).
//!
//! # Every race is examined (soundness)
//!
//! A race is found when the later of its two nodes (in stream order) is observed, against
//! what is kept of the earlier one. By kinds, with `z` an engine node requested at `q`:
//!
//! * `z` vs a CPU node at `p`: a race needs `q < p < succ(z)`. If `p` comes first, a request
//!   was pending then, so it is in [`cpu_log`]; if `z` comes first, it is still unsynced when
//!   `p` comes.
//! * `z` vs a `wb` `[w, c]`: a race needs `c > q` and `succ(z) > w`. If the `wb` comes first,
//!   its dirty epoch is current, or ended after `q` while `q` was pending and is archived
//!   ([`lines`]); if `z` comes first, `z` is unsynced in [`dram`] when `w` comes.
//! * `z` (writing DRAM) vs an `alloc` `[f, r]`: a race needs `r > q` and `succ(z) > f`. If the
//!   read comes first, `q` was pending, so the read is recorded; if `z` comes first, it is in
//!   [`dram`] (unsynced, or a *stale writer* kept until the line is flushed or invalidated
//!   after `succ(z)`: the stale-line case, whose `f` lies far in the past).
//! * CPU uncached vs cache nodes (with `cpu_uncached_vs_cache`): a `wb` `[w, c]` and an
//!   access at `u` race iff `w < u < c`, i.e. the line is dirty at `u`; an uncached write at
//!   `u` and a later `alloc` race iff the line was not flushed/invalidated since `u`, so such
//!   writes are stale writers too.
//! * Two engine nodes: found when the later-arriving one arrives, against the other queue's
//!   unsynced nodes (a synced one is ordered before it by Lemma 2).
//!
//! Nodes are dropped exactly when no later node can satisfy these conditions: engine nodes
//! at their `sync` (except stale writers), logged accesses, archived epochs and recorded
//! reads once no pending request precedes them (the *horizon*: the smallest pred a future
//! node can have), stale writers when their line is flushed or invalidated. This is the
//! paper's active frontier (Lemmas 3.4–3.6, Theorems 3.7–3.8) in interval form.
//!
//! # Representatives (constant state per location)
//!
//! Some nodes stand for others that race with nothing more (Lemma 3.4/3.5 of the paper):
//!
//! * **`wb`s of one dirty epoch** of a line (the writes, and Thm 3.3 read copies, between two
//!   clean/flush/invals of it) share their succ; a byte's first writer in the epoch has the
//!   smallest pred, so it races with everything any of them does on that byte. The detector
//!   keeps the first write (its bytes) and the latest (every dirty byte) — at every check
//!   the earlier pred makes no difference (an engine node is unsynced then; an uncached
//!   access comes after all of the epoch's writes) — and reports a byte against one of them.
//! * **`alloc`s of one valid epoch** (reads between two flush/invals of the line) share their
//!   pred; the latest read has the largest succ, so only it is kept.
//! * **Stale writers** of a byte: see [`dram`] (a writer is dropped for a later writer of the
//!   same kind that it happens before).
//!
//! So the fast detector's races are a subset of the reference's (node, node, byte) triples,
//! and every reference triple `(a, b, x)` has a fast triple `(a', b', x)` where each of `a'`,
//! `b'` is the same node, or a cache node of the same kind, line and epoch, or a writer of
//! the same kind that the original happens before. The property tests check exactly this.

mod cpu_log;
mod dram;
mod engine;
mod lines;
mod quiet;

use crate::bytes::{self, LineMask};
use crate::config::{Config, ConfigError, StreamError};
use crate::event::{Access, CacheOp, Event, Origin, Pos, Range, Scope, Space, WriteBack};
use crate::node::{Footprint, NodeId, NodeKind};
use crate::race::{Race, RaceNode};

use cpu_log::CpuLog;
use dram::{DramIndex, DramNode};
use engine::{Engine, EngineNode};
use lines::{LineLook, Lines};
pub use quiet::InlineQuiet;
use quiet::QuietLines;

/// How much the detector holds, for checking that it stays bounded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StateSize {
    /// Pages of per-line state (each covers 4 KiB of addresses).
    pub line_pages: usize,
    /// Words of 64 flags of lines without a page (flagged by DMA the CPU has not met).
    pub unpaged_flag_words: usize,
    /// Dirty epochs and reads kept for pending requests.
    pub archived: usize,
    /// Segments and nodes of the DRAM index.
    pub dram_segments: usize,
    pub dram_nodes: usize,
    /// Engine nodes not yet synced.
    pub engine_nodes: usize,
    /// CPU accesses kept for pending requests.
    pub logged_accesses: usize,
}

/// The online detector. Feed it the stream with [`FastDetector::observe`]; collect races
/// with [`FastDetector::drain_races`].
#[derive(Clone, Debug)]
pub struct FastDetector {
    config: Config,
    /// The position of the last CPU node seen.
    now: Pos,
    engine: Engine,
    dram: DramIndex,
    lines: Lines,
    cpu_log: CpuLog,
    found: Vec<Race>,
    /// Lines where the next cached accesses change nothing but the position.
    quiet: QuietLines,
}

impl FastDetector {
    pub fn new(config: Config) -> Result<FastDetector, ConfigError> {
        config.validate()?;
        Ok(FastDetector {
            config,
            now: 0,
            engine: Engine::default(),
            dram: DramIndex::default(),
            lines: Lines::new(config.geometry),
            cpu_log: CpuLog::default(),
            found: Vec::new(),
            quiet: QuietLines::new(config.geometry.line_size),
        })
    }

    /// Takes one event. On a [`StreamError`] the event is ignored and the state unchanged
    /// (but for the quiet-line filter, which may be cleared: that changes no result).
    #[inline(always)]
    pub fn observe(&mut self, event: &Event) -> Result<(), StreamError> {
        // Cached accesses are nearly every event: their common case is inlined here, all else
        // kept out of line.
        if let Event::Cached { access, range, origin } = event {
            self.observe_cached(*access, *range, *origin);
            Ok(())
        } else {
            self.observe_other(event)
        }
    }

    /// Takes `Event::Cached { access, range, origin }` (which cannot break the stream's
    /// contract), without the event built.
    #[inline(always)]
    pub fn observe_cached(&mut self, access: Access, range: Range, origin: Origin) {
        self.now += 1;
        match self.line_within(range) {
            // Within one line (every aligned access): no splitting.
            Some(line) if self.quiet.covers_last(line, access) || self.quiet.covers_recent(line, access) => {}
            Some(line) => match access {
                Access::Read => self.cached_read(line, origin),
                Access::Write => self.cached_write(line, range, origin),
            },
            None => self.cached_across_lines(access, range, origin),
        }
    }

    /// Takes a cached access if it is one that changes nothing but the position, by the
    /// lines found quiet (see `quiet.rs`): true if it was (and so revealed no race), false if
    /// it must be observed in full. Short enough to inline where the events are made.
    #[inline(always)]
    pub fn observe_quiet(&mut self, access: Access, range: Range) -> bool {
        match self.line_within(range) {
            Some(line) if self.quiet.covers_last(line, access) || self.quiet.covers_recent(line, access) => {
                self.now += 1;
                true
            }
            _ => false,
        }
    }

    /// Takes a CPU access outside the cache (an uncached DRAM access, a scratchpad access)
    /// that can race with nothing and leaves nothing to keep (true), or leaves it to
    /// [`FastDetector::observe`] (false): no engine node is unsynced that it could conflict
    /// with (in DRAM only a DMA transfer can), none is requested without having arrived (so
    /// none can come that it races with, and it need not be logged), and uncached accesses
    /// are not checked against the cache. Then its node only takes the next position. (Most
    /// of the uncached accesses of a program come so: a scalar loop between syncs.)
    #[inline(always)]
    pub fn observe_cpu_quiet(&mut self, space: Space) -> bool {
        let quiet = !self.config.cpu_uncached_vs_cache
            && self.engine.oldest_pending().is_none()
            && match space {
                Space::Dram => !self.engine.has_unsynced_dma(),
                Space::Scratchpad => self.engine.unsynced_count() == 0,
            };
        if quiet {
            self.now += 1;
        }
        quiet
    }

    /// Where the quiet filter's recent lines and the position are, for a caller that takes
    /// quiet accesses inline ([`InlineQuiet`]).
    pub const INLINE_QUIET: InlineQuiet = InlineQuiet {
        now: std::mem::offset_of!(FastDetector, now),
        recent: std::mem::offset_of!(FastDetector, quiet) + QuietLines::RECENT,
        stamp: std::mem::offset_of!(FastDetector, quiet) + QuietLines::STAMP,
    };

    /// [`Detector::request_pending`](crate::Detector::request_pending).
    #[inline(always)]
    pub fn request_pending(&self) -> bool {
        self.engine.oldest_pending().is_some()
    }

    /// The line holding all of `range`, if it is not empty and within one line.
    #[inline(always)]
    fn line_within(&self, range: Range) -> Option<u32> {
        let line = range.start & !(self.line_size() - 1);
        (range.len != 0 && range.len <= self.line_size() - (range.start - line)).then_some(line)
    }

    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn observe_other(&mut self, event: &Event) -> Result<(), StreamError> {
        match event {
            // Flags no line and starts no request (see `quiet.rs`), unless it is a write
            // checked against the cache (a scratchpad write too, to keep the rule short).
            Event::CpuAccess { access, .. } if !(self.config.cpu_uncached_vs_cache && *access == Access::Write) => {}
            _ => self.quiet.clear(),
        }
        match event {
            Event::CpuAccess { space, .. } if self.observe_cpu_quiet(*space) => {}
            Event::CpuAccess { space, access, range, origin } => {
                self.now += 1;
                self.cpu_access(*space, *access, *range, *origin);
            }
            // (`observe` takes these itself.)
            Event::Cached { access, range, origin } => self.observe_cached(*access, *range, *origin),
            Event::CacheMaintenance { op, scope, .. } => {
                self.now += 1;
                self.maintenance(*op, *scope);
            }
            Event::Request { request, origin } => {
                self.now += 1;
                self.engine.request(self.now, *request, *origin);
                self.cpu_log.request(self.now);
            }
            Event::Sync { .. } => {
                let completed = self.engine.sync(self.now + 1)?;
                self.now += 1;
                self.sync(completed);
            }
            Event::Dma { .. } | Event::Vector { .. } => self.engine_node(event)?,
        }
        Ok(())
    }

    /// True when races were found since the last drain.
    #[inline]
    /// The CPU timeline position of the last CPU node observed (0 before the first).
    pub fn position(&self) -> Pos {
        self.now
    }

    pub fn has_races(&self) -> bool {
        !self.found.is_empty()
    }

    /// The races found since the last drain, in the order found.
    pub fn drain_races(&mut self) -> std::vec::Drain<'_, Race> {
        self.found.drain(..)
    }

    pub fn state_size(&self) -> StateSize {
        let (line_pages, unpaged_flag_words, archived) = self.lines.size();
        let (dram_segments, dram_nodes) = self.dram.size();
        StateSize {
            line_pages,
            unpaged_flag_words,
            archived,
            dram_segments,
            dram_nodes,
            engine_nodes: self.engine.unsynced_count(),
            logged_accesses: self.cpu_log.len(),
        }
    }

    /// The smallest pred any node still to come can have (the stale-line case aside, which
    /// the stale writers cover): the oldest pending request, or the next CPU node.
    #[inline]
    fn horizon(&self) -> Pos {
        let next = self.now + 1;
        self.engine.oldest_pending().map_or(next, |q| q.min(next))
    }

    #[inline]
    fn line_size(&self) -> u32 {
        self.config.geometry.line_size
    }

    fn report(&mut self, a: RaceNode, b: RaceNode, space: Space, bytes: Vec<Range>) {
        if !bytes.is_empty() {
            self.found.push(Race::new(a, b, space, bytes));
        }
    }

    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn cpu_access(&mut self, space: Space, access: Access, range: Range, origin: Origin) {
        let node = RaceNode {
            id: NodeId { kind: NodeKind::cpu_access(space, access), pos: self.now, line: None },
            origin,
            pred: self.now,
            succ: Some(self.now),
        };
        for (engine_node, bytes) in self.in_flight_conflicts(space, access, range) {
            self.report(engine_node, node, space, bytes);
        }
        if space == Space::Dram && self.config.cpu_uncached_vs_cache {
            let horizon = self.horizon();
            for (line, part) in bytes::split_by_line(range, self.line_size()) {
                for (wb, mask) in self.lines.current_write_backs(line, horizon) {
                    let common = bytes::intersect(&mask.ranges(line), &[part]);
                    self.report(wb, node, Space::Dram, common);
                }
                if access == Access::Write {
                    self.lines.flag(line);
                }
            }
            if access == Access::Write {
                self.dram.insert(DramNode::new(node, true), &[range]);
            }
        }
        if self.engine.oldest_pending().is_some() {
            self.cpu_log.push(node, space, access, range);
        }
    }

    /// The unsynced engine nodes a CPU `access` of `range` in `space` conflicts with, each
    /// with the common bytes, in request order. In DRAM they are looked up in the DRAM index
    /// (which holds every unsynced DMA transfer over its host bytes), so an access costs the
    /// nodes over its bytes, not every node in flight: a long unsynced run of DMAs and vector
    /// instructions followed by a loop of uncached loads stays linear.
    fn in_flight_conflicts(&self, space: Space, access: Access, range: Range) -> Vec<(RaceNode, Vec<Range>)> {
        let mut found: Vec<(RaceNode, Vec<Range>)> = match space {
            // (Every uncached access asks; in most there is no transfer in flight.)
            Space::Dram if !self.engine.has_unsynced_dma() => Vec::new(),
            Space::Dram => {
                let conflicts =
                    |n: &DramNode| n.node.id.kind.is_engine() && !n.synced() && (n.writes || access == Access::Write);
                let found = self.dram.overlapping_where(range, conflicts).into_iter();
                found.filter_map(|(key, bytes)| Some((self.dram.node(key)?.node, bytes))).collect()
            }
            Space::Scratchpad => {
                let footprint = Footprint::access(access, range);
                self.engine
                    .unsynced()
                    .map(|e| (e.node, e.footprint.space(space).conflicts(&footprint)))
                    .filter(|(_, bytes)| !bytes.is_empty())
                    .collect()
            }
        };
        found.sort_by_key(|(n, _)| n.id.pos);
        found
    }

    /// A cached access that is empty or spans lines: one access per line it touches (in
    /// order, all at the same position).
    #[inline(never)] // Rare next to accesses within a line.
    fn cached_across_lines(&mut self, access: Access, range: Range, origin: Origin) {
        for (line, part) in bytes::split_by_line(range, self.line_size()) {
            match access {
                Access::Read => self.cached_read(line, origin),
                Access::Write => self.cached_write(line, part, origin),
            }
        }
    }

    /// A cached read (at `self.now`) of bytes within `line`.
    #[inline]
    fn cached_read(&mut self, line: u32, origin: Origin) {
        let horizon = self.horizon();
        match self.lines.read(line, self.now, origin, horizon) {
            Some(look) if look.flagged => self.check_alloc(line, look.valid_since, origin),
            Some(_) => {}
            // Nothing pending, the line not flagged.
            None => self.quiet.insert(line, false),
        }
    }

    /// The `alloc` of a cached read of a flagged line against the DRAM nodes there.
    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn check_alloc(&mut self, line: u32, valid_since: Pos, origin: Origin) {
        let alloc = RaceNode {
            id: NodeId { kind: NodeKind::Alloc, pos: self.now, line: Some(line) },
            origin,
            pred: valid_since,
            succ: Some(self.now),
        };
        let whole = bytes::line_range(line, self.line_size());
        self.check_against_dram(line, valid_since, alloc, &[whole], |n| {
            n.writes && n.node.succ.is_none_or(|s| s > valid_since)
        });
    }

    /// A cached write (at `self.now`) of `part`, within `line`.
    #[inline]
    fn cached_write(&mut self, line: u32, part: Range, origin: Origin) {
        if self.config.geometry.write_back == WriteBack::Line {
            // Its `alloc`: the line's other bytes go back to memory as they were fetched.
            self.cached_read(line, origin);
        }
        let horizon = self.horizon();
        let look = self.lines.write(line, part, self.now, origin, horizon);
        if look.flagged && !look.newly_dirty.is_empty() {
            self.check_write_back(line, look, origin);
        }
        let pending = horizon <= self.now;
        if !look.flagged && !pending {
            self.quiet.insert(line, self.config.geometry.write_back == WriteBack::Line);
        }
    }

    /// The `wb` of a cached write to a flagged line (on the bytes it dirtied first) against
    /// the DRAM nodes there.
    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn check_write_back(&mut self, line: u32, look: LineLook, origin: Origin) {
        let wb = RaceNode {
            id: NodeId { kind: NodeKind::WriteBack, pos: self.now, line: Some(line) },
            origin,
            pred: self.now,
            succ: None,
        };
        let new = look.newly_dirty.ranges(line);
        self.check_against_dram(line, look.valid_since, wb, &new, |n| !n.synced());
    }

    /// Reports `cache_node` (of `line`, touching `bytes`) against the DRAM nodes there for
    /// which `races` holds, and unflags the line when none there can race with anything to
    /// come (no unsynced node, no stale writer newer than the line's last flush/inval).
    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn check_against_dram(
        &mut self,
        line: u32,
        valid_since: Pos,
        cache_node: RaceNode,
        bytes: &[Range],
        races: impl Fn(&DramNode) -> bool,
    ) {
        let mut live = false;
        let mut found = Vec::new();
        for (key, ranges) in self.dram.overlapping(bytes::line_range(line, self.line_size())) {
            let Some(node) = self.dram.node(key) else {
                continue;
            };
            live |= !node.synced() || (node.writes && node.node.succ.is_some_and(|s| s > valid_since));
            if races(node) {
                found.push((node.node, bytes::intersect(&ranges, bytes)));
            }
        }
        for (other, common) in found {
            self.report(cache_node, other, Space::Dram, common);
        }
        if !live {
            self.lines.unflag(line);
        }
    }

    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn maintenance(&mut self, op: CacheOp, scope: Scope) {
        let invalidates = matches!(op, CacheOp::Flush | CacheOp::Inval);
        match scope {
            Scope::Line(addr) => {
                let line = self.config.geometry.line_of(addr);
                let flagged = self.lines.maintain_line(line, op, self.now, self.horizon());
                if invalidates && flagged {
                    self.dram.forget_synced(Some(bytes::line_range(line, self.line_size())));
                }
            }
            Scope::All => {
                let pending = self.engine.oldest_pending().is_some();
                self.lines.maintain_all(op, self.now, pending);
                if invalidates {
                    self.dram.forget_synced(None);
                }
            }
        }
    }

    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn engine_node(&mut self, event: &Event) -> Result<(), StreamError> {
        let mut node = self.engine.admit(event)?;
        let request = node.node.pred;
        let horizon = self.horizon();
        let mut found: Vec<(RaceNode, Space, Vec<Range>)> = self
            .engine
            .concurrent_with(&node)
            .map(|o| {
                let bytes = o.footprint.scratchpad.conflicts(&node.footprint.scratchpad);
                (o.node, Space::Scratchpad, bytes)
            })
            .collect();
        found.extend(self.cpu_log.after(request).map(|a| {
            let bytes = a.footprint.conflicts(node.footprint.space(a.space));
            (a.node, a.space, bytes)
        }));
        let host = node.host_ranges();
        let writes = node.writes_dram();
        let mut cache_nodes = Vec::new();
        for (line, touched) in masks_by_line(&host, self.line_size()) {
            self.lines.concurrent_with_engine(line, request, writes, horizon, &mut cache_nodes);
            for (cache_node, mask) in cache_nodes.drain(..) {
                found.push((cache_node, Space::Dram, mask.intersection(touched).ranges(line)));
            }
        }
        for (other, space, bytes) in found {
            self.report(other, node.node, space, bytes);
        }
        node.dram_key = self.dram.insert(DramNode::new(node.node, writes), &host);
        self.engine.arrive(node);
        if self.engine.oldest_pending().is_none() {
            self.cpu_log = CpuLog::default();
            self.lines.forget_archive();
        } else {
            self.cpu_log.forget_up_to(self.horizon());
        }
        Ok(())
    }

    #[inline(never)] // Rare next to cached accesses: keep it out of `observe`.
    fn sync(&mut self, completed: Vec<EngineNode>) {
        for node in completed {
            let Some(key) = node.dram_key else { continue };
            if node.writes_dram() {
                self.dram.set_succ(key, self.now);
            } else {
                self.dram.remove(key, &node.host_ranges());
            }
        }
    }
}

/// The lines `ranges` (sorted, disjoint) touch, in order, each with the bytes touched.
fn masks_by_line(ranges: &[Range], line_size: u32) -> impl Iterator<Item = (u32, LineMask)> + '_ {
    // An iterator, not a list of every line: a node's ranges may span the whole memory.
    let mut parts = ranges
        .iter()
        .flat_map(move |&range| bytes::split_by_line(range, line_size))
        .map(|(line, part)| (line, LineMask::of(line, part)))
        .peekable();
    std::iter::from_fn(move || {
        let (line, mut touched) = parts.next()?;
        while let Some((_, mask)) = parts.next_if(|&(next, _)| next == line) {
            touched = touched.union(mask);
        }
        Some((line, touched))
    })
}
