//! Tests of the vector engine's arithmetic ([`super::vector`]) against the independent
//! reference ([`super::reference`]).
//!
//! * `reference_*`: hand-computed cases that check the reference itself against the spec
//!   (every **[probed]** example of `mxp-spec.md` §3 and a few cases per opcode).
//! * `prop_*`: property tests. Random instructions over every opcode, mode, size/sign
//!   combination, masked/accumulate variant and small 2-D/3-D shape, on a random 1 KiB
//!   scratchpad with random flags and mask; cases whose footprint leaves the scratchpad are
//!   skipped. They compare footprints (as byte sets), wavefront counts and the state after
//!   execution (data, flags, mask, error) exactly, except VCUSTOM0/1 data (±1 / ±256, the
//!   libfixmath benchmark's tolerances).
//!
//! Each property test runs 10 000 cases (the long-vector one 3 000) unless `PROPTEST_CASES`
//! is set; for a long run:
//!
//! ```text
//! PROPTEST_CASES=1000000 CARGO_TARGET_DIR=/tmp/target-reference cargo test --release -p mxpsim-models mxp::tests::prop_ -- --nocapture
//! ```
//!
//! With `--nocapture` each property test prints how many cases it checked and skipped.

use super::command::{Opcode, Operand, Size, SrcA, SrcB, Test, VectorInsn};
use super::reference::{self, fix16_div, fix16_sqrt};
use super::regs::Shape;
use super::vector::{self, Mask, Params, VectorError, VectorState};
use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, TestCaseError, TestError, TestRunner};
use std::collections::BTreeSet;

const SP: u32 = 1024;
const PARAMS: Params = Params { lanes: 4, fxp_frac_bits: [4, 15, 16] };

// ---------------------------------------------------------------------------------------------
// Helpers for hand-written cases.

/// An SDK mode name (`VVWBU`, `SVWBBSSS`, `SEH`, …): operand kinds, then 1–3 size letters
/// (D, A, B; one letter = all, two = D and A=B) and nothing (signed), `U`, or one S/U per
/// operand.
fn mode(name: &str) -> (bool, bool, Operand, Operand, Operand) {
    let b = name.as_bytes();
    let a_scalar = b[0] == b'S';
    let b_enum = b[1] == b'E';
    let rest = &name[2..];
    let sizes: Vec<Size> = rest
        .chars()
        .take_while(|c| "BHW".contains(*c))
        .map(|c| match c {
            'B' => Size::Byte,
            'H' => Size::Half,
            _ => Size::Word,
        })
        .collect();
    let signs: Vec<bool> = rest[sizes.len()..].chars().map(|c| c == 'S').collect();
    let (sd, sa, sb) = match sizes.len() {
        1 => (sizes[0], sizes[0], sizes[0]),
        2 => (sizes[0], sizes[1], sizes[1]),
        _ => (sizes[0], sizes[1], sizes[2]),
    };
    let (gd, ga, gb) = match signs.len() {
        0 => (true, true, true),
        1 => (signs[0], signs[0], signs[0]),
        _ => (signs[0], signs[1], signs[2]),
    };
    (
        a_scalar,
        b_enum,
        Operand { size: sd, signed: gd },
        Operand { size: sa, signed: ga },
        Operand { size: sb, signed: gb },
    )
}

/// `vbx(mode, op, dest, a, b)`: `a` is an address or a scalar, `b` ignored for VE/SE.
fn vbx(name: &str, op: Opcode, dest: u32, a: u32, b: u32) -> VectorInsn {
    let (a_scalar, b_enum, d, oa, ob) = mode(name);
    VectorInsn {
        op,
        d,
        a: oa,
        b: ob,
        src_a: if a_scalar { SrcA::Scalar(a) } else { SrcA::Vector(a) },
        src_b: if b_enum { SrcB::Enumerated } else { SrcB::Vector(b) },
        dest,
        masked: false,
        acc: false,
    }
}

fn acc(mut insn: VectorInsn) -> VectorInsn {
    insn.acc = true;
    insn
}

fn masked(mut insn: VectorInsn) -> VectorInsn {
    insn.masked = true;
    insn
}

fn state() -> VectorState {
    VectorState::new(SP)
}

fn put(st: &mut VectorState, addr: u32, size: u32, values: &[i64]) {
    for (i, &v) in values.iter().enumerate() {
        for k in 0..size {
            st.data[(addr + i as u32 * size + k) as usize] = (v >> (8 * k)) as u8;
        }
    }
}

fn get(st: &VectorState, addr: u32, size: u32, n: u32) -> Vec<u64> {
    (0..n).map(|i| (0..size).map(|k| (st.data[(addr + i * size + k) as usize] as u64) << (8 * k)).sum()).collect()
}

fn get_signed(st: &VectorState, addr: u32, size: u32, n: u32) -> Vec<i64> {
    get(st, addr, size, n).into_iter().map(|v| ((v << (64 - 8 * size)) as i64) >> (64 - 8 * size)).collect()
}

fn run(insn: VectorInsn, shape: Shape, st: &mut VectorState) -> Result<(), VectorError> {
    reference::execute(&insn, &shape, st, &PARAMS).map(|_| ())
}

fn run1(insn: VectorInsn, vl: u32, st: &mut VectorState) {
    run(insn, Shape::vector(vl), st).unwrap();
}

/// One element of `name op a, b` (vectors at 0x100 / 0x200, D at 0x300), with optional flags
/// on a and b; returns (D element as unsigned, its flag).
fn one(name: &str, op: Opcode, a: i64, b: i64, fa: bool, fb: bool) -> (u64, u8) {
    let insn = vbx(name, op, 0x300, 0x100, 0x200);
    let mut st = state();
    put(&mut st, 0x100, insn.a.size.bytes(), &[a]);
    put(&mut st, 0x200, insn.b.size.bytes(), &[b]);
    st.flags[0x100] = fa as u8;
    st.flags[0x200] = fb as u8;
    run1(insn, 1, &mut st);
    let d = insn.d.size.bytes();
    (get(&st, 0x300, d, 1)[0], st.flags[0x300])
}

fn iota(st: &mut VectorState, addr: u32, n: u32) {
    for i in 0..n {
        st.data[(addr + i) as usize] = i as u8;
    }
}

// ---------------------------------------------------------------------------------------------
// The reference against the spec: [probed] examples.

#[test]
fn reference_scalar_is_truncated_to_the_a_size() {
    // §3.1.3: SVWBBSSS with 0x1234 uses 0x34; SVWWBSSS uses 0x1234.
    let mut st = state();
    run1(vbx("SVWBBSSS", Opcode::Vadd, 0x300, 0x1234, 0x200), 2, &mut st);
    assert_eq!(get(&st, 0x300, 4, 2), [0x34, 0x34]);
    run1(vbx("SVWWBSSS", Opcode::Vadd, 0x300, 0x1234, 0x200), 2, &mut st);
    assert_eq!(get(&st, 0x300, 4, 2), [0x1234, 0x1234]);
    // … and extended by A's sign bit.
    run1(vbx("SVWBBSSS", Opcode::Vadd, 0x300, 0x12f4, 0x200), 1, &mut st);
    assert_eq!(get(&st, 0x300, 4, 1), [0xffff_fff4]);
    run1(vbx("SVWBBSUS", Opcode::Vadd, 0x300, 0x12f4, 0x200), 1, &mut st);
    assert_eq!(get(&st, 0x300, 4, 1), [0xf4]);
    // A scalar has flag 0 (VMOV copies fa).
    st.flags[0x300] = 1;
    run1(vbx("SVW", Opcode::Vmov, 0x300, 7, 0), 1, &mut st);
    assert_eq!((get(&st, 0x300, 4, 1)[0], st.flags[0x300]), (7, 0));
}

#[test]
fn reference_enumeration_wraps_at_the_calculation_width() {
    // §3.1.4: byte calculation wraps at 256 [probed]; word does not.
    let mut st = state();
    run1(vbx("SEBU", Opcode::Vadd, 0, 0, 0), 300, &mut st);
    assert_eq!(get(&st, 254, 1, 4), [254, 255, 0, 1]);
    assert_eq!(get(&st, 299, 1, 1), [43]);
    let mut st = VectorState::new(4096);
    run1(vbx("SEWU", Opcode::Vadd, 0, 0, 0), 258, &mut st);
    assert_eq!(get(&st, 255 * 4, 4, 3), [255, 256, 257]);
    // VE: the enumerated B does not widen the calculation (B's size is ignored): a byte
    // calculation even with a "word" B.
    let mut st = state();
    run1(vbx("SEBBWU", Opcode::Vadd, 0, 0, 0), 258, &mut st);
    assert_eq!(get(&st, 255, 1, 3), [255, 0, 1]);
}

#[test]
fn reference_in_place_forward_copy_sees_earlier_wavefronts() {
    // §3.2 [probed]: VMOV bytes to a+1 from a with 4 lanes (16-byte wavefronts).
    let mut st = state();
    iota(&mut st, 0, 64);
    run1(vbx("VVB", Opcode::Vmov, 1, 0, 0), 48, &mut st);
    let expect: Vec<u64> = [0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 15, 17, 18]
        .into_iter()
        .chain(19..=30)
        .chain([31, 31, 33])
        .collect();
    assert_eq!(get(&st, 0, 1, expect.len() as u32), expect);
    // One-element wavefronts (1 lane, words) smear the first element forward.
    let mut st = state();
    put(&mut st, 0, 4, &[10, 11, 12, 13, 14]);
    let params = Params { lanes: 1, ..PARAMS };
    reference::execute(&vbx("VVW", Opcode::Vmov, 4, 0, 0), &Shape::vector(4), &mut st, &params).unwrap();
    assert_eq!(get(&st, 0, 4, 5), [10, 10, 10, 10, 10]);
    // Copy backwards (D below A) is exact.
    let mut st = state();
    iota(&mut st, 0, 64);
    run1(vbx("VVB", Opcode::Vmov, 0, 1, 0), 40, &mut st);
    assert_eq!(get(&st, 0, 1, 41), (1..=40).chain([40]).collect::<Vec<u64>>());
}

#[test]
fn reference_vsubb_unsigned_flag_quirk() {
    // §3.3 [probed]: "a > result": 1 when a borrow was consumed without wrapping.
    assert_eq!(one("VVWU", Opcode::Vsubb, 5, 99, false, true), (4, 1));
    assert_eq!(one("VVWU", Opcode::Vsubb, 0, 99, false, true), (0xffff_ffff, 0));
    assert_eq!(one("VVWU", Opcode::Vsubb, 5, 99, false, false), (5, 0));
    // Signed: overflow as VSUB with fb as the subtrahend.
    assert_eq!(one("VVB", Opcode::Vsubb, -128, 0, false, true), (0x7f, 1));
    assert_eq!(one("VVB", Opcode::Vsubb, -127, 0, false, true), (0x80, 0));
}

#[test]
fn reference_vmul_signed_flag_quirk() {
    // §3.3 [probed]: 0 × negative sets the flag; a sign-preserving overflow is missed.
    assert_eq!(one("VVW", Opcode::Vmul, 0, -5, false, false), (0, 1));
    assert_eq!(one("VVW", Opcode::Vmul, 3, -5, false, false), (-15i64 as u32 as u64, 0));
    assert_eq!(one("VVB", Opcode::Vmul, 100, 2, false, false), (200, 1)); // 200 = −56
    assert_eq!(one("VVB", Opcode::Vmul, 16, 17, false, false), (16, 0)); // 272 → 16, missed
                                                                         // Unsigned: a ≠ 0 and b > max / a.
    assert_eq!(one("VVBU", Opcode::Vmul, 16, 15, false, false), (240, 0));
    assert_eq!(one("VVBU", Opcode::Vmul, 16, 16, false, false), (0, 1));
    assert_eq!(one("VVBU", Opcode::Vmul, 0, 255, false, false), (0, 0));
    // Widening: VVHB multiplies bytes into the full 16-bit product (§3.6).
    assert_eq!(one("VVHB", Opcode::Vmul, -100, 100, false, false), (-10000i64 as u16 as u64, 0));
}

#[test]
fn reference_shift_amounts_are_mod_32() {
    // §3.3 [probed]: word 5 << 32 = 5 (flag 0), 5 >> 33 = 2 (flag = bit 0 of 5).
    assert_eq!(one("VVW", Opcode::Vshl, 5, 32, false, false), (5, 0));
    assert_eq!(one("VVW", Opcode::Vshr, 5, 33, false, false), (2, 1));
    // Byte calculations shift a promoted value: amounts 8–31 shift everything out.
    assert_eq!(one("VVBU", Opcode::Vshl, 1, 8, false, false), (0, 1));
    assert_eq!(one("VVBU", Opcode::Vshr, 0x80, 8, false, false), (0, 1)); // bit 7 of a
    assert_eq!(one("VVB", Opcode::Vshr, -128, 9, false, false), (0xff, 1)); // arithmetic
    assert_eq!(one("VVBU", Opcode::Vshl, 1, 33, false, false), (2, 0)); // 33 & 31 = 1
    assert_eq!(one("VVBU", Opcode::Vshl, 0x81, 1, false, false), (2, 1)); // bit lost
    assert_eq!(one("VVB", Opcode::Vshl, -1, 1, false, false), (0xfe, 0)); // −2 >> 1 = −1
    assert_eq!(one("VVB", Opcode::Vshl, 0x40, 1, false, false), (0x80, 1)); // sign changes
    assert_eq!(one("VVB", Opcode::Vshl, -3, -1, false, false), (0, 1)); // amount 31
    assert_eq!(one("VVWU", Opcode::Vshr, 0xffff_fff0, 4, false, false), (0x0fff_ffff, 0));
    assert_eq!(one("VVW", Opcode::Vshr, 0xffff_fff8, 3, false, false), (0xffff_ffff, 0));
    assert_eq!(one("VVW", Opcode::Vshr, 0xffff_fff8, 4, false, false), (0xffff_ffff, 1));
    // VSHR's flag is "bit (b−1) of a when b > 0" on B's value: b = 32 shifts by 0 but its
    // flag is bit 31; a negative b (signed op) gives flag 0 whatever it shifts by.
    assert_eq!(one("VVWU", Opcode::Vshr, 0x8000_0001, 32, false, false), (0x8000_0001, 1));
    assert_eq!(one("VVWU", Opcode::Vshr, 0x8000_0001, 64, false, false), (0x8000_0001, 1));
    assert_eq!(one("VVWU", Opcode::Vshr, 0x0000_0001, 32, false, false), (1, 0));
    assert_eq!(one("VVB", Opcode::Vshr, 0x75, -95, false, false), (0x3a, 0)); // −95 mod 32 = 1
    assert_eq!(one("VVBU", Opcode::Vshr, 0x75, 0xa1, false, false), (0x3a, 1)); // 161: bit 0
    assert_eq!(one("VVBU", Opcode::Vshr, 0x75, 0xa0, false, false), (0x75, 0)); // 160: bit 31
}

#[test]
fn reference_flag_shadow_is_per_element_and_read_at_source_size() {
    // §3.4 [probed]: a write stores the flag as a D-sized 0/1 integer; a word read sees the OR
    // of its four byte flags.
    let mut st = state();
    put(&mut st, 0x100, 4, &[0x7fff_ffff]);
    put(&mut st, 0x200, 4, &[1]);
    st.flags[0x301..0x304].copy_from_slice(&[1, 1, 1]);
    run1(vbx("VVW", Opcode::Vadd, 0x300, 0x100, 0x200), 1, &mut st);
    assert_eq!(&st.flags[0x300..0x304], &[1, 0, 0, 0]);
    // A word read of flags [0, 0, 1, 0] sees a set flag.
    let mut st = state();
    st.flags[0x102] = 1;
    run1(vbx("VVW", Opcode::Vmov, 0x300, 0x100, 0), 1, &mut st);
    assert_eq!(&st.flags[0x300..0x304], &[1, 0, 0, 0]);
    // A byte read at 0x100 does not see it, a byte read at 0x102 does.
    run1(vbx("VVB", Opcode::Vmov, 0x310, 0x100, 0), 3, &mut st);
    assert_eq!(&st.flags[0x310..0x313], &[0, 0, 1]);
    // A half write clears the flag byte it covers above the first.
    let mut st = state();
    st.flags[0x300..0x302].copy_from_slice(&[1, 1]);
    run1(vbx("VVH", Opcode::Vmov, 0x300, 0x100, 0), 1, &mut st);
    assert_eq!(&st.flags[0x300..0x302], &[0, 0]);
}

#[test]
fn reference_accumulate_truncates_then_saturates() {
    // §3.7 [probed]: a byte product is truncated before accumulating: 8 × (100×2 → −56) =
    // −448, which a byte D saturates to −128 (flag 1).
    let mut st = state();
    put(&mut st, 0x100, 1, &[100; 8]);
    put(&mut st, 0x200, 1, &[2; 8]);
    run1(acc(vbx("VVB", Opcode::Vmul, 0x300, 0x100, 0x200)), 8, &mut st);
    assert_eq!((get_signed(&st, 0x300, 1, 1)[0], st.flags[0x300]), (-128, 1));
    // A word D widens the calculation: no truncation, 1600.
    run1(acc(vbx("VVWB", Opcode::Vmul, 0x300, 0x100, 0x200)), 8, &mut st);
    assert_eq!((get_signed(&st, 0x300, 4, 1)[0], st.flags[0x300]), (1600, 0));
    // §3.7 [probed]: 8 × 100 into a signed byte gives 127, flag 1.
    run1(acc(vbx("VVB", Opcode::Vmov, 0x300, 0x100, 0)), 8, &mut st);
    assert_eq!((get_signed(&st, 0x300, 1, 1)[0], st.flags[0x300]), (127, 1));
    run1(acc(vbx("VVB", Opcode::Vmov, 0x300, 0x100, 0)), 1, &mut st);
    assert_eq!((get_signed(&st, 0x300, 1, 1)[0], st.flags[0x300]), (100, 0));
    // Unsigned D: the sum of W-level results (bytes 100 → 8 × 100 = 800) saturates at 255.
    run1(acc(vbx("VVBU", Opcode::Vmov, 0x300, 0x100, 0)), 8, &mut st);
    assert_eq!((get(&st, 0x300, 1, 1)[0], st.flags[0x300]), (255, 1));
    // Only that one D element is written.
    let mut st = state();
    put(&mut st, 0x100, 2, &[1, 2, 3]);
    st.data[0x302] = 0xaa;
    run1(acc(vbx("VVH", Opcode::Vmov, 0x300, 0x100, 0)), 3, &mut st);
    assert_eq!(get(&st, 0x300, 1, 3), [6, 0, 0xaa]);
}

#[test]
fn reference_accumulate_counts_conditional_moves() {
    // §3.7: vbx_acc(SVH, VCMV_LTZ, d, 1, v) counts the negative elements.
    let mut st = state();
    put(&mut st, 0x200, 2, &[-1, 5, -7, 0, -32768, 32767]);
    run1(acc(vbx("SVH", Opcode::Vcmv(Test::Ltz), 0x300, 1, 0x200)), 6, &mut st);
    assert_eq!(get(&st, 0x300, 2, 1), [3]);
    // A flag set on B inverts LTZ for a signed op (F xor N).
    st.flags[0x200] = 1;
    run1(acc(vbx("SVH", Opcode::Vcmv(Test::Ltz), 0x300, 1, 0x200)), 6, &mut st);
    assert_eq!(get(&st, 0x300, 2, 1), [2]);
}

#[test]
fn reference_accumulator_overflow() {
    // 40-bit accumulator: 128 × (2^32 − 1) < 2^39 fits (and saturates an unsigned word).
    let mut st = state();
    run1(acc(vbx("SEWU", Opcode::Vmov, 0x300, 0xffff_ffff, 0)), 128, &mut st);
    assert_eq!((get(&st, 0x300, 4, 1)[0], st.flags[0x300]), (0xffff_ffff, 1));
    let mut st = state();
    let err = run(acc(vbx("SEWU", Opcode::Vmov, 0x300, 0xffff_ffff, 0)), Shape::vector(129), &mut st);
    assert_eq!(err, Err(VectorError::AccumulatorOverflow { row: 0 }));
    // Signed: 256 × −2^31 = −2^39 fits, 257 × does not.
    let mut st = state();
    run1(acc(vbx("SEW", Opcode::Vmov, 0x300, 0x8000_0000, 0)), 256, &mut st);
    assert_eq!((get_signed(&st, 0x300, 4, 1)[0], st.flags[0x300]), (i32::MIN as i64, 1));
    let err = run(acc(vbx("SEW", Opcode::Vmov, 0x300, 0x8000_0000, 0)), Shape::vector(257), &mut st);
    assert_eq!(err, Err(VectorError::AccumulatorOverflow { row: 0 }));
    // Masked: the mask length (200) decides, not VL: 0 + 1 + … + 199 in every row.
    let mut st = state();
    st.mask = Mask { bits: vec![true; 200], len: 200, status: 1 };
    let shape = Shape { vl: 1, rows: 2, mats: 2, id: 4, ia: 0, ib: 0, id3: 8, ia3: 0, ib3: 0 };
    run(masked(acc(vbx("SEWU", Opcode::Vadd, 0x300, 0, 0))), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 4, 4), [19900; 4]);
    // … and masked-off elements are not accumulated: 129 × max overflows, 128 enabled do not.
    st.mask = Mask { bits: (0..129).map(|i| i != 77).collect(), len: 129, status: 1 };
    run1(masked(acc(vbx("SEWU", Opcode::Vmov, 0x300, 0xffff_ffff, 0))), 1, &mut st);
    st.mask.bits[77] = true;
    let err = run(masked(acc(vbx("SEWU", Opcode::Vmov, 0x300, 0xffff_ffff, 0))), Shape::vector(1), &mut st);
    assert_eq!(err, Err(VectorError::AccumulatorOverflow { row: 0 }));
    // The row is counted over all rows of all matrices; earlier rows are written, later ones
    // not. Matrix 0 reads zeros, matrix 1 (A at 0x400) 129 maximal words.
    let mut st = VectorState::new(4096);
    put(&mut st, 0x400, 4, &[0xffff_ffff; 129]);
    put(&mut st, 0x300, 4, &[0x55; 4]);
    let shape = Shape { vl: 129, rows: 2, mats: 2, id: 4, ia: 0, ib: 0, id3: 8, ia3: 0x400, ib3: 0 };
    let err = run(acc(vbx("VEWU", Opcode::Vmov, 0x300, 0, 0)), shape, &mut st);
    assert_eq!(err, Err(VectorError::AccumulatorOverflow { row: 2 }));
    assert_eq!(get(&st, 0x300, 4, 4), [0, 0, 0x55, 0x55]);
}

#[test]
fn reference_2d_and_3d_probed_examples() {
    // §3.8 [probed] (4 lanes): VL=4, ROWS=3, (ID,IA,IB) = (4,8,0),
    // vbx_acc(VVWBU, VMUL, out, img, ones) → 6, 38, 70.
    let mut st = state();
    iota(&mut st, 0, 32);
    put(&mut st, 0x200, 1, &[1, 1, 1, 1]);
    let shape = Shape { vl: 4, rows: 3, mats: 1, id: 4, ia: 8, ib: 0, id3: 0, ia3: 0, ib3: 0 };
    run(acc(vbx("VVWBU", Opcode::Vmul, 0x300, 0, 0x200)), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 4, 3), [6, 38, 70]);
    // VL=2, ROWS=3, ID=−2, IA=2: VMOV to o+4 gives 4 5 2 3 0 1 in o[0..6].
    let mut st = state();
    iota(&mut st, 0x100, 6);
    let shape = Shape { vl: 2, rows: 3, mats: 1, id: -2, ia: 2, ib: 0, id3: 0, ia3: 0, ib3: 0 };
    run(vbx("VVB", Opcode::Vmov, 0x304, 0x100, 0), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 1, 6), [4, 5, 2, 3, 0, 1]);
    // 3D VE: VL=1, ROWS=2, MATS=2, (ID,IA)=(1,1), (ID3,IA3)=(2,4) writes A[0],A[1],A[4],A[5].
    let mut st = state();
    put(&mut st, 0x100, 1, &[10, 11, 12, 13, 14, 15]);
    let shape = Shape { vl: 1, rows: 2, mats: 2, id: 1, ia: 1, ib: 0, id3: 2, ia3: 4, ib3: 0 };
    run(vbx("VEB", Opcode::Vadd, 0x300, 0x100, 0), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 1, 4), [10, 11, 14, 15]);
    // The enumeration restarts on every row; a scalar A never advances.
    let mut st = state();
    let shape = Shape { vl: 3, rows: 2, mats: 2, id: 3, ia: 100, ib: 0, id3: 6, ia3: 100, ib3: 0 };
    run(vbx("SEB", Opcode::Vadd, 0x300, 10, 0), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 1, 12), [10, 11, 12, 10, 11, 12, 10, 11, 12, 10, 11, 12]);
    // Negative 3-D increments walk backwards.
    let mut st = state();
    put(&mut st, 0x100, 2, &[1, 2, 3, 4]);
    let shape = Shape { vl: 2, rows: 1, mats: 2, id: 0, ia: 0, ib: 0, id3: -4, ia3: 4, ib3: 0 };
    run(vbx("VVH", Opcode::Vmov, 0x304, 0x100, 0), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 2, 4), [3, 4, 1, 2]);
}

#[test]
fn reference_masked_runs_over_the_mask_length() {
    // §3.9 [probed]: a masked instruction runs over the mask length, not VL.
    let mut st = state();
    put(&mut st, 0x100, 1, &[1, 2, 3, 4, 5, 6]);
    st.mask = Mask { bits: vec![true, false, true, true, false], len: 5, status: 1 };
    let before = st.mask.clone();
    run1(masked(vbx("VVB", Opcode::Vmov, 0x300, 0x100, 0)), 2, &mut st);
    assert_eq!(get(&st, 0x300, 1, 6), [1, 0, 3, 4, 0, 0]);
    assert_eq!(st.mask, before);
    // Masked accumulate skips masked-off elements.
    run1(masked(acc(vbx("VVH", Opcode::Vmov, 0x310, 0x100, 0))), 2, &mut st);
    // Halves at 0x100: 0x0201, 0x0403, 0x0605, then zeros; bits 0, 2, 3.
    assert_eq!(get(&st, 0x310, 2, 1), [0x0201 + 0x0605]);
    // The mask applies per row by element index.
    let mut st = state();
    st.mask = Mask { bits: vec![false, true], len: 2, status: 1 };
    let shape = Shape { vl: 9, rows: 2, mats: 1, id: 2, ia: 0, ib: 0, id3: 0, ia3: 0, ib3: 0 };
    run(masked(vbx("SEB", Opcode::Vmov, 0x300, 9, 0)), shape, &mut st).unwrap();
    assert_eq!(get(&st, 0x300, 1, 5), [0, 9, 0, 9, 0]);
}

#[test]
fn reference_mask_setup() {
    // Unmasked set-up: len = VL, one bit per element, status non-zero iff any bit set.
    let mut st = state();
    put(&mut st, 0x200, 1, &[0, -3, 5, 0, 7]);
    st.mask.status = 0x8000_0000;
    let (data, flags) = (st.data.clone(), st.flags.clone());
    run1(vbx("VVB", Opcode::VsetMsk(Test::Nz), 0, 0x100, 0x200), 5, &mut st);
    assert_eq!(st.mask.len, 5);
    assert_eq!(st.mask.bits, [false, true, true, false, true]);
    assert_eq!(st.mask.status, 1);
    assert_eq!((&st.data, &st.flags), (&data, &flags)); // no scratchpad write
                                                        // Masked set-up: only elements whose bit is set are re-evaluated; len is kept.
    run1(masked(vbx("VVB", Opcode::VsetMsk(Test::Gtz), 0, 0x100, 0x200)), 1, &mut st);
    assert_eq!((st.mask.len, st.mask.bits.clone()), (5, vec![false, false, true, false, true]));
    // Element 0 is off, so a test that is true for it does not turn it on.
    run1(masked(vbx("VVB", Opcode::VsetMsk(Test::Z), 0, 0x100, 0x200)), 1, &mut st);
    assert_eq!(st.mask.bits, [false; 5]);
    assert_eq!(st.mask.status, 0);
    // Unsigned LTZ = flag set (FS).
    let mut st = state();
    st.flags[0x201] = 1;
    run1(vbx("VVBU", Opcode::VsetMsk(Test::Ltz), 0, 0x100, 0x200), 3, &mut st);
    assert_eq!(st.mask.bits, [false, true, false]);
    assert_eq!(st.mask.status, 1);
}

// ---------------------------------------------------------------------------------------------
// The reference against the spec: per opcode (§3.3, §3.5, §3.6, §3.10).

#[test]
fn reference_logic() {
    assert_eq!(one("VVB", Opcode::Vand, 0x3c, 0x0f, true, false), (0x0c, 0));
    assert_eq!(one("VVB", Opcode::Vand, 0x3c, 0x0f, true, true), (0x0c, 1));
    assert_eq!(one("VVB", Opcode::Vor, 0x30, 0x0f, true, false), (0x3f, 1));
    assert_eq!(one("VVB", Opcode::Vxor, 0x3c, 0x0f, true, true), (0x33, 0));
    assert_eq!(one("VVB", Opcode::Vxor, 0x3c, 0x0f, false, true), (0x33, 1));
    // Sign extension of a narrower source before the operation.
    assert_eq!(one("VVHBBUSU", Opcode::Vor, 0x80, 0x01, false, false), (0xff81, 0));
    assert_eq!(one("VVHBBUUU", Opcode::Vor, 0x80, 0x01, false, false), (0x81, 0));
    assert_eq!(one("VVB", Opcode::Vmov, 0x5a, 0, true, false), (0x5a, 1));
    // Narrowing truncates.
    assert_eq!(one("VVBH", Opcode::Vmov, 0x1234, 0, false, false), (0x34, 0));
}

#[test]
fn reference_add_sub() {
    assert_eq!(one("VVB", Opcode::Vadd, 100, 27, false, false), (127, 0));
    assert_eq!(one("VVB", Opcode::Vadd, 100, 28, false, false), (0x80, 1)); // overflow
    assert_eq!(one("VVB", Opcode::Vadd, -100, -29, false, false), (0x7f, 1));
    assert_eq!(one("VVB", Opcode::Vadd, -1, -1, false, false), (0xfe, 0));
    assert_eq!(one("VVBU", Opcode::Vadd, 200, 55, false, false), (255, 0));
    assert_eq!(one("VVBU", Opcode::Vadd, 200, 56, false, false), (0, 1)); // carry
    assert_eq!(one("VVB", Opcode::Vsub, 100, -28, false, false), (0x80, 1));
    assert_eq!(one("VVB", Opcode::Vsub, -100, 29, false, false), (0x7f, 1));
    assert_eq!(one("VVB", Opcode::Vsub, -100, 28, false, false), (0x80, 0));
    assert_eq!(one("VVBU", Opcode::Vsub, 3, 4, false, false), (0xff, 1)); // borrow
    assert_eq!(one("VVBU", Opcode::Vsub, 4, 4, false, false), (0, 0));
    // Unsigned operation on a signed-extended source: 0xff (−1 extended) at word = 0xffffffff.
    assert_eq!(one("VVWBBUSU", Opcode::Vadd, -1, 1, false, false), (0, 1));
    // VADDC / VSUBB: B's flag, not its value.
    assert_eq!(one("VVB", Opcode::Vaddc, 5, 100, false, true), (6, 0));
    assert_eq!(one("VVB", Opcode::Vaddc, 5, 100, false, false), (5, 0));
    assert_eq!(one("VVB", Opcode::Vaddc, 127, 0, false, true), (0x80, 1));
    assert_eq!(one("VVBU", Opcode::Vaddc, 255, 0, false, true), (0, 1));
    assert_eq!(one("VVBU", Opcode::Vaddc, 254, 0, false, true), (255, 0));
}

#[test]
fn reference_multiply_high_and_fixed_point() {
    // VMULHI: high half, flag = bit W−1 of the product.
    assert_eq!(one("VVBU", Opcode::Vmulhi, 200, 200, false, false), (156, 0)); // 40000 = 0x9c40
    assert_eq!(one("VVBU", Opcode::Vmulhi, 16, 8, false, false), (0, 1)); // 128 = 0x0080
    assert_eq!(one("VVB", Opcode::Vmulhi, -128, 127, false, false), (0xc0, 1)); // −16256 = 0xc080
    assert_eq!(one("VVB", Opcode::Vmulhi, 16, 4, false, false), (0, 0)); // 64 = 0x0040
                                                                         // Mixed signed operation: an unsigned word source stays unsigned.
    assert_eq!(one("VVWWWSUS", Opcode::Vmulhi, 0xffff_ffff, -1, false, false), (0xffff_ffff, 0)); // −(2^32−1)
    assert_eq!(one("VVWWWSSS", Opcode::Vmulhi, 0xffff_ffff, -1, false, false), (0, 0)); // (−1)(−1)
    assert_eq!(one("VVWU", Opcode::Vmulhi, 0xffff_ffff, 0xffff_ffff, false, false), (0xffff_fffe, 0));
    // VMULFXP with F = 4 (byte), 15 (half), 16 (word).
    assert_eq!(one("VVB", Opcode::Vmulfxp, 0x18, 0x28, false, false), (0x3c, 0)); // 1.5×2.5=3.75
    assert_eq!(one("VVB", Opcode::Vmulfxp, 0x01, 0x08, false, false), (0x01, 0)); // 0.5 rounds up
    assert_eq!(one("VVB", Opcode::Vmulfxp, -1, 0x08, false, false), (0x00, 0)); // −1/32 → 0
    assert_eq!(one("VVB", Opcode::Vmulfxp, 0x40, 0x40, false, false), (0x7f, 1)); // 16 → max
    assert_eq!(one("VVB", Opcode::Vmulfxp, 0x40, -0x40, false, false), (0x80, 1)); // −16 → min
    assert_eq!(one("VVBU", Opcode::Vmulfxp, 0xf0, 0x10, false, false), (0xf0, 0));
    assert_eq!(one("VVBU", Opcode::Vmulfxp, 0xf0, 0x11, false, false), (0xff, 0)); // 15.94 fits
    assert_eq!(one("VVBU", Opcode::Vmulfxp, 0xf0, 0x12, false, false), (0xff, 1)); // 16.9 → max
    assert_eq!(one("VVH", Opcode::Vmulfxp, 0x4000, 0x4000, false, false), (0x2000, 0)); // .5×.5
    assert_eq!(one("VVW", Opcode::Vmulfxp, 3 << 16, -(1 << 15), false, false), (-(3i64 << 15) as u32 as u64, 0));
    // Narrowing saturates (the flag is that of the wide result).
    assert_eq!(one("VVBWW", Opcode::Vmulfxp, 2 << 16, 3 << 16, false, false), (0x7f, 0));
    assert_eq!(one("VVBWWUUU", Opcode::Vmulfxp, 2 << 16, 3 << 16, false, false), (0xff, 0));
    assert_eq!(one("VVBWW", Opcode::Vmulfxp, -2 << 16, 3 << 16, false, false), (0x80, 0));
    // VADDFXP / VSUBFXP.
    assert_eq!(one("VVB", Opcode::Vaddfxp, 100, 100, false, false), (0x7f, 1));
    assert_eq!(one("VVB", Opcode::Vaddfxp, -100, -100, false, false), (0x80, 1));
    assert_eq!(one("VVB", Opcode::Vaddfxp, 100, -100, false, false), (0, 0));
    assert_eq!(one("VVBU", Opcode::Vaddfxp, 200, 100, false, false), (0xff, 1));
    assert_eq!(one("VVBU", Opcode::Vsubfxp, 100, 200, false, false), (0, 1));
    assert_eq!(one("VVB", Opcode::Vsubfxp, -100, 100, false, false), (0x80, 1));
    assert_eq!(one("VVB", Opcode::Vsubfxp, 100, -100, false, false), (0x7f, 1));
    assert_eq!(one("VVBH", Opcode::Vaddfxp, 300, 1, false, false), (0x7f, 0));
    assert_eq!(one("VVBH", Opcode::Vaddfxp, -300, 1, false, false), (0x80, 0));
    assert_eq!(one("VVBHU", Opcode::Vsubfxp, 300, 1, false, false), (0xff, 0));
    assert_eq!(one("VVBH", Opcode::Vaddfxp, 100, 1, false, false), (101, 0));
}

#[test]
fn reference_compare_and_absdiff() {
    assert_eq!(one("VVB", Opcode::Vslt, -1, 1, true, true), (1, 0));
    assert_eq!(one("VVBU", Opcode::Vslt, -1, 1, true, true), (0, 0));
    assert_eq!(one("VVB", Opcode::Vsgt, -1, 1, false, false), (0, 0));
    assert_eq!(one("VVBU", Opcode::Vsgt, -1, 1, false, false), (1, 0));
    assert_eq!(one("VVB", Opcode::Vabsdiff, -100, 100, true, false), (200, 0));
    assert_eq!(one("VVBU", Opcode::Vabsdiff, 3, 250, false, false), (247, 0));
    assert_eq!(one("VVHB", Opcode::Vabsdiff, -100, 100, false, false), (200, 0));
    // VSLT / VSGT with a narrow D: 0/1 survives.
    assert_eq!(one("VVBW", Opcode::Vslt, 5, 0x7fff_ffff, false, false), (1, 0));
}

#[test]
fn reference_conditional_move_predicates() {
    use Test::*;
    // (test, b, fb, signed) → moved?
    let cases = [
        (Ltz, -1, false, true, true),
        (Ltz, -1, true, true, false), // F xor N
        (Ltz, 1, true, true, true),
        (Ltz, -1, false, false, false), // unsigned LTZ = F
        (Ltz, 1, true, false, true),
        (Gez, 0, false, true, true),
        (Gez, -5, false, true, false),
        (Gez, -5, true, false, false),
        (Lez, 0, false, true, true),
        (Lez, 3, false, true, false),
        (Lez, 3, true, false, true),
        (Lez, 0, false, false, true),
        (Gtz, 3, false, true, true),
        (Gtz, -3, true, true, true), // F xor N = 0, not zero
        (Gtz, 0, false, false, false),
        (Gtz, 200, false, false, true),
        (Z, 0, true, true, true),
        (Z, 1, false, true, false),
        (Nz, 1, false, false, true),
        (Nz, 0, true, true, false),
    ];
    for (test, b, fb, signed, moved) in cases {
        let name = if signed { "VVB" } else { "VVBU" };
        let insn = vbx(name, Opcode::Vcmv(test), 0x300, 0x100, 0x200);
        let mut st = state();
        put(&mut st, 0x100, 1, &[0x42]);
        st.flags[0x100] = 1;
        put(&mut st, 0x200, 1, &[b]);
        st.flags[0x200] = fb as u8;
        st.data[0x300] = 0x99;
        run1(insn, 1, &mut st);
        let expect = if moved { (0x42, 1) } else { (0x99, 0) };
        assert_eq!((st.data[0x300], st.flags[0x300]), expect, "{test:?} b={b} fb={fb} signed={signed}");
    }
    // N is the top bit at the calculation width: a byte 0x80 B in a half calculation is
    // positive (zero-extended unsigned source).
    assert_eq!(one("VVHHBSSU", Opcode::Vcmv(Ltz), 7, 0x80, false, false), (0, 0));
    assert_eq!(one("VVHHBSSS", Opcode::Vcmv(Ltz), 7, 0x80, false, false), (7, 0));
}

#[test]
fn reference_custom_units() {
    // libfixmath fix16_div / fix16_sqrt (Q16.16).
    assert_eq!(fix16_div(1 << 16, 3 << 16), 0x5555);
    assert_eq!(fix16_div(2 << 16, 3 << 16), 0xaaab);
    assert_eq!(fix16_div(-(2 << 16), 3 << 16), -0xaaab);
    assert_eq!(fix16_div(7 << 16, -(2 << 16)), -(7 << 15));
    assert_eq!(fix16_div(5, 0), i32::MIN);
    assert_eq!(fix16_div(0x4000_0000, 1 << 16), 0x4000_0000);
    assert_eq!(fix16_div(0x4000_0000, 1 << 15), i32::MIN); // 2^31: overflow
    assert_eq!(fix16_div(1, 1 << 17), 1); // 0.5 rounds up
    assert_eq!(fix16_sqrt(4 << 16), 2 << 16);
    assert_eq!(fix16_sqrt(2 << 16), 92682); // √2 × 65536 = 92681.9
    assert_eq!(fix16_sqrt(-(4 << 16)), -(2 << 16));
    assert_eq!(fix16_sqrt(0), 0);
    assert_eq!(fix16_sqrt(i32::MAX), 11_863_283);
    // VCUSTOM0: dest = fix16_div(B, A); VCUSTOM1: dest = fix16_sqrt(A).
    assert_eq!(one("VVW", Opcode::Vcustom(0), 3 << 16, 1 << 16, false, false), (0x5555, 0));
    assert_eq!(one("VVW", Opcode::Vcustom(1), 9 << 16, 0, true, true), (3 << 16, 0));
    // Other custom opcodes have no unit.
    let mut st = state();
    st.data[0x300] = 5;
    let before = st.clone();
    let err = run(vbx("VVW", Opcode::Vcustom(2), 0x300, 0x100, 0x200), Shape::vector(4), &mut st);
    assert_eq!(err, Err(VectorError::NoCustomUnit(2)));
    assert_eq!(st, before);
}

#[test]
fn reference_footprint_and_waves() {
    let bytes = |v: std::ops::Range<u64>| v.collect::<BTreeSet<u64>>();
    let mask = Mask::default();
    // VV word: A and B rows read, D rows written.
    let fp = reference::footprint(&vbx("VVW", Opcode::Vadd, 0x300, 0x100, 0x200), &Shape::vector(3), &mask);
    assert_eq!(fp.reads, bytes(0x100..0x10c).union(&bytes(0x200..0x20c)).copied().collect());
    assert_eq!(fp.writes, bytes(0x300..0x30c));
    // VMOV does not read B; SE reads nothing.
    let fp = reference::footprint(&vbx("VVBWH", Opcode::Vmov, 0x300, 0x100, 0x200), &Shape::vector(3), &mask);
    assert_eq!((fp.reads, fp.writes), (bytes(0x100..0x10c), bytes(0x300..0x303)));
    let fp = reference::footprint(&vbx("SEH", Opcode::Vsub, 0x300, 0x100, 0x200), &Shape::vector(3), &mask);
    assert_eq!((fp.reads, fp.writes), (bytes(0..0), bytes(0x300..0x306)));
    // Accumulate: one D element per row; 2-D rows.
    let shape = Shape { vl: 2, rows: 2, mats: 1, id: 8, ia: -4, ib: 0, id3: 0, ia3: 0, ib3: 0 };
    let fp = reference::footprint(&acc(vbx("VEH", Opcode::Vadd, 0x300, 0x100, 0)), &shape, &mask);
    assert_eq!(fp.reads, bytes(0xfc..0x104));
    assert_eq!(fp.writes, bytes(0x300..0x302).union(&bytes(0x308..0x30a)).copied().collect());
    // VSET_MSK writes nothing; masked instructions span the mask length.
    let fp = reference::footprint(&vbx("VVB", Opcode::VsetMsk(Test::Z), 0x300, 0x100, 0x200), &Shape::vector(3), &mask);
    assert_eq!((fp.reads, fp.writes), (bytes(0x200..0x203), bytes(0..0))); // only B (§2.7)
    let m5 = Mask { bits: vec![true; 5], len: 5, status: 1 };
    let fp = reference::footprint(&masked(vbx("SVB", Opcode::Vadd, 0x300, 0x100, 0x200)), &Shape::vector(3), &m5);
    assert_eq!((fp.reads, fp.writes), (bytes(0x200..0x205), bytes(0x300..0x305)));

    // Waves: ceil(N / (lanes × 4 / c)) per row, × rows × mats.
    let w = |insn: VectorInsn, shape: Shape, mask: &Mask, lanes: u32| {
        reference::waves(&insn, &shape, mask, &Params { lanes, ..PARAMS })
    };
    assert_eq!(w(vbx("VVW", Opcode::Vadd, 0, 0, 0), Shape::vector(10), &mask, 4), 3);
    assert_eq!(w(vbx("VVB", Opcode::Vadd, 0, 0, 0), Shape::vector(10), &mask, 4), 1);
    assert_eq!(w(vbx("VVBBH", Opcode::Vadd, 0, 0, 0), Shape::vector(17), &mask, 1), 9);
    assert_eq!(w(vbx("VEBBW", Opcode::Vadd, 0, 0, 0), Shape::vector(17), &mask, 1), 5); // E: no widening
    assert_eq!(w(vbx("VVW", Opcode::Vadd, 0, 0, 0), Shape { rows: 3, mats: 2, ..Shape::vector(33) }, &mask, 8), 30);
    // Masked: over the mask length, skipping all-off wavefronts.
    let m = Mask { bits: (0..40).map(|i| i == 3 || i == 37).collect(), len: 40, status: 1 };
    assert_eq!(w(masked(vbx("VVW", Opcode::Vadd, 0, 0, 0)), Shape::vector(1), &m, 4), 2);
    assert_eq!(w(masked(vbx("VVW", Opcode::Vadd, 0, 0, 0)), Shape { rows: 2, ..Shape::vector(1) }, &m, 1), 4);
}

// ---------------------------------------------------------------------------------------------
// Property tests: engine vs reference.

const TESTS: [Test; 6] = [Test::Lez, Test::Gtz, Test::Ltz, Test::Gez, Test::Z, Test::Nz];

fn opcode() -> impl Strategy<Value = Opcode> {
    use Opcode::*;
    let mut common = vec![
        Vmov,
        Vand,
        Vor,
        Vxor,
        Vadd,
        Vsub,
        Vaddc,
        Vsubb,
        Vmul,
        Vmulhi,
        Vmulfxp,
        Vsubfxp,
        Vshl,
        Vshr,
        Vslt,
        Vsgt,
        Vaddfxp,
        Vabsdiff,
        Vcustom(0),
        Vcustom(1),
    ];
    common.extend(TESTS.iter().map(|&t| Vcmv(t)));
    common.extend(TESTS.iter().map(|&t| VsetMsk(t)));
    prop_oneof![
        30 => proptest::sample::select(common),
        1 => (2u8..16).prop_map(Vcustom),
    ]
}

fn operand() -> impl Strategy<Value = Operand> {
    (proptest::sample::select(vec![Size::Byte, Size::Half, Size::Word]), any::<bool>())
        .prop_map(|(size, signed)| Operand { size, signed })
}

/// Scratchpad bytes biased towards edge values.
fn byte() -> impl Strategy<Value = u8> {
    prop_oneof![4 => any::<u8>(), 1 => proptest::sample::select(vec![0u8, 1, 0x7f, 0x80, 0xff])]
}

fn scalar() -> impl Strategy<Value = u32> {
    prop_oneof![
        3 => any::<u32>(),
        2 => proptest::sample::select(vec![0u32, 1, 2, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff, 0x7fff_ffff, 0x8000_0000, 0xffff_ffff, 31, 32, 33]),
        1 => (-40i32..40i32).prop_map(|v| v as u32),
    ]
}

#[derive(Clone, Debug)]
struct Case {
    insn: VectorInsn,
    shape: Shape,
    mask: Mask,
    params: Params,
    data: Vec<u8>,
    flags: Vec<u8>,
}

/// Where to place the operands: seeds mapped into the range of bases whose rows fit.
#[derive(Clone, Copy, Debug)]
struct Placement {
    seeds: [u32; 3],
    /// 0–5: independent; D = A (+ delta); D = B (+ delta); A = B.
    alias: u8,
    delta: i32,
}

/// Range of bases for which every row of an operand fits in the scratchpad.
fn base_range(n: u32, size: u32, rows: u32, mats: u32, inc: i32, inc3: i32) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = (i64::MAX, i64::MIN);
    for m in 0..mats as i64 {
        for r in 0..rows as i64 {
            let off = m * inc3 as i64 + r * inc as i64;
            lo = lo.min(off);
            hi = hi.max(off + (n * size) as i64);
        }
    }
    let (min_base, max_base) = (-lo, SP as i64 - hi);
    (min_base <= max_base).then_some((min_base, max_base))
}

fn place(seed: u32, range: Option<(i64, i64)>) -> u32 {
    match range {
        Some((lo, hi)) => (lo + seed as i64 % (hi - lo + 1)) as u32,
        None => seed % SP,
    }
}

#[allow(clippy::too_many_arguments)]
fn build(
    op: Opcode,
    (d, a, b): (Operand, Operand, Operand),
    (mode, masked, acc): (u8, bool, bool),
    scalar: u32,
    shape: Shape,
    mask: Mask,
    placement: Placement,
    (lanes, frac): (u32, [u32; 3]),
    (data, flags): (Vec<u8>, Vec<u8>),
) -> Case {
    let a_scalar = mode & 2 != 0;
    let b_enum = mode & 1 != 0;
    let n = if masked { mask.len } else { shape.vl };
    let d_n = if acc { 1 } else { n };
    let s = &shape;
    let d_range = base_range(d_n, d.size.bytes(), s.rows, s.mats, s.id, s.id3);
    let a_range = base_range(n, a.size.bytes(), s.rows, s.mats, s.ia, s.ia3);
    let b_range = base_range(n, b.size.bytes(), s.rows, s.mats, s.ib, s.ib3);
    let mut da = place(placement.seeds[0], d_range);
    let mut aa = place(placement.seeds[1], a_range);
    let mut ba = place(placement.seeds[2], b_range);
    let delta = placement.delta as u32;
    match placement.alias {
        1 => da = aa.wrapping_add(delta),
        2 => da = ba.wrapping_add(delta),
        3 => da = aa,
        4 => ba = aa,
        _ => {}
    }
    let _ = &mut aa;
    let _ = &mut ba;
    let insn = VectorInsn {
        op,
        d,
        a,
        b,
        src_a: if a_scalar { SrcA::Scalar(scalar) } else { SrcA::Vector(aa) },
        src_b: if b_enum { SrcB::Enumerated } else { SrcB::Vector(ba) },
        dest: da,
        masked,
        acc,
    };
    Case { insn, shape, mask, params: Params { lanes, fxp_frac_bits: frac }, data, flags }
}

fn params() -> impl Strategy<Value = (u32, [u32; 3])> {
    (
        prop_oneof![
            3 => proptest::sample::select(vec![1u32, 4, 8]),
            1 => proptest::sample::select(vec![2u32, 16, 64]),
        ],
        prop_oneof![Just([4u32, 15, 16]), (0u32..8, 0u32..16, 0u32..32).prop_map(|(b, h, w)| [b, h, w])],
    )
}

/// Random scratchpad data and flags (none for the footprint tests, which do not need them).
fn memory(with_memory: bool) -> BoxedStrategy<(Vec<u8>, Vec<u8>)> {
    if !with_memory {
        return Just((Vec::new(), Vec::new())).boxed();
    }
    (
        proptest::collection::vec(byte(), SP as usize),
        proptest::collection::vec(prop_oneof![3 => Just(0u8), 1 => Just(1u8)], SP as usize),
    )
        .boxed()
}

fn mask_strategy(max_len: u32) -> impl Strategy<Value = Mask> {
    (0..=max_len, any::<u32>(), 0u8..3).prop_flat_map(|(len, status, density)| {
        let bit = match density {
            0 => prop_oneof![Just(true)].boxed(),
            1 => prop_oneof![1 => Just(true), 3 => Just(false)].boxed(),
            _ => any::<bool>().boxed(),
        };
        proptest::collection::vec(bit, len as usize).prop_map(move |bits| Mask { bits, len, status })
    })
}

fn placement() -> impl Strategy<Value = Placement> {
    (any::<[u32; 3]>(), prop_oneof![4 => Just(0u8), 1 => 1u8..5], -8i32..=8)
        .prop_map(|(seeds, alias, delta)| Placement { seeds, alias, delta })
}

/// Small shapes: VL 1..40, rows 1..4, mats 1..3, increments −64..64.
fn small_case(with_memory: bool) -> impl Strategy<Value = Case> {
    let inc = || -64i32..=64;
    let shape = (1u32..=40, 1u32..=4, 1u32..=3, (inc(), inc(), inc()), (inc(), inc(), inc())).prop_map(
        |(vl, rows, mats, (id, ia, ib), (id3, ia3, ib3))| Shape { vl, rows, mats, id, ia, ib, id3, ia3, ib3 },
    );
    (
        opcode(),
        (operand(), operand(), operand()),
        (0u8..4, prop::bool::weighted(0.25), prop::bool::weighted(0.25)),
        scalar(),
        shape,
        mask_strategy(48),
        placement(),
        params(),
        memory(with_memory),
    )
        .prop_map(|(op, ops, flags, scalar, shape, mask, pl, params, mem)| {
            build(op, ops, flags, scalar, shape, mask, pl, params, mem)
        })
}

/// Long vectors without scratchpad sources (SE) or with one (VE): large enumerations (they
/// wrap at byte width) and accumulator overflow.
fn long_case(with_memory: bool) -> impl Strategy<Value = Case> {
    let shape = (1u32..=1100, 1u32..=3, 1u32..=2, -8i32..=8, -8i32..=8, -64i32..=64)
        .prop_map(|(vl, rows, mats, id, ia, id3)| Shape { vl, rows, mats, id, ia, ib: 0, id3, ia3: ia * 3, ib3: 0 });
    (
        opcode(),
        (operand(), operand(), operand()),
        (prop_oneof![3 => Just(3u8), 1 => Just(1u8)], prop::bool::weighted(0.2), prop::bool::weighted(0.6)),
        scalar(),
        shape,
        mask_strategy(1100),
        placement(),
        params(),
        memory(with_memory),
    )
        .prop_map(|(op, ops, flags, scalar, shape, mask, pl, params, mem)| {
            build(op, ops, flags, scalar, shape, mask, pl, params, mem)
        })
}

fn to_bytes(ranges: &[mxpsim_detector::event::Range]) -> BTreeSet<u64> {
    ranges.iter().flat_map(|r| r.start as u64..r.end()).collect()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect::<Vec<_>>().join(" ")
}

/// A readable dump of a case: the instruction, shape, mask and the bytes it touches.
fn describe(case: &Case, fp: &reference::ByteFootprint) -> String {
    let i = &case.insn;
    let mut s = format!(
        "{:?} d={} a={} b={} src_a={:x?} src_b={:x?} dest={:#x} masked={} acc={}\n  shape={:?}\n  mask len={} status={:#x} bits={}\n  params={:?}\n",
        i.op,
        reference::describe_operand(&i.d),
        reference::describe_operand(&i.a),
        reference::describe_operand(&i.b),
        i.src_a,
        i.src_b,
        i.dest,
        i.masked,
        i.acc,
        case.shape,
        case.mask.len,
        case.mask.status,
        case.mask.bits.iter().map(|&b| if b { '1' } else { '0' }).collect::<String>(),
        case.params
    );
    let touched: BTreeSet<u64> = fp.reads.union(&fp.writes).copied().collect();
    let mut runs: Vec<(u64, u64)> = Vec::new();
    for &b in &touched {
        match runs.last_mut() {
            Some((_, end)) if *end == b => *end += 1,
            _ => runs.push((b, b + 1)),
        }
    }
    for (start, end) in runs {
        let (st, en) = (start as usize, (end as usize).min(SP as usize));
        if st < en && !case.data.is_empty() {
            s += &format!("  data[{start:#x}..{end:#x}]  = {}\n", hex(&case.data[st..en]));
            s += &format!("  flags[{start:#x}..{end:#x}] = {}\n", hex(&case.flags[st..en]));
        }
    }
    s
}

fn diff(what: &str, expected: &[u8], actual: &[u8]) -> String {
    let mut s = String::new();
    let mut shown = 0;
    for (i, (e, a)) in expected.iter().zip(actual).enumerate() {
        if e != a {
            if shown < 24 {
                s += &format!("  {what}[{i:#x}]: reference {e:#04x}, engine {a:#04x}\n");
            }
            shown += 1;
        }
    }
    if shown > 24 {
        s += &format!("  … {} more {what} differences\n", shown - 24);
    }
    s
}

fn fits(fp: &reference::ByteFootprint) -> bool {
    fp.reads.iter().chain(&fp.writes).all(|&b| b < SP as u64)
}

/// Footprint (as byte sets) and wavefront count of the engine against the reference; a
/// footprint that leaves the scratchpad: wrapped at its end as the engine issues it, and
/// refused with strict bounds.
fn check_footprint(case: &Case) -> Result<bool, TestCaseError> {
    let fp = reference::footprint(&case.insn, &case.shape, &case.mask);
    if !fits(&fp) {
        let bounded = |strict| vector::bounded_footprint(&case.insn, &case.shape, &case.mask, SP, strict);
        prop_assert!(bounded(true).is_err(), "strict bounds accept rows outside\n{}", describe(case, &fp));
        let efp = bounded(false).map_err(|e| TestCaseError::fail(format!("{e}\n{}", describe(case, &fp))))?;
        let modulo = |set: &BTreeSet<u64>| set.iter().map(|b| b % u64::from(SP)).collect::<BTreeSet<u64>>();
        prop_assert_eq!(to_bytes(&efp.reads), modulo(&fp.reads), "wrapped reads\n{}", describe(case, &fp));
        prop_assert_eq!(to_bytes(&efp.writes), modulo(&fp.writes), "wrapped writes\n{}", describe(case, &fp));
        return Ok(false);
    }
    let efp = vector::footprint(&case.insn, &case.shape, &case.mask);
    let (reads, writes) = (to_bytes(&efp.reads), to_bytes(&efp.writes));
    if reads != fp.reads || writes != fp.writes {
        let show = |s: &BTreeSet<u64>| format!("{} bytes {:x?}", s.len(), s.iter().take(64).collect::<Vec<_>>());
        return Err(TestCaseError::fail(format!(
            "footprint differs\n{}  reads: reference {}\n         engine    {}\n  writes: reference {}\n          engine    {}\n  engine ranges {:?}",
            describe(case, &fp),
            show(&fp.reads),
            show(&reads),
            show(&fp.writes),
            show(&writes),
            efp
        )));
    }
    let (ew, rw) = (
        vector::waves(&case.insn, &case.shape, &case.mask, &case.params),
        reference::waves(&case.insn, &case.shape, &case.mask, &case.params),
    );
    if ew != rw {
        return Err(TestCaseError::fail(format!("waves differ: reference {rw}, engine {ew}\n{}", describe(case, &fp))));
    }
    Ok(true)
}

/// Mask equality: exact for instructions that must not touch it; for VSET_MSK, the same
/// length, the same bits over that length, bit 31 and "bits 30..0 non-zero" (§3.9: only
/// non-zero is meaningful).
fn same_mask(op: Opcode, r: &Mask, e: &Mask) -> bool {
    if !matches!(op, Opcode::VsetMsk(_)) {
        return r == e;
    }
    let bit = |m: &Mask, i: u32| m.bits.get(i as usize).copied().unwrap_or(false);
    r.len == e.len
        && (0..r.len).all(|i| bit(r, i) == bit(e, i))
        && r.status >> 31 == e.status >> 31
        && (r.status & 0x7fff_ffff != 0) == (e.status & 0x7fff_ffff != 0)
}

/// Circular distance of two `bytes`-byte little-endian integers.
fn distance(x: &[u8], y: &[u8]) -> u64 {
    let v = |s: &[u8]| s.iter().rev().fold(0u64, |acc, &b| (acc << 8) | b as u64);
    let modulus = 1u64 << (8 * x.len());
    let d = v(x).wrapping_sub(v(y)) & (modulus - 1);
    d.min(modulus - d)
}

/// Executes on both sides and compares the outcome (rows that leave the scratchpad wrap at
/// its end on both; the custom units' tolerant comparison only for rows inside).
fn check_execute(case: &Case) -> Result<bool, TestCaseError> {
    let fp = reference::footprint(&case.insn, &case.shape, &case.mask);
    if !fits(&fp) && matches!(case.insn.op, Opcode::Vcustom(0 | 1)) {
        return Ok(false);
    }
    let initial = VectorState { data: case.data.clone(), flags: case.flags.clone(), mask: case.mask.clone() };
    let mut mine = initial.clone();
    let mut theirs = initial.clone();
    let catch = |f: &mut dyn FnMut() -> Result<(), VectorError>| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|payload| {
            payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default()
        })
    };
    let mut written = Vec::new();
    let result = catch(&mut || {
        written = reference::execute(&case.insn, &case.shape, &mut mine, &case.params)?;
        Ok(())
    });
    let engine_result =
        catch(&mut || vector::execute(&case.insn, &case.shape, &mut theirs, &case.params, &Default::default()));
    let (result, engine_result) = match (result, engine_result) {
        (Err(panic), _) => {
            return Err(TestCaseError::fail(format!("reference panicked: {panic}\n{}", describe(case, &fp))))
        }
        (_, Err(panic)) => {
            return Err(TestCaseError::fail(format!("engine panicked: {panic}\n{}", describe(case, &fp))))
        }
        (Ok(r), Ok(e)) => (r.map(|()| written), e),
    };
    let mut problems = String::new();
    let reference_err = result.as_ref().err().copied();
    if reference_err != engine_result.err() {
        problems += &format!("  result: reference {:?}, engine {:?}\n", result.as_ref().map(|_| ()), engine_result);
    }
    if !same_mask(case.insn.op, &mine.mask, &theirs.mask) {
        problems += &format!("  mask: reference {:?}\n        engine    {:?}\n", mine.mask, theirs.mask);
    }
    let tolerance = match case.insn.op {
        Opcode::Vcustom(0) => Some(1u64),
        Opcode::Vcustom(1) => Some(256u64),
        _ => None,
    };
    match (tolerance, &result) {
        (Some(tol), Ok(written)) => {
            // Written elements compare within the tolerance (scaled by the terms of an
            // accumulation; their flags are skipped for accumulations, whose saturation can
            // differ), everything else exactly. If D overlaps a source or itself, a ±1 result
            // feeds later elements: compare only the bytes nobody wrote.
            let dsize = case.insn.d.size.bytes() as u64;
            let mut written_bytes = BTreeSet::new();
            let mut overlapping = false;
            for w in written {
                for k in 0..dsize {
                    overlapping |= !written_bytes.insert(w.addr as u64 + k);
                }
            }
            overlapping |= written_bytes.iter().any(|b| fp.reads.contains(b));
            for (i, (m, t)) in mine.data.iter().zip(&theirs.data).enumerate() {
                if m != t && !written_bytes.contains(&(i as u64)) {
                    problems +=
                        &format!("  data[{i:#x}] (not a written element): reference {m:#04x}, engine {t:#04x}\n");
                }
            }
            for (i, (m, t)) in mine.flags.iter().zip(&theirs.flags).enumerate() {
                if m != t && !(case.insn.acc && written_bytes.contains(&(i as u64))) {
                    problems += &format!("  flags[{i:#x}]: reference {m:#04x}, engine {t:#04x}\n");
                }
            }
            if !overlapping {
                for w in written {
                    let r = w.addr as usize..w.addr as usize + dsize as usize;
                    let dist = distance(&mine.data[r.clone()], &theirs.data[r.clone()]);
                    if dist > tol * w.terms.max(1) as u64 {
                        problems += &format!(
                            "  element at {:#x}: reference {}, engine {} (distance {dist} > {})\n",
                            w.addr,
                            hex(&mine.data[r.clone()]),
                            hex(&theirs.data[r]),
                            tol * w.terms.max(1) as u64
                        );
                    }
                }
            }
        }
        _ => {
            problems += &diff("data", &mine.data, &theirs.data);
            problems += &diff("flags", &mine.flags, &theirs.flags);
        }
    }
    if problems.is_empty() {
        Ok(true)
    } else {
        Err(TestCaseError::fail(format!("execute differs\n{}{problems}", describe(case, &fp))))
    }
}

fn cases(default: u32) -> Config {
    let mut config = Config { failure_persistence: None, ..Config::default() };
    if std::env::var("PROPTEST_CASES").is_err() {
        config.cases = default;
    }
    // Most skipped cases return early instead of rejecting, so this is rarely needed.
    config.max_global_rejects = config.cases;
    config
}

fn run_property(
    name: &str,
    default_cases: u32,
    strategy: impl Strategy<Value = Case>,
    check: fn(&Case) -> Result<bool, TestCaseError>,
) {
    let config = cases(default_cases);
    let total = config.cases;
    let mut runner = TestRunner::new(config);
    let checked = std::cell::Cell::new(0u64);
    let start = std::time::Instant::now();
    let result = runner.run(&strategy, |case| {
        if check(&case)? {
            checked.set(checked.get() + 1);
        }
        Ok(())
    });
    match result {
        Ok(()) => eprintln!(
            "{name}: {total} cases, {} checked, {} skipped (footprint outside the scratchpad), {:.1?}",
            checked.get(),
            total as u64 - checked.get().min(total as u64),
            start.elapsed()
        ),
        Err(TestError::Fail(reason, _)) => panic!("{name}: minimal failing case:\n{reason}"),
        Err(e) => panic!("{name}: {e}"),
    }
}

#[test]
fn prop_footprint_and_waves_match_reference() {
    run_property("footprint_and_waves", 10_000, small_case(false), check_footprint);
}

#[test]
fn prop_footprint_and_waves_match_reference_long() {
    run_property("footprint_and_waves_long", 3_000, long_case(false), check_footprint);
}

#[test]
fn prop_execute_matches_reference() {
    run_property("execute", 10_000, small_case(true), check_execute);
}

#[test]
fn prop_execute_matches_reference_long() {
    run_property("execute_long", 3_000, long_case(true), check_execute);
}

/// The property tests' generators produce what they are meant to (checked on the reference
/// alone, so this runs while the engine is unfinished).
#[test]
fn prop_generators_fit_and_cover() {
    let mut runner = TestRunner::new(cases(2_000));
    let (mut fit, mut total, mut overflow) = (0, 0, 0);
    let mut ops = std::collections::HashSet::new();
    let strategy = prop_oneof![small_case(true), long_case(true)];
    for _ in 0..2_000 {
        let case = strategy.new_tree(&mut runner).unwrap().current();
        total += 1;
        let fp = reference::footprint(&case.insn, &case.shape, &case.mask);
        if fits(&fp) {
            fit += 1;
            ops.insert(format!("{:?}", case.insn.op));
            let mut st = VectorState { data: case.data.clone(), flags: case.flags.clone(), mask: case.mask.clone() };
            if let Err(VectorError::AccumulatorOverflow { .. }) =
                reference::execute(&case.insn, &case.shape, &mut st, &case.params)
            {
                overflow += 1;
            }
        }
    }
    eprintln!("generators: {fit}/{total} cases fit, {} opcodes, {overflow} accumulator overflows", ops.len());
    assert!(fit * 10 > total * 7, "only {fit} of {total} cases fit the scratchpad");
    assert!(ops.len() >= 30, "{ops:?}");
    assert!(overflow > 0);
}

// ---------------------------------------------------------------------------------------------
// Command streams (issue 13).

/// Random command streams fed to the engine as firmware stores them to the port: every
/// command of the encoding with shapes, lengths, row counts and strides up to 2^32 (VL, ROWS
/// and MATS up to `u32::MAX`, 2-D DMAs of billions of rows), unassigned opcodes and raw words.
/// Each command must be carried out or refused (exit status 123 in a run) in bounded memory,
/// and one still running after `WORK_LIMIT` must give up within `STOP_LATENCY` once the stop
/// request is set, as it is when a signal or the cycle limit stops a run. A watchdog thread
/// judges, so that a hang fails the test instead of hanging it. `FUZZ_CASES` (default 500)
/// and `FUZZ_SEED` as in `tests/fuzz.rs`:
///
/// ```text
/// FUZZ_CASES=20000 cargo test --release -p mxpsim-models command_streams -- --nocapture
/// ```
mod command_streams {
    use crate::axi::{Axi, AxiConfig};
    use crate::dram::Dram;
    use crate::mxp::command::Command;
    use crate::mxp::config::MxpConfig;
    use crate::mxp::engine::{Halt, Mxp};
    use crate::stop::StopRequest;
    use rand_xoshiro::rand_core::{Rng, SeedableRng};
    use rand_xoshiro::Xoshiro256PlusPlus;
    use std::sync::mpsc::{self, RecvTimeoutError};
    use std::time::{Duration, Instant};

    const DRAM: u32 = 0x8000_0000;
    const DRAM_SIZE: u32 = 1 << 20;
    /// The scratchpad of `MxpConfig::default()`.
    const SP: u32 = 0x5000_0000;
    const SP_SIZE: u32 = 256 << 10;
    /// The store that issues every command.
    const PC: u32 = 0x8000_0400;
    /// A command running longer than this is asked to stop (being asked is no failure: a
    /// legal command may move gigabytes).
    const WORK_LIMIT: Duration = Duration::from_millis(250);
    /// How soon a command must give up once asked.
    const STOP_LATENCY: Duration = Duration::from_secs(1);
    /// How much the test process may grow (a command's rows and bytes are never listed one by
    /// one beyond a bound: the engine's memory is the scratchpad, DRAM and bounded row sets).
    const MEMORY_BUDGET: u64 = 256 << 20;
    const POLL: Duration = Duration::from_millis(5);
    /// The stop request's reason, as a SIGINT would set it.
    const STOP_REASON: usize = 2;

    // Word 0 of the control commands (mxp-spec.md §2.4).
    const DMA_2D_SETUP: u32 = 0x0001_8001;
    const DMA_2D_EXT_INC: u32 = 0x0001_0000;
    const DMA_2D: u32 = 0x0004_0000;
    const SET_VL: u32 = 0x0000_0002;
    const SET_2D: u32 = 0x0004_0002;
    const SET_3D: u32 = 0x0002_0002;
    const GET_PARAM: u32 = 0x0006_0000;
    const SET_PARAM: u32 = 0x0006_0001;
    const SYNC: u32 = 0x0006_0002;
    const GET_MASK: u32 = 0x0006_0003;

    /// A case's random choices.
    struct Gen(Xoshiro256PlusPlus);

    impl Gen {
        fn below(&mut self, n: u32) -> u32 {
            (self.0.next_u64() % u64::from(n)) as u32
        }

        fn pick(&mut self, items: &[u32]) -> u32 {
            items[self.below(items.len() as u32) as usize]
        }

        /// A length, row count, VL, ROWS or MATS: small, at the scratchpad's size, or huge.
        fn count(&mut self) -> u32 {
            match self.below(4) {
                0 => 1 + self.below(64),
                1 => self.0.next_u32(),
                _ => self.pick(&[
                    0,
                    1,
                    2,
                    3,
                    255,
                    256,
                    4096,
                    0xffff,
                    0x1_0000,
                    SP_SIZE - 1,
                    SP_SIZE,
                    2 * SP_SIZE - 1,
                    DRAM_SIZE,
                    0x7fff_ffff,
                    0x8000_0000,
                    u32::MAX,
                ]),
            }
        }

        /// A byte increment: small, either sign, wrapping, or random.
        fn stride(&mut self) -> u32 {
            match self.below(3) {
                0 => self.0.next_u32(),
                _ => self.pick(&[0, 1, 4, 64, SP_SIZE - 1, SP_SIZE, 0x7fff_ffff, 0x8000_0000, u32::MAX, -4i32 as u32]),
            }
        }

        /// A scratchpad address: mostly inside it, else at and past its edges.
        fn sp(&mut self) -> u32 {
            match self.below(5) {
                0 => self.0.next_u32(),
                1 => self.pick(&[0, SP - 1, SP + SP_SIZE - 4, SP + SP_SIZE, u32::MAX]),
                _ => SP + self.below(SP_SIZE),
            }
        }

        /// A DRAM address: mostly inside it, else at and past its edges.
        fn ext(&mut self) -> u32 {
            match self.below(4) {
                0 => self.pick(&[0, DRAM - 1, DRAM + DRAM_SIZE - 4, DRAM + DRAM_SIZE, 0xc000_0000, u32::MAX]),
                _ => DRAM + self.below(DRAM_SIZE),
            }
        }

        /// An operand size code; now and then 3, which no size has.
        fn size_code(&mut self) -> u32 {
            if self.below(16) == 0 {
                3
            } else {
                self.below(3)
            }
        }

        /// A vector instruction: any opcode from 4 (some unassigned), sizes, signs, operand
        /// kinds, masked and accumulate (mxp-spec.md §2.2); operands mostly in the scratchpad.
        fn vector(&mut self) -> Vec<u32> {
            let op = 4 + self.below(60);
            let sizes = (0..3u32).fold(0, |word, k| word | (self.size_code() << (9 + 2 * k)));
            let word0 = op | (self.below(8) << 6) | sizes | (self.below(16) << 15);
            vec![word0, self.sp(), self.sp(), self.sp()]
        }

        /// One thing firmware does with the port, as groups of words (one command each, raw
        /// words aside): a 2-D DMA with its set-up, a vector instruction on a shape, or a
        /// single command.
        fn step(&mut self) -> Vec<Vec<u32>> {
            match self.below(10) {
                0 | 1 => vec![
                    vec![DMA_2D_SETUP, self.stride(), self.count(), 0],
                    vec![DMA_2D_EXT_INC, self.stride(), 0, 0],
                    vec![DMA_2D | self.below(2), self.ext(), self.sp(), self.count()],
                ],
                2 | 3 => {
                    let mut steps = vec![vec![SET_VL, self.count(), self.count(), self.count()]];
                    if self.below(2) == 0 {
                        steps.push(vec![SET_2D, self.stride(), self.stride(), self.stride()]);
                    }
                    if self.below(2) == 0 {
                        steps.push(vec![SET_3D, self.stride(), self.stride(), self.stride()]);
                    }
                    steps.push(self.vector());
                    steps
                }
                4 => vec![vec![self.below(2), self.ext(), self.sp(), self.count()]],
                5 | 6 => vec![self.vector()],
                7 => vec![vec![SET_PARAM | (self.below(32) << 6), self.count()]],
                8 => {
                    let get_param = GET_PARAM | (self.below(32) << 6);
                    vec![vec![self.pick(&[SYNC, GET_MASK, get_param])]]
                }
                _ => {
                    let n = 1 + self.below(4);
                    let raw: Vec<u32> = (0..n).map(|_| self.0.next_u32()).collect();
                    vec![raw]
                }
            }
        }
    }

    /// The word groups of case `case`: a few steps.
    fn case_words(seed: u64, case: u64) -> Vec<Vec<u32>> {
        let mut g = Gen(Xoshiro256PlusPlus::seed_from_u64(seed.wrapping_add(case)));
        let steps = 1 + g.below(8);
        (0..steps).flat_map(|_| g.step()).collect()
    }

    /// The engine with what it reaches, as the memory system holds them.
    struct Rig {
        mxp: Mxp,
        dram: Dram,
        axi: Axi,
        now: u64,
        requests: u64,
    }

    impl Rig {
        fn new(stop: &StopRequest) -> Rig {
            let cfg = MxpConfig::default();
            assert_eq!((cfg.scratchpad, cfg.scratchpad_size), (SP, SP_SIZE));
            let mut mxp = Mxp::new(&cfg);
            mxp.set_stop_request(stop.clone());
            Rig { mxp, dram: Dram::new(DRAM, DRAM_SIZE), axi: Axi::new(AxiConfig::default()), now: 0, requests: 0 }
        }

        /// Stores `words` to the port one by one; each command they complete is carried out,
        /// and the clock runs until everything scheduled has been applied (as a SYNC waits).
        fn store(&mut self, words: &[u32]) -> Result<(), Halt> {
            for &word in words {
                self.now += 1;
                let Some(cmd) = self.mxp.write_word(word, PC)? else { continue };
                self.requests += u64::from(Mxp::request_of(&cmd).is_some());
                self.now += self.mxp.submit(cmd, self.requests, PC, self.now, &self.dram, &mut self.axi)?;
                while self.mxp.next_due() != u64::MAX {
                    self.now = self.now.max(self.mxp.next_due());
                    self.mxp.catch_up(self.now, &mut self.dram, &mut |_| {})?;
                }
                if matches!(cmd, Command::Sync | Command::GetParam { .. } | Command::GetMask) {
                    self.mxp.take_reply();
                }
            }
            Ok(())
        }
    }

    fn env_number(name: &str, default: u64) -> u64 {
        let Ok(text) = std::env::var(name) else { return default };
        let parsed = match text.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => text.parse(),
        };
        parsed.unwrap_or_else(|_| panic!("{name}={text} is not a number"))
    }

    /// This process's resident memory (Linux: `VmRSS` in /proc/self/status).
    fn resident_bytes() -> u64 {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let kib = status.lines().find_map(|l| l.strip_prefix("VmRSS:"));
        kib.and_then(|kib| kib.trim().trim_end_matches("kB").trim().parse::<u64>().ok()).unwrap_or(0) * 1024
    }

    /// `what` went wrong in step `step` of case `case`: with the case's words up to it.
    fn explain(seed: u64, at: Option<(u64, usize)>, what: &str) -> String {
        let Some((case, step)) = at else { return format!("{what}, before the first command") };
        let groups = case_words(seed, case);
        let lines: Vec<String> = groups[..=step]
            .iter()
            .map(|group| group.iter().map(|w| format!("{w:#010x}")).collect::<Vec<_>>().join(" "))
            .collect();
        format!(
            "case {case} (FUZZ_SEED={seed:#x}), word group {step}: {what}\nthe port words, a command per line:\n  {}",
            lines.join("\n  ")
        )
    }

    #[test]
    fn command_streams_stop_when_asked_and_stay_in_memory() {
        let seed = env_number("FUZZ_SEED", 0x6d78_7073_696d);
        let cases = env_number("FUZZ_CASES", 500);
        // The worker runs the cases and says which word group it starts, with the case's stop
        // request; the watchdog (this thread) times each group and watches memory.
        let (progress, watch) = mpsc::channel::<(u64, usize, StopRequest)>();
        let worker = std::thread::spawn(move || {
            for case in 0..cases {
                let stop = StopRequest::default();
                let mut rig = Rig::new(&stop);
                for (step, words) in case_words(seed, case).iter().enumerate() {
                    if progress.send((case, step, stop.clone())).is_err() {
                        return; // the watchdog failed the test
                    }
                    if rig.store(words).is_err() {
                        break; // refused or stopped: a run would end here
                    }
                }
            }
        });
        let memory_at_start = resident_bytes();
        let mut current: Option<(u64, usize, StopRequest)> = None;
        let mut started = Instant::now();
        // When the running word group was asked to stop.
        let mut asked: Option<Instant> = None;
        let mut checked = Instant::now();
        loop {
            match watch.recv_timeout(POLL) {
                Ok(next) => {
                    (current, started, asked) = (Some(next), Instant::now(), None);
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => break,
            }
            if checked.elapsed() < POLL {
                continue;
            }
            checked = Instant::now();
            let at = current.as_ref().map(|(case, step, _)| (*case, *step));
            let grown = resident_bytes().saturating_sub(memory_at_start);
            assert!(grown <= MEMORY_BUDGET, "{}", explain(seed, at, &format!("memory grew by {} MiB", grown >> 20)));
            match asked {
                None if started.elapsed() > WORK_LIMIT => {
                    if let Some((_, _, stop)) = &current {
                        stop.request(STOP_REASON);
                    }
                    asked = Some(Instant::now());
                }
                Some(when) if when.elapsed() > STOP_LATENCY => {
                    panic!("{}", explain(seed, at, &format!("still running {STOP_LATENCY:?} after the stop request")))
                }
                _ => {}
            }
        }
        let at = current.as_ref().map(|(case, step, _)| (*case, *step));
        assert!(worker.join().is_ok(), "{}", explain(seed, at, "the engine panicked (message above)"));
    }
}
