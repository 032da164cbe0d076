//! Random legal streams for property tests: CPU programs of cached, uncached and scratchpad
//! accesses, maintenance, requests and syncs over a small memory, with an engine schedule.

use super::{Step, Work};
use mxpsim_detector::event::{Access, CacheOp, DmaDir, Range, Scope, Space, WriteBack};
use proptest::prelude::*;

const DRAM: u32 = 256;
const SCRATCHPAD: u32 = 128;

fn range_in(limit: u32, max_len: u32) -> impl Strategy<Value = Range> {
    (0..limit, 1..=max_len).prop_map(|(start, len)| Range::new(start, len))
}

fn access() -> impl Strategy<Value = Access> {
    prop_oneof![Just(Access::Read), Just(Access::Write)]
}

fn small_len() -> impl Strategy<Value = u32> {
    prop_oneof![Just(1u32), Just(2), Just(4), Just(8)]
}

fn pc() -> impl Strategy<Value = u32> {
    0..6u32
}

fn rows(limit: u32, max_len: u32) -> impl Strategy<Value = Vec<Range>> {
    prop::collection::vec(range_in(limit, max_len), 1..=2)
}

fn work() -> impl Strategy<Value = Work> {
    prop_oneof![
        (prop_oneof![Just(DmaDir::ToScratchpad), Just(DmaDir::ToHost)], rows(DRAM, 48), rows(SCRATCHPAD, 48))
            .prop_map(|(dir, host, scratchpad)| Work::Dma { dir, host, scratchpad }),
        (
            prop::collection::vec(range_in(SCRATCHPAD, 32), 0..=2),
            prop::collection::vec(range_in(SCRATCHPAD, 32), 0..=2)
        )
            .prop_map(|(reads, writes)| Work::Vector { reads, writes }),
    ]
}

fn step(line_size: u32) -> impl Strategy<Value = Step> {
    prop_oneof![
        35 => (access(), 0..DRAM, small_len(), pc()).prop_map(|(access, start, len, pc)| Step::Cached {
            access,
            range: Range::new(start, len),
            pc
        }),
        10 => (access(), 0..DRAM, small_len(), pc()).prop_map(|(access, start, len, pc)| Step::Direct {
            space: Space::Dram,
            access,
            range: Range::new(start, len),
            pc
        }),
        8 => (access(), 0..SCRATCHPAD, small_len(), pc()).prop_map(|(access, start, len, pc)| Step::Direct {
            space: Space::Scratchpad,
            access,
            range: Range::new(start, len),
            pc
        }),
        12 => (
            prop_oneof![Just(CacheOp::Clean), Just(CacheOp::Flush), Just(CacheOp::Inval)],
            prop_oneof![5 => (0..DRAM / line_size).prop_map(move |i| Scope::Line(i * line_size)), 1 => Just(Scope::All)]
        )
            .prop_map(|(op, scope)| Step::Maintain { op, scope }),
        22 => (work(), pc()).prop_map(|(work, pc)| Step::Request { work, pc }),
        8 => Just(Step::Sync),
    ]
}

pub fn case() -> impl Strategy<Value = (u32, WriteBack, bool, Vec<Step>, Vec<u8>)> {
    (
        prop_oneof![3 => Just(16u32), 3 => Just(32), 1 => Just(64), 1 => Just(128)],
        prop_oneof![Just(WriteBack::Line), Just(WriteBack::DirtyBytes)],
        any::<bool>(),
    )
        .prop_flat_map(|(line_size, write_back, option)| {
            (
                Just(line_size),
                Just(write_back),
                Just(option),
                prop::collection::vec(step(line_size), 1..40),
                prop::collection::vec(any::<u8>(), 0..40),
            )
        })
}

pub fn cases() -> u32 {
    std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(10_000)
}
