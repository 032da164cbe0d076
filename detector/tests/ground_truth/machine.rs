//! The ground truth's concrete machine (`race-semantics.md` §4), described in the
//! documentation of `ground_truth.rs`: small programs, the machine's states, and the
//! enumeration of every outcome the model's schedules give. Also used by the workspace's
//! `tests/provoke_ground_truth.rs`, which runs the same programs on mxpsim
//! (`firmware/mxp-tests/op_machine.c`).

#![allow(dead_code)] // Each test binary uses its own part of this module.

use std::collections::HashSet;

use mxpsim_detector::event::{Access, CacheOp, DmaDir, Range, WriteBack};
use mxpsim_detector::interlock::{interlocked, EngineOp};

/// DRAM address of byte 0 (line-aligned).
pub const BASE: u32 = 0x1000;
pub const LINE: usize = 4;
pub const LINES: usize = 2;
pub const DRAM: usize = LINE * LINES;
pub const SP: usize = 4;
pub const FULL: u8 = (1 << LINE) - 1;
/// Loaded bytes recorded per run (at most 8 operations of at most 4 bytes).
pub const MAX_LOADED: usize = 32;
pub const MAX_OPS: usize = 8;

// ---------------------------------------------------------------------------------------
// Programs
// ---------------------------------------------------------------------------------------

/// One operation of a program. DRAM offsets are from [`BASE`]; DRAM ranges of CPU accesses
/// stay within one line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// Cached load/store of DRAM `[off, off + len)`.
    Cached(Access, u8, u8),
    /// Uncached load/store of DRAM.
    Uncached(Access, u8, u8),
    /// CPU load/store of the scratchpad.
    Sp(Access, u8, u8),
    /// Maintenance of line `Some(i)`, or of all lines.
    Maint(CacheOp, Option<u8>),
    /// DMA request: host offset, scratchpad offset, length.
    Dma(DmaDir, u8, u8, u8),
    /// Vector request: scratchpad source, destination, length.
    Vector(u8, u8, u8),
    Sync,
}

pub fn dram_range(off: u8, len: u8) -> Range {
    Range::new(BASE + off as u32, len as u32)
}

pub fn sp_range(off: u8, len: u8) -> Range {
    Range::new(off as u32, len as u32)
}

/// The engine op of a request, for the interlocks.
pub fn engine_ranges(op: Op) -> Option<(Option<DmaDir>, [Range; 1], [Range; 1])> {
    match op {
        // For a DMA: the scratchpad side twice.
        Op::Dma(dir, _, s, n) => Some((Some(dir), [sp_range(s, n)], [sp_range(s, n)])),
        Op::Vector(src, dst, n) => Some((None, [sp_range(src, n)], [sp_range(dst, n)])),
        _ => None,
    }
}

pub fn is_interlocked(earlier: Op, later: Op) -> bool {
    let (Some(e), Some(l)) = (engine_ranges(earlier), engine_ranges(later)) else { return false };
    interlocked(as_op(&e), as_op(&l))
}

pub fn as_op(x: &(Option<DmaDir>, [Range; 1], [Range; 1])) -> EngineOp<'_> {
    match x.0 {
        Some(dir) => EngineOp::Dma { dir, scratchpad: &x.1 },
        None => EngineOp::Vector { reads: &x.1, writes: &x.2 },
    }
}

pub fn store_value(site: usize, byte: usize) -> u8 {
    0x80 | (site as u8) << 2 | byte as u8
}

// ---------------------------------------------------------------------------------------
// The concrete machine and the enumeration of its schedules
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CacheLine {
    pub data: [u8; LINE],
    pub present: u8,
    pub dirty: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct State {
    /// Next CPU operation.
    pub pc: u8,
    /// Requested engine ops not yet run (bit = program index).
    pub pending: u8,
    pub dram: [u8; DRAM],
    pub sp: [u8; SP],
    pub lines: [CacheLine; LINES],
    pub loaded: [u8; MAX_LOADED],
    pub nloaded: u8,
}

pub type Outcome = ([u8; MAX_LOADED], u8, [u8; DRAM], [u8; SP]);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Semantics {
    pub write_back: WriteBack,
    /// Hardware `inval` of a dirty line may discard its data (outside the model: see the
    /// module documentation).
    pub inval_discards: bool,
    /// With whole-line write-back, a store to a clean line fetches it afresh at the store, so
    /// a write-back never carries bytes older than the first store of its dirty epoch. This
    /// removes exactly the stale-byte freedom that the stores' `alloc` covers (module
    /// documentation).
    pub fresh_on_store: bool,
}

impl Semantics {
    pub fn model(write_back: WriteBack) -> Semantics {
        Semantics { write_back, inval_discards: false, fresh_on_store: false }
    }
}

pub struct Machine<'a> {
    pub prog: &'a [Op],
    pub sem: Semantics,
    /// `waits[k]`: engine ops that op `k` must not run before (queue order, interlocks).
    pub waits: [u8; MAX_OPS],
}

pub fn mask(off: usize, len: usize) -> u8 {
    (((1u16 << len) - 1) << off) as u8
}

impl<'a> Machine<'a> {
    pub fn new(prog: &'a [Op], sem: Semantics) -> Self {
        assert!(prog.len() <= MAX_OPS);
        let mut waits = [0u8; MAX_OPS];
        for (k, &op) in prog.iter().enumerate() {
            if engine_ranges(op).is_none() {
                continue;
            }
            for (j, &earlier) in prog[..k].iter().enumerate() {
                let same_queue = matches!((earlier, op), (Op::Dma(..), Op::Dma(..)) | (Op::Vector(..), Op::Vector(..)));
                if engine_ranges(earlier).is_some() && (same_queue || is_interlocked(earlier, op)) {
                    waits[k] |= 1 << j;
                }
            }
        }
        Machine { prog, sem, waits }
    }

    pub fn initial(&self) -> State {
        let mut dram = [0; DRAM];
        for (i, b) in dram.iter_mut().enumerate() {
            *b = 0x10 + i as u8;
        }
        let mut sp = [0; SP];
        for (i, b) in sp.iter_mut().enumerate() {
            *b = 0x30 + i as u8;
        }
        State { pc: 0, pending: 0, dram, sp, lines: [CacheLine::default(); LINES], loaded: [0; MAX_LOADED], nloaded: 0 }
    }

    pub fn run_engine(&self, s: &mut State, k: usize) {
        match self.prog[k] {
            Op::Dma(DmaDir::ToScratchpad, h, p, n) => {
                for i in 0..n as usize {
                    s.sp[p as usize + i] = s.dram[h as usize + i];
                }
            }
            Op::Dma(DmaDir::ToHost, h, p, n) => {
                for i in 0..n as usize {
                    s.dram[h as usize + i] = s.sp[p as usize + i];
                }
            }
            Op::Vector(src, dst, n) => {
                let input: Vec<u8> = (0..n as usize).map(|i| s.sp[src as usize + i]).collect();
                for (i, v) in input.into_iter().enumerate() {
                    s.sp[dst as usize + i] = v.wrapping_add(0x40);
                }
            }
            _ => unreachable!(),
        }
        s.pending &= !(1 << k);
    }

    pub fn lines_of(scope: Option<u8>) -> std::ops::Range<usize> {
        match scope {
            Some(l) => l as usize..l as usize + 1,
            None => 0..LINES,
        }
    }

    /// The CPU's next step, if it can run now.
    pub fn cpu_step(&self, s: &State) -> Option<State> {
        let pc = s.pc as usize;
        let op = *self.prog.get(pc)?;
        let mut t = s.clone();
        t.pc += 1;
        match op {
            Op::Cached(access, off, len) => {
                let (l, o, n) = (off as usize / LINE, off as usize % LINE, len as usize);
                let m = mask(o, n);
                let line = &mut t.lines[l];
                match access {
                    Access::Read => {
                        if line.present & m != m {
                            return None; // a fetch must come first
                        }
                        for i in 0..n {
                            t.loaded[t.nloaded as usize] = line.data[o + i];
                            t.nloaded += 1;
                        }
                    }
                    Access::Write => {
                        if self.sem.fresh_on_store && line.dirty == 0 {
                            line.data.copy_from_slice(&s.dram[l * LINE..(l + 1) * LINE]);
                            line.present = FULL;
                        }
                        if self.sem.write_back == WriteBack::Line && line.present != FULL {
                            return None; // write-allocate: a fetch must come first
                        }
                        for i in 0..n {
                            line.data[o + i] = store_value(pc, i);
                        }
                        line.present |= m;
                        line.dirty |= m;
                    }
                }
            }
            Op::Uncached(access, off, len) | Op::Sp(access, off, len) => {
                for i in 0..len as usize {
                    let b = off as usize + i;
                    let memory = if matches!(op, Op::Sp(..)) { &mut t.sp[..] } else { &mut t.dram[..] };
                    match access {
                        Access::Read => {
                            t.loaded[t.nloaded as usize] = memory[b];
                            t.nloaded += 1;
                        }
                        Access::Write => memory[b] = store_value(pc, i),
                    }
                }
            }
            Op::Maint(cop, scope) => {
                for l in Self::lines_of(scope) {
                    let line = &mut t.lines[l];
                    let discard = cop == CacheOp::Inval && self.sem.inval_discards;
                    if line.dirty != 0 && !discard {
                        return None; // its write-back must come first
                    }
                    if cop != CacheOp::Clean {
                        *line = CacheLine::default();
                    }
                }
            }
            Op::Dma(..) | Op::Vector(..) => t.pending |= 1 << pc,
            Op::Sync => {
                if s.pending != 0 {
                    return None;
                }
            }
        }
        Some(t)
    }

    pub fn successors(&self, s: &State, out: &mut Vec<State>) {
        // Cache: fetch, write-back.
        for l in 0..LINES {
            let line = s.lines[l];
            let can_fetch = match self.sem.write_back {
                WriteBack::Line => line.dirty == 0,
                WriteBack::DirtyBytes => true,
            };
            if can_fetch {
                let mut t = s.clone();
                let nl = &mut t.lines[l];
                for i in 0..LINE {
                    if nl.dirty & (1 << i) == 0 {
                        nl.data[i] = s.dram[l * LINE + i];
                    }
                }
                nl.present = FULL;
                if t != *s {
                    out.push(t);
                }
            }
            if line.dirty != 0 {
                let mut t = s.clone();
                let written = match self.sem.write_back {
                    WriteBack::Line => {
                        assert_eq!(line.present, FULL);
                        FULL
                    }
                    WriteBack::DirtyBytes => line.dirty,
                };
                for i in 0..LINE {
                    if written & (1 << i) != 0 {
                        t.dram[l * LINE + i] = line.data[i];
                    }
                }
                t.lines[l].dirty = 0;
                out.push(t);
            }
        }
        // Engine.
        for k in 0..self.prog.len() {
            if s.pending & (1 << k) != 0 && s.pending & self.waits[k] == 0 {
                let mut t = s.clone();
                self.run_engine(&mut t, k);
                out.push(t);
            }
        }
        // CPU.
        if let Some(t) = self.cpu_step(s) {
            out.push(t);
        }
    }

    pub fn is_final(&self, s: &State) -> bool {
        s.pc as usize == self.prog.len() && s.pending == 0 && s.lines.iter().all(|l| l.dirty == 0)
    }

    /// Up to `limit` distinct outcomes over all schedules.
    pub fn outcomes(&self, limit: usize) -> Vec<Outcome> {
        let mut seen: HashSet<State> = HashSet::new();
        let mut found: Vec<Outcome> = Vec::new();
        let mut stack = vec![self.initial()];
        let mut next = Vec::new();
        while let Some(s) = stack.pop() {
            if !seen.insert(s.clone()) {
                continue;
            }
            if self.is_final(&s) {
                let o = (s.loaded, s.nloaded, s.dram, s.sp);
                if !found.contains(&o) {
                    found.push(o);
                    if found.len() >= limit {
                        return found;
                    }
                }
            }
            next.clear();
            self.successors(&s, &mut next);
            for t in next.drain(..) {
                if !seen.contains(&t) {
                    stack.push(t);
                }
            }
        }
        assert!(!found.is_empty(), "no schedule completes: {:?}", self.prog);
        found
    }
}

pub fn outcomes_differ(prog: &[Op], sem: Semantics) -> bool {
    Machine::new(prog, sem).outcomes(2).len() > 1
}

/// xorshift64*: reproducible without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// An aligned range of 1, 2 or (rarely) 4 bytes within `size` bytes.
    pub fn range(&mut self, size: usize) -> (u8, u8) {
        let len = match self.below(10) {
            0..=5 => 1,
            6..=8 => 2,
            _ => 4,
        };
        let off = self.below((size / len) as u64) as usize * len;
        (off as u8, len as u8)
    }

    pub fn access(&mut self) -> Access {
        if self.below(2) == 0 {
            Access::Read
        } else {
            Access::Write
        }
    }

    pub fn op(&mut self) -> Op {
        match self.below(100) {
            0..=29 => {
                let (o, n) = self.range(DRAM); // aligned, so within one line
                Op::Cached(self.access(), o, n)
            }
            30..=44 => {
                let (o, n) = self.range(DRAM);
                Op::Uncached(self.access(), o, n)
            }
            45..=52 => {
                let (o, n) = self.range(SP);
                Op::Sp(self.access(), o, n)
            }
            53..=67 => {
                let c = [CacheOp::Clean, CacheOp::Flush, CacheOp::Inval][self.below(3) as usize];
                let scope = if self.below(6) == 0 { None } else { Some(self.below(LINES as u64) as u8) };
                Op::Maint(c, scope)
            }
            68..=81 => {
                let dir = if self.below(2) == 0 { DmaDir::ToScratchpad } else { DmaDir::ToHost };
                let (h, n) = self.range(DRAM);
                let n = n.min(SP as u8);
                let s = self.below((SP / n as usize) as u64) as u8 * n;
                Op::Dma(dir, h, s, n)
            }
            82..=89 => {
                let (src, n) = self.range(SP);
                let dst = self.below((SP / n as usize) as u64) as u8 * n;
                Op::Vector(src, dst, n)
            }
            _ => Op::Sync,
        }
    }
}
