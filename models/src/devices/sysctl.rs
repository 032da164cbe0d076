//! The system-control registers of the SoC (offsets from the region's base; 32-bit
//! accesses): whole-cache maintenance commands, and what firmware (the SDK's port layer)
//! reads of the machine's parameters.

use crate::bus::CacheOp;
use crate::mxp::config::MxpConfig;

/// Size of the register region.
pub const SIZE: u32 = 0x1000;
/// Write: whole-cache maintenance. [`CACHE_CLEAN_ALL`], [`CACHE_FLUSH_ALL`] or
/// [`CACHE_INVAL_ALL`]; other values are ignored. Reads 0.
pub const CACHE_CTRL: u32 = 0x0;
/// Read: the data cache's line size in bytes (the SDK's `VBX_CPU_DCACHE_LINE_SIZE`).
pub const CACHE_LINE: u32 = 0x4;
/// Read: the data cache's size in bytes (0 without a cache model).
pub const CACHE_SIZE: u32 = 0x8;
/// Read: the accelerator's vector lanes (the SDK's `vector_lanes`).
pub const MXP_LANES: u32 = 0xc;
/// Read: the scratchpad size in bytes.
pub const MXP_SCRATCHPAD_SIZE: u32 = 0x10;
/// Read: VMULFXP fractional bits: byte in bits 7:0, half in 15:8, word in 23:16.
pub const MXP_FXP_FRAC_BITS: u32 = 0x14;
/// Read: the longest mask in elements (the SDK's `max_masked_vector_length`).
pub const MXP_MAX_MASKED_VL: u32 = 0x18;
/// Read: lanes of VCUSTOM0 in bits 15:0, of VCUSTOM1 in bits 31:16.
pub const MXP_CUSTOM_LANES: u32 = 0x1c;
/// Read: the core clock in Hz (the SDK's `core_freq` and timestamp frequency).
pub const CLOCK_HZ: u32 = 0x20;
pub const CACHE_CLEAN_ALL: u32 = 1;
pub const CACHE_FLUSH_ALL: u32 = 2;
pub const CACHE_INVAL_ALL: u32 = 3;

/// What the registers report.
pub struct Facts<'a> {
    pub line: u32,
    /// 0 without a cache model.
    pub cache_size: u32,
    pub mxp: &'a MxpConfig,
    pub clock_hz: u32,
}

impl Facts<'_> {
    /// The register at `offset` (word aligned).
    pub fn read(&self, offset: u32) -> u32 {
        match offset {
            CACHE_LINE => self.line,
            CACHE_SIZE => self.cache_size,
            MXP_LANES => self.mxp.lanes,
            MXP_SCRATCHPAD_SIZE => self.mxp.scratchpad_size,
            MXP_FXP_FRAC_BITS => {
                let [b, h, w] = self.mxp.fxp_frac_bits;
                b | h << 8 | w << 16
            }
            MXP_MAX_MASKED_VL => self.mxp.mask_waves * self.mxp.lanes,
            MXP_CUSTOM_LANES => {
                let [c0, c1] = self.mxp.custom_lanes;
                c0 | c1 << 16
            }
            CLOCK_HZ => self.clock_hz,
            _ => 0,
        }
    }
}

/// The whole-cache command a store of `value` at `offset` asks for, if any.
pub fn command(offset: u32, value: u32) -> Option<CacheOp> {
    match (offset, value) {
        (CACHE_CTRL, CACHE_CLEAN_ALL) => Some(CacheOp::Clean),
        (CACHE_CTRL, CACHE_FLUSH_ALL) => Some(CacheOp::Flush),
        (CACHE_CTRL, CACHE_INVAL_ALL) => Some(CacheOp::Inval),
        _ => None,
    }
}
