//! The decoded-block cache: straight-line runs of code, decoded once and kept, so that the
//! interpreter steps through an array instead of looking each instruction up by its PC (as
//! rv32emu and QEMU do; the next instruction no longer waits for the PC the last one wrote).
//!
//! A block starts at any even address (compressed and 32-bit instructions mix) and runs up to
//! and including the first instruction whose [`Flow`] leaves (jumps, branches, `mret`,
//! `fence.i`, calls into the host), for at most [`MAX_INSNS`] instructions; it also ends
//! before an instruction that cannot be fetched (that one faults when it is reached, as its
//! own block) and wherever the builder says ([`BlockCache::build`]'s `stop_before`). Blocks
//! are found through a direct-mapped table indexed by the start's 16-bit parcel number; their
//! instructions live in one [`Arena`], emptied with the table when it is full. The arena is
//! apart from the table so that the interpreter can step through a block's instructions as a
//! slice while the table changes under it (a store to code forgets blocks; the arena itself
//! changes only when a block is built).
//!
//! Coherence with code changes: a store by the hart forgets every block it overlaps. One bit
//! per 64-byte chunk of memory that decoded code came from keeps the check to one bit test
//! per store; a store into such a chunk looks at the few table slots whose block may cover
//! it. `fence.i` empties the whole cache.

use super::decode::{decode, Insn};
use super::isa::Flow;
use super::jit;

/// The most instructions in one block.
pub const MAX_INSNS: u32 = 32;
/// The most bytes a block covers: a block that covers a byte starts at most this far before.
const MAX_BYTES: u32 = MAX_INSNS * 4;
const SLOTS: usize = 1 << 16;
/// Instructions the arena holds before it is emptied (8 MiB).
const ARENA: usize = 1 << 20;
/// Code chunks are 64 bytes, their bits a word per 4 KiB page ([`BlockCache::code_chunks`]).
pub(super) const CHUNK_SHIFT: u32 = 6;
pub(super) const PAGE_SHIFT: u32 = 12;

/// The tag of an empty slot: odd, as no block's start is. An odd PC can still be looked up
/// (an odd ELF entry, a debugger's write to `pc`; it traps on the miss), so no slot holds the
/// odd tag that indexes it: slot `index(1)` holds 3, every other slot 1.
const EMPTY: u32 = 1;
const EMPTY_AT_INDEX_OF_1: u32 = 3;

/// The empty tag of slot `i`.
fn empty(i: usize) -> u32 {
    if i == index(EMPTY) {
        EMPTY_AT_INDEX_OF_1
    } else {
        EMPTY
    }
}

#[inline(always)]
fn index(pc: u32) -> usize {
    (pc >> 1) as usize & (SLOTS - 1)
}

/// Where compiled code finds the block that starts at a PC, as [`BlockCache::get`] does (a
/// block's code goes on to the next block's so: [`super::jit`]): the slot at
/// [`BlockCache::slots`] plus `index(pc) * size`, where `index(pc)` is `(pc >> 1) & mask`,
/// holds it if its `u32` at `pc` is the PC; its [`Block::code`] is the `u32` at `code`.
pub(super) struct SlotLayout {
    pub size: usize,
    pub pc: usize,
    pub code: usize,
    pub mask: u32,
}

pub(super) const SLOT_LAYOUT: SlotLayout = SlotLayout {
    size: std::mem::size_of::<Slot>(),
    pc: std::mem::offset_of!(Slot, pc),
    code: std::mem::offset_of!(Slot, block) + std::mem::offset_of!(Block, code),
    mask: (SLOTS - 1) as u32,
};

/// A block: its instructions are the arena's `start..start + len`, covering `bytes` bytes of
/// code from its first instruction's address; it touches memory if one of them accesses data
/// memory; `code` names its compiled code ([`super::jit::code`]), and `heat` counts its runs
/// by the interpreter until it is compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Block {
    pub start: u32,
    pub code: u32,
    /// The length, and [`TOUCHES_MEMORY`]. (Bytes, not words, and a flag folded in: a small
    /// table is a fast one, and a block of 12 bytes makes a slot of 16.)
    len: u8,
    bytes: u8,
    heat: u16,
}

/// The bit of [`Block::len`]'s byte that says the block touches memory.
const TOUCHES_MEMORY: u8 = 0x80;

// The fields hold a block's size (its instructions, of 2 bytes at least, are fewer than its
// bytes, and fewer than the flag bit).
const _: () = assert!(MAX_BYTES <= u8::MAX as u32 && MAX_INSNS < TOUCHES_MEMORY as u32);

impl Block {
    /// How many instructions it holds.
    #[inline(always)]
    pub fn len(&self) -> u32 {
        (self.len & !TOUCHES_MEMORY).into()
    }

    /// Whether one of its instructions accesses data memory.
    #[inline(always)]
    pub fn touches_memory(&self) -> bool {
        self.len & TOUCHES_MEMORY != 0
    }
}

#[derive(Clone, Copy)]
struct Slot {
    pc: u32,
    block: Block,
}

pub struct BlockCache {
    /// A fixed-size array, so indexing with a masked PC needs no bounds check.
    slots: Box<[Slot; SLOTS]>,
    /// The table was emptied (`fence.i`) since the arena was: what the arena holds is
    /// garbage, dropped when the next block is built.
    arena_stale: bool,
    /// One bit per 64-byte chunk of the 32-bit address space, a word per 4 KiB page: set once
    /// a block's code came from the chunk. Never cleared (a stale bit only costs a look at
    /// the table), so the 8 MiB table is touched only where code and the stores near it are.
    code_chunks: Box<[u64]>,
    /// See [`BlockCache::flushes`].
    flushes: u64,
}

impl Default for BlockCache {
    fn default() -> Self {
        let empty_block = Block { start: 0, code: jit::code::NONE, len: 0, bytes: 0, heat: 0 };
        BlockCache {
            slots: (0..SLOTS)
                .map(|i| Slot { pc: empty(i), block: empty_block })
                .collect::<Vec<_>>()
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!()),
            arena_stale: false,
            code_chunks: vec![0; 1 << (32 - PAGE_SHIFT)].into_boxed_slice(),
            flushes: 0,
        }
    }
}

impl BlockCache {
    /// The block that starts at `pc`, if cached.
    #[inline(always)]
    pub fn get(&self, pc: u32) -> Option<Block> {
        let slot = &self.slots[index(pc)];
        (slot.pc == pc).then_some(slot.block)
    }

    /// Decodes and keeps the block that starts at `pc` with the instruction `first` (its word,
    /// already fetched), reading on with `fetch` (the word at an address, or none where it
    /// cannot be fetched) until the block ends or `stop_before` says an address must start a
    /// block of its own.
    pub fn build(
        &mut self,
        arena: &mut Arena,
        pc: u32,
        first: u32,
        mut fetch: impl FnMut(u32) -> Option<u32>,
        stop_before: impl Fn(u32) -> bool,
    ) -> Block {
        if arena.0.len() + MAX_INSNS as usize > ARENA {
            self.flush();
        }
        if std::mem::take(&mut self.arena_stale) {
            arena.0.clear();
        }
        let arena = &mut arena.0;
        let start = arena.len() as u32;
        let mut at = pc;
        let mut insn = decode(first);
        loop {
            arena.push(insn);
            at = at.wrapping_add(insn.size());
            let len = arena.len() as u32 - start;
            if insn.op.flow() == Flow::Leave || len == MAX_INSNS || stop_before(at) {
                break;
            }
            match fetch(at) {
                Some(raw) => insn = decode(raw),
                None => break,
            }
        }
        let insns = &arena[start as usize..];
        let block = Block {
            start,
            code: jit::code::NONE,
            len: insns.len() as u8 | if insns.iter().any(|i| i.op.accesses_memory()) { TOUCHES_MEMORY } else { 0 },
            bytes: at.wrapping_sub(pc) as u8,
            heat: 0,
        };
        self.mark_code(pc, block.bytes.into());
        self.slots[index(pc)] = Slot { pc, block };
        block
    }

    fn mark_code(&mut self, pc: u32, bytes: u32) {
        let mut chunk = pc >> CHUNK_SHIFT;
        let last = pc.wrapping_add(bytes - 1) >> CHUNK_SHIFT;
        loop {
            let page = (chunk >> (PAGE_SHIFT - CHUNK_SHIFT)) as usize;
            self.code_chunks[page] |= 1 << (chunk % 64);
            if chunk == last {
                break;
            }
            chunk = chunk.wrapping_add(1) & (u32::MAX >> CHUNK_SHIFT);
        }
    }

    /// A store wrote `[addr, addr + len)`: forgets every block it overlaps. True if it forgot
    /// one (a block being executed may be among them: the caller must not run on in it).
    #[inline(always)]
    pub fn invalidate_range(&mut self, addr: u32, len: u32) -> bool {
        let last = addr.wrapping_add(len - 1);
        // (`last` is looked up only when it is in another chunk: a store rarely is.)
        (self.holds_code(addr) || (last >> CHUNK_SHIFT != addr >> CHUNK_SHIFT && self.holds_code(last)))
            && self.invalidate_blocks(addr, last)
    }

    /// The table's address, for compiled code to find blocks as [`SLOT_LAYOUT`] says.
    pub fn slots(&self) -> *const u8 {
        self.slots.as_ptr().cast()
    }

    /// The code-chunk bits, for compiled code to test a store as [`BlockCache::invalidate_range`]
    /// does: bit `(addr >> CHUNK_SHIFT) % 64` of word `addr >> PAGE_SHIFT`.
    pub fn code_chunks(&self) -> *const u64 {
        self.code_chunks.as_ptr()
    }

    #[inline(always)]
    fn holds_code(&self, addr: u32) -> bool {
        self.code_chunks[(addr >> PAGE_SHIFT) as usize] & (1 << ((addr >> CHUNK_SHIFT) % 64)) != 0
    }

    /// Forgets the blocks overlapping `[first, last]`: those starting in it or at most
    /// [`MAX_BYTES`] before it.
    #[cold]
    fn invalidate_blocks(&mut self, first: u32, last: u32) -> bool {
        let mut forgot = false;
        let mut start = (first & !1).wrapping_sub(MAX_BYTES - 2);
        loop {
            let i = index(start);
            let slot = &mut self.slots[i];
            // The block covers [start, start + bytes): it overlaps if it starts in the range
            // or reaches into it.
            let starts_in = start.wrapping_sub(first) <= last.wrapping_sub(first);
            if slot.pc == start && (starts_in || first.wrapping_sub(start) < slot.block.bytes.into()) {
                slot.pc = empty(i);
                forgot = true;
            }
            if start == last & !1 {
                break;
            }
            start = start.wrapping_add(2);
        }
        forgot
    }

    /// Forgets the blocks that hold the instruction at `pc` (a probe is set there).
    pub fn forget(&mut self, pc: u32) {
        self.invalidate_blocks(pc, pc);
    }

    /// `fence.i`: forget everything. (The arena is emptied at the next build: a block being
    /// executed may still be reading it.)
    pub fn flush(&mut self) {
        for (i, slot) in self.slots.iter_mut().enumerate() {
            slot.pc = empty(i);
        }
        self.arena_stale = true;
        self.flushes += 1;
    }

    /// How many times the cache was emptied: code compiled for its blocks before the last
    /// time is no longer referred to.
    pub fn flushes(&self) -> u64 {
        self.flushes
    }

    /// The interpreter runs the block at `pc` (cached, not compiled): true when this run makes
    /// it [`super::jit::HOT`].
    #[inline(always)]
    pub fn warm(&mut self, pc: u32) -> bool {
        let slot = &mut self.slots[index(pc)];
        slot.block.heat = slot.block.heat.saturating_add(1);
        slot.block.heat == super::jit::HOT
    }

    /// The block at `pc` (cached) has the code `code` from now on.
    pub fn set_code(&mut self, pc: u32, code: u32) {
        let slot = &mut self.slots[index(pc)];
        assert_eq!(slot.pc, pc);
        slot.block.code = code;
    }
}

/// The instructions of the cached blocks ([`BlockCache::build`] appends to it).
#[derive(Default)]
pub struct Arena(Vec<Insn>);

impl Arena {
    /// The first `n` instructions of `block` (at most its length).
    #[inline(always)]
    pub fn insns(&self, block: Block, n: u32) -> &[Insn] {
        &self.whole(block)[..n.min(block.len()) as usize]
    }

    /// All of `block`'s instructions.
    #[inline(always)]
    pub fn whole(&self, block: Block) -> &[Insn] {
        &self.0[block.start as usize..block.start as usize + block.len() as usize]
    }

    /// The instruction at `index` ([`Block::start`] plus its place in the block).
    pub fn at(&self, index: u32) -> Insn {
        self.0[index as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::isa::Op;
    use std::collections::BTreeMap;

    const ADDI_A0_1: u32 = 0x0010_0513;
    const ADDI_A0_2: u32 = 0x0020_0513;
    const C_LI_A0_1: u32 = 0x4505;
    const JAL_RA: u32 = 0x0010_00ef;

    /// Memory of instruction words by address.
    fn code(words: &[(u32, u32)]) -> BTreeMap<u32, u32> {
        words.iter().copied().collect()
    }

    /// A block cache with its arena.
    #[derive(Default)]
    struct Cache {
        index: BlockCache,
        arena: Arena,
    }

    fn build(c: &mut Cache, mem: &BTreeMap<u32, u32>, pc: u32) -> Block {
        c.index.build(&mut c.arena, pc, mem[&pc], |a| mem.get(&a).copied(), |_| false)
    }

    fn ops(c: &Cache, b: Block) -> Vec<(Op, u32)> {
        c.arena.insns(b, u32::MAX).iter().map(|i| (i.op, i.size())).collect()
    }

    #[test]
    fn a_block_runs_to_the_first_instruction_that_leaves() {
        let mem = code(&[(0x100, ADDI_A0_1), (0x104, C_LI_A0_1), (0x106, JAL_RA), (0x10a, ADDI_A0_2)]);
        let mut c = Cache::default();
        let b = build(&mut c, &mem, 0x100);
        assert_eq!(ops(&c, b), [(Op::Addi, 4), (Op::Addi, 2), (Op::Jal, 4)]);
        assert_eq!(c.index.get(0x100), Some(b));
        assert_eq!(c.index.get(0x104), None, "only the start finds a block");
        assert!(!b.touches_memory());
        let lw = code(&[(0x300, ADDI_A0_1), (0x304, 0x0005_a503), (0x308, JAL_RA)]); // lw a0, 0(a1)
        assert!(build(&mut c, &lw, 0x300).touches_memory());
    }

    #[test]
    fn a_block_ends_before_what_cannot_be_fetched_and_where_the_builder_says() {
        let mem = code(&[(0x100, ADDI_A0_1), (0x104, ADDI_A0_2)]);
        let mut c = Cache::default();
        assert_eq!(build(&mut c, &mem, 0x100).len(), 2, "0x108 cannot be fetched");
        let b = c.index.build(&mut c.arena, 0x100, ADDI_A0_1, |a| mem.get(&a).copied(), |a| a == 0x104);
        assert_eq!(b.len(), 1);
    }

    #[test]
    fn a_block_holds_at_most_max_insns() {
        let mem: BTreeMap<u32, u32> = (0..100).map(|k| (0x1000 + 4 * k, ADDI_A0_1)).collect();
        let mut c = Cache::default();
        assert_eq!(build(&mut c, &mem, 0x1000).len(), MAX_INSNS);
    }

    #[test]
    fn a_store_forgets_the_blocks_it_overlaps_and_no_other() {
        // Block A: 0x100..0x10a (addi, c.li, jal); block B starts inside it at 0x104.
        let mem = code(&[(0x100, ADDI_A0_1), (0x104, C_LI_A0_1), (0x106, JAL_RA), (0x200, ADDI_A0_2), (0x204, JAL_RA)]);
        let mut c = Cache::default();
        build(&mut c, &mem, 0x100);
        build(&mut c, &mem, 0x104);
        build(&mut c, &mem, 0x200);
        // A store just past A's end touches nothing.
        assert!(!c.index.invalidate_range(0x10a, 2));
        assert!(c.index.get(0x100).is_some() && c.index.get(0x104).is_some());
        // A byte store into the jal's second parcel forgets both blocks that hold it.
        assert!(c.index.invalidate_range(0x109, 1));
        assert!(c.index.get(0x100).is_none() && c.index.get(0x104).is_none());
        assert!(c.index.get(0x200).is_some(), "another chunk's block stays");
        // A store before a block's start leaves it alone.
        build(&mut c, &mem, 0x104);
        assert!(!c.index.invalidate_range(0x100, 4));
        assert!(c.index.get(0x104).is_some());
    }

    #[test]
    fn a_block_across_a_page_boundary_marks_both_pages() {
        let mem = code(&[(0xffe, ADDI_A0_1), (0x1002, JAL_RA)]);
        let mut c = Cache::default();
        build(&mut c, &mem, 0xffe);
        assert!(c.index.invalidate_range(0x1004, 1));
        assert!(c.index.get(0xffe).is_none());
    }

    #[test]
    fn no_odd_pc_hits_an_empty_slot() {
        let mut c = Cache::default();
        for pc in [1, 3, 0x8000_0001] {
            assert!(c.index.get(pc).is_none(), "{pc:#x}");
        }
        let mem = code(&[(0x8000_0000, JAL_RA)]);
        build(&mut c, &mem, 0x8000_0000);
        c.index.flush();
        assert!(c.index.get(1).is_none() && c.index.get(3).is_none() && c.index.get(0x8000_0000).is_none());
    }

    #[test]
    fn a_flushed_arena_keeps_its_instructions_until_the_next_build() {
        let mem = code(&[(0x100, ADDI_A0_1), (0x104, JAL_RA), (0x200, JAL_RA)]);
        let mut c = Cache::default();
        let b = build(&mut c, &mem, 0x100);
        c.index.flush();
        // The block being executed (a fence.i ends it) still reads its instructions.
        assert_eq!(ops(&c, b), [(Op::Addi, 4), (Op::Jal, 4)]);
        let b = build(&mut c, &mem, 0x200);
        assert_eq!(c.arena.0.len(), 1, "the next build starts the arena again");
        assert_eq!(ops(&c, b), [(Op::Jal, 4)]);
    }

    #[test]
    fn stores_to_aliasing_slots_leave_blocks_alone() {
        let mem = code(&[(0x8000_0000, JAL_RA)]);
        let mut c = Cache::default();
        build(&mut c, &mem, 0x8000_0000);
        // Same direct-mapped slot, another address: no effect.
        assert!(!c.index.invalidate_range(0x8000_0000 + (SLOTS as u32) * 2, 4));
        assert!(c.index.get(0x8000_0000).is_some());
    }

    #[test]
    fn a_full_arena_starts_again() {
        let mem = code(&[(0x100, JAL_RA)]);
        let mut c = Cache::default();
        for _ in 0..ARENA {
            build(&mut c, &mem, 0x100);
        }
        assert!(c.arena.0.len() <= ARENA);
        assert_eq!(c.index.get(0x100).map(|b| b.len()), Some(1));
    }
}
