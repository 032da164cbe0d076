//! Main memory: little-endian byte arrays at base addresses. The first bank is the machine's
//! DRAM (the one the uncached alias mirrors); more banks are the memory map's other regions
//! (`[[memory.regions]]`: a board's flash, SRAM, …), RAM or ROM.

use crate::bus::MemFault;
use crate::memory_system::offset_in;

pub struct Dram {
    /// Bank 0 is DRAM: looked at first, so the common case costs one range check.
    banks: Vec<Bank>,
}

struct Bank {
    base: u32,
    bytes: Vec<u8>,
    /// False for ROM: the CPU and the DMA cannot write it (the loader can).
    writable: bool,
}

impl Dram {
    /// `size` bytes of zeroed memory starting at `base`. The caller validates that the region
    /// fits in the 32-bit address space.
    pub fn new(base: u32, size: u32) -> Self {
        Dram { banks: vec![Bank { base, bytes: vec![0; size as usize], writable: true }] }
    }

    /// Adds a region (validated not to overlap the others).
    pub fn add_bank(&mut self, base: u32, size: u32, writable: bool) {
        self.banks.push(Bank { base, bytes: vec![0; size as usize], writable });
    }

    /// DRAM's bytes (bank 0), for a direct path ([`crate::bus::Direct`]).
    pub fn dram_bytes(&mut self) -> *mut u8 {
        self.banks[0].bytes.as_mut_ptr()
    }

    /// True if `[addr, addr + len)` lies entirely inside one bank.
    pub fn contains(&self, addr: u32, len: u32) -> bool {
        self.locate(addr, len as usize).is_some()
    }

    /// True if `[addr, addr + len)` lies entirely inside one writable bank.
    pub fn is_writable(&self, addr: u32, len: u32) -> bool {
        self.locate(addr, len as usize).is_some_and(|(bank, _)| self.banks[bank].writable)
    }

    /// The bank holding `[addr, addr + len)` and the offset in it.
    #[inline(always)]
    fn locate(&self, addr: u32, len: usize) -> Option<(usize, usize)> {
        match offset(&self.banks[0], addr, len) {
            Some(off) => Some((0, off)),
            None if self.banks.len() > 1 => self.locate_other(addr, len),
            None => None,
        }
    }

    #[cold]
    fn locate_other(&self, addr: u32, len: usize) -> Option<(usize, usize)> {
        self.banks.iter().enumerate().skip(1).find_map(|(i, bank)| offset(bank, addr, len).map(|off| (i, off)))
    }

    /// Reads `N` bytes at `addr` as a little-endian value.
    #[inline(always)]
    pub fn read<const N: usize>(&self, addr: u32) -> Option<[u8; N]> {
        let (bank, off) = self.locate(addr, N)?;
        Some(self.banks[bank].bytes[off..off + N].try_into().expect("length checked"))
    }

    /// Writes `N` bytes at `addr` (`None` outside memory or in ROM).
    #[inline(always)]
    pub fn write<const N: usize>(&mut self, addr: u32, data: [u8; N]) -> Option<()> {
        self.bytes_mut(addr, N)?.copy_from_slice(&data);
        Some(())
    }

    #[inline]
    pub fn read_bytes(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault> {
        buf.copy_from_slice(self.bytes(addr, buf.len()).ok_or(MemFault::Unmapped { addr })?);
        Ok(())
    }

    /// The `len` bytes at `addr`, if they lie inside one bank: for a copy of a known size
    /// ([`copy`]) where [`Dram::read_bytes`] would call `memcpy`.
    #[inline(always)]
    pub fn bytes(&self, addr: u32, len: usize) -> Option<&[u8]> {
        let (bank, off) = self.locate(addr, len)?;
        Some(&self.banks[bank].bytes[off..off + len])
    }

    /// Asks the host to bring the byte at `addr` into its cache (if it is memory), for a read
    /// soon after other work: a hint, which changes nothing else.
    #[inline(always)]
    pub fn prefetch(&self, addr: u32) {
        #[cfg(target_arch = "x86_64")]
        if let Some(byte) = self.bytes(addr, 1) {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is in every x86-64 processor; a prefetch reads nothing and cannot
            // fault.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(byte.as_ptr().cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = addr;
    }

    /// The `len` bytes at `addr` to write as the CPU or the DMA would (not ROM), if they lie
    /// inside one writable bank: [`Dram::bytes`] for [`Dram::write_bytes`].
    #[inline(always)]
    pub fn bytes_mut(&mut self, addr: u32, len: usize) -> Option<&mut [u8]> {
        let (bank, off) = self.locate(addr, len)?;
        let bank = &mut self.banks[bank];
        // (An `if`, not `bool::then` with a closure: the closure was not inlined, a call on
        // every line a miss writes back.)
        if bank.writable {
            Some(&mut bank.bytes[off..off + len])
        } else {
            None
        }
    }

    /// Writes `data` at `addr` as the CPU or the DMA would: not into ROM.
    #[inline]
    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        self.bytes_mut(addr, data.len()).ok_or(MemFault::Unmapped { addr })?.copy_from_slice(data);
        Ok(())
    }

    /// Writes `data` at `addr` as a loader or debugger would: ROM too.
    pub fn load_bytes(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        let (bank, off) = self.locate(addr, data.len()).ok_or(MemFault::Unmapped { addr })?;
        self.banks[bank].bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
}

/// `dst.copy_from_slice(src)`, with fixed-size moves for the sizes the cache moves most: a
/// CPU access's 1, 2 or 4 bytes (a hit), a line's 16 to 64 (a fill, a write-back). A copy
/// of a length known only at run time is a call to `memcpy`: on every hit, and twice in
/// most of cpubench's 3.2 million misses (4.8 % of its run, by perf).
#[inline(always)]
pub(crate) fn copy(dst: &mut [u8], src: &[u8]) {
    #[inline(always)]
    fn fixed<const N: usize>(dst: &mut [u8], src: &[u8]) {
        dst[..N].copy_from_slice(&src[..N]);
    }
    mxpsim_detector::invariant!(dst.len() == src.len());
    match dst.len() {
        1 => dst[0] = src[0],
        2 => fixed::<2>(dst, src),
        4 => fixed::<4>(dst, src),
        16 => fixed::<16>(dst, src),
        32 => fixed::<32>(dst, src),
        64 => fixed::<64>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

#[inline(always)]
fn offset(bank: &Bank, addr: u32, len: usize) -> Option<usize> {
    let off = offset_in(bank.base, bank.bytes.len() as u32, addr, u32::try_from(len).ok()?)?;
    Some(off as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_little_endian_at_any_alignment() {
        let mut d = Dram::new(0x8000_0000, 16);
        d.write::<4>(0x8000_0001, 0x1122_3344u32.to_le_bytes()).unwrap();
        assert_eq!(d.read::<1>(0x8000_0001), Some([0x44]));
        assert_eq!(d.read::<2>(0x8000_0003), Some([0x22, 0x11]));
        assert_eq!(u32::from_le_bytes(d.read::<4>(0x8000_0001).unwrap()), 0x1122_3344);
    }

    #[test]
    fn rejects_accesses_outside_or_straddling_the_end() {
        let d = Dram::new(0x8000_0000, 16);
        assert_eq!(d.read::<4>(0x7fff_fffe), None);
        assert_eq!(d.read::<4>(0x8000_000d), None);
        assert!(d.read::<4>(0x8000_000c).is_some());
        assert_eq!(d.read::<1>(0x8000_0010), None);
        assert!(!d.contains(0x8000_0000, 17));
        assert!(d.contains(0x8000_0000, 16));
    }

    #[test]
    fn other_banks_hold_their_bytes_and_rom_takes_only_the_loader() {
        let mut d = Dram::new(0x8000_0000, 16);
        d.add_bank(0x2000_0000, 16, false);
        d.add_bank(0x1000, 16, true);
        d.load_bytes(0x2000_0000, &[1, 2, 3, 4]).unwrap();
        assert_eq!(d.read::<4>(0x2000_0000), Some([1, 2, 3, 4]));
        assert_eq!(d.write::<1>(0x2000_0000, [9]), None, "ROM");
        assert!(d.write_bytes(0x2000_0000, &[9]).is_err());
        assert!(!d.is_writable(0x2000_0000, 1) && d.is_writable(0x1000, 1));
        d.write::<2>(0x100e, [5, 6]).unwrap();
        assert_eq!(d.read::<2>(0x100e), Some([5, 6]));
        assert!(!d.contains(0x100f, 2), "no access spans two banks");
    }
}
