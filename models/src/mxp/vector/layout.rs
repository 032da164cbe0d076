//! Where an instruction's elements are: its rows (§1.3, §3.8), how many elements a row has,
//! which operands it reads and how the engine groups elements into wavefronts (§3.2).
//!
//! All address arithmetic wraps at 2^32: a row that runs off either end of the address space
//! gets a huge address, which the caller's bounds check rejects.

use super::int_type::IntType;
use super::Mask;
use crate::mxp::command::{Opcode, Size, SrcA, SrcB, VectorInsn};
use crate::mxp::regs::Shape;

/// One row's operand addresses. A scalar A stays the same in every row; the enumeration
/// restarts in every row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Row {
    /// Position in execution order (matrix-major), counting from 0; wraps for more than 2^32
    /// rows.
    pub index: u32,
    pub d: u32,
    pub a: SrcA,
    pub b: SrcB,
}

/// The rows of `insn` in execution order: matrices outermost, rows within a matrix inner.
pub(super) fn rows<'a>(insn: &'a VectorInsn, shape: &'a Shape) -> impl Iterator<Item = Row> + 'a {
    (0..shape.mats).flat_map(move |m| {
        (0..shape.rows).map(move |r| {
            let advance = |base: u32, row_inc: i32, mat_inc: i32| {
                base.wrapping_add(m.wrapping_mul(mat_inc as u32)).wrapping_add(r.wrapping_mul(row_inc as u32))
            };
            Row {
                index: m.wrapping_mul(shape.rows).wrapping_add(r),
                d: advance(insn.dest, shape.id, shape.id3),
                a: match insn.src_a {
                    SrcA::Vector(base) => SrcA::Vector(advance(base, shape.ia, shape.ia3)),
                    scalar @ SrcA::Scalar(_) => scalar,
                },
                b: match insn.src_b {
                    SrcB::Vector(base) => SrcB::Vector(advance(base, shape.ib, shape.ib3)),
                    SrcB::Enumerated => SrcB::Enumerated,
                },
            }
        })
    })
}

/// Elements per row: a masked instruction runs over the mask's length, not VL (§3.9).
pub(super) fn row_len(insn: &VectorInsn, shape: &Shape, mask: &Mask) -> u32 {
    if insn.masked {
        mask.len
    } else {
        shape.vl
    }
}

/// Whether element `i` of a row takes part: always, unless the instruction is masked and the
/// element's mask bit is clear (bits past the end of `mask.bits` are clear).
pub(super) fn enabled(insn: &VectorInsn, mask: &Mask, i: u32) -> bool {
    !insn.masked || mask.bits.get(i as usize).copied().unwrap_or(false)
}

/// Whether the instruction reads operand A: a mask set-up examines only B.
pub(super) fn reads_a(op: Opcode) -> bool {
    !matches!(op, Opcode::VsetMsk(_))
}

/// Whether the instruction reads operand B: VMOV and the square root (VCUSTOM1, one operand)
/// ignore it. (VADDC and VSUBB use only B's flag, but the hardware still reads the operand.)
pub(super) fn reads_b(op: Opcode) -> bool {
    !matches!(op, Opcode::Vmov | Opcode::Vcustom(SQUARE_ROOT))
}

/// VCUSTOM1: the Q16.16 square root.
const SQUARE_ROOT: u8 = 1;

/// Whether the instruction writes the scratchpad: a mask set-up writes only the mask.
pub(super) fn writes_scratchpad(op: Opcode) -> bool {
    !matches!(op, Opcode::VsetMsk(_))
}

/// Elements per wavefront: `lanes` 32-bit lanes hold 4 / c elements each, for a calculation
/// c bytes wide. Never 0, so that degenerate lane counts still make progress.
pub(super) fn wave_len(calc: IntType, lanes: u32) -> u32 {
    let elements = u64::from(lanes) * 4 / u64::from(calc.size.bytes());
    elements.clamp(1, u32::MAX.into()) as u32
}

/// The address of element `i` of a row starting at `base`.
pub(super) fn element_addr(base: u32, i: u32, size: Size) -> u32 {
    base.wrapping_add(i.wrapping_mul(size.bytes()))
}

/// The bytes of `elements` consecutive elements from `base`, as (start, length). A length that
/// does not fit in 32 bits saturates; no scratchpad is that large, so the bounds check still
/// rejects it.
pub(super) fn span(base: u32, elements: u32, size: Size) -> (u32, u32) {
    (base, elements.saturating_mul(size.bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mxp::command::Operand;

    fn insn(src_a: SrcA, src_b: SrcB, dest: u32) -> VectorInsn {
        let word = Operand { size: Size::Word, signed: true };
        VectorInsn { op: Opcode::Vadd, d: word, a: word, b: word, src_a, src_b, dest, masked: false, acc: false }
    }

    #[test]
    fn rows_walk_matrices_then_rows_and_keep_scalars() {
        let shape = Shape { vl: 4, rows: 2, mats: 2, id: 16, ia: -4, ib: 0, id3: 100, ia3: 1000, ib3: -8 };
        let i = insn(SrcA::Vector(0x100), SrcB::Vector(0x200), 0x300);
        let got: Vec<_> = rows(&i, &shape).map(|r| (r.index, r.d, r.a, r.b)).collect();
        assert_eq!(
            got,
            [
                (0, 0x300, SrcA::Vector(0x100), SrcB::Vector(0x200)),
                (1, 0x310, SrcA::Vector(0xfc), SrcB::Vector(0x200)),
                (2, 0x364, SrcA::Vector(0x4e8), SrcB::Vector(0x1f8)),
                (3, 0x374, SrcA::Vector(0x4e4), SrcB::Vector(0x1f8)),
            ]
        );
        let s = insn(SrcA::Scalar(7), SrcB::Enumerated, 0);
        assert!(rows(&s, &shape).all(|r| r.a == SrcA::Scalar(7) && r.b == SrcB::Enumerated));
    }

    #[test]
    fn addresses_wrap_instead_of_overflowing() {
        let shape = Shape { vl: 1, rows: 3, mats: 1, id: -8, ia: i32::MAX, ib: 0, id3: 0, ia3: 0, ib3: 0 };
        let i = insn(SrcA::Vector(u32::MAX), SrcB::Vector(0), 4);
        let got: Vec<_> = rows(&i, &shape).map(|r| (r.d, r.a)).collect();
        assert_eq!(
            got,
            [
                (4, SrcA::Vector(u32::MAX)),
                (0xffff_fffc, SrcA::Vector(0x7fff_fffe)),
                (0xffff_fff4, SrcA::Vector(0xffff_fffd))
            ]
        );
        assert_eq!(element_addr(u32::MAX, 2, Size::Half), 3);
        assert_eq!(span(8, u32::MAX, Size::Word), (8, u32::MAX));
        let huge = Shape { vl: 1, rows: u32::MAX, mats: u32::MAX, ..Shape::vector(1) };
        assert_eq!(rows(&i, &huge).nth(1).map(|r| r.index), Some(1));
    }

    #[test]
    fn wavefronts_hold_four_bytes_per_lane() {
        let calc = |size| IntType { size, signed: false };
        assert_eq!(wave_len(calc(Size::Byte), 4), 16);
        assert_eq!(wave_len(calc(Size::Half), 4), 8);
        assert_eq!(wave_len(calc(Size::Word), 4), 4);
        assert_eq!(wave_len(calc(Size::Word), 1), 1);
        assert_eq!(wave_len(calc(Size::Word), 0), 1);
        assert_eq!(wave_len(calc(Size::Byte), u32::MAX), u32::MAX);
    }

    #[test]
    fn masked_rows_use_the_mask_length_and_bits() {
        let mut i = insn(SrcA::Vector(0), SrcB::Vector(0), 0);
        let mask = Mask { bits: vec![true, false, true], len: 5, status: 1 };
        assert_eq!(row_len(&i, &Shape::vector(9), &mask), 9);
        assert!(enabled(&i, &mask, 1));
        i.masked = true;
        assert_eq!(row_len(&i, &Shape::vector(9), &mask), 5);
        assert_eq!((0..5).map(|e| enabled(&i, &mask, e)).collect::<Vec<_>>(), [true, false, true, false, false]);
    }
}
