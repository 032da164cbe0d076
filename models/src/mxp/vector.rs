//! The vector engine's arithmetic: what one vector instruction does to the scratchpad, its
//! flags and the mask (`mxp-spec.md` §3), and which bytes it touches.
//!
//! The engine ([`super::engine`]) decides *when* an instruction runs; this module decides
//! *what* it does. It is checked against an independent reference of the same semantics by
//! property tests (`reference.rs`, `tests.rs`).
//!
//! * `int_type`: operand, destination and calculation types.
//! * `alu`: what one element computes, and its flag.
//! * `layout`: rows, element addresses, wavefronts.
//! * `exec`: running the rows: operand fetch, stores, accumulator, mask set-up.
//! * `fix16`: the Q16.16 custom units.
//!
//! Choices where the specification leaves room:
//!
//! * Masks are one-dimensional: a masked instruction with several rows or matrices applies the
//!   same mask (element index within the row) to every row; a mask set-up with several rows
//!   evaluates them in order into the same bits (the last row decides; masked, each narrows).
//! * An accumulating instruction writes its row's element even when no element contributed
//!   (masked off, false predicates, or no elements at all): the sum is then 0.
//! * A mask set-up ignores MOD_ACC (the mask has no address to accumulate into).
//! * Custom units work on each element's value as a 32-bit Q16.16 number and leave their flags
//!   clear; unattached VCUSTOMn (n ≥ 2) are refused before anything changes.
//! * A zero lane count still makes one-element wavefronts.

mod alu;
#[cfg(test)]
mod examples;
mod exec;
mod fix16;
mod int_type;
mod layout;
#[cfg(test)]
mod properties;

use super::command::{Size, SrcA, SrcB, VectorInsn};
use super::regs::Shape;
use int_type::calculation_type;
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
    /// Operand A's rows, then B's.
    pub reads: Vec<Range>,
    /// How many of `reads` are A's.
    pub a_reads: u32,
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
///
/// Reads list A's rows, then B's (in execution order each; `a_reads` counts A's), writes
/// D's rows in execution order (operands the
/// instruction does not read are left out: B of VMOV, A of a mask set-up, scalars and the
/// enumeration) and D's range is written (one element with MOD_ACC; nothing for a mask
/// set-up). Empty ranges are left out.
pub fn footprint(insn: &VectorInsn, shape: &Shape, mask: &Mask) -> Footprint {
    let len = layout::row_len(insn, shape, mask);
    let written = if insn.acc { 1 } else { len };
    let mut footprint = Footprint::default();
    if layout::reads_a(insn.op) {
        for row in layout::rows(insn, shape) {
            if let SrcA::Vector(base) = row.a {
                add_span(&mut footprint.reads, base, len, insn.a.size);
            }
        }
    }
    footprint.a_reads = footprint.reads.len() as u32;
    if layout::reads_b(insn.op) {
        for row in layout::rows(insn, shape) {
            if let SrcB::Vector(base) = row.b {
                add_span(&mut footprint.reads, base, len, insn.b.size);
            }
        }
    }
    if layout::writes_scratchpad(insn.op) {
        for row in layout::rows(insn, shape) {
            add_span(&mut footprint.writes, row.d, written, insn.d.size);
        }
    }
    footprint
}

/// Adds the range of `elements` elements of `size` from `base`, unless it is empty.
fn add_span(ranges: &mut Vec<Range>, base: u32, elements: u32, size: Size) {
    let (start, bytes) = layout::span(base, elements, size);
    if bytes != 0 {
        ranges.push(Range::new(start, bytes));
    }
}

/// Wavefronts the instruction takes (its cycles in the pipeline, §3.11).
///
/// Every row takes the same number: a masked instruction skips wavefronts without an enabled
/// element, an unmasked one takes ceil(N / wavefront) of them.
pub fn waves(insn: &VectorInsn, shape: &Shape, mask: &Mask, params: &Params) -> u64 {
    let wave_len = layout::wave_len(calculation_type(insn), params.lanes);
    let len = layout::row_len(insn, shape, mask);
    let per_row = if insn.masked {
        // Bits past the end of `mask.bits` are clear, so only the stored ones can enable a wave.
        let bits = &mask.bits[..mask.bits.len().min(len as usize)];
        bits.chunks(wave_len as usize).filter(|wave| wave.contains(&true)).count() as u64
    } else {
        len.div_ceil(wave_len).into()
    };
    per_row.saturating_mul(shape.rows.into()).saturating_mul(shape.mats.into())
}

/// Executes `insn` on `state`. The caller has checked that [`footprint`] lies inside the
/// scratchpad.
///
/// On an error nothing has changed, except after [`VectorError::AccumulatorOverflow`]: the
/// rows before the failing one have been written (the vendor simulator aborts there).
pub fn execute(insn: &VectorInsn, shape: &Shape, state: &mut VectorState, params: &Params) -> Result<(), VectorError> {
    exec::execute(insn, shape, state, params)
}
