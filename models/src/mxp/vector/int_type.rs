//! Fixed-width integer types: the type of an operand, of the destination and of the
//! calculation (§3.1).

use crate::mxp::command::{Operand, Size, SrcB, VectorInsn};

/// A two's-complement integer of 8, 16 or 32 bits, signed or unsigned. Values of the type are
/// held in an `i64`, which represents every one of them exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct IntType {
    pub size: Size,
    pub signed: bool,
}

impl From<Operand> for IntType {
    fn from(operand: Operand) -> Self {
        IntType { size: operand.size, signed: operand.signed }
    }
}

impl IntType {
    pub fn bits(self) -> u32 {
        self.size.bytes() * 8
    }

    pub fn min(self) -> i64 {
        if self.signed {
            -(1 << (self.bits() - 1))
        } else {
            0
        }
    }

    pub fn max(self) -> i64 {
        if self.signed {
            (1 << (self.bits() - 1)) - 1
        } else {
            (1 << self.bits()) - 1
        }
    }

    /// The low `bits()` bits of `x`, read as this type: what storing `x` in an element of this
    /// type and loading it back gives (truncation, then sign or zero extension).
    pub fn wrap(self, x: i64) -> i64 {
        let unused = 64 - self.bits();
        if self.signed {
            (x << unused) >> unused
        } else {
            ((x as u64) << unused >> unused) as i64
        }
    }

    /// `x` clamped to this type's range, and whether it had to be clamped.
    pub fn saturate(self, x: i128) -> (i64, bool) {
        let clamped = x.clamp(self.min().into(), self.max().into());
        (clamped as i64, clamped != x)
    }

    /// The same width, unsigned: how a bit pattern of this width reads as a magnitude.
    pub fn unsigned(self) -> IntType {
        IntType { signed: false, ..self }
    }
}

/// The type every element of `insn` is computed in (§3.1 item 1): the widest of D, A and a
/// vector B (the enumeration does not widen it), with the operation's (D's) sign.
pub(super) fn calculation_type(insn: &VectorInsn) -> IntType {
    let b_size = match insn.src_b {
        SrcB::Vector(_) => insn.b.size,
        SrcB::Enumerated => Size::Byte,
    };
    IntType { size: insn.d.size.max(insn.a.size).max(b_size), signed: insn.d.signed }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SBYTE: IntType = IntType { size: Size::Byte, signed: true };
    const UHALF: IntType = IntType { size: Size::Half, signed: false };
    const SWORD: IntType = IntType { size: Size::Word, signed: true };
    const UWORD: IntType = IntType { size: Size::Word, signed: false };

    #[test]
    fn ranges() {
        assert_eq!((SBYTE.min(), SBYTE.max()), (-128, 127));
        assert_eq!((UHALF.min(), UHALF.max()), (0, 0xffff));
        assert_eq!((SWORD.min(), SWORD.max()), (i32::MIN.into(), i32::MAX.into()));
        assert_eq!((UWORD.min(), UWORD.max()), (0, u32::MAX.into()));
    }

    #[test]
    fn wrap_truncates_then_extends_by_the_types_sign() {
        assert_eq!(SBYTE.wrap(200), -56);
        assert_eq!(SBYTE.wrap(-129), 127);
        assert_eq!(UHALF.wrap(-1), 0xffff);
        assert_eq!(UWORD.wrap(-56), 0xffff_ffc8);
        assert_eq!(SWORD.wrap(0xffff_ffff), -1);
        assert_eq!(SWORD.unsigned().wrap(-1), 0xffff_ffff);
    }

    #[test]
    fn saturate_reports_clamping() {
        assert_eq!(SBYTE.saturate(800), (127, true));
        assert_eq!(SBYTE.saturate(-448), (-128, true));
        assert_eq!(SBYTE.saturate(-128), (-128, false));
        assert_eq!(UHALF.saturate(-1), (0, true));
        assert_eq!(UWORD.saturate(1 << 40), (u32::MAX.into(), true));
    }
}
