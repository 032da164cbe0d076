//! The engine through the memory system, as firmware drives it: words stored to the port,
//! replies loaded from it, data seen in DRAM and the scratchpad at the cycles the schedule
//! says, and the event stream the detector gets.

use crate::axi::AxiConfig;
use crate::bus::{Access, Bus, Width};
use crate::cache::config::CacheConfig;
use crate::memory_system::{MemoryMap, MemorySystem};
use crate::mxp::config::MxpConfig;
use mxpsim_detector::event::{DmaDir, Event, Range, Request};

const DRAM: u32 = 0x8000_0000;
const ALIAS: u32 = 0xc000_0000;
const PORT: u32 = 0x4001_0000;
const SP: u32 = 0x5000_0000;
const SYNC: u32 = 0x0006_0002;

struct Rig {
    m: MemorySystem<Vec<Event>>,
    now: u64,
}

impl Rig {
    fn new(mxp: MxpConfig) -> Rig {
        Rig::with_latency(mxp, 10)
    }

    /// A rig whose AXI reads and writes take `latency` cycles before their beats.
    fn with_latency(mxp: MxpConfig, latency: u32) -> Rig {
        let map = MemoryMap { dram_size: 0x10_0000, ..MemoryMap::default() };
        let axi = AxiConfig { read_latency: latency, write_latency: latency, data_width: 4, max_burst: 16 };
        let cache = CacheConfig::default();
        Rig { m: MemorySystem::new(map, &cache, axi, &mxp, 100_000_000, Vec::new()), now: 0 }
    }

    fn at(&mut self) -> Access {
        self.now += 1;
        Access { pc: 0x8000_0400, now: self.now }
    }

    /// Stores command words to the port; returns the total stall.
    fn command(&mut self, words: &[u32]) -> u64 {
        let mut stall = 0;
        for &w in words {
            let at = self.at();
            let s = self.m.store(at, PORT, Width::Word, w).unwrap();
            self.now += s;
            stall += s;
        }
        stall
    }

    /// `vbx_sync()`: returns the stall.
    fn sync(&mut self) -> u64 {
        self.command(&[SYNC]);
        let at = self.at();
        let (_, stall) = self.m.load(at, PORT, Width::Word).unwrap();
        self.now += stall;
        stall
    }

    fn load(&mut self, addr: u32) -> u32 {
        let at = self.at();
        let (v, stall) = self.m.load(at, addr, Width::Word).unwrap();
        self.now += stall;
        v
    }

    fn store(&mut self, addr: u32, value: u32) {
        let at = self.at();
        self.now += self.m.store(at, addr, Width::Word, value).unwrap();
    }

    fn error(&self) -> String {
        self.m.mxp_error().map(|e| e.what.clone()).unwrap_or_default()
    }
}

fn dma_to_vector(sp: u32, ext: u32, len: u32) -> [u32; 4] {
    [1, ext, sp, len]
}

fn dma_to_host(ext: u32, sp: u32, len: u32) -> [u32; 4] {
    [0, ext, sp, len]
}

#[test]
fn dma_to_the_scratchpad_lands_when_it_completes() {
    let mut r = Rig::new(MxpConfig::default());
    r.store(ALIAS + 0x100, 0x1111_2222);
    r.command(&dma_to_vector(SP + 0x40, DRAM + 0x100, 4));
    assert_eq!(r.load(SP + 0x40), 0, "still in flight: the CPU is not ordered with it");
    let stall = r.sync();
    assert!(stall > 0, "sync waits for the transfer");
    assert_eq!(r.load(SP + 0x40), 0x1111_2222);
    assert_eq!(r.m.mxp().stats.dma_bytes, 4);
}

#[test]
fn dma_to_host_writes_dram_behind_the_cache() {
    let mut r = Rig::new(MxpConfig::default());
    r.store(SP + 0x10, 0xabcd_ef01);
    r.load(DRAM + 0x200); // the line is now cached (clean, zero)
    r.command(&dma_to_host(DRAM + 0x200, SP + 0x10, 4));
    r.sync();
    assert_eq!(r.load(ALIAS + 0x200), 0xabcd_ef01, "DRAM has the data");
    assert_eq!(r.load(DRAM + 0x200), 0, "the cached line is stale: DMA is not coherent");
}

#[test]
fn events_name_each_request_and_its_engine_node() {
    let mut r = Rig::new(MxpConfig::default());
    r.command(&dma_to_vector(SP, DRAM + 0x100, 8));
    r.sync();
    let events = r.m.sink().clone();
    let request_pos = 1; // the first CPU node of the stream
    assert!(matches!(events[0], Event::Request { request: Request::Dma(DmaDir::ToScratchpad), .. }));
    match &events[1] {
        Event::Dma { request, dir, host, scratchpad, .. } => {
            assert_eq!((*request, *dir), (request_pos, DmaDir::ToScratchpad));
            assert_eq!(
                (host.as_slice(), scratchpad.as_slice()),
                ([Range::new(DRAM + 0x100, 8)].as_slice(), [Range::new(0, 8)].as_slice())
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(events[2], Event::Sync { .. }));
    assert_eq!(events.len(), 3);
}

#[test]
fn two_d_dma_with_negative_and_zero_strides() {
    let mut r = Rig::new(MxpConfig::default());
    for i in 0..4 {
        r.store(ALIAS + 0x100 + 4 * i, 0x10 + i);
    }
    // Rows of 4 bytes: external rows ascending, scratchpad rows descending (stride −4).
    r.command(&[0x0001_8001, (-4i32) as u32, 4, 0]);
    r.command(&[0x0001_0000, 4, 0, 0]);
    r.command(&[0x0004_0001, DRAM + 0x100, SP + 0x20, 4]);
    r.sync();
    let rows: Vec<u32> = (0..4).map(|i| r.load(SP + 0x20 - 4 * i)).collect();
    assert_eq!(rows, [0x10, 0x11, 0x12, 0x13]);
    // Scratchpad stride 0: every external row gets the same scratchpad word.
    r.store(SP + 0x80, 0x77);
    r.command(&[0x0001_8001, 0, 3, 0]);
    r.command(&[0x0001_0000, 8, 0, 0]);
    r.command(&[0x0004_0000, DRAM + 0x300, SP + 0x80, 4]);
    r.sync();
    let out: Vec<u32> = (0..3).map(|i| r.load(ALIAS + 0x300 + 8 * i)).collect();
    assert_eq!(out, [0x77, 0x77, 0x77]);
}

#[test]
fn zero_length_dma_is_a_no_op_wherever_it_points() {
    // Found by the fuzz test: a zero-length DMA at a non-DRAM host address used to pass the
    // decode-time check and then fail when applied.
    let mut r = Rig::new(MxpConfig::default());
    r.command(&dma_to_vector(SP, SP + 0x813, 0));
    r.command(&dma_to_host(0x1234, SP, 0));
    r.sync();
    assert!(!r.m.halt_requested(), "{}", r.error());
    assert!(r.m.sink().iter().all(|e| match e {
        Event::Dma { host, scratchpad, .. } => host.is_empty() && scratchpad.is_empty(),
        _ => true,
    }));
}

#[test]
fn registers_round_trip_through_get_param() {
    let mut r = Rig::new(MxpConfig::default());
    r.command(&[2, 100, 3, 2]); // set VL = 100, ROWS = 3, MATS = 2
    r.command(&[0x0006_0040]); // GET_PARAM ROWS
    assert_eq!(r.load(PORT), 3);
    r.command(&[0x0006_0401, 0x1234]); // SET_PARAM reg 16
    r.command(&[0x0006_0400]);
    assert_eq!(r.load(PORT), 0x1234);
}

#[test]
fn a_full_fifo_stalls_the_cpu() {
    let mut r = Rig::new(MxpConfig { fifo_depth: 2, dma_queue: 1, ..MxpConfig::default() });
    let mut stall = 0;
    for i in 0..6 {
        stall += r.command(&dma_to_vector(SP + 0x100 * i, DRAM, 0x100));
    }
    assert!(stall > 0, "six long DMAs through a 2-entry FIFO and a 1-entry queue stall the CPU");
    assert_eq!(r.m.mxp().stats.cpu_stall_cycles, stall);
}

#[test]
fn dma_contends_with_the_cpu_for_the_bus() {
    let cycles_of_uncached_read = |with_dma: bool| {
        let mut r = Rig::new(MxpConfig::default());
        if with_dma {
            r.command(&dma_to_vector(SP, DRAM, 0x1000));
        }
        let before = r.now;
        r.load(ALIAS + 0x8000);
        r.now - before
    };
    assert!(cycles_of_uncached_read(true) > cycles_of_uncached_read(false));
}

#[test]
fn malformed_commands_stop_with_a_clear_error() {
    let cases: &[(&[u32], &str)] = &[
        (&[0x0000_0012, 0, 0, 0], "unassigned opcode"),
        (&dma_to_vector(SP + 0x3_fff0, DRAM, 0x20), "outside the scratchpad"),
        (&dma_to_vector(0x1000, DRAM, 4), "outside the scratchpad"),
        (&dma_to_host(ALIAS + 0x100, SP, 4), "VBX_DMA_ADDR"),
        (&[2, 0, 1, 1, 0x0000_55c8, SP, SP, SP], "VL = 0"),
    ];
    for (words, message) in cases {
        let mut r = Rig::new(MxpConfig::default());
        r.command(words);
        assert!(r.error().contains(message), "{words:x?}: {:?}", r.error());
        assert!(r.m.halt_requested());
    }
    let mut r = Rig::new(MxpConfig::default());
    r.load(PORT);
    assert!(r.error().contains("no reply pending"));
    let mut r = Rig::new(MxpConfig::default());
    let at = r.at();
    r.m.store(at, PORT, Width::Byte, 1).unwrap();
    assert!(r.error().contains("32-bit stores only"));
}

/// `vbx(VVW, VADD, d, a, b)` with scratchpad CPU addresses.
fn vadd_word(d: u32, a: u32, b: u32) -> [u32; 4] {
    [0x0000_55c8, a, b, d]
}

#[test]
fn a_vector_op_waits_for_the_dma_that_fills_its_source() {
    let mut r = Rig::new(MxpConfig::default());
    for i in 0..4 {
        r.store(ALIAS + 0x100 + 4 * i, 10 * (i + 1));
        r.store(SP + 0x200 + 4 * i, i);
    }
    r.command(&[2, 4, 1, 1]); // VL = 4
    r.command(&dma_to_vector(SP, DRAM + 0x100, 16));
    r.command(&vadd_word(SP + 0x300, SP, SP + 0x200)); // interlock 1: reads the DMA's destination
    r.command(&dma_to_host(DRAM + 0x400, SP + 0x300, 16)); // interlock 3: reads the vector's result
    r.sync();
    let out: Vec<u32> = (0..4).map(|i| r.load(ALIAS + 0x400 + 4 * i)).collect();
    assert_eq!(out, [10, 21, 32, 43]);
    // The engine nodes arrive in an order the interlocks allow: DMA in, vector, DMA out.
    let engine: Vec<&str> =
        r.m.sink()
            .iter()
            .filter_map(|e| match e {
                Event::Dma { dir: DmaDir::ToScratchpad, .. } => Some("dma in"),
                Event::Dma { dir: DmaDir::ToHost, .. } => Some("dma out"),
                Event::Vector { .. } => Some("vector"),
                _ => None,
            })
            .collect();
    assert_eq!(engine, ["dma in", "vector", "dma out"]);
}

#[test]
fn unrelated_work_overlaps_and_more_lanes_finish_sooner() {
    let cycles = |lanes: u32| {
        let mut r = Rig::new(MxpConfig { lanes, ..MxpConfig::default() });
        r.command(&[2, 4096, 1, 1]); // VL = 4096 words
        r.command(&vadd_word(SP + 0x2_0000, SP, SP + 0x1_0000));
        let before = r.now;
        r.sync();
        r.now - before
    };
    let (four, sixteen) = (cycles(4), cycles(16));
    assert!(sixteen < four, "16 lanes {sixteen} cycles, 4 lanes {four}");
    assert!(four >= 4096 / 4, "one wavefront of 4 words per cycle with 4 lanes: {four}");
}

#[test]
fn work_the_interlocks_do_not_order_overtakes() {
    // A long DMA into the scratchpad, then a vector op writing the same bytes (write after
    // write: no interlock). The vector op finishes first and the DMA's data lands last, so
    // the interlocked case above gets the right data only because of the interlock.
    let mut r = Rig::new(MxpConfig::default());
    r.store(ALIAS + 0x1000, 0x5555_5555);
    r.command(&[2, 1, 1, 1]); // VL = 1
    r.command(&dma_to_vector(SP, DRAM + 0x1000, 0x400));
    r.command(&[0x0001_55c8, 7, SP + 0x800, SP]); // vbx(SVW, VADD, SP, 7, SP+0x800): writes SP[0]
    r.sync();
    assert_eq!(r.load(SP), 0x5555_5555, "the DMA wrote last");
    let order: Vec<bool> =
        r.m.sink()
            .iter()
            .filter_map(|e| match e {
                Event::Dma { .. } => Some(true),
                Event::Vector { .. } => Some(false),
                _ => None,
            })
            .collect();
    assert_eq!(order, [false, true], "vector node first, then the DMA");
}

#[test]
fn dma_time_grows_with_bytes_and_latency() {
    let sync_stall = |bytes: u32, latency: u32| {
        let mut r = Rig::with_latency(MxpConfig::default(), latency);
        r.command(&dma_to_vector(SP, DRAM, bytes));
        r.sync()
    };
    assert!(sync_stall(1024, 20) > sync_stall(64, 20));
    assert!(sync_stall(256, 80) > sync_stall(256, 20));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    /// Scratchpad, DRAM or wild addresses.
    fn addr() -> impl Strategy<Value = u32> {
        prop_oneof![(0u32..0x1000).prop_map(|o| SP + o), (0u32..0x1000).prop_map(|o| DRAM + o), any::<u32>()]
    }

    /// Whole commands: vector instructions of any opcode/mode, DMAs, settings, syncs, and
    /// arbitrary words, so that valid work and every error path are reached.
    fn command() -> impl Strategy<Value = Vec<u32>> {
        let vector_word0 = (4u32..64, 0u32..(1 << 13)).prop_map(|(op, modes)| op | (modes << 6));
        prop_oneof![
            (vector_word0, addr(), addr(), addr()).prop_map(|(w, a, b, d)| vec![w, a, b, d]),
            (0u32..2, addr(), addr(), 0u32..300).prop_map(|(dir, e, s, n)| vec![dir, e, s, n]),
            (0u32..70, 0u32..4, 0u32..3).prop_map(|(vl, rows, mats)| vec![2, vl, rows, mats]),
            (any::<i8>(), any::<i8>(), any::<i8>()).prop_map(|(a, b, d)| vec![
                0x0004_0002,
                a as u32,
                b as u32,
                d as u32
            ]),
            Just(vec![SYNC]),
            any::<u32>().prop_map(|w| vec![w]),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Whatever the firmware writes to the port, and reads back, the engine either
        /// carries it out or stops with an error; it never panics.
        #[test]
        fn any_command_stream_is_handled(commands in prop::collection::vec(command(), 1..30), read_at in 0usize..30) {
            let mut r = Rig::new(MxpConfig { scratchpad_size: 4096, ..MxpConfig::default() });
            for (i, words) in commands.iter().enumerate() {
                if r.m.halt_requested() {
                    break;
                }
                r.command(words);
                if i == read_at {
                    let at = r.at();
                    let _ = r.m.load(at, PORT, Width::Word);
                }
            }
            let at = r.at();
            let _ = r.m.load(at, SP, Width::Word);
        }
    }
}

/// Runs `f` and fails if it takes longer than `limit` (the work of a huge command must be
/// bounded at submit time, whatever its row count).
fn within<T>(limit: std::time::Duration, what: &str, f: impl FnOnce() -> T) -> T {
    let start = std::time::Instant::now();
    let value = f();
    assert!(start.elapsed() < limit, "{what} took {:?}", start.elapsed());
    value
}

#[test]
fn a_two_d_dma_of_four_billion_rows_is_described_not_listed() {
    // Found by issue 13: 0xffffffff rows took 48 s and 6.3 GB before it was stopped.
    let mut r = Rig::new(MxpConfig::default());
    let rows = u32::MAX;
    let stall = within(std::time::Duration::from_secs(5), "issuing the DMA", || {
        r.command(&[0x0001_8001, 0, rows, 0]); // scratchpad increment 0
        r.command(&[0x0001_0000, 0, 0, 0]); // external increment 0
        r.command(&[0x0004_0001, DRAM + 0x100, SP + 0x40, 64])
    });
    assert_eq!(stall, 0, "{}", r.error());
    assert!(!r.m.halt_requested(), "{}", r.error());
    // 2^32 − 1 rows of 16 beats: the sync would wait that long (the bus alone: no bursts
    // granted one by one).
    assert_eq!(r.m.mxp().stats.dma_bytes, u64::from(rows) * 64);
    assert!(r.m.mxp().next_due() > u64::from(rows) * 16);
}

#[test]
fn a_vector_instruction_past_the_simulators_time_is_refused() {
    // A 16 MiB scratchpad: VL, ROWS and MATS up to 2^25 − 1 each. Rows of 2^22 words (2^20
    // wavefronts) × 2^25 − 1 rows × 2^25 − 1 matrices, all on the same bytes: 2^70 wavefronts.
    let mut r = Rig::new(MxpConfig { scratchpad_size: 16 << 20, ..MxpConfig::default() });
    let most = (32 << 20) - 1;
    r.command(&[2, 1 << 22, most, most]);
    within(std::time::Duration::from_secs(5), "refusing the instruction", || r.command(&vadd_word(SP, SP, SP)));
    assert!(r.error().contains("beyond the simulator's 2^62 cycles"), "{}", r.error());
}

/// The most rows (and matrices) the default 256 KiB scratchpad's registers hold: 2S − 1.
const MOST_ROWS: u32 = (512 << 10) - 1;

#[test]
fn a_vector_instruction_of_2_to_the_38_rows_is_issued_in_bounded_time() {
    let mut r = Rig::new(MxpConfig { strict_bounds: true, ..MxpConfig::default() });
    r.command(&[2, 4, MOST_ROWS, MOST_ROWS]); // VL 4
    r.command(&[0x0000_0002 | (1 << 18), 0, 4, 0]); // 2-D: IA 0, IB 4, ID 0
    r.command(&[0x0000_0002 | (1 << 17), 0, 0, 0]); // 3-D: all 0
                                                    // B's rows walk 4 bytes per row through 2^19 rows: far outside the scratchpad, which
                                                    // strict bounds refuse.
    within(std::time::Duration::from_secs(5), "refusing the instruction", || r.command(&vadd_word(SP, SP, SP + 0x100)));
    assert!(r.error().contains("leave the 0x40000-byte scratchpad"), "{}", r.error());
    // Every row on the same bytes: valid, issued at once, its footprint one range each.
    let mut r = Rig::new(MxpConfig::default());
    r.command(&[2, 4, MOST_ROWS, MOST_ROWS]);
    r.command(&[0x0000_0002 | (1 << 18), 0, 0, 0]);
    r.command(&[0x0000_0002 | (1 << 17), 0, 0, 0]);
    within(std::time::Duration::from_secs(5), "issuing the instruction", || {
        r.command(&vadd_word(SP, SP + 0x10, SP + 0x100))
    });
    assert!(!r.m.halt_requested(), "{}", r.error());
    assert_eq!(r.m.mxp().stats.wavefronts, u64::from(MOST_ROWS) * u64::from(MOST_ROWS));
}

#[test]
fn a_stop_request_ends_a_long_command_between_rows() {
    let mut r = Rig::new(MxpConfig::default());
    let stop = crate::stop::StopRequest::default();
    r.m.set_limits(u64::MAX, stop.clone());
    r.command(&[2, 4, MOST_ROWS, MOST_ROWS]);
    r.command(&[0x0000_0002 | (1 << 18), 0, 0, 0]);
    r.command(&[0x0000_0002 | (1 << 17), 0, 0, 0]);
    r.command(&vadd_word(SP, SP + 0x10, SP + 0x100));
    stop.request(2);
    within(std::time::Duration::from_secs(5), "stopping", || r.sync());
    assert_eq!(r.m.stop(), Some(crate::stop::Stop::Requested));
    assert!(r.m.halt_requested());
}

#[test]
fn the_cpu_waits_for_the_accelerator_no_longer_than_the_cycle_limit() {
    let mut r = Rig::new(MxpConfig::default());
    r.m.set_limits(5_000, crate::stop::StopRequest::default());
    r.command(&[0x0001_8001, 0, 1000, 0]);
    r.command(&[0x0001_0000, 0, 0, 0]);
    r.command(&[0x0004_0001, DRAM + 0x100, SP + 0x40, 64]); // 16,000 beats
    r.sync();
    assert_eq!(r.now, 5_000, "the clock stops at the limit");
    assert_eq!(r.m.stop(), Some(crate::stop::Stop::CycleLimit));
    assert!(r.m.sink().iter().all(|e| !matches!(e, Event::Dma { .. } | Event::Sync { .. })));
}

#[test]
fn operand_addresses_wrap_at_the_scratchpads_end_unless_bounds_are_strict() {
    // The SDK's basic_test issues vbx(SVW, VMUL, 0, 0, 0): CPU address 0 is scratchpad offset 0
    // modulo its size (§3.1 item 7).
    let svw_vmul = |d: u32, a: u32, b: u32| [0x0001_55cc, a, b, d]; // M_SVW | VMUL (12)
    let mut r = Rig::new(MxpConfig::default());
    r.store(SP, 6);
    r.command(&[2, 1, 1, 1]);
    r.command(&svw_vmul(0, 7, 0));
    r.sync();
    assert!(!r.m.halt_requested(), "{}", r.error());
    assert_eq!(r.load(SP), 42, "7 × 6 at offset 0");
    // A row that runs off the end continues at offset 0: words at 0x3fffc and 0.
    r.store(SP + 0x3_fffc, 5);
    r.command(&[2, 2, 1, 1]);
    r.command(&vadd_word(SP + 0x100, SP + 0x3_fffc, SP + 0x3_fffc));
    r.sync();
    assert_eq!((r.load(SP + 0x100), r.load(SP + 0x104)), (10, 84));
    let wrapped: Vec<Range> =
        r.m.sink()
            .iter()
            .rev()
            .find_map(|e| match e {
                Event::Vector { reads, .. } => Some(reads.clone()),
                _ => None,
            })
            .unwrap();
    assert_eq!(wrapped, [Range::new(0x3_fffc, 4), Range::new(0, 4), Range::new(0x3_fffc, 4), Range::new(0, 4)]);
    let mut strict = Rig::new(MxpConfig { strict_bounds: true, ..MxpConfig::default() });
    strict.command(&svw_vmul(0, 7, 0));
    assert!(strict.error().contains("outside the 0x40000-byte scratchpad (strict bounds)"), "{}", strict.error());
}

#[test]
fn the_square_root_does_not_read_b() {
    // libfixmath's hardware path passes B = 0 (CPU address 0) to VCUSTOM1: B is not an operand,
    // so even strict bounds let it run, and the event lists only A's row.
    let vvw_vcustom1 = |d: u32, a: u32, b: u32| [0x0000_55f1, a, b, d]; // M_VVW | VCUSTOM1 (49)
    let mut r = Rig::new(MxpConfig { strict_bounds: true, ..MxpConfig::default() });
    r.store(SP + 0x10, 4 << 16); // 4.0 in Q16.16
    r.command(&[2, 1, 1, 1]);
    r.command(&vvw_vcustom1(SP + 0x20, SP + 0x10, 0));
    r.sync();
    assert!(!r.m.halt_requested(), "{}", r.error());
    assert_eq!(r.load(SP + 0x20), 2 << 16, "√4 = 2");
    let reads = r.m.sink().iter().find_map(|e| match e {
        Event::Vector { reads, .. } => Some(reads.clone()),
        _ => None,
    });
    assert_eq!(reads, Some(vec![Range::new(0x10, 4)]));
}
