//! The SoC's memory map as the hart sees it (no caches yet): DRAM plus the riscv-tests
//! host-target interface.
//!
//! | region | what |
//! |---|---|
//! | `dram.base() .. + dram.size()` | DRAM (default `0x8000_0000`, 64 MiB) |
//! | `tohost` (8 bytes inside DRAM) | riscv-tests convention: the first non-zero store stops the run |
//!
//! Everything else is unmapped: an access there is an access fault.

use crate::bus::{Bus, CacheBlockOp, MemFault, Width};
use crate::dram::Dram;

pub struct SystemBus {
    dram: Dram,
    /// Address of the riscv-tests `tohost` word, when the firmware has one.
    tohost: Option<u32>,
    /// The value written to `tohost`, once the firmware has written a non-zero one.
    tohost_value: Option<u32>,
}

impl SystemBus {
    pub fn new(dram: Dram) -> Self {
        SystemBus {
            dram,
            tohost: None,
            tohost_value: None,
        }
    }

    /// Watches stores to the 8-byte `tohost` word at `addr` (it lies in DRAM).
    pub fn watch_tohost(&mut self, addr: u32) {
        self.tohost = Some(addr);
    }

    /// The non-zero value the firmware wrote to `tohost`, if it has.
    pub fn tohost_value(&self) -> Option<u32> {
        self.tohost_value
    }

    pub fn dram(&self) -> &Dram {
        &self.dram
    }

    /// After a store that touched `tohost`, latch its low word if it became non-zero.
    #[cold]
    fn check_tohost(&mut self, tohost: u32) {
        if let Some(word) = self.dram.read::<4>(tohost) {
            let value = u32::from_le_bytes(word);
            if value != 0 && self.tohost_value.is_none() {
                self.tohost_value = Some(value);
            }
        }
    }
}

impl Bus for SystemBus {
    #[inline(always)]
    fn fetch(&mut self, addr: u32) -> Result<u32, MemFault> {
        self.dram
            .read::<4>(addr)
            .map(u32::from_le_bytes)
            .ok_or(MemFault::Unmapped { addr })
    }

    #[inline(always)]
    fn load(&mut self, addr: u32, width: Width) -> Result<u32, MemFault> {
        let value = match width {
            Width::Byte => self.dram.read::<1>(addr).map(|b| b[0] as u32),
            Width::Half => self
                .dram
                .read::<2>(addr)
                .map(|b| u16::from_le_bytes(b) as u32),
            Width::Word => self.dram.read::<4>(addr).map(u32::from_le_bytes),
        };
        value.ok_or(MemFault::Unmapped { addr })
    }

    #[inline(always)]
    fn store(&mut self, addr: u32, width: Width, value: u32) -> Result<(), MemFault> {
        let done = match width {
            Width::Byte => self.dram.write::<1>(addr, [value as u8]),
            Width::Half => self.dram.write::<2>(addr, (value as u16).to_le_bytes()),
            Width::Word => self.dram.write::<4>(addr, value.to_le_bytes()),
        };
        done.ok_or(MemFault::Unmapped { addr })?;
        if let Some(tohost) = self.tohost {
            if addr.wrapping_sub(tohost) < 8 || tohost.wrapping_sub(addr) < width.bytes() {
                self.check_tohost(tohost);
            }
        }
        Ok(())
    }

    fn cache_block(&mut self, _op: CacheBlockOp, addr: u32) -> Result<(), MemFault> {
        // No data cache yet: memory is always coherent, so the operation only has to name a
        // mapped address.
        if self.dram.contains(addr, 1) {
            Ok(())
        } else {
            Err(MemFault::Unmapped { addr })
        }
    }

    fn halt_requested(&self) -> bool {
        self.tohost_value.is_some()
    }

    fn peek(&self, addr: u32, buf: &mut [u8]) -> Result<(), MemFault> {
        self.dram.read_bytes(addr, buf)
    }

    fn poke(&mut self, addr: u32, data: &[u8]) -> Result<(), MemFault> {
        self.dram.write_bytes(addr, data)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bus() -> SystemBus {
        SystemBus::new(Dram::new(0x8000_0000, 0x1000))
    }

    #[test]
    fn unmapped_accesses_fault_with_their_address() {
        let mut b = bus();
        assert_eq!(
            b.load(0x9000_0000, Width::Word),
            Err(MemFault::Unmapped { addr: 0x9000_0000 })
        );
        assert_eq!(
            b.store(0x7fff_ffff, Width::Half, 1),
            Err(MemFault::Unmapped { addr: 0x7fff_ffff })
        );
        assert_eq!(b.fetch(0), Err(MemFault::Unmapped { addr: 0 }));
        assert!(b.cache_block(CacheBlockOp::Flush, 0x1000).is_err());
    }

    #[test]
    fn tohost_latches_the_first_non_zero_store_only() {
        let mut b = bus();
        b.watch_tohost(0x8000_0100);
        b.store(0x8000_0100, Width::Word, 0).unwrap();
        assert!(!b.halt_requested());
        b.store(0x8000_00ff, Width::Half, 0x0700).unwrap(); // straddles into tohost's low byte
        assert_eq!(b.tohost_value(), Some(7));
        b.store(0x8000_0100, Width::Word, 1).unwrap();
        assert_eq!(b.tohost_value(), Some(7));
        assert!(b.halt_requested());
    }
}
