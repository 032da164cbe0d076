//! The decoded-instruction cache: each instruction word is decoded once and kept, keyed by
//! its address, in a direct-mapped table.
//!
//! Coherence with code changes: a store by the hart into a page that holds decoded code
//! invalidates the entries it overwrites (a bitmap of such pages keeps the check to one bit
//! test per store), and `fence.i` empties the whole cache.

use super::decode::{decode, Insn};

const ENTRIES: usize = 1 << 15;
/// A tag no fetch can match: fetch addresses are 4-byte aligned.
const EMPTY: u32 = 1;
const PAGE_SHIFT: u32 = 12;

#[derive(Clone, Copy)]
struct Entry {
    pc: u32,
    raw: u32,
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
        let empty = Entry { pc: EMPTY, raw: 0, insn: decode(0) };
        DecodeCache {
            entries: vec![empty; ENTRIES].into_boxed_slice().try_into().unwrap_or_else(|_| unreachable!()),
            code_pages: vec![0; (1 << (32 - PAGE_SHIFT)) / 64].into_boxed_slice(),
        }
    }
}

#[inline(always)]
fn index(pc: u32) -> usize {
    (pc >> 2) as usize & (ENTRIES - 1)
}

impl DecodeCache {
    /// The decoded instruction at `pc` and its raw word, if cached.
    #[inline(always)]
    pub fn get(&self, pc: u32) -> Option<(Insn, u32)> {
        let e = &self.entries[index(pc)];
        (e.pc == pc).then_some((e.insn, e.raw))
    }

    /// Decodes `raw`, fetched from `pc`, and keeps it.
    pub fn insert(&mut self, pc: u32, raw: u32) -> Insn {
        let insn = decode(raw);
        self.entries[index(pc)] = Entry { pc, raw, insn };
        let page = (pc >> PAGE_SHIFT) as usize;
        self.code_pages[page / 64] |= 1 << (page % 64);
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

    #[cold]
    fn invalidate_words(&mut self, first: u32, last: u32) {
        let mut word = first & !3;
        loop {
            let e = &mut self.entries[index(word)];
            if e.pc == word {
                e.pc = EMPTY;
            }
            if word == last & !3 {
                break;
            }
            word = word.wrapping_add(4);
        }
    }

    /// Forgets the instruction at `pc`, if cached.
    pub fn forget(&mut self, pc: u32) {
        let e = &mut self.entries[index(pc)];
        if e.pc == pc {
            e.pc = EMPTY;
        }
    }

    /// `fence.i`: forget everything.
    pub fn flush(&mut self) {
        for e in self.entries.iter_mut() {
            e.pc = EMPTY;
        }
        self.code_pages.fill(0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cpu::decode::Op;

    const ADDI_A0_1: u32 = 0x0010_0513;
    const ADDI_A0_2: u32 = 0x0020_0513;

    #[test]
    fn keeps_decoded_words_until_overwritten() {
        let mut c = DecodeCache::default();
        assert!(c.get(0x8000_0000).is_none());
        c.insert(0x8000_0000, ADDI_A0_1);
        c.insert(0x8000_0004, ADDI_A0_2);
        assert_eq!(c.get(0x8000_0000).map(|(i, raw)| (i.op, i.imm, raw)), Some((Op::Addi, 1, ADDI_A0_1)));
        // A byte store into the second word invalidates it, not its neighbour.
        c.invalidate_range(0x8000_0007, 1);
        assert!(c.get(0x8000_0000).is_some());
        assert!(c.get(0x8000_0004).is_none());
        // A misaligned word store straddling two words invalidates both.
        c.insert(0x8000_0004, ADDI_A0_2);
        c.invalidate_range(0x8000_0002, 4);
        assert!(c.get(0x8000_0000).is_none() && c.get(0x8000_0004).is_none());
    }

    #[test]
    fn stores_to_pages_without_code_and_aliasing_slots_leave_entries_alone() {
        let mut c = DecodeCache::default();
        c.insert(0x8000_0000, ADDI_A0_1);
        // Same direct-mapped slot, different page and address: no effect.
        c.invalidate_range(0x8000_0000 + (ENTRIES as u32) * 4, 4);
        assert!(c.get(0x8000_0000).is_some());
        c.flush();
        assert!(c.get(0x8000_0000).is_none());
    }
}
