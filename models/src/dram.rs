//! Main memory: a flat little-endian byte array at a base address.

use crate::bus::MemFault;

pub struct Dram {
    base: u32,
    bytes: Vec<u8>,
}

impl Dram {
    /// `size` bytes of zeroed memory starting at `base`. The caller validates that the region
    /// fits in the 32-bit address space.
    pub fn new(base: u32, size: u32) -> Self {
        Dram { base, bytes: vec![0; size as usize] }
    }

    /// True if `[addr, addr + len)` lies entirely inside this memory.
    pub fn contains(&self, addr: u32, len: u32) -> bool {
        self.offset(addr, len as usize).is_some()
    }

    #[inline(always)]
    fn offset(&self, addr: u32, len: usize) -> Option<usize> {
        let off = addr.wrapping_sub(self.base) as usize;
        (off < self.bytes.len() && self.bytes.len() - off >= len).then_some(off)
    }

    /// Reads `N` bytes at `addr` as a little-endian value.
    #[inline(always)]
    pub fn read<const N: usize>(&self, addr: u32) -> Option<[u8; N]> {
        let off = self.offset(addr, N)?;
        Some(self.bytes[off..off + N].try_into().expect("length checked"))
    }

    #[inline(always)]
    pub fn write<const N: usize>(&mut self, addr: u32, data: [u8; N]) -> Option<()> {
        let off = self.offset(addr, N)?;
        self.bytes[off..off + N].copy_from_slice(&data);
        Some(())
    }

    pub fn read_bytes(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault> {
        let off = self.offset(addr, buf.len()).ok_or(MemFault::Unmapped { addr })?;
        buf.copy_from_slice(&self.bytes[off..off + buf.len()]);
        Ok(())
    }

    pub fn write_bytes(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        let off = self.offset(addr, data.len()).ok_or(MemFault::Unmapped { addr })?;
        self.bytes[off..off + data.len()].copy_from_slice(data);
        Ok(())
    }
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
}
