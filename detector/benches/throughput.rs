//! Detector throughput on a realistic synthetic stream (see `workload.rs`), then a soak run
//! checking that the detector's state stays bounded.
//!
//! `cargo bench -p mxpsim-detector --bench throughput`; the soak length is
//! `MXPSIM_SOAK_EVENTS` (default 10^8; 10^9 takes about ten times as long).

mod workload;

use std::time::{Duration, Instant};

use criterion::{criterion_group, Criterion, Throughput};
use mxpsim_detector::event::{CacheGeometry, Event, WriteBack};
use mxpsim_detector::{Config, Detector};
use workload::Workload;

/// Events per measured replay, handed to the detector in chunks generated (untimed) just
/// before, as a simulator would hand them over: cache-warm.
const EVENTS: usize = 2_000_000;
const CHUNK: usize = 4096;

fn config(write_back: WriteBack) -> Config {
    Config { geometry: CacheGeometry { line_size: 32, write_back }, cpu_uncached_vs_cache: false }
}

/// Replays `EVENTS` events of the workload; returns the time spent in the detector and the
/// number of distinct races.
fn replay(config: Config) -> (Duration, usize) {
    let mut detector = Detector::new(config).expect("valid config");
    let mut workload = Workload::new();
    let mut chunk: Vec<Event> = Vec::with_capacity(CHUNK);
    let mut spent = Duration::ZERO;
    for _ in 0..EVENTS / CHUNK {
        chunk.clear();
        chunk.extend(workload.by_ref().take(CHUNK));
        let start = Instant::now();
        for event in &chunk {
            detector.observe(event).expect("legal stream");
        }
        spent += start.elapsed();
    }
    (spent, detector.finish().len())
}

fn throughput(c: &mut Criterion) {
    let mut group = c.benchmark_group("detector");
    group.throughput(Throughput::Elements((EVENTS / CHUNK * CHUNK) as u64));
    group.sample_size(10);
    for (name, write_back) in [("line write-back", WriteBack::Line), ("dirty-byte write-back", WriteBack::DirtyBytes)] {
        group.bench_function(name, |b| b.iter_custom(|runs| (0..runs).map(|_| replay(config(write_back)).0).sum()));
        let (spent, races) = replay(config(write_back));
        let rate = (EVENTS / CHUNK * CHUNK) as f64 / spent.as_secs_f64();
        println!("{name}: {:.1} M events/s ({races} distinct race(s))", rate / 1e6);
    }
    group.finish();
}

/// Runs a long stream, checking the state size against a bound that does not grow with it.
fn soak() {
    let events: u64 = std::env::var("MXPSIM_SOAK_EVENTS").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000_000);
    let mut detector = Detector::new(config(WriteBack::Line)).expect("valid config");
    let start = Instant::now();
    let mut largest = detector.state_size();
    for (i, event) in Workload::new().take(events as usize).enumerate() {
        detector.observe(&event).expect("legal stream");
        if i % 4096 == 0 {
            let size = detector.state_size();
            largest.line_pages = largest.line_pages.max(size.line_pages);
            largest.dram_segments = largest.dram_segments.max(size.dram_segments);
            largest.dram_nodes = largest.dram_nodes.max(size.dram_nodes);
            largest.archived = largest.archived.max(size.archived);
            largest.logged_accesses = largest.logged_accesses.max(size.logged_accesses);
            largest.engine_nodes = largest.engine_nodes.max(size.engine_nodes);
        }
    }
    println!("soak: {events} events in {:.1} s; largest state {largest:?}", start.elapsed().as_secs_f64());
    // 256 KiB working set + three 4 KiB buffers (+1 for the line before the first).
    assert!(largest.line_pages <= 64 + 4, "{largest:?}");
    assert!(largest.dram_segments <= 8 && largest.dram_nodes <= 8, "{largest:?}");
    assert!(largest.archived <= 64 && largest.logged_accesses <= 64 && largest.engine_nodes <= 4, "{largest:?}");
}

criterion_group!(benches, throughput);

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
    soak();
}
