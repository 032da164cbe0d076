//! Cache behaviour on small configurations, checked against hand-computed expectations.

use super::config::{CacheConfig, Policy, WritePolicy};
use super::*;

const BASE: u32 = 0x8000_0000;

/// 2 sets × 2 ways × 16-byte lines (64 bytes): lines 0x00, 0x20, 0x40 … map to set 0,
/// 0x10, 0x30 … to set 1.
fn small(policy: Policy, write: WritePolicy, writeback: WriteBack) -> (Cache, Dram) {
    let cfg = CacheConfig { size: 64, line: 16, ways: 2, policy, write, writeback, ..CacheConfig::default() };
    cfg.validate().unwrap();
    (Cache::new(&cfg), Dram::new(BASE, 0x1000))
}

fn wb_line() -> (Cache, Dram) {
    small(Policy::Lru, WritePolicy::Back, WriteBack::Line)
}

fn read32(c: &mut Cache, m: &mut Dram, addr: u32) -> (u32, Traffic) {
    let mut b = [0; 4];
    let t = c.read(m, addr, &mut b);
    (u32::from_le_bytes(b), t)
}

fn dram32(m: &Dram, addr: u32) -> u32 {
    u32::from_le_bytes(m.read::<4>(addr).unwrap())
}

#[test]
fn misses_fill_lines_and_hits_do_not() {
    let (mut c, mut m) = wb_line();
    m.write_bytes(BASE + 4, &7u32.to_le_bytes()).unwrap();
    assert_eq!(read32(&mut c, &mut m, BASE + 4), (7, Traffic { fill: 16, ..Traffic::default() }));
    assert_eq!(read32(&mut c, &mut m, BASE + 8).1, Traffic::default());
    assert_eq!((c.stats.read_accesses, c.stats.read_misses, c.stats.bytes_read), (2, 1, 16));
}

#[test]
fn writes_stay_in_the_cache_until_written_back() {
    let (mut c, mut m) = wb_line();
    c.write(&mut m, BASE + 4, &0xdead_beefu32.to_le_bytes());
    assert_eq!(dram32(&m, BASE + 4), 0, "DRAM is stale while the line is dirty");
    assert_eq!(read32(&mut c, &mut m, BASE + 4).0, 0xdead_beef);
    let t = c.maintain(&mut m, CacheOp::Clean, BASE);
    assert_eq!(t.writeback, 16);
    assert_eq!(dram32(&m, BASE + 4), 0xdead_beef);
    assert!(c.contains(BASE), "clean keeps the line");
    assert_eq!(c.maintain(&mut m, CacheOp::Clean, BASE).writeback, 0, "already clean");
}

#[test]
fn lru_victim_and_dirty_eviction_contents() {
    let (mut c, mut m) = wb_line();
    // Set 0 gets lines 0x00 and 0x20; 0x00 is dirtied, then 0x20 used more recently.
    c.write(&mut m, BASE, &[1, 2, 3, 4]);
    read32(&mut c, &mut m, BASE + 0x20);
    // A third line in set 0 evicts the least recently used: 0x00, written back whole.
    let (_, t) = read32(&mut c, &mut m, BASE + 0x40);
    assert_eq!(t, Traffic { fill: 16, writeback: 16, through: 0 });
    assert!(!c.contains(BASE) && c.contains(BASE + 0x20) && c.contains(BASE + 0x40));
    assert_eq!(m.read::<4>(BASE), Some([1, 2, 3, 4]));
    assert_eq!((c.stats.evictions, c.stats.writebacks), (1, 1));
}

#[test]
fn an_invalid_way_is_filled_before_any_policy_chooses() {
    for policy in [Policy::Lru, Policy::Fifo, Policy::Plru, Policy::Random] {
        let (mut c, mut m) = small(policy, WritePolicy::Back, WriteBack::Line);
        // Set 0 full (0x20 in way 0, 0x00 in way 1); flushing 0x00 empties way 1; 0x40 must
        // take it and leave 0x20, which LRU, FIFO and PLRU would evict (the older line)
        // and the random policy may (with this seed, already at 0x00's fill).
        read32(&mut c, &mut m, BASE + 0x20);
        read32(&mut c, &mut m, BASE);
        c.maintain(&mut m, CacheOp::Flush, BASE);
        read32(&mut c, &mut m, BASE + 0x40);
        assert!(c.contains(BASE + 0x20) && c.contains(BASE + 0x40), "{policy:?}");
        assert_eq!(c.stats.evictions, 0, "{policy:?}");
    }
}

#[test]
fn the_first_of_several_invalid_ways_is_filled() {
    for policy in [Policy::Lru, Policy::Fifo, Policy::Plru, Policy::Random] {
        // One set of four 16-byte ways; lines 0x00, 0x10, 0x20, 0x30 fill ways 0 to 3.
        let cfg = CacheConfig { size: 64, line: 16, ways: 4, policy, ..CacheConfig::default() };
        cfg.validate().unwrap();
        let (mut c, mut m) = (Cache::new(&cfg), Dram::new(BASE, 0x1000));
        for way in 0..4 {
            read32(&mut c, &mut m, BASE + 0x10 * way);
        }
        c.maintain(&mut m, CacheOp::Flush, BASE + 0x30);
        c.maintain(&mut m, CacheOp::Flush, BASE + 0x10);
        read32(&mut c, &mut m, BASE + 0x40);
        assert_eq!(c.line_state(BASE + 0x40).held.map(|h| h.way), Some(1), "{policy:?}");
    }
}

#[test]
fn fifo_evicts_in_allocation_order_despite_hits() {
    let (mut c, mut m) = small(Policy::Fifo, WritePolicy::Back, WriteBack::Line);
    read32(&mut c, &mut m, BASE);
    read32(&mut c, &mut m, BASE + 0x20);
    read32(&mut c, &mut m, BASE); // hit: FIFO does not care
    read32(&mut c, &mut m, BASE + 0x40);
    assert!(!c.contains(BASE) && c.contains(BASE + 0x20));
}

#[test]
fn hit_miss_sequences_per_policy() {
    // The same access sequence in set 0: lines A B A C A B.
    let sequence = [0x00, 0x20, 0x00, 0x40, 0x00, 0x20];
    let misses = |policy| {
        let (mut c, mut m) = small(policy, WritePolicy::Back, WriteBack::Line);
        sequence.iter().map(|&a| read32(&mut c, &mut m, BASE + a).1.fill > 0).collect::<Vec<_>>()
    };
    // LRU: C evicts B (A was used after B); A hits; B misses.
    assert_eq!(misses(Policy::Lru), [true, true, false, true, false, true]);
    // FIFO: C evicts A (first in); A misses (evicting B); B misses.
    assert_eq!(misses(Policy::Fifo), [true, true, false, true, true, true]);
    // PLRU with 2 ways is LRU.
    assert_eq!(misses(Policy::Plru), misses(Policy::Lru));
}

#[test]
fn byte_granular_write_back_writes_only_dirty_bytes() {
    let (mut c, mut m) = small(Policy::Lru, WritePolicy::Back, WriteBack::DirtyBytes);
    read32(&mut c, &mut m, BASE); // line cached, clean
    m.write_bytes(BASE, &[0xaa; 16]).unwrap(); // someone else (a DMA) writes memory
    c.write(&mut m, BASE + 2, &[1, 2]);
    c.write(&mut m, BASE + 9, &[3]);
    let t = c.maintain(&mut m, CacheOp::Flush, BASE);
    assert_eq!(t.writeback, 3);
    let mut line = [0; 16];
    m.read_bytes(BASE, &mut line).unwrap();
    assert_eq!(line, [0xaa, 0xaa, 1, 2, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 3, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa, 0xaa]);
}

#[test]
fn whole_line_write_back_overwrites_neighbouring_bytes() {
    // The race mechanism: the stale clean bytes of a dirty line go back to memory too.
    let (mut c, mut m) = wb_line();
    read32(&mut c, &mut m, BASE);
    m.write_bytes(BASE + 8, &[0xaa; 8]).unwrap(); // a DMA fills the line's second half
    c.write(&mut m, BASE, &[1]);
    c.maintain(&mut m, CacheOp::Flush, BASE);
    assert_eq!(m.read::<4>(BASE + 8), Some([0; 4]), "the write-back restored the stale bytes");
}

#[test]
fn inval_discards_dirty_data_and_flush_keeps_it() {
    let (mut c, mut m) = wb_line();
    c.write(&mut m, BASE, &[9]);
    assert_eq!(c.maintain(&mut m, CacheOp::Inval, BASE).writeback, 0);
    assert!(!c.contains(BASE));
    assert_eq!(read32(&mut c, &mut m, BASE).0, 0, "the store is lost");
    c.write(&mut m, BASE + 16, &[5]);
    assert_eq!(c.maintain(&mut m, CacheOp::Flush, BASE + 16).writeback, 16);
    assert!(!c.contains(BASE + 16));
    assert_eq!(m.read::<1>(BASE + 16), Some([5]));
}

#[test]
fn maintain_all_flushes_every_dirty_line() {
    let (mut c, mut m) = wb_line();
    for a in [0x00, 0x10, 0x20] {
        c.write(&mut m, BASE + a, &[a as u8 + 1]);
    }
    let t = c.maintain_all(&mut m, CacheOp::Flush);
    assert_eq!(t.writeback, 48);
    assert!(!c.contains(BASE) && !c.contains(BASE + 0x10) && !c.contains(BASE + 0x20));
    assert_eq!(m.read::<1>(BASE + 0x20), Some([0x21]));
    assert_eq!((c.stats.flushes, c.stats.cleans, c.stats.invals), (1, 0, 0));
}

#[test]
fn write_through_without_allocate() {
    let (mut c, mut m) = small(Policy::Lru, WritePolicy::Through, WriteBack::Line);
    let t = c.write(&mut m, BASE, &[7, 7]);
    assert_eq!(t, Traffic { through: 2, ..Traffic::default() });
    assert!(!c.contains(BASE), "no write-allocate");
    assert_eq!(m.read::<2>(BASE), Some([7, 7]));
    read32(&mut c, &mut m, BASE); // allocate on read
    c.write(&mut m, BASE, &[8]);
    assert_eq!(read32(&mut c, &mut m, BASE).0 & 0xff, 8, "hits update the line");
    assert_eq!(m.read::<1>(BASE), Some([8]), "and memory");
    assert_eq!(c.maintain(&mut m, CacheOp::Flush, BASE).writeback, 0, "never dirty");
    assert_eq!((c.stats.write_accesses, c.stats.write_misses, c.stats.bytes_written), (2, 1, 3));
}

#[test]
fn peek_sees_the_coherent_view_and_poke_updates_both() {
    let (mut c, mut m) = wb_line();
    c.write(&mut m, BASE + 14, &[1, 2]); // end of line 0
    let mut b = [0; 4];
    c.peek(&m, BASE + 14, &mut b).unwrap(); // spans into line 0x10 (not cached)
    assert_eq!(b, [1, 2, 0, 0]);
    c.poke(&mut m, BASE + 15, &[9, 9]).unwrap();
    c.peek(&m, BASE + 14, &mut b).unwrap();
    assert_eq!(b, [1, 9, 9, 0]);
    assert_eq!(m.read::<2>(BASE + 15), Some([9, 9]));
}

proptest::proptest! {
    /// A peek of any range, shorter or longer than the cache (whose lines it then overlays
    /// slot by slot), shows each byte as the line holding it has it, else as DRAM does.
    #[test]
    fn peek_shows_each_byte_as_its_line_or_memory_has_it(
        writes in proptest::collection::vec((0..0x100u32, proptest::num::u8::ANY), 1..40),
        start in 0..0x40u32,
        len in 0..0x180usize,
    ) {
        let (mut c, mut m) = small(Policy::Lru, WritePolicy::Back, WriteBack::DirtyBytes);
        for (offset, value) in writes {
            c.write(&mut m, BASE + offset, &[value]);
        }
        let mut seen = vec![0; len];
        c.peek(&m, BASE + start, &mut seen).unwrap();
        let expected: Vec<u8> = (BASE + start..BASE + start + len as u32)
            .map(|a| match c.line_state(a).held {
                Some(held) => held.data[(a % 16) as usize],
                None => m.read::<1>(a).unwrap()[0],
            })
            .collect();
        proptest::prop_assert_eq!(seen, expected);
    }
}

#[test]
fn the_last_line_of_the_address_space_is_peeked_and_poked() {
    let cfg = CacheConfig { size: 64, line: 16, ways: 2, ..CacheConfig::default() };
    let (mut c, mut m) = (Cache::new(&cfg), Dram::new(0xffff_f000, 0x1000));
    c.write(&mut m, 0xffff_fffc, &[1, 2, 3, 4]);
    let mut b = [0; 8];
    c.peek(&m, 0xffff_fff8, &mut b).unwrap();
    assert_eq!(b, [0, 0, 0, 0, 1, 2, 3, 4]);
    c.poke(&mut m, 0xffff_fffe, &[9, 9]).unwrap();
    c.peek(&m, 0xffff_fff8, &mut b).unwrap();
    assert_eq!(b, [0, 0, 0, 0, 1, 2, 9, 9]);
}

#[test]
fn fully_associative_and_random_caches_work() {
    let cfg = CacheConfig { size: 256, line: 16, ways: 16, policy: Policy::Random, ..CacheConfig::default() };
    cfg.validate().unwrap();
    let mut c = Cache::new(&cfg);
    let mut m = Dram::new(BASE, 0x1000);
    for i in 0..64u32 {
        c.write(&mut m, BASE + 16 * i, &i.to_le_bytes());
    }
    c.maintain_all(&mut m, CacheOp::Flush);
    for i in 0..64u32 {
        assert_eq!(dram32(&m, BASE + 16 * i), i, "every store reached memory exactly");
    }
    assert_eq!(c.stats.write_misses, 64);
    assert_eq!(c.stats.evictions, 48);
}

#[test]
fn line_state_shows_set_way_dirty_bytes_and_data() {
    let (mut c, mut m) = small(Policy::Lru, WritePolicy::Back, WriteBack::DirtyBytes);
    assert_eq!(c.line_state(BASE + 0x14), LineState { line: BASE + 0x10, set: 1, held: None });
    c.write(&mut m, BASE + 0x16, &[0xaa, 0xbb]);
    let state = c.line_state(BASE + 0x1f);
    let held = state.held.expect("written: write-allocated");
    assert_eq!((state.line, state.set, held.dirty), (BASE + 0x10, 1, vec![6, 7]));
    assert_eq!(&held.data[5..9], &[0, 0xaa, 0xbb, 0]);
}

/// A cache of more lines than the smallest filter's 1,024 entries: after a pass over a
/// region of its size (every line filled, none evicted: one line a set and way), every line
/// is hit through the filter, none by a search of its set.
#[test]
fn every_line_of_a_large_cache_hits_through_the_filter() {
    let cfg = CacheConfig { size: 256 * 1024, line: 32, ways: 4, ..CacheConfig::default() };
    cfg.validate().unwrap();
    let lines = cfg.size / cfg.line;
    assert!(lines > 1024);
    let (mut c, mut m) = (Cache::new(&cfg), Dram::new(BASE, cfg.size));
    for i in 0..lines {
        read32(&mut c, &mut m, BASE + i * cfg.line);
    }
    assert_eq!((c.stats.read_misses, c.stats.evictions), (lines as u64, 0));
    let filtered = (0..lines).filter(|&i| c.load_filtered(BASE + i * cfg.line, Width::Word).is_some()).count();
    assert_eq!(filtered, lines as usize);
}

/// Two held lines whose filter entry is the same (as many lines apart as the filter has
/// entries, in one set):
/// each look at the other finds the set by its search, as a hit, and takes the entry over.
#[test]
fn lines_sharing_a_filter_entry_both_hit() {
    let (mut c, _) = wb_line();
    let mut m = Dram::new(BASE, 0x10000);
    let (a, b) = (BASE, BASE + c.filter.len() as u32 * 16);
    assert_eq!(c.filter_index(a), c.filter_index(b));
    assert_eq!(c.set_of(a), c.set_of(b));
    m.write_bytes(a, &1u32.to_le_bytes()).unwrap();
    m.write_bytes(b, &2u32.to_le_bytes()).unwrap();
    assert_eq!(read32(&mut c, &mut m, a).0, 1);
    assert_eq!(read32(&mut c, &mut m, b).0, 2);
    assert_eq!(c.load_filtered(a, Width::Word), None, "b's entry now");
    assert_eq!(read32(&mut c, &mut m, a), (1, Traffic::default()), "a hit, by the set's search");
    assert_eq!(c.load_filtered(a, Width::Word), Some(1), "a's entry again");
    assert!(!c.write_filtered(b, &3u32.to_le_bytes()));
    assert_eq!(c.write(&mut m, b, &3u32.to_le_bytes()), Traffic::default(), "b a hit too");
    assert_eq!(read32(&mut c, &mut m, b).0, 3);
    assert_eq!(dram32(&m, b), 2, "the store stays in the cache");
    let s = &c.stats;
    assert_eq!((s.read_accesses, s.read_misses, s.write_accesses, s.write_misses), (5, 2, 1, 0));
}
