//! Running one instruction over its rows: fetching operands, and the three ways results leave
//! the engine — stored element by element, reduced by the accumulator, or set into the mask.

use super::alu::{self, Ctx, Elem, Narrowing};
use super::int_type::IntType;
use super::layout::{self, Row};
use super::{Mask, Params, VectorError, VectorState};
use crate::mxp::command::{Opcode, Size, SrcA, SrcB, VectorInsn};
use crate::mxp::regs::Shape;
use crate::stop::StopRequest;
use std::ops::Range;

/// An instruction with everything derived from it once.
struct Plan<'a> {
    insn: &'a VectorInsn,
    shape: &'a Shape,
    ctx: Ctx,
    dest: IntType,
    narrowing: Narrowing,
    /// Elements per row.
    len: u32,
    /// Elements per wavefront.
    wave_len: u32,
}

impl<'a> Plan<'a> {
    fn new(insn: &'a VectorInsn, shape: &'a Shape, mask: &Mask, params: &Params) -> Self {
        let ctx = Ctx::new(insn, params);
        Plan {
            insn,
            shape,
            ctx,
            dest: insn.d.into(),
            narrowing: Narrowing::new(insn.op, ctx.calc, insn.d.into()),
            len: layout::row_len(insn, shape, mask),
            wave_len: layout::wave_len(ctx.calc, params.lanes),
        }
    }
}

pub(super) fn execute(
    insn: &VectorInsn,
    shape: &Shape,
    state: &mut VectorState,
    params: &Params,
    stop: &StopRequest,
) -> Result<(), VectorError> {
    if let Opcode::Vcustom(n) = insn.op {
        if !alu::has_custom_unit(n) {
            return Err(VectorError::NoCustomUnit(n));
        }
    }
    let plan = Plan::new(insn, shape, &state.mask, params);
    // A command may have 2^64 rows: a stop request is looked at before each.
    let rows = layout::rows(insn, shape).map(|row| stop.reason().map_or(Ok(row), |_| Err(VectorError::Stopped)));
    match insn.op {
        // The mask has no address: a set-up ignores MOD_ACC.
        Opcode::VsetMsk(_) => set_up_mask(&plan, state, rows),
        _ if insn.acc => accumulate(&plan, state, rows),
        _ => store_elements(&plan, state, rows),
    }
}

/// The rows of an instruction, each unless a stop was requested before it.
trait Rows: Iterator<Item = Result<Row, VectorError>> {}
impl<I: Iterator<Item = Result<Row, VectorError>>> Rows for I {}

/// Where one row's operand elements come from.
enum Source {
    /// Elements of this type at consecutive addresses from `base`.
    Vector { base: u32, ty: IntType },
    /// The same value, flag clear, for every element (a scalar A, already in the calculation
    /// type).
    Constant(i64),
    /// 0, 1, 2, … in the calculation type, flag clear.
    Enumeration,
    /// An operand the instruction does not read: value 0, flag clear.
    Unread,
}

impl Source {
    fn a(plan: &Plan, row: &Row) -> Source {
        if !layout::reads_a(plan.insn.op) {
            return Source::Unread;
        }
        let ty = plan.insn.a.into();
        match row.a {
            SrcA::Vector(base) => Source::Vector { base, ty },
            // Truncated to A's size and extended by A's sign (§3.1 item 3).
            SrcA::Scalar(word) => Source::Constant(plan.ctx.calc.wrap(ty.wrap(word.into()))),
        }
    }

    fn b(plan: &Plan, row: &Row) -> Source {
        if !layout::reads_b(plan.insn.op) {
            return Source::Unread;
        }
        match row.b {
            SrcB::Vector(base) => Source::Vector { base, ty: plan.insn.b.into() },
            SrcB::Enumerated => Source::Enumeration,
        }
    }

    /// Element `i`, converted to the calculation type `calc`: extended by its own sign, then
    /// read with the operation's (§3.1 item 2).
    fn fetch(&self, state: &VectorState, calc: IntType, i: u32) -> Elem {
        match *self {
            Source::Vector { base, ty } => {
                let addr = layout::element_addr(base, i, ty.size);
                let raw = load(&state.data, addr, ty.size);
                let flag = load(&state.flags, addr, ty.size) != 0;
                Elem::new(calc.wrap(ty.wrap(raw.into())), flag)
            }
            Source::Constant(value) => Elem::new(value, false),
            Source::Enumeration => Elem::new(calc.wrap(i.into()), false),
            Source::Unread => Elem::new(0, false),
        }
    }

    /// Elements `first..end`, as [`Source::fetch`] reads them one by one, into `out`
    /// (emptied first): the elements of a vector that does not wrap around the scratchpad's
    /// end are read straight from its slices, a constant is repeated.
    fn fetch_range(&self, state: &VectorState, calc: IntType, first: u32, end: u32, out: &mut Vec<Elem>) {
        out.clear();
        match *self {
            Source::Vector { base, ty } => {
                let at = layout::element_addr(base, first, ty.size) as usize;
                let bytes = (end - first) as usize * ty.size.bytes() as usize;
                if let (Some(data), Some(flags)) = (state.data.get(at..at + bytes), state.flags.get(at..at + bytes)) {
                    match ty.size {
                        Size::Byte => gather::<1>(data, flags, ty, calc, out),
                        Size::Half => gather::<2>(data, flags, ty, calc, out),
                        Size::Word => gather::<4>(data, flags, ty, calc, out),
                    }
                    return;
                }
            }
            Source::Constant(_) | Source::Unread => {
                out.resize((end - first) as usize, self.fetch(state, calc, first));
                return;
            }
            Source::Enumeration => {}
        }
        out.extend((first..end).map(|i| self.fetch(state, calc, i)));
    }
}

/// Elements of `N` bytes from `data` with their flags from `flags` (the same span of the
/// shadow), converted as [`Source::fetch`] converts them.
fn gather<const N: usize>(data: &[u8], flags: &[u8], ty: IntType, calc: IntType, out: &mut Vec<Elem>) {
    out.extend(data.chunks_exact(N).zip(flags.chunks_exact(N)).map(|(value, flag)| {
        let mut word = [0; 4];
        word[..N].copy_from_slice(value);
        let raw = u32::from_le_bytes(word);
        Elem::new(calc.wrap(ty.wrap(raw.into())), flag.iter().any(|&byte| byte != 0))
    }));
}

/// Both sources of one row.
struct Operands {
    a: Source,
    b: Source,
}

/// One chunk's source elements and results, reused from chunk to chunk.
#[derive(Default)]
struct Chunk {
    a: Vec<Elem>,
    b: Vec<Elem>,
    /// Per element of the chunk: what it writes (`None`: disabled, or it writes nothing).
    results: Vec<Option<Elem>>,
}

/// The most elements of a chunk larger than a wavefront (it bounds the buffers for rows of
/// any length). Small enough for a chunk's sources (16 bytes an element each) to stay in the
/// host's first-level cache between their gather and their use.
const MAX_CHUNK: u32 = 512;

/// A row of `len` elements in chunks of `size` (the last may be shorter), as `first..end`.
fn chunks(len: u32, size: u32) -> impl Iterator<Item = (u32, u32)> {
    (0..len).step_by(size as usize).map(move |first| (first, first.saturating_add(size).min(len)))
}

/// [`alu::ElementLoop`]: each pair of source elements through the operation, into `results`.
struct ComputeAll<'a> {
    a: &'a [Elem],
    b: &'a [Elem],
    results: &'a mut Vec<Option<Elem>>,
}

impl alu::ElementLoop for ComputeAll<'_> {
    type Output = ();
    #[inline(always)]
    fn run(self, f: impl Fn(Elem, Elem) -> Option<Elem>) {
        self.results.clear();
        self.results.extend(self.a.iter().zip(self.b).map(|(&a, &b)| f(a, b)));
    }
}

/// What the `elements` of a chunk whose sources are in `chunk` compute, into `chunk.results`
/// (a disabled element writes nothing).
fn compute_fetched(plan: &Plan, mask: &Mask, elements: Range<u32>, chunk: &mut Chunk) {
    let all = ComputeAll { a: &chunk.a, b: &chunk.b, results: &mut chunk.results };
    alu::with_element_fn(plan.insn.op, &plan.ctx, all);
    if plan.insn.masked {
        for (i, result) in elements.zip(chunk.results.iter_mut()) {
            if !layout::enabled(plan.insn, mask, i) {
                *result = None;
            }
        }
    }
}

impl Operands {
    fn new(plan: &Plan, row: &Row) -> Self {
        Operands { a: Source::a(plan, row), b: Source::b(plan, row) }
    }

    /// The source elements `first..end`, into `chunk.a` and `chunk.b`.
    fn fetch_chunk(&self, plan: &Plan, state: &VectorState, first: u32, end: u32, chunk: &mut Chunk) {
        let calc = plan.ctx.calc;
        self.a.fetch_range(state, calc, first, end, &mut chunk.a);
        self.b.fetch_range(state, calc, first, end, &mut chunk.b);
    }

    /// What the elements `first..end` compute, into `chunk.results` (all sources are read
    /// first; a disabled element writes nothing).
    fn compute_chunk(&self, plan: &Plan, state: &VectorState, first: u32, end: u32, chunk: &mut Chunk) {
        self.fetch_chunk(plan, state, first, end, chunk);
        compute_fetched(plan, &state.mask, first..end, chunk);
    }

    /// Whether no element of the row reads a byte that an element before it writes: then any
    /// grouping of the row's elements gives the results of the wavefronts (§3.2), and the row
    /// can be computed in chunks of many wavefronts. Each source read must be apart from D, or
    /// be D itself (same start, same element size: an element reads only what it writes).
    /// An operand that wraps around the scratchpad's end counts as dependent (rare: no closer
    /// look).
    fn independent_of(&self, plan: &Plan, d: u32, scratchpad: usize) -> bool {
        let span = |base: u32, size: Size| {
            let start = base as u64;
            let end = start + u64::from(plan.len) * u64::from(size.bytes());
            (end <= scratchpad as u64).then_some((start, end))
        };
        let Some((d_start, d_end)) = span(d, plan.dest.size) else { return false };
        [&self.a, &self.b].into_iter().all(|source| match *source {
            Source::Vector { base, ty } => match span(base, ty.size) {
                Some((start, end)) => end <= d_start || d_end <= start || (base == d && ty.size == plan.dest.size),
                None => false,
            },
            Source::Constant(_) | Source::Enumeration | Source::Unread => true,
        })
    }
}

/// The ordinary instruction: every enabled, written element goes to D. Within a wavefront all
/// sources are read before any result is stored; wavefronts and rows follow in order, so a
/// later wavefront sees an earlier one's results (§3.2). A row whose elements do not read
/// what earlier ones write is computed in larger chunks, with the same results.
fn store_elements(plan: &Plan, state: &mut VectorState, rows: impl Rows) -> Result<(), VectorError> {
    let mut chunk = Chunk::default();
    for row in rows {
        let row = row?;
        let operands = Operands::new(plan, &row);
        let chunk_len = if operands.independent_of(plan, row.d, state.data.len()) {
            plan.wave_len.max(MAX_CHUNK)
        } else {
            plan.wave_len
        };
        for (start, end) in chunks(plan.len, chunk_len) {
            // The chunk's sources are all read before any of its results is stored.
            operands.fetch_chunk(plan, state, start, end, &mut chunk);
            let stored = match plan.dest.size {
                Size::Byte => compute_store_chunk::<1>(plan, state, row.d, start..end, &chunk),
                Size::Half => compute_store_chunk::<2>(plan, state, row.d, start..end, &chunk),
                Size::Word => compute_store_chunk::<4>(plan, state, row.d, start..end, &chunk),
            };
            if !stored {
                compute_store_wrapping_chunk(plan, state, row.d, start..end, &mut chunk);
            }
        }
    }
    Ok(())
}

/// [`alu::ElementLoop`]: each pair of source elements through the operation, each enabled
/// result straight into its D element of `N` bytes and its flag, as [`store_element`] stores
/// them.
struct ComputeStore<'a, const N: usize> {
    plan: &'a Plan<'a>,
    a: &'a [Elem],
    b: &'a [Elem],
    /// D's bytes for the chunk, and their flags.
    data: &'a mut [u8],
    flags: &'a mut [u8],
    /// The mask, and the chunk's elements as indices in the row: consulted only for a
    /// masked instruction.
    mask: &'a Mask,
    elements: Range<u32>,
}

impl<const N: usize> alu::ElementLoop for ComputeStore<'_, N> {
    type Output = ();
    #[inline(always)]
    fn run(self, f: impl Fn(Elem, Elem) -> Option<Elem>) {
        // Copied out of the plan: the stores through `data` could otherwise be taken to
        // change them, and they would be loaded again for every element.
        let (masked, narrowing) = (self.plan.insn.masked, self.plan.narrowing);
        let insn = self.plan.insn;
        let sources = self.a.iter().zip(self.b);
        let destinations = self.data.chunks_exact_mut(N).zip(self.flags.chunks_exact_mut(N));
        for (i, ((&a, &b), (value, flag))) in self.elements.zip(sources.zip(destinations)) {
            if masked && !layout::enabled(insn, self.mask, i) {
                continue;
            }
            if let Some(result) = f(a, b) {
                let narrowed = narrowing.apply(result.value) as u32;
                value.copy_from_slice(&narrowed.to_le_bytes()[..N]);
                flag.copy_from_slice(&u32::from(result.flag).to_le_bytes()[..N]);
            }
        }
    }
}

/// Computes the chunk whose sources are in `chunk` and stores its results, the `elements` of
/// the row at `d` (each D element of `N` bytes), straight into the scratchpad's slices;
/// `false` (nothing done) if the chunk wraps around the scratchpad's end.
fn compute_store_chunk<const N: usize>(
    plan: &Plan,
    state: &mut VectorState,
    d: u32,
    elements: Range<u32>,
    chunk: &Chunk,
) -> bool {
    let at = layout::element_addr(d, elements.start, plan.dest.size) as usize;
    let bytes = chunk.a.len() * N;
    let (Some(data), Some(flags)) = (state.data.get_mut(at..at + bytes), state.flags.get_mut(at..at + bytes)) else {
        return false;
    };
    let mask = &state.mask;
    let store = ComputeStore::<N> { plan, a: &chunk.a, b: &chunk.b, data, flags, mask, elements };
    alu::with_element_fn(plan.insn.op, &plan.ctx, store);
    true
}

/// [`compute_store_chunk`] for a chunk that wraps around the scratchpad's end: element by
/// element.
fn compute_store_wrapping_chunk(plan: &Plan, state: &mut VectorState, d: u32, elements: Range<u32>, chunk: &mut Chunk) {
    compute_fetched(plan, &state.mask, elements.clone(), chunk);
    for (i, result) in elements.zip(&chunk.results) {
        if let Some(result) = result {
            let narrowed = plan.narrowing.apply(result.value);
            let addr = layout::element_addr(d, i, plan.dest.size);
            store_element(state, addr, plan.dest.size, Elem::new(narrowed, result.flag));
        }
    }
}

/// MOD_ACC: each row's written elements, at the calculation width, are summed into the 40-bit
/// accumulator, whose value is saturated into the one element at the row's D address (§3.7).
fn accumulate(plan: &Plan, state: &mut VectorState, rows: impl Rows) -> Result<(), VectorError> {
    let mut chunk = Chunk::default();
    for row in rows {
        let row = row?;
        let sum = row_sum(plan, state, &row, &mut chunk);
        let total = accumulator(sum).ok_or(VectorError::AccumulatorOverflow { row: row.index })?;
        store_element(state, row.d, plan.dest.size, saturate_to_destination(plan.dest, total));
    }
    Ok(())
}

/// The sum of a row's enabled, written results (the vendor simulator's 64-bit sum). (Nothing
/// is stored before the row's end: it is computed in chunks of any size.)
fn row_sum(plan: &Plan, state: &VectorState, row: &Row, chunk: &mut Chunk) -> i64 {
    let operands = Operands::new(plan, row);
    let mut sum: i64 = 0;
    for (start, end) in chunks(plan.len, MAX_CHUNK) {
        operands.compute_chunk(plan, state, start, end, chunk);
        sum = chunk.results.iter().flatten().fold(sum, |sum, result| sum.wrapping_add(result.value));
    }
    sum
}

/// `sum` in the 40-bit accumulator, or `None` if bits above it were lost (where the vendor
/// simulator aborts).
fn accumulator(sum: i64) -> Option<i64> {
    const UNUSED: u32 = 64 - 40;
    let kept = (sum << UNUSED) >> UNUSED;
    (kept == sum).then_some(kept)
}

/// The accumulator's value in D's type, flagged if it did not fit. An unsigned D takes any
/// value with bits above its width — including a negative one — as too large.
fn saturate_to_destination(dest: IntType, total: i64) -> Elem {
    let fits = (dest.min()..=dest.max()).contains(&total);
    match (fits, dest.signed, total < 0) {
        (true, ..) => Elem::new(total, false),
        (false, true, true) => Elem::new(dest.min(), true),
        (false, ..) => Elem::new(dest.max(), true),
    }
}

/// VSET_MSK: each row's predicates set the mask bits (§3.9). The unmasked set-up starts a mask
/// of VL elements; the masked one only re-evaluates elements whose bit is set, so the mask can
/// only narrow. The mask is one-dimensional: every row sets the same bits, so with several rows
/// the last one decides (or, masked, each row narrows further).
fn set_up_mask(plan: &Plan, state: &mut VectorState, rows: impl Rows) -> Result<(), VectorError> {
    if !plan.insn.masked {
        // Every row rewrites bits 0..VL; with no rows the old bits stay, as in the vendor
        // simulator.
        state.mask.len = plan.shape.vl;
        state.mask.bits.resize(plan.len as usize, false);
    }
    let mut chunk = Chunk::default();
    for row in rows {
        let operands = Operands::new(plan, &row?);
        // Element i's bit is read before it is rewritten, and no other element reads it: the
        // bits of a chunk are computed with the bits as they were.
        for (start, end) in chunks(plan.len, MAX_CHUNK) {
            operands.compute_chunk(plan, state, start, end, &mut chunk);
            for (i, result) in (start..end).zip(&chunk.results) {
                if layout::enabled(plan.insn, &state.mask, i) {
                    state.mask.bits[i as usize] = result.is_some_and(|result| result.value != 0);
                }
            }
        }
    }
    state.mask.status = status(&state.mask);
    Ok(())
}

/// The mask status after a set-up: bit 31 (stale) clear, bits 30..0 non-zero iff a bit is set.
fn status(mask: &Mask) -> u32 {
    let set = mask.bits.iter().take(mask.len as usize).any(|&bit| bit);
    u32::from(set)
}

/// Element of `size` bytes at `addr`, little-endian.
fn load(bytes: &[u8], addr: u32, size: Size) -> u32 {
    let whole = match size {
        Size::Byte => load_whole::<1>(bytes, addr),
        Size::Half => load_whole::<2>(bytes, addr),
        Size::Word => load_whole::<4>(bytes, addr),
    };
    whole.unwrap_or_else(|| {
        (0..size.bytes()).rev().fold(0, |word, k| word << 8 | u32::from(bytes[wrap(bytes, addr, k)]))
    })
}

/// Stores the low `size` bytes of `value` at `addr`, little-endian.
fn store(bytes: &mut [u8], addr: u32, size: Size, value: u32) {
    let stored = match size {
        Size::Byte => store_whole::<1>(bytes, addr, value),
        Size::Half => store_whole::<2>(bytes, addr, value),
        Size::Word => store_whole::<4>(bytes, addr, value),
    };
    if !stored {
        for (k, byte) in value.to_le_bytes().into_iter().take(size.bytes() as usize).enumerate() {
            let at = wrap(bytes, addr, k as u32);
            bytes[at] = byte;
        }
    }
}

/// The `N`-byte element at `addr` unless it wraps around the end. (Sizes as constants: a
/// copy of variable length would be a call to `memcpy` per element.)
#[inline(always)]
fn load_whole<const N: usize>(bytes: &[u8], addr: u32) -> Option<u32> {
    let element = bytes.get(addr as usize..addr as usize + N)?;
    let mut word = [0; 4];
    word[..N].copy_from_slice(element);
    Some(u32::from_le_bytes(word))
}

/// Stores the `N`-byte element at `addr` unless it wraps around the end; whether it did.
#[inline(always)]
fn store_whole<const N: usize>(bytes: &mut [u8], addr: u32, value: u32) -> bool {
    let Some(element) = bytes.get_mut(addr as usize..addr as usize + N) else { return false };
    element.copy_from_slice(&value.to_le_bytes()[..N]);
    true
}

/// Where byte `k` of an element at `addr` is: scratchpad addresses wrap at its end (its size
/// is a power of two; §3.1 item 7), so an element may straddle the end.
#[inline(always)]
fn wrap(bytes: &[u8], addr: u32, k: u32) -> usize {
    addr.wrapping_add(k) as usize & (bytes.len() - 1)
}

/// Writes an element and its flag, the flag as a `size`-byte integer 0 or 1 in the shadow, as
/// the vendor simulator stores it (§3.4).
fn store_element(state: &mut VectorState, addr: u32, size: Size, elem: Elem) {
    store(&mut state.data, addr, size, elem.value as u32);
    store(&mut state.flags, addr, size, elem.flag.into());
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mxp::command::Operand;

    const SBYTE: IntType = IntType { size: Size::Byte, signed: true };
    const UHALF: IntType = IntType { size: Size::Half, signed: false };

    #[test]
    fn memory_is_little_endian() {
        let mut bytes = [0u8; 8];
        store(&mut bytes, 1, Size::Word, 0x1234_5678);
        assert_eq!(bytes, [0, 0x78, 0x56, 0x34, 0x12, 0, 0, 0]);
        assert_eq!(load(&bytes, 1, Size::Half), 0x5678);
        assert_eq!(load(&bytes, 2, Size::Word), 0x0012_3456);
        store(&mut bytes, 4, Size::Byte, 0xffff_ffab);
        assert_eq!(bytes[3..6], [0x34, 0xab, 0]);
    }

    #[test]
    fn byte_products_are_truncated_before_accumulating() {
        // Probed: 8 × (100 × 2 → −56) accumulates to −448 (then saturates into the byte D).
        let byte = Operand { size: Size::Byte, signed: true };
        let insn = VectorInsn {
            op: Opcode::Vmul,
            d: byte,
            a: byte,
            b: byte,
            src_a: SrcA::Scalar(100),
            src_b: SrcB::Vector(0),
            dest: 16,
            masked: false,
            acc: true,
        };
        let mut state = VectorState::new(64);
        state.data[..8].fill(2);
        let shape = Shape::vector(8);
        let params = Params { lanes: 4, fxp_frac_bits: [4, 15, 16] };
        let plan = Plan::new(&insn, &shape, &state.mask, &params);
        let row = layout::rows(&insn, &shape).next().unwrap();
        assert_eq!(row_sum(&plan, &state, &row, &mut Chunk::default()), -448);
        execute(&insn, &shape, &mut state, &params, &Default::default()).unwrap();
        assert_eq!((state.data[16] as i8, state.flags[16]), (-128, 1));
    }

    #[test]
    fn a_range_of_elements_reads_what_they_read_one_by_one() {
        let mut state = VectorState::new(64);
        for (k, byte) in state.data.iter_mut().enumerate() {
            *byte = (k as u8).wrapping_mul(37).wrapping_add(11);
        }
        state.flags[6] = 1;
        state.flags[61] = 1;
        for size in [Size::Byte, Size::Half, Size::Word] {
            for signed in [false, true] {
                let ty = IntType { size, signed };
                for calc in [SBYTE, UHALF, IntType { size: Size::Word, signed: true }] {
                    // From the middle, and from near the end so that the elements wrap.
                    for base in [2, 56, 61] {
                        let source = Source::Vector { base, ty };
                        let mut wave = Vec::new();
                        source.fetch_range(&state, calc, 1, 5, &mut wave);
                        let one_by_one: Vec<Elem> = (1..5).map(|i| source.fetch(&state, calc, i)).collect();
                        assert_eq!(wave, one_by_one, "{ty:?} read as {calc:?} from {base}");
                    }
                }
            }
        }
    }

    #[test]
    fn elements_across_the_scratchpads_end_wrap() {
        let mut bytes = [0u8; 8];
        store(&mut bytes, 6, Size::Word, 0x1234_5678);
        assert_eq!(bytes, [0x34, 0x12, 0, 0, 0, 0, 0x78, 0x56]);
        assert_eq!(load(&bytes, 7, Size::Half), 0x3456);
    }

    #[test]
    fn accumulator_keeps_40_bits() {
        assert_eq!(accumulator(-448), Some(-448));
        assert_eq!(accumulator((1 << 39) - 1), Some((1 << 39) - 1));
        assert_eq!(accumulator(-(1 << 39)), Some(-(1 << 39)));
        assert_eq!(accumulator(1 << 39), None);
        assert_eq!(accumulator(-(1 << 39) - 1), None);
    }

    #[test]
    fn accumulations_saturate_into_the_destination() {
        assert_eq!(saturate_to_destination(SBYTE, 800), Elem::new(127, true));
        assert_eq!(saturate_to_destination(SBYTE, -448), Elem::new(-128, true));
        assert_eq!(saturate_to_destination(SBYTE, -128), Elem::new(-128, false));
        assert_eq!(saturate_to_destination(UHALF, 0xffff), Elem::new(0xffff, false));
        assert_eq!(saturate_to_destination(UHALF, 0x10000), Elem::new(0xffff, true));
        assert_eq!(saturate_to_destination(UHALF, -1), Elem::new(0xffff, true));
    }

    #[test]
    fn status_looks_only_within_the_mask_length() {
        let mask = |bits: &[bool], len| Mask { bits: bits.to_vec(), len, status: 0x8000_0000 };
        assert_eq!(status(&mask(&[false, true], 2)), 1);
        assert_eq!(status(&mask(&[false, true], 1)), 0);
        assert_eq!(status(&mask(&[], 0)), 0);
    }
}
