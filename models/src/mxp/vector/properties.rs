//! Properties tying [`execute`] to [`footprint`]: whatever an instruction whose footprint lies
//! inside the scratchpad does, it does without panicking and only to the bytes it declares.

use super::*;
use crate::mxp::command::{Opcode, Operand, Size, SrcA, SrcB, Test, VectorInsn};
use proptest::prelude::*;

const SCRATCHPAD: u32 = 512;

fn size() -> impl Strategy<Value = Size> {
    prop_oneof![Just(Size::Byte), Just(Size::Half), Just(Size::Word)]
}

fn operand() -> impl Strategy<Value = Operand> {
    (size(), any::<bool>()).prop_map(|(size, signed)| Operand { size, signed })
}

fn opcode() -> impl Strategy<Value = Opcode> {
    use Opcode::*;
    let test =
        prop_oneof![Just(Test::Lez), Just(Test::Gtz), Just(Test::Ltz), Just(Test::Gez), Just(Test::Z), Just(Test::Nz)];
    prop_oneof![
        prop::sample::select(vec![
            Vmov, Vand, Vor, Vxor, Vadd, Vsub, Vaddc, Vsubb, Vmul, Vmulhi, Vmulfxp, Vsubfxp, Vshl, Vshr, Vslt, Vsgt,
            Vaddfxp, Vabsdiff
        ]),
        test.clone().prop_map(Vcmv),
        test.prop_map(VsetMsk),
        (0u8..3).prop_map(Vcustom),
    ]
}

fn address() -> impl Strategy<Value = u32> {
    0..SCRATCHPAD
}

fn insn() -> impl Strategy<Value = VectorInsn> {
    let src_a = prop_oneof![address().prop_map(SrcA::Vector), any::<u32>().prop_map(SrcA::Scalar)];
    let src_b = prop_oneof![address().prop_map(SrcB::Vector), Just(SrcB::Enumerated)];
    (opcode(), operand(), operand(), operand(), src_a, src_b, address(), any::<bool>(), any::<bool>()).prop_map(
        |(op, d, a, b, src_a, src_b, dest, masked, acc)| VectorInsn { op, d, a, b, src_a, src_b, dest, masked, acc },
    )
}

fn shape() -> impl Strategy<Value = Shape> {
    let stride = -40i32..40;
    (
        0u32..40,
        0u32..4,
        0u32..3,
        [stride.clone(), stride.clone(), stride.clone()],
        [stride.clone(), stride.clone(), stride],
    )
        .prop_map(|(vl, rows, mats, [id, ia, ib], [id3, ia3, ib3])| Shape {
            vl,
            rows,
            mats,
            id,
            ia,
            ib,
            id3,
            ia3,
            ib3,
        })
}

fn mask() -> impl Strategy<Value = Mask> {
    (prop::collection::vec(any::<bool>(), 0..48), 0u32..48).prop_map(|(bits, len)| Mask { bits, len, status: 0 })
}

fn state() -> impl Strategy<Value = VectorState> {
    let bytes = prop::collection::vec(any::<u8>(), SCRATCHPAD as usize);
    let flags = prop::collection::vec(prop::sample::select(vec![0u8, 0, 0, 1]), SCRATCHPAD as usize);
    (bytes, flags, mask()).prop_map(|(data, flags, mask)| VectorState { data, flags, mask })
}

fn params() -> impl Strategy<Value = Params> {
    (0u32..9, [0u32..8, 0..16, 0..32]).prop_map(|(lanes, fxp_frac_bits)| Params { lanes, fxp_frac_bits })
}

fn declared(ranges: &[Range], addr: usize) -> bool {
    ranges.iter().any(|r| (r.start as u64..r.end()).contains(&(addr as u64)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5_000))]

    #[test]
    fn execution_stays_inside_the_footprint(insn in insn(), shape in shape(), state in state(), params in params()) {
        let footprint = footprint(&insn, &shape, &state.mask);
        let inside = |r: &Range| r.end() <= u64::from(SCRATCHPAD);
        prop_assume!(footprint.reads.iter().chain(&footprint.writes).all(inside));
        let mut after = state.clone();
        let result = execute(&insn, &shape, &mut after, &params, &Default::default());
        if let Opcode::Vcustom(n @ 2..) = insn.op {
            prop_assert_eq!(result, Err(VectorError::NoCustomUnit(n)));
            prop_assert_eq!(&after, &state);
        }
        for addr in 0..SCRATCHPAD as usize {
            let changed = after.data[addr] != state.data[addr] || after.flags[addr] != state.flags[addr];
            prop_assert!(!changed || declared(&footprint.writes, addr), "byte {} changed outside {:?}", addr, footprint);
        }
        if !matches!(insn.op, Opcode::VsetMsk(_)) {
            prop_assert_eq!(&after.mask, &state.mask);
        }
    }

    #[test]
    fn footprint_and_waves_accept_any_shape(insn in insn(), vl: u32, rows in 0u32..3, mats in 0u32..3, strides: [i32; 6], mask in mask(), lanes: u32) {
        let [id, ia, ib, id3, ia3, ib3] = strides;
        let shape = Shape { vl, rows, mats, id, ia, ib, id3, ia3, ib3 };
        let footprint = footprint(&insn, &shape, &mask);
        prop_assert!(footprint.reads.len() <= 2 * (rows * mats) as usize);
        prop_assert!(footprint.writes.len() <= (rows * mats) as usize);
        let params = Params { lanes, fxp_frac_bits: [4, 15, 16] };
        let waves = waves(&insn, &shape, &mask, &params);
        let elements = if insn.masked { mask.len } else { vl };
        prop_assert!(waves <= u64::from(elements) * u64::from(rows * mats));
    }
}

/// The bytes of a list of ranges.
fn bytes_of(ranges: &[Range]) -> std::collections::BTreeSet<u64> {
    ranges.iter().flat_map(|r| u64::from(r.start)..r.end()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Above LISTED_ROWS rows the footprint is computed from the strides' extremes and as a
    /// union: with strict bounds it must accept exactly the instructions the row-by-row check
    /// accepts, with the same bytes per operand; without, it must give those bytes modulo the
    /// scratchpad's size.
    #[test]
    fn the_bounded_footprint_of_many_rows_is_the_rows_union(
        insn in insn(),
        vl in 1u32..6,
        rows in 65u32..80,
        mats in 64u32..70,
        strides in [-6i32..6, -6..6, -6..6, -12..12, -12..12, -12..12],
        size_log in 9u32..12,
    ) {
        let [id, ia, ib, id3, ia3, ib3] = strides;
        let shape = Shape { vl, rows, mats, id, ia, ib, id3, ia3, ib3 };
        let size = 1 << size_log;
        let mask = Mask::default();
        let listed = footprint(&insn, &shape, &mask);
        let fits = listed.reads.iter().chain(&listed.writes).all(|r| r.end() <= u64::from(size));
        let modulo = |ranges: &[Range]| bytes_of(ranges).into_iter().map(|b| b % u64::from(size)).collect::<std::collections::BTreeSet<_>>();
        let (a, b) = listed.reads.split_at(listed.a_reads as usize);
        match bounded_footprint(&insn, &shape, &mask, size, true) {
            Ok(bounded) => {
                prop_assert!(fits, "accepted rows outside the scratchpad");
                let (ba, bb) = bounded.reads.split_at(bounded.a_reads as usize);
                prop_assert_eq!(bytes_of(a), bytes_of(ba));
                prop_assert_eq!(bytes_of(b), bytes_of(bb));
                prop_assert_eq!(bytes_of(&listed.writes), bytes_of(&bounded.writes));
            }
            Err(e) => prop_assert!(!fits, "refused rows inside the scratchpad: {}", e),
        }
        let wrapped = bounded_footprint(&insn, &shape, &mask, size, false).expect("addresses wrap");
        let (wa, wb) = wrapped.reads.split_at(wrapped.a_reads as usize);
        prop_assert_eq!(modulo(a), bytes_of(wa));
        prop_assert_eq!(modulo(b), bytes_of(wb));
        prop_assert_eq!(modulo(&listed.writes), bytes_of(&wrapped.writes));
    }
}
