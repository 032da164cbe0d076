//! The write-back data cache. The data really lives here: DRAM holds only what has been
//! written back, so a read through the uncached alias (or a DMA) sees stale bytes until the
//! line is written back. That is what lets races corrupt data in the simulation as they do
//! on the hardware.
//!
//! Parts, as in gem5's cache: [`config`] (parameters), tags and data (here), [`replacement`]
//! (victim choice), miss handling (allocate/write back, here), [`stats`]. The cache moves
//! bytes between itself and DRAM and reports how many in a [`Traffic`]; timing that traffic
//! is the memory system's job.
//!
//! A direct-mapped *front-end filter* of recently hit lines (as in r2vm) finds the slot of a
//! hit without searching the set, which keeps hits cheap for any associativity.

pub mod config;
mod kept;
pub mod replacement;
pub mod stats;

use crate::bus::{CacheHits, DirectPointers, FilterEntry, Width};
use crate::dram::{copy, Dram};
use crate::timeline::CacheAction;
use config::{CacheConfig, WritePolicy};
use kept::Kept;
pub use kept::KeptLine;
use mxpsim_detector::event::{CacheOp, WriteBack};
use replacement::Replacement;
use stats::CacheStats;

/// Tag of an empty slot: line addresses are at least 16-byte aligned, so never odd.
const INVALID: u32 = 1;
/// Entries of the front-end filter (a power of two), direct-mapped by line number: twice the
/// cache's lines, so that lines of one set, or of sets far apart, rarely evict each other's
/// entry there, and every line of a region as large as the cache has an entry of its own.
/// (The default cache's 512 lines: 1,024 entries, 8 KiB. 64 entries sent a hit to the set
/// search in 150,000 of the loads of cpubench's first 3 × 10⁷ instructions, 1 in 18; with
/// 1,024 its whole run took 8.91 × 10⁹ → 8.29 × 10⁹ host instructions, by callgrind. A
/// fixed 1,024 for every cache sent most hits of a 4 MiB cache to the helper and the set's
/// search: cpubench with `--cache size=4M`, 73,697 misses, took 4.79 × 10⁹ host instructions
/// and 370 ms so, 4.13 × 10⁹ and 310 ms sized so, best of 5 interleaved runs.)
fn filter_entries(slots: usize) -> usize {
    (2 * slots).next_power_of_two().clamp(MIN_FILTER_ENTRIES, MAX_FILTER_ENTRIES)
}
const MIN_FILTER_ENTRIES: usize = 1024;
/// 2 MiB of entries, for 131,072 lines (4 MiB of 32-byte lines): a larger filter would be
/// larger than the host's own caches, its look a host miss of its own.
const MAX_FILTER_ENTRIES: usize = 1 << 18;

/// Bytes a cache operation moved to or from memory.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Traffic {
    /// Bytes read from memory to fill a line.
    pub fill: u32,
    /// Bytes written back from dirty lines.
    pub writeback: u32,
    /// Bytes of a write-through store.
    pub through: u32,
}

/// A cache line as a debugger sees it ([`Cache::line_state`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineState {
    /// The line's address.
    pub line: u32,
    /// The set it maps to.
    pub set: u32,
    /// Where it is held, if it is.
    pub held: Option<HeldLine>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeldLine {
    pub way: u32,
    /// The offsets of the bytes written since the line was last clean.
    pub dirty: Vec<u32>,
    /// The line's bytes as the cache holds them.
    pub data: Vec<u8>,
}

/// Why a line is written back: its slot is reused, it stays (a clean), or it goes (a flush).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Leaving {
    Evicted,
    Stays,
    Flushed,
}

/// Per-slot dirty bytes: one bit per byte of a line of at most 256 bytes.
pub(crate) type DirtyMask = [u64; 4];

pub struct Cache {
    line: u32,
    line_shift: u32,
    set_mask: u32,
    ways: u32,
    write: WritePolicy,
    writeback_granularity: WriteBack,
    /// Line address held by each slot (`set * ways + way`), or `INVALID`.
    tags: Vec<u32>,
    dirty: Vec<DirtyMask>,
    data: Vec<u8>,
    replacement: Replacement,
    /// Recently used lines and their slots, indexed by the line number's low bits.
    /// (Compiled code finds an entry by a mask, as `filter_index` does: its length is a power
    /// of two.)
    filter: Box<[FilterEntry]>,
    /// `filter.len() - 1`, kept beside it: the index of every look-up (a load where the
    /// length would be a load and a subtraction).
    filter_mask: usize,
    /// A line under a deliberate schedule's directive ([`kept`]), if any.
    kept: Option<Kept>,
    /// The fills and write-backs since the memory system last took them, when it asks for
    /// them ([`Cache::log_actions`]: a timeline).
    actions: Option<Vec<(CacheAction, u32)>>,
    pub stats: CacheStats,
}

impl Cache {
    /// A cache for a validated configuration.
    pub fn new(cfg: &CacheConfig) -> Self {
        let sets = cfg.sets();
        let slots = (sets * cfg.ways) as usize;
        let filter_entries = filter_entries(slots);
        Cache {
            line: cfg.line,
            line_shift: cfg.line.trailing_zeros(),
            set_mask: sets - 1,
            ways: cfg.ways,
            write: cfg.write,
            writeback_granularity: cfg.writeback,
            tags: vec![INVALID; slots],
            dirty: vec![[0; 4]; slots],
            data: vec![0; slots * cfg.line as usize],
            replacement: Replacement::new(cfg.policy, sets, cfg.ways, cfg.seed),
            filter: vec![FilterEntry { line: INVALID, slot: 0 }; filter_entries].into_boxed_slice(),
            filter_mask: filter_entries - 1,
            kept: None,
            actions: None,
            stats: CacheStats::default(),
        }
    }

    pub fn line_size(&self) -> u32 {
        self.line
    }

    /// Capacity in bytes.
    pub fn size(&self) -> u32 {
        self.tags.len() as u32 * self.line
    }

    fn line_of(&self, addr: u32) -> u32 {
        addr & !(self.line - 1)
    }

    fn set_of(&self, line: u32) -> u32 {
        (line >> self.line_shift) & self.set_mask
    }

    fn filter_index(&self, line: u32) -> usize {
        (line >> self.line_shift) as usize & self.filter_mask
    }

    fn data_offset(&self, slot: u32, addr: u32) -> usize {
        ((slot << self.line_shift) | (addr & (self.line - 1))) as usize
    }

    /// The slot of `addr`'s line if the filter has it: a hit found without searching the set.
    #[inline(always)]
    fn filtered(&self, addr: u32) -> Option<u32> {
        let line = self.line_of(addr);
        let entry = self.filter[self.filter_index(line)];
        (entry.line == line).then_some(entry.slot)
    }

    /// The slot holding `line`, if any; refreshes the filter.
    fn lookup(&mut self, line: u32) -> Option<u32> {
        self.find(line).ok()
    }

    /// Where `line` is, or where a fill of it would go: `Ok(slot)` if it is held (the filter
    /// refreshed), else `Err` with the first invalid slot of its set, if there is one. By the
    /// set's search, not the filter's: the filter holds only what the search would find, and
    /// the CPU's accesses within a line have looked there already (`load_filtered`,
    /// `write_filtered`, compiled code); the rest (an access across two lines, a cache
    /// operation, a schedule's directive) are rare.
    #[inline(always)]
    fn find(&mut self, line: u32) -> Result<u32, Option<u32>> {
        let slot = self.search_set(line)?;
        let f = self.filter_index(line);
        self.filter[f] = FilterEntry { line, slot };
        Ok(slot)
    }

    /// The slot holding `line`, if any, by a search of its set.
    fn held_slot(&self, line: u32) -> Option<u32> {
        self.search_set(line).ok()
    }

    /// A search of `line`'s set: `Ok(slot)` if a slot holds it, else `Err` with the first
    /// invalid slot, if there is one. (One pass for both: a miss searched the set twice, once
    /// for the line and once for an invalid way.)
    #[inline(always)]
    fn search_set(&self, line: u32) -> Result<u32, Option<u32>> {
        let first = self.set_of(line) * self.ways;
        let set_tags = &self.tags[first as usize..(first + self.ways) as usize];
        let mut free = None;
        for (way, &tag) in set_tags.iter().enumerate() {
            let slot = first + way as u32;
            if tag == line {
                return Ok(slot);
            }
            if tag == INVALID && free.is_none() {
                free = Some(slot);
            }
        }
        Err(free)
    }

    #[inline(always)]
    fn touch(&mut self, slot: u32) {
        self.replacement.touch(slot);
    }

    /// The value of the `width` bytes at `addr`, all within one line, if the filter has its
    /// line, loaded as [`Cache::read`] would; else `None`, having done nothing. The memory
    /// system's fast path: inlined at every load, the rest of a read is not. (The value is
    /// loaded from the line at its width, not copied into a buffer first: a byte or half copied
    /// into a zeroed word on the stack and read back as a word cannot be forwarded from the
    /// store buffer, and that stall was a sixth of a byte-heavy program's run.)
    #[inline(always)]
    pub fn load_filtered(&mut self, addr: u32, width: Width) -> Option<u32> {
        let slot = self.filtered(addr)?;
        self.stats.read_accesses += 1;
        self.touch(slot);
        let off = self.data_offset(slot, addr);
        Some(width.load_le(&self.data[off..]))
    }

    /// The hit path of [`Cache::load_filtered`] and [`Cache::write_filtered`] for compiled
    /// code to take inline ([`crate::bus::Direct`]); `None` if a hit changes more than that
    /// code does (a pseudo-LRU tree). `hit_stall`: the cycles a hit stalls the hart.
    pub fn hits(&self, hit_stall: u64) -> Option<CacheHits> {
        Some(CacheHits {
            line_shift: self.line_shift,
            filter_entries: self.filter.len() as u32,
            hit_stall,
            stamps: self.replacement.stamps_hits()?,
        })
    }

    /// `pointers` with this cache's, for [`Cache::hits`].
    pub fn hit_pointers(&mut self, pointers: DirectPointers) -> DirectPointers {
        let (stamps, clock) = self.replacement.stamp_pointers();
        DirectPointers {
            filter: self.filter.as_ptr(),
            data: self.data.as_mut_ptr(),
            dirty: self.dirty.as_mut_ptr().cast(),
            stamps,
            clock,
            reads: &mut self.stats.read_accesses,
            writes: &mut self.stats.write_accesses,
            ..pointers
        }
    }

    /// True if stores that hit are written into the cache alone (write-back).
    pub fn writes_back(&self) -> bool {
        self.write == WritePolicy::Back
    }

    /// Loads `buf.len()` bytes at `addr`, all within one line.
    #[inline(never)]
    pub fn read(&mut self, mem: &mut Dram, addr: u32, buf: &mut [u8]) -> Traffic {
        mxpsim_detector::invariant!(self.line_of(addr) == self.line_of(addr + (buf.len() as u32 - 1)));
        self.stats.read_accesses += 1;
        let line = self.line_of(addr);
        let mut traffic = Traffic::default();
        let slot = match self.find(line) {
            Ok(slot) => slot,
            Err(free) => {
                self.stats.read_misses += 1;
                self.allocate(mem, line, free, &mut traffic)
            }
        };
        self.read_slot(slot, addr, buf);
        traffic
    }

    /// A read of `buf` at `addr` from `slot`, which holds its line.
    #[inline(always)]
    fn read_slot(&mut self, slot: u32, addr: u32, buf: &mut [u8]) {
        self.touch(slot);
        let off = self.data_offset(slot, addr);
        copy(buf, &self.data[off..off + buf.len()]);
    }

    /// Stores `data` at `addr`, all within one line, if the cache writes back and the
    /// filter has its line (true), as [`Cache::write`] would; else does nothing (false).
    #[inline(always)]
    pub fn write_filtered(&mut self, addr: u32, data: &[u8]) -> bool {
        let Some(slot) = self.filtered(addr).filter(|_| self.writes_back()) else { return false };
        self.stats.write_accesses += 1;
        self.write_slot(slot, addr, data);
        true
    }

    /// Stores `data` at `addr`, all within one line.
    #[inline(never)]
    pub fn write(&mut self, mem: &mut Dram, addr: u32, data: &[u8]) -> Traffic {
        mxpsim_detector::invariant!(self.line_of(addr) == self.line_of(addr + (data.len() as u32 - 1)));
        self.stats.write_accesses += 1;
        let line = self.line_of(addr);
        let mut traffic = Traffic::default();
        let slot = match (self.find(line), self.write) {
            (Ok(slot), _) => Some(slot),
            (Err(free), WritePolicy::Back) => {
                self.stats.write_misses += 1;
                Some(self.allocate(mem, line, free, &mut traffic))
            }
            (Err(_), WritePolicy::Through) => {
                self.stats.write_misses += 1;
                None
            }
        };
        if let Some(slot) = slot {
            self.write_slot(slot, addr, data);
        }
        if self.write == WritePolicy::Through {
            mem.write_bytes(addr, data).expect("the memory system only caches DRAM addresses");
            traffic.through = data.len() as u32;
            self.stats.bytes_written += data.len() as u64;
        }
        traffic
    }

    /// A write of `data` at `addr` into `slot`, which holds its line (dirty under write-back).
    #[inline(always)]
    fn write_slot(&mut self, slot: u32, addr: u32, data: &[u8]) {
        self.touch(slot);
        let off = self.data_offset(slot, addr);
        copy(&mut self.data[off..off + data.len()], data);
        if self.write == WritePolicy::Back {
            mark_dirty(&mut self.dirty[slot as usize], addr & (self.line - 1), data.len() as u32);
        }
    }

    /// Makes room for `line` and fills it from memory: into `free`, an invalid slot of its set,
    /// if there is one, else into the policy's victim, evicted. (Inlined into `read` and
    /// `write`, and the policy's `fill` and `victim` into it: each call cost saved registers
    /// and reloaded fields. cpubench's cache model by callgrind, per miss: `allocate` and
    /// `WriteBuffer::post` inlined 16 host instructions fewer, `fill` 15, `victim` 10.)
    #[inline(always)]
    fn allocate(&mut self, mem: &mut Dram, line: u32, free: Option<u32>, traffic: &mut Traffic) -> u32 {
        // The fill's bytes are read after the victim is chosen and written back: asked for
        // now, their host cache miss overlaps that work. (cpubench under `--race-check`, best
        // of 10 interleaved runs, three pairs: 583 -> 553, 579 -> 547, 644 -> 591 ms; with
        // the cache model alone, five pairs within the noise, +2 % on average.)
        mem.prefetch(line);
        // (After the first misses every way is valid: a branch the host predicts well.)
        let slot = match free {
            Some(slot) => slot,
            None => {
                let set = self.set_of(line);
                let slot = set * self.ways + self.replacement.victim(set, self.ways);
                self.stats.evictions += 1;
                traffic.writeback += self.write_back(mem, slot, Leaving::Evicted);
                // The write-back left the slot clean, and the fill below retags it: only the
                // filter's entry of the line leaving is left to forget.
                self.unfilter(self.tags[slot as usize]);
                slot
            }
        };
        let off = self.data_offset(slot, line);
        let filled = mem.bytes(line, self.line as usize).expect("the memory system only caches DRAM addresses");
        copy(&mut self.data[off..off + self.line as usize], filled);
        if let Some(actions) = &mut self.actions {
            actions.push((CacheAction::Fill, line));
        }
        if self.kept.is_some() {
            self.kept_filled(line, slot);
        }
        self.stats.bytes_read += self.line as u64;
        traffic.fill += self.line;
        self.tags[slot as usize] = line;
        self.replacement.fill(slot);
        let f = self.filter_index(line);
        self.filter[f] = FilterEntry { line, slot };
        slot
    }

    /// Writes a dirty slot back (whole line or dirty bytes) and marks it clean; `leaving`
    /// says why. Returns the bytes the write-back moves (what its timing counts).
    #[inline(always)]
    fn write_back(&mut self, mem: &mut Dram, slot: u32, leaving: Leaving) -> u32 {
        let mask = self.dirty[slot as usize];
        let line = self.tags[slot as usize];
        if self.kept.as_ref().is_some_and(|k| k.line == line) {
            return self.kept_write_back(mem, slot, leaving);
        }
        if mask == [0; 4] {
            return 0;
        }
        let base = self.data_offset(slot, line);
        let bytes =
            write_line(mem, self.writeback_granularity, line, &self.data[base..base + self.line as usize], &mask);
        self.dirty[slot as usize] = [0; 4];
        self.count_write_back(slot, bytes)
    }

    /// The statistics of a write-back of `bytes` (of the line in `slot`); returns them.
    fn count_write_back(&mut self, slot: u32, bytes: u32) -> u32 {
        if let Some(actions) = &mut self.actions {
            actions.push((CacheAction::WriteBack, self.tags[slot as usize]));
        }
        self.stats.writebacks += 1;
        self.stats.bytes_written += bytes as u64;
        bytes
    }

    /// The filter's entry of `line`, if it has one, removed.
    fn unfilter(&mut self, line: u32) {
        let f = self.filter_index(line);
        if self.filter[f].line == line {
            self.filter[f].line = INVALID;
        }
    }

    /// Empties a slot (its data is already written back or deliberately discarded).
    fn forget(&mut self, slot: u32) {
        self.unfilter(self.tags[slot as usize]);
        self.tags[slot as usize] = INVALID;
        self.dirty[slot as usize] = [0; 4];
    }

    fn maintain_slot(&mut self, mem: &mut Dram, op: CacheOp, slot: u32) -> u32 {
        match op {
            CacheOp::Clean => self.write_back(mem, slot, Leaving::Stays),
            CacheOp::Flush => {
                let written = self.write_back(mem, slot, Leaving::Flushed);
                self.forget(slot);
                written
            }
            CacheOp::Inval => {
                if self.kept.is_some() {
                    self.kept_invalidated(self.tags[slot as usize]);
                }
                self.forget(slot);
                0
            }
        }
    }

    /// From now on, keeps the lines it fills and writes back for [`Cache::take_actions`].
    pub fn log_actions(&mut self) {
        self.actions.get_or_insert_with(Vec::new);
    }

    /// The fills and write-backs since the last call, in order.
    pub fn take_actions(&mut self) -> Vec<(CacheAction, u32)> {
        self.actions.as_mut().map_or_else(Vec::new, std::mem::take)
    }

    /// `cbo.clean/flush/inval` of the line holding `addr`.
    pub fn maintain(&mut self, mem: &mut Dram, op: CacheOp, addr: u32) -> Traffic {
        self.stats.count_maintenance(op);
        let line = self.line_of(addr);
        let mut writeback = match self.lookup(line) {
            Some(slot) => self.maintain_slot(mem, op, slot),
            None => 0,
        };
        if self.kept.as_ref().is_some_and(|k| k.line == line) {
            writeback += self.maintain_aside(mem, op);
        }
        Traffic { writeback, ..Traffic::default() }
    }

    /// The whole-cache command: `op` on every valid line.
    pub fn maintain_all(&mut self, mem: &mut Dram, op: CacheOp) -> Traffic {
        self.stats.count_maintenance(op);
        let mut writeback = 0;
        for slot in 0..self.tags.len() as u32 {
            if self.tags[slot as usize] != INVALID {
                writeback += self.maintain_slot(mem, op, slot);
            }
        }
        if self.kept.is_some() {
            writeback += self.maintain_aside(mem, op);
        }
        Traffic { writeback, ..Traffic::default() }
    }

    /// The lines whose bytes the coherent view ([`Cache::peek`]) takes from the cache: every
    /// line held, and the line kept aside if there is one.
    pub fn held_lines(&self) -> impl Iterator<Item = u32> + '_ {
        let held = self.tags.iter().copied().filter(|&line| line != INVALID);
        held.chain(self.kept.as_ref().map(|k| k.line))
    }

    /// The coherent view of `[addr, addr + buf.len())`: cached bytes where the line is
    /// present, DRAM elsewhere. No side effects (for debuggers and semihosting).
    pub fn peek(&self, mem: &Dram, addr: u32, buf: &mut [u8]) -> Option<()> {
        mem.read_bytes(addr, buf).ok()?;
        if let Some(kept) = &self.kept {
            kept.peek(addr, buf);
        }
        let (start, end) = (u64::from(addr), u64::from(addr) + buf.len() as u64);
        if end - start <= self.tags.len() as u64 * u64::from(self.line) {
            self.for_each_cached_chunk(addr, buf.len() as u32, |off, data_off, len| {
                buf[off..off + len].copy_from_slice(&self.data[data_off..data_off + len]);
            });
            return Some(());
        }
        // A range larger than the cache (a debugger's dump of a buffer, a page of a capture
        // with a small cache): the lines held, each copied where it overlaps, not a set
        // searched per line of the range (64 MiB so was 2 million searches).
        for (slot, &line) in self.tags.iter().enumerate().filter(|&(_, &line)| line != INVALID) {
            let (from, to) = (u64::from(line).max(start), (u64::from(line) + u64::from(self.line)).min(end));
            if from < to {
                let data_off = self.data_offset(slot as u32, from as u32);
                let len = (to - from) as usize;
                buf[(from - start) as usize..][..len].copy_from_slice(&self.data[data_off..data_off + len]);
            }
        }
        Some(())
    }

    /// Writes through to DRAM and into any cached copy, keeping dirtiness as it was (for
    /// loaders, debuggers and semihosting).
    pub fn poke(&mut self, mem: &mut Dram, addr: u32, data: &[u8]) -> Option<()> {
        mem.load_bytes(addr, data).ok()?; // as a debugger: ROM too
        if let Some(kept) = self.kept.as_mut() {
            kept.poke(addr, data);
        }
        let mut chunks = Vec::new();
        self.for_each_cached_chunk(addr, data.len() as u32, |off, data_off, len| chunks.push((off, data_off, len)));
        for (off, data_off, len) in chunks {
            self.data[data_off..data_off + len].copy_from_slice(&data[off..off + len]);
        }
        Some(())
    }

    /// Calls `f(offset in the range, offset in the data array, length)` for each part of the
    /// range held in a cached line.
    fn for_each_cached_chunk(&self, addr: u32, len: u32, mut f: impl FnMut(usize, usize, usize)) {
        let mut pos = 0;
        while pos < len {
            let a = addr + pos;
            let line = self.line_of(a);
            // (Not `line + self.line - a`: the last line below 2^32 would overflow.)
            let chunk = (self.line - (a - line)).min(len - pos);
            if let Some(slot) = self.held_slot(line) {
                f(pos as usize, self.data_offset(slot, a), chunk as usize);
            }
            pos += chunk;
        }
    }

    /// The state of the line holding `addr`, as a debugger shows it.
    pub fn line_state(&self, addr: u32) -> LineState {
        let line = self.line_of(addr);
        let set = self.set_of(line);
        let first = set * self.ways;
        let held = self.held_slot(line).map(|slot| {
            let mask = &self.dirty[slot as usize];
            let dirty = (0..self.line).filter(|&b| mask[(b / 64) as usize] & (1 << (b % 64)) != 0).collect();
            let base = self.data_offset(slot, line);
            HeldLine { way: slot - first, dirty, data: self.data[base..base + self.line as usize].to_vec() }
        });
        LineState { line, set, held }
    }

    /// True if the line holding `addr` is present (for tests and statistics).
    pub fn contains(&self, addr: u32) -> bool {
        self.held_slot(self.line_of(addr)).is_some()
    }
}

/// Writes a dirty line's bytes to memory: the whole line, or only its dirty bytes. Returns
/// the bytes written. (Inlined into the miss that evicts the line: cpubench's whole run
/// −0.9 % host instructions, by callgrind; `#[inline]` alone was not taken.)
#[inline(always)]
fn write_line(mem: &mut Dram, granularity: WriteBack, line: u32, data: &[u8], mask: &DirtyMask) -> u32 {
    match granularity {
        WriteBack::Line => {
            copy(mem.bytes_mut(line, data.len()).expect("a dirty line is in writable memory"), data);
            data.len() as u32
        }
        WriteBack::DirtyBytes => {
            let mut written = 0;
            for (start, len) in dirty_runs(mask, data.len() as u32) {
                mem.write_bytes(line + start, &data[start as usize..(start + len) as usize])
                    .expect("a dirty line is in writable memory");
                written += len;
            }
            written
        }
    }
}

/// Copies into `dst` (the bytes from `dst_addr`) the part of `src` (the bytes from
/// `src_addr`) that lies over it.
fn overlap_copy(src: &[u8], src_addr: u32, dst: &mut [u8], dst_addr: u32) {
    let start = src_addr.max(dst_addr);
    let end = (src_addr as u64 + src.len() as u64).min(dst_addr as u64 + dst.len() as u64);
    if (start as u64) < end {
        let len = (end - start as u64) as usize;
        dst[(start - dst_addr) as usize..][..len].copy_from_slice(&src[(start - src_addr) as usize..][..len]);
    }
}

#[inline(always)]
fn mark_dirty(mask: &mut DirtyMask, offset: u32, len: u32) {
    let (word, bit) = ((offset / 64) as usize, offset % 64);
    if bit + len <= 64 && len < 64 {
        // The usual case: a CPU store of 1 to 4 bytes inside one mask word.
        mask[word] |= ((1u64 << len) - 1) << bit;
    } else {
        for b in offset..offset + len {
            mask[(b / 64) as usize] |= 1 << (b % 64);
        }
    }
}

/// The runs of consecutive dirty bytes, as `(offset, length)`.
fn dirty_runs(mask: &DirtyMask, line: u32) -> Vec<(u32, u32)> {
    let is_dirty = |b: u32| mask[(b / 64) as usize] >> (b % 64) & 1 != 0;
    let mut runs = Vec::new();
    let mut b = 0;
    while b < line {
        if is_dirty(b) {
            let start = b;
            while b < line && is_dirty(b) {
                b += 1;
            }
            runs.push((start, b - start));
        } else {
            b += 1;
        }
    }
    runs
}

#[cfg(test)]
mod tests;
