//! An independent reference model of the vector engine's arithmetic (`mxp-spec.md` §1.3,
//! §3.1–3.11), written straight from the spec to check [`super::vector`] against.
//!
//! Deliberately naive: every element is handled on its own with `i128` arithmetic on
//! mathematical values (a source value is an integer in the operation's domain:
//! `-2^(W-1) .. 2^(W-1)` for a signed operation, `0 .. 2^W` for an unsigned one, W = the
//! calculation width in bits). The only batching is the one the spec's overlap semantics
//! require (§3.2): within one wavefront every source element is read before any destination
//! element is written. Footprints are sets of byte addresses, not range lists.
//!
//! Decisions taken where the spec leaves room (shared with the engine):
//! * element `i` of row `r` of matrix `m` of a vector operand is at
//!   `base + m*inc3 + r*inc + i*size` (u32 wrapping); a scalar A never advances, is truncated to
//!   A's size and extended by A's sign bit; the enumerated B is `i` converted to the calculation
//!   type, restarting every row;
//! * calculation width: widest of D, A, B (VV/SV) or of D, A (VE/SE); operation sign = D's;
//! * flag shadow: a write stores the flag as a D-sized little-endian 0/1; a read tests the
//!   source-sized integer at the element for non-zero; scalar/enumerated operands have flag 0;
//! * accumulate: per row, signed sum of the W-level results of the elements that would be
//!   written; more than 40 signed bits → `AccumulatorOverflow { row }` (row counted over all
//!   matrices, rows before it already written); else saturate to D, flag = saturated;
//! * masked: run over `mask.len` elements; mask bit 0 → not written, not accumulated;
//!   VSET_MSK: unmasked sets `len = VL` and bits `0..VL`, masked re-evaluates set bits only;
//!   status = 1 if any bit of `0..len` is set, else 0 (bit 31 cleared);
//! * VCUSTOM0 = `fix16_div(b, a)`, VCUSTOM1 = `fix16_sqrt(a)` (flag 0; B is not read); other
//!   custom opcodes are `NoCustomUnit` and change nothing;
//! * addresses: a byte address is taken modulo the scratchpad's size (§3.1 item 7);
//! * shifts: amount = B at calculation width, mod 32; shifting happens on the (≥ 32-bit)
//!   value, then the result is taken at calculation width. VSHR's flag is "bit (b−1) of a
//!   when b > 0" with b = B's value (so a negative B gives flag 0) and the bit index mod 32;
//! * footprint: one row of A (if a vector; not for VSET_MSK, which examines only B, §2.7)
//!   and of B (if a vector; not for VMOV) per row read; D rows (accumulate: one element per
//!   row; VSET_MSK: none) written.
//! * waves (§3.11): per row, ceil(N / (lanes × 4 / c)) wavefronts; masked instructions skip
//!   wavefronts with no enabled element.

use super::command::{Opcode, Operand, SrcA, SrcB, Test, VectorInsn};
use super::regs::Shape;
use super::vector::{Mask, Params, VectorError, VectorState};
use std::collections::BTreeSet;

/// Bytes read and written (as u64: a row that runs past 2^32 is not folded back).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ByteFootprint {
    pub reads: BTreeSet<u64>,
    pub writes: BTreeSet<u64>,
}

/// One destination element the reference stored (for tolerant comparisons).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Written {
    pub addr: u32,
    /// Number of elements that went into it (1, or the row's count for accumulate).
    pub terms: u32,
    /// The accumulator saturated.
    pub saturated: bool,
}

// ---------------------------------------------------------------------------------------------
// Small helpers on mathematical integers.

fn bits_of(size_bytes: u32) -> u32 {
    size_bytes * 8
}

/// `v` reduced modulo 2^bits and read as a signed or unsigned `bits`-bit number.
fn wrap(v: i128, bits: u32, signed: bool) -> i128 {
    let modulus: i128 = 1 << bits;
    let low = v.rem_euclid(modulus);
    if signed && low >= modulus / 2 {
        low - modulus
    } else {
        low
    }
}

fn max_of(bits: u32, signed: bool) -> i128 {
    if signed {
        (1i128 << (bits - 1)) - 1
    } else {
        (1i128 << bits) - 1
    }
}

fn min_of(bits: u32, signed: bool) -> i128 {
    if signed {
        -(1i128 << (bits - 1))
    } else {
        0
    }
}

fn fits(v: i128, bits: u32, signed: bool) -> bool {
    v >= min_of(bits, signed) && v <= max_of(bits, signed)
}

fn clamp(v: i128, bits: u32, signed: bool) -> i128 {
    v.max(min_of(bits, signed)).min(max_of(bits, signed))
}

fn is_negative_at(v: i128, bits: u32) -> bool {
    // The top bit of the `bits`-bit pattern of v.
    (v.rem_euclid(1i128 << bits) >> (bits - 1)) & 1 == 1
}

// ---------------------------------------------------------------------------------------------
// Shape walking.

/// The mode letters: is A a vector, is B a vector.
fn a_is_vector(insn: &VectorInsn) -> bool {
    matches!(insn.src_a, SrcA::Vector(_))
}

fn b_is_vector(insn: &VectorInsn) -> bool {
    matches!(insn.src_b, SrcB::Vector(_))
}

/// Calculation width in bytes (§3.1.1).
pub fn calc_bytes(insn: &VectorInsn) -> u32 {
    let mut c = insn.d.size.bytes().max(insn.a.size.bytes());
    if b_is_vector(insn) {
        c = c.max(insn.b.size.bytes());
    }
    c
}

/// Elements per row: VL, or the mask length for masked instructions.
fn elements(insn: &VectorInsn, shape: &Shape, mask: &Mask) -> u32 {
    if insn.masked {
        mask.len
    } else {
        shape.vl
    }
}

/// One row of the instruction: its global index and the row start of each operand.
#[derive(Clone, Copy, Debug)]
struct Row {
    index: u32,
    d: u32,
    a: u32,
    b: u32,
}

fn row_start(base: u32, m: u32, r: u32, inc3: i32, inc: i32) -> u32 {
    let offset = (m as i64) * (inc3 as i64) + (r as i64) * (inc as i64);
    ((base as i64 + offset).rem_euclid(1i64 << 32)) as u32
}

fn all_rows(insn: &VectorInsn, shape: &Shape) -> Vec<Row> {
    let a_base = match insn.src_a {
        SrcA::Vector(addr) => addr,
        SrcA::Scalar(_) => 0,
    };
    let b_base = match insn.src_b {
        SrcB::Vector(addr) => addr,
        SrcB::Enumerated => 0,
    };
    let mut rows = Vec::new();
    let mut index = 0;
    for m in 0..shape.mats {
        for r in 0..shape.rows {
            rows.push(Row {
                index,
                d: row_start(insn.dest, m, r, shape.id3, shape.id),
                a: row_start(a_base, m, r, shape.ia3, shape.ia),
                b: row_start(b_base, m, r, shape.ib3, shape.ib),
            });
            index += 1;
        }
    }
    rows
}

fn element_addr(row: u32, i: u32, size: u32) -> u32 {
    row.wrapping_add(i.wrapping_mul(size))
}

fn reads_b(insn: &VectorInsn) -> bool {
    // VCUSTOM1, the square root, has one operand.
    b_is_vector(insn) && !matches!(insn.op, Opcode::Vmov | Opcode::Vcustom(1))
}

// ---------------------------------------------------------------------------------------------
// Footprint and waves.

/// The bytes `insn` reads and writes.
pub fn footprint(insn: &VectorInsn, shape: &Shape, mask: &Mask) -> ByteFootprint {
    let n = elements(insn, shape, mask) as u64;
    let (asz, bsz, dsz) = (insn.a.size.bytes() as u64, insn.b.size.bytes() as u64, insn.d.size.bytes() as u64);
    let mut fp = ByteFootprint::default();
    for row in all_rows(insn, shape) {
        // VSET_MSK examines only B (§2.7, §3.3).
        if a_is_vector(insn) && !matches!(insn.op, Opcode::VsetMsk(_)) {
            for byte in 0..n * asz {
                fp.reads.insert(row.a as u64 + byte);
            }
        }
        if reads_b(insn) {
            for byte in 0..n * bsz {
                fp.reads.insert(row.b as u64 + byte);
            }
        }
        match insn.op {
            Opcode::VsetMsk(_) => {}
            _ if insn.acc => {
                for byte in 0..dsz {
                    fp.writes.insert(row.d as u64 + byte);
                }
            }
            _ => {
                for byte in 0..n * dsz {
                    fp.writes.insert(row.d as u64 + byte);
                }
            }
        }
    }
    fp
}

/// Wavefronts (§3.11): rows × mats × wavefronts per row; masked instructions skip wavefronts
/// whose elements are all masked off.
pub fn waves(insn: &VectorInsn, shape: &Shape, mask: &Mask, params: &Params) -> u64 {
    let n = elements(insn, shape, mask);
    let per_wave = params.lanes * 4 / calc_bytes(insn);
    let mut per_row: u64 = 0;
    let mut start = 0;
    while start < n {
        let end = (start + per_wave).min(n);
        let any_enabled = !insn.masked || (start..end).any(|i| mask_bit(mask, i));
        if any_enabled {
            per_row += 1;
        }
        start = end;
    }
    per_row * shape.rows as u64 * shape.mats as u64
}

fn mask_bit(mask: &Mask, i: u32) -> bool {
    mask.bits.get(i as usize).copied().unwrap_or(false)
}

// ---------------------------------------------------------------------------------------------
// Scratchpad access.

/// Byte `k` of the element at `addr`: the scratchpad's addresses are taken modulo its size.
fn byte_at(state: &VectorState, addr: u32, k: u32) -> usize {
    (addr as u64 + k as u64) as usize % state.data.len()
}

fn load(state: &VectorState, addr: u32, size: u32) -> u64 {
    let mut v: u64 = 0;
    for k in 0..size {
        v |= (state.data[byte_at(state, addr, k)] as u64) << (8 * k);
    }
    v
}

fn load_flag(state: &VectorState, addr: u32, size: u32) -> bool {
    (0..size).any(|k| state.flags[byte_at(state, addr, k)] != 0)
}

fn store(state: &mut VectorState, addr: u32, size: u32, value: i128, flag: bool) {
    let pattern = value.rem_euclid(1i128 << bits_of(size));
    for k in 0..size {
        let a = byte_at(state, addr, k);
        state.data[a] = ((pattern >> (8 * k)) & 0xff) as u8;
        state.flags[a] = if k == 0 { flag as u8 } else { 0 };
    }
}

/// A raw `size`-byte pattern extended by its own sign to a mathematical integer.
fn extend(raw: u64, size: u32, signed: bool) -> i128 {
    wrap(raw as i128, bits_of(size), signed)
}

/// A source: the value in the operation's domain, the source's own signedness (VMULHI) and
/// its flag.
#[derive(Clone, Copy, Debug)]
struct Src {
    value: i128,
    own_signed: bool,
    flag: bool,
}

struct Ctx {
    /// Calculation width, bits.
    w: u32,
    /// Operation sign.
    signed: bool,
    /// VMULFXP fractional bits for this calculation width.
    frac: u32,
}

fn read_a(insn: &VectorInsn, ctx: &Ctx, state: &VectorState, row: &Row, i: u32) -> Src {
    let size = insn.a.size.bytes();
    let (raw, flag) = match insn.src_a {
        SrcA::Scalar(word) => (word as u64 & ((1u64 << bits_of(size)) - 1), false),
        SrcA::Vector(_) => {
            let addr = element_addr(row.a, i, size);
            (load(state, addr, size), load_flag(state, addr, size))
        }
    };
    let extended = extend(raw, size, insn.a.signed);
    Src { value: wrap(extended, ctx.w, ctx.signed), own_signed: insn.a.signed, flag }
}

fn read_b(insn: &VectorInsn, ctx: &Ctx, state: &VectorState, row: &Row, i: u32) -> Src {
    if insn.op == Opcode::Vmov {
        // VMOV does not read B (and B need not be inside the scratchpad).
        return Src { value: 0, own_signed: insn.b.signed, flag: false };
    }
    match insn.src_b {
        // Generated in the calculation type (§3.1.4): it has no sign bit of its own that
        // VMULHI's mixed-sign rule could re-extend (as the vendor simulator computes it).
        SrcB::Enumerated => Src { value: wrap(i as i128, ctx.w, ctx.signed), own_signed: ctx.signed, flag: false },
        SrcB::Vector(_) => {
            let size = insn.b.size.bytes();
            let addr = element_addr(row.b, i, size);
            let extended = extend(load(state, addr, size), size, insn.b.signed);
            Src {
                value: wrap(extended, ctx.w, ctx.signed),
                own_signed: insn.b.signed,
                flag: load_flag(state, addr, size),
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Per-element semantics (§3.3, §3.5, §3.6, §3.10).

/// The outcome of one element: `None` = nothing written (false conditional-move predicate).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The result at calculation width, in the operation's domain.
    pub value: i128,
    pub flag: bool,
    /// Fixed-point op: clamp (instead of truncate) when D is narrower than the calculation.
    pub saturating: bool,
}

/// The predicate of a conditional move / mask set-up (§3.5).
pub fn predicate(test: Test, b: i128, fb: bool, w: u32, signed: bool) -> bool {
    let n = is_negative_at(b, w);
    let z = b == 0;
    let x = if signed { fb ^ n } else { fb };
    match test {
        Test::Ltz => x,
        Test::Gez => !x,
        Test::Lez => x || z,
        Test::Gtz => !(x || z),
        Test::Z => z,
        Test::Nz => !z,
    }
}

/// libfixmath `fix16_div(a, b)` = a / b in Q16.16, rounded half away from zero on the
/// magnitude; b = 0 or a result out of range → 0x80000000.
pub fn fix16_div(a: i32, b: i32) -> i32 {
    if b == 0 {
        return i32::MIN;
    }
    let num = (a as i128).abs();
    let den = (b as i128).abs();
    let q = (num << 17) / den;
    if q > 0xffff_ffff {
        return i32::MIN;
    }
    let rounded = ((q + 1) & 0xffff_ffff) >> 1; // the C code's `quotient++` is a u32
    let magnitude = rounded as i64;
    let negative = (a < 0) != (b < 0);
    if negative {
        (-magnitude) as i32
    } else {
        magnitude as i32
    }
}

/// libfixmath `fix16_sqrt`: √x in Q16.16, rounded; negative x → −√|x|.
pub fn fix16_sqrt(x: i32) -> i32 {
    let magnitude = (x as i64).unsigned_abs() as u128;
    let target = magnitude << 16;
    // Integer square root by bisection (obviously right, not fast).
    let (mut lo, mut hi) = (0u128, 1u128 << 32);
    while lo + 1 < hi {
        let mid = (lo + hi) / 2;
        if mid * mid <= target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let mut root = lo;
    if target - root * root > root {
        root += 1; // nearer to root + 1
    }
    if x < 0 {
        (root as i64).wrapping_neg() as i32
    } else {
        root as i32
    }
}

fn element(op: Opcode, ctx: &Ctx, a: Src, b: Src) -> Option<Outcome> {
    let (w, s) = (ctx.w, ctx.signed);
    let (av, bv) = (a.value, b.value);
    let plain = |value: i128, flag: bool| Some(Outcome { value: wrap(value, w, s), flag, saturating: false });
    let neg = |v: i128| v < 0; // values are in the operation's domain
    match op {
        Opcode::Vmov => plain(av, a.flag),
        Opcode::Vand => plain(av & bv, a.flag & b.flag),
        Opcode::Vor => plain(av | bv, a.flag | b.flag),
        Opcode::Vxor => plain(av ^ bv, a.flag ^ b.flag),
        Opcode::Vadd => {
            let r = wrap(av + bv, w, s);
            let flag = if s { neg(av) == neg(bv) && neg(r) != neg(av) } else { r < av };
            plain(r, flag)
        }
        Opcode::Vsub => {
            let r = wrap(av - bv, w, s);
            let flag = if s { (!neg(av) && neg(bv) && neg(r)) || (neg(av) && !neg(bv) && !neg(r)) } else { av < bv };
            plain(r, flag)
        }
        Opcode::Vaddc => {
            let c = b.flag as i128;
            let r = wrap(av + c, w, s);
            let flag = if s { neg(av) == neg(c) && neg(r) != neg(av) } else { r < av };
            plain(r, flag)
        }
        Opcode::Vsubb => {
            let c = b.flag as i128;
            let r = wrap(av - c, w, s);
            let flag = if s {
                (!neg(av) && neg(c) && neg(r)) || (neg(av) && !neg(c) && !neg(r))
            } else {
                av > r // sim quirk (§3.3)
            };
            plain(r, flag)
        }
        Opcode::Vmul => {
            let r = wrap(av * bv, w, s);
            let flag = if s { neg(r) != (neg(av) ^ neg(bv)) } else { av != 0 && bv > max_of(w, false) / av };
            plain(r, flag)
        }
        Opcode::Vmulhi => {
            // Signed op: a source whose own sign bit is 0 is taken unsigned (mixed multiply).
            let take = |src: Src| if s && !src.own_signed { src.value.rem_euclid(1i128 << w) } else { src.value };
            let product = take(a) * take(b);
            let high = product >> w; // floor: the high half of the 2W-bit two's complement
            let flag = (product >> (w - 1)) & 1 == 1;
            plain(high, flag)
        }
        Opcode::Vmulfxp => {
            let f = ctx.frac;
            let round = if f == 0 { 0 } else { 1i128 << (f - 1) };
            let p = av * bv + round;
            let (value, flag) = if s {
                let shifted = p >> f;
                if fits(shifted, w, true) {
                    (shifted, false)
                } else if shifted > 0 {
                    (max_of(w, true), true)
                } else {
                    (min_of(w, true), true)
                }
            } else if p >> (w + f) != 0 {
                (max_of(w, false), true)
            } else {
                (p >> f, false)
            };
            Some(Outcome { value: wrap(value, w, s), flag, saturating: true })
        }
        Opcode::Vaddfxp | Opcode::Vsubfxp => {
            let exact = if op == Opcode::Vaddfxp { av + bv } else { av - bv };
            let value = clamp(exact, w, s);
            Some(Outcome { value, flag: value != exact, saturating: true })
        }
        Opcode::Vshl => {
            let amount = bv.rem_euclid(32) as u32;
            let r = wrap(av << amount, w, s);
            let back = r >> amount; // arithmetic for signed (r < 0), logical otherwise (r ≥ 0)
            plain(r, back != av)
        }
        Opcode::Vshr => {
            let amount = bv.rem_euclid(32) as u32;
            let r = av >> amount;
            // "bit (b−1) of a when b > 0": the condition is on B's value (a negative B gives 0
            // even though it shifts by B mod 32), the bit index follows the host's mod-32 rule.
            let flag = bv > 0 && (av >> ((bv - 1).rem_euclid(32))) & 1 == 1;
            plain(r, flag)
        }
        Opcode::Vslt => plain((av < bv) as i128, false),
        Opcode::Vsgt => plain((av > bv) as i128, false),
        Opcode::Vabsdiff => plain((av - bv).abs(), false),
        Opcode::Vcmv(test) => {
            if predicate(test, bv, b.flag, w, s) {
                plain(av, a.flag)
            } else {
                None
            }
        }
        Opcode::Vcustom(0) => plain(fix16_div(bv as i32, av as i32) as i128, false),
        Opcode::Vcustom(1) => plain(fix16_sqrt(av as i32) as i128, false),
        Opcode::VsetMsk(_) | Opcode::Vcustom(_) => unreachable!("handled by execute"),
    }
}

// ---------------------------------------------------------------------------------------------
// Execution.

/// Executes `insn` like [`super::vector::execute`]. Also returns every destination element
/// stored, in order.
pub fn execute(
    insn: &VectorInsn,
    shape: &Shape,
    state: &mut VectorState,
    params: &Params,
) -> Result<Vec<Written>, VectorError> {
    if let Opcode::Vcustom(n) = insn.op {
        if n >= 2 {
            return Err(VectorError::NoCustomUnit(n));
        }
    }
    let c = calc_bytes(insn);
    let w = bits_of(c);
    let frac_index = match c {
        1 => 0,
        2 => 1,
        _ => 2,
    };
    let ctx = Ctx { w, signed: insn.d.signed, frac: params.fxp_frac_bits[frac_index] };
    let n = elements(insn, shape, &state.mask);
    let rows = all_rows(insn, shape);
    let dsize = insn.d.size.bytes();
    let dbits = bits_of(dsize);
    let mut written = Vec::new();

    if let Opcode::VsetMsk(test) = insn.op {
        if !insn.masked {
            state.mask.len = shape.vl;
            state.mask.bits = vec![false; shape.vl as usize];
        }
        for row in &rows {
            for i in 0..n {
                if insn.masked && !mask_bit(&state.mask, i) {
                    continue;
                }
                let b = read_b(insn, &ctx, state, row, i);
                let bit = predicate(test, b.value, b.flag, w, ctx.signed);
                if (i as usize) >= state.mask.bits.len() {
                    state.mask.bits.resize(i as usize + 1, false);
                }
                state.mask.bits[i as usize] = bit;
            }
        }
        let any = (0..state.mask.len).any(|i| mask_bit(&state.mask, i));
        state.mask.status = any as u32;
        return Ok(written);
    }

    let enabled = |mask: &Mask, i: u32| !insn.masked || mask_bit(mask, i);

    if insn.acc {
        for row in &rows {
            let mut sum: i128 = 0;
            let mut terms = 0;
            for i in 0..n {
                if !enabled(&state.mask, i) {
                    continue;
                }
                let a = read_a(insn, &ctx, state, row, i);
                let b = read_b(insn, &ctx, state, row, i);
                if let Some(out) = element(insn.op, &ctx, a, b) {
                    sum += out.value; // W-level value, extended by the operation sign
                    terms += 1;
                }
            }
            if !fits(sum, 40, true) {
                return Err(VectorError::AccumulatorOverflow { row: row.index });
            }
            let (value, saturated) = if insn.d.signed {
                let v = clamp(sum, dbits, true);
                (v, v != sum)
            } else if sum < 0 || sum > max_of(dbits, false) {
                (max_of(dbits, false), true)
            } else {
                (sum, false)
            };
            store(state, row.d, dsize, value, saturated);
            written.push(Written { addr: row.d, terms, saturated });
        }
        return Ok(written);
    }

    let per_wave = params.lanes * 4 / c;
    for row in &rows {
        let mut start = 0;
        while start < n {
            let end = (start + per_wave).min(n);
            // Read every source of the wavefront first …
            let mut results = Vec::new();
            for i in start..end {
                if !enabled(&state.mask, i) {
                    continue;
                }
                let a = read_a(insn, &ctx, state, row, i);
                let b = read_b(insn, &ctx, state, row, i);
                if let Some(out) = element(insn.op, &ctx, a, b) {
                    results.push((i, out));
                }
            }
            // … then write its destination elements.
            for (i, out) in results {
                let value = if out.saturating && dbits < w { clamp(out.value, dbits, ctx.signed) } else { out.value };
                let addr = element_addr(row.d, i, dsize);
                store(state, addr, dsize, value, out.flag);
                written.push(Written { addr, terms: 1, saturated: false });
            }
            start = end;
        }
    }
    Ok(written)
}

/// The operand sizes, for printing a case.
pub fn describe_operand(o: &Operand) -> String {
    format!("{}{}", o.size.bytes(), if o.signed { "s" } else { "u" })
}
