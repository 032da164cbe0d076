//! Heap blocks, for naming the bytes of a race: the firmware's own allocator is watched at
//! the entry and return of its functions (`malloc`, `free`, … and the vbx SDK's
//! `vbx_shared_malloc`), through hart probes. Nothing in the firmware is instrumented.
//!
//! At an entry the arguments are in `a0`/`a1` and the return address in `ra`; a probe is then
//! put on that return address, and when the hart reaches it with the same `sp` (the call has
//! returned: the ABI restores `sp`), `a0` is the result. Calls nest (`vbx_shared_malloc`
//! calls `malloc`; `calloc` may tail-call it, returning to the same place), so pending calls
//! form a stack.

use crate::symbols::Symbols;
use mxpsim_models::bus::Bus;
use mxpsim_models::cpu::calls::call_site;
use mxpsim_models::cpu::Hart;
use mxpsim_models::memory_system::MemoryMap;
use serde::{Deserialize, Serialize};

/// What an allocator function does with its arguments (C ABI: `a0`, `a1`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// `f(size)` returns a block of `size` bytes.
    Alloc,
    /// `f(count, size)` returns a block of `count * size` bytes.
    AllocArray,
    /// `f(align, size)` returns a block of `size` bytes.
    AllocAligned,
    /// `f(ptr, size)` returns a block of `size` bytes replacing `ptr`'s.
    Realloc,
    /// `f(ptr)` frees `ptr`'s block.
    Free,
    /// `f(size)` returns `size` bytes of the accelerator's scratchpad (`vbx_sp_malloc`: a
    /// stack allocator whose frees are macros that reset its pointer, so a block is named
    /// until a later one reuses its bytes).
    ScratchpadAlloc,
}

/// The allocator functions watched, when the ELF has them.
const FUNCTIONS: &[(&str, Kind)] = &[
    ("malloc", Kind::Alloc),
    ("calloc", Kind::AllocArray),
    ("realloc", Kind::Realloc),
    ("free", Kind::Free),
    ("memalign", Kind::AllocAligned),
    ("aligned_alloc", Kind::AllocAligned),
    ("vbx_shared_malloc", Kind::Alloc),
    ("vbx_shared_free", Kind::Free),
    ("vbx_uncached_malloc", Kind::Alloc),
    ("vbx_uncached_free", Kind::Free),
    ("vbx_sp_malloc_nodebug", Kind::ScratchpadAlloc),
];

/// One observed allocator call.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeapEvent {
    /// The allocator function called.
    pub function: String,
    /// The call instruction.
    pub call_site: u32,
    /// The call context inside the allocator function (its stack: the call site, then the
    /// caller's call sites; see `mxpsim_models::cpu::calls`).
    pub ctx: u32,
    /// When it took effect: the return of an allocation, the entry of a free.
    pub cycle: u64,
    pub change: HeapChange,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum HeapChange {
    Alloc {
        start: u32,
        size: u32,
    },
    Free {
        start: u32,
    },
    /// A scratchpad block, by its offset from the scratchpad's base.
    ScratchpadAlloc {
        offset: u32,
        size: u32,
    },
}

#[derive(Clone, Copy, Debug)]
struct Pending {
    function: &'static str,
    kind: Kind,
    args: [u32; 2],
    ret: u32,
    /// The call instruction (before `ret`).
    call_site: u32,
    sp: u32,
    ctx: u32,
}

/// Watches a hart's allocator calls; [`HeapWatch::on_probe`] handles its probes.
pub struct HeapWatch {
    /// Entry address → function (every symbol of that name: static copies included).
    entries: Vec<(u32, &'static str, Kind)>,
    pending: Vec<Pending>,
    events: Vec<HeapEvent>,
    /// Blocks are recorded at their DRAM address (a shared buffer's pointer is in the
    /// uncached alias), as races name bytes.
    map: MemoryMap,
    scratchpad: u32,
}

const RA: usize = 1;
const SP: usize = 2;
const A0: usize = 10;
const A1: usize = 11;

impl HeapWatch {
    /// Probes the entries of the allocator functions `symbols` has; `scratchpad` is the
    /// scratchpad's base address.
    pub fn install(symbols: &Symbols, map: MemoryMap, scratchpad: u32, hart: &mut Hart) -> Self {
        let mut entries = Vec::new();
        for &(name, kind) in FUNCTIONS {
            for addr in symbols.addrs_of(name) {
                hart.add_probe(addr);
                entries.push((addr, name, kind));
            }
        }
        entries.sort_unstable_by_key(|e| e.0);
        HeapWatch { entries, pending: Vec::new(), events: Vec::new(), map, scratchpad }
    }

    /// The hart stopped at a probe of ours: a return we wait for, an entry, or both.
    pub fn on_probe(&mut self, hart: &mut Hart, bus: &impl Bus) {
        let pc = hart.pc;
        // Returns first: calls that tail-called each other return here together.
        while let Some(i) = self.pending.iter().rposition(|p| p.ret == pc && p.sp == hart.x[SP]) {
            // Calls above the one returning were abandoned (longjmp): forget them.
            for abandoned in self.pending.drain(i + 1..) {
                hart.remove_probe(abandoned.ret);
            }
            let call = self.pending.pop().expect("found above");
            hart.remove_probe(call.ret);
            self.returned(call, hart.x[A0], hart.now);
        }
        let Ok(i) = self.entries.binary_search_by_key(&pc, |e| e.0) else { return };
        let (_, function, kind) = self.entries[i];
        let args = [hart.x[A0], hart.x[A1]];
        let ret = hart.x[RA];
        let call_site = call_site(|addr, buf| bus.peek(addr, buf).is_ok(), ret);
        let ctx = hart.calls().current();
        if kind == Kind::Free {
            if args[0] != 0 {
                self.record(function, call_site, ctx, hart.now, HeapChange::Free { start: args[0] });
            }
            return;
        }
        hart.add_probe(ret);
        self.pending.push(Pending { function, kind, args, ret, call_site, sp: hart.x[SP], ctx });
    }

    fn returned(&mut self, call: Pending, result: u32, now: u64) {
        let [a0, a1] = call.args;
        let size = match call.kind {
            Kind::Alloc | Kind::ScratchpadAlloc => a0,
            Kind::AllocArray => a0.saturating_mul(a1),
            Kind::AllocAligned | Kind::Realloc => a1,
            Kind::Free => unreachable!("frees are recorded at their entry"),
        };
        if result == 0 {
            return; // Out of memory: realloc keeps the old block too.
        }
        if call.kind == Kind::Realloc && a0 != 0 {
            self.record(call.function, call.call_site, call.ctx, now, HeapChange::Free { start: a0 });
        }
        let change = match call.kind {
            Kind::ScratchpadAlloc => HeapChange::ScratchpadAlloc { offset: result.wrapping_sub(self.scratchpad), size },
            _ => HeapChange::Alloc { start: result, size },
        };
        self.record(call.function, call.call_site, call.ctx, now, change);
    }

    fn record(&mut self, function: &str, call_site: u32, ctx: u32, cycle: u64, change: HeapChange) {
        let change = match change {
            HeapChange::Alloc { start, size } => HeapChange::Alloc { start: self.map.physical(start), size },
            HeapChange::Free { start } => HeapChange::Free { start: self.map.physical(start) },
            sp @ HeapChange::ScratchpadAlloc { .. } => sp,
        };
        tracing::debug!(function, call_site = format_args!("{call_site:#010x}"), cycle, ?change, "heap");
        self.events.push(HeapEvent { function: function.to_string(), call_site, ctx, cycle, change });
    }

    pub fn into_events(self) -> Vec<HeapEvent> {
        self.events
    }
}

/// A heap block's life.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub size: u32,
    pub function: String,
    pub call_site: u32,
    /// The allocation's call context.
    pub ctx: u32,
    pub allocated: u64,
    pub freed: Option<u64>,
}

impl Block {
    pub fn end(&self) -> u64 {
        self.start as u64 + self.size as u64
    }

    fn contains(&self, addr: u32) -> bool {
        addr.wrapping_sub(self.start) < self.size
    }

    fn live_at(&self, cycle: u64) -> bool {
        self.allocated <= cycle && self.freed.is_none_or(|f| cycle < f)
    }
}

/// Every heap block of a run, for naming addresses.
#[derive(Clone, Debug, Default)]
pub struct HeapLog {
    blocks: Vec<Block>,
    /// Scratchpad blocks (start = offset), in allocation order.
    scratchpad: Vec<Block>,
}

impl HeapLog {
    pub fn new(events: &[HeapEvent]) -> Self {
        let (mut blocks, mut scratchpad) = (Vec::new(), Vec::new());
        let block = |e: &HeapEvent, start, size| Block {
            start,
            size,
            function: e.function.clone(),
            call_site: e.call_site,
            ctx: e.ctx,
            allocated: e.cycle,
            freed: None,
        };
        for e in events {
            match e.change {
                HeapChange::Alloc { start, size } => blocks.push(block(e, start, size)),
                HeapChange::ScratchpadAlloc { offset, size } => scratchpad.push(block(e, offset, size)),
                // A free ends every live block starting there (a shared block and the
                // malloc block around it may both start at the pointer freed).
                HeapChange::Free { start } => {
                    for b in blocks.iter_mut().filter(|b| b.start == start && b.freed.is_none()) {
                        b.freed = Some(e.cycle);
                    }
                }
            }
        }
        HeapLog { blocks, scratchpad }
    }

    /// The scratchpad block holding `offset` at `cycle`: the last one allocated there by then.
    pub fn scratchpad_owner(&self, offset: u32, cycle: u64) -> Option<&Block> {
        self.scratchpad.iter().rev().find(|b| b.contains(offset) && b.allocated <= cycle)
    }

    /// The block `addr` belongs to at `cycle`: the innermost live one (a `vbx_shared_malloc`
    /// buffer rather than the `malloc` block around it; of equal ones, the outer call's, which
    /// returned last), else the last one freed before `cycle`.
    pub fn owner(&self, addr: u32, cycle: u64) -> Option<&Block> {
        let holding = || self.blocks.iter().filter(|b| b.contains(addr) && b.allocated <= cycle);
        holding().filter(|b| b.live_at(cycle)).rev().min_by_key(|b| b.size).or_else(|| holding().next_back())
    }

    /// The innermost blocks live at `cycle` that overlap `[start, start + len)` (a block that
    /// contains another one found is left out), in address order.
    pub fn overlapping(&self, start: u32, len: u32, cycle: u64) -> Vec<&Block> {
        let end = start as u64 + len as u64;
        let live: Vec<&Block> = self
            .blocks
            .iter()
            .filter(|b| b.live_at(cycle) && (b.start as u64) < end && (start as u64) < b.end())
            .collect();
        // A block inside another found one replaces it; of equal ones, the later record (the
        // outer call, which returned last) stays.
        let inside = |o: &Block, b: &Block| b.start <= o.start && o.end() <= b.end();
        let mut inner: Vec<&Block> = live
            .iter()
            .enumerate()
            .filter(|&(i, b)| {
                !live.iter().enumerate().any(|(j, o)| j != i && inside(o, b) && (o.size < b.size || j > i))
            })
            .map(|(_, b)| *b)
            .collect();
        inner.sort_by_key(|b| b.start);
        inner
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alloc(function: &str, cycle: u64, start: u32, size: u32) -> HeapEvent {
        HeapEvent {
            function: function.into(),
            call_site: 0x100,
            ctx: 0,
            cycle,
            change: HeapChange::Alloc { start, size },
        }
    }

    fn free(cycle: u64, start: u32) -> HeapEvent {
        HeapEvent { function: "free".into(), call_site: 0x200, ctx: 0, cycle, change: HeapChange::Free { start } }
    }

    #[test]
    fn owner_is_the_innermost_live_block_else_the_last_freed() {
        let log = HeapLog::new(&[
            alloc("malloc", 10, 0x1000, 0x40),            // the block vbx_shared_malloc takes
            alloc("vbx_shared_malloc", 11, 0x1010, 0x10), // ... and its buffer inside
            free(50, 0x1010),
            free(51, 0x1000),
            alloc("malloc", 60, 0x1000, 0x8),
        ]);
        assert_eq!(log.owner(0x1014, 20).unwrap().function, "vbx_shared_malloc");
        assert_eq!(log.owner(0x1004, 20).unwrap().function, "malloc");
        assert_eq!(log.owner(0x1004, 20).unwrap().size, 0x40);
        assert!(log.owner(0x1004, 5).is_none(), "not yet allocated");
        // Freed, not reused: the last block freed there.
        assert_eq!(log.owner(0x1030, 55).unwrap().size, 0x40);
        // Reused.
        assert_eq!(log.owner(0x1004, 70).unwrap().allocated, 60);
        let line: Vec<_> = log.overlapping(0x1000, 0x20, 20).iter().map(|b| (b.start, b.size)).collect();
        assert_eq!(line, [(0x1010, 0x10)], "the outer block is left out when an inner one is found");
    }
}
