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
