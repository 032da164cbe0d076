//! One in-order RV32IMAC hart with Zicsr, Zifencei and Zicbom, machine and user mode.
//!
//! What each instruction is lives in one table ([`isa`]); compressed instructions decode to
//! the instruction they expand to, so the semantics below are written once.
//!
//! The interpreter executes blocks of [`Insn`]s from the [`BlockCache`]; it reaches memory only through
//! a [`Bus`], and reports what it retires to an [`Observer`] (the instruction trace), both as
//! generic parameters so that the common configuration (no trace) compiles to a tight loop.
//!
//! Timing: see [`timing`]; the hart's clock ([`Hart::now`]) is the simulation's clock.

mod block_cache;
pub mod calls;
pub mod csr;
pub mod decode;
pub mod isa;
mod jit;
pub mod timing;
mod trap;

use crate::bus::{Access, Bus, CacheOp, MemFault, Width};
use crate::stop::MAX_CYCLE;
use block_cache::{Arena, Block, BlockCache};
use calls::CallTree;
use csr::{Counters, Csrs, Priv};
use decode::{decode, Insn};
use isa::Op;
use jit::{Jit, Ran};
use mxpsim_detector::event::Range;
use std::collections::BTreeMap;
use timing::{CostTable, CpuTiming};
pub use trap::{Cause, Interrupt, Trap};

/// Traps in a row without an `mret`, the last a fault, that make a trap loop: no handler
/// nests this deep on purpose; a handler that faults before it returns does, forever. (High:
/// a handler may also leave without `mret`, by a jump, as a `longjmp` does.)
const MAX_UNRETURNED_FAULTS: u32 = 10_000;

/// Traps in a row of the instruction an `mret` returned to, each the same trap at the same PC,
/// the first instruction after the `mret`, with every register and CSR as at the trap before,
/// that make a trap loop: the handler returns to the instruction without changing what makes
/// it trap (a handler that fixes the cause, steps over the instruction or counts the retries
/// in a register is not one).
const MAX_RETRIES: u32 = 100;

/// Exceptions in a row, each taken in the same state as the one before (the same trap at the
/// same PC, every register and CSR alike) with nothing in between that could make the next
/// round differ (see [`Hart::touched`]), that make a trap loop: from an equal state the hart
/// can only do the same again, forever (one repeat proves it; a hundred leave room for
/// anything this misses).
const MAX_SAME_STATE: u32 = 100;

/// The semihosting call sequence around an `ebreak`: `slli x0, x0, 0x1f; ebreak; srai x0, x0, 7`.
const SEMIHOST_PRE: u32 = 0x01f0_1013;
const SEMIHOST_POST: u32 = 0x4070_5013;

/// Sees every retired instruction and every trap. `()` sees nothing and costs nothing.
pub trait Observer {
    /// False for observers that ignore everything; lets the interpreter skip the bookkeeping.
    const ENABLED: bool = true;
    /// An instruction at `pc` (word `raw`) retired; `rd_write` is the register it wrote.
    fn retired(&mut self, pc: u32, raw: u32, rd_write: Option<(u8, u32)>);
    /// A trap was taken at `pc`.
    fn trapped(&mut self, pc: u32, trap: Trap);
    /// An interrupt was taken before the instruction at `pc`.
    fn interrupted(&mut self, pc: u32, interrupt: Interrupt);
}

impl Observer for () {
    const ENABLED: bool = false;
    fn retired(&mut self, _: u32, _: u32, _: Option<(u8, u32)>) {}
    fn trapped(&mut self, _: u32, _: Trap) {}
    fn interrupted(&mut self, _: u32, _: Interrupt) {}
}

/// Why [`Hart::run`] returned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Exit {
    /// The instruction budget is used up.
    Budget,
    /// A semihosting call: the operation is in `a0`, its argument in `a1`, the result goes to
    /// `a0`. The `ebreak` has retired; the hart resumes after it.
    Semihost,
    /// The bus asked to stop (a `tohost` write).
    Halt,
    /// The hart reached a probed address (see [`Hart::add_probe`]) and stopped before the
    /// instruction there: nothing of it has executed, and the registers are as on arrival.
    /// The next [`Hart::run`] executes it.
    Probe,
    /// The handler of trap `first` cannot get through: a trap came before it retired an
    /// instruction (no handler installed, or it faults at once), or it faulted again and
    /// again without returning (`second` is the last of those faults), or it returned to
    /// the trapping instruction, which trapped again at once, again and again (`second` is
    /// `first`, at the same PC), or it came back to `first` again and again in the same state
    /// ([`LoopKind::SameState`]).
    /// (Boxed: a small `Exit` keeps the interpreter's loop fast.)
    TrapLoop(Box<TrapLoop>),
    /// The `wfi` at `pc` waits for an interrupt that can never come: none is enabled in
    /// `mie` whose source could raise it (the timer's compare value out of reach, or only
    /// sources that need a store by this hart). The `wfi` has retired.
    Asleep { pc: u32, mie: u32 },
    /// The clock reached the cycle limit ([`Hart::set_cycle_limit`]) before the next
    /// instruction.
    CycleLimit,
}

/// Why a trap handler cannot get through ([`Exit::TrapLoop`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrapLoop {
    pub first: Trap,
    pub first_pc: u32,
    pub second: Trap,
    pub second_pc: u32,
    pub kind: LoopKind,
}

/// How a trap handler fails to get through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LoopKind {
    /// It trapped before it retired an instruction (no handler, or it faults at once).
    Unhandled,
    /// It faulted again and again without returning.
    Faulting,
    /// It returned to the trapping instruction, which trapped again at once.
    Retry,
    /// The same trap came back, again and again, in the same state, with no memory access,
    /// host call, interrupt or counter read in between: nothing can change what follows.
    SameState,
}

/// The hart's state when it takes an exception, to tell a round that changes nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
struct TrapState {
    pc: u32,
    trap: Trap,
    x: [u32; 32],
    csrs: csr::SteadyCsrs,
}

pub struct Hart {
    /// Integer registers; `x[0]` is forced back to zero after every instruction.
    pub x: [u32; 32],
    pub pc: u32,
    pub csr: Csrs,
    /// The clock: cycles since reset. Never goes back (unlike `mcycle`, which the firmware
    /// may write). While [`Hart::run_blocks`] runs, the clock is a local of its own (kept in
    /// a register: the field, loaded and stored per instruction, cost a sixth of the
    /// interpreter's speed), written back here before anything out of line reads it.
    pub now: u64,
    /// Instructions executed, trapping ones included: what `--max-insns` limits. (Not
    /// `minstret`, which the firmware may write.) Inside [`Hart::run_blocks`] it counts the
    /// instructions of the block being run up to its end, the one executing included.
    pub steps: u64,
    /// Traps taken (not interrupts): the steps that retired nothing.
    traps: u64,
    blocks: BlockCache,
    /// The blocks' instructions. Taken out while [`Hart::run`] runs, so that a block's
    /// instructions are a slice the loop steps through (no look-up per instruction).
    arena: Arena,
    /// The hot blocks' host code.
    jit: Jit,
    costs: CostTable,
    taken_branch: u64,
    /// The last trap taken and the step it was taken at: a trap at the very next step means
    /// the handler did not retire a single instruction.
    last_trap: Option<(Trap, u32, u64)>,
    /// Traps taken since the last `mret`, and the first of them (with its PC): a handler
    /// that faults again and again without ever returning (on its own stack, say) is a trap
    /// loop too, however many instructions it retires each time.
    unreturned: (u32, Option<(Trap, u32)>),
    /// The exception whose handler runs (none once an interrupt is taken: the next `mret`
    /// returns from that), then, after its `mret`, that exception and the `mret`'s step; and
    /// how many traps in a row were that exception again, at once ([`MAX_RETRIES`]).
    handling: Option<(Trap, u32)>,
    returned: Option<((Trap, u32), u64)>,
    retries: u32,
    /// Since the last exception: a block with a memory access (set when the block starts,
    /// so also when the access did not happen), a host call, an interrupt, a read of a
    /// counter or of `mip`, `wfi` or `fence.i` — anything through which the next round could
    /// differ from this one although the registers and CSRs are alike.
    touched: bool,
    /// The state at the last exception, and how many exceptions in a row were taken in it
    /// with nothing touched in between ([`MAX_SAME_STATE`]).
    same_state: (Option<TrapState>, u32),
    /// Addresses where the hart stops before executing (each with the number of times it was
    /// added). No cached block holds one, so they cost nothing on the fast path: only a miss
    /// looks here.
    probes: BTreeMap<u32, u32>,
    /// The probe the caller was last stopped at: running on from it executes the instruction.
    probe_reported: Option<u32>,
    /// Call contexts, kept only for buses that ask for them ([`Bus::CALL_CONTEXTS`]).
    calls: CallTree,
    faults: Faults,
    /// The word `lr.w` reserved, until an `sc.w`, a trap, or a store by the hart to it.
    reservation: Reservation,
    /// The cycle from which the interrupt lines and enables must be looked at again before
    /// the next instruction (0: at once, after a CSR write, `mret` or a device store, or to
    /// stop for `halt_after`).
    irq_check_at: u64,
    /// The bus asked to stop during the last instruction (a `tohost` verdict, console bytes
    /// to print, an accelerator error, a race to halt on): the instruction completes as any
    /// other, registers written, and the hart stops before the next one.
    halt_after: bool,
    /// The hart stops before the first instruction at or after this cycle
    /// ([`Exit::CycleLimit`]); `irq_check_at` never lies beyond it.
    cycle_limit: u64,
}

/// The word `lr.w` reserved (word aligned), or [`Reservation::NONE`]. (A word, not an
/// `Option`: compiled code looks at it, [`jit`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(transparent)]
struct Reservation(u32);

impl Reservation {
    /// No reservation: an odd address, no word's.
    const NONE: Reservation = Reservation(1);

    /// The word reserved, if any.
    fn word(self) -> Option<u32> {
        (self != Reservation::NONE).then_some(self.0)
    }

    /// The word reserved, if any, which is no longer.
    fn take(&mut self) -> Option<u32> {
        std::mem::replace(self, Reservation::NONE).word()
    }
}

/// The faults the firmware took ([`Cause::is_fault`]): the first few with their PCs, and how
/// many in all, for a diagnosis after the run.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Faults {
    pub first: Vec<(u32, Trap)>,
    pub total: u64,
}

impl Faults {
    /// How many are kept with their PCs.
    pub const KEPT: usize = 3;
}

impl Hart {
    pub fn new(entry: u32, timing: &CpuTiming) -> Self {
        Hart {
            x: [0; 32],
            pc: entry,
            csr: Csrs::default(),
            now: 0,
            steps: 0,
            blocks: BlockCache::default(),
            arena: Arena::default(),
            jit: Jit::default(),
            costs: CostTable::new(timing),
            taken_branch: timing.taken_branch as u64,
            last_trap: None,
            unreturned: (0, None),
            handling: None,
            returned: None,
            retries: 0,
            touched: true,
            same_state: (None, 0),
            traps: 0,
            probes: BTreeMap::new(),
            probe_reported: None,
            calls: CallTree::default(),
            faults: Faults::default(),
            reservation: Reservation::NONE,
            irq_check_at: 0,
            halt_after: false,
            cycle_limit: u64::MAX,
        }
    }

    /// Instructions retired: what `minstret` counts, but not writable by the firmware (for
    /// statistics).
    pub fn retired(&self) -> u64 {
        self.steps - self.traps
    }

    /// `minstret` (as the firmware reads it between instructions).
    pub fn minstret(&self) -> u64 {
        self.csr.minstret(self.retired())
    }

    /// The counters now, between instructions, with the machine timer at `mtime`.
    pub fn counters(&self, mtime: u64) -> Counters {
        Counters { now: self.now, retired: self.retired(), mtime }
    }

    /// The call contexts seen so far (empty unless the bus asks for them).
    pub fn calls(&self) -> &CallTree {
        &self.calls
    }

    /// The faults taken so far.
    pub fn faults(&self) -> &Faults {
        &self.faults
    }

    /// Makes the hart stop with [`Exit::Probe`] whenever it is about to execute the
    /// instruction at `pc`. Probes nest: each `add_probe` needs its own `remove_probe`.
    pub fn add_probe(&mut self, pc: u32) {
        *self.probes.entry(pc).or_insert(0) += 1;
        self.blocks.forget(pc);
    }

    /// Code at `[addr, addr + len)` was changed from outside the hart (a debugger's write):
    /// instructions decoded from it are forgotten.
    pub fn code_changed(&mut self, addr: u32, len: u32) {
        if len > 0 {
            self.blocks.invalidate_range(addr, len);
        }
    }

    /// Interrupt enables or lines were changed from outside the hart (a debugger's CSR
    /// write): they are looked at again before the next instruction.
    pub fn interrupts_changed(&mut self) {
        self.irq_check_at = 0;
    }

    /// Undoes one [`Hart::add_probe`] of `pc`.
    pub fn remove_probe(&mut self, pc: u32) {
        if let Some(count) = self.probes.get_mut(&pc) {
            *count -= 1;
            if *count == 0 {
                self.probes.remove(&pc);
            }
        }
    }

    /// Register `r` (`r` taken modulo 32, which lets the compiler drop bounds checks).
    #[inline(always)]
    fn reg(&self, r: u8) -> u32 {
        self.x[(r & 31) as usize]
    }

    #[inline(always)]
    fn set_reg(&mut self, r: u8, value: u32) {
        self.x[(r & 31) as usize] = value;
    }

    /// Runs until `budget` instructions and traps have been executed or something needs the
    /// caller (see [`Exit`]).
    pub fn run<B: Bus, O: Observer>(&mut self, bus: &mut B, obs: &mut O, budget: u64) -> Exit {
        let mut touched = false;
        let mut now = self.now;
        let mut arena = std::mem::take(&mut self.arena);
        let exit = self.run_blocks(bus, obs, budget, &mut touched, &mut now, &mut arena);
        self.arena = arena;
        self.now = now;
        self.touched |= touched;
        exit
    }

    /// [`Hart::run`], with [`Hart::touched`] for the blocks run kept in `touched` until a trap
    /// needs it (a field written per block would cost the loop a tenth of its speed; compiled
    /// blocks set the frame's, taken after each entry), and the
    /// clock in `now` (see [`Hart::now`]: `self.now` is set from it around every call out of
    /// line). [`Hart::pc`] is written when a block is left (the loop keeps the PC in a
    /// local).
    #[inline(always)]
    fn run_blocks<B: Bus, O: Observer>(
        &mut self,
        bus: &mut B,
        obs: &mut O,
        budget: u64,
        touched: &mut bool,
        now: &mut u64,
        arena: &mut Arena,
    ) -> Exit {
        // The probe the caller was stopped at: this time its instruction runs.
        let mut resume = self.probe_reported.take();
        let stop_at = self.steps.saturating_add(budget);
        // While no more steps than this were taken, a whole block fits the budget.
        let whole_blocks_until = stop_at.saturating_sub(block_cache::MAX_INSNS as u64);
        let mut frame = jit::Frame::new::<B>(whole_blocks_until);
        if self.jit.aim(jit::Target::of(bus)) {
            // Code made for another bus (a test's): no block may run it.
            self.blocks.flush();
        }
        'blocks: while self.steps < stop_at {
            if *now >= self.irq_check_at {
                if let Some(exit) = self.with_clock(now, |hart| hart.between_instructions(bus, obs)) {
                    return exit;
                }
            }
            let pc = self.pc;
            let mut block = match self.blocks.get(pc) {
                Some(hit) => hit,
                None => match self.block_miss(bus, pc, resume, arena) {
                    Ok(Miss::Block(block)) => block,
                    Ok(Miss::Probed(insn)) => {
                        // Run once, never kept: the probe stays in force.
                        resume = None;
                        *touched |= insn.op.accesses_memory();
                        self.steps += 1;
                        match self.step(bus, obs, &insn, pc, now) {
                            Ok(next) => self.pc = next,
                            Err(event) => {
                                let end = |hart: &mut Self| hart.step_ended(bus, obs, event, insn, pc, touched);
                                if let Some(exit) = self.with_clock(now, end) {
                                    return exit;
                                }
                            }
                        }
                        continue;
                    }
                    Err(Some(trap)) => {
                        resume = None;
                        self.steps += 1;
                        self.touched |= std::mem::take(touched);
                        if let Some(exit) = self.with_clock(now, |hart| hart.take_trap(bus, pc, trap, obs)) {
                            return exit;
                        }
                        continue;
                    }
                    Err(None) => {
                        self.probe_reported = Some(pc);
                        return Exit::Probe;
                    }
                },
            };
            resume = None;
            // The first block may be cut short by the budget; the ones chained after it
            // (below) run whole.
            let mut insns = arena.insns(block, (stop_at - self.steps).min(u32::MAX as u64) as u32);
            let mut pc = pc;
            loop {
                // Straight through the block; anything that needs a look between
                // instructions (an interrupt due, a stop the bus asked for, a CSR write, a
                // store to this very code) brings `irq_check_at` forward, and the block is left
                // there. The steps are counted for the whole block at once; leaving early
                // gives back those not started.
                self.steps += insns.len() as u64;
                // A hot block runs compiled (see `jit`), unless an observer must see every
                // instruction.
                let compiled = if O::ENABLED { None } else { self.compiled(block, pc, insns.len(), *now, arena) };
                if let Some(compiled) = compiled {
                    match compiled.run(&mut frame, self, bus, now, touched) {
                        Ran::Completed { next } => {
                            pc = next;
                            if *now >= self.irq_check_at {
                                self.pc = pc;
                                continue 'blocks;
                            }
                        }
                        Ran::Left { next, undone } => {
                            self.steps -= undone as u64;
                            self.pc = next;
                            continue 'blocks;
                        }
                        Ran::Faulted { at, undone, insn, event } => {
                            self.steps -= undone as u64;
                            self.pc = at;
                            let insn = arena.at(insn);
                            let end = |hart: &mut Self| hart.step_ended(bus, obs, event, insn, at, touched);
                            match self.with_clock(now, end) {
                                Some(exit) => return exit,
                                None => continue 'blocks,
                            }
                        }
                    }
                } else {
                    // (Per block, not per access: the loop stays small. Compiled code sets
                    // the frame's, which `Compiled::run` adds.)
                    *touched |= block.touches_memory();
                    // (By reference: the fields are loaded from the arena where they are
                    // used. The iterator's length is what is not started yet: no counter of
                    // its own.)
                    let mut iter = insns.iter();
                    while let Some(insn) = iter.next() {
                        match self.step(bus, obs, insn, pc, now) {
                            Ok(next) => pc = next,
                            Err(event) => {
                                self.steps -= iter.len() as u64;
                                self.pc = pc;
                                let end = |hart: &mut Self| hart.step_ended(bus, obs, event, *insn, pc, touched);
                                match self.with_clock(now, end) {
                                    Some(exit) => return exit,
                                    // On at the trap's handler.
                                    None => continue 'blocks,
                                }
                            }
                        }
                        if *now >= self.irq_check_at {
                            self.steps -= iter.len() as u64;
                            self.pc = pc;
                            continue 'blocks;
                        }
                    }
                }
                // The block ran to its end and nothing needs a look before the next
                // instruction (it was looked at after the last one): on to the next block at
                // once while a whole one fits the budget and it is cached. (Two thirds of the
                // blocks cpubench runs are taken branches' targets, of two instructions on
                // average: what a block costs besides its instructions counts.)
                if self.steps > whole_blocks_until {
                    break;
                }
                match self.blocks.get(pc) {
                    Some(next) => {
                        block = next;
                        insns = arena.whole(block);
                    }
                    None => break,
                }
            }
            self.pc = pc;
        }
        self.take_halt().unwrap_or(Exit::Budget)
    }

    /// The code to run the block at `pc` with, at clock `now`, if it is compiled and fits:
    /// all its `len` instructions are to run (the budget did not cut it short), and it cannot
    /// reach a look between instructions before its first memory access ([`jit::Compiled::fits`]).
    /// Counts the runs of a block not compiled yet, and compiles it once it is hot.
    #[inline(always)]
    fn compiled(&mut self, block: Block, pc: u32, len: usize, now: u64, arena: &Arena) -> Option<jit::Compiled> {
        match block.code {
            jit::code::NONE => {
                if self.blocks.warm(pc) {
                    self.compile(block, pc, arena);
                }
                None
            }
            jit::code::NEVER => None,
            code => {
                let compiled = self.jit.get(code);
                (len == block.len() as usize && compiled.fits(now, self.irq_check_at)).then_some(compiled)
            }
        }
    }

    /// Compiles the hot block at `pc` (for the bus [`jit::Jit::aim`] was last given).
    #[cold]
    #[inline(never)]
    fn compile(&mut self, block: Block, pc: u32, arena: &Arena) {
        let generation = self.blocks.flushes();
        let code = self.jit.compile(arena.whole(block), block.start, pc, &self.costs, self.taken_branch, generation);
        self.blocks.set_code(pc, code);
    }

    /// Runs `f` (out of line) with the clock `now` of [`Hart::run_blocks`] in [`Hart::now`],
    /// and takes back the clock it leaves there.
    #[inline(always)]
    fn with_clock<R>(&mut self, now: &mut u64, f: impl FnOnce(&mut Self) -> R) -> R {
        self.now = *now;
        let result = f(self);
        *now = self.now;
        result
    }

    /// Executes `insn`, fetched from `pc` and counted in [`Hart::steps`], at clock `now`:
    /// retires it and returns the next PC (for the caller to keep: [`Hart::pc`] is not
    /// written), or returns what stopped it ([`Hart::step_ended`] handles that).
    #[inline(always)]
    fn step<B: Bus, O: Observer>(
        &mut self,
        bus: &mut B,
        obs: &mut O,
        insn: &Insn,
        pc: u32,
        now: &mut u64,
    ) -> Result<u32, Event> {
        // Only an observer needs the word (read before the instruction may overwrite it).
        let raw = if O::ENABLED { fetch(bus, pc).unwrap_or(0) } else { 0 };
        let next = self.execute(bus, insn, pc, now)?;
        self.x[0] = 0;
        *now += self.costs.of(insn.op);
        if O::ENABLED {
            let rd_write = insn.op.writes_rd().then(|| (insn.rd(), self.reg(insn.rd())));
            obs.retired(pc, raw, rd_write.filter(|(rd, _)| *rd != 0));
        }
        Ok(next)
    }

    /// The end of a [`Hart::step`] that did not simply retire: a trap is taken (`None`: the
    /// hart goes on at the handler), or the instruction completes and the exit it asks for
    /// is returned. [`Hart::steps`] counts up to this instruction. `touched`: see
    /// [`Hart::run_blocks`].
    #[cold]
    fn step_ended<B: Bus, O: Observer>(
        &mut self,
        bus: &mut B,
        obs: &mut O,
        event: Event,
        insn: Insn,
        pc: u32,
        touched: &mut bool,
    ) -> Option<Exit> {
        match event {
            Event::Trap(trap) => {
                self.touched |= std::mem::take(touched);
                self.take_trap(bus, pc, trap, obs)
            }
            Event::Stop(exit) => {
                // Semihosting calls and a wfi that can never wake complete their
                // instruction first.
                self.touched = true;
                self.x[0] = 0;
                self.pc = pc.wrapping_add(insn.size());
                self.now += self.costs.of(insn.op);
                if O::ENABLED {
                    // (Neither writes memory: the word is the one executed.)
                    obs.retired(pc, fetch(bus, pc).unwrap_or(0), None);
                }
                Some(exit)
            }
        }
    }

    /// What happens between two instructions when [`Hart::irq_check_at`] says so: a stop the
    /// bus asked for, else a look at the interrupts.
    #[cold]
    fn between_instructions<B: Bus, O: Observer>(&mut self, bus: &mut B, obs: &mut O) -> Option<Exit> {
        if let Some(halt) = self.take_halt() {
            return Some(halt);
        }
        if self.now >= self.cycle_limit {
            return Some(Exit::CycleLimit);
        }
        self.poll_interrupts(bus, obs);
        None
    }

    /// Stops the hart before the first instruction at or after cycle `limit` (a `wfi` waits
    /// no longer than that).
    pub fn set_cycle_limit(&mut self, limit: u64) {
        self.cycle_limit = limit;
        self.irq_check_at = 0;
    }

    /// The stop the bus asked for during the last instruction, if it did (and forgets it).
    fn take_halt(&mut self) -> Option<Exit> {
        std::mem::take(&mut self.halt_after).then_some(Exit::Halt)
    }

    /// Notes a stop the bus asked for during this instruction (see [`Hart::halt_after`]).
    #[inline(always)]
    fn check_halt<B: Bus>(&mut self, bus: &B) {
        if bus.halt_requested() {
            self.halt_after = true;
            self.irq_check_at = 0;
        }
    }

    /// The block at `pc` when the block cache does not have it: fetched, decoded and kept,
    /// ending before any probed address; or the probed instruction at `pc` to run once
    /// (`resume`: the caller was stopped there); or why nothing can run now: the fetch's
    /// fault, or `None` for a probe. Out of line: the hit path of the loop stays small.
    #[cold]
    #[inline(never)]
    fn block_miss<B: Bus>(
        &mut self,
        bus: &mut B,
        pc: u32,
        resume: Option<u32>,
        arena: &mut Arena,
    ) -> Result<Miss, Option<Trap>> {
        let probed = self.probes.contains_key(&pc);
        if probed && resume != Some(pc) {
            return Err(None);
        }
        let raw = fetch(bus, pc).map_err(Some)?;
        if probed {
            return Ok(Miss::Probed(decode(raw)));
        }
        let probes = &self.probes;
        Ok(Miss::Block(self.blocks.build(arena, pc, raw, |at| fetch(bus, at).ok(), |at| probes.contains_key(&at))))
    }

    /// Looks at the interrupt lines, and takes the highest-priority enabled pending
    /// interrupt if the hart takes interrupts now (before the instruction at `self.pc`).
    #[cold]
    fn poll_interrupts<B: Bus, O: Observer>(&mut self, bus: &mut B, obs: &mut O) {
        self.csr.mip = bus.interrupts(self.now);
        // Lines already up stay up until a device store (which brings the check forward):
        // until the next edge, only CSR writes and `mret` can make one taken.
        self.irq_check_at = bus.interrupt_due().min(self.cycle_limit);
        let pending = self.csr.enabled_pending();
        if pending == 0 || !self.csr.takes_interrupts() {
            return;
        }
        let Some(irq) = Interrupt::BY_PRIORITY.into_iter().find(|i| pending & i.bit() != 0) else { return };
        let pc = self.pc;
        tracing::debug!(pc = format_args!("{pc:#010x}"), irq = irq.describe(), "interrupt");
        if O::ENABLED {
            obs.interrupted(pc, irq);
        }
        self.reservation = Reservation::NONE;
        self.touched = true;
        // Its handler's `mret` returns from the interrupt, not from an exception.
        self.handling = None;
        self.csr.enter_trap(irq.mcause(), pc, 0);
        self.now += 1;
        self.pc = self.csr.interrupt_vector(irq as u32);
    }

    /// `wfi`: waits until an interrupt enabled in `mie` is pending (taken or not, by
    /// `mstatus.MIE`), skipping simulated time to the timer's next edge; stops the run when
    /// nothing can ever wake the hart.
    #[inline(never)]
    /// Returns the clock when it wakes (`now`: when it starts).
    fn wait_for_interrupt<B: Bus>(&mut self, bus: &mut B, pc: u32, now: u64) -> Result<u64, Event> {
        self.touched = true;
        self.csr.mip = bus.interrupts(now);
        self.irq_check_at = 0;
        if self.csr.enabled_pending() != 0 {
            return Ok(now);
        }
        // Only the timer rises by itself; a software interrupt needs a store, and the hart
        // is the only one that could make it.
        let rise = bus.interrupt_due();
        // A compare value beyond the simulator's time bound is out of reach too.
        if self.csr.mie() & Interrupt::Timer.bit() != 0 && rise <= MAX_CYCLE {
            // Past the cycle limit, the wait ends there (and so does the run).
            return Ok(now.max(rise.min(self.cycle_limit)));
        }
        Err(Event::Stop(Exit::Asleep { pc, mie: self.csr.mie() }))
    }

    /// Takes `trap` raised by the instruction at `pc`; returns an exit if it is the second
    /// trap in a row.
    #[cold]
    #[inline(never)]
    fn take_trap<B: Bus, O: Observer>(&mut self, bus: &B, pc: u32, trap: Trap, obs: &mut O) -> Option<Exit> {
        tracing::debug!(pc = format_args!("{pc:#010x}"), %trap, "trap");
        self.traps += 1;
        if O::ENABLED {
            obs.trapped(pc, trap);
        }
        if trap.cause.is_fault() {
            self.faults.total += 1;
            if self.faults.first.len() < Faults::KEPT {
                self.faults.first.push((pc, trap));
            }
        }
        if let Some((first, first_pc, step)) = self.last_trap {
            if step + 1 == self.steps {
                return Some(Exit::TrapLoop(Box::new(TrapLoop {
                    first,
                    first_pc,
                    second: trap,
                    second_pc: pc,
                    kind: LoopKind::Unhandled,
                })));
            }
        }
        let (alike, proven) = self.compare_state(bus, pc, trap);
        let again =
            alike && self.returned.take().is_some_and(|(from, step)| step + 1 == self.steps && from == (trap, pc));
        self.retries = if again { self.retries + 1 } else { 0 };
        self.handling = Some((trap, pc));
        // (A retry is the plainer explanation when both hold.)
        if self.retries >= MAX_RETRIES {
            return Some(Exit::TrapLoop(Box::new(TrapLoop {
                first: trap,
                first_pc: pc,
                second: trap,
                second_pc: pc,
                kind: LoopKind::Retry,
            })));
        }
        if proven {
            return Some(Exit::TrapLoop(Box::new(TrapLoop {
                first: trap,
                first_pc: pc,
                second: trap,
                second_pc: pc,
                kind: LoopKind::SameState,
            })));
        }
        let (count, first) = &mut self.unreturned;
        let (first, first_pc) = *first.get_or_insert((trap, pc));
        *count += 1;
        if *count > MAX_UNRETURNED_FAULTS && trap.cause.is_fault() {
            return Some(Exit::TrapLoop(Box::new(TrapLoop {
                first,
                first_pc,
                second: trap,
                second_pc: pc,
                kind: LoopKind::Faulting,
            })));
        }
        self.last_trap = Some((trap, pc, self.steps));
        self.reservation = Reservation::NONE;
        self.csr.enter_trap(trap.cause as u32, pc, trap.tval);
        self.now += 1;
        self.pc = self.csr.trap_vector();
        None
    }

    /// The state at this exception next to the last one's: whether the registers and CSRs
    /// are alike, and whether that makes a proven loop: [`MAX_SAME_STATE`] exceptions in a
    /// row in the same state with nothing touched in between, and no timer interrupt to come
    /// and break the round.
    fn compare_state<B: Bus>(&mut self, bus: &B, pc: u32, trap: Trap) -> (bool, bool) {
        let state = TrapState { pc, trap, x: self.x, csrs: self.csr.steady_state() };
        let (last, count) = &mut self.same_state;
        let alike = last.as_ref() == Some(&state);
        let again = !std::mem::replace(&mut self.touched, false) && alike;
        *count = if again { *count + 1 } else { 0 };
        *last = Some(state);
        let timer_may_fire = self.csr.mie() & Interrupt::Timer.bit() != 0 && bus.interrupt_due() <= MAX_CYCLE;
        (alike, *count >= MAX_SAME_STATE && !timer_may_fire)
    }

    /// Executes one instruction at clock `now` (which it moves by its stalls and penalties);
    /// returns the next PC.
    #[inline(always)]
    fn execute<B: Bus>(&mut self, bus: &mut B, i: &Insn, pc: u32, now: &mut u64) -> Result<u32, Event> {
        let rs1 = self.reg(i.rs1);
        let rs2 = self.reg(i.rs2);
        let imm = i.imm as u32;
        let next = pc.wrapping_add(i.size());
        let value = match i.op {
            Op::Lui => imm,
            Op::Auipc => pc.wrapping_add(imm),
            Op::Jal => return Ok(self.jump(bus, now, pc, next, i.rd(), None, pc.wrapping_add(imm))),
            Op::Jalr => return Ok(self.jump(bus, now, pc, next, i.rd(), Some(i.rs1), rs1.wrapping_add(imm) & !1)),
            Op::Beq => return Ok(self.branch(now, rs1 == rs2, pc, next, imm)),
            Op::Bne => return Ok(self.branch(now, rs1 != rs2, pc, next, imm)),
            Op::Blt => return Ok(self.branch(now, (rs1 as i32) < (rs2 as i32), pc, next, imm)),
            Op::Bge => return Ok(self.branch(now, (rs1 as i32) >= (rs2 as i32), pc, next, imm)),
            Op::Bltu => return Ok(self.branch(now, rs1 < rs2, pc, next, imm)),
            Op::Bgeu => return Ok(self.branch(now, rs1 >= rs2, pc, next, imm)),
            Op::Lb => self.load(bus, now, pc, rs1.wrapping_add(imm), Width::Byte)? as i8 as u32,
            Op::Lh => self.load(bus, now, pc, rs1.wrapping_add(imm), Width::Half)? as i16 as u32,
            Op::Lw => self.load(bus, now, pc, rs1.wrapping_add(imm), Width::Word)?,
            Op::Lbu => self.load(bus, now, pc, rs1.wrapping_add(imm), Width::Byte)?,
            Op::Lhu => self.load(bus, now, pc, rs1.wrapping_add(imm), Width::Half)?,
            Op::Sb => return self.store(bus, now, pc, rs1.wrapping_add(imm), Width::Byte, rs2, next),
            Op::Sh => return self.store(bus, now, pc, rs1.wrapping_add(imm), Width::Half, rs2, next),
            Op::Sw => return self.store(bus, now, pc, rs1.wrapping_add(imm), Width::Word, rs2, next),
            Op::Addi => rs1.wrapping_add(imm),
            Op::Slti => ((rs1 as i32) < (imm as i32)) as u32,
            Op::Sltiu => (rs1 < imm) as u32,
            Op::Xori => rs1 ^ imm,
            Op::Ori => rs1 | imm,
            Op::Andi => rs1 & imm,
            Op::Slli => rs1 << (imm & 31),
            Op::Srli => rs1 >> (imm & 31),
            Op::Srai => ((rs1 as i32) >> (imm & 31)) as u32,
            Op::Add => rs1.wrapping_add(rs2),
            Op::Sub => rs1.wrapping_sub(rs2),
            Op::Sll => rs1 << (rs2 & 31),
            Op::Slt => ((rs1 as i32) < (rs2 as i32)) as u32,
            Op::Sltu => (rs1 < rs2) as u32,
            Op::Xor => rs1 ^ rs2,
            Op::Srl => rs1 >> (rs2 & 31),
            Op::Sra => ((rs1 as i32) >> (rs2 & 31)) as u32,
            Op::Or => rs1 | rs2,
            Op::And => rs1 & rs2,
            Op::Mul => rs1.wrapping_mul(rs2),
            Op::Mulh => ((rs1 as i32 as i64 * rs2 as i32 as i64) >> 32) as u32,
            Op::Mulhsu => ((rs1 as i32 as i64 * rs2 as i64) >> 32) as u32,
            Op::Mulhu => ((rs1 as u64 * rs2 as u64) >> 32) as u32,
            Op::Div => match (rs1 as i32, rs2 as i32) {
                (_, 0) => u32::MAX,
                (a, b) => a.wrapping_div(b) as u32, // i32::MIN / -1 = i32::MIN
            },
            Op::Divu => rs1.checked_div(rs2).unwrap_or(u32::MAX),
            Op::Rem => match (rs1 as i32, rs2 as i32) {
                (a, 0) => a as u32,
                (a, b) => a.wrapping_rem(b) as u32, // i32::MIN % -1 = 0
            },
            Op::Remu => rs1.checked_rem(rs2).unwrap_or(rs1),
            Op::LrW => {
                if rs1 & 3 != 0 {
                    return Err(Event::Trap(Trap::new(Cause::LoadMisaligned, rs1)));
                }
                let value = self.load(bus, now, pc, rs1, Width::Word)?;
                self.reservation = Reservation(rs1);
                value
            }
            Op::ScW => {
                let reserved = self.reservation.take() == Some(rs1);
                if rs1 & 3 != 0 {
                    return Err(Event::Trap(Trap::new(Cause::StoreMisaligned, rs1)));
                }
                if !reserved {
                    self.set_reg(i.rd, 1);
                    return Ok(next);
                }
                self.write(bus, now, pc, rs1, Width::Word, rs2)?;
                self.set_reg(i.rd, 0);
                return self.stored(bus, rs1, 4, next);
            }
            Op::AmoswapW => return self.amo(bus, now, pc, i.rd, rs1, next, |_, b| b, rs2),
            Op::AmoaddW => return self.amo(bus, now, pc, i.rd, rs1, next, u32::wrapping_add, rs2),
            Op::AmoxorW => return self.amo(bus, now, pc, i.rd, rs1, next, |a, b| a ^ b, rs2),
            Op::AmoandW => return self.amo(bus, now, pc, i.rd, rs1, next, |a, b| a & b, rs2),
            Op::AmoorW => return self.amo(bus, now, pc, i.rd, rs1, next, |a, b| a | b, rs2),
            Op::AmominW => return self.amo(bus, now, pc, i.rd, rs1, next, |a, b| (a as i32).min(b as i32) as u32, rs2),
            Op::AmomaxW => return self.amo(bus, now, pc, i.rd, rs1, next, |a, b| (a as i32).max(b as i32) as u32, rs2),
            Op::AmominuW => return self.amo(bus, now, pc, i.rd, rs1, next, u32::min, rs2),
            Op::AmomaxuW => return self.amo(bus, now, pc, i.rd, rs1, next, u32::max, rs2),
            // One hart and coherent memory: ordering fences have nothing to order yet.
            Op::Fence => return Ok(next),
            Op::FenceI => {
                self.touched = true;
                self.blocks.flush();
                return Ok(next);
            }
            Op::Wfi => {
                // In U-mode it is illegal when mstatus.TW is set.
                if self.csr.privilege == Priv::User && self.csr.timeout_wait() {
                    return Err(illegal(bus, pc));
                }
                *now = self.wait_for_interrupt(bus, pc, *now)?;
                return Ok(next);
            }
            Op::Ecall => {
                let cause = match self.csr.privilege {
                    Priv::User => Cause::EcallFromU,
                    Priv::Machine => Cause::EcallFromM,
                };
                return Err(Event::Trap(Trap::new(cause, 0)));
            }
            Op::Ebreak => {
                if i.size() == 4 && self.is_semihosting_call(bus, pc) {
                    return Err(Event::Stop(Exit::Semihost));
                }
                return Err(Event::Trap(Trap::new(Cause::Breakpoint, pc)));
            }
            Op::Mret => {
                if self.csr.privilege != Priv::Machine {
                    return Err(illegal(bus, pc));
                }
                self.irq_check_at = 0;
                self.unreturned = (0, None);
                self.returned = self.handling.take().map(|from| (from, self.steps));
                return Ok(self.csr.leave_trap());
            }
            Op::Csrrw | Op::Csrrs | Op::Csrrc | Op::Csrrwi | Op::Csrrsi | Op::Csrrci => {
                // (`steps` counts this instruction: a CSR instruction ends its block.)
                let at = Counters { now: *now, retired: self.retired() - 1, mtime: bus.mtime(*now) };
                let old = self.csr_op(*i, rs1, at).map_err(|_| illegal(bus, pc))?;
                self.irq_check_at = 0; // mie, mstatus.MIE may have changed
                old
            }
            Op::CboClean => return self.cache_block(bus, now, pc, CacheOp::Clean, rs1, next),
            Op::CboFlush => return self.cache_block(bus, now, pc, CacheOp::Flush, rs1, next),
            Op::CboInval => return self.cache_block(bus, now, pc, CacheOp::Inval, rs1, next),
            Op::Illegal => return Err(Event::illegal(i.imm as u32)),
        };
        self.set_reg(i.rd, value);
        Ok(next)
    }

    /// `jal` (`rs1` = None) or `jalr` at `pc`; returns the target. (With C, no jump target
    /// is misaligned: offsets are even and `jalr` clears bit 0.)
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn jump<B: Bus>(
        &mut self,
        bus: &mut B,
        now: &u64,
        pc: u32,
        next: u32,
        rd: u8,
        rs1: Option<u8>,
        target: u32,
    ) -> u32 {
        if B::CALL_CONTEXTS {
            let before = self.calls.current();
            self.calls.jump(pc, rd, rs1, self.x[2]);
            if self.calls.current() != before {
                bus.set_context(self.calls.current(), target, *now);
            }
        }
        self.set_reg(rd, next);
        target
    }

    /// A conditional branch: the next PC, and the penalty of a taken branch.
    #[inline(always)]
    fn branch(&mut self, now: &mut u64, taken: bool, pc: u32, next: u32, offset: u32) -> u32 {
        if !taken {
            return next;
        }
        *now += self.taken_branch;
        pc.wrapping_add(offset)
    }

    /// The clock after waiting `cycles` for the bus from `now`, no later than the cycle limit
    /// (the run then stops with the clock at the limit: a wait behind a long DMA may be
    /// billions of cycles).
    #[inline(always)]
    fn waited(&self, now: u64, cycles: u64) -> u64 {
        (now + cycles).min(self.cycle_limit.max(now))
    }

    #[inline(always)]
    fn load<B: Bus>(&mut self, bus: &mut B, now: &mut u64, pc: u32, addr: u32, width: Width) -> Result<u32, Event> {
        let at = Access { pc, now: *now };
        let (value, stall) = bus.load(at, addr, width).map_err(|f| Event::access_fault(Cause::LoadAccessFault, f))?;
        *now = self.waited(*now, stall);
        // A device may stop the run on a load (a malformed accelerator reply request).
        self.check_halt(bus);
        Ok(value)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn store<B: Bus>(
        &mut self,
        bus: &mut B,
        now: &mut u64,
        pc: u32,
        addr: u32,
        width: Width,
        value: u32,
        next: u32,
    ) -> Result<u32, Event> {
        self.write(bus, now, pc, addr, width, value)?;
        self.stored(bus, addr, width.bytes(), next)
    }

    /// The memory write of a store.
    #[inline(always)]
    fn write<B: Bus>(
        &mut self,
        bus: &mut B,
        now: &mut u64,
        pc: u32,
        addr: u32,
        width: Width,
        value: u32,
    ) -> Result<(), Event> {
        let at = Access { pc, now: *now };
        let stall = bus.store(at, addr, width, value).map_err(|f| Event::access_fault(Cause::StoreAccessFault, f))?;
        *now = self.waited(*now, stall);
        Ok(())
    }

    /// What follows every store of the hart to `[addr, addr + len)`: decoded instructions
    /// there are forgotten, a reservation there is lost, and a halting store stops the run.
    #[inline(always)]
    fn stored<B: Bus>(&mut self, bus: &mut B, addr: u32, len: u32, next: u32) -> Result<u32, Event> {
        // A store to a device may change its interrupt lines; a store to code leaves the
        // block being executed (it may be the code changed): both are looked at before the
        // next instruction.
        let code_changed = self.blocks.invalidate_range(addr, len);
        self.irq_check_at = self.irq_check_at.min(if code_changed { 0 } else { bus.interrupt_due() });
        if self.reservation.word().is_some_and(|word| Range::new(word, 4).overlaps(Range::new(addr, len))) {
            self.reservation = Reservation::NONE;
        }
        self.check_halt(bus);
        Ok(next)
    }

    /// An AMO at clock `now`: `rd` gets the word at `addr`, which becomes `op(word, src)`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn amo<B: Bus>(
        &mut self,
        bus: &mut B,
        now: &mut u64,
        pc: u32,
        rd: u8,
        addr: u32,
        next: u32,
        op: fn(u32, u32) -> u32,
        src: u32,
    ) -> Result<u32, Event> {
        self.with_clock(now, |hart| hart.amo_out_of_line(bus, pc, rd, addr, next, op, src))
    }

    /// [`Hart::amo`] at clock [`Hart::now`]. The read and the write are one access at one
    /// moment (both see the same `now`; the memory system reports them as consecutive nodes
    /// of the CPU timeline, nothing between them); a fault of either is a store/AMO fault.
    ///
    /// Kept out of line (as the other A instructions): rare, and inlined nine times over they
    /// slowed the interpreter's loop for every program.
    #[allow(clippy::too_many_arguments)]
    #[inline(never)]
    fn amo_out_of_line<B: Bus>(
        &mut self,
        bus: &mut B,
        pc: u32,
        rd: u8,
        addr: u32,
        next: u32,
        op: fn(u32, u32) -> u32,
        src: u32,
    ) -> Result<u32, Event> {
        if addr & 3 != 0 {
            return Err(Event::Trap(Trap::new(Cause::StoreMisaligned, addr)));
        }
        let at = Access { pc, now: self.now };
        let fault = |f| Event::access_fault(Cause::StoreAccessFault, f);
        let (old, load_stall) = bus.load(at, addr, Width::Word).map_err(fault)?;
        let store_stall = bus.store(at, addr, Width::Word, op(old, src)).map_err(fault)?;
        self.now = self.waited(self.now, load_stall + store_stall);
        self.set_reg(rd, old);
        self.stored(bus, addr, 4, next)
    }

    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn cache_block<B: Bus>(
        &mut self,
        bus: &mut B,
        now: &mut u64,
        pc: u32,
        op: CacheOp,
        addr: u32,
        next: u32,
    ) -> Result<u32, Event> {
        let at = Access { pc, now: *now };
        // Zicbom reports faults of cache-block operations as store/AMO faults.
        let stall = bus.cache_block(at, op, addr).map_err(|f| Event::access_fault(Cause::StoreAccessFault, f))?;
        *now = self.waited(*now, stall);
        Ok(next)
    }

    /// Reads and/or writes a CSR; returns the old value (for `rd`).
    fn csr_op(&mut self, i: Insn, rs1: u32, at: Counters) -> Result<u32, csr::IllegalCsrAccess> {
        let csr = i.imm as u16;
        self.touched |= Csrs::moves_by_itself(csr);
        // Immediate forms take the 5-bit value in the rs1 field.
        let src = if matches!(i.op, Op::Csrrwi | Op::Csrrsi | Op::Csrrci) { i.rs1 as u32 } else { rs1 };
        match i.op {
            Op::Csrrw | Op::Csrrwi => {
                // rd = x0 does not read (and cannot fault on a read).
                let old = if i.rd() != 0 { self.csr.read(csr, at)? } else { 0 };
                self.csr.write(csr, src, at)?;
                Ok(old)
            }
            _ => {
                let old = self.csr.read(csr, at)?;
                // rs1 = x0 / uimm = 0 does not write (so read-only CSRs may be read this way).
                if i.rs1 != 0 {
                    let new = if matches!(i.op, Op::Csrrs | Op::Csrrsi) { old | src } else { old & !src };
                    self.csr.write(csr, new, at)?;
                }
                Ok(old)
            }
        }
    }

    fn is_semihosting_call<B: Bus>(&self, bus: &mut B, pc: u32) -> bool {
        // The sequence is three uncompressed instructions (a `c.ebreak` is never a call).
        fetch(bus, pc.wrapping_sub(4)) == Ok(SEMIHOST_PRE) && fetch(bus, pc.wrapping_add(4)) == Ok(SEMIHOST_POST)
    }
}

/// The illegal-instruction trap of the (legal-looking) instruction at `pc`, with its word
/// in `mtval`, fetched again: the decoded form does not keep it.
#[cold]
fn illegal<B: Bus>(bus: &mut B, pc: u32) -> Event {
    Event::illegal(fetch(bus, pc).unwrap_or(0))
}

/// Fetches the instruction at `pc`: its first 16-bit parcel, then the second if the first
/// says it is a 32-bit instruction (which may lie across a page or region boundary: the
/// second parcel faults on its own, with its own address in `mtval`).
fn fetch<B: Bus>(bus: &mut B, pc: u32) -> Result<u32, Trap> {
    if pc & 1 != 0 {
        return Err(Trap::new(Cause::InsnMisaligned, pc));
    }
    let parcel = |bus: &mut B, addr| bus.fetch(addr).map_err(|f| Trap::new(Cause::InsnAccessFault, f.addr()));
    let low = parcel(bus, pc)? as u32;
    if decode::length(low) == 2 {
        return Ok(low);
    }
    Ok(low | (parcel(bus, pc.wrapping_add(2))? as u32) << 16)
}

/// What [`Hart::block_miss`] found to run.
enum Miss {
    /// A block, now cached.
    Block(Block),
    /// The instruction at a probed address, to run once.
    Probed(Insn),
}

/// What stops an instruction from completing normally.
enum Event {
    Trap(Trap),
    /// The instruction completes, then the hart returns to its caller with this exit
    /// (`Semihost` or `Asleep`).
    Stop(Exit),
}

impl Event {
    fn illegal(raw: u32) -> Event {
        Event::Trap(Trap::new(Cause::IllegalInsn, raw))
    }

    fn access_fault(cause: Cause, fault: MemFault) -> Event {
        Event::Trap(Trap::new(cause, fault.addr()))
    }
}

#[cfg(test)]
mod tests;
