//! What one element of each instruction computes (§3.3, §3.5, §3.10): the result at the
//! calculation width and its flag, from the two source elements.

use super::fix16;
use super::int_type::{calculation_type, IntType};
use super::Params;
use crate::mxp::command::{Opcode, Size, SrcB, Test, VectorInsn};

/// An element's value in the calculation type, and its flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Elem {
    pub value: i64,
    pub flag: bool,
}

impl Elem {
    pub fn new(value: i64, flag: bool) -> Self {
        Elem { value, flag }
    }
}

/// The custom opcodes with a unit attached (§3.10).
const DIVIDER: u8 = 0;
const SQUARE_ROOT: u8 = 1;

pub(super) fn has_custom_unit(n: u8) -> bool {
    matches!(n, DIVIDER | SQUARE_ROOT)
}

/// What the element operations need to know about the instruction besides the operands.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ctx {
    pub calc: IntType,
    /// The sources' own signs before conversion to the calculation type: VMULHI's mixed-sign
    /// multiply zero-extends an unsigned source even in a signed operation.
    a_signed: bool,
    b_signed: bool,
    /// VMULFXP's fractional bits, chosen by the calculation width.
    frac_bits: u32,
}

impl Ctx {
    pub fn new(insn: &VectorInsn, params: &Params) -> Self {
        let calc = calculation_type(insn);
        let b_signed = match insn.src_b {
            SrcB::Vector(_) => insn.b.signed,
            // The enumeration is generated in the calculation type, so it has the operation's sign.
            SrcB::Enumerated => calc.signed,
        };
        let width_index = match calc.size {
            Size::Byte => 0,
            Size::Half => 1,
            Size::Word => 2,
        };
        Ctx { calc, a_signed: insn.a.signed, b_signed, frac_bits: params.fxp_frac_bits[width_index] }
    }
}

/// A loop over elements that needs an operation's element function: [`with_element_fn`]
/// hands it the function of one opcode, so that the loop is compiled once per opcode with
/// the element's work inlined (one dispatch per run of elements, not one per element).
pub(super) trait ElementLoop {
    type Output;
    fn run(self, f: impl Fn(Elem, Elem) -> Option<Elem>) -> Self::Output;
}

/// `$body` with `$holds` bound to the test `$test` of a conditional move or mask set-up on B
/// ([`predicate`]), one copy of `$body` per test: each is compiled with its test folded in
/// (a match on the test per element was a jump per element in the median filters' loops).
macro_rules! for_each_test {
    ($test:expr, $t:expr, |$holds:ident| $body:expr) => {
        match $test {
            Test::Lez => for_each_test!(@one Test::Lez, $t, $holds, $body),
            Test::Gtz => for_each_test!(@one Test::Gtz, $t, $holds, $body),
            Test::Ltz => for_each_test!(@one Test::Ltz, $t, $holds, $body),
            Test::Gez => for_each_test!(@one Test::Gez, $t, $holds, $body),
            Test::Z => for_each_test!(@one Test::Z, $t, $holds, $body),
            Test::Nz => for_each_test!(@one Test::Nz, $t, $holds, $body),
        }
    };
    (@one $test:expr, $t:expr, $holds:ident, $body:expr) => {{
        let t = $t;
        let $holds = move |b: Elem| predicate($test, t, b);
        $body
    }};
}

/// Runs `element_loop` with the function that gives the element `op` produces from `a` and
/// `b`, or `None` when it writes nothing (a conditional move whose predicate is false). A mask
/// set-up's element is its mask bit (0 or 1).
#[inline(always)]
pub(super) fn with_element_fn<L: ElementLoop>(op: Opcode, ctx: &Ctx, element_loop: L) -> L::Output {
    let ctx = *ctx;
    let t = ctx.calc;
    let l = element_loop;
    match op {
        Opcode::Vmov => l.run(|a, _| Some(a)),
        Opcode::Vand => l.run(|a, b| Some(Elem::new(a.value & b.value, a.flag & b.flag))),
        Opcode::Vor => l.run(|a, b| Some(Elem::new(a.value | b.value, a.flag | b.flag))),
        Opcode::Vxor => l.run(|a, b| Some(Elem::new(a.value ^ b.value, a.flag ^ b.flag))),
        Opcode::Vadd => l.run(move |a, b| Some(wrapping(t, a.value + b.value))),
        Opcode::Vsub => l.run(move |a, b| Some(wrapping(t, a.value - b.value))),
        // B supplies only its carry/borrow flag (§3.3).
        Opcode::Vaddc => l.run(move |a, b| Some(wrapping(t, a.value + i64::from(b.flag)))),
        Opcode::Vsubb => l.run(move |a, b| Some(subtract_borrow(t, a.value, b.flag))),
        Opcode::Vmul => l.run(move |a, b| Some(multiply_low(t, a.value, b.value))),
        Opcode::Vmulhi => l.run(move |a, b| Some(multiply_high(&ctx, a.value, b.value))),
        Opcode::Vmulfxp => l.run(move |a, b| Some(multiply_fixed_point(t, ctx.frac_bits, a.value, b.value))),
        Opcode::Vaddfxp => l.run(move |a, b| Some(saturating(t, i128::from(a.value + b.value)))),
        Opcode::Vsubfxp => l.run(move |a, b| Some(saturating(t, i128::from(a.value - b.value)))),
        Opcode::Vshl => l.run(move |a, b| Some(shift_left(t, a.value, b.value))),
        Opcode::Vshr => l.run(move |a, b| Some(shift_right(t, a.value, b.value))),
        Opcode::Vslt => l.run(|a, b| Some(Elem::new((a.value < b.value).into(), false))),
        Opcode::Vsgt => l.run(|a, b| Some(Elem::new((a.value > b.value).into(), false))),
        Opcode::Vabsdiff => l.run(move |a, b| Some(Elem::new(t.wrap((a.value - b.value).abs()), false))),
        Opcode::Vcmv(test) => for_each_test!(test, t, |holds| l.run(move |a, b| holds(b).then_some(a))),
        Opcode::VsetMsk(test) => {
            for_each_test!(test, t, |holds| l.run(move |_, b| Some(Elem::new(holds(b).into(), false))))
        }
        // The units define no flags; they leave them clear.
        Opcode::Vcustom(DIVIDER) => {
            l.run(move |a, b| Some(Elem::new(t.wrap(fix16::div(b.value as i32, a.value as i32).into()), false)))
        }
        Opcode::Vcustom(SQUARE_ROOT) => {
            l.run(move |a, _| Some(Elem::new(t.wrap(fix16::sqrt(a.value as i32).into()), false)))
        }
        // Nothing is attached: nothing is written (execution refuses these before this point).
        Opcode::Vcustom(_) => l.run(|_, _| None),
    }
}

/// The element `op` produces from `a` and `b` ([`with_element_fn`]'s function, for one element).
#[cfg(test)]
pub(super) fn compute(op: Opcode, ctx: &Ctx, a: Elem, b: Elem) -> Option<Elem> {
    struct One(Elem, Elem);
    impl ElementLoop for One {
        type Output = Option<Elem>;
        fn run(self, f: impl Fn(Elem, Elem) -> Option<Elem>) -> Option<Elem> {
            f(self.0, self.1)
        }
    }
    with_element_fn(op, ctx, One(a, b))
}

/// How a result reaches a narrower destination: VMULFXP, VADDFXP and VSUBFXP saturate to its
/// range instead of truncating (§3.6); every other result is truncated by the store. Decided
/// once per instruction.
#[derive(Clone, Copy, Debug)]
pub(super) struct Narrowing {
    /// The destination type results saturate to, if they do.
    saturate_to: Option<IntType>,
}

impl Narrowing {
    pub fn new(op: Opcode, calc: IntType, dest: IntType) -> Self {
        let saturates = matches!(op, Opcode::Vmulfxp | Opcode::Vaddfxp | Opcode::Vsubfxp);
        Narrowing { saturate_to: (saturates && calc.size > dest.size).then_some(dest) }
    }

    /// The value stored for the result `value`.
    #[inline(always)]
    pub fn apply(self, value: i64) -> i64 {
        match self.saturate_to {
            Some(dest) => dest.saturate(value.into()).0,
            None => value,
        }
    }
}

/// `exact` reduced to the calculation width; the flag says it did not fit, which is the signed
/// overflow and the unsigned carry/borrow rule of VADD, VSUB, VADDC and (signed) VSUBB.
fn wrapping(t: IntType, exact: i64) -> Elem {
    let value = t.wrap(exact);
    Elem::new(value, value != exact)
}

/// VSUBB: a − fb. The vendor simulator's unsigned flag is "a > result", which is set when a
/// borrow was consumed without wrapping and clear when it wrapped (a probed quirk).
fn subtract_borrow(t: IntType, a: i64, borrow: bool) -> Elem {
    let difference = wrapping(t, a - i64::from(borrow));
    if t.signed {
        difference
    } else {
        Elem::new(difference.value, a > difference.value)
    }
}

fn multiply_low(t: IntType, a: i64, b: i64) -> Elem {
    // Low 64 bits of the product: all the calculation width keeps.
    let value = t.wrap(a.wrapping_mul(b));
    let flag = if t.signed {
        // The sign of the result against the sign the product should have: misses
        // sign-preserving overflows and flags 0 × negative (probed quirks).
        (value < 0) != ((a < 0) != (b < 0))
    } else {
        a != 0 && b > t.max() / a
    };
    Elem::new(value, flag)
}

/// VMULHI: the high half of the double-width product; flag = the rounding bit below it.
fn multiply_high(ctx: &Ctx, a: i64, b: i64) -> Elem {
    let t = ctx.calc;
    // In a signed operation an unsigned source is zero-extended (mixed-sign multiply).
    let operand = |value: i64, signed: bool| if signed { value } else { t.unsigned().wrap(value) };
    let product = i128::from(operand(a, ctx.a_signed)) * i128::from(operand(b, ctx.b_signed));
    let value = t.wrap((product >> t.bits()) as i64);
    Elem::new(value, (product >> (t.bits() - 1)) & 1 != 0)
}

/// VMULFXP: (a × b + ½) >> F, saturated to the calculation type (flag = saturated).
fn multiply_fixed_point(t: IntType, frac_bits: u32, a: i64, b: i64) -> Elem {
    // |a × b| < 2^64, so with 65 or more fractional bits every rounded product is 0: capping
    // F there gives the same results and keeps the shifts inside i128.
    let f = frac_bits.min(65);
    let half = if f == 0 { 0 } else { 1i128 << (f - 1) };
    saturating(t, (i128::from(a) * i128::from(b) + half) >> f)
}

fn saturating(t: IntType, exact: i128) -> Elem {
    let (value, saturated) = t.saturate(exact);
    Elem::new(value, saturated)
}

/// The shift amount the vendor simulator uses: the x86 host masks every 32-bit shift count to
/// 5 bits (§3.3), so word shifts by 32 or more wrap around, while byte and half values,
/// promoted to 32 bits, lose their bits normally for amounts 8–31.
fn shift_amount(b: i64) -> u32 {
    (b & 31) as u32
}

/// `value` (at most 32 bits) shifted right as a 32-bit integer: arithmetically if signed.
fn shift_right_32(t: IntType, value: i64, amount: u32) -> i64 {
    if t.signed {
        ((value as i32) >> amount).into()
    } else {
        ((value as u32) >> amount).into()
    }
}

/// VSHL: a << b; flag = shifting the truncated result back does not restore a (bits lost).
fn shift_left(t: IntType, a: i64, b: i64) -> Elem {
    let amount = shift_amount(b);
    let value = t.wrap(((a as u32) << amount).into());
    Elem::new(value, shift_right_32(t, value, amount) != a)
}

/// VSHR: a >> b (arithmetic in a signed operation); flag = the rounding bit, bit b − 1 of a
/// (of its 32-bit promotion, with the host's count masking), for b > 0.
fn shift_right(t: IntType, a: i64, b: i64) -> Elem {
    let value = shift_right_32(t, a, shift_amount(b));
    let rounding_bit = b > 0 && (a as u32) >> shift_amount(b - 1) & 1 != 0;
    Elem::new(value, rounding_bit)
}

/// The test of a conditional move or mask set-up on B and its flag (§3.5).
#[inline(always)]
fn predicate(test: Test, t: IntType, b: Elem) -> bool {
    // "Less than zero": the flag (borrow or overflow of a preceding subtraction) corrects the
    // sign bit of a signed operation; an unsigned one has only the flag.
    let negative = b.flag ^ (t.signed && b.value < 0);
    let zero = b.value == 0;
    match test {
        Test::Ltz => negative,
        Test::Gez => !negative,
        Test::Lez => negative || zero,
        Test::Gtz => !(negative || zero),
        Test::Z => zero,
        Test::Nz => !zero,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const UBYTE: IntType = IntType { size: Size::Byte, signed: false };
    const SBYTE: IntType = IntType { size: Size::Byte, signed: true };
    const SHALF: IntType = IntType { size: Size::Half, signed: true };
    const UWORD: IntType = IntType { size: Size::Word, signed: false };
    const SWORD: IntType = IntType { size: Size::Word, signed: true };

    fn ctx(calc: IntType) -> Ctx {
        Ctx { calc, a_signed: calc.signed, b_signed: calc.signed, frac_bits: 4 }
    }

    fn run(op: Opcode, calc: IntType, a: i64, b: i64) -> (i64, bool) {
        run_with(op, &ctx(calc), Elem::new(a, false), Elem::new(b, false)).expect("written")
    }

    fn run_with(op: Opcode, ctx: &Ctx, a: Elem, b: Elem) -> Option<(i64, bool)> {
        compute(op, ctx, a, b).map(|e| (e.value, e.flag))
    }

    #[test]
    fn logic_combines_values_and_flags() {
        let (a, b) = (Elem::new(0b1100, true), Elem::new(0b1010, false));
        assert_eq!(run_with(Opcode::Vand, &ctx(UBYTE), a, b), Some((0b1000, false)));
        assert_eq!(run_with(Opcode::Vor, &ctx(UBYTE), a, b), Some((0b1110, true)));
        assert_eq!(run_with(Opcode::Vxor, &ctx(UBYTE), a, b), Some((0b0110, true)));
        assert_eq!(run_with(Opcode::Vmov, &ctx(UBYTE), a, b), Some((0b1100, true)));
    }

    #[test]
    fn add_and_subtract_flag_overflow_or_carry() {
        assert_eq!(run(Opcode::Vadd, SBYTE, 100, 100), (-56, true));
        assert_eq!(run(Opcode::Vadd, SBYTE, -100, 50), (-50, false));
        assert_eq!(run(Opcode::Vadd, UBYTE, 200, 100), (44, true));
        assert_eq!(run(Opcode::Vsub, SBYTE, -100, 100), (56, true));
        assert_eq!(run(Opcode::Vsub, UBYTE, 3, 5), (254, true));
        assert_eq!(run(Opcode::Vsub, UBYTE, 5, 3), (2, false));
    }

    #[test]
    fn carry_and_borrow_use_only_bs_flag() {
        let c = ctx(SBYTE);
        let with_flag = Elem::new(99, true);
        assert_eq!(run_with(Opcode::Vaddc, &c, Elem::new(127, false), with_flag), Some((-128, true)));
        assert_eq!(run_with(Opcode::Vaddc, &c, Elem::new(5, false), Elem::new(99, false)), Some((5, false)));
        assert_eq!(run_with(Opcode::Vsubb, &c, Elem::new(-128, false), with_flag), Some((127, true)));
        assert_eq!(run_with(Opcode::Vsubb, &c, Elem::new(5, false), with_flag), Some((4, false)));
    }

    #[test]
    fn unsigned_subtract_with_borrow_flag_quirk() {
        // Probed: the flag is "a > result": set for a consumed borrow, clear when it wraps.
        let c = ctx(UBYTE);
        let borrow = Elem::new(0, true);
        assert_eq!(run_with(Opcode::Vsubb, &c, Elem::new(5, false), borrow), Some((4, true)));
        assert_eq!(run_with(Opcode::Vsubb, &c, Elem::new(0, false), borrow), Some((255, false)));
        assert_eq!(run_with(Opcode::Vsubb, &c, Elem::new(5, false), Elem::new(0, false)), Some((5, false)));
    }

    #[test]
    fn multiply_low_flags() {
        // Probed: signed flag compares signs, so 0 × negative sets it.
        assert_eq!(run(Opcode::Vmul, SBYTE, 0, -3), (0, true));
        assert_eq!(run(Opcode::Vmul, SBYTE, -3, 5), (-15, false));
        assert_eq!(run(Opcode::Vmul, SBYTE, 100, 2), (-56, true));
        // A sign-preserving overflow is missed: 16 × 16 = 256 → 0.
        assert_eq!(run(Opcode::Vmul, SBYTE, 16, 16), (0, false));
        assert_eq!(run(Opcode::Vmul, UBYTE, 16, 16), (0, true));
        assert_eq!(run(Opcode::Vmul, UBYTE, 15, 17), (255, false));
        assert_eq!(run(Opcode::Vmul, UWORD, 0xffff_ffff, 0xffff_ffff), (1, true));
    }

    #[test]
    fn multiply_high_is_the_upper_half_and_mixes_signs() {
        assert_eq!(run(Opcode::Vmulhi, UWORD, 0xffff_ffff, 0xffff_ffff), (0xffff_fffe, false));
        assert_eq!(run(Opcode::Vmulhi, SWORD, -1, 1), (-1, true));
        assert_eq!(run(Opcode::Vmulhi, SHALF, 0x4000, 4), (1, false));
        assert_eq!(run(Opcode::Vmulhi, SHALF, 0x4000, 2), (0, true)); // rounding bit 15

        // Signed operation, A unsigned: A's all-ones pattern is 65535, not −1.
        let mixed = Ctx { a_signed: false, ..ctx(SHALF) };
        assert_eq!(run_with(Opcode::Vmulhi, &mixed, Elem::new(-1, false), Elem::new(2, false)), Some((1, true)));
        assert_eq!(run(Opcode::Vmulhi, SHALF, -1, 2), (-1, true));
    }

    #[test]
    fn fixed_point_multiply_rounds_and_saturates() {
        let q4 = ctx(SBYTE); // 4 fractional bits
        let mul = |a, b| run_with(Opcode::Vmulfxp, &q4, Elem::new(a, false), Elem::new(b, false)).unwrap();
        assert_eq!(mul(24, 40), (60, false)); // 1.5 × 2.5 = 3.75
        assert_eq!(mul(1, 8), (1, false)); // 1/16 × 1/2 = 1/32 rounds up to 1/16
        assert_eq!(mul(-1, 8), (0, false)); // −1/32 rounds up to 0
        assert_eq!(mul(127, 127), (127, true));
        assert_eq!(mul(-128, 127), (-128, true));
        let unsigned = Ctx { frac_bits: 4, ..ctx(UBYTE) };
        let umul = |a, b| run_with(Opcode::Vmulfxp, &unsigned, Elem::new(a, false), Elem::new(b, false)).unwrap();
        assert_eq!(umul(255, 16), (255, false));
        assert_eq!(umul(255, 17), (255, true));
        let integer = Ctx { frac_bits: 0, ..ctx(SBYTE) };
        assert_eq!(run_with(Opcode::Vmulfxp, &integer, Elem::new(3, false), Elem::new(-5, false)), Some((-15, false)));
        let absurd = Ctx { frac_bits: u32::MAX, ..ctx(UWORD) };
        let big = Elem::new(u32::MAX.into(), false);
        assert_eq!(run_with(Opcode::Vmulfxp, &absurd, big, big), Some((0, false)));
    }

    #[test]
    fn fixed_point_add_and_subtract_saturate() {
        assert_eq!(run(Opcode::Vaddfxp, SBYTE, 100, 100), (127, true));
        assert_eq!(run(Opcode::Vaddfxp, SBYTE, -100, -100), (-128, true));
        assert_eq!(run(Opcode::Vaddfxp, UBYTE, 200, 100), (255, true));
        assert_eq!(run(Opcode::Vsubfxp, UBYTE, 3, 5), (0, true));
        assert_eq!(run(Opcode::Vsubfxp, SBYTE, 3, 5), (-2, false));
    }

    #[test]
    fn narrowing_saturates_only_fixed_point_results() {
        let dest = SBYTE;
        let narrow = |op, calc, value| Narrowing::new(op, calc, dest).apply(value);
        assert_eq!(narrow(Opcode::Vaddfxp, SHALF, 300), 127);
        assert_eq!(narrow(Opcode::Vsubfxp, SHALF, -300), -128);
        assert_eq!(narrow(Opcode::Vmulfxp, SHALF, 5), 5);
        assert_eq!(narrow(Opcode::Vadd, SHALF, 300), 300); // the store truncates it
        assert_eq!(narrow(Opcode::Vaddfxp, SBYTE, 127), 127);
    }

    #[test]
    fn shifts_follow_the_hosts_count_masking() {
        // Probed: word 5 << 32 = 5 (flag 0) and 5 >> 33 = 2.
        assert_eq!(run(Opcode::Vshl, SWORD, 5, 32), (5, false));
        assert_eq!(run(Opcode::Vshr, SWORD, 5, 33), (2, true));
        // Byte and half values are promoted: amounts 8–31 shift everything out.
        assert_eq!(run(Opcode::Vshl, UBYTE, 1, 8), (0, true));
        assert_eq!(run(Opcode::Vshr, UBYTE, 0x80, 8), (0, true));
        assert_eq!(run(Opcode::Vshr, SBYTE, -128, 20), (-1, true));
        assert_eq!(run(Opcode::Vshl, UBYTE, 1, 40), (0, true)); // 40 & 31 = 8
        assert_eq!(run(Opcode::Vshl, UBYTE, 0x40, 1), (0x80, false));
        assert_eq!(run(Opcode::Vshl, SBYTE, 0x40, 1), (-128, true)); // the sign changed
        assert_eq!(run(Opcode::Vshl, SBYTE, -1, 7), (-128, false));
        assert_eq!(run(Opcode::Vshr, SBYTE, -8, 2), (-2, false));
        assert_eq!(run(Opcode::Vshr, UBYTE, 0xf8, 2), (0x3e, false));
        assert_eq!(run(Opcode::Vshr, UBYTE, 6, 2), (1, true));
        assert_eq!(run(Opcode::Vshr, UBYTE, 7, 0), (7, false));
        assert_eq!(run(Opcode::Vshr, SBYTE, 7, -1), (0, false)); // −1 & 31 = 31; no rounding bit for b ≤ 0
    }

    #[test]
    fn comparisons_and_absolute_difference() {
        assert_eq!(run(Opcode::Vslt, SBYTE, -1, 1), (1, false));
        assert_eq!(run(Opcode::Vslt, UBYTE, 255, 1), (0, false));
        assert_eq!(run(Opcode::Vsgt, UBYTE, 255, 1), (1, false));
        assert_eq!(run(Opcode::Vabsdiff, UBYTE, 3, 250), (247, false));
        assert_eq!(run(Opcode::Vabsdiff, SBYTE, 127, -128), (-1, false)); // 255 wraps
    }

    #[test]
    fn predicates_follow_the_flag_corrected_sign() {
        use Test::*;
        let holds = |test, t: IntType, value, flag| predicate(test, t, Elem::new(value, flag));
        let tests = [Ltz, Gez, Lez, Gtz, Z, Nz];
        let table = |t, value, flag| tests.map(|test| holds(test, t, value, flag));
        assert_eq!(table(SBYTE, -3, false), [true, false, true, false, false, true]);
        assert_eq!(table(SBYTE, -3, true), [false, true, false, true, false, true]);
        assert_eq!(table(SBYTE, 0, false), [false, true, true, false, true, false]);
        assert_eq!(table(SBYTE, 5, false), [false, true, false, true, false, true]);
        assert_eq!(table(UBYTE, 200, false), [false, true, false, true, false, true]);
        assert_eq!(table(UBYTE, 200, true), [true, false, true, false, false, true]);
        assert_eq!(table(UBYTE, 0, true), [true, false, true, false, true, false]);
    }

    #[test]
    fn conditional_move_writes_a_only_when_the_test_holds() {
        let c = ctx(SBYTE);
        let a = Elem::new(9, true);
        assert_eq!(run_with(Opcode::Vcmv(Test::Ltz), &c, a, Elem::new(-1, false)), Some((9, true)));
        assert_eq!(run_with(Opcode::Vcmv(Test::Ltz), &c, a, Elem::new(1, false)), None);
        assert_eq!(run_with(Opcode::VsetMsk(Test::Nz), &c, a, Elem::new(1, false)), Some((1, false)));
        assert_eq!(run_with(Opcode::VsetMsk(Test::Nz), &c, a, Elem::new(0, false)), Some((0, false)));
    }

    #[test]
    fn custom_units() {
        let c = ctx(SWORD);
        let one = 1 << 16;
        let divide = |b, a| run_with(Opcode::Vcustom(0), &c, Elem::new(a, false), Elem::new(b, false));
        assert_eq!(divide(3 * one, 2 * one), Some((3 * one / 2, false)));
        assert_eq!(divide(one, 0), Some((i32::MIN.into(), false)));
        let root = run_with(Opcode::Vcustom(1), &c, Elem::new(4 * one, false), Elem::new(7, false));
        assert_eq!(root, Some((2 * one, false)));
        // An unsigned word operand is the same 32-bit pattern.
        let u = ctx(UWORD);
        let negative_four = Elem::new((-4 * one) & 0xffff_ffff, false);
        let root = run_with(Opcode::Vcustom(1), &u, negative_four, negative_four);
        assert_eq!(root, Some((UWORD.wrap(-2 * one), false)));
        assert_eq!(run_with(Opcode::Vcustom(2), &c, negative_four, negative_four), None);
        assert!(has_custom_unit(0) && has_custom_unit(1) && !has_custom_unit(2) && !has_custom_unit(15));
    }
}
