//! The block translator: a block the interpreter has run [`HOT`] times is compiled to host
//! code with Cranelift, and from then on runs there (as QEMU's TCG and rv32emu's T2C do).
//!
//! The interpreter stays the definition. Compiled code does what [`Hart::execute`] and
//! [`Hart::step`] do, instruction by instruction in the same order, and reaches memory and the
//! call-context tree through the very functions the interpreter calls ([`Hart::load`],
//! [`Hart::store`], [`Hart::jump`]), so that the bus sees the same accesses at the same cycles
//! — but for what it makes inline exactly as those do (the direct path and the usual calls
//! and returns, below).
//! What it saves is the interpreter's dispatch and decoding: register numbers and immediates
//! are constants, a register read once is kept in a host register (every write is also stored,
//! so the register file is always up to date for a trap or a helper), and the cycles of the
//! instructions between two memory accesses are added once. A block that branches back to its
//! own start (most inner loops) runs again in place, while the interpreter's loop would run
//! it again at once ([`Translator::again`]); a block that ends elsewhere finds the next block
//! in the block cache, and if the interpreter's loop would run that one next, compiled and
//! with no look between, names its code for [`Compiled::run`] to run at once, its
//! instructions counted ([`Translator::next_block_body`]: the loop's checks, restated).
//! (cpubench, whole runs, host instructions by valgrind: 4.34 × 10⁹ → 3.17 × 10⁹ without
//! a cache model, 8.10 × 10⁹ → 6.91 × 10⁹ with one, 9.92 × 10⁹ → 8.87 × 10⁹ under
//! `--race-check`: each return to the interpreter's loop was some 90.)
//!
//! The direct path. Where the bus offers one ([`Bus::direct`]), a load or store it covers is
//! made inline instead of calling [`Hart::load`]/[`Hart::store`]: an aligned DRAM access
//! before the accelerator's next effect, whose line the data cache's front-end filter holds
//! (with no cache model, any). That is exactly the case in which those functions do nothing
//! but move the value, count the access, stamp the slot (LRU), mark a store's bytes dirty and
//! add the hit latency (up to the cycle limit, as [`Hart::waited`]); for a store also nothing
//! of [`Hart::stored`] applies when no reservation is held and no code lies in its chunk
//! (tested inline; otherwise the helper runs). The path's constants (DRAM's window, the
//! cache's geometry) are in the code, which is made for one [`Target`] (compared at every
//! [`Hart::run`]); its pointers ([`DirectPointers`]) are taken from the bus at each entry.
//! Under an event sink (the race checker) every access is an event: the path is taken only
//! by an access the sink's quiet case takes, and the code takes it as
//! [`crate::events::Quiet::take`] says (the next position, a store held), where the sink's
//! `cached` would do the same.
//!
//! Call contexts, likewise. Where the bus keeps them and lets compiled code set its context
//! ([`Bus::context_field`]: an event sink, no timeline), the usual call and return (their
//! recent entry the call's own, a return landing in the top frame: [`CallTree::LAYOUT`]) are
//! made inline, as
//! [`CallTree::jump`] makes them; the others go to [`Hart::jump`]. A plain jump (no link
//! register written or read) changes no context and calls nothing. (Under the race checker
//! a call and its return through the helper were some 200 host instructions: 4 % of
//! `vbw_mtx_sobel`'s, which calls a function for each of its 8.3 million uncached stores.)
//!
//! Only blocks of plain computation are compiled: integer and multiply/divide operations,
//! loads, stores, jumps and branches ([`compilable`]). Everything else (CSR instructions,
//! atomics, system instructions, cache-block operations) is rare and stays interpreted.
//!
//! Exactness between instructions. The interpreter looks between instructions when the
//! clock reaches [`Hart::irq_check_at`] (an interrupt due, a stop the bus asked for, a store
//! to code). Compiled code never runs past such a point: a block is entered (by the
//! interpreter's loop, or by the block before it) only if it cannot reach it before the first
//! memory access ([`Compiled::cycles`]: every instruction's
//! cycles plus a taken branch), and after each access (whose stall is known only then, and
//! which may bring the point forward) the code leaves, the access completed, unless the rest
//! of the block cannot reach it either. Leaving early is exact: the interpreter goes on from
//! the next instruction, looking after each one. (What it changes is only which blocks the
//! cache holds: the rest of the block is decoded afresh as a block of its own. Where code is
//! rewritten behind the hart's back — by DMA, without a `fence.i` — the interpreter alone
//! would run the stale copy on, this the new code there; RISC-V allows either.)

use super::block_cache::{CHUNK_SHIFT, PAGE_SHIFT, SLOT_LAYOUT};
use super::calls::{self, CallTree};
use super::decode::Insn;
use super::isa::{Format, Op};
use super::timing::CostTable;
use super::{Event, Hart, Reservation};
use crate::bus::{Bus, Direct, DirectPointers, FilterEntry, Width};
use crate::cache::DirtyMask;
use crate::events::Quiet;
use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{
    types, AbiParam, BlockArg, Endianness, InstBuilder, MemFlagsData, SigRef, Signature, Type, UserFuncName, Value,
};
use cranelift_codegen::settings::{self, Configurable};
use cranelift_codegen::Context;
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, Module};
use mxpsim_detector::event::{Origin, Range};
use mxpsim_detector::fast::InlineQuiet;
use std::mem::{offset_of, size_of};

/// Runs of a block by the interpreter after which it is compiled: code run less than this
/// costs less to interpret than to compile (a block's compilation is some 10^5 host
/// instructions, an interpreted run of it some 10^2). Measured in host instructions
/// (callgrind, whole runs under `--race-check --cache line=64`), 1024 against 128:
/// `vbw_vec_power` 2.13e8 -> 0.93e8, `vbw_mtx_fir` 9.60e8 -> 7.10e8, `vbw_mtx_median`
/// 4.87e9 -> 4.69e9, cpubench (default machine) 9.444e9 -> 9.432e9; 4096 gained a little
/// more on the short programs and lost on cpubench (9.465e9).
///
/// The threshold decides only when a block is compiled, never what it does. The unit tests'
/// loops (up to 1000 rounds, cycle limits and timers sized to match) are built for 128, so
/// that most of their cases run compiled: they keep it.
pub(super) const HOT: u16 = if cfg!(test) { 128 } else { 1024 };

/// Compiled blocks kept until the block cache is next emptied, at most: beyond that (code
/// rewritten again and again), blocks stay interpreted.
const MAX_COMPILED: usize = 1 << 16;

/// What compiled code and the helpers it calls share: made once per [`Hart::run`]
/// ([`Frame::new`]), set up by [`Compiled::run`] at each entry from the interpreter's loop
/// (the blocks the first goes on to share it).
#[repr(C)]
pub(super) struct Frame {
    hart: *mut Hart,
    bus: *mut u8,
    /// The helpers for each width: byte, half, word ([`width_index`]).
    loads: [unsafe extern "C" fn(*mut Frame, u32, u32) -> u64; 3],
    stores: [unsafe extern "C" fn(*mut Frame, u32, u32, u32) -> u32; 3],
    jump: unsafe extern "C" fn(*mut Frame, u32, u32, u32, u32),
    /// The bus's direct path ([`Direct`]), set at each entry where the bus offers one (a block
    /// that takes none may go on to one that does).
    direct: DirectPointers,
    /// The block cache's code-chunk bits ([`super::block_cache::BlockCache::code_chunks`]),
    /// set with `direct`: a direct store must not write code.
    chunks: *const u64,
    /// The block cache's table ([`super::block_cache::BlockCache::slots`]) and the code
    /// compiled for its blocks ([`Jit::get`]'s, from index 0, `codes_len` of them), set at
    /// each entry: where a block that completed finds the next one's code
    /// ([`Translator::complete`]).
    slots: *const u8,
    codes: *const Compiled,
    codes_len: u32,
    /// A block goes on to the next one, or runs again in place if that is itself, while
    /// [`Hart::steps`] is no more than this (and the clock allows it).
    whole_blocks_until: u64,
    /// The clock: at entry, at every helper call (the instruction's start), and at the end.
    now: u64,
    /// At the end: the next PC (for [`Ran::Faulted`], the faulting instruction's).
    next: u32,
    /// At the end, if the last block run left early or faulted: its instructions not
    /// completed (the faulting one not among them), which [`Hart::steps`] counted when the
    /// block was entered.
    undone: u32,
    /// At the end, if an access faulted: its instruction's index in the arena
    /// ([`super::block_cache::Arena::at`]).
    insn: u32,
    /// Set by a block that accesses memory (see [`Hart::touched`]).
    touched: bool,
    /// At the end, for [`CHAINED`]: the next block's code, to run at once.
    chain: Option<Run>,
    /// What a faulting access raised.
    event: Option<Event>,
}

/// A compiled block's function.
type Run = unsafe extern "C" fn(*mut Frame) -> u32;

/// How a compiled block ended.
pub(super) enum Ran {
    /// It ran to its end: go on at `next`.
    Completed { next: u32 },
    /// The last block run left at `next` with `undone` of its instructions not completed
    /// (counted in [`Hart::steps`] when it was entered: the caller takes them back), for the
    /// interpreter to go on looking between instructions.
    Left { next: u32, undone: u32 },
    /// The instruction at `at` (the arena's `insn`) did not complete, nor the `undone` after
    /// it: `event` is what stopped it.
    Faulted { at: u32, undone: u32, insn: u32, event: Event },
}

/// The outcome codes the compiled function returns.
const COMPLETED: i64 = 0;
const LEFT: i64 = 1;
const FAULTED: i64 = 2;
/// Completed, and the next block is to run at once: its code is in [`Frame::chain`].
const CHAINED: u32 = 3;

/// A block's code.
#[derive(Clone, Copy)]
pub(super) struct Compiled {
    run: Run,
    /// The most cycles its instructions take besides their memory stalls: it is entered only
    /// while the clock cannot reach a look between instructions within them.
    pub cycles: u64,
    /// Its instructions.
    len: u32,
}

/// What code is made for: what it does for call contexts at a `jal`/`jalr`, and the direct
/// path the bus offers ([`Bus::direct`]), whose constants are in the code.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Target {
    contexts: Contexts,
    direct: Option<Direct>,
}

/// What compiled code does for the call contexts at a `jal`/`jalr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Contexts {
    /// Nothing: the bus keeps none ([`Bus::CALL_CONTEXTS`]).
    Off,
    /// Calls and returns go to the `jump` helper ([`Hart::jump`]).
    Helper,
    /// The usual call and return ([`CallTree::LAYOUT`]) are made in the code, which sets the
    /// bus's context at this offset in it ([`Bus::context_field`]); the others go to the
    /// helper.
    Inline(usize),
}

impl Target {
    pub fn of<B: Bus>(bus: &B) -> Target {
        let direct = bus.direct().filter(|d| d.size >= 4);
        let contexts = match (B::CALL_CONTEXTS, bus.context_field()) {
            (false, _) => Contexts::Off,
            (true, None) => Contexts::Helper,
            (true, Some(field)) => Contexts::Inline(field),
        };
        Target { contexts, direct }
    }
}

/// The code of a block, as [`Block::code`] names it.
pub(super) mod code {
    /// Not compiled (yet): the interpreter counts its runs.
    pub const NONE: u32 = 0;
    /// Not compilable (or not any more: the translator is full or unavailable).
    pub const NEVER: u32 = u32::MAX;
}

/// The translator: a Cranelift JIT module and the blocks compiled into it.
#[derive(Default)]
pub(super) struct Jit {
    /// Made at the first compilation (most harts of the tests never compile a block).
    module: Option<JITModule>,
    /// Cranelift does not support the host: nothing is compiled.
    unavailable: bool,
    ctx: Option<Context>,
    fctx: FunctionBuilderContext,
    compiled: Vec<Compiled>,
    /// What the code is made for (set by [`Jit::aim`] before the first compilation).
    target: Option<Target>,
    /// The block cache's [`super::block_cache::BlockCache::flushes`] when the code was made:
    /// once the cache is emptied, no block refers to the code any more and it is freed.
    generation: u64,
}

impl Drop for Jit {
    fn drop(&mut self) {
        self.free();
    }
}

/// A JIT module for the host, if Cranelift supports it.
fn new_module() -> Option<JITModule> {
    let mut flags = settings::builder();
    flags.set("opt_level", "speed").ok()?;
    // The IR verifier checks what this translator builds: in the unit tests (the translator's
    // property test builds blocks of every kind) and any build with debug assertions, not in
    // the simulator that runs firmware, where it was two fifths of the compile time.
    flags.set("enable_verifier", if cfg!(any(test, debug_assertions)) { "true" } else { "false" }).ok()?;
    flags.set("use_colocated_libcalls", "false").ok()?;
    flags.set("is_pic", "false").ok()?;
    let isa = cranelift_native::builder().ok()?.finish(settings::Flags::new(flags)).ok()?;
    Some(JITModule::new(JITBuilder::with_isa(isa, default_libcall_names())))
}

/// True if every instruction of a block is one compiled code executes.
fn compilable(insns: &[Insn]) -> bool {
    use Op::*;
    insns.iter().all(|i| {
        matches!(
            i.op,
            Lui | Auipc
                | Jal
                | Jalr
                | Beq
                | Bne
                | Blt
                | Bge
                | Bltu
                | Bgeu
                | Lb
                | Lh
                | Lw
                | Lbu
                | Lhu
                | Sb
                | Sh
                | Sw
                | Addi
                | Slti
                | Sltiu
                | Xori
                | Ori
                | Andi
                | Slli
                | Srli
                | Srai
                | Add
                | Sub
                | Sll
                | Slt
                | Sltu
                | Xor
                | Srl
                | Sra
                | Or
                | And
                | Mul
                | Mulh
                | Mulhsu
                | Mulhu
                | Div
                | Divu
                | Rem
                | Remu
        )
    })
}

impl Jit {
    /// Code from now on is made for `target`; true if code was made for another one (the
    /// caller then empties the block cache, which frees it: no block may run it).
    pub fn aim(&mut self, target: Target) -> bool {
        let other = self.target.is_some_and(|t| t != target);
        self.target = Some(target);
        other
    }

    /// The code `code` names ([`Block::code`]).
    #[inline(always)]
    pub fn get(&self, code: u32) -> Compiled {
        self.compiled[code as usize - 1]
    }

    /// Compiles the block at `pc` whose instructions are `insns`; returns what its
    /// [`Block::code`] becomes. `generation`: the block cache's flush count.
    /// `first`: the index of its first instruction in the arena.
    #[allow(clippy::too_many_arguments)]
    pub fn compile(
        &mut self,
        insns: &[Insn],
        first: u32,
        pc: u32,
        costs: &CostTable,
        taken_branch: u64,
        generation: u64,
    ) -> u32 {
        if generation != self.generation {
            self.generation = generation;
            // The block cache was emptied since this code was made: no block refers to it,
            // and none of it is running (this is called between blocks).
            self.free();
        }
        let Some(target) = self.target else { unreachable!("aimed before compiling") };
        if !compilable(insns) || self.compiled.len() >= MAX_COMPILED || self.unavailable {
            return code::NEVER;
        }
        if self.module.is_none() {
            self.module = new_module();
            self.unavailable = self.module.is_none();
        }
        let Some(module) = self.module.as_mut() else { return code::NEVER };
        let ctx = self.ctx.get_or_insert_with(|| module.make_context());
        let last = insns.last().expect("a block has an instruction");
        let cycles =
            insns.iter().map(|i| costs.of(i.op)).sum::<u64>() + if is_branch(last.op) { taken_branch } else { 0 };
        let block = Source { insns, first, pc };
        let Some(run) = translate(module, ctx, &mut self.fctx, block, costs, taken_branch, target, cycles) else {
            return code::NEVER;
        };
        self.compiled.push(Compiled { run, cycles, len: insns.len() as u32 });
        self.compiled.len() as u32
    }
}

impl Jit {
    /// Frees the code (when no block refers to it any more).
    fn free(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the callers make sure nothing refers to the code or runs it.
            unsafe { module.free_memory() };
        }
        self.compiled.clear();
    }
}

impl Frame {
    /// A frame for running compiled blocks on a bus of type `B` during one [`Hart::run`]
    /// (the hart and the bus are set at each entry, [`Compiled::run`]);
    /// `whole_blocks_until`: while no more steps than this were taken, a whole block fits
    /// the budget.
    pub fn new<B: Bus>(whole_blocks_until: u64) -> Frame {
        Frame {
            hart: std::ptr::null_mut(),
            bus: std::ptr::null_mut(),
            loads: [load::<B, 1>, load::<B, 2>, load::<B, 4>],
            stores: [store::<B, 1>, store::<B, 2>, store::<B, 4>],
            jump: jump::<B>,
            direct: DirectPointers::memory(std::ptr::null(), std::ptr::null_mut()),
            chunks: std::ptr::null(),
            slots: std::ptr::null(),
            codes: std::ptr::null(),
            codes_len: 0,
            whole_blocks_until,
            now: 0,
            next: 0,
            undone: 0,
            insn: 0,
            touched: false,
            chain: None,
            event: None,
        }
    }
}

impl Compiled {
    /// True if this code can run the hart's block now.
    #[inline(always)]
    pub fn fits(&self, now: u64, irq_check_at: u64) -> bool {
        now.saturating_add(self.cycles) < irq_check_at
    }

    /// Runs the block on `hart` and the frame's bus from clock `now` (updated), and the
    /// compiled blocks it goes on to ([`CHAINED`]); sets `touched` if one accessed memory.
    #[inline(always)]
    pub fn run<B: Bus>(
        &self,
        frame: &mut Frame,
        hart: &mut Hart,
        bus: &mut B,
        now: &mut u64,
        touched: &mut bool,
    ) -> Ran {
        // (The pointers made afresh at every entry: the caller uses the hart and the bus
        // between blocks, which a pointer kept from before would not survive. The direct
        // path's wherever the bus offers one: a block that takes none may go on to one that
        // does.)
        if hart.jit.target.is_some_and(|t| t.direct.is_some()) {
            frame.direct = bus.direct_pointers();
            frame.chunks = hart.blocks.code_chunks();
        }
        frame.slots = hart.blocks.slots();
        frame.codes = hart.jit.compiled.as_ptr();
        frame.codes_len = hart.jit.compiled.len() as u32;
        frame.hart = hart;
        frame.bus = (bus as *mut B).cast();
        frame.now = *now;
        let mut run = self.run;
        let outcome = loop {
            // SAFETY: the code was made by `translate` for a block of this hart (this one, or
            // the one the last said to run next, found in the block cache as the interpreter
            // finds it), and the frame for the bus the hart runs on; the code touches the hart
            // only through the frame's pointer, while nothing else does.
            let outcome = unsafe { run(frame) };
            if outcome != CHAINED {
                break outcome as i64;
            }
            run = frame.chain.expect("a block that chains names the next one's code");
        };
        *now = frame.now;
        *touched |= std::mem::take(&mut frame.touched);
        match outcome {
            COMPLETED => Ran::Completed { next: frame.next },
            LEFT => Ran::Left { next: frame.next, undone: frame.undone },
            _ => Ran::Faulted {
                at: frame.next,
                undone: frame.undone,
                insn: frame.insn,
                event: frame.event.take().expect("a faulted access leaves its event"),
            },
        }
    }
}

/// `load` helper: the hart's load of `BYTES` bytes at `addr` for the instruction at `pc`;
/// the value zero-extended, or bit 32 set if it faulted (the event in the frame). (One per
/// width: the memory system's code is specialised for it.)
unsafe extern "C" fn load<B: Bus, const BYTES: u32>(frame: *mut Frame, pc: u32, addr: u32) -> u64 {
    // SAFETY: `Compiled::run` made the frame from live references, unused while it runs.
    let frame = unsafe { &mut *frame };
    let (hart, bus) = unsafe { (&mut *frame.hart, &mut *frame.bus.cast::<B>()) };
    match hart.load(bus, &mut frame.now, pc, addr, width_of(BYTES)) {
        Ok(value) => value.into(),
        Err(event) => {
            frame.event = Some(event);
            1 << 32
        }
    }
}

/// `store` helper: the hart's store of `value` (`BYTES` bytes at `addr`) for the instruction
/// at `pc`, with what follows a store ([`Hart::stored`]); 1 if it faulted (the event in the
/// frame), else 0.
unsafe extern "C" fn store<B: Bus, const BYTES: u32>(frame: *mut Frame, pc: u32, addr: u32, value: u32) -> u32 {
    // SAFETY: as in `load`.
    let frame = unsafe { &mut *frame };
    let (hart, bus) = unsafe { (&mut *frame.hart, &mut *frame.bus.cast::<B>()) };
    match hart.store(bus, &mut frame.now, pc, addr, width_of(BYTES), value, 0) {
        Ok(_) => 0,
        Err(event) => {
            frame.event = Some(event);
            1
        }
    }
}

/// `jump` helper, for buses that keep call contexts: the hart's `jal`/`jalr` at `pc` to
/// `target`, `regs` = `rd | rs1 << 8` (`rs1` = 0xff for `jal`).
unsafe extern "C" fn jump<B: Bus>(frame: *mut Frame, pc: u32, next: u32, regs: u32, target: u32) {
    // SAFETY: as in `load`.
    let frame = unsafe { &mut *frame };
    let (hart, bus) = unsafe { (&mut *frame.hart, &mut *frame.bus.cast::<B>()) };
    let rs1 = (regs >> 8) as u8;
    hart.jump(bus, &frame.now, pc, next, regs as u8, (rs1 != 0xff).then_some(rs1), target);
    // (`jump` writes the link to x0 too, which the interpreter clears after every instruction.)
    hart.x[0] = 0;
}

fn is_branch(op: Op) -> bool {
    op.format() == Format::Branch
}

/// The index of a helper for an access of `bytes` bytes in [`Frame::loads`], [`Frame::stores`].
fn width_index(bytes: u32) -> usize {
    bytes.trailing_zeros() as usize
}

fn width_of(bytes: u32) -> Width {
    match bytes {
        1 => Width::Byte,
        2 => Width::Half,
        _ => Width::Word,
    }
}

/// The offset of a field `within` an object `offset` bytes from an address, as a memory
/// access's immediate (the objects are the bus's parts: far smaller than 2 GiB).
fn field(offset: usize, within: usize) -> i32 {
    i32::try_from(offset + within).expect("an offset inside the bus")
}

/// Zero-extended constant of type `ty` (what Cranelift's verifier asks of a narrow constant).
fn constant(b: &mut FunctionBuilder, ty: Type, value: u64) -> Value {
    let mask = if ty == types::I64 { u64::MAX } else { (1u64 << ty.bits()) - 1 };
    b.ins().iconst(ty, (value & mask) as i64)
}

/// Builds and finalises the function for the block at `pc`; `None` if Cranelift refuses it
/// (the block then stays interpreted).
#[allow(clippy::too_many_arguments)]
fn translate(
    module: &mut JITModule,
    ctx: &mut Context,
    fctx: &mut FunctionBuilderContext,
    block: Source,
    costs: &CostTable,
    taken_branch: u64,
    target: Target,
    cycles: u64,
) -> Option<Run> {
    module.clear_context(ctx);
    let ptr = module.target_config().pointer_type();
    let mut sig = module.make_signature();
    sig.params.push(AbiParam::new(ptr));
    sig.returns.push(AbiParam::new(types::I32));
    let id = module.declare_anonymous_function(&sig).ok()?;
    ctx.func.signature = sig;
    ctx.func.name = UserFuncName::user(0, id.as_u32());
    let helper = |params: &[Type], ret: Option<Type>| {
        let mut s: Signature = module.make_signature();
        s.params.push(AbiParam::new(ptr));
        s.params.extend(params.iter().map(|&t| AbiParam::new(t)));
        s.returns.extend(ret.map(AbiParam::new));
        s
    };
    let (i32t, i64t) = (types::I32, types::I64);
    let load_sig = helper(&[i32t, i32t], Some(i64t));
    let store_sig = helper(&[i32t, i32t, i32t], Some(i32t));
    let jump_sig = helper(&[i32t, i32t, i32t, i32t], None);
    let config = module.target_config();
    {
        let mut b = FunctionBuilder::new(&mut ctx.func, fctx);
        let (load_sig, store_sig, jump_sig) =
            (b.import_signature(load_sig), b.import_signature(store_sig), b.import_signature(jump_sig));
        let entry = b.create_block();
        b.append_block_params_for_function_params(entry);
        b.switch_to_block(entry);
        let frame = b.block_params(entry)[0];
        // (Loaded here, where it dominates every use.)
        let hart = b.ins().load(ptr, TRUSTED, frame, offset_of!(Frame, hart) as i32);
        if block.insns.iter().any(|i| i.op.accesses_memory()) {
            let yes = b.ins().iconst(types::I8, 1);
            b.ins().store(TRUSTED, yes, frame, offset_of!(Frame, touched) as i32);
        }
        // Where a block that jumps back to its start runs again.
        let header = b.create_block();
        b.ins().jump(header, &[]);
        b.switch_to_block(header);
        let now = b.ins().load(types::I64, TRUSTED, frame, offset_of!(Frame, now) as i32);
        let mut t = Translator {
            b,
            frame,
            ptr,
            hart,
            header,
            load_sig,
            store_sig,
            jump_sig,
            direct: target.direct,
            regs: [None; 32],
            now,
            pending: 0,
            first: block.first,
            len: block.insns.len() as u32,
            next_block: None,
        };
        t.block(block.insns, block.pc, costs, taken_branch, target.contexts, cycles);
        t.next_block_body();
        t.b.seal_all_blocks();
        t.b.finalize(config);
    }
    module.define_function(id, ctx).ok()?;
    module.finalize_definitions().ok()?;
    let code = module.get_finalized_function(id);
    // SAFETY: the function was built with this signature, in the host's calling convention.
    Some(unsafe { std::mem::transmute::<*const u8, Run>(code) })
}

/// The block a function is made for: its instructions, the index of the first in the arena,
/// and its address.
#[derive(Clone, Copy)]
struct Source<'a> {
    insns: &'a [Insn],
    first: u32,
    pc: u32,
}

/// Where the direct path goes on from its checks ([`Translator::direct_path`]).
#[derive(Clone, Copy)]
struct Fast {
    /// The block that calls the helper instead.
    slow: cranelift_codegen::ir::Block,
    /// The filter entry holding the access's line (with a cache model).
    entry: Option<Value>,
    /// The address's offset in DRAM.
    offset: Value,
    /// Under an event sink, for a store: the sink's held store of its line.
    held: Option<Value>,
}

/// The state of a translation along the block's straight-line path.
struct Translator<'a> {
    b: FunctionBuilder<'a>,
    frame: Value,
    ptr: Type,
    /// The hart's address.
    hart: Value,
    /// The block's first instruction, where it runs again in place.
    header: cranelift_codegen::ir::Block,
    load_sig: SigRef,
    store_sig: SigRef,
    jump_sig: SigRef,
    /// The bus's direct path, taken where it applies.
    direct: Option<Direct>,
    /// The registers read or written so far (x0 is never kept: it reads as zero).
    regs: [Option<Value>; 32],
    /// The clock as last loaded from the frame (or computed), and the cycles of the
    /// instructions since.
    now: Value,
    pending: u64,
    /// The block's first instruction's index in the arena, and its instructions.
    first: u32,
    len: u32,
    /// Where a completed block goes, with the next PC and the clock: made at the first use
    /// ([`Translator::complete`]).
    next_block: Option<cranelift_codegen::ir::Block>,
}

const TRUSTED: MemFlagsData = MemFlagsData::trusted();
/// A field that stays as it is while the code runs (of the frame; a table's address in the
/// bus): loads of it are merged and may be moved, out of a block's loop among others.
/// (`vbw_mtx_median_argb32`'s first 5 × 10⁷ instructions under `--race-check`, a byte-store
/// loop: 2.122e9 -> 2.110e9 host instructions; most such values are spilled in that loop.)
const FIXED: MemFlagsData = MemFlagsData::trusted().with_readonly().with_can_move();
/// The firmware's memory (little-endian, at an address checked to be inside it).
const GUEST: MemFlagsData = MemFlagsData::new().with_notrap().with_endianness(Endianness::Little);

impl Translator<'_> {
    fn reg(&mut self, r: u8) -> Value {
        let r = (r & 31) as usize;
        if r == 0 {
            return constant(&mut self.b, types::I32, 0);
        }
        if let Some(value) = self.regs[r] {
            return value;
        }
        let hart = self.hart;
        let value = self.b.ins().load(types::I32, TRUSTED, hart, (offset_of!(Hart, x) + 4 * r) as i32);
        self.regs[r] = Some(value);
        value
    }

    fn set_reg(&mut self, r: u8, value: Value) {
        let r = (r & 31) as usize;
        if r == 0 {
            return;
        }
        let hart = self.hart;
        self.b.ins().store(TRUSTED, value, hart, (offset_of!(Hart, x) + 4 * r) as i32);
        self.regs[r] = Some(value);
    }

    /// The clock with the pending cycles added (none are pending after).
    fn clock(&mut self) -> Value {
        if self.pending != 0 {
            self.now = self.b.ins().iadd_imm_u(self.now, self.pending as i64);
            self.pending = 0;
        }
        self.now
    }

    /// Writes the clock to the frame (for a helper, or at the end).
    fn put_clock(&mut self) {
        let now = self.clock();
        self.b.ins().store(TRUSTED, now, self.frame, offset_of!(Frame, now) as i32);
    }

    /// The clock as a helper left it in the frame.
    fn clock_in_frame(&mut self) -> Value {
        self.b.ins().load(types::I64, TRUSTED, self.frame, offset_of!(Frame, now) as i32)
    }

    /// Ends the function (in the current block) with `outcome`: the clock and `next` in the
    /// frame.
    fn finish(&mut self, next: Value, outcome: i64) {
        self.put_clock();
        self.b.ins().store(TRUSTED, next, self.frame, offset_of!(Frame, next) as i32);
        let outcome = constant(&mut self.b, types::I32, outcome as u64);
        self.b.ins().return_(&[outcome]);
    }

    /// The block ran to its end (in the current block), to go on at `next`: on to the
    /// next block's code ([`Translator::next_block_body`]).
    fn complete(&mut self, next: Value) {
        let now = self.clock();
        let to = *self.next_block.get_or_insert_with(|| self.b.create_block());
        self.b.ins().jump(to, &[BlockArg::Value(next), BlockArg::Value(now)]);
    }

    /// Branches off to an exit when `cond` holds, and goes on in a new block otherwise; the
    /// exit sees the clock and registers as they are here. `done`: the instructions
    /// completed; `outcome`: [`LEFT`] before instruction `done`, at `next`, or [`FAULTED`]
    /// in it.
    fn exit_if(&mut self, cond: Value, next: u32, done: u32, outcome: i64) {
        let exit = self.b.create_block();
        let on = self.b.create_block();
        self.b.ins().brif(cond, exit, &[], on, &[]);
        let (now, pending) = (self.now, self.pending);
        self.b.switch_to_block(exit);
        let i32t = types::I32;
        let (undone, insn) = match outcome {
            LEFT => (self.len - done, None),
            _ => (self.len - done - 1, Some(self.first + done)),
        };
        let undone = constant(&mut self.b, i32t, undone.into());
        self.b.ins().store(TRUSTED, undone, self.frame, offset_of!(Frame, undone) as i32);
        if let Some(insn) = insn {
            let insn = constant(&mut self.b, i32t, insn.into());
            self.b.ins().store(TRUSTED, insn, self.frame, offset_of!(Frame, insn) as i32);
        }
        let next = constant(&mut self.b, i32t, next.into());
        self.finish(next, outcome);
        self.b.switch_to_block(on);
        (self.now, self.pending) = (now, pending);
    }

    /// Where every completed run of the block goes, if one does: the next block's code runs
    /// at once ([`CHAINED`]) if the interpreter's loop would run it next without a look
    /// between — [`Hart::steps`] no more than [`Frame::whole_blocks_until`], the block at
    /// `next` cached ([`SLOT_LAYOUT`]) and compiled, its cycles short of
    /// [`Hart::irq_check_at`] ([`Compiled::fits`]) — and its instructions are counted;
    /// otherwise the caller goes on ([`COMPLETED`]). (Every block back to the interpreter's
    /// loop cost some 90 host instructions: cpubench's blocks run 8 instructions on average.)
    fn next_block_body(&mut self) {
        let Some(body) = self.next_block else { return };
        let (i32t, i64t, ptr) = (types::I32, types::I64, self.ptr);
        self.b.switch_to_block(body);
        let next = self.b.append_block_param(body, i32t);
        let now = self.b.append_block_param(body, i64t);
        self.now = now;
        self.pending = 0;
        let (frame, hart) = (self.frame, self.hart);
        self.b.ins().store(TRUSTED, now, frame, offset_of!(Frame, now) as i32);
        self.b.ins().store(TRUSTED, next, frame, offset_of!(Frame, next) as i32);
        let back = self.b.create_block();
        let steps = self.b.ins().load(i64t, TRUSTED, hart, offset_of!(Hart, steps) as i32);
        let limit = self.b.ins().load(i64t, FIXED, frame, offset_of!(Frame, whole_blocks_until) as i32);
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, steps, limit);
        self.require(within, back);
        let slots = self.b.ins().load(ptr, FIXED, frame, offset_of!(Frame, slots) as i32);
        let index = self.b.ins().ushr_imm_u(next, 1);
        let index = self.b.ins().band_imm_u(index, i64::from(SLOT_LAYOUT.mask));
        let index = self.b.ins().uextend(ptr, index);
        let offset = self.b.ins().imul_imm_u(index, SLOT_LAYOUT.size as i64);
        let slot = self.b.ins().iadd(slots, offset);
        let start = self.b.ins().load(i32t, TRUSTED, slot, SLOT_LAYOUT.pc as i32);
        let cached = self.b.ins().icmp(IntCC::Equal, start, next);
        self.require(cached, back);
        let code = self.b.ins().load(i32t, TRUSTED, slot, SLOT_LAYOUT.code as i32);
        // (`code::NONE` and `code::NEVER` less one are beyond every compiled block's. Every
        // code a cached block names is in the table; the bound keeps a read inside it if not.)
        let index = self.b.ins().iadd_imm_u(code, -1);
        let codes_len = self.b.ins().load(i32t, FIXED, frame, offset_of!(Frame, codes_len) as i32);
        let compiled = self.b.ins().icmp(IntCC::UnsignedLessThan, index, codes_len);
        self.require(compiled, back);
        let codes = self.b.ins().load(ptr, FIXED, frame, offset_of!(Frame, codes) as i32);
        let index = self.b.ins().uextend(ptr, index);
        let offset = self.b.ins().imul_imm_u(index, size_of::<Compiled>() as i64);
        let code = self.b.ins().iadd(codes, offset);
        let cycles = self.b.ins().load(i64t, TRUSTED, code, offset_of!(Compiled, cycles) as i32);
        let bound = self.b.ins().iadd(now, cycles);
        let check_at = self.b.ins().load(i64t, TRUSTED, hart, offset_of!(Hart, irq_check_at) as i32);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, bound, check_at);
        self.require(fits, back);
        let len = self.b.ins().load(i32t, TRUSTED, code, offset_of!(Compiled, len) as i32);
        let len = self.b.ins().uextend(i64t, len);
        let steps = self.b.ins().iadd(steps, len);
        self.b.ins().store(TRUSTED, steps, hart, offset_of!(Hart, steps) as i32);
        let run = self.b.ins().load(ptr, TRUSTED, code, offset_of!(Compiled, run) as i32);
        self.b.ins().store(TRUSTED, run, frame, offset_of!(Frame, chain) as i32);
        let chained = constant(&mut self.b, i32t, CHAINED.into());
        self.b.ins().return_(&[chained]);
        self.b.switch_to_block(back);
        let completed = constant(&mut self.b, i32t, COMPLETED as u64);
        self.b.ins().return_(&[completed]);
    }

    /// Translates the block's instructions, from `pc`; `cycles`: see [`Compiled::cycles`].
    fn block(
        &mut self,
        insns: &[Insn],
        mut pc: u32,
        costs: &CostTable,
        taken_branch: u64,
        contexts: Contexts,
        cycles: u64,
    ) {
        let start = pc;
        let len = insns.len() as u32;
        // The cycles from after instruction k to the block's end (a taken branch's included).
        let mut rest: Vec<u64> = vec![0; insns.len()];
        let mut after = if insns.last().is_some_and(|i| is_branch(i.op)) { taken_branch } else { 0 };
        for (k, i) in insns.iter().enumerate().rev() {
            rest[k] = after;
            after += costs.of(i.op);
        }
        let i32t = types::I32;
        for (k, i) in insns.iter().enumerate() {
            let k32 = k as u32;
            let next = pc.wrapping_add(i.size());
            let imm = i.imm as u32;
            let cost = costs.of(i.op);
            let op = i.op;
            use Op::*;
            let value = match op {
                Lui => Some(constant(&mut self.b, i32t, imm.into())),
                Auipc => Some(constant(&mut self.b, i32t, pc.wrapping_add(imm).into())),
                Jal | Jalr => {
                    let target = match op {
                        Jal => constant(&mut self.b, i32t, pc.wrapping_add(imm).into()),
                        _ => {
                            let rs1 = self.reg(i.rs1);
                            let offset = constant(&mut self.b, i32t, imm.into());
                            let sum = self.b.ins().iadd(rs1, offset);
                            let even = constant(&mut self.b, i32t, (!1u32).into());
                            self.b.ins().band(sum, even)
                        }
                    };
                    let rs1 = (op == Jalr).then_some(i.rs1);
                    self.call_context(contexts, pc, next, i.rd(), rs1, target);
                    let link = constant(&mut self.b, i32t, next.into());
                    self.set_reg(i.rd(), link);
                    self.pending += cost;
                    if op == Jal && pc.wrapping_add(imm) == start {
                        self.again(start, len, cycles);
                    } else {
                        self.complete(target);
                    }
                    return;
                }
                Beq | Bne | Blt | Bge | Bltu | Bgeu => {
                    let cc = match op {
                        Beq => IntCC::Equal,
                        Bne => IntCC::NotEqual,
                        Blt => IntCC::SignedLessThan,
                        Bge => IntCC::SignedGreaterThanOrEqual,
                        Bltu => IntCC::UnsignedLessThan,
                        _ => IntCC::UnsignedGreaterThanOrEqual,
                    };
                    let (a, c) = (self.reg(i.rs1), self.reg(i.rs2));
                    let taken = self.b.ins().icmp(cc, a, c);
                    self.pending += cost;
                    let (now, pending) = (self.now, self.pending);
                    let (yes, no) = (self.b.create_block(), self.b.create_block());
                    self.b.ins().brif(taken, yes, &[], no, &[]);
                    self.b.switch_to_block(yes);
                    self.pending += taken_branch;
                    if pc.wrapping_add(imm) == start {
                        self.again(start, len, cycles);
                    } else {
                        let target = constant(&mut self.b, i32t, pc.wrapping_add(imm).into());
                        self.complete(target);
                    }
                    self.b.switch_to_block(no);
                    (self.now, self.pending) = (now, pending);
                    let fall = constant(&mut self.b, i32t, next.into());
                    self.complete(fall);
                    return;
                }
                Lb | Lh | Lw | Lbu | Lhu => {
                    let width = match op {
                        Lb | Lbu => 1,
                        Lh | Lhu => 2,
                        _ => 4,
                    };
                    let rs1 = self.reg(i.rs1);
                    let offset = constant(&mut self.b, i32t, imm.into());
                    let addr = self.b.ins().iadd(rs1, offset);
                    let (word, now) = self.load(width, addr, pc, k32);
                    let value = match op {
                        Lb => {
                            let byte = self.b.ins().ireduce(types::I8, word);
                            self.b.ins().sextend(i32t, byte)
                        }
                        Lh => {
                            let half = self.b.ins().ireduce(types::I16, word);
                            self.b.ins().sextend(i32t, half)
                        }
                        _ => word,
                    };
                    self.set_reg(i.rd(), value);
                    self.accessed(now, cost, rest[k], next, k32);
                    None
                }
                Sb | Sh | Sw => {
                    let width = match op {
                        Sb => 1,
                        Sh => 2,
                        _ => 4,
                    };
                    let rs1 = self.reg(i.rs1);
                    let value = self.reg(i.rs2);
                    let offset = constant(&mut self.b, i32t, imm.into());
                    let addr = self.b.ins().iadd(rs1, offset);
                    let now = self.store(width, addr, value, pc, k32);
                    self.accessed(now, cost, rest[k], next, k32);
                    None
                }
                _ => Some(self.alu(i, imm)),
            };
            if let Some(value) = value {
                self.set_reg(i.rd(), value);
                self.pending += cost;
            }
            pc = next;
        }
        // A block that ends without leaving (at its size limit, or before a probe or code
        // that cannot be fetched).
        let next = constant(&mut self.b, i32t, pc.into());
        self.complete(next);
    }

    /// What a `jal`/`jalr` at `pc` writing `rd` (reading `rs1`; `None`: a `jal`) to `target`
    /// does to the call contexts, as [`Hart::jump`] does it: nothing for a plain jump (the
    /// tree is left as it is); the usual call and return made here where `contexts` allows
    /// ([`CallTree::LAYOUT`]); the `jump` helper otherwise.
    fn call_context(&mut self, contexts: Contexts, pc: u32, next: u32, rd: u8, rs1: Option<u8>, target: Value) {
        let (pops, pushes) = calls::pops_and_pushes(rd, rs1);
        if contexts == Contexts::Off || !(pops || pushes) {
            return;
        }
        // (The clock as both ways see it; only the helper's needs it in the frame.)
        self.clock();
        let done = self.b.create_block();
        if let Contexts::Inline(bus_field) = contexts {
            if pops != pushes {
                let slow = self.b.create_block();
                self.b.set_cold_block(slow);
                let ctx = match pushes {
                    true => self.usual_call(pc, slow),
                    false => self.usual_return(slow),
                };
                let bus = self.bus();
                self.b.ins().store(TRUSTED, ctx, bus, field(bus_field, 0));
                self.b.ins().jump(done, &[]);
                self.b.switch_to_block(slow);
            }
        }
        self.put_clock();
        let rs1 = rs1.map_or(0xff, u32::from);
        let regs = u32::from(rd) | rs1 << 8;
        let args = [
            self.frame,
            constant(&mut self.b, types::I32, pc.into()),
            constant(&mut self.b, types::I32, next.into()),
            constant(&mut self.b, types::I32, regs.into()),
            target,
        ];
        let callee = self.helper(offset_of!(Frame, jump));
        self.b.ins().call_indirect(self.jump_sig, callee, &args);
        self.b.ins().jump(done, &[]);
        self.b.switch_to_block(done);
    }

    /// The offset of a field of the hart's call-context tree, `offset` bytes into it.
    fn calls_field(offset: usize) -> i32 {
        field(offset_of!(Hart, calls), offset)
    }

    /// [`CallTree::call`] at `pc` where its recent entry is its own, below the deepest frame
    /// kept in place ([`CallTree::LAYOUT`]), else on to `slow`: the frame pushed, the context
    /// entered (returned, for the bus).
    fn usual_call(&mut self, pc: u32, slow: cranelift_codegen::ir::Block) -> Value {
        let (i32t, hart, layout) = (types::I32, self.hart, CallTree::LAYOUT);
        let sp = self.reg(2);
        let current = self.b.ins().load(i32t, TRUSTED, hart, Self::calls_field(layout.current));
        // The recent entry of this call from the current context. (An entry holds a parent
        // and call site only at their own index: one looked up elsewhere can only miss.)
        // (`CallTree::recent_index`.)
        let mixed = self.b.ins().imul_imm_u(current, i64::from(calls::RECENT_MIX));
        let index = self.b.ins().bxor_imm_u(mixed, i64::from(pc >> 1));
        let index = self.b.ins().band_imm_u(index, calls::RECENT as i64 - 1);
        let index = self.b.ins().uextend(self.ptr, index);
        let offset = self.b.ins().imul_imm_u(index, layout.recent_size as i64);
        let entry = self.b.ins().iadd(hart, offset);
        let at_entry = |offset: usize| Self::calls_field(layout.recent + offset);
        let parent = self.b.ins().load(i32t, TRUSTED, entry, at_entry(layout.recent_parent));
        let call_site = self.b.ins().load(i32t, TRUSTED, entry, at_entry(layout.recent_call_site));
        let entry_sp = self.b.ins().load(i32t, TRUSTED, entry, at_entry(layout.recent_sp));
        let depth = self.b.ins().load(i32t, TRUSTED, hart, Self::calls_field(layout.depth));
        let from_current = self.b.ins().icmp(IntCC::Equal, parent, current);
        self.require(from_current, slow);
        let own = self.b.ins().icmp_imm_u(IntCC::Equal, call_site, i64::from(pc));
        self.require(own, slow);
        let same_sp = self.b.ins().icmp(IntCC::Equal, entry_sp, sp);
        let varies = self.b.ins().icmp_imm_u(IntCC::Equal, entry_sp, i64::from(calls::SP_VARIES));
        let sp_kept = self.b.ins().bor(same_sp, varies);
        self.require(sp_kept, slow);
        let in_place = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, depth, calls::MAX_DEPTH as i64);
        self.require(in_place, slow);
        let ctx = self.b.ins().load(i32t, TRUSTED, entry, at_entry(layout.recent_ctx));
        let depth = self.b.ins().iadd_imm_u(depth, 1);
        let frame = self.held_frame(depth);
        self.b.ins().store(TRUSTED, ctx, frame, field(layout.frame_ctx, 0));
        self.b.ins().store(TRUSTED, sp, frame, field(layout.frame_sp, 0));
        self.b.ins().store(TRUSTED, depth, hart, Self::calls_field(layout.depth));
        self.b.ins().store(TRUSTED, ctx, hart, Self::calls_field(layout.current));
        ctx
    }

    /// [`CallTree::ret`] where the top frame is kept in place and the return lands in it
    /// (its `sp` not below the return's: no frame skipped), else on to `slow`: the frame
    /// popped, the context below it entered (returned, for the bus).
    fn usual_return(&mut self, slow: cranelift_codegen::ir::Block) -> Value {
        let (i32t, hart, layout) = (types::I32, self.hart, CallTree::LAYOUT);
        let sp = self.reg(2);
        let depth = self.b.ins().load(i32t, TRUSTED, hart, Self::calls_field(layout.depth));
        // Depth 1 to MAX_DEPTH: depth - 1 below MAX_DEPTH, unsigned (0 wraps).
        let below = self.b.ins().iadd_imm_u(depth, -1);
        let in_place = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThan, below, calls::MAX_DEPTH as i64);
        self.require(in_place, slow);
        let top = self.held_frame(depth);
        let top_sp = self.b.ins().load(i32t, TRUSTED, top, field(layout.frame_sp, 0));
        let lands = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, top_sp, sp);
        self.require(lands, slow);
        let frame = self.held_frame(below);
        let ctx = self.b.ins().load(i32t, TRUSTED, frame, field(layout.frame_ctx, 0));
        self.b.ins().store(TRUSTED, below, hart, Self::calls_field(layout.depth));
        self.b.ins().store(TRUSTED, ctx, hart, Self::calls_field(layout.current));
        ctx
    }

    /// The address of the call-context tree's frame kept in place at `depth` (an `i32` of
    /// at most [`calls::MAX_DEPTH`]).
    fn held_frame(&mut self, depth: Value) -> Value {
        let layout = CallTree::LAYOUT;
        // (The frames' array is the tree's for its life: one load for a return's two frames.)
        let held = self.b.ins().load(self.ptr, FIXED, self.hart, Self::calls_field(layout.held));
        let index = self.b.ins().uextend(self.ptr, depth);
        let offset = self.b.ins().imul_imm_u(index, layout.frame_size as i64);
        self.b.ins().iadd(held, offset)
    }

    /// The block (of `len` instructions, `cycles` at most) jumps back to its `start`: it runs
    /// again in place if the interpreter's loop would run it again at once, with nothing to
    /// look at between instructions before its end (as [`Compiled::fits`]) and the whole
    /// block within the budget; else it ends there.
    fn again(&mut self, start: u32, len: u32, cycles: u64) {
        self.put_clock();
        let now = self.now;
        let bound = self.b.ins().iadd_imm_u(now, cycles as i64);
        let check_at = self.b.ins().load(types::I64, TRUSTED, self.hart, offset_of!(Hart, irq_check_at) as i32);
        let fits = self.b.ins().icmp(IntCC::UnsignedLessThan, bound, check_at);
        let end = self.b.create_block();
        self.require(fits, end);
        let steps = self.b.ins().load(types::I64, TRUSTED, self.hart, offset_of!(Hart, steps) as i32);
        let limit = self.b.ins().load(types::I64, TRUSTED, self.frame, offset_of!(Frame, whole_blocks_until) as i32);
        let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, steps, limit);
        self.require(within, end);
        let steps = self.b.ins().iadd_imm_u(steps, len as i64);
        self.b.ins().store(TRUSTED, steps, self.hart, offset_of!(Hart, steps) as i32);
        self.b.ins().jump(self.header, &[]);
        self.b.switch_to_block(end);
        // (Not on to the next block: it is this one, which does not fit.)
        let start = constant(&mut self.b, types::I32, start.into());
        self.finish(start, COMPLETED);
    }

    /// A helper's address, from the frame.
    fn helper(&mut self, offset: usize) -> Value {
        self.b.ins().load(self.ptr, TRUSTED, self.frame, offset as i32)
    }

    /// After the access of instruction `k` (of `cost` cycles) completed: the clock `now` it
    /// left, and a way out before the instruction at `next` unless the `rest` of the block's
    /// cycles cannot reach the hart's next look between instructions.
    fn accessed(&mut self, now: Value, cost: u64, rest: u64, next: u32, k: u32) {
        self.now = now;
        self.pending = cost;
        let now = self.now;
        let bound = self.b.ins().iadd_imm_u(now, (cost + rest) as i64);
        let hart = self.hart;
        let check_at = self.b.ins().load(types::I64, TRUSTED, hart, offset_of!(Hart, irq_check_at) as i32);
        let reached = self.b.ins().icmp(IntCC::UnsignedGreaterThanOrEqual, bound, check_at);
        self.exit_if(reached, next, k + 1, LEFT);
    }

    /// The load of `width` bytes at `addr` by instruction `k` (at `pc`): its value
    /// zero-extended and the clock after it. On the direct path where it applies, else by
    /// the helper (leaving the block if it faulted).
    fn load(&mut self, width: u32, addr: Value, pc: u32, k: u32) -> (Value, Value) {
        let now = self.clock();
        let done = self.b.create_block();
        let value = self.b.append_block_param(done, types::I32);
        let after = self.b.append_block_param(done, types::I64);
        if let Some(fast) = self.direct_path(width, addr, now, false) {
            let host = self.direct_data(fast, addr, width, false);
            let value = match width {
                1 => self.b.ins().uload8(types::I32, GUEST, host, 0),
                2 => self.b.ins().uload16(types::I32, GUEST, host, 0),
                _ => self.b.ins().load(types::I32, GUEST, host, 0),
            };
            self.quiet_note(fast, addr, width, pc, now);
            let after = self.hit_clock(now);
            self.b.ins().jump(done, &[BlockArg::Value(value), BlockArg::Value(after)]);
            self.b.switch_to_block(fast.slow);
        }
        self.put_clock();
        let args = [self.frame, constant(&mut self.b, types::I32, pc.into()), addr];
        let callee = self.helper(offset_of!(Frame, loads) + width_index(width) * size_of::<usize>());
        let call = self.b.ins().call_indirect(self.load_sig, callee, &args);
        let result = self.b.inst_results(call)[0];
        let failed = self.b.ins().ushr_imm_u(result, 32);
        self.exit_if(failed, pc, k, FAULTED);
        let word = self.b.ins().ireduce(types::I32, result);
        let clock = self.clock_in_frame();
        self.b.ins().jump(done, &[BlockArg::Value(word), BlockArg::Value(clock)]);
        self.b.switch_to_block(done);
        (value, after)
    }

    /// The store of `value`'s low `width` bytes at `addr` by instruction `k` (at `pc`): the
    /// clock after it. As [`Translator::load`].
    fn store(&mut self, width: u32, addr: Value, value: Value, pc: u32, k: u32) -> Value {
        let now = self.clock();
        let done = self.b.create_block();
        let after = self.b.append_block_param(done, types::I64);
        if let Some(fast) = self.direct_path(width, addr, now, true) {
            let host = self.direct_data(fast, addr, width, true);
            match width {
                1 => self.b.ins().istore8(GUEST, value, host, 0),
                2 => self.b.ins().istore16(GUEST, value, host, 0),
                _ => self.b.ins().store(GUEST, value, host, 0),
            };
            self.quiet_note(fast, addr, width, pc, now);
            let after = self.hit_clock(now);
            self.b.ins().jump(done, &[BlockArg::Value(after)]);
            self.b.switch_to_block(fast.slow);
        }
        self.put_clock();
        let args = [self.frame, constant(&mut self.b, types::I32, pc.into()), addr, value];
        let callee = self.helper(offset_of!(Frame, stores) + width_index(width) * size_of::<usize>());
        let call = self.b.ins().call_indirect(self.store_sig, callee, &args);
        let failed = self.b.inst_results(call)[0];
        self.exit_if(failed, pc, k, FAULTED);
        let clock = self.clock_in_frame();
        self.b.ins().jump(done, &[BlockArg::Value(clock)]);
        self.b.switch_to_block(done);
        after
    }

    /// A pointer field of the frame's [`DirectPointers`] (`offset` in it).
    fn direct_pointer(&mut self, offset: usize) -> Value {
        self.b.ins().load(self.ptr, FIXED, self.frame, (offset_of!(Frame, direct) + offset) as i32)
    }

    /// The bus's address, from the frame.
    fn bus(&mut self) -> Value {
        self.b.ins().load(self.ptr, FIXED, self.frame, offset_of!(Frame, bus) as i32)
    }

    /// On the direct path under an event sink: the access of `width` bytes at `addr` by the
    /// instruction at `pc`, starting at clock `now`, taken as the sink's quiet case
    /// ([`Quiet::take`]): the next position; a store held (in the entry the checks found).
    fn quiet_note(&mut self, fast: Fast, addr: Value, width: u32, pc: u32, now: Value) {
        let Some(path) = self.direct.and_then(|d| d.quiet) else { return };
        let (at, i32t) = (path.sink.at, types::I32);
        let bus = self.bus();
        let position = self.increment_field(bus, at.detector.now);
        let Some(entry) = fast.held else { return };
        let held = at.held;
        self.b.ins().store(TRUSTED, position, entry, field(held.pos, 0));
        let pc = constant(&mut self.b, i32t, pc.into());
        self.b.ins().store(TRUSTED, pc, entry, field(held.origin, offset_of!(Origin, pc)));
        self.b.ins().store(TRUSTED, now, entry, field(held.origin, offset_of!(Origin, cycle)));
        let ctx = self.b.ins().load(i32t, TRUSTED, bus, field(path.ctx, 0));
        self.b.ins().store(TRUSTED, ctx, entry, field(held.origin, offset_of!(Origin, ctx)));
        self.b.ins().store(TRUSTED, addr, entry, field(held.range, offset_of!(Range, start)));
        let len = constant(&mut self.b, i32t, width.into());
        self.b.ins().store(TRUSTED, len, entry, field(held.range, offset_of!(Range, len)));
    }

    /// The address of the sink's held store for the line of `addr`
    /// ([`crate::events::HeldStores`]).
    fn held_entry(&mut self, quiet: Quiet, addr: Value) -> Value {
        let held = quiet.at.held;
        let bus = self.bus();
        let entries = self.b.ins().load(self.ptr, FIXED, bus, field(held.entries, 0));
        let number = self.b.ins().ushr_imm_u(addr, i64::from(quiet.line_shift));
        let index = self.b.ins().band_imm_u(number, held.slots as i64 - 1);
        let index = self.b.ins().uextend(self.ptr, index);
        let offset = self.b.ins().imul_imm_u(index, held.stride as i64);
        self.b.ins().iadd(entries, offset)
    }

    /// Goes on in a new block if `flag` holds, else to `otherwise`.
    fn require(&mut self, flag: Value, otherwise: cranelift_codegen::ir::Block) {
        let next = self.b.create_block();
        self.b.ins().brif(flag, next, &[], otherwise, &[]);
        self.b.switch_to_block(next);
    }

    /// Tests whether an access of `width` bytes at `addr` at clock `now` (a store if `store`)
    /// takes the direct path, as the bus would complete it ([`Direct`]): before the
    /// accelerator's next effect, aligned inside DRAM's window, its line in the cache's
    /// filter, with no more stall than the cycle limit allows; a store also with no
    /// reservation it could break and no code it could change ([`Hart::stored`] has nothing
    /// to do: a DRAM store leaves [`Bus::interrupt_due`] as it is, and the hart's
    /// `irq_check_at` never lies past that); under an event sink, one its quiet case takes.
    /// Leaves the builder in the fast block; `None` (nothing emitted) where the path never
    /// applies.
    fn direct_path(&mut self, width: u32, addr: Value, now: Value, store: bool) -> Option<Fast> {
        let direct = self.direct.filter(|d| !store || d.stores)?;
        // (An aligned access no wider than the sink's line is within one.)
        // (The held stores' index is a mask.)
        let quiet =
            direct.quiet.map(|q| q.sink).filter(|q| width <= 1 << q.line_shift && q.at.held.slots.is_power_of_two());
        if direct.quiet.is_some() && quiet.is_none() {
            return None;
        }
        let (i32t, i64t) = (types::I32, types::I64);
        // Each test leaves for the slow block at once: an access that fails one (a device's
        // register, a line not in the filter) does not pay for the rest, and the values
        // the tests load need not all be live at once. (Tests combined into one branch kept
        // a dozen loaded values live over it and spilled half of them to the stack.)
        let slow = self.b.create_block();
        self.b.set_cold_block(slow);
        let offset = self.b.ins().iadd_imm_u(addr, i64::from(direct.base.wrapping_neg()));
        let inside = self.b.ins().icmp_imm_u(IntCC::UnsignedLessThanOrEqual, offset, i64::from(direct.size - width));
        self.require(inside, slow);
        if width > 1 {
            let low = self.b.ins().band_imm_u(addr, i64::from(width - 1));
            let aligned = self.b.ins().icmp_imm_u(IntCC::Equal, low, 0);
            self.require(aligned, slow);
        }
        let due_at = self.direct_pointer(offset_of!(DirectPointers, due));
        let due = self.b.ins().load(i64t, TRUSTED, due_at, 0);
        let before_due = self.b.ins().icmp(IntCC::UnsignedLessThan, now, due);
        self.require(before_due, slow);
        let (mut entry, mut held) = (None, None);
        if let Some(cache) = direct.cache {
            if cache.hit_stall > 0 {
                // (`Hart::waited` stops the clock at the cycle limit.)
                let after = self.b.ins().iadd_imm_u(now, cache.hit_stall as i64);
                let limit = self.b.ins().load(i64t, TRUSTED, self.hart, offset_of!(Hart, cycle_limit) as i32);
                let within = self.b.ins().icmp(IntCC::UnsignedLessThanOrEqual, after, limit);
                self.require(within, slow);
            }
            let number = self.b.ins().ushr_imm_u(addr, i64::from(cache.line_shift));
            let index = self.b.ins().band_imm_u(number, i64::from(cache.filter_entries - 1));
            let index = self.b.ins().uextend(self.ptr, index);
            let scaled = self.b.ins().imul_imm_u(index, size_of::<FilterEntry>() as i64);
            let filter = self.direct_pointer(offset_of!(DirectPointers, filter));
            let at = self.b.ins().iadd(filter, scaled);
            let held = self.b.ins().load(i32t, TRUSTED, at, offset_of!(FilterEntry, line) as i32);
            let line = self.b.ins().band_imm_u(addr, i64::from(u32::MAX << cache.line_shift));
            let hit = self.b.ins().icmp(IntCC::Equal, held, line);
            self.require(hit, slow);
            entry = Some(at);
        }
        if store {
            let reserved = self.b.ins().load(i32t, TRUSTED, self.hart, offset_of!(Hart, reservation) as i32);
            let none = self.b.ins().icmp_imm_u(IntCC::Equal, reserved, i64::from(Reservation::NONE.0));
            self.require(none, slow);
            let chunks = self.b.ins().load(self.ptr, FIXED, self.frame, offset_of!(Frame, chunks) as i32);
            let page = self.b.ins().ushr_imm_u(addr, i64::from(PAGE_SHIFT));
            let page = self.b.ins().uextend(self.ptr, page);
            let page = self.b.ins().ishl_imm_u(page, 3);
            let at = self.b.ins().iadd(chunks, page);
            let bits = self.b.ins().load(i64t, TRUSTED, at, 0);
            let chunk = self.b.ins().ushr_imm_u(addr, i64::from(CHUNK_SHIFT));
            let chunk = self.b.ins().band_imm_u(chunk, 63);
            let chunk = self.b.ins().uextend(i64t, chunk);
            let bit = self.b.ins().ushr(bits, chunk);
            let bit = self.b.ins().band_imm_u(bit, 1);
            let no_code = self.b.ins().icmp_imm_u(IntCC::Equal, bit, 0);
            self.require(no_code, slow);
        }
        if let Some(quiet) = quiet {
            // `Quiet::take`'s tests: the recent entry covers the access, ...
            let at = quiet.at;
            let bus = self.bus();
            let line = self.b.ins().band_imm_u(addr, i64::from(u32::MAX << quiet.line_shift));
            let recent = self.b.ins().load(self.ptr, FIXED, bus, field(at.detector.recent, 0));
            let number = self.b.ins().ushr_imm_u(addr, i64::from(quiet.line_shift));
            let slot = self.b.ins().band_imm_u(number, InlineQuiet::SLOTS as i64 - 1);
            let slot = self.b.ins().uextend(self.ptr, slot);
            let slot = self.b.ins().ishl_imm_u(slot, 3);
            let slot = self.b.ins().iadd(recent, slot);
            let entry = self.b.ins().load(i64t, TRUSTED, slot, 0);
            let stamp = self.b.ins().load(i64t, TRUSTED, bus, field(at.detector.stamp, 0));
            // `InlineQuiet::covering`, from the stamp and the line.
            let shifted = self.b.ins().uextend(i64t, line);
            let shifted = self.b.ins().ishl_imm_u(shifted, 2);
            let covering = self.b.ins().bor(stamp, shifted);
            let seen = if store { entry } else { self.b.ins().bor_imm_u(entry, 2) };
            let covered = self.b.ins().icmp(IntCC::Equal, seen, covering);
            self.require(covered, slow);
            // ... and a store's line has a store held.
            if store {
                let entry = self.held_entry(quiet, addr);
                held = Some(entry);
                let key = self.b.ins().load(i64t, TRUSTED, entry, field(at.held.key, 0));
                // `HeldStores::key_of`.
                let key_base = self.b.ins().load(i64t, TRUSTED, bus, field(at.held.key_base, 0));
                let line = self.b.ins().uextend(i64t, line);
                let wanted = self.b.ins().bor(key_base, line);
                let replaces = self.b.ins().icmp(IntCC::Equal, key, wanted);
                self.require(replaces, slow);
            }
        }
        Some(Fast { slow, entry, offset, held })
    }

    /// On the direct path: the host address of the access of `width` bytes at `addr`, after
    /// what a hit does besides moving the bytes ([`crate::cache::Cache::load_filtered`],
    /// [`crate::cache::Cache::write_filtered`]): the access counted, the slot stamped
    /// (LRU), a store's bytes marked dirty.
    fn direct_data(&mut self, fast: Fast, addr: Value, width: u32, store: bool) -> Value {
        let direct = self.direct.expect("on the direct path");
        let (i32t, i64t, ptr) = (types::I32, types::I64, self.ptr);
        let (Some(cache), Some(entry)) = (direct.cache, fast.entry) else {
            let dram = self.direct_pointer(offset_of!(DirectPointers, dram));
            let offset = self.b.ins().uextend(ptr, fast.offset);
            return self.b.ins().iadd(dram, offset);
        };
        let slot = self.b.ins().load(i32t, TRUSTED, entry, offset_of!(FilterEntry, slot) as i32);
        let slot = self.b.ins().uextend(ptr, slot);
        let counter = match store {
            false => offset_of!(DirectPointers, reads),
            true => offset_of!(DirectPointers, writes),
        };
        let counter = self.direct_pointer(counter);
        self.increment(counter);
        if cache.stamps {
            let clock = self.direct_pointer(offset_of!(DirectPointers, clock));
            let tick = self.increment(clock);
            let stamps = self.direct_pointer(offset_of!(DirectPointers, stamps));
            let at = self.b.ins().imul_imm_u(slot, size_of::<u64>() as i64);
            let at = self.b.ins().iadd(stamps, at);
            self.b.ins().store(TRUSTED, tick, at, 0);
        }
        let in_line = self.b.ins().band_imm_u(addr, i64::from(!(u32::MAX << cache.line_shift)));
        let in_line = self.b.ins().uextend(ptr, in_line);
        if store {
            // The slot's mask words, bit b for byte b (an aligned store's bytes are in one).
            let dirty = self.direct_pointer(offset_of!(DirectPointers, dirty));
            let words = self.b.ins().imul_imm_u(slot, size_of::<DirtyMask>() as i64);
            let word = self.b.ins().ushr_imm_u(in_line, 6);
            let word = self.b.ins().ishl_imm_u(word, 3);
            let at = self.b.ins().iadd(dirty, words);
            let at = self.b.ins().iadd(at, word);
            let bit = self.b.ins().band_imm_u(in_line, 63);
            let bits = constant(&mut self.b, i64t, (1 << width) - 1);
            let bits = self.b.ins().ishl(bits, bit);
            let mask = self.b.ins().load(i64t, TRUSTED, at, 0);
            let mask = self.b.ins().bor(mask, bits);
            self.b.ins().store(TRUSTED, mask, at, 0);
        }
        let data = self.direct_pointer(offset_of!(DirectPointers, data));
        let line = self.b.ins().ishl_imm_u(slot, i64::from(cache.line_shift));
        let at = self.b.ins().iadd(data, line);
        self.b.ins().iadd(at, in_line)
    }

    /// Adds one to the count at `at`; the new count.
    fn increment(&mut self, at: Value) -> Value {
        self.increment_field(at, 0)
    }

    /// Adds one to the `u64` count `offset` bytes from `base`; the new count.
    fn increment_field(&mut self, base: Value, offset: usize) -> Value {
        let count = self.b.ins().load(types::I64, TRUSTED, base, field(offset, 0));
        let count = self.b.ins().iadd_imm_u(count, 1);
        self.b.ins().store(TRUSTED, count, base, field(offset, 0));
        count
    }

    /// The clock after a direct access at `now`: a hit's stall later (none without a cache).
    fn hit_clock(&mut self, now: Value) -> Value {
        match self.direct.and_then(|d| d.cache) {
            Some(cache) if cache.hit_stall > 0 => self.b.ins().iadd_imm_u(now, cache.hit_stall as i64),
            _ => now,
        }
    }

    /// The value an integer or multiply/divide operation writes to `rd`.
    fn alu(&mut self, i: &Insn, imm: u32) -> Value {
        use Op::*;
        let i32t = types::I32;
        let a = self.reg(i.rs1);
        let b2 = match i.op {
            Addi | Slti | Sltiu | Xori | Ori | Andi => constant(&mut self.b, i32t, imm.into()),
            Slli | Srli | Srai => constant(&mut self.b, i32t, (imm & 31).into()),
            _ => self.reg(i.rs2),
        };
        let ins = self.b.ins();
        match i.op {
            Addi | Add => ins.iadd(a, b2),
            Sub => ins.isub(a, b2),
            Xori | Xor => ins.bxor(a, b2),
            Ori | Or => ins.bor(a, b2),
            Andi | And => ins.band(a, b2),
            // (Cranelift's shifts take the amount modulo 32, as RISC-V's do.)
            Slli | Sll => ins.ishl(a, b2),
            Srli | Srl => ins.ushr(a, b2),
            Srai | Sra => ins.sshr(a, b2),
            Slti | Slt => self.set_if(IntCC::SignedLessThan, a, b2),
            Sltiu | Sltu => self.set_if(IntCC::UnsignedLessThan, a, b2),
            Mul => ins.imul(a, b2),
            Mulh => ins.smulhi(a, b2),
            Mulhu => ins.umulhi(a, b2),
            Mulhsu => {
                let wide_a = ins.sextend(types::I64, a);
                let wide_b = self.b.ins().uextend(types::I64, b2);
                let product = self.b.ins().imul(wide_a, wide_b);
                let high = self.b.ins().sshr_imm_u(product, 32);
                self.b.ins().ireduce(i32t, high)
            }
            Div | Rem | Divu | Remu => self.divide(i.op, a, b2),
            op => unreachable!("{op:?} is not compiled"),
        }
    }

    /// 1 if `a cc b`, else 0.
    fn set_if(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        let flag = self.b.ins().icmp(cc, a, b);
        self.b.ins().uextend(types::I32, flag)
    }

    /// RISC-V's division, which never traps: by zero, the quotient is all ones and the
    /// remainder the dividend; `i32::MIN / -1` is `i32::MIN`, remainder 0. Both are computed
    /// with a divisor of 1 where the host's division would trap, then chosen.
    fn divide(&mut self, op: Op, a: Value, b: Value) -> Value {
        let i32t = types::I32;
        let zero = constant(&mut self.b, i32t, 0);
        let one = constant(&mut self.b, i32t, 1);
        let by_zero = self.b.ins().icmp(IntCC::Equal, b, zero);
        let signed = matches!(op, Op::Div | Op::Rem);
        let unsafe_divisor = if signed {
            let min = constant(&mut self.b, i32t, i32::MIN as u32 as u64);
            let minus_one = constant(&mut self.b, i32t, u32::MAX.into());
            let a_min = self.b.ins().icmp(IntCC::Equal, a, min);
            let b_minus_one = self.b.ins().icmp(IntCC::Equal, b, minus_one);
            let overflow = self.b.ins().band(a_min, b_minus_one);
            self.b.ins().bor(by_zero, overflow)
        } else {
            by_zero
        };
        let divisor = self.b.ins().select(unsafe_divisor, one, b);
        match op {
            Op::Div | Op::Divu => {
                let q = if signed { self.b.ins().sdiv(a, divisor) } else { self.b.ins().udiv(a, divisor) };
                let all_ones = constant(&mut self.b, i32t, u32::MAX.into());
                self.b.ins().select(by_zero, all_ones, q)
            }
            _ => {
                let r = if signed { self.b.ins().srem(a, divisor) } else { self.b.ins().urem(a, divisor) };
                self.b.ins().select(by_zero, a, r)
            }
        }
    }
}
