//! The decoded-instruction cache: each instruction is decoded once and kept, keyed by its
//! address, in a direct-mapped table indexed by the PC's 16-bit parcel number (compressed and
//! 32-bit instructions mix, so any even address may start one).
//!
//! Coherence with code changes: a store by the hart into a page that holds decoded code
//! invalidates the entries it overlaps (a bitmap of such pages keeps the check to one bit
//! test per store; a 32-bit instruction across a page boundary marks both pages), and
//! `fence.i` empties the whole cache.

use super::decode::{decode, Insn};

const ENTRIES: usize = 1 << 16;
/// The tag of an empty slot: odd, as no instruction's address is. An odd PC can still be
/// looked up (an odd ELF entry, a debugger's write to `pc`; it traps on the miss), so no slot
/// holds the odd tag that indexes it: slot `index(1)` holds 3, every other slot 1.
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
const PAGE_SHIFT: u32 = 12;

#[derive(Clone, Copy)]
struct Entry {
    pc: u32,
    insn: Insn,
}

pub struct DecodeCache {
    /// A fixed-size array, so indexing with a masked PC needs no bounds check.
    entries: Box<[Entry; ENTRIES]>,
    /// One bit per 4 KiB page of the 32-bit address space: set once an instruction of the page
    /// has been decoded (cleared by `fence.i`).
    code_pages: Box<[u64]>,
}

impl Default for DecodeCache {
    fn default() -> Self {
        let empty = |i| Entry { pc: empty(i), insn: decode(0) };
        DecodeCache {
            entries: (0..ENTRIES)
                .map(empty)
                .collect::<Vec<_>>()
                .into_boxed_slice()
                .try_into()
                .unwrap_or_else(|_| unreachable!()),
            code_pages: vec![0; (1 << (32 - PAGE_SHIFT)) / 64].into_boxed_slice(),
        }
    }
}

#[inline(always)]
fn index(pc: u32) -> usize {
    (pc >> 1) as usize & (ENTRIES - 1)
}

impl DecodeCache {
    /// The decoded instruction at `pc`, if cached.
    #[inline(always)]
    pub fn get(&self, pc: u32) -> Option<Insn> {
        let e = &self.entries[index(pc)];
        (e.pc == pc).then_some(e.insn)
    }

    /// Decodes `raw`, fetched from `pc`, and keeps it.
    pub fn insert(&mut self, pc: u32, raw: u32) -> Insn {
        let insn = decode(raw);
        self.entries[index(pc)] = Entry { pc, insn };
        for addr in [pc, pc.wrapping_add(insn.size() - 1)] {
            let page = (addr >> PAGE_SHIFT) as usize;
            self.code_pages[page / 64] |= 1 << (page % 64);
        }
        insn
    }

    /// A store wrote `[addr, addr + len)`: forget any decoded instruction it overlaps.
    #[inline(always)]
    pub fn invalidate_range(&mut self, addr: u32, len: u32) {
        let last = addr.wrapping_add(len - 1);
        if self.holds_code(addr) || self.holds_code(last) {
            self.invalidate_words(addr, last);
        }
    }

    #[inline(always)]
    fn holds_code(&self, addr: u32) -> bool {
        let page = (addr >> PAGE_SHIFT) as usize;
        self.code_pages[page / 64] & (1 << (page % 64)) != 0
    }

    /// Forgets every instruction overlapping `[first, last]`: those starting at a parcel in
    /// it, and a 32-bit one starting in the parcel before it.
    #[cold]
    fn invalidate_words(&mut self, first: u32, last: u32) {
        let before = (first & !1).wrapping_sub(2);
        let mut parcel = before;
        loop {
            let i = index(parcel);
            let e = &mut self.entries[i];
            if e.pc == parcel && (parcel != before || e.insn.size() == 4) {
                e.pc = empty(i);
            }
            if parcel == last & !1 {
                break;
            }
            parcel = parcel.wrapping_add(2);
        }
    }

    /// Forgets the instruction at `pc`, if cached.
    pub fn forget(&mut self, pc: u32) {
        let i = index(pc);
        if self.entries[i].pc == pc {
            self.entries[i].pc = empty(i);
        }
    }

    /// `fence.i`: forget everything.
    pub fn flush(&mut self) {
        for (i, e) in self.entries.iter_mut().enumerate() {
            e.pc = empty(i);
        }
        self.code_pages.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::isa::Op;

    const ADDI_A0_1: u32 = 0x0010_0513;
    const ADDI_A0_2: u32 = 0x0020_0513;

    #[test]
    fn keeps_decoded_words_until_overwritten() {
        let mut c = DecodeCache::default();
        assert!(c.get(0x8000_0000).is_none());
        c.insert(0x8000_0000, ADDI_A0_1);
        c.insert(0x8000_0004, ADDI_A0_2);
        assert_eq!(c.get(0x8000_0000).map(|i| (i.op, i.imm)), Some((Op::Addi, 1)));
        // A byte store into the second word invalidates it, not its neighbour.
        c.invalidate_range(0x8000_0007, 1);
        assert!(c.get(0x8000_0000).is_some());
        assert!(c.get(0x8000_0004).is_none());
        // A misaligned word store straddling two words invalidates both.
        c.insert(0x8000_0004, ADDI_A0_2);
        c.invalidate_range(0x8000_0002, 4);
        assert!(c.get(0x8000_0000).is_none() && c.get(0x8000_0004).is_none());
    }

    const C_LI_A0_1: u32 = 0x4505;

    #[test]
    fn a_store_forgets_the_instructions_it_overlaps_with_compressed_code() {
        let mut c = DecodeCache::default();
        // 0x...00: c.li (2 bytes); 0x...02: addi (4 bytes, to 0x...06); 0x...06: c.li.
        c.insert(0x8000_0000, C_LI_A0_1);
        c.insert(0x8000_0002, ADDI_A0_1);
        c.insert(0x8000_0006, C_LI_A0_1);
        assert_eq!(c.get(0x8000_0000).map(|i| (i.op, i.imm, i.size())), Some((Op::Addi, 1, 2)));
        // A byte store into the addi's second parcel forgets the addi only.
        c.invalidate_range(0x8000_0004, 1);
        assert!(c.get(0x8000_0000).is_some() && c.get(0x8000_0006).is_some());
        assert!(c.get(0x8000_0002).is_none());
        // A store to the parcel after a 2-byte instruction leaves it alone.
        c.insert(0x8000_0002, ADDI_A0_1);
        c.invalidate_range(0x8000_0006, 2);
        assert!(c.get(0x8000_0002).is_some() && c.get(0x8000_0006).is_none());
    }

    #[test]
    fn an_instruction_across_a_page_boundary_marks_both_pages() {
        let mut c = DecodeCache::default();
        c.insert(0x8000_0ffe, ADDI_A0_1);
        c.invalidate_range(0x8000_1000, 1);
        assert!(c.get(0x8000_0ffe).is_none());
    }

    #[test]
    fn no_odd_pc_hits_an_empty_slot() {
        let mut c = DecodeCache::default();
        for pc in [1, 3, 0x8000_0001] {
            assert!(c.get(pc).is_none(), "{pc:#x}");
        }
        c.insert(0x8000_0000, ADDI_A0_1);
        c.flush();
        assert!(c.get(1).is_none() && c.get(3).is_none());
    }

    #[test]
    fn stores_to_pages_without_code_and_aliasing_slots_leave_entries_alone() {
        let mut c = DecodeCache::default();
        c.insert(0x8000_0000, ADDI_A0_1);
        // Same direct-mapped slot, different page and address: no effect.
        c.invalidate_range(0x8000_0000 + (ENTRIES as u32) * 2, 4);
        assert!(c.get(0x8000_0000).is_some());
        c.flush();
        assert!(c.get(0x8000_0000).is_none());
    }
}
