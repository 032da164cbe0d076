//! One hand-written program per race class, each with its correctly synchronised twin that
//! must stay silent; both detectors must agree on every one.

mod common;

use common::{check_equivalence, config};
use mxpsim_detector::event::{Access, CacheOp, DmaDir, Event, Origin, Pos, Range, Request, Scope, Space, WriteBack};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::{Config, ConfigError, Detector, StreamError};

const BASE: u32 = 0x8000_0000;
const LINE: u32 = 16;

/// A program under construction: CPU steps take the next position; engine nodes are placed
/// explicitly, wherever the test wants the engine to run them.
#[derive(Default)]
struct Program {
    events: Vec<Event>,
    pos: Pos,
}

impl Program {
    fn cpu(&mut self, event: Event) -> Pos {
        self.events.push(event);
        self.pos += 1;
        self.pos
    }

    fn origin(&self) -> Origin {
        Origin { pc: 0x100 + 4 * (self.pos as u32 + 1), cycle: self.pos + 1, ctx: 0 }
    }

    fn cached(&mut self, access: Access, addr: u32, len: u32) -> Pos {
        let origin = self.origin();
        self.cpu(Event::Cached { access, range: Range::new(addr, len), origin })
    }

    fn direct(&mut self, space: Space, access: Access, addr: u32, len: u32) -> Pos {
        let origin = self.origin();
        self.cpu(Event::CpuAccess { space, access, range: Range::new(addr, len), origin })
    }

    fn maintain(&mut self, op: CacheOp, scope: Scope) -> Pos {
        let origin = self.origin();
        self.cpu(Event::CacheMaintenance { op, scope, origin })
    }

    fn request(&mut self, request: Request) -> Pos {
        let origin = self.origin();
        self.cpu(Event::Request { request, origin })
    }

    fn sync(&mut self) -> Pos {
        let origin = self.origin();
        self.cpu(Event::Sync { origin })
    }

    fn dma(&mut self, request: Pos, dir: DmaDir, host: Range, scratchpad: Range) {
        self.events.push(Event::Dma { request, dir, host: vec![host], scratchpad: vec![scratchpad], cycle: 0 });
    }

    /// Requests a DMA and runs it at once.
    fn dma_now(&mut self, dir: DmaDir, host: Range, scratchpad: Range) -> Pos {
        let request = self.request(Request::Dma(dir));
        self.dma(request, dir, host, scratchpad);
        request
    }

    fn vector(&mut self, request: Pos, reads: Vec<Range>, writes: Vec<Range>) {
        self.events.push(Event::Vector { request, insn: 0, a_reads: 0, reads, writes, cycle: 0 });
    }
}

fn line_config() -> Config {
    config(LINE, WriteBack::Line, false)
}

/// The kinds of every distinct race the fast detector reports (checking first that it
/// agrees with the reference).
fn race_kinds(config: Config, program: &Program) -> Vec<(NodeKind, NodeKind)> {
    check_equivalence(config, &program.events).expect("fast detector agrees with the reference");
    let mut detector = Detector::new(config).expect("valid config");
    for event in &program.events {
        detector.observe(event).expect("legal stream");
    }
    let mut kinds: Vec<_> = detector.finish().entries().map(|e| (e.first.a.id.kind, e.first.b.id.kind)).collect();
    kinds.dedup();
    kinds
}

/// vec_add: a cached write to a variable that shares a line with a DMA source, no flush
/// before the request: the line's write-back may land after the DMA read it.
fn vec_add(flush_first: bool) -> Program {
    let mut p = Program::default();
    p.cached(Access::Write, BASE + 8, 4); // scalar_out's tail
    if flush_first {
        p.maintain(CacheOp::Flush, Scope::Line(BASE));
    }
    p.dma_now(DmaDir::ToScratchpad, Range::new(BASE + 12, 64), Range::new(0, 64));
    p.sync();
    p
}

#[test]
fn dirty_line_vs_dma_read() {
    assert_eq!(race_kinds(line_config(), &vec_add(false)), vec![(NodeKind::WriteBack, NodeKind::DmaToScratchpad)]);
    assert!(race_kinds(line_config(), &vec_add(true)).is_empty());
    // A byte-granular write-back only writes the dirty bytes, which the DMA does not read.
    assert!(race_kinds(config(LINE, WriteBack::DirtyBytes, false), &vec_add(false)).is_empty());
}

/// motest: a DMA to host into a buffer whose last line is dirty from a cached write to the
/// neighbouring variable: the write-back may overwrite the DMA's bytes.
fn motest(flush_first: bool) -> Program {
    let mut p = Program::default();
    p.cached(Access::Write, BASE + 0x2c, 4); // the neighbour, sharing line BASE + 0x20
    if flush_first {
        p.maintain(CacheOp::Flush, Scope::Line(BASE + 0x20));
    }
    p.dma_now(DmaDir::ToHost, Range::new(BASE + 0x10, 28), Range::new(0, 28));
    p.sync();
    p.direct(Space::Dram, Access::Read, BASE + 0x10, 4);
    p
}

#[test]
fn dma_write_vs_later_write_back() {
    assert_eq!(race_kinds(line_config(), &motest(false)), vec![(NodeKind::WriteBack, NodeKind::DmaToHost)]);
    assert!(race_kinds(line_config(), &motest(true)).is_empty());
}

/// Reading a DMA-to-host destination through the cache before the sync.
fn read_before_sync(wait: bool) -> Program {
    let mut p = Program::default();
    p.dma_now(DmaDir::ToHost, Range::new(BASE + 0x40, 16), Range::new(0, 16));
    if wait {
        p.sync();
        p.maintain(CacheOp::Inval, Scope::Line(BASE + 0x40));
    }
    p.cached(Access::Read, BASE + 0x40, 4);
    p.sync();
    p
}

#[test]
fn cached_read_before_sync_of_dma_destination() {
    assert_eq!(race_kinds(line_config(), &read_before_sync(false)), vec![(NodeKind::Alloc, NodeKind::DmaToHost)]);
    assert!(race_kinds(line_config(), &read_before_sync(true)).is_empty());
}

/// A line cached before a DMA to host writes it, read again after the sync without an
/// invalidate: the allocation may predate the DMA's write.
fn stale_line(invalidate_after_sync: bool) -> Program {
    let mut p = Program::default();
    p.cached(Access::Read, BASE + 0x80, 4);
    p.maintain(CacheOp::Inval, Scope::Line(BASE + 0x80)); // too early: before the DMA
    p.cached(Access::Read, BASE + 0x84, 4);
    p.dma_now(DmaDir::ToHost, Range::new(BASE + 0x80, 32), Range::new(0, 32));
    p.sync();
    if invalidate_after_sync {
        p.maintain(CacheOp::Inval, Scope::All);
    }
    // Much later: the stale-line race must survive unrelated traffic.
    for i in 0..100 {
        p.cached(Access::Write, BASE + 0x1000 + 4 * i, 4);
        p.cached(Access::Read, BASE + 0x1000 + 4 * i, 4);
    }
    p.cached(Access::Read, BASE + 0x88, 4);
    p
}

#[test]
fn stale_line_read_after_sync_without_invalidate() {
    assert_eq!(race_kinds(line_config(), &stale_line(false)), vec![(NodeKind::Alloc, NodeKind::DmaToHost)]);
    assert!(race_kinds(line_config(), &stale_line(true)).is_empty());
}

/// A store after the sync into a line that also holds a DMA-to-host destination, with the
/// line possibly fetched before the DMA wrote it: under whole-line write-back the store's
/// write-back carries the fetched (stale) bytes back over the DMA's (the write-allocate
/// `alloc` of `detector/README.md`). Invalidating the line after the sync orders the fetch.
fn store_into_line_written_by_dma(invalidate_after_sync: bool) -> Program {
    let mut p = Program::default();
    p.cached(Access::Read, BASE + 0xc0, 4); // the line is cached before the DMA
    p.dma_now(DmaDir::ToHost, Range::new(BASE + 0xc4, 8), Range::new(0, 8));
    p.sync();
    if invalidate_after_sync {
        p.maintain(CacheOp::Flush, Scope::Line(BASE + 0xc0));
    }
    p.cached(Access::Write, BASE + 0xc0, 4); // a neighbour of the DMA's bytes
    p
}

#[test]
fn store_after_sync_writes_back_bytes_fetched_before_the_dma() {
    let program = store_into_line_written_by_dma(false);
    assert_eq!(race_kinds(line_config(), &program), vec![(NodeKind::Alloc, NodeKind::DmaToHost)]);
    assert!(race_kinds(line_config(), &store_into_line_written_by_dma(true)).is_empty());
    // With byte-granular write-back only the stored bytes go back: no race.
    assert!(race_kinds(config(LINE, WriteBack::DirtyBytes, false), &program).is_empty());
}

/// The CPU touches the scratchpad while a DMA into it may still run, once before the engine
/// runs it and once after.
fn scratchpad_before_sync(wait: bool) -> Program {
    let mut p = Program::default();
    let request = p.request(Request::Dma(DmaDir::ToScratchpad));
    if wait {
        p.dma(request, DmaDir::ToScratchpad, Range::new(BASE, 64), Range::new(0, 64));
        p.sync();
    }
    p.direct(Space::Scratchpad, Access::Read, 0, 4);
    if !wait {
        p.dma(request, DmaDir::ToScratchpad, Range::new(BASE, 64), Range::new(0, 64));
        p.direct(Space::Scratchpad, Access::Write, 8, 4);
        p.sync();
    }
    p
}

#[test]
fn cpu_scratchpad_access_before_sync() {
    assert_eq!(
        race_kinds(line_config(), &scratchpad_before_sync(false)),
        vec![(NodeKind::CpuSpRead, NodeKind::DmaToScratchpad), (NodeKind::CpuSpWrite, NodeKind::DmaToScratchpad)]
    );
    assert!(race_kinds(line_config(), &scratchpad_before_sync(true)).is_empty());
}

/// A DMA into the scratchpad and a vector op writing the same bytes: write-after-write is not
/// interlocked. The twin reads the DMA's destination instead (interlock 1).
fn scratchpad_waw(interlocked_twin: bool) -> Program {
    let mut p = Program::default();
    let dma = p.request(Request::Dma(DmaDir::ToScratchpad));
    let vector = p.request(Request::Vector);
    let (reads, writes) = if interlocked_twin {
        (vec![Range::new(0, 32)], vec![Range::new(64, 16)])
    } else {
        (vec![Range::new(64, 16)], vec![Range::new(16, 32)])
    };
    p.dma(dma, DmaDir::ToScratchpad, Range::new(BASE, 32), Range::new(0, 32));
    p.vector(vector, reads, writes);
    p.sync();
    p
}

#[test]
fn scratchpad_waw_between_dma_and_vector() {
    assert_eq!(race_kinds(line_config(), &scratchpad_waw(false)), vec![(NodeKind::DmaToScratchpad, NodeKind::Vector)]);
    assert!(race_kinds(line_config(), &scratchpad_waw(true)).is_empty());
}

/// An uncached write to a line the CPU then reads through the cache without invalidating:
/// reported only with `cpu_uncached_vs_cache` (the paper's footnote 5).
#[test]
fn uncached_vs_cache_only_with_the_option() {
    let mut p = Program::default();
    p.cached(Access::Read, BASE, 4);
    p.direct(Space::Dram, Access::Write, BASE + 4, 4);
    p.cached(Access::Read, BASE + 4, 4);
    assert!(race_kinds(line_config(), &p).is_empty());
    assert_eq!(
        race_kinds(config(LINE, WriteBack::Line, true), &p),
        vec![(NodeKind::CpuUncachedWrite, NodeKind::Alloc)]
    );
}

#[test]
fn repeats_are_counted_once_per_site_pair_in_order() {
    let mut p = Program::default();
    p.dma_now(DmaDir::ToHost, Range::new(BASE, 256), Range::new(0, 256));
    let mut detector = Detector::new(line_config()).expect("valid config");
    for event in &p.events {
        detector.observe(event).expect("legal stream");
    }
    // The same load instruction, over and over, before the sync.
    for i in 0..64 {
        let event = Event::Cached {
            access: Access::Read,
            range: Range::new(BASE + 4 * i, 4),
            origin: Origin { pc: 0x200, cycle: 0, ctx: 0 },
        };
        detector.observe(&event).expect("legal stream");
    }
    let report = detector.finish();
    let lines: Vec<_> = report.entries().map(|e| (e.first.line(), e.occurrences)).collect();
    assert_eq!(lines.len(), 16, "one entry per line");
    assert!(lines.windows(2).all(|w| w[0].0 < w[1].0), "sorted by line");
    assert!(lines.iter().all(|&(_, n)| n == 4), "four loads per line");
}

#[test]
fn malformed_streams_are_errors_not_panics() {
    let mut detector = Detector::new(line_config()).expect("valid config");
    let stray = Event::Vector { request: 7, insn: 0, a_reads: 0, reads: vec![], writes: vec![], cycle: 0 };
    assert_eq!(detector.observe(&stray), Err(StreamError::UnknownRequest { request: 7 }));

    let mut p = Program::default();
    let first = p.request(Request::Dma(DmaDir::ToScratchpad));
    let second = p.request(Request::Dma(DmaDir::ToHost));
    let vector = p.request(Request::Vector);
    for event in &p.events {
        detector.observe(event).expect("requests are legal");
    }
    let dma = |request, dir| Event::Dma {
        request,
        dir,
        host: vec![Range::new(BASE, 16)],
        scratchpad: vec![Range::new(0, 16)],
        cycle: 0,
    };
    assert_eq!(
        detector.observe(&dma(second, DmaDir::ToHost)),
        Err(StreamError::OutOfQueueOrder { request: second, expected: first })
    );
    assert_eq!(
        detector.observe(&dma(first, DmaDir::ToHost)),
        Err(StreamError::WrongEngine { request: first, expected: Request::Dma(DmaDir::ToScratchpad) })
    );
    // The vector op reads what the first DMA writes: it must wait for it.
    let reads_dma_destination =
        Event::Vector { request: vector, insn: 0, a_reads: 1, reads: vec![Range::new(0, 4)], writes: vec![], cycle: 0 };
    detector.observe(&reads_dma_destination).expect("legal so far");
    assert_eq!(
        detector.observe(&dma(first, DmaDir::ToScratchpad)),
        Err(StreamError::InterlockOrder { earlier: first, later: vector })
    );
    let sync = Event::Sync { origin: Origin::default() };
    assert_eq!(detector.observe(&sync), Err(StreamError::SyncBeforeEngineNode { sync: 4, request: first }));
    let bad = Config {
        geometry: mxpsim_detector::event::CacheGeometry { line_size: 24, write_back: WriteBack::Line },
        cpu_uncached_vs_cache: false,
    };
    assert_eq!(Detector::new(bad).err(), Some(ConfigError::LineSize(24)));
}
