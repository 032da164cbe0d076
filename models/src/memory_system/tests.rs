//! The memory system end to end: regions, coherence (or its absence), events and timing.

use super::*;
use crate::cache::config::{Policy, WritePolicy};
use crate::devices::DevicesConfig;
use crate::mxp::config::MxpConfig;
use mxpsim_detector::event::Origin;
use mxpsim_detector::event::{Access as Rw, WriteBack};

const BASE: u32 = 0x8000_0000;
const ALIAS: u32 = 0xc000_0000;
const SYSCTL: u32 = 0x4000_0000;

fn cache_cfg() -> CacheConfig {
    CacheConfig {
        size: 1024,
        line: 16,
        ways: 2,
        policy: Policy::Lru,
        write: WritePolicy::Back,
        ..CacheConfig::default()
    }
}

fn axi_cfg() -> AxiConfig {
    AxiConfig { read_latency: 10, write_latency: 10, data_width: 4, max_burst: 16 }
}

fn system(cache: CacheConfig) -> MemorySystem<Vec<Event>> {
    let map = MemoryMap { dram_size: 0x1_0000, ..MemoryMap::default() };
    map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap();
    MemorySystem::new(map, &cache, axi_cfg(), &MxpConfig::default(), 100_000_000, Vec::new())
}

fn at(now: u64) -> Access {
    Access { pc: 0x8000_0100, now }
}

#[test]
fn uncached_alias_sees_stale_data_until_the_line_is_flushed() {
    let mut m = system(cache_cfg());
    m.store(at(0), BASE + 0x40, Width::Word, 0x1234_5678).unwrap();
    assert_eq!(m.load(at(1), ALIAS + 0x40, Width::Word).unwrap().0, 0, "DRAM not yet written");
    m.cache_block(at(2), CacheOp::Flush, BASE + 0x40).unwrap();
    assert_eq!(m.load(at(3), ALIAS + 0x40, Width::Word).unwrap().0, 0x1234_5678);
}

#[test]
fn functional_mode_is_coherent() {
    let mut m = system(CacheConfig { enabled: false, ..cache_cfg() });
    m.store(at(0), BASE + 0x40, Width::Word, 7).unwrap();
    assert_eq!(m.load(at(1), ALIAS + 0x40, Width::Word).unwrap(), (7, 10 + 1));
}

#[test]
fn whole_cache_commands_through_sysctl() {
    let mut m = system(cache_cfg());
    m.store(at(0), BASE, Width::Byte, 1).unwrap();
    m.store(at(0), BASE + 0x100, Width::Byte, 2).unwrap();
    assert_eq!(m.load(at(1), SYSCTL + sysctl::CACHE_LINE, Width::Word).unwrap().0, 16);
    assert_eq!(m.load(at(1), SYSCTL + sysctl::CACHE_SIZE, Width::Word).unwrap().0, 1024);
    m.store(at(2), SYSCTL + sysctl::CACHE_CTRL, Width::Word, sysctl::CACHE_CLEAN_ALL).unwrap();
    assert_eq!(m.load(at(3), ALIAS + 0x100, Width::Byte).unwrap().0, 2);
    assert!(m.cache().unwrap().contains(BASE), "clean keeps lines");
    m.store(at(4), SYSCTL + sysctl::CACHE_CTRL, Width::Word, sysctl::CACHE_INVAL_ALL).unwrap();
    assert!(!m.cache().unwrap().contains(BASE));
}

#[test]
fn every_cpu_access_is_reported_once_per_line() {
    let mut m = system(cache_cfg());
    m.store(at(5), BASE + 0x0e, Width::Word, 0).unwrap(); // straddles two 16-byte lines
    m.load(at(6), ALIAS + 4, Width::Half).unwrap();
    m.cache_block(at(7), CacheOp::Clean, BASE + 0x13).unwrap();
    m.store(at(8), SYSCTL, Width::Word, sysctl::CACHE_FLUSH_ALL).unwrap();
    let origin = |cycle| Origin { pc: 0x8000_0100, cycle, ctx: 0 };
    assert_eq!(
        m.sink().as_slice(),
        [
            Event::Cached { access: Rw::Write, range: Range::new(BASE + 0x0e, 2), origin: origin(5) },
            Event::Cached { access: Rw::Write, range: Range::new(BASE + 0x10, 2), origin: origin(5) },
            Event::CpuAccess {
                space: Space::Dram,
                access: Rw::Read,
                range: Range::new(BASE + 4, 2),
                origin: origin(6)
            },
            Event::CacheMaintenance { op: CacheOp::Clean, scope: Scope::Line(BASE + 0x10), origin: origin(7) },
            Event::CacheMaintenance { op: CacheOp::Flush, scope: Scope::All, origin: origin(8) },
        ]
    );
}

#[test]
fn straddling_accesses_read_back_across_lines() {
    let mut m = system(cache_cfg());
    m.store(at(0), BASE + 0x0e, Width::Word, 0xa1b2_c3d4).unwrap();
    assert_eq!(m.load(at(1), BASE + 0x0e, Width::Word).unwrap().0, 0xa1b2_c3d4);
    assert_eq!(m.cache().unwrap().stats.write_accesses, 2);
}

#[test]
fn hits_misses_and_write_backs_take_their_time() {
    let mut m = system(CacheConfig { hit_latency: 2, ..cache_cfg() });
    // Miss: a 16-byte fill = 10 cycles latency + 4 beats.
    assert_eq!(m.load(at(100), BASE, Width::Word).unwrap().1, 14);
    // Hit: hit latency 2, of which 1 overlaps the instruction.
    assert_eq!(m.load(at(200), BASE + 4, Width::Word).unwrap().1, 1);
    // Uncached read: latency + 1 beat.
    assert_eq!(m.load(at(300), ALIAS, Width::Word).unwrap().1, 11);
    // An uncached store is posted: no stall while the write buffer has room.
    assert_eq!(m.store(at(400), ALIAS, Width::Word, 1).unwrap(), 0);
}

#[test]
fn a_full_write_buffer_stalls_stores() {
    let mut m = system(CacheConfig { write_buffer: 1, ..cache_cfg() });
    assert_eq!(m.store(at(0), ALIAS, Width::Word, 1).unwrap(), 0);
    // The first write occupies the only entry until 0 + 10 + 1 = 11.
    assert_eq!(m.store(at(1), ALIAS + 4, Width::Word, 1).unwrap(), 10);
}

#[test]
fn byte_granular_write_back_keeps_neighbouring_dma_data() {
    for (writeback, expect) in [(WriteBack::Line, 0x00), (WriteBack::DirtyBytes, 0xaa)] {
        let mut m = system(CacheConfig { writeback, ..cache_cfg() });
        m.load(at(0), BASE, Width::Word).unwrap(); // line allocated
        m.poke(ALIAS + 8, &[0xaa; 8]).unwrap(); // the engine writes DRAM behind the cache
        m.store(at(1), BASE, Width::Byte, 1).unwrap();
        m.cache_block(at(2), CacheOp::Flush, BASE).unwrap();
        let mut b = [0];
        m.peek(ALIAS + 8, &mut b).unwrap();
        assert_eq!(b[0], expect, "{writeback:?}");
    }
}

#[test]
fn unmapped_and_straddling_region_accesses_fault() {
    let mut m = system(cache_cfg());
    assert_eq!(m.load(at(0), 0x9000_0000, Width::Word), Err(MemFault::Unmapped { addr: 0x9000_0000 }));
    let end = BASE + 0x1_0000;
    assert!(m.store(at(0), end - 2, Width::Word, 0).is_err(), "runs off the end of DRAM");
    assert!(m.fetch(ALIAS).is_err(), "no code from the uncached alias");
}

#[test]
fn watched_stores_stop_the_run_for_the_host() {
    let mut m = system(cache_cfg());
    m.watch_stores(BASE + 0x200, 8);
    m.store(at(0), BASE + 0x1fc, Width::Word, 7).unwrap();
    assert!(!m.halt_requested());
    m.store(at(0), BASE + 0x1fe, Width::Word, 7).unwrap();
    assert!(m.halt_requested(), "overlaps the first byte");
    assert_eq!(m.take_watched_stores(), [(BASE + 0x1fe, 4)]);
    assert!(!m.halt_requested());
}

#[test]
fn overlapping_regions_are_refused() {
    let map = MemoryMap { uncached_alias: 0x8100_0000, ..MemoryMap::default() };
    assert_eq!(map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap_err().field, "uncached_alias");
    let map = MemoryMap { sysctl: 0xc000_0000, ..MemoryMap::default() };
    assert_eq!(map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap_err().field, "sysctl");
    let map = MemoryMap { dram_size: 0x4000_0001, ..MemoryMap::default() };
    assert_eq!(map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap_err().field, "dram_size");
    assert!(MemoryMap::default().validate(&MxpConfig::default(), &DevicesConfig::default()).is_ok());
    let port_in_dram = MxpConfig { port: 0x8000_0000, ..MxpConfig::default() };
    assert_eq!(MemoryMap::default().validate(&port_in_dram, &DevicesConfig::default()).unwrap_err().field, "mxp.port");
}

/// A machine with a cached ROM (flash) and an uncached RAM region besides DRAM.
fn system_with_regions() -> MemorySystem<Vec<Event>> {
    let region = |name: &str, base, kind, cached| Region { name: name.into(), base, size: 0x1000, kind, cached };
    let map = MemoryMap {
        dram_size: 0x1_0000,
        regions: vec![
            region("flash", 0x2000_0000, RegionKind::Rom, true),
            region("sram", 0x0800_0000, RegionKind::Ram, false),
        ],
        ..MemoryMap::default()
    };
    map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap();
    MemorySystem::new(map, &cache_cfg(), axi_cfg(), &MxpConfig::default(), 100_000_000, Vec::new())
}

#[test]
fn regions_load_as_configured_and_rom_refuses_stores() {
    let mut m = system_with_regions();
    m.poke(0x2000_0010, &[1, 2, 3, 4]).unwrap(); // the loader writes ROM
    assert_eq!(m.fetch(0x2000_0010), Ok(0x0201), "code runs from any memory");
    assert_eq!(m.load(at(1), 0x2000_0010, Width::Word).unwrap().0, 0x0403_0201);
    assert_eq!(m.store(at(2), 0x2000_0010, Width::Byte, 9), Err(MemFault::Unmapped { addr: 0x2000_0010 }));
    m.store(at(3), 0x0800_0000, Width::Half, 0xbeef).unwrap();
    assert_eq!(m.load(at(4), 0x0800_0000, Width::Half).unwrap().0, 0xbeef);
    let origin = |cycle| Origin { pc: 0x8000_0100, cycle, ctx: 0 };
    assert_eq!(
        m.sink().as_slice(),
        [
            // Cached ROM: a cached read (its line's alloc); the refused store is no event.
            Event::Cached { access: Rw::Read, range: Range::new(0x2000_0010, 4), origin: origin(1) },
            // Uncached RAM: the CPU's uncached accesses.
            Event::CpuAccess {
                space: Space::Dram,
                access: Rw::Write,
                range: Range::new(0x0800_0000, 2),
                origin: origin(3)
            },
            Event::CpuAccess {
                space: Space::Dram,
                access: Rw::Read,
                range: Range::new(0x0800_0000, 2),
                origin: origin(4)
            },
        ]
    );
    assert_eq!(m.region_at(0x2000_0fff).as_deref(), Some("the ROM region `flash`"));
}

#[test]
fn regions_must_be_whole_pages_and_not_overlap() {
    let flash = Region { name: "flash".into(), base: 0x8000_0000, size: 0x1000, kind: RegionKind::Rom, cached: true };
    let map = MemoryMap { regions: vec![flash.clone()], ..MemoryMap::default() };
    assert_eq!(map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap_err().field, "regions");
    let odd = Region { base: 0x2000_0000, size: 0x800, ..flash };
    let map = MemoryMap { regions: vec![odd], ..MemoryMap::default() };
    assert_eq!(map.validate(&MxpConfig::default(), &DevicesConfig::default()).unwrap_err().field, "regions");
}

#[test]
fn a_console_byte_halts_the_hart_until_the_host_takes_it() {
    let devices = DevicesConfig { clint: None, uart: Some(crate::devices::uart::UartConfig::default()) };
    let map = MemoryMap { dram_size: 0x1_0000, ..MemoryMap::default() };
    map.validate(&MxpConfig::default(), &devices).unwrap();
    let mut m =
        MemorySystem::new(map, &cache_cfg(), axi_cfg(), &MxpConfig::default(), 100_000_000, Vec::<Event>::new())
            .with_devices(&devices, Box::new(()));
    let thr = crate::devices::uart::UartConfig::default().base;
    m.store(at(0), BASE, Width::Word, 7).unwrap();
    assert!(!m.halt_requested());
    m.store(at(1), thr, Width::Byte, u32::from(b'!')).unwrap();
    assert!(m.halt_requested(), "a byte for the host to print");
    assert_eq!(m.take_console(), b"!");
    assert!(!m.halt_requested(), "taken");
    m.store(at(2), BASE + 4, Width::Word, 7).unwrap();
    assert!(!m.halt_requested());
}

#[test]
fn dram_pages_are_the_coherent_view_without_its_zero_pages() {
    for cache in [cache_cfg(), CacheConfig { enabled: false, ..cache_cfg() }] {
        let mut m = system(cache);
        // Stores all over DRAM through the cache (more lines than it holds: some written
        // back, some dirty in it), some of zeros, and some behind it through the uncached
        // alias; then pages 0 to 3 flushed, so that they hold no line but are not all zero.
        let mut x = 12345u32;
        for i in 0..300u32 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let offset = ((x >> 8) % 0xc000) & !3; // pages 12 to 15 untouched
            let value = if i % 7 == 0 { 0 } else { x | 1 };
            let addr = if i % 5 == 0 { ALIAS + offset } else { BASE + offset };
            m.store(at(u64::from(i)), addr, Width::Word, value).unwrap();
        }
        for line in (BASE..BASE + 4 * DRAM_PAGE).step_by(16) {
            m.cache_block(at(300), CacheOp::Flush, line).unwrap();
        }
        let mut whole = vec![0; 0x1_0000];
        m.peek(BASE, &mut whole).unwrap();
        let mut pages = Vec::new();
        m.peek_dram_pages(|addr, bytes| pages.push((addr, bytes.to_vec())));
        let expected: Vec<(u32, Vec<u8>)> = whole
            .chunks(DRAM_PAGE as usize)
            .enumerate()
            .filter(|(_, page)| page.iter().any(|&b| b != 0))
            .map(|(i, page)| (BASE + i as u32 * DRAM_PAGE, page.to_vec()))
            .collect();
        assert!(expected.len() > 4 && expected.len() <= 12, "pages 12 to 15 untouched: {}", expected.len());
        assert_eq!(pages, expected);
    }
}
