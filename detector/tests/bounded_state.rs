//! The detector's state stays bounded on a long stream of the usual shape (accesses,
//! requests, sync, repeat). The benchmark runs the same check over 10^8 events
//! (`MXPSIM_SOAK_EVENTS` sets the length); this is the quick version for every test run.

#[path = "../benches/workload/mod.rs"]
mod workload;

use mxpsim_detector::event::{CacheGeometry, WriteBack};
use mxpsim_detector::{Config, Detector};

#[test]
fn state_does_not_grow_with_the_stream() {
    let config = Config {
        geometry: CacheGeometry { line_size: 32, write_back: WriteBack::DirtyBytes },
        cpu_uncached_vs_cache: true,
    };
    let mut detector = Detector::new(config).expect("valid config");
    let mut sizes = Vec::new();
    for (i, event) in workload::Workload::new().take(1_000_000).enumerate() {
        detector.observe(&event).expect("legal stream");
        if i % 100_000 == 99_999 {
            sizes.push(detector.state_size());
        }
    }
    // After the first iterations have touched the working set, nothing grows (the 16
    // uncached stores per iteration are stale writers, each replaced by the next iteration's).
    let settled = sizes[2];
    for size in &sizes[2..] {
        assert_eq!(size.line_pages, settled.line_pages);
        assert!(size.dram_segments <= 64 && size.dram_nodes <= 64, "{size:?}");
        assert!(size.archived <= 64 && size.logged_accesses <= 64 && size.engine_nodes <= 4, "{size:?}");
    }
    assert_eq!(detector.report().len(), 1, "the one vec_add race of the workload:\n{:#?}", detector.report());
}

/// A DMA over memory the CPU never touched through the cache costs no state per line (a
/// line's state is 192 bytes: a 256 MiB transfer would need 3 GB), and the lines it wrote
/// are still checked when the CPU reads them later: reading one before the sync races.
#[test]
fn a_huge_transfer_into_untouched_memory_keeps_no_line_states() {
    use mxpsim_detector::event::{Access, DmaDir, Event, Origin, Range, Request};
    const HOST: u32 = 0x9000_0000;
    const SIZE: u32 = 256 << 20;
    let config = Config {
        geometry: CacheGeometry { line_size: 16, write_back: WriteBack::DirtyBytes },
        cpu_uncached_vs_cache: false,
    };
    let mut detector = Detector::new(config).expect("valid config");
    let origin = |pc| Origin { pc, cycle: 0, ctx: 0 };
    let request = Event::Request { request: Request::Dma(DmaDir::ToHost), origin: origin(0x100) };
    detector.observe(&request).expect("legal stream");
    let dma = Event::Dma {
        request: 1,
        dir: DmaDir::ToHost,
        host: vec![Range::new(HOST, SIZE)],
        scratchpad: vec![Range::new(0, 64)],
        cycle: 0,
    };
    detector.observe(&dma).expect("legal stream");
    let size = detector.state_size();
    assert_eq!((size.line_pages, size.unpaged_flag_words), (0, (SIZE / 16 / 64) as usize), "{size:?}");
    // The CPU reads a line the DMA wrote before any sync: its fill races with the DMA (found
    // from the bit alone: a read records nothing while no request is pending).
    let read = Event::Cached { access: Access::Read, range: Range::new(HOST + SIZE - 16, 4), origin: origin(0x104) };
    assert_eq!(detector.observe(&read).expect("legal stream"), 1);
    assert_eq!(detector.state_size(), size);
    // A write there too: its write-back races with the DMA. The write gives the line a state,
    // so its page's 256 lines get states, their flags moved there from the bits (4 words).
    let write = Event::Cached { access: Access::Write, range: Range::new(HOST + SIZE - 32, 4), origin: origin(0x108) };
    assert_eq!(detector.observe(&write).expect("legal stream"), 1);
    let size = detector.state_size();
    assert_eq!((size.line_pages, size.unpaged_flag_words), (1, (SIZE / 16 / 64) as usize - 4), "{size:?}");
}
