//! Per-line cache state: the derived cache nodes of each line, condensed to the few that
//! can still race (see the module documentation of [`crate::fast`] for why these suffice).
//!
//! For each line: the last line-scope flush/inval (the `pred` of every `alloc` since), the
//! current *dirty epoch* (the writes since the last clean/flush/inval: the first one, whose
//! `wb` dominates the others, and the latest one, whose `wb` covers every dirty byte), and
//! while requests are pending the latest read (whose `alloc` dominates the epoch's others).
//! Epochs that end while a request is pending are archived until no pending request is older
//! than their end. Whole-cache operations are applied lazily, when a line is next looked at.

use std::collections::BTreeMap;

use crate::bytes::LineMask;
use crate::event::{CacheGeometry, CacheOp, Origin, Pos, Range, WriteBack};
use crate::node::{NodeId, NodeKind};
use crate::race::RaceNode;

/// The writes to a line since it was last clean (a value: the line state stores it flat).
#[derive(Clone, Copy, Debug)]
struct DirtyEpoch {
    first: Pos,
    first_origin: Origin,
    /// The bytes the first write's `wb` writes (the whole line under `WriteBack::Line`).
    first_mask: LineMask,
    latest: Pos,
    latest_origin: Origin,
    /// Every dirty byte: what the latest write's `wb` writes.
    mask: LineMask,
}

impl DirtyEpoch {
    /// The `wb` nodes standing for the epoch, each with the bytes it is reported for: the
    /// first write's on its bytes, the latest write's on the bytes dirtied since.
    fn write_backs(&self, line: u32, succ: Option<Pos>) -> Vec<(RaceNode, LineMask)> {
        let wb = |pos, origin| RaceNode {
            id: NodeId { kind: NodeKind::WriteBack, pos, line: Some(line) },
            origin,
            pred: pos,
            succ,
        };
        let mut out = vec![(wb(self.first, self.first_origin), self.first_mask)];
        let rest = self.mask.without(self.first_mask);
        if !rest.is_empty() {
            out.push((wb(self.latest, self.latest_origin), rest));
        }
        out
    }
}

/// The latest cached read of a line in one valid epoch (since a flush/inval).
#[derive(Clone, Copy, Debug)]
struct LatestRead {
    pos: Pos,
    origin: Origin,
    /// The last flush/inval of the line before the read: the `alloc`'s pred.
    valid_since: Pos,
}

impl LatestRead {
    fn alloc(&self, line: u32) -> RaceNode {
        RaceNode {
            id: NodeId { kind: NodeKind::Alloc, pos: self.pos, line: Some(line) },
            origin: self.origin,
            pred: self.valid_since,
            succ: Some(self.pos),
        }
    }
}

/// One line's state, laid out flat in cache lines: the first holds what every access
/// looks at, including the latest read (so that a read, pending request or not, and a write
/// under whole-line write-back touch only it); the second what only reports and byte-granular
/// write-back need. (Positions start at 1, so 0 means "none".)
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
struct LineState {
    /// The first write of the current dirty epoch (0: the line is clean).
    dirty_first: Pos,
    /// Last line-scope flush/inval.
    inval_at: Pos,
    /// The last whole-cache operation this state has been brought up to date with.
    caught_up: Pos,
    /// The latest read, recorded only while a request is pending (only then can an engine
    /// node still to come race with an `alloc` that is already over); 0: none.
    read_pos: Pos,
    read_valid_since: Pos,
    read_cycle: u64,
    read_pc: u32,
    read_ctx: u32,
    /// The first write's bytes, as an offset and length within the line.
    first_offset: u16,
    first_len: u16,
    /// Every dirty byte of the current dirty epoch.
    dirty_mask: LineMask,
    /// The latest write of the current dirty epoch.
    dirty_latest: Pos,
    first_cycle: u64,
    latest_cycle: u64,
    first_pc: u32,
    latest_pc: u32,
    first_ctx: u32,
    latest_ctx: u32,
}

// Three cache lines: the two documented above, the second one spilling the call contexts.
const _: () = assert!(std::mem::size_of::<LineState>() == 192);

impl LineState {
    fn dirty(&self, line: u32) -> Option<DirtyEpoch> {
        (self.dirty_first != 0).then(|| DirtyEpoch {
            first: self.dirty_first,
            first_origin: Origin { pc: self.first_pc, cycle: self.first_cycle, ctx: self.first_ctx },
            first_mask: LineMask::of(line, Range::new(line + self.first_offset as u32, self.first_len as u32)),
            latest: self.dirty_latest,
            latest_origin: Origin { pc: self.latest_pc, cycle: self.latest_cycle, ctx: self.latest_ctx },
            mask: self.dirty_mask,
        })
    }

    fn read(&self) -> Option<LatestRead> {
        (self.read_pos != 0).then_some(LatestRead {
            pos: self.read_pos,
            origin: Origin { pc: self.read_pc, cycle: self.read_cycle, ctx: self.read_ctx },
            valid_since: self.read_valid_since,
        })
    }

    fn set_read(&mut self, read: LatestRead) {
        self.read_pos = read.pos;
        self.read_pc = read.origin.pc;
        self.read_cycle = read.origin.cycle;
        self.read_ctx = read.origin.ctx;
        self.read_valid_since = read.valid_since;
    }

    /// Opens a dirty epoch with a write at `pos` of `part` (within `line`); returns the bytes
    /// its `wb` writes.
    #[inline(never)] // Once per epoch: keep it out of the per-access path.
    fn start_dirty_epoch(
        &mut self,
        line: u32,
        part: Range,
        pos: Pos,
        origin: Origin,
        geometry: CacheGeometry,
    ) -> LineMask {
        let (offset, len, written) = match geometry.write_back {
            WriteBack::Line => (0, geometry.line_size, LineMask::full(geometry.line_size)),
            WriteBack::DirtyBytes => (part.start - line, part.len, LineMask::of(line, part)),
        };
        self.dirty_first = pos;
        self.first_pc = origin.pc;
        self.first_cycle = origin.cycle;
        self.first_ctx = origin.ctx;
        self.first_offset = offset as u16;
        self.first_len = len as u16;
        self.dirty_mask = written;
        self.dirty_latest = pos;
        self.latest_pc = origin.pc;
        self.latest_cycle = origin.cycle;
        self.latest_ctx = origin.ctx;
        written
    }

    fn clear_dirty(&mut self) {
        self.dirty_first = 0;
        self.dirty_mask = LineMask::EMPTY;
    }

    /// True when a whole-cache operation came since the state was last brought up to date.
    #[inline]
    fn is_stale(&self, whole: &WholeCacheOps) -> bool {
        self.caught_up < whole.last
    }

    /// Ends the epochs that whole-cache operations have ended, archiving those that ended
    /// after `horizon` (they may still race with a pending request's engine node).
    #[cold]
    #[inline(never)]
    fn catch_up(&mut self, line: u32, whole: &WholeCacheOps, horizon: Pos, archive: &mut BTreeMap<u32, Vec<Archived>>) {
        self.caught_up = whole.last;
        let mut ended = Vec::new();
        if let Some(epoch) = self.dirty(line).filter(|d| d.first < whole.last) {
            if let Some(end) = whole.end_of_epoch_from(epoch.first).filter(|&e| e > horizon) {
                ended.push(Archived::Dirty { epoch, ended: end });
            }
            self.clear_dirty();
        }
        let valid_since = self.inval_at.max(whole.last_invalidating);
        if let Some(read) = self.read().filter(|r| r.valid_since < valid_since) {
            if read.pos > horizon {
                ended.push(Archived::Read(read));
            }
            self.read_pos = 0;
        }
        if !ended.is_empty() {
            archive.entry(line).or_default().extend(ended);
        }
    }
}

/// An epoch that ended while a request was pending.
#[derive(Clone, Copy, Debug)]
enum Archived {
    Dirty { epoch: DirtyEpoch, ended: Pos },
    Read(LatestRead),
}

/// Whole-cache maintenance, applied to each line when it is next looked at.
#[derive(Clone, Debug, Default)]
struct WholeCacheOps {
    last: Pos,
    last_invalidating: Pos,
    /// The whole-cache operations made while requests were pending, in order: the end of a
    /// dirty epoch they closed may still matter to a pending request's engine node.
    recent: Vec<Pos>,
    /// The latest whole-cache operation no longer in `recent`: epochs it (or an earlier
    /// one) ended are over for good.
    forgotten: Pos,
}

impl WholeCacheOps {
    /// The end of a dirty epoch whose first write was at `first`, closed by a whole-cache
    /// operation; `None` if it ended too long ago to matter.
    fn end_of_epoch_from(&self, first: Pos) -> Option<Pos> {
        if first < self.forgotten {
            return None;
        }
        let i = self.recent.partition_point(|&c| c < first);
        self.recent.get(i).copied()
    }
}

/// Line states in a sparse two-level table over the 32-bit address space: O(1) lookups with
/// no hashing, and pages only where lines have been touched. Each line with a state has an
/// index (a page's lines consecutive, pages in the order they were created); the table maps
/// a page number to where its lines start. The last page looked up is remembered, so an
/// access near the previous one (the usual case) costs a compare and an index.
#[derive(Clone, Debug)]
struct LineTable {
    line_shift: u32,
    lines_per_page: usize,
    /// Per 4 MiB of addresses, per 4 KiB page: 1 + the page's index (0: no page yet).
    directories: Box<[Option<Directory>; DIRECTORIES]>,
    /// The states of the lines of each page, by page index: state `i` is line `i %
    /// lines_per_page` of page `i / lines_per_page`. (A page's in an allocation of its own, so
    /// that the table grows without moving what it holds: one vector of all states, doubling,
    /// copied itself at each doubling — 100 MB in `vbw_mtx_sobel`'s run — and touched twice
    /// the memory it kept.)
    states: Vec<Box<[LineState]>>,
    pages: usize,
    /// The page number last looked up (`u32::MAX`, never a page number: none) and the index
    /// of its first line.
    memo_page: u32,
    memo_base: usize,
    /// The flags of lines in pages without states: a DMA over memory the CPU never touched
    /// through the cache flags its lines, and a page of states per 4 KiB would make a 1 GiB
    /// transfer cost gigabytes. One bit per line here, moved into the states when the CPU's
    /// first access creates the page.
    unpaged_flags: LineBits,
    /// Per line with a state (by its index), a bit: some live non-cache DRAM
    /// node may overlap the line (see [`super::dram`]); cleared lazily when a look finds
    /// none. Kept apart from the states: a read with no request pending (nearly every event)
    /// needs only this bit, and 64 of them share a word where a state is 192 bytes.
    flags: Vec<u64>,
    /// Whether a line was ever flagged: until then (a program that has not yet started a
    /// DMA or written memory uncached, or never does) a read with no request pending has
    /// nothing to look at.
    ever_flagged: bool,
}

/// A sparse set of line numbers (addresses shifted by the line size's bits), a bit each.
#[derive(Clone, Debug, Default)]
struct LineBits(BTreeMap<u32, u64>);

impl LineBits {
    fn insert(&mut self, n: u32) {
        *self.0.entry(n >> 6).or_insert(0) |= 1 << (n & 63);
    }

    fn contains(&self, n: u32) -> bool {
        self.0.get(&(n >> 6)).is_some_and(|word| word & 1 << (n & 63) != 0)
    }

    /// Removes the numbers in `first..first + count`, calling `found` with each that was there.
    fn take_run(&mut self, first: u32, count: u32, mut found: impl FnMut(u32)) {
        let end = first + count;
        let words: Vec<u32> = self.0.range(first >> 6..=(end - 1) >> 6).map(|(&word, _)| word).collect();
        for word in words {
            let bits = self.0.get_mut(&word).expect("a word just seen");
            for bit in 0..64 {
                let n = word << 6 | bit;
                if (first..end).contains(&n) && *bits & 1 << bit != 0 {
                    *bits &= !(1 << bit);
                    found(n);
                }
            }
            if *bits == 0 {
                self.0.remove(&word);
            }
        }
    }

    /// Words of bits held (for memory checks).
    fn words(&self) -> usize {
        self.0.len()
    }

    /// Removes `n`; whether it was there.
    fn take(&mut self, n: u32) -> bool {
        let Some(word) = self.0.get_mut(&(n >> 6)) else { return false };
        let had = *word & 1 << (n & 63) != 0;
        *word &= !(1 << (n & 63));
        if *word == 0 {
            self.0.remove(&(n >> 6));
        }
        had
    }
}

/// The pages of 4 MiB of addresses (see [`LineTable::directories`]).
type Directory = Box<[u32; PAGES_PER_DIRECTORY]>;

const PAGE_BITS: u32 = 12;
const DIRECTORY_BITS: u32 = 10;
const PAGES_PER_DIRECTORY: usize = 1 << DIRECTORY_BITS;
const DIRECTORIES: usize = 1 << (32 - PAGE_BITS - DIRECTORY_BITS);

impl LineTable {
    fn new(line_size: u32) -> LineTable {
        let line_shift = line_size.trailing_zeros();
        let directories = vec![None; DIRECTORIES].into_boxed_slice().try_into().expect("DIRECTORIES entries");
        LineTable {
            line_shift,
            lines_per_page: 1 << (PAGE_BITS - line_shift),
            directories,
            states: Vec::new(),
            pages: 0,
            memo_page: u32::MAX,
            memo_base: 0,
            unpaged_flags: LineBits::default(),
            flags: Vec::new(),
            ever_flagged: false,
        }
    }

    /// Flags `line` (or, `false`, clears its flag) without creating its page.
    fn set_flag(&mut self, line: u32, flagged: bool) {
        self.ever_flagged |= flagged;
        let n = line >> self.line_shift;
        match self.find(line) {
            Some(i) => self.set_flag_at(i, flagged),
            None if flagged => self.unpaged_flags.insert(n),
            None => {
                self.unpaged_flags.take(n);
            }
        }
    }

    /// State `i`.
    #[inline]
    fn state_at(&self, i: usize) -> &LineState {
        let (page, line) = self.page_and_line(i);
        &self.states[page][line]
    }

    /// The page index and the line in it of state `i` (`lines_per_page` is a power of two).
    #[inline]
    fn page_and_line(&self, i: usize) -> (usize, usize) {
        (i >> (PAGE_BITS - self.line_shift), i & (self.lines_per_page - 1))
    }

    /// Whether the line whose state is `i` is flagged.
    #[inline]
    fn flagged_at(&self, i: usize) -> bool {
        self.flags[i >> 6] & 1 << (i & 63) != 0
    }

    /// Sets the flag of the line whose state is `i`.
    fn set_flag_at(&mut self, i: usize, flagged: bool) {
        match flagged {
            true => self.flags[i >> 6] |= 1 << (i & 63),
            false => self.flags[i >> 6] &= !(1 << (i & 63)),
        }
    }

    /// Whether `line`, whose page has no states, is flagged.
    #[inline]
    fn unpaged_flagged(&self, line: u32) -> bool {
        !self.unpaged_flags.0.is_empty() && self.unpaged_flags.contains(line >> self.line_shift)
    }

    /// The index of `line` within its page.
    #[inline]
    fn offset(&self, line: u32) -> usize {
        ((line & ((1 << PAGE_BITS) - 1)) >> self.line_shift) as usize
    }

    /// The index of the first line of page `page`, if it exists.
    #[inline]
    fn find_page(&self, page: u32) -> Option<usize> {
        if page == self.memo_page {
            return Some(self.memo_base);
        }
        let directory = self.directories[(page >> DIRECTORY_BITS) as usize].as_ref()?;
        match directory[(page as usize) & (PAGES_PER_DIRECTORY - 1)] {
            0 => None,
            n => Some((n as usize - 1) * self.lines_per_page),
        }
    }

    #[inline]
    fn find(&self, line: u32) -> Option<usize> {
        self.find_page(line >> PAGE_BITS).map(|base| base + self.offset(line))
    }

    #[inline]
    fn get(&self, line: u32) -> Option<&LineState> {
        self.find(line).map(|i| self.state_at(i))
    }

    /// The state of `line` (its page created if needed) and whether the line is flagged.
    #[inline]
    fn get_or_insert(&mut self, line: u32) -> (&mut LineState, bool) {
        let page = line >> PAGE_BITS;
        if page != self.memo_page {
            self.memo_base = match self.find_page(page) {
                Some(base) => base,
                None => self.insert_page(page),
            };
            self.memo_page = page;
        }
        let i = self.memo_base + self.offset(line);
        let flagged = self.flagged_at(i);
        let (page, line) = self.page_and_line(i);
        (&mut self.states[page][line], flagged)
    }

    /// Creates page `page` (which must not exist); returns the index of its first line.
    #[cold]
    #[inline(never)]
    fn insert_page(&mut self, page: u32) -> usize {
        let directory = self.directories[(page >> DIRECTORY_BITS) as usize].get_or_insert_with(new_directory);
        self.pages += 1;
        directory[(page as usize) & (PAGES_PER_DIRECTORY - 1)] = u32::try_from(self.pages).expect("at most 2^20 pages");
        self.states.push(vec![LineState::default(); self.lines_per_page].into_boxed_slice());
        self.flags.resize((self.pages * self.lines_per_page).div_ceil(64), 0);
        let base = (self.pages - 1) * self.lines_per_page;
        let first = (page << PAGE_BITS) >> self.line_shift;
        let flags = &mut self.flags;
        self.unpaged_flags.take_run(first, self.lines_per_page as u32, |n| {
            let i = base + (n - first) as usize;
            flags[i >> 6] |= 1 << (i & 63);
        });
        base
    }
}

#[cold]
fn new_directory() -> Directory {
    Box::new([0; PAGES_PER_DIRECTORY])
}

/// What a cached access found on its line.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LineLook {
    /// Some live non-cache DRAM node may overlap the line.
    pub flagged: bool,
    /// The last flush/inval of the line (the pred of an `alloc` now).
    pub valid_since: Pos,
    /// For a write: the bytes it dirtied first in the epoch (its `wb` is their dominating one).
    pub newly_dirty: LineMask,
}

#[derive(Clone, Debug)]
pub(crate) struct Lines {
    geometry: CacheGeometry,
    /// Every byte of a line.
    full: LineMask,
    table: LineTable,
    archive: BTreeMap<u32, Vec<Archived>>,
    whole: WholeCacheOps,
}

impl Lines {
    pub fn new(geometry: CacheGeometry) -> Lines {
        Lines {
            geometry,
            full: LineMask::full(geometry.line_size),
            table: LineTable::new(geometry.line_size),
            archive: BTreeMap::new(),
            whole: WholeCacheOps::default(),
        }
    }

    /// (pages of line states, 64-line words of flags of lines without pages, archived
    /// epochs): for memory checks.
    pub fn size(&self) -> (usize, usize, usize) {
        (self.table.pages, self.table.unpaged_flags.words(), self.archive.values().map(Vec::len).sum())
    }

    /// The state of `line` (created if needed), brought up to date with the whole-cache
    /// operations since it was last looked at, and whether the line is flagged.
    #[inline]
    fn state(&mut self, line: u32, horizon: Pos) -> (&mut LineState, bool) {
        let (state, flagged) = self.table.get_or_insert(line);
        if state.is_stale(&self.whole) {
            state.catch_up(line, &self.whole, horizon, &mut self.archive);
        }
        (state, flagged)
    }

    /// A cached read at `pos`. `None` when nothing needs checking: no live DRAM node may
    /// overlap the line and, with no request pending, there is nothing to record.
    #[inline]
    pub fn read(&mut self, line: u32, pos: Pos, origin: Origin, horizon: Pos) -> Option<LineLook> {
        let pending = horizon <= pos;
        if !pending {
            if !self.table.ever_flagged {
                return None;
            }
            let inval_at = match self.table.find(line) {
                Some(i) if self.table.flagged_at(i) => self.table.state_at(i).inval_at,
                None if self.table.unpaged_flagged(line) => 0,
                _ => return None,
            };
            return Some(LineLook {
                flagged: true,
                valid_since: inval_at.max(self.whole.last_invalidating),
                newly_dirty: LineMask::EMPTY,
            });
        }
        let last_invalidating = self.whole.last_invalidating;
        let (state, flagged) = self.state(line, horizon);
        let valid_since = state.inval_at.max(last_invalidating);
        state.set_read(LatestRead { pos, origin, valid_since });
        Some(LineLook { flagged, valid_since, newly_dirty: LineMask::EMPTY })
    }

    /// A cached write at `pos` of `part` (within `line`).
    #[inline]
    pub fn write(&mut self, line: u32, part: Range, pos: Pos, origin: Origin, horizon: Pos) -> LineLook {
        let geometry = self.geometry;
        let write_back = geometry.write_back;
        let last_invalidating = self.whole.last_invalidating;
        let (state, flagged) = self.state(line, horizon);
        let newly_dirty = if state.dirty_first == 0 {
            state.start_dirty_epoch(line, part, pos, origin, geometry)
        } else {
            match write_back {
                // The first write's `wb` covers the line: later ones add nothing.
                WriteBack::Line => LineMask::EMPTY,
                WriteBack::DirtyBytes => {
                    let new = LineMask::of(line, part).without(state.dirty_mask);
                    state.dirty_mask = state.dirty_mask.union(new);
                    state.dirty_latest = pos;
                    state.latest_pc = origin.pc;
                    state.latest_cycle = origin.cycle;
                    state.latest_ctx = origin.ctx;
                    new
                }
            }
        };
        LineLook { flagged, valid_since: state.inval_at.max(last_invalidating), newly_dirty }
    }

    /// A line-scope clean/flush/inval at `pos`. Returns whether the line is flagged.
    pub fn maintain_line(&mut self, line: u32, op: CacheOp, pos: Pos, horizon: Pos) -> bool {
        let (state, flagged) = self.state(line, horizon);
        let mut ended = Vec::new();
        if let Some(epoch) = state.dirty(line) {
            if pos > horizon {
                ended.push(Archived::Dirty { epoch, ended: pos });
            }
            state.clear_dirty();
        }
        if matches!(op, CacheOp::Flush | CacheOp::Inval) {
            state.inval_at = pos;
            if let Some(read) = state.read() {
                if read.pos > horizon {
                    ended.push(Archived::Read(read));
                }
                state.read_pos = 0;
            }
        }
        if !ended.is_empty() {
            self.archive.entry(line).or_default().extend(ended);
        }
        flagged
    }

    /// A whole-cache clean/flush/inval at `pos`.
    pub fn maintain_all(&mut self, op: CacheOp, pos: Pos, pending: bool) {
        self.whole.last = pos;
        if matches!(op, CacheOp::Flush | CacheOp::Inval) {
            self.whole.last_invalidating = pos;
        }
        if pending {
            self.whole.recent.push(pos);
        } else {
            self.whole.forgotten = pos;
        }
    }

    /// No request is pending any more: nothing archived can race with anything to come.
    pub fn forget_archive(&mut self) {
        self.archive.clear();
        if let Some(&last) = self.whole.recent.last() {
            self.whole.forgotten = self.whole.forgotten.max(last);
        }
        self.whole.recent.clear();
    }

    pub fn flag(&mut self, line: u32) {
        self.table.set_flag(line, true);
    }

    pub fn unflag(&mut self, line: u32) {
        self.table.set_flag(line, false);
    }

    /// The cache nodes of `line` that an engine node requested at `request` (arriving now,
    /// so not yet synced) is concurrent with, each with the bytes it is reported for: every
    /// `wb` of an epoch that ended after the request (or has not ended), and if the engine
    /// node writes, every `alloc` of a read after the request. Appends them to `out`; flags
    /// the line.
    pub fn concurrent_with_engine(
        &mut self,
        line: u32,
        request: Pos,
        engine_writes: bool,
        horizon: Pos,
        out: &mut Vec<(RaceNode, LineMask)>,
    ) {
        if self.table.get(line).is_none() {
            // The CPU never touched the line's page through the cache: no cache node of it
            // exists, and only the flag is kept (see `LineTable::unpaged_flags`).
            self.table.set_flag(line, true);
            return;
        }
        let full = self.full;
        let (state, _) = self.state(line, horizon);
        let (dirty, read) = (state.dirty(line), state.read());
        self.table.set_flag(line, true);
        if let Some(archived) = self.archive.get(&line) {
            for entry in archived {
                match entry {
                    Archived::Dirty { epoch, ended } if *ended > request => {
                        out.extend(epoch.write_backs(line, Some(*ended)));
                    }
                    Archived::Read(read) if engine_writes && read.pos > request => {
                        out.push((read.alloc(line), full));
                    }
                    _ => {}
                }
            }
        }
        if let Some(epoch) = dirty {
            out.extend(epoch.write_backs(line, None));
        }
        if let Some(read) = read.filter(|r| engine_writes && r.pos > request) {
            out.push((read.alloc(line), full));
        }
    }

    /// The `wb` nodes of the line's current dirty epoch (for a CPU uncached access now).
    pub fn current_write_backs(&mut self, line: u32, horizon: Pos) -> Vec<(RaceNode, LineMask)> {
        if self.table.get(line).is_none() {
            return Vec::new();
        }
        self.state(line, horizon).0.dirty(line).map_or_else(Vec::new, |epoch| epoch.write_backs(line, None))
    }
}
