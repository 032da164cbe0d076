//! A line under a deliberate schedule's directive (`mxpsim provoke`,
//! [`crate::schedule`]): kept as it is, written back early, or refreshed — in its *data*
//! only. The cache's tags, dirty bits and replacement state, and so every fill, write-back
//! and cycle the timing model counts, stay exactly as in the run without the schedule: a
//! schedule changes which bytes memory and the CPU see, never the machine's timing, so
//! what comes out different is the race's doing.
//!
//! * Kept ([`Cache::keep_line`]): the line's bytes are its bytes from the keep's start on.
//!   When its slot is reused they go aside instead of to memory (the timing still counts the
//!   write-back); the next fill takes them back (the timing still counts a fill from DRAM).
//!   Dirty bytes aside, or taken back from aside, are *data-dirty*: memory does not have them
//!   yet, though the dirty bits (which time write-backs) say the line is clean. The model
//!   allows all of it: a fill may happen any time since the line's last flush or invalidate,
//!   a write-back any time before its next clean, flush or invalidate.
//! * Written early ([`Cache::clean_line`]): the dirty bytes go to memory now; the slot stays
//!   dirty for the timing, and its later write-back writes only bytes stored since.
//! * Refreshed ([`Cache::refresh_line`]): the clean bytes are read again from memory, as a
//!   fill after an eviction would read them.

use super::{overlap_copy, write_line, Cache, DirtyMask, Leaving};
use crate::dram::Dram;
use mxpsim_detector::event::{CacheOp, WriteBack};

pub(super) struct Kept {
    pub(super) line: u32,
    /// The bytes are kept (else only `written` is still tracked).
    keeping: bool,
    /// The line's bytes while its slot is gone.
    aside: Option<Vec<u8>>,
    /// Bytes memory does not have yet that the dirty bits do not show.
    data_dirty: DirtyMask,
    /// Bytes already in memory (their values, and which) while the dirty bits still show
    /// them: a later write-back skips those not stored to since.
    written: Option<(Vec<u8>, DirtyMask)>,
    /// Slot reuses that put the line aside.
    times: u32,
    /// A flush or invalidate by the CPU ended the keep.
    ended_by_cpu: bool,
}

/// How a kept line fared ([`Cache::end_keep`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct KeptLine {
    /// Slot reuses that put it aside.
    pub times: u32,
    /// Bytes written to memory when the keep ended.
    pub bytes: u32,
    /// A flush or invalidate by the CPU had ended the keep before.
    pub ended_by_cpu: bool,
}

const EMPTY: DirtyMask = [0; 4];

fn or(a: &DirtyMask, b: &DirtyMask) -> DirtyMask {
    [a[0] | b[0], a[1] | b[1], a[2] | b[2], a[3] | b[3]]
}

fn bit(mask: &DirtyMask, b: usize) -> bool {
    mask[b / 64] >> (b % 64) & 1 != 0
}

fn clear(mask: &mut DirtyMask, b: usize) {
    mask[b / 64] &= !(1 << (b % 64));
}

impl Kept {
    fn new(line: u32, keeping: bool) -> Kept {
        Kept { line, keeping, aside: None, data_dirty: EMPTY, written: None, times: 0, ended_by_cpu: false }
    }

    /// The dirty bytes of `mask` memory does not have: those not written early, or stored
    /// to since (their value changed).
    fn unwritten(&self, mask: &DirtyMask, data: &[u8]) -> DirtyMask {
        let mut out = *mask;
        if let Some((values, written)) = &self.written {
            for (b, (now, then)) in data.iter().zip(values).enumerate() {
                if bit(written, b) && now == then {
                    clear(&mut out, b);
                }
            }
        }
        out
    }

    /// The CPU's view of the line aside, over `buf` (the bytes from `addr`).
    pub(super) fn peek(&self, addr: u32, buf: &mut [u8]) {
        if let Some(aside) = &self.aside {
            overlap_copy(aside, self.line, buf, addr);
        }
    }

    /// A debugger's write into the line aside.
    pub(super) fn poke(&mut self, addr: u32, data: &[u8]) {
        if let Some(aside) = &mut self.aside {
            overlap_copy(data, addr, aside, self.line);
        }
    }
}

impl Cache {
    fn timing_bytes(&self, mask: &DirtyMask) -> u32 {
        match self.writeback_granularity {
            WriteBack::Line => self.line,
            WriteBack::DirtyBytes => mask.iter().map(|w| w.count_ones()).sum(),
        }
    }

    fn line_data(&self, slot: u32, line: u32) -> Vec<u8> {
        let base = self.data_offset(slot, line);
        self.data[base..base + self.line as usize].to_vec()
    }

    /// From now on, `line`'s bytes are kept as they are ([`self`]). Returns whether it was
    /// cached (else its bytes are read from memory now, as a fill now would read them).
    pub fn keep_line(&mut self, mem: &Dram, line: u32) -> bool {
        let line = self.line_of(line);
        let mut kept = Kept::new(line, true);
        let cached = self.lookup(line).is_some();
        if !cached {
            let mut bytes = vec![0; self.line as usize];
            mem.read_bytes(line, &mut bytes).expect("the memory system only caches DRAM addresses");
            kept.aside = Some(bytes);
        }
        self.kept = Some(kept);
        cached
    }

    /// Writes `line`'s dirty bytes to memory now (a schedule's early write-back), its data
    /// only. Returns the bytes written.
    pub fn clean_line(&mut self, mem: &mut Dram, line: u32) -> u32 {
        let line = self.line_of(line);
        let granularity = self.writeback_granularity;
        let slot = self.lookup(line);
        let ours = self.kept.as_ref().filter(|k| k.line == line);
        let data_dirty = ours.map_or(EMPTY, |k| k.data_dirty);
        match slot {
            Some(slot) => {
                let data = self.line_data(slot, line);
                let mask = self.dirty[slot as usize];
                let unwritten = ours.map_or(mask, |k| k.unwritten(&mask, &data));
                let effective = or(&unwritten, &data_dirty);
                if effective == EMPTY {
                    return 0;
                }
                let bytes = write_line(mem, granularity, line, &data, &effective);
                let all = match granularity {
                    WriteBack::Line => [u64::MAX; 4],
                    WriteBack::DirtyBytes => effective,
                };
                let kept = self.kept.get_or_insert_with(|| Kept::new(line, false));
                kept.data_dirty = EMPTY;
                kept.written = Some((data, all));
                bytes
            }
            None => {
                let Some(kept) = self.kept.as_mut().filter(|k| k.line == line && k.data_dirty != EMPTY) else {
                    return 0;
                };
                let aside = kept.aside.as_ref().expect("data-dirty bytes of an uncached line are aside");
                let bytes = write_line(mem, granularity, line, aside, &kept.data_dirty);
                kept.data_dirty = EMPTY;
                bytes
            }
        }
    }

    /// Ends [`Cache::keep_line`]: data-dirty bytes go to memory now; a line aside is let go
    /// (the next fill reads memory).
    pub fn end_keep(&mut self, mem: &mut Dram) -> KeptLine {
        let Some(mut kept) = self.kept.take() else { return KeptLine::default() };
        let line = kept.line;
        let slot = self.lookup(line);
        let bytes = match (kept.data_dirty == EMPTY, slot, &kept.aside) {
            (true, ..) => 0,
            (false, Some(slot), _) => {
                write_line(mem, self.writeback_granularity, line, &self.line_data(slot, line), &kept.data_dirty)
            }
            (false, None, Some(aside)) => write_line(mem, self.writeback_granularity, line, aside, &kept.data_dirty),
            (false, None, None) => 0,
        };
        let summary = KeptLine { times: kept.times, bytes, ended_by_cpu: kept.ended_by_cpu };
        // The slot's own later write-back must skip what is in memory now.
        if let Some(slot) = slot {
            let data = self.line_data(slot, line);
            let mut written = kept.written.take().map_or(EMPTY, |(_, m)| m);
            if bytes > 0 {
                written = or(&written, &kept.data_dirty);
            }
            if written != EMPTY {
                let mut record = Kept::new(line, false);
                record.written = Some((data, written));
                self.kept = Some(record);
            }
        }
        summary
    }

    /// Under whole-line write-back a dirty line is filled again only after its write-back:
    /// [`Cache::refresh_line`] does not change it. This writes such a line back (a schedule
    /// does it before the engine node after which it refreshes the line) and returns the
    /// bytes written; 0 under byte-granular write-back or if the line is clean or not cached.
    pub fn write_back_to_refill(&mut self, mem: &mut Dram, line: u32) -> u32 {
        match self.writeback_granularity {
            WriteBack::Line => self.clean_line(mem, line),
            WriteBack::DirtyBytes => 0,
        }
    }

    /// Reads `line`'s clean bytes again from memory, as a fill after an eviction would
    /// (under whole-line write-back a dirty line's write-back would put its clean bytes in
    /// memory first, so only a clean line changes: see [`Cache::write_back_to_refill`]).
    /// Returns `None` if it is not cached, else the bytes read.
    pub fn refresh_line(&mut self, mem: &Dram, line: u32) -> Option<u32> {
        let line = self.line_of(line);
        let slot = self.lookup(line)?;
        // Dirty as far as the data goes: bytes written early are clean.
        let data = self.line_data(slot, line);
        let timing = self.dirty[slot as usize];
        let ours = self.kept.as_mut().filter(|k| k.line == line);
        let mask = ours.as_ref().map_or(timing, |k| or(&k.unwritten(&timing, &data), &k.data_dirty));
        if mask != EMPTY && self.writeback_granularity == WriteBack::Line {
            return Some(0);
        }
        let mut fresh = vec![0; self.line as usize];
        mem.read_bytes(line, &mut fresh).expect("the memory system only caches DRAM addresses");
        // Bytes written early that the slot still times as dirty now hold memory's values:
        // its later write-back must still skip them.
        if let Some((values, _)) = ours.and_then(|k| k.written.as_mut()) {
            for (b, value) in values.iter_mut().enumerate().filter(|(b, _)| !bit(&mask, *b)) {
                *value = fresh[b];
            }
        }
        let base = self.data_offset(slot, line);
        let mut read = 0;
        for (b, byte) in fresh.into_iter().enumerate() {
            if !bit(&mask, b) {
                self.data[base + b] = byte;
                read += 1;
            }
        }
        Some(read)
    }

    /// The write-back of the line under a directive, in slot `slot`: the timing as without
    /// the directive (returned), the data as the directive says.
    pub(super) fn kept_write_back(&mut self, mem: &mut Dram, slot: u32, leaving: Leaving) -> u32 {
        let mask = self.dirty[slot as usize];
        let timing = if mask == EMPTY { 0 } else { self.count_write_back(slot, self.timing_bytes(&mask)) };
        self.dirty[slot as usize] = EMPTY;
        let line = self.tags[slot as usize];
        let data = self.line_data(slot, line);
        let granularity = self.writeback_granularity;
        let kept = self.kept.as_mut().expect("called for the kept line");
        let effective = or(&kept.unwritten(&mask, &data), &kept.data_dirty);
        kept.written = None;
        if kept.keeping && leaving == Leaving::Evicted {
            kept.aside = Some(data);
            kept.data_dirty = effective;
            kept.times += 1;
            return timing;
        }
        if effective != EMPTY {
            write_line(mem, granularity, line, &data, &effective);
        }
        kept.data_dirty = EMPTY;
        if leaving == Leaving::Flushed && kept.keeping {
            kept.keeping = false;
            kept.ended_by_cpu = true;
        }
        if !kept.keeping && !kept.ended_by_cpu && leaving != Leaving::Stays {
            self.kept = None;
        }
        timing
    }

    /// A fill of `line` (now in `slot`): a kept line's bytes come back from aside.
    pub(super) fn kept_filled(&mut self, line: u32, slot: u32) {
        let base = self.data_offset(slot, line);
        let Some(kept) = self.kept.as_mut().filter(|k| k.line == line) else { return };
        if let Some(aside) = kept.aside.take() {
            self.data[base..base + self.line as usize].copy_from_slice(&aside);
        }
    }

    /// The CPU invalidated `line` while cached: a keep ends, its data-dirty bytes with it.
    pub(super) fn kept_invalidated(&mut self, line: u32) {
        let Some(kept) = self.kept.as_mut().filter(|k| k.line == line) else { return };
        if kept.keeping {
            kept.keeping = false;
            kept.ended_by_cpu = true;
            kept.data_dirty = EMPTY;
            kept.written = None;
        } else if !kept.ended_by_cpu {
            self.kept = None;
        }
    }

    /// A clean, flush or invalidate by the CPU of the kept line while it is aside (not
    /// cached, so without it nothing would move: no timing). Returns 0.
    pub(super) fn maintain_aside(&mut self, mem: &mut Dram, op: CacheOp) -> u32 {
        let granularity = self.writeback_granularity;
        let Some(kept) = self.kept.as_mut().filter(|k| k.keeping && k.aside.is_some()) else { return 0 };
        if op != CacheOp::Inval && kept.data_dirty != EMPTY {
            let aside = kept.aside.as_ref().expect("checked");
            write_line(mem, granularity, kept.line, aside, &kept.data_dirty);
        }
        kept.data_dirty = EMPTY;
        if op != CacheOp::Clean {
            kept.keeping = false;
            kept.ended_by_cpu = true;
            kept.aside = None;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::{CacheConfig, Policy, WritePolicy};
    use super::*;
    use crate::cache::Traffic;

    const BASE: u32 = 0x8000_0000;

    /// 1 set × 2 ways × 16-byte lines: lines 0x00, 0x10, 0x20 all compete for two slots.
    fn cache(writeback: WriteBack) -> (Cache, Dram) {
        let cfg = CacheConfig {
            size: 32,
            line: 16,
            ways: 2,
            policy: Policy::Lru,
            write: WritePolicy::Back,
            writeback,
            ..CacheConfig::default()
        };
        cfg.validate().unwrap();
        (Cache::new(&cfg), Dram::new(BASE, 0x100))
    }

    fn read(c: &mut Cache, m: &mut Dram, addr: u32) -> (u8, Traffic) {
        let mut b = [0];
        let t = c.read(m, addr, &mut b);
        (b[0], t)
    }

    fn dram(m: &Dram, addr: u32) -> u8 {
        m.read::<1>(addr).unwrap()[0]
    }

    /// Evicts line 0x00 by touching 0x10 and 0x20 (LRU, two ways); returns their traffic.
    fn evict_first(c: &mut Cache, m: &mut Dram) -> Traffic {
        let a = read(c, m, BASE + 0x10).1;
        let b = read(c, m, BASE + 0x20).1;
        Traffic { fill: a.fill + b.fill, writeback: a.writeback + b.writeback, through: 0 }
    }

    /// The same accesses with and without a keep: the same traffic and statistics.
    #[test]
    fn a_kept_line_moves_no_timing() {
        let run = |keep: bool| {
            let (mut c, mut m) = cache(WriteBack::Line);
            if keep {
                c.keep_line(&m, BASE);
            }
            let mut traffic = vec![c.write(&mut m, BASE + 3, &[9])];
            traffic.push(evict_first(&mut c, &mut m));
            traffic.push(read(&mut c, &mut m, BASE + 3).1);
            traffic.push(c.maintain(&mut m, CacheOp::Clean, BASE));
            (traffic, c.stats.clone())
        };
        assert_eq!(run(true), run(false));
    }

    /// Kept from before the uncached write: a later fill still reads the old bytes, and an
    /// eviction keeps the dirty bytes out of memory until the keep ends.
    #[test]
    fn a_kept_line_keeps_its_early_bytes_and_holds_its_write_back() {
        let (mut c, mut m) = cache(WriteBack::Line);
        m.write_bytes(BASE + 5, &[1]).unwrap();
        c.keep_line(&m, BASE);
        m.write_bytes(BASE + 5, &[2]).unwrap(); // an uncached write after the keep began
        c.write(&mut m, BASE + 3, &[9]);
        assert_eq!(read(&mut c, &mut m, BASE + 5).0, 1, "the line as the early fill read it");
        let t = evict_first(&mut c, &mut m);
        assert_eq!(t.writeback, 16, "the eviction's write-back is timed as without the keep");
        assert_eq!((dram(&m, BASE + 3), dram(&m, BASE + 5)), (0, 2), "but memory did not get it");
        let mut seen = [0; 16];
        c.peek(&m, BASE, &mut seen).unwrap();
        assert_eq!((seen[3], seen[5]), (9, 1), "the CPU's view is the line aside");
        assert_eq!(read(&mut c, &mut m, BASE + 3).0, 9, "a refill takes the bytes back");
        let kept = c.end_keep(&mut m);
        assert_eq!(kept, KeptLine { times: 1, bytes: 16, ended_by_cpu: false });
        assert_eq!((dram(&m, BASE + 3), dram(&m, BASE + 5)), (9, 1), "a whole-line write-back, early bytes and all");
    }

    /// An early write-back writes now; the slot's own (timed) write-back later writes only
    /// bytes stored since, so memory written by others in between stays.
    #[test]
    fn an_early_write_back_is_not_repeated() {
        let (mut c, mut m) = cache(WriteBack::DirtyBytes);
        c.write(&mut m, BASE + 1, &[7]);
        assert_eq!(c.clean_line(&mut m, BASE), 1);
        assert_eq!(dram(&m, BASE + 1), 7);
        m.write_bytes(BASE + 1, &[8]).unwrap(); // a DMA write after the early write-back
        c.write(&mut m, BASE + 2, &[5]);
        let t = c.maintain(&mut m, CacheOp::Clean, BASE);
        assert_eq!(t.writeback, 2, "timed as the two dirty bytes");
        assert_eq!((dram(&m, BASE + 1), dram(&m, BASE + 2)), (8, 5), "only the byte stored since goes");
    }

    /// A flush by the CPU ends a keep (its bytes go as the flush says); the end says so.
    #[test]
    fn a_flush_ends_the_keep() {
        let (mut c, mut m) = cache(WriteBack::DirtyBytes);
        c.keep_line(&m, BASE);
        c.write(&mut m, BASE + 4, &[3]);
        evict_first(&mut c, &mut m);
        assert_eq!(dram(&m, BASE + 4), 0);
        c.maintain_all(&mut m, CacheOp::Flush);
        assert_eq!(dram(&m, BASE + 4), 3, "the flush writes the bytes aside");
        assert!(c.end_keep(&mut m).ended_by_cpu);
    }

    /// A refresh reads a clean line's bytes again; a dirty line's dirty bytes stay.
    #[test]
    fn a_refresh_reads_clean_bytes_again() {
        let (mut c, mut m) = cache(WriteBack::DirtyBytes);
        read(&mut c, &mut m, BASE);
        c.write(&mut m, BASE + 1, &[4]);
        m.write_bytes(BASE, &[6, 6, 6]).unwrap();
        assert_eq!(c.refresh_line(&m, BASE), Some(15));
        assert_eq!((read(&mut c, &mut m, BASE).0, read(&mut c, &mut m, BASE + 1).0), (6, 4));
        assert_eq!(c.refresh_line(&m, BASE + 0x40), None, "not cached");
    }
}
