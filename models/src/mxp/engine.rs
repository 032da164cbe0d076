//! The accelerator's engine: the instruction port assembles command words, one in-order
//! command FIFO feeds a DMA queue and the vector pipeline, the four interlocks
//! (`mxpsim_detector::interlock`, the one shared definition) order the two, and SYNC waits
//! for everything.
//!
//! # How time works
//!
//! Commands are decoded when their last word arrives, in program order, and scheduled at
//! once: the FIFO issues them in order; a vector instruction starts when the pipeline and
//! every earlier DMA it interlocks with are done and takes one cycle per wavefront; a DMA
//! waits for room in the DMA queue, for the DMA before it and for the vector instructions it
//! interlocks with, then moves its bytes over AXI as the `Dma` master. Each operation's effect
//! on memory is applied atomically at its completion cycle, when the CPU's clock reaches it
//! (the memory system calls [`Mxp::catch_up`] before every CPU access), so a CPU access that
//! the hardware does not order with an operation really sees the data before or after it,
//! as its timing says. The CPU stalls when the FIFO is full and on replies (SYNC returns when
//! everything earlier has completed).
//!
//! # Events
//!
//! Every command that reaches an engine is a `Request` CPU node (at the store of its last
//! word); its `Dma`/`Vector` node is emitted when its effect is applied, always before the
//! `Sync` that waits for it.

use super::command::{self, Command, DmaDir, SrcA, SrcB, VectorInsn};
use super::config::MxpConfig;
use super::regs::{index, Registers, Shape};
use super::row_set::{Bitmap, RangeUnion, LISTED_ROWS};
use super::vector::{self, Footprint, Params, VectorError, VectorState};
use crate::axi::{Axi, Dir, Master};
use crate::dram::Dram;
use crate::stop::{StopRequest, MAX_CYCLE};
use mxpsim_detector::event::{Event, Pos, Range, Request};
use mxpsim_detector::interlock::{interlocked, EngineOp};
use std::collections::{BTreeMap, VecDeque};
use std::fmt;

/// Why the accelerator stopped the run: a command the encoding or the machine cannot carry
/// out. `pc` is the store (or load) that issued it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MxpError {
    pub pc: u32,
    pub what: String,
}

impl fmt::Display for MxpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.what)
    }
}

/// Why the engine stopped the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Halt {
    /// A command it cannot carry out.
    Error(MxpError),
    /// The [`StopRequest`] was set while it carried out a long command.
    Requested,
}

impl From<MxpError> for Halt {
    fn from(e: MxpError) -> Self {
        Halt::Error(e)
    }
}

/// Work scheduled on an engine, waiting for its completion cycle.
#[derive(Clone, Debug)]
enum Work {
    Dma { request: Pos, dir: DmaDir, rows: DmaRows, scratchpad: Vec<Range> },
    Vector { request: Pos, pc: u32, insn: VectorInsn, shape: Shape, footprint: Footprint },
}

impl Work {
    fn request(&self) -> Pos {
        match self {
            Work::Dma { request, .. } | Work::Vector { request, .. } => *request,
        }
    }

    fn op(&self) -> EngineOp<'_> {
        match self {
            Work::Dma { dir, scratchpad, .. } => EngineOp::Dma { dir: *dir, scratchpad },
            Work::Vector { footprint, .. } => EngineOp::Vector { reads: &footprint.reads, writes: &footprint.writes },
        }
    }

    /// The one the engine's queue order puts `self` after, if `earlier` is requested first:
    /// the same queue, or an interlock.
    fn waits_for(&self, earlier: &Work) -> bool {
        let same_queue = matches!(self, Work::Dma { .. }) == matches!(earlier, Work::Dma { .. });
        earlier.request() < self.request() && (same_queue || interlocked(earlier.op(), self.op()))
    }
}

/// The rows of a DMA, described rather than listed (a 2-D DMA may have 2^32 of them): row
/// `r` moves `len` bytes between DRAM address `ext + r·ext_inc` and scratchpad offset
/// `sp + r·sp_inc`, addresses wrapping at 2^32.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct DmaRows {
    ext: u32,
    sp: u32,
    len: u32,
    rows: u32,
    ext_inc: i32,
    sp_inc: i32,
}

impl DmaRows {
    /// Row `r`'s DRAM address and scratchpad offset.
    fn row(&self, r: u32) -> (u32, u32) {
        let step = |base: u32, inc: i32| base.wrapping_add((inc as u32).wrapping_mul(r));
        (step(self.ext, self.ext_inc), step(self.sp, self.sp_inc))
    }

    fn bytes(&self) -> u64 {
        u64::from(self.rows) * u64::from(self.len)
    }

    /// The DRAM ranges, as the event lists them: one per row, or, above [`LISTED_ROWS`] rows,
    /// their union (in time proportional to the rows, as moving them takes; `stop` is looked
    /// at every 2^16 rows). The union holds one range per disjoint run of bytes: no more than
    /// the bytes the rows touch, which the detector tracks line by line anyway.
    fn host(&self, stop: &StopRequest) -> Result<Vec<Range>, Halt> {
        let rows = (0..self.rows).map(|r| Range::new(self.row(r).0, self.len));
        if u64::from(self.rows) <= LISTED_ROWS {
            return Ok(rows.collect());
        }
        let mut union = RangeUnion::default();
        for (r, range) in rows.enumerate() {
            if r % (1 << 16) == 0 && stop.reason().is_some() {
                return Err(Halt::Requested);
            }
            union.add(range);
        }
        Ok(union.finish())
    }

    /// The scratchpad ranges (offsets in a scratchpad of `size` bytes, every row checked to
    /// lie in it), as the event lists them: one per row, or, above [`LISTED_ROWS`] rows, their
    /// union (in time bounded by the scratchpad's size).
    fn scratchpad(&self, size: u32) -> Vec<Range> {
        if u64::from(self.rows) <= LISTED_ROWS {
            return (0..self.rows).map(|r| Range::new(self.row(r).1, self.len)).collect();
        }
        let starts = Bitmap::single(size, self.sp).repeat(self.sp_inc.into(), self.rows.into());
        starts.repeat(1, self.len.into()).ranges()
    }
}

/// The first of `rows` rows of `len` bytes from `first`, `inc` bytes apart (wrapping at 2^32),
/// that is not `inside`, with its address. When the rows' whole span is inside (checked as one
/// range), none is looked at one by one; otherwise rows are looked at in order until the
/// first bad one, with `stop` looked at every 2^16 rows.
fn first_row_outside(
    first: u32,
    inc: i32,
    rows: u32,
    len: u32,
    inside: impl Fn(u32, u32) -> bool,
    stop: &StopRequest,
) -> Result<Option<(u32, u32)>, Halt> {
    let last = i128::from(first) + i128::from(inc) * i128::from(rows.saturating_sub(1));
    let (low, high) = (last.min(first.into()), last.max(first.into()) + i128::from(len));
    if rows == 0 || (low >= 0 && high <= 1 << 32 && u32::try_from(high - low).is_ok_and(|n| inside(low as u32, n))) {
        return Ok(None);
    }
    for r in 0..rows {
        if r % (1 << 16) == 0 && stop.reason().is_some() {
            return Err(Halt::Requested);
        }
        let addr = first.wrapping_add((inc as u32).wrapping_mul(r));
        if !inside(addr, len) {
            return Ok(Some((r, addr)));
        }
    }
    Ok(None)
}

/// A scheduled operation still able to interlock with later ones.
struct Recent {
    is_dma: Option<DmaDir>,
    reads: Vec<Range>,
    writes: Vec<Range>,
    end: u64,
}

impl Recent {
    fn op(&self) -> EngineOp<'_> {
        match self.is_dma {
            Some(dir @ DmaDir::ToScratchpad) => EngineOp::Dma { dir, scratchpad: &self.writes },
            Some(dir @ DmaDir::ToHost) => EngineOp::Dma { dir, scratchpad: &self.reads },
            None => EngineOp::Vector { reads: &self.reads, writes: &self.writes },
        }
    }
}

/// Statistics of the accelerator, for `--stats`.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MxpStats {
    pub vector_instructions: u64,
    pub wavefronts: u64,
    pub dma_transfers: u64,
    pub dma_bytes: u64,
    pub syncs: u64,
    /// CPU cycles lost waiting: full command FIFO and replies.
    pub cpu_stall_cycles: u64,
}

pub struct Mxp {
    cfg: MxpConfig,
    params: Params,
    regs: Registers,
    state: VectorState,
    /// Words of the command being assembled, and the PC of the store of its first word.
    words: Vec<u32>,
    /// The 2-D DMA set-up latch: scratchpad row increment, rows, external row increment.
    dma2d: (i32, u32, i32),
    /// The mask length as it will be when the commands decoded so far have run (a masked
    /// instruction's footprint needs it before the set-up has executed).
    mask_len: u32,
    /// Pending reply of the last reply command, and the cycle it is ready at.
    reply: Option<(Command, u64)>,
    // --- schedule
    /// Issue cycles of the last `fifo_depth` commands (FIFO slots free at issue).
    fifo: VecDeque<u64>,
    last_issue: u64,
    vector_free_at: u64,
    /// Completion cycles of the DMAs in the queue or in flight, oldest first.
    dma_in_queue: VecDeque<u64>,
    dma_free_at: u64,
    recent: Vec<Recent>,
    /// Latest completion of anything scheduled (what SYNC waits for).
    all_done_at: u64,
    /// Work by completion cycle (then program order).
    pending: BTreeMap<(u64, u64), Work>,
    seq: u64,
    /// Looked at between the rows of long commands.
    stop: StopRequest,
    /// The start and end of the last operation scheduled (for a timeline).
    last_scheduled: Option<(u64, u64)>,
    pub stats: MxpStats,
}

impl Mxp {
    /// An accelerator for a validated configuration.
    pub fn new(cfg: &MxpConfig) -> Self {
        Mxp {
            params: Params { lanes: cfg.lanes, fxp_frac_bits: cfg.fxp_frac_bits },
            regs: Registers::new(cfg.scratchpad_size),
            state: VectorState::new(cfg.scratchpad_size),
            words: Vec::with_capacity(4),
            dma2d: (0, 0, 0),
            mask_len: 0,
            reply: None,
            fifo: VecDeque::new(),
            last_issue: 0,
            vector_free_at: 0,
            dma_in_queue: VecDeque::new(),
            dma_free_at: 0,
            recent: Vec::new(),
            all_done_at: 0,
            pending: BTreeMap::new(),
            seq: 0,
            stop: StopRequest::default(),
            last_scheduled: None,
            stats: MxpStats::default(),
            cfg: cfg.clone(),
        }
    }

    pub fn config(&self) -> &MxpConfig {
        &self.cfg
    }

    /// Long commands give up (with [`Halt::Requested`]) once `stop` is set.
    pub fn set_stop_request(&mut self, stop: StopRequest) {
        self.stop = stop;
    }

    /// The cycle of the next effect to apply (`u64::MAX` when nothing is pending): the
    /// memory system calls [`Mxp::catch_up`] only when the CPU's clock reaches it.
    pub fn next_due(&self) -> u64 {
        self.pending.keys().next().map_or(u64::MAX, |&(at, _)| at)
    }

    /// Applies every operation that has completed by cycle `now`, emitting its event.
    pub fn catch_up(&mut self, now: u64, dram: &mut Dram, emit: &mut dyn FnMut(Event)) -> Result<(), Halt> {
        while self.next_work().is_some_and(|(end, _)| end <= now) {
            self.apply_next(dram, emit)?;
        }
        Ok(())
    }

    /// The completion cycle and request position of the next operation to apply.
    pub fn next_work(&self) -> Option<(u64, Pos)> {
        self.pending.first_key_value().map(|(&(end, _), work)| (end, work.request()))
    }

    /// The pending operations that must take effect before the one requested at `request`
    /// (queue order and the interlocks, transitively), and it last, by their request
    /// positions in completion order; empty if it is not pending. Applying just these, ahead
    /// of others, keeps every order the engine guarantees.
    pub fn must_precede(&self, request: Pos) -> Vec<Pos> {
        let work: Vec<&Work> = self.pending.values().collect();
        let Some(target) = work.iter().position(|w| w.request() == request) else { return Vec::new() };
        let mut needed = vec![false; work.len()];
        needed[target] = true;
        let mut todo = vec![target];
        while let Some(i) = todo.pop() {
            for (j, earlier) in work.iter().enumerate() {
                if !needed[j] && work[i].waits_for(earlier) {
                    needed[j] = true;
                    todo.push(j);
                }
            }
        }
        work.iter().zip(needed).filter(|(_, n)| *n).map(|(w, _)| w.request()).collect()
    }

    /// Applies the pending operation requested at `request` now, at cycle `at`, out of
    /// completion order (a deliberate schedule: [`Mxp::must_precede`] says what may go
    /// first), emitting its event.
    pub fn apply_request(
        &mut self,
        request: Pos,
        at: u64,
        dram: &mut Dram,
        emit: &mut dyn FnMut(Event),
    ) -> Result<(), Halt> {
        let Some(key) = self.pending.iter().find(|(_, w)| w.request() == request).map(|(k, _)| *k) else {
            return Ok(());
        };
        let work = self.pending.remove(&key).expect("found");
        self.apply(work, at, dram, emit)
    }

    /// The completion cycle of the operation requested at `request`, while it is pending.
    pub fn end_of(&self, request: Pos) -> Option<u64> {
        self.pending.iter().find(|(_, work)| work.request() == request).map(|(&(end, _), _)| end)
    }

    /// Applies the next operation at its completion cycle, emitting its event.
    fn apply_next(&mut self, dram: &mut Dram, emit: &mut dyn FnMut(Event)) -> Result<(), Halt> {
        let Some(((end, _), work)) = self.pending.pop_first() else { return Ok(()) };
        self.apply(work, end, dram, emit)
    }

    fn apply(&mut self, work: Work, at: u64, dram: &mut Dram, emit: &mut dyn FnMut(Event)) -> Result<(), Halt> {
        match work {
            Work::Dma { request, dir, rows, scratchpad } => {
                for r in 0..rows.rows {
                    if r % 4096 == 0 && self.stop.reason().is_some() {
                        return Err(Halt::Requested);
                    }
                    let (ext, sp) = rows.row(r);
                    let sp = sp as usize..(sp + rows.len) as usize;
                    let moved = match dir {
                        DmaDir::ToScratchpad => dram.read_bytes(ext, &mut self.state.data[sp]),
                        DmaDir::ToHost => dram.write_bytes(ext, &self.state.data[sp]),
                    };
                    moved.expect("DMA rows are checked against DRAM when the command is decoded");
                }
                emit(Event::Dma { request, dir, host: rows.host(&self.stop)?, scratchpad, cycle: at });
            }
            Work::Vector { request, pc, insn, shape, footprint } => {
                let stop = &self.stop;
                vector::execute(&insn, &shape, &mut self.state, &self.params, stop).map_err(|e| {
                    let what = match e {
                        VectorError::NoCustomUnit(n) => {
                            format!("VCUSTOM{n}: no custom unit is attached to that opcode")
                        }
                        VectorError::AccumulatorOverflow { row } => {
                            format!("accumulation overflowed the 40-bit accumulator in row {row}")
                        }
                        VectorError::Stopped => return Halt::Requested,
                    };
                    Halt::Error(MxpError { pc, what })
                })?;
                emit(Event::Vector {
                    request,
                    insn: insn.word0(),
                    a_reads: footprint.a_reads,
                    reads: footprint.reads,
                    writes: footprint.writes,
                    cycle: at,
                });
            }
        }
        Ok(())
    }

    /// A 32-bit store of `word` to the instruction port by the store at `pc`: returns the
    /// command it completes, if any. (The caller emits the command's `Request` node, if it
    /// has one, then hands it to [`Mxp::submit`].)
    pub fn write_word(&mut self, word: u32, pc: u32) -> Result<Option<Command>, MxpError> {
        self.words.push(word);
        let len = command::length(self.words[0]).map_err(|e| MxpError { pc, what: e.to_string() });
        let len = match len {
            Ok(len) => len,
            Err(e) => {
                self.words.clear();
                return Err(e);
            }
        };
        if self.words.len() < len {
            return Ok(None);
        }
        let cmd = command::decode(&self.words).map_err(|e| MxpError { pc, what: e.to_string() });
        self.words.clear();
        cmd.map(Some)
    }

    /// The request kind of a command that engines carry out (`None` for settings and replies).
    pub fn request_of(cmd: &Command) -> Option<Request> {
        match cmd {
            Command::Vector(_) => Some(Request::Vector),
            Command::Dma { dir, .. } | Command::Dma2d { dir, .. } => Some(Request::Dma(*dir)),
            _ => None,
        }
    }

    /// Carries out a decoded command at cycle `now`; `request` is the CPU position of its
    /// `Request` node when it has one. Returns the CPU's stall.
    pub fn submit(
        &mut self,
        cmd: Command,
        request: Pos,
        pc: u32,
        now: u64,
        dram: &Dram,
        axi: &mut Axi,
    ) -> Result<u64, Halt> {
        let stall = self.enter_fifo(now);
        let arrival = now + stall;
        let issue = arrival.max(self.last_issue);
        let fail = |what: String| Halt::Error(MxpError { pc, what });
        // When the command leaves the FIFO: at once for settings and replies, when the DMA
        // queue takes it for a DMA, when the pipeline starts it for a vector instruction.
        let issued = match cmd {
            Command::SetVl { vl, rows, mats } => {
                self.regs.set(index::VL, vl);
                self.regs.set(index::ROWS, rows);
                self.regs.set(index::MATS, mats);
                issue
            }
            Command::Set2d { ia, ib, id } => {
                self.regs.set(index::IA, ia);
                self.regs.set(index::IB, ib);
                self.regs.set(index::ID, id);
                issue
            }
            Command::Set3d { ia, ib, id } => {
                self.regs.set(index::IA3, ia);
                self.regs.set(index::IB3, ib);
                self.regs.set(index::ID3, id);
                issue
            }
            Command::SetParam { reg, value } => {
                self.regs.set(reg, value);
                issue
            }
            Command::Dma2dSetup { sp_inc, rows } => {
                (self.dma2d.0, self.dma2d.1) = (sp_inc, rows);
                issue
            }
            Command::Dma2dExtInc { ext_inc } => {
                self.dma2d.2 = ext_inc;
                issue
            }
            Command::GetParam { .. } | Command::GetMask => {
                self.reply = Some((cmd, issue));
                issue
            }
            Command::Sync => {
                self.stats.syncs += 1;
                self.reply = Some((cmd, issue.max(self.all_done_at)));
                issue
            }
            Command::Dma { dir, ext, sp, len } => {
                let rows = DmaRows { ext, sp, len, rows: 1, ext_inc: 0, sp_inc: 0 };
                let rows = self.dma_rows(rows, dram)?.map_err(fail)?;
                self.schedule_dma(dir, rows, request, issue, axi).map_err(fail)?
            }
            Command::Dma2d { dir, ext, sp, row_len } => {
                let (sp_inc, rows, ext_inc) = self.dma2d;
                let rows = DmaRows { ext, sp, len: row_len, rows, ext_inc, sp_inc };
                let rows = self.dma_rows(rows, dram)?.map_err(fail)?;
                self.schedule_dma(dir, rows, request, issue, axi).map_err(fail)?
            }
            Command::Vector(insn) => self.schedule_vector(insn, request, pc, issue).map_err(fail)?,
        };
        self.last_issue = issued;
        self.fifo.push_back(issued);
        Ok(stall)
    }

    /// Waits for a free FIFO slot: returns the stall.
    fn enter_fifo(&mut self, now: u64) -> u64 {
        if self.fifo.len() < self.cfg.fifo_depth as usize {
            return 0;
        }
        let freed = self.fifo.pop_front().expect("the FIFO is full");
        let stall = freed.saturating_sub(now);
        self.stats.cpu_stall_cycles += stall;
        stall
    }

    /// A DMA's rows with their scratchpad addresses as offsets, once every row is checked to
    /// lie in the scratchpad and in DRAM; else the first row that does not, in words.
    /// (`Err` only for a stop request during a long check.)
    fn dma_rows(&self, rows: DmaRows, dram: &Dram) -> Result<Result<DmaRows, String>, Halt> {
        // A transfer of zero bytes is a no-op (spec §4.1): no rows, whatever the addresses.
        let rows = DmaRows { rows: if rows.len == 0 { 0 } else { rows.rows }, ..rows };
        let (base, size) = (self.cfg.scratchpad, self.cfg.scratchpad_size);
        let in_scratchpad = |addr: u32, len: u32| {
            let off = addr.wrapping_sub(base);
            off < size && u64::from(off) + u64::from(len) <= u64::from(size)
        };
        let len = rows.len;
        let in_dram = |addr: u32, len: u32| dram.contains(addr, len);
        let sp = first_row_outside(rows.sp, rows.sp_inc, rows.rows, len, in_scratchpad, &self.stop)?;
        let ext = first_row_outside(rows.ext, rows.ext_inc, rows.rows, len, in_dram, &self.stop)?;
        // The first bad row, as a row-by-row check finds it (its scratchpad side first).
        Ok(match (sp, ext) {
            (Some((r, sp)), ext) if ext.is_none_or(|(e, _)| r <= e) => {
                Err(format!("DMA row {r}: scratchpad range {sp:#010x} + {len} bytes is outside the scratchpad"))
            }
            (_, Some((r, ext))) => Err(format!(
                "DMA row {r}: host address {ext:#010x} + {len} bytes is not in DRAM (DMA uses physical DRAM \
                 addresses: pass uncached-alias pointers through VBX_DMA_ADDR)"
            )),
            _ => Ok(DmaRows { sp: rows.sp.wrapping_sub(base), ..rows }),
        })
    }

    /// Earliest start for an operation after every earlier one it interlocks with.
    fn interlock_wait(&self, op: EngineOp<'_>) -> u64 {
        self.recent.iter().filter(|r| interlocked(r.op(), op)).map(|r| r.end).max().unwrap_or(0)
    }

    fn remember(&mut self, recent: Recent, issue: u64) {
        // Operations done by the time this one issued cannot hold up anything later.
        self.recent.retain(|r| r.end > issue);
        self.all_done_at = self.all_done_at.max(recent.end);
        self.recent.push(recent);
    }

    fn schedule(&mut self, end: u64, work: Work) {
        self.seq += 1;
        self.pending.insert((end, self.seq), work);
    }

    /// Refuses an operation that would complete past [`MAX_CYCLE`] (simulated time stays far
    /// from overflowing).
    fn within_time(end: u64, what: &str) -> Result<u64, String> {
        match end <= MAX_CYCLE {
            true => Ok(end),
            false => Err(format!("the {what} would complete after cycle {end}, beyond the simulator's 2^62 cycles")),
        }
    }

    /// Schedules a DMA; returns when the DMA queue took it.
    fn schedule_dma(
        &mut self,
        dir: DmaDir,
        rows: DmaRows,
        request: Pos,
        issue: u64,
        axi: &mut Axi,
    ) -> Result<u64, String> {
        let sp = rows.scratchpad(self.cfg.scratchpad_size);
        // Room in the DMA queue: the DMA `dma_queue` places earlier must have finished.
        let mut queued = issue;
        while self.dma_in_queue.len() >= self.cfg.dma_queue as usize {
            queued = queued.max(self.dma_in_queue.pop_front().expect("queue is full"));
        }
        let op = EngineOp::Dma { dir, scratchpad: &sp };
        let start = queued.max(self.dma_free_at).max(self.interlock_wait(op));
        let bytes = rows.bytes();
        let axi_dir = match dir {
            DmaDir::ToScratchpad => Dir::Read,
            DmaDir::ToHost => Dir::Write,
        };
        let end = if bytes == 0 { start } else { axi.transfer(Master::Dma, axi_dir, bytes, start) };
        let end = Self::within_time(end, "DMA")?;
        self.dma_free_at = end;
        self.last_scheduled = Some((start, end));
        self.dma_in_queue.push_back(end);
        self.stats.dma_transfers += 1;
        self.stats.dma_bytes += bytes;
        let (reads, writes) = match dir {
            DmaDir::ToScratchpad => (Vec::new(), sp.clone()),
            DmaDir::ToHost => (sp.clone(), Vec::new()),
        };
        self.remember(Recent { is_dma: Some(dir), reads, writes, end }, issue);
        self.schedule(end, Work::Dma { request, dir, rows, scratchpad: sp });
        Ok(queued)
    }

    /// Schedules a vector instruction; returns when the pipeline starts it.
    fn schedule_vector(&mut self, insn: VectorInsn, request: Pos, pc: u32, issue: u64) -> Result<u64, String> {
        let shape = self.regs.shape();
        let mut mask = self.state.mask.clone();
        mask.len = self.mask_len;
        let length = if insn.masked { self.mask_len } else { shape.vl };
        if length == 0 || shape.rows == 0 || shape.mats == 0 {
            return Err(format!(
                "vector instruction with {} = 0 (VL {}, ROWS {}, MATS {}, mask length {})",
                if length == 0 {
                    if insn.masked {
                        "mask length"
                    } else {
                        "VL"
                    }
                } else {
                    "ROWS or MATS"
                },
                shape.vl,
                shape.rows,
                shape.mats,
                self.mask_len
            ));
        }
        let insn = self.rebase(insn);
        let size = self.cfg.scratchpad_size;
        let footprint = vector::bounded_footprint(&insn, &shape, &mask, size, self.cfg.strict_bounds)?;
        if let command::Opcode::VsetMsk(_) = insn.op {
            // (The mask's length is VL, which the register keeps below twice the scratchpad.)
            if !insn.masked {
                self.mask_len = shape.vl;
            }
        }
        let op = EngineOp::Vector { reads: &footprint.reads, writes: &footprint.writes };
        let start = issue.max(self.vector_free_at).max(self.interlock_wait(op));
        let waves = vector::waves(&insn, &shape, &mask, &self.params).max(1);
        let end = Self::within_time(start.saturating_add(waves), "vector instruction")?;
        self.vector_free_at = end;
        self.last_scheduled = Some((start, end));
        self.stats.vector_instructions += 1;
        self.stats.wavefronts += waves;
        let recent = Recent { is_dma: None, reads: footprint.reads.clone(), writes: footprint.writes.clone(), end };
        self.remember(recent, issue);
        self.schedule(end, Work::Vector { request, pc, insn, shape, footprint });
        Ok(start)
    }

    /// The instruction with its scratchpad CPU addresses turned into offsets (an address
    /// outside the scratchpad gives an offset of `size` or more: execution reduces it modulo the
    /// size, which the scratchpad's aligned base makes the address's own low bits; strict
    /// bounds reject it).
    fn rebase(&self, insn: VectorInsn) -> VectorInsn {
        let base = self.cfg.scratchpad;
        VectorInsn {
            src_a: match insn.src_a {
                SrcA::Vector(a) => SrcA::Vector(a.wrapping_sub(base)),
                scalar => scalar,
            },
            src_b: match insn.src_b {
                SrcB::Vector(b) => SrcB::Vector(b.wrapping_sub(base)),
                SrcB::Enumerated => SrcB::Enumerated,
            },
            dest: insn.dest.wrapping_sub(base),
            ..insn
        }
    }

    /// The cycle the pending reply is ready at (a load from the port by `pc` waits for it).
    pub fn reply_ready(&self, pc: u32) -> Result<u64, MxpError> {
        self.reply.map(|(_, ready)| ready).ok_or_else(|| MxpError {
            pc,
            what: "load from the MXP instruction port with no reply pending (issue SYNC, GET_PARAM or GET_MASK first)"
                .into(),
        })
    }

    /// The start and end cycles of the operation the last [`Mxp::submit`] scheduled, if it
    /// scheduled one (taken: each is reported once).
    pub fn take_last_scheduled(&mut self) -> Option<(u64, u64)> {
        self.last_scheduled.take()
    }

    /// True if the pending reply is a SYNC's (it waits for everything requested before it).
    pub fn sync_pending(&self) -> bool {
        matches!(self.reply, Some((Command::Sync, _)))
    }

    /// Takes the pending reply (call [`Mxp::catch_up`] to its ready cycle first): the
    /// command it answers and its value.
    pub fn take_reply(&mut self) -> Option<(Command, u32)> {
        let (cmd, _) = self.reply.take()?;
        let value = match cmd {
            Command::GetParam { reg } => self.regs.get(reg),
            Command::GetMask => {
                let status = self.state.mask.status;
                self.state.mask.status |= 1 << 31;
                status
            }
            _ => 0,
        };
        Some((cmd, value))
    }

    pub fn count_stall(&mut self, cycles: u64) {
        self.stats.cpu_stall_cycles += cycles;
    }

    /// The scratchpad's bytes (after [`Mxp::catch_up`]), for CPU loads and stores.
    pub fn scratchpad(&self) -> &[u8] {
        &self.state.data
    }

    pub fn scratchpad_mut(&mut self) -> &mut [u8] {
        &mut self.state.data
    }
}

#[cfg(test)]
mod tests;
