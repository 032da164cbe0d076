//! Vector engine throughput: elements per second of the instruction kinds the SDK programs
//! spend their vector time in (the median filters' byte subtractions and conditional moves,
//! sobel's half-word arithmetic, the FFT's word multiplies), over rows as long as theirs.
//!
//! `cargo bench -p mxpsim-models --bench vector`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use mxpsim_models::mxp::command::{Opcode, Operand, Size, SrcA, SrcB, Test, VectorInsn};
use mxpsim_models::mxp::regs::Shape;
use mxpsim_models::mxp::vector::{execute, Params, VectorState};
use mxpsim_models::stop::StopRequest;

const SCRATCHPAD: u32 = 256 * 1024;
/// Elements per row: a median filter's slot on a 256 KiB scratchpad is about this long.
const VL: u32 = 8192;

fn operand(size: Size, signed: bool) -> Operand {
    Operand { size, signed }
}

/// A vector-vector instruction over `size` elements at three disjoint places.
fn vv(op: Opcode, size: Size, signed: bool) -> VectorInsn {
    let o = operand(size, signed);
    let bytes = VL * size.bytes();
    VectorInsn {
        op,
        d: o,
        a: o,
        b: o,
        src_a: SrcA::Vector(0),
        src_b: SrcB::Vector(bytes),
        dest: 2 * bytes,
        masked: false,
        acc: false,
    }
}

fn cases() -> Vec<(&'static str, VectorInsn)> {
    let in_place = VectorInsn { dest: 0, ..vv(Opcode::Vsub, Size::Byte, false) };
    let scalar = VectorInsn { src_a: SrcA::Scalar(3), ..vv(Opcode::Vmul, Size::Half, true) };
    let accumulate = VectorInsn { acc: true, ..vv(Opcode::Vmul, Size::Word, true) };
    vec![
        ("vsub ubyte", vv(Opcode::Vsub, Size::Byte, false)),
        ("vsub ubyte in place", in_place),
        ("vcmv_ltz ubyte", vv(Opcode::Vcmv(Test::Ltz), Size::Byte, false)),
        ("vadd shalf", vv(Opcode::Vadd, Size::Half, true)),
        ("vmul shalf scalar", scalar),
        ("vmulhi sword", vv(Opcode::Vmulhi, Size::Word, true)),
        ("vmul sword acc", accumulate),
    ]
}

fn vector(c: &mut Criterion) {
    let params = Params { lanes: 8, fxp_frac_bits: [4, 15, 16] };
    let stop = StopRequest::default();
    // Pseudo-random bytes, and a flag on about every other element (so that a conditional
    // move on a flag moves about half the elements).
    let mut initial = VectorState::new(SCRATCHPAD);
    for (k, byte) in initial.data.iter_mut().enumerate() {
        *byte = (k as u32).wrapping_mul(2_654_435_761).to_le_bytes()[3];
    }
    for (flag, byte) in initial.flags.iter_mut().zip(&initial.data) {
        *flag = byte & 1;
    }
    let mut group = c.benchmark_group("vector");
    group.throughput(Throughput::Elements(VL.into()));
    for (name, insn) in cases() {
        let shape = Shape::vector(VL);
        // Each case from the same scratchpad; within a case it carries over from run to run
        // (an in-place instruction changes its values, not the work it takes), as a
        // program's does.
        let mut state = initial.clone();
        group.bench_function(name, |b| b.iter(|| execute(&insn, &shape, &mut state, &params, &stop).expect("runs")));
    }
    group.finish();
}

criterion_group!(benches, vector);
criterion_main!(benches);
