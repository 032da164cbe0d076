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
//!   clear; unattached VCUSTOMn (n ≥ 2) are refused before anything changes. The square root
//!   (VCUSTOM1) reads only A.
//! * Operand addresses wrap at the scratchpad's end, as the vendor simulator reduces them modulo
//!   its size and the hardware decodes only the low bits (§3.1 item 7); a machine with
//!   `strict_bounds` refuses an operand row that leaves the scratchpad instead.
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
use super::row_set::{Bitmap, LISTED_ROWS};
use crate::stop::StopRequest;
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
    /// The [`StopRequest`] was set: the instruction stopped between two rows.
    Stopped,
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

/// The bytes `insn` touches with `shape` in a scratchpad of `size` bytes (a power of two):
/// [`footprint`]'s rows, wrapped at the scratchpad's end (a row that crosses it is two ranges)
/// or, when `strict`, refused if one leaves the scratchpad.
///
/// With more than [`LISTED_ROWS`] rows each operand's rows are checked from the extremes of
/// their strides and given as their union (sorted ranges), in time and memory bounded by the
/// scratchpad's size whatever ROWS × MATS is.
pub fn bounded_footprint(
    insn: &VectorInsn,
    shape: &Shape,
    mask: &Mask,
    size: u32,
    strict: bool,
) -> Result<Footprint, String> {
    if u64::from(shape.rows) * u64::from(shape.mats) <= LISTED_ROWS {
        let footprint = footprint(insn, shape, mask);
        let outside = footprint.reads.iter().chain(&footprint.writes).find(|r| r.end() > size.into());
        return match outside {
            Some(bad) if strict => Err(format!(
                "vector operand row {:#x}..{:#x} (scratchpad offsets) is outside the {size:#x}-byte scratchpad \
                 (strict bounds)",
                bad.start,
                bad.end()
            )),
            Some(_) => Ok(footprint.wrapped(size)),
            None => Ok(footprint),
        };
    }
    let len = layout::row_len(insn, shape, mask);
    let written = if insn.acc { 1 } else { len };
    let operand = |base: u32, elements: u32, size_of: Size, strides: [(i32, u32); 2]| {
        let (_, bytes) = layout::span(base, elements, size_of);
        strided_union(base, bytes, strides, size, strict)
    };
    let mut footprint = Footprint::default();
    if let (true, SrcA::Vector(base)) = (layout::reads_a(insn.op), insn.src_a) {
        footprint.reads = operand(base, len, insn.a.size, [(shape.ia, shape.rows), (shape.ia3, shape.mats)])?;
    }
    footprint.a_reads = footprint.reads.len() as u32;
    if let (true, SrcB::Vector(base)) = (layout::reads_b(insn.op), insn.src_b) {
        footprint.reads.extend(operand(base, len, insn.b.size, [(shape.ib, shape.rows), (shape.ib3, shape.mats)])?);
    }
    if layout::writes_scratchpad(insn.op) {
        footprint.writes = operand(insn.dest, written, insn.d.size, [(shape.id, shape.rows), (shape.id3, shape.mats)])?;
    }
    Ok(footprint)
}

/// The union of the rows `[base + r·s1 + m·s2, … + bytes)` for `r < n1`, `m < n2`, wrapped at
/// the scratchpad's end; when `strict`, only if every row lies in `0..size` (addresses
/// wrapping at 2^32, as [`layout::rows`] computes them).
///
/// Every row lies inside exactly when the corner rows do and, along a dimension with more
/// than one row, the stride is shorter than the room the rows have: a longer stride puts
/// one of two neighbouring rows outside, and a shorter one cannot jump out and back in
/// (`size` ≤ 2^24 is far below the 2^32 wrap).
fn strided_union(
    base: u32,
    bytes: u32,
    strides: [(i32, u32); 2],
    size: u32,
    strict: bool,
) -> Result<Vec<Range>, String> {
    if bytes == 0 {
        return Ok(Vec::new());
    }
    if !strict {
        return Ok(rows_union(base, bytes, strides, size));
    }
    let room = i128::from(size) - i128::from(bytes) + 1;
    let reach = |(stride, n): (i32, u32)| i128::from(stride) * i128::from(n.saturating_sub(1));
    let mut corners =
        [0, reach(strides[0])].into_iter().flat_map(|a| [0, reach(strides[1])].map(move |b| i128::from(base) + a + b));
    let strides_fit = strides.iter().all(|&(stride, n)| n <= 1 || i128::from(stride).abs() < room);
    let inside = room > 0 && strides_fit && corners.all(|c| (0..room).contains(&c));
    if !inside {
        let [(s1, n1), (s2, n2)] = strides;
        return Err(format!(
            "vector operand rows of {bytes} bytes from scratchpad offset {base:#x} ({n1} rows {s1:+} bytes apart, \
             {n2} matrices {s2:+} bytes apart) leave the {size:#x}-byte scratchpad (strict bounds)"
        ));
    }
    Ok(rows_union(base, bytes, strides, size))
}

/// The bytes of the rows `[base + r·s1 + m·s2, … + bytes)`, all taken modulo `size`.
fn rows_union(base: u32, bytes: u32, strides: [(i32, u32); 2], size: u32) -> Vec<Range> {
    let starts =
        strides.iter().fold(Bitmap::single(size, base % size), |set, &(stride, n)| set.repeat(stride.into(), n.into()));
    starts.repeat(1, bytes.into()).ranges()
}

impl Footprint {
    /// The same bytes with every range taken modulo `size` (a power of two): a range that
    /// crosses the end becomes two, one of `size` bytes or more the whole scratchpad.
    fn wrapped(&self, size: u32) -> Footprint {
        let wrap = |ranges: &[Range]| -> Vec<Range> {
            let mut out = Vec::new();
            for r in ranges {
                if u64::from(r.len) >= u64::from(size) {
                    out.push(Range::new(0, size));
                    continue;
                }
                let start = r.start % size;
                let first = r.len.min(size - start);
                out.push(Range::new(start, first));
                if first < r.len {
                    out.push(Range::new(0, r.len - first));
                }
            }
            out
        };
        let (a, b) = self.reads.split_at(self.a_reads as usize);
        let mut reads = wrap(a);
        let a_reads = reads.len() as u32;
        reads.extend(wrap(b));
        Footprint { reads, a_reads, writes: wrap(&self.writes) }
    }
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
/// scratchpad. `stop` is looked at between rows.
///
/// On an error nothing has changed, except after [`VectorError::AccumulatorOverflow`] and
/// [`VectorError::Stopped`]: the rows before have been written (the vendor simulator
/// aborts there).
pub fn execute(
    insn: &VectorInsn,
    shape: &Shape,
    state: &mut VectorState,
    params: &Params,
    stop: &StopRequest,
) -> Result<(), VectorError> {
    exec::execute(insn, shape, state, params, stop)
}
