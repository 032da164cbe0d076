//! The specification's examples (most of them probed on the vendor simulator), run through the
//! public interface: [`footprint`], [`waves`] and [`execute`].

use super::*;
use crate::mxp::command::{Opcode, Operand, Size, SrcA, SrcB, Test, VectorInsn};

const PARAMS: Params = Params { lanes: 4, fxp_frac_bits: [4, 15, 16] };

fn operand(size: Size, signed: bool) -> Operand {
    Operand { size, signed }
}

/// `op` with D, A and B of the given sizes and signs, A and B vectors at 0, D at 0.
fn insn(op: Opcode, sizes: [Size; 3], signs: [bool; 3]) -> VectorInsn {
    VectorInsn {
        op,
        d: operand(sizes[0], signs[0]),
        a: operand(sizes[1], signs[1]),
        b: operand(sizes[2], signs[2]),
        src_a: SrcA::Vector(0),
        src_b: SrcB::Vector(0),
        dest: 0,
        masked: false,
        acc: false,
    }
}

use Size::{Byte as B, Half as H, Word as W};
const SIGNED: [bool; 3] = [true; 3];
const UNSIGNED: [bool; 3] = [false; 3];

fn state_with(data: &[u8]) -> VectorState {
    let mut state = VectorState::new(4096);
    state.data[..data.len()].copy_from_slice(data);
    state
}

fn run(insn: &VectorInsn, shape: &Shape, state: &mut VectorState) {
    let footprint = footprint(insn, shape, &state.mask);
    let inside = |r: &Range| r.end() <= state.data.len() as u64;
    assert!(footprint.reads.iter().chain(&footprint.writes).all(inside), "{footprint:?}");
    execute(insn, shape, state, &PARAMS, &Default::default()).expect("executes");
}

fn word(state: &VectorState, addr: usize) -> u32 {
    u32::from_le_bytes(state.data[addr..addr + 4].try_into().unwrap())
}

fn half(state: &VectorState, addr: usize) -> u16 {
    u16::from_le_bytes(state.data[addr..addr + 2].try_into().unwrap())
}

fn range(start: u32, len: u32) -> Range {
    Range::new(start, len)
}

#[test]
fn scalar_a_is_truncated_to_as_size() {
    // Probed: SVWBBSSS with 0x1234 uses 0x34; SVWWBSSS uses 0x1234.
    let mut state = state_with(&[]);
    let narrow = VectorInsn { src_a: SrcA::Scalar(0x1234), dest: 0x100, ..insn(Opcode::Vmov, [W, B, B], SIGNED) };
    run(&narrow, &Shape::vector(2), &mut state);
    assert_eq!((word(&state, 0x100), word(&state, 0x104)), (0x34, 0x34));
    let wide = VectorInsn { a: operand(W, true), ..narrow };
    run(&wide, &Shape::vector(1), &mut state);
    assert_eq!(word(&state, 0x100), 0x1234);
    // Extended by A's sign bit.
    let negative = VectorInsn { src_a: SrcA::Scalar(0x80), ..narrow };
    run(&negative, &Shape::vector(1), &mut state);
    assert_eq!(word(&state, 0x100), 0xffff_ff80);
}

#[test]
fn enumeration_wraps_at_the_calculation_width_and_restarts_every_row() {
    // Probed: the enumerated B wraps at 256 for a byte calculation.
    let mut state = state_with(&[]);
    let bytes =
        VectorInsn { src_a: SrcA::Scalar(0), src_b: SrcB::Enumerated, ..insn(Opcode::Vadd, [B, B, B], UNSIGNED) };
    run(&bytes, &Shape::vector(300), &mut state);
    assert_eq!((state.data[255], state.data[256], state.data[299]), (255, 0, 43));
    let halves = VectorInsn { d: operand(H, false), ..bytes };
    run(&halves, &Shape::vector(300), &mut state);
    assert_eq!((half(&state, 2 * 255), half(&state, 2 * 256)), (255, 256));
    let shape = Shape { vl: 3, rows: 2, id: 3, ..Shape::vector(3) };
    run(&VectorInsn { dest: 0x800, ..bytes }, &shape, &mut state);
    assert_eq!(state.data[0x800..0x806], [0, 1, 2, 0, 1, 2]);
}

#[test]
fn in_place_forward_move_sees_earlier_wavefronts() {
    // Probed (§3.2): bytes VMOV to a+1 from a with 4 lanes (16-byte waves) gives 0 0 1 … 15 15 17 …
    let initial: Vec<u8> = (0..40).collect();
    let mut state = state_with(&initial);
    let vmov = VectorInsn { src_a: SrcA::Vector(0), dest: 1, ..insn(Opcode::Vmov, [B, B, B], UNSIGNED) };
    run(&vmov, &Shape::vector(32), &mut state);
    let mut expected = vec![0u8];
    expected.extend(0..16); // wave 0 copies the original bytes 0..15 to 1..16
    expected.push(15); // wave 1 reads byte 16, already overwritten by wave 0
    expected.extend(17..32);
    expected.push(33); // past the vector
    assert_eq!(state.data[..34], expected[..]);
}

#[test]
fn flags_are_stored_at_ds_size_and_read_at_the_sources() {
    // §3.4: a write stores 0/1 as a D-sized integer; a read tests the source-sized integer.
    let mut state = state_with(&[0, 200, 0, 0, 0, 0, 0, 0, 0, 100, 0, 0]);
    let add = VectorInsn { src_b: SrcB::Vector(8), dest: 0x10, ..insn(Opcode::Vadd, [B, B, B], UNSIGNED) };
    run(&add, &Shape::vector(4), &mut state); // 200 + 100 carries in element 1
    assert_eq!(state.flags[0x10..0x14], [0, 1, 0, 0]);
    let widen = VectorInsn { src_a: SrcA::Vector(0x10), dest: 0x20, ..insn(Opcode::Vmov, [W, W, W], UNSIGNED) };
    run(&widen, &Shape::vector(1), &mut state); // the word read sees byte 1's flag
    assert_eq!(state.flags[0x20..0x24], [1, 0, 0, 0]);
    // An unsigned borrow, then VSUBB using it: B's value is ignored, only its flag counts.
    let mut state = state_with(&[3, 10, 0, 0, 5, 77]);
    let sub = VectorInsn { src_b: SrcB::Vector(4), dest: 8, ..insn(Opcode::Vsub, [B, B, B], UNSIGNED) };
    run(&sub, &Shape::vector(1), &mut state);
    assert_eq!((state.data[8], state.flags[8]), (254, 1));
    let subb = VectorInsn { op: Opcode::Vsubb, src_a: SrcA::Vector(1), src_b: SrcB::Vector(8), dest: 9, ..sub };
    run(&subb, &Shape::vector(1), &mut state);
    assert_eq!((state.data[9], state.flags[9]), (9, 1)); // the quirk: borrow taken, no wrap
}

#[test]
fn accumulate_saturates_into_d() {
    // Probed: 8 × 100 into a signed byte gives 127, flag 1.
    let mut state = state_with(&[]);
    let acc = VectorInsn {
        src_a: SrcA::Scalar(100),
        src_b: SrcB::Enumerated,
        dest: 0x40,
        acc: true,
        ..insn(Opcode::Vmov, [B, B, B], SIGNED)
    };
    run(&acc, &Shape::vector(8), &mut state);
    assert_eq!((state.data[0x40], state.flags[0x40]), (127, 1));
    assert_eq!(state.data[0x41], 0, "one element per row");
    run(&acc, &Shape::vector(1), &mut state);
    assert_eq!((state.data[0x40], state.flags[0x40]), (100, 0));
}

#[test]
fn accumulate_counts_conditional_moves_that_happen() {
    // vbx_acc(SVH, VCMV_LTZ, d, 1, v) counts the negative elements of v.
    let v: Vec<u8> = [-3i16, 4, -1, 0, -7].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut state = state_with(&v);
    let count = VectorInsn {
        src_a: SrcA::Scalar(1),
        dest: 0x40,
        acc: true,
        ..insn(Opcode::Vcmv(Test::Ltz), [H, H, H], SIGNED)
    };
    run(&count, &Shape::vector(5), &mut state);
    assert_eq!(half(&state, 0x40), 3);
}

#[test]
fn accumulator_overflow_stops_at_the_row() {
    let mut state = VectorState::new(4096);
    for i in 0..300 {
        state.data[1200 + 4 * i..1204 + 4 * i].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    }
    state.data[3000..3008].fill(0xee);
    let acc = VectorInsn { dest: 3000, acc: true, ..insn(Opcode::Vmov, [W, W, W], SIGNED) };
    let shape = Shape { vl: 300, rows: 2, id: 4, ia: 1200, ..Shape::vector(300) };
    assert_eq!(
        execute(&acc, &shape, &mut state, &PARAMS, &Default::default()),
        Err(VectorError::AccumulatorOverflow { row: 1 })
    );
    assert_eq!((word(&state, 3000), word(&state, 3004)), (0, 0xeeee_eeee));
}

#[test]
fn two_dimensional_accumulate_gives_row_sums() {
    // Probed: VL=4, ROWS=3, (ID, IA, IB) = (4, 8, 0), vbx_acc(VVWBU, VMUL, out, img, ones).
    let mut image: Vec<u8> = (0..24).collect();
    image.extend([1; 4]);
    let mut state = state_with(&image);
    let acc = VectorInsn { src_b: SrcB::Vector(24), dest: 0x40, acc: true, ..insn(Opcode::Vmul, [W, B, B], UNSIGNED) };
    let shape = Shape { vl: 4, rows: 3, id: 4, ia: 8, ib: 0, ..Shape::vector(4) };
    run(&acc, &shape, &mut state);
    assert_eq!([0x40, 0x44, 0x48].map(|a| word(&state, a)), [6, 38, 70]);
    let fp = footprint(&acc, &shape, &state.mask);
    // A's rows, then B's.
    assert_eq!(fp.reads, [range(0, 4), range(8, 4), range(16, 4), range(24, 4), range(24, 4), range(24, 4)]);
    assert_eq!(fp.a_reads, 3);
    assert_eq!(fp.writes, [range(0x40, 4), range(0x44, 4), range(0x48, 4)]);
}

#[test]
fn two_dimensional_move_walking_backwards() {
    // Probed: VL=2, ROWS=3, ID=−2, IA=2, a VMOV to o+4 gives 4 5 2 3 0 1 in o[0..5].
    let mut state = state_with(&[0, 1, 2, 3, 4, 5]);
    let vmov = VectorInsn { dest: 0x44, ..insn(Opcode::Vmov, [B, B, B], SIGNED) };
    let shape = Shape { vl: 2, rows: 3, id: -2, ia: 2, ..Shape::vector(2) };
    run(&vmov, &shape, &mut state);
    assert_eq!(state.data[0x40..0x46], [4, 5, 2, 3, 0, 1]);
}

#[test]
fn three_dimensional_enumerated_restarts_per_row() {
    // Probed: 3D VE, VL=1, ROWS=2, MATS=2, (ID, IA) = (1, 1), (ID3, IA3) = (2, 4).
    let mut state = state_with(&[10, 11, 12, 13, 14, 15]);
    let add = VectorInsn { src_b: SrcB::Enumerated, dest: 0x40, ..insn(Opcode::Vadd, [B, B, B], SIGNED) };
    let shape = Shape { vl: 1, rows: 2, mats: 2, id: 1, ia: 1, id3: 2, ia3: 4, ..Shape::vector(1) };
    run(&add, &shape, &mut state);
    assert_eq!(state.data[0x40..0x44], [10, 11, 14, 15]);
}

#[test]
fn mixed_sizes_widen_before_and_narrow_after() {
    // Widening: VVHBU multiplies two bytes into the full 16-bit product.
    let mut state = state_with(&[200, 255, 200, 2]);
    let mul = VectorInsn { src_b: SrcB::Vector(2), dest: 0x40, ..insn(Opcode::Vmul, [H, B, B], UNSIGNED) };
    run(&mul, &Shape::vector(2), &mut state);
    assert_eq!((half(&state, 0x40), half(&state, 0x42)), (40000, 510));
    // Narrowing: a fixed-point add saturates to D; its flag is the wide result's (no overflow).
    let add = VectorInsn { src_b: SrcB::Vector(0x40), dest: 0x50, ..insn(Opcode::Vaddfxp, [B, H, H], SIGNED) };
    state.data[..2].copy_from_slice(&100i16.to_le_bytes());
    state.data[0x40..0x42].copy_from_slice(&100i16.to_le_bytes());
    run(&add, &Shape::vector(1), &mut state);
    assert_eq!((state.data[0x50], state.flags[0x50]), (127, 0));
    // An ordinary narrowing truncates: 0x1234 + 1 into a byte is 0x35.
    let plain = VectorInsn { op: Opcode::Vadd, ..add };
    state.data[..2].copy_from_slice(&0x1234i16.to_le_bytes());
    state.data[0x40..0x42].copy_from_slice(&1i16.to_le_bytes());
    run(&plain, &Shape::vector(1), &mut state);
    assert_eq!(state.data[0x50], 0x35);
    // Each source is extended by its own sign: unsigned 200 plus signed −1 in a signed half.
    let mut state = state_with(&[200, 0xff]);
    let mixed = VectorInsn { src_b: SrcB::Vector(1), dest: 0x40, ..insn(Opcode::Vadd, [H, B, B], [true, false, true]) };
    run(&mixed, &Shape::vector(1), &mut state);
    assert_eq!(half(&state, 0x40), 199);
}

#[test]
fn conditional_move_leaves_unselected_elements_and_flags_alone() {
    let mut state = state_with(&[5, 0, 7, 0]);
    state.data[0x40..0x44].fill(0xaa);
    state.flags[0x40..0x44].fill(1);
    let cmv = VectorInsn {
        src_a: SrcA::Scalar(9),
        src_b: SrcB::Vector(0),
        dest: 0x40,
        ..insn(Opcode::Vcmv(Test::Z), [B, B, B], SIGNED)
    };
    run(&cmv, &Shape::vector(4), &mut state);
    assert_eq!(state.data[0x40..0x44], [0xaa, 9, 0xaa, 9]);
    assert_eq!(state.flags[0x40..0x44], [1, 0, 1, 0]);
}

#[test]
fn mask_set_up_and_masked_execution() {
    let mut state = state_with(&[0, 3, 0, 4, 5, 0, 0, 0, 0, 0]);
    let set_up = VectorInsn {
        src_a: SrcA::Scalar(0),
        src_b: SrcB::Vector(0),
        dest: 0,
        ..insn(Opcode::VsetMsk(Test::Nz), [B, B, B], SIGNED)
    };
    let fp = footprint(&set_up, &Shape::vector(6), &state.mask);
    assert_eq!((fp.reads, fp.writes), (vec![range(0, 6)], vec![]));
    state.mask.status = 0x8000_0001; // stale: read once already
    run(&set_up, &Shape::vector(6), &mut state);
    assert_eq!(state.mask.bits, [false, true, false, true, true, false]);
    assert_eq!((state.mask.len, state.mask.status), (6, 1)); // probed: the first read gives 1

    // Probed: a masked instruction runs over the mask length, not the current VL.
    let add = VectorInsn {
        src_a: SrcA::Scalar(100),
        src_b: SrcB::Enumerated,
        dest: 0x40,
        masked: true,
        ..insn(Opcode::Vadd, [B, B, B], UNSIGNED)
    };
    let vl = Shape::vector(2);
    assert_eq!(footprint(&add, &vl, &state.mask).writes, [range(0x40, 6)]);
    run(&add, &vl, &mut state);
    assert_eq!(state.data[0x40..0x48], [0, 101, 0, 103, 104, 0, 0, 0]);
    // The masked set-up narrows: only elements still enabled are re-evaluated.
    state.data[..6].copy_from_slice(&[1, 1, 1, 0, 1, 1]);
    let narrow = VectorInsn { masked: true, ..set_up };
    run(&narrow, &Shape::vector(1), &mut state);
    assert_eq!(state.mask.bits, [false, true, false, false, true, false]);
    assert_eq!((state.mask.len, state.mask.status), (6, 1));
    state.data[4] = 0;
    state.data[1] = 0;
    run(&narrow, &Shape::vector(1), &mut state);
    assert_eq!((state.mask.bits.contains(&true), state.mask.status), (false, 0));
}

#[test]
fn masked_rows_share_the_mask_and_masked_accumulate_still_writes() {
    let mut state = state_with(&[1, 2, 3, 4, 5, 6, 7, 8]);
    state.mask = Mask { bits: vec![true, false, true, false], len: 4, status: 1 };
    let acc = VectorInsn { dest: 0x40, masked: true, acc: true, ..insn(Opcode::Vmov, [H, B, B], SIGNED) };
    let shape = Shape { vl: 99, rows: 2, id: 2, ia: 4, ..Shape::vector(99) };
    run(&acc, &shape, &mut state);
    assert_eq!((half(&state, 0x40), half(&state, 0x42)), (1 + 3, 5 + 7));
    state.mask.bits.fill(false);
    state.data[0x40] = 0xee;
    run(&acc, &shape, &mut state);
    assert_eq!((half(&state, 0x40), state.flags[0x40]), (0, 0));
}

#[test]
fn unattached_custom_units_are_refused_without_effect() {
    let mut state = state_with(&[1, 2, 3, 4]);
    let before = state.clone();
    let custom = insn(Opcode::Vcustom(2), [W, W, W], SIGNED);
    assert_eq!(
        execute(&custom, &Shape::vector(1), &mut state, &PARAMS, &Default::default()),
        Err(VectorError::NoCustomUnit(2))
    );
    assert_eq!(state, before);
}

#[test]
fn custom_divide_takes_b_over_a() {
    let one = 1i32 << 16;
    let data: Vec<u8> = [2 * one, 0, 3 * one, one].iter().flat_map(|x| x.to_le_bytes()).collect();
    let mut state = state_with(&data);
    let divide = VectorInsn { src_b: SrcB::Vector(8), dest: 0x40, ..insn(Opcode::Vcustom(0), [W, W, W], SIGNED) };
    run(&divide, &Shape::vector(2), &mut state);
    assert_eq!((word(&state, 0x40), word(&state, 0x44)), ((3 * one / 2) as u32, 0x8000_0000));
    let root = VectorInsn { op: Opcode::Vcustom(1), ..divide };
    run(&root, &Shape::vector(1), &mut state);
    assert_eq!(word(&state, 0x40) as i32, 92682); // sqrt(2) in Q16.16
}

#[test]
fn footprint_names_only_the_operands_read() {
    let shape = Shape::vector(4);
    let mask = Mask::default();
    let base = VectorInsn {
        src_a: SrcA::Vector(0x10),
        src_b: SrcB::Vector(0x20),
        dest: 0x30,
        ..insn(Opcode::Vadd, [W, H, B], SIGNED)
    };
    let fp = footprint(&base, &shape, &mask);
    assert_eq!((fp.reads, fp.writes), (vec![range(0x10, 8), range(0x20, 4)], vec![range(0x30, 16)]));
    let vmov = VectorInsn { op: Opcode::Vmov, ..base };
    assert_eq!(footprint(&vmov, &shape, &mask).reads, [range(0x10, 8)]);
    let addc = VectorInsn { op: Opcode::Vaddc, ..base };
    assert_eq!(footprint(&addc, &shape, &mask).reads, [range(0x10, 8), range(0x20, 4)]);
    let scalar = VectorInsn { src_a: SrcA::Scalar(0x10), src_b: SrcB::Enumerated, ..base };
    assert_eq!(
        footprint(&scalar, &shape, &mask),
        Footprint { reads: vec![], a_reads: 0, writes: vec![range(0x30, 16)] }
    );
    let cmv = VectorInsn { op: Opcode::Vcmv(Test::Gtz), ..base };
    assert_eq!(footprint(&cmv, &shape, &mask).reads, [range(0x10, 8), range(0x20, 4)]);
}

#[test]
fn footprint_accepts_degenerate_shapes() {
    let mask = Mask::default();
    let vadd = insn(Opcode::Vadd, [W, W, W], SIGNED);
    assert_eq!(footprint(&vadd, &Shape::vector(0), &mask), Footprint::default());
    let acc = VectorInsn { acc: true, ..vadd };
    assert_eq!(footprint(&acc, &Shape::vector(0), &mask).writes, [range(0, 4)]);
    let fp = footprint(&vadd, &Shape::vector(u32::MAX), &mask);
    assert_eq!(fp.writes, [range(0, u32::MAX)]);
    let backwards = Shape { vl: 1, rows: 2, id: i32::MIN, ia: -4, ..Shape::vector(1) };
    let fp = footprint(&VectorInsn { dest: 8, ..vadd }, &backwards, &mask);
    assert_eq!(fp.writes, [range(8, 4), range(0x8000_0008, 4)]);
    // A's rows first: A's second row wrapped below zero.
    assert_eq!(fp.reads[1], range(0xffff_fffc, 4));
    assert!(fp.reads[1].end() > u64::from(u32::MAX), "runs off the end: the bounds check rejects it");
    let masked = VectorInsn { masked: true, ..vadd };
    assert_eq!(footprint(&masked, &Shape::vector(8), &Mask { bits: vec![], len: 3, status: 0 }).writes, [range(0, 12)]);
    assert_eq!(footprint(&masked, &Shape::vector(8), &mask), Footprint::default());
    let none = Shape { rows: 0, ..Shape::vector(8) };
    assert_eq!(footprint(&vadd, &none, &mask), Footprint::default());
}

#[test]
fn waves_per_row_depend_on_the_calculation_width() {
    let mask = Mask::default();
    let words = insn(Opcode::Vadd, [W, W, W], SIGNED);
    let bytes = insn(Opcode::Vadd, [B, B, B], SIGNED);
    let shape = Shape { vl: 17, rows: 3, mats: 2, ..Shape::vector(17) };
    assert_eq!(waves(&words, &shape, &mask, &PARAMS), 5 * 3 * 2);
    assert_eq!(waves(&bytes, &shape, &mask, &PARAMS), 2 * 3 * 2);
    // The widest of D, A and a vector B sets the width; the enumeration does not.
    let wide_b = insn(Opcode::Vadd, [B, B, W], SIGNED);
    assert_eq!(waves(&wide_b, &Shape::vector(17), &mask, &PARAMS), 5);
    let enumerated = VectorInsn { src_b: SrcB::Enumerated, ..wide_b };
    assert_eq!(waves(&enumerated, &Shape::vector(17), &mask, &PARAMS), 2);
    let one_lane = Params { lanes: 1, ..PARAMS };
    assert_eq!(waves(&words, &Shape::vector(17), &mask, &one_lane), 17);
    assert_eq!(waves(&words, &Shape::vector(0), &mask, &PARAMS), 0);
}

#[test]
fn waves_skip_masked_off_wavefronts_and_never_overflow() {
    let mut bits = vec![false; 40];
    bits[3] = true; // wave 0 (16 bytes per wave)
    bits[33] = true; // wave 2
    let mask = Mask { bits, len: 40, status: 1 };
    let masked = VectorInsn { masked: true, ..insn(Opcode::Vadd, [B, B, B], SIGNED) };
    assert_eq!(waves(&masked, &Shape::vector(1), &mask, &PARAMS), 2);
    let short = Mask { len: 20, ..mask.clone() };
    assert_eq!(waves(&masked, &Shape::vector(1), &short, &PARAMS), 1);
    let huge = Shape { vl: u32::MAX, rows: u32::MAX, mats: u32::MAX, ..Shape::vector(1) };
    let words = insn(Opcode::Vadd, [W, W, W], SIGNED);
    assert_eq!(waves(&words, &huge, &mask, &Params { lanes: 0, ..PARAMS }), u64::MAX);
    assert_eq!(
        waves(&words, &huge, &mask, &Params { lanes: u32::MAX, ..PARAMS }),
        u64::from(u32::MAX) * u64::from(u32::MAX)
    );
}
