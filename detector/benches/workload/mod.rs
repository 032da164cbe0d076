//! A synthetic event stream with the shape of the SDK programs, for the throughput benchmark
//! and the bounded-memory soak test: each iteration initialises shared buffers uncached,
//! computes with cached accesses over a large working set while two DMAs in, a vector op and
//! a DMA out run, syncs, reads the results, and now and then flushes some lines. A cached
//! variable shares a line with the first DMA source, as in vec_add, so the same race recurs
//! in every iteration. Deterministic (a fixed xorshift seed).

use std::collections::VecDeque;

use mxpsim_detector::event::{Access, CacheOp, DmaDir, Event, Origin, Pos, Range, Request, Scope, Space};

const SHARED_IN: u32 = 0x8000_0000;
const SHARED_IN2: u32 = 0x8000_1000;
const SHARED_OUT: u32 = 0x8000_2000;
const BUFFER: u32 = 0x1000;
const WORKING_SET: u32 = 0x8010_0000;
const WORKING_SET_SIZE: u32 = 256 * 1024;
/// Cached accesses per half iteration.
const COMPUTE: usize = 1000;

pub struct Workload {
    rng: u64,
    pos: Pos,
    iteration: u64,
    queue: VecDeque<Event>,
}

impl Default for Workload {
    fn default() -> Workload {
        Workload::new()
    }
}

impl Workload {
    pub fn new() -> Workload {
        Workload { rng: 0x9e37_79b9_7f4a_7c15, pos: 0, iteration: 0, queue: VecDeque::new() }
    }

    fn random(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn cpu(&mut self, event: Event) -> Pos {
        self.queue.push_back(event);
        self.pos += 1;
        self.pos
    }

    fn origin(&self, pc: u32) -> Origin {
        Origin { pc, cycle: self.pos * 3, ctx: 0 }
    }

    fn cached(&mut self, pc: u32, access: Access, addr: u32) {
        let origin = self.origin(pc);
        self.cpu(Event::Cached { access, range: Range::new(addr, 4), origin });
    }

    fn direct(&mut self, space: Space, access: Access, addr: u32) {
        let origin = self.origin(0x300);
        self.cpu(Event::CpuAccess { space, access, range: Range::new(addr, 4), origin });
    }

    fn request(&mut self, request: Request) -> Pos {
        let origin = self.origin(0x400);
        self.cpu(Event::Request { request, origin })
    }

    /// Cached loads and stores over the working set, in short sequential runs.
    fn compute(&mut self, count: usize, engine: &mut Vec<(usize, Event)>) {
        let mut addr = WORKING_SET;
        for i in 0..count {
            while engine.first().is_some_and(|(at, _)| *at == i) {
                let (_, event) = engine.remove(0);
                self.queue.push_back(event);
            }
            let r = self.random();
            if r.is_multiple_of(8) {
                addr = (WORKING_SET + (r >> 8) as u32 % WORKING_SET_SIZE) & !3;
            } else {
                addr = WORKING_SET + (addr - WORKING_SET + 4) % WORKING_SET_SIZE;
            }
            let access = if (r >> 4) % 10 < 7 { Access::Read } else { Access::Write };
            self.cached(0x100 + (r >> 40) as u32 % 16 * 4, access, addr);
        }
    }

    fn iteration(&mut self) {
        self.compute(COMPUTE, &mut Vec::new());
        for i in 0..16 {
            self.direct(Space::Dram, Access::Write, SHARED_IN + 4 * i);
        }
        // vec_add's race: a cached variable just before the first DMA source, same line.
        self.cached(0x200, Access::Write, SHARED_IN - 8);
        let sp = |start: u32| vec![Range::new(start, BUFFER)];
        let host = |start: u32| vec![Range::new(start, BUFFER)];
        let dma_in = self.request(Request::Dma(DmaDir::ToScratchpad));
        let dma_in2 = self.request(Request::Dma(DmaDir::ToScratchpad));
        let vector = self.request(Request::Vector);
        let dma_out = self.request(Request::Dma(DmaDir::ToHost));
        let mut engine = vec![
            (
                100,
                Event::Dma {
                    request: dma_in,
                    dir: DmaDir::ToScratchpad,
                    host: host(SHARED_IN - 8),
                    scratchpad: sp(0),
                    cycle: 0,
                },
            ),
            (
                300,
                Event::Dma {
                    request: dma_in2,
                    dir: DmaDir::ToScratchpad,
                    host: host(SHARED_IN2),
                    scratchpad: sp(BUFFER),
                    cycle: 0,
                },
            ),
            (
                500,
                Event::Vector {
                    request: vector,
                    insn: 0,
                    a_reads: 1,
                    reads: vec![Range::new(0, 2 * BUFFER)],
                    writes: sp(2 * BUFFER),
                    cycle: 0,
                },
            ),
            (
                700,
                Event::Dma {
                    request: dma_out,
                    dir: DmaDir::ToHost,
                    host: host(SHARED_OUT),
                    scratchpad: sp(2 * BUFFER),
                    cycle: 0,
                },
            ),
        ];
        self.compute(COMPUTE, &mut engine);
        let origin = self.origin(0x500);
        self.cpu(Event::Sync { origin });
        for i in 0..16 {
            self.direct(Space::Dram, Access::Read, SHARED_OUT + 4 * i);
        }
        for i in 0..4 {
            self.direct(Space::Scratchpad, Access::Read, 2 * BUFFER + 4 * i);
        }
        if self.iteration.is_multiple_of(10) {
            for i in 0..8 {
                let origin = self.origin(0x600);
                let line = WORKING_SET + 64 * i;
                self.cpu(Event::CacheMaintenance { op: CacheOp::Flush, scope: Scope::Line(line), origin });
            }
        }
        self.iteration += 1;
    }
}

impl Iterator for Workload {
    type Item = Event;

    fn next(&mut self) -> Option<Event> {
        if self.queue.is_empty() {
            self.iteration();
        }
        self.queue.pop_front()
    }
}
