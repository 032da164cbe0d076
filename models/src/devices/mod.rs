//! Memory-mapped devices besides DRAM and the accelerator, one room each, behind the
//! memory system's address decoding: the CLINT (timer and software interrupts) and an
//! ns16550a UART, at QEMU `virt`'s addresses in the `virt` machine preset.
//!
//! Registers are 32-bit words; narrower accesses read or replace the bytes they cover
//! ([`read_part`], [`write_part`]), as the registers of the system-control block do.

pub mod clint;
pub mod sysctl;
pub mod uart;

use crate::bus::Width;
use serde::{Deserialize, Serialize};

/// The devices a machine has (`[devices.clint]`, `[devices.uart]` in the machine's TOML;
/// absent tables: no such device).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DevicesConfig {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clint: Option<clint::ClintConfig>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uart: Option<uart::UartConfig>,
}

impl DevicesConfig {
    /// True for a machine without any of these devices.
    pub fn is_none(&self) -> bool {
        self.clint.is_none() && self.uart.is_none()
    }

    /// Checks the devices' own settings (their regions are checked with the memory map's).
    pub fn validate(&self) -> Result<(), crate::invalid::InvalidField> {
        if let Some(clint) = &self.clint {
            if clint.timebase_hz == 0 {
                return crate::invalid::InvalidField::err("clint.timebase_hz", "must be positive");
            }
        }
        Ok(())
    }
}

/// The bytes of the 32-bit register `word` that an access of `width` at byte `offset`
/// (within the word) reads, zero-extended.
pub fn read_part(word: u32, offset: u32, width: Width) -> u32 {
    let value = word >> (8 * (offset & 3));
    match width {
        Width::Byte => value & 0xff,
        Width::Half => value & 0xffff,
        Width::Word => value,
    }
}

/// `word` with the bytes an access of `width` at byte `offset` writes replaced by `value`'s.
pub fn write_part(word: u32, offset: u32, width: Width, value: u32) -> u32 {
    let shift = 8 * (offset & 3);
    let mask = match width {
        Width::Byte => 0xff,
        Width::Half => 0xffff,
        Width::Word => u32::MAX,
    } << shift;
    (word & !mask) | ((value << shift) & mask)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_accesses_read_and_replace_their_bytes() {
        assert_eq!(read_part(0x1122_3344, 1, Width::Byte), 0x33);
        assert_eq!(read_part(0x1122_3344, 2, Width::Half), 0x1122);
        assert_eq!(write_part(0x1122_3344, 1, Width::Byte, 0xab), 0x1122_ab44);
        assert_eq!(write_part(0x1122_3344, 2, Width::Half, 0xffff_beef), 0xbeef_3344);
        assert_eq!(write_part(0x1122_3344, 0, Width::Word, 7), 7);
    }
}
