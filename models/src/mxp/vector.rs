//! The vector engine's arithmetic: what one vector instruction does to the scratchpad, its
//! flags and the mask (`mxp-spec.md` §3), and which bytes it touches.
//!
//! The engine ([`super::engine`]) decides *when* an instruction runs; this module decides
//! *what* it does. It is checked against an independent reference of the same semantics by
//! property tests (`reference.rs`, `tests.rs`).

use super::command::VectorInsn;
use super::regs::Shape;
use mxpsim_detector::event::Range;

/// Parameters of the engine that change results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    /// Number of 32-bit lanes (a power of two): wavefront width, for [`waves`].
    pub lanes: u32,
    /// Fractional bits of VMULFXP for byte, half and word calculations.
    pub fxp_frac_bits: [u32; 3],
}

/// The state a vector instruction reads and writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorState {
    /// The scratchpad's bytes.
    pub data: Vec<u8>,
    /// The flag shadow (one byte per scratchpad byte, as the vendor simulator keeps it, §3.4).
    pub flags: Vec<u8>,
    pub mask: Mask,
}

impl VectorState {
    pub fn new(scratchpad_size: u32) -> Self {
        VectorState {
            data: vec![0; scratchpad_size as usize],
            flags: vec![0; scratchpad_size as usize],
            mask: Mask::default(),
        }
    }
}

/// The mask (§3.9): one bit per element, its length, and the status word.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Mask {
    pub bits: Vec<bool>,
    /// The VL at the last unmasked set-up: masked instructions run over this many elements.
    pub len: u32,
    /// Mask status: bit 31 = stale (set by reading it), bits 30..0 non-zero = mask not empty.
    pub status: u32,
}

/// The scratchpad bytes an instruction reads and writes, one range per operand row.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub reads: Vec<Range>,
    pub writes: Vec<Range>,
}

/// Why an instruction cannot be executed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorError {
    /// A VCUSTOM opcode with no unit attached (only VCUSTOM0, the Q16.16 divider, and
    /// VCUSTOM1, the Q16.16 square root, exist).
    NoCustomUnit(u8),
    /// An accumulation lost bits above the 40-bit accumulator (the vendor simulator stops).
    AccumulatorOverflow { row: u32 },
}

/// The bytes `insn` reads and writes with `shape` (masked instructions: over `mask.len`
/// elements). Pure: the engine uses it for bounds checks, interlocks and events before the
/// instruction runs.
pub fn footprint(insn: &VectorInsn, shape: &Shape, mask: &Mask) -> Footprint {
    let _ = (insn, shape, mask);
    todo!("vector semantics: being implemented")
}

/// Wavefronts the instruction takes (its cycles in the pipeline, §3.11).
pub fn waves(insn: &VectorInsn, shape: &Shape, mask: &Mask, params: &Params) -> u64 {
    let _ = (insn, shape, mask, params);
    todo!("vector semantics: being implemented")
}

/// Executes `insn` on `state`. The caller has checked that [`footprint`] lies inside the
/// scratchpad.
pub fn execute(insn: &VectorInsn, shape: &Shape, state: &mut VectorState, params: &Params) -> Result<(), VectorError> {
    let _ = (insn, shape, state, params);
    todo!("vector semantics: being implemented")
}
