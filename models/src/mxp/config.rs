//! The accelerator's parameters and where it sits in the memory map.

use crate::invalid::InvalidField;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MxpConfig {
    /// CPU address of the instruction port (a 256-byte window: a 32-bit store anywhere in it
    /// appends a command word, a load returns the pending reply).
    pub port: u32,
    /// CPU address of the scratchpad (aligned to its size).
    pub scratchpad: u32,
    /// Scratchpad size in bytes (a power of two, 4 KiB to 16 MiB).
    pub scratchpad_size: u32,
    /// 32-bit vector lanes (a power of two, 1 to 64).
    pub lanes: u32,
    /// Command FIFO entries (commands); the CPU stalls on a full FIFO.
    pub fifo_depth: u32,
    /// DMA queue entries.
    pub dma_queue: u32,
    /// Mask partitions ("waves"): the longest mask is `mask_waves × lanes` elements.
    pub mask_waves: u32,
    /// VMULFXP fractional bits for byte, half and word calculations.
    #[serde(deserialize_with = "crate::invalid::exactly")]
    pub fxp_frac_bits: [u32; 3],
    /// Lanes of the custom units VCUSTOM0 (Q16.16 divide) and VCUSTOM1 (Q16.16 square root).
    #[serde(deserialize_with = "crate::invalid::exactly")]
    pub custom_lanes: [u32; 2],
    /// Refuse a vector operand row that leaves the scratchpad (the run stops: exit status 123)
    /// instead of wrapping its addresses at the scratchpad's end, as the vendor simulator and
    /// the hardware do (`mxp-spec.md` §3.1 item 7).
    pub strict_bounds: bool,
}

impl Default for MxpConfig {
    /// The SDK's simulator set-up: 4 lanes, 256 KiB scratchpad, 256 mask waves, fixed-point
    /// fractional bits 4 / 15 / 16.
    fn default() -> Self {
        MxpConfig {
            port: 0x4001_0000,
            scratchpad: 0x5000_0000,
            scratchpad_size: 256 << 10,
            lanes: 4,
            fifo_depth: 16,
            dma_queue: 2,
            mask_waves: 256,
            fxp_frac_bits: [4, 15, 16],
            custom_lanes: [4, 4],
            strict_bounds: false,
        }
    }
}

/// The size of the instruction port's window.
pub const PORT_SIZE: u32 = 0x100;

impl MxpConfig {
    pub fn validate(&self) -> Result<(), InvalidField> {
        let err = InvalidField::err;
        let s = self.scratchpad_size;
        if !s.is_power_of_two() || !(4 << 10..=16 << 20).contains(&s) {
            return err("scratchpad_size", format!("{s:#x} is not a power of two from 4 KiB to 16 MiB"));
        }
        if !self.scratchpad.is_multiple_of(s) {
            return err("scratchpad", format!("{:#x} is not aligned to the scratchpad size {s:#x}", self.scratchpad));
        }
        if !self.port.is_multiple_of(PORT_SIZE) {
            return err("port", format!("{:#x} is not aligned to the port's {PORT_SIZE}-byte window", self.port));
        }
        if !self.lanes.is_power_of_two() || self.lanes > 64 {
            return err("lanes", format!("{} is not a power of two from 1 to 64", self.lanes));
        }
        // The mask's bits and the MMVL register (mask_waves × lanes) stay within 2^24.
        if self.mask_waves > 1 << 18 {
            return err("mask_waves", format!("{} is more than 2^18", self.mask_waves));
        }
        if self.fifo_depth == 0 || self.dma_queue == 0 || self.mask_waves == 0 {
            let field = if self.fifo_depth == 0 {
                "fifo_depth"
            } else if self.dma_queue == 0 {
                "dma_queue"
            } else {
                "mask_waves"
            };
            return err(field, "must be at least 1".into());
        }
        for (bits, width) in self.fxp_frac_bits.iter().zip([8, 16, 32]) {
            if *bits >= width {
                return err("fxp_frac_bits", format!("{bits} fractional bits do not fit a {width}-bit element"));
            }
        }
        if self.custom_lanes.iter().any(|&l| l > self.lanes) {
            return err("custom_lanes", format!("{:?}: more than the {} vector lanes", self.custom_lanes, self.lanes));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_bad_values_name_the_field() {
        assert_eq!(MxpConfig::default().validate(), Ok(()));
        let field = |c: MxpConfig| c.validate().unwrap_err().field;
        assert_eq!(field(MxpConfig { scratchpad_size: 3000, ..Default::default() }), "scratchpad_size");
        assert_eq!(field(MxpConfig { scratchpad: 0x5002_0000, ..Default::default() }), "scratchpad");
        assert_eq!(field(MxpConfig { lanes: 6, ..Default::default() }), "lanes");
        assert_eq!(field(MxpConfig { dma_queue: 0, ..Default::default() }), "dma_queue");
        assert_eq!(field(MxpConfig { fxp_frac_bits: [8, 15, 16], ..Default::default() }), "fxp_frac_bits");
        assert_eq!(field(MxpConfig { custom_lanes: [8, 4], ..Default::default() }), "custom_lanes");
    }
}
