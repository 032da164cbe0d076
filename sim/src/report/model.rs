//! What a race report says, as data: findings with their sides, stacks, memory, ordering
//! facts and fix. Built by [`super::build`]; printed by [`super::text`] and [`super::json`].
//! Nothing here is prose: renderers turn it into words.

use crate::exit_code::RunEnd;
use crate::source_map::SourceFrame;
use mxpsim_detector::event::{CacheOp, Pos, Range, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::RaceNode;

/// The whole report of a run.
#[derive(Clone, Debug)]
pub struct Report {
    /// The findings no suppression matched.
    pub findings: Vec<Finding>,
    /// The findings a suppression matched, each with the index in `suppressions` of the
    /// one that did (the first that matches).
    pub suppressed: Vec<(Finding, usize)>,
    /// Every suppression given, with what it matched.
    pub suppressions: Vec<super::suppress::Used>,
    /// Events the detector observed.
    pub events: u64,
    /// Events that broke the stream's contract (a simulator bug if ever non-zero).
    pub stream_errors: u64,
    /// How the run ended (a run that did not finish may have missed races).
    pub outcome: RunEnd,
}

impl Report {
    /// Races over all findings, as the detector counted them (deduplicated by site pair and
    /// cache line).
    pub fn occurrences(&self) -> u64 {
        self.findings.iter().map(|f| f.occurrences).sum()
    }
}

/// One root cause: every race between the same two user-code sites, of the same kinds.
#[derive(Clone, Debug)]
pub struct Finding {
    pub space: Space,
    /// Side A and side B, in the order of their kinds (the class `A/B`).
    pub sides: [Side; 2],
    /// Every racing byte over the races folded into this finding (normalised).
    pub bytes: Vec<Range>,
    /// Distinct cache lines of the races' cache nodes (0: no cache node).
    pub cache_lines: usize,
    /// Distinct (instruction, instruction) pairs folded in (a loop unrolled, a helper inlined
    /// twice, fields stored one by one).
    pub sites: usize,
    /// Races folded in, counted once per site pair and cache line.
    pub occurrences: u64,
    /// What the racing bytes belong to.
    pub objects: Vec<Object>,
    /// For a race with a cache node: everything its line holds.
    pub line: Option<LineContents>,
    /// Why nothing orders the two sides: for A-before-B and B-before-A, what is missing.
    pub why: [Ordering; 2],
    /// What to change.
    pub fix: Fix,
    /// The first [`KEPT_RACES`] races folded in (each a distinct site pair and line, at its
    /// first occurrence), in the detector's order: `races[0]` is the one `sides` come from.
    /// `mxpsim provoke` tries them in turn.
    pub races: Vec<FoldedRace>,
}

/// How many of a finding's races [`Finding::races`] keeps.
pub const KEPT_RACES: usize = 64;

/// One race of a finding: its two sides and its racing bytes.
#[derive(Clone, Debug)]
pub struct FoldedRace {
    pub sides: [Side; 2],
    pub bytes: Vec<Range>,
}

impl Finding {
    /// `wb/dma_r`.
    pub fn class(&self) -> String {
        format!("{}/{}", self.sides[0].kind.short(), self.sides[1].kind.short())
    }

    /// `write-back-vs-dma-read`: a stable rule id for the class.
    pub fn rule(&self) -> String {
        format!("{}-vs-{}", self.sides[0].kind.words(), self.sides[1].kind.words())
    }
}

/// One side of a finding, from its first race.
#[derive(Clone, Debug)]
pub struct Side {
    pub kind: NodeKind,
    /// The node with its final interval (succ as the whole run decided it).
    pub node: RaceNode,
    /// Where the node comes from: the access, the request, or for a write-back the store a
    /// flush must follow (the last store to the line before the other side, when known,
    /// else the store that opened the dirty epoch).
    pub site: Site,
    /// For a write-back: the store that first dirtied the line in this epoch, when it is not
    /// `site`.
    pub first_store: Option<Site>,
    /// For a write-back: `site` is the last store to the line before the other side (else it
    /// is the epoch's first store).
    pub last_store_known: bool,
    /// What ends the node, as the whole run decided it: the `vbx_sync()` after an engine
    /// node's request, the clean/flush/invalidate after a write-back's store (None: nothing
    /// before the run ended; always None for other kinds, which end where they start).
    pub end: Option<Landmark>,
    /// For a cache side: the bytes its CPU access touched (the store named by `site`, or
    /// the read that needed the fill), when the race checker's log still had them.
    pub accessed: Option<Range>,
    /// For a vector side: the instruction and its operands that hold racing bytes.
    pub vector: Option<VectorUse>,
}

/// A vector instruction as a race names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorUse {
    /// `vbx`, `vbx_acc`, `vbx_masked`, `vbx_masked_acc`.
    pub call: &'static str,
    /// The canonical 8-letter mode (`VVWWWSSS`).
    pub mode: String,
    /// `VADD`.
    pub opcode: String,
    /// The operands whose rows hold racing bytes, in A, B, D order.
    pub operands: Vec<VectorOperand>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum VectorOperand {
    A,
    B,
    D,
}

impl VectorUse {
    /// `vbx(VVWWWSSS, VADD)`.
    pub fn insn(&self) -> String {
        format!("{}({}, {})", self.call, self.mode, self.opcode)
    }
}

impl VectorOperand {
    pub fn name(self) -> &'static str {
        match self {
            VectorOperand::A => "A",
            VectorOperand::B => "B",
            VectorOperand::D => "D",
        }
    }
}

/// A program point with its stack.
#[derive(Clone, Debug)]
pub struct Site {
    pub pos: Pos,
    pub pc: u32,
    /// The call context (for the frames' stack addresses).
    pub ctx: u32,
    pub cycle: u64,
    /// Innermost first: the instruction's frames (inlined ones first), then each caller's.
    pub stack: Vec<Frame>,
    /// The stack was cut at the depth limit.
    pub truncated: bool,
}

impl Site {
    /// The first frame in the firmware's own code (else the innermost frame).
    pub fn top_user_frame(&self) -> Option<&Frame> {
        self.stack.iter().find(|f| f.user).or(self.stack.first())
    }
}

#[derive(Clone, Debug)]
pub struct Frame {
    pub source: SourceFrame,
    /// In the firmware's own sources (not the C library, crt0 or the SDK runtime).
    pub user: bool,
}

/// A named piece of memory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Object {
    /// A global variable (from the symbol table, with its size), and the racing bytes' offset
    /// range within it.
    /// `path` names the racing bytes inside it from DWARF (`desc.len`, `rx[1..3]`).
    Global { name: String, addr: u32, size: u32, from: u32, to: u64, path: Option<String> },
    /// A heap block, the racing bytes' offsets within it, and its allocation.
    Heap { block: HeapBlock, from: u32, to: u64 },
    /// Bytes in the stack frame of `function` (whose frame address, the `sp` it was called
    /// with, is `frame`): `path` names the local variable from DWARF; `from`/`to` are the
    /// racing bytes' offsets from the frame address (negative: the stack grows down);
    /// `called_from` is the call that entered the frame.
    /// `pc` is an address in the function's code (naming its locals).
    Stack {
        function: Option<String>,
        pc: u32,
        frame: u32,
        path: Option<String>,
        from: i64,
        to: i64,
        called_from: Option<Frame>,
    },
    /// Scratchpad bytes (offsets from the scratchpad's base), and the `vbx_sp_malloc` block
    /// holding the first of them, when known (its `start` is an offset too).
    Scratchpad { block: Option<HeapBlock>, from: u32, to: u64 },
    /// DRAM bytes nothing names.
    Unnamed { from: u32, to: u64 },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HeapBlock {
    pub start: u32,
    pub size: u32,
    pub function: String,
    /// The allocation's stack (the allocator's caller first).
    pub stack: Vec<Frame>,
    pub freed: bool,
}

impl PartialEq for Frame {
    fn eq(&self, other: &Self) -> bool {
        self.source == other.source
    }
}
impl Eq for Frame {}

impl Object {
    /// The DRAM addresses of the bytes this object entry covers (the racing bytes, or the
    /// line's bytes in [`LineContents`]); `None` for the scratchpad.
    pub fn span(&self) -> Option<(u64, u64)> {
        match *self {
            Object::Global { addr, from, to, .. } => Some((addr as u64 + from as u64, addr as u64 + to)),
            Object::Heap { ref block, from, to } => Some((block.start as u64 + from as u64, block.start as u64 + to)),
            Object::Stack { frame, from, to, .. } => Some(((frame as i64 + from) as u64, (frame as i64 + to) as u64)),
            Object::Unnamed { from, to } => Some((from as u64, to)),
            Object::Scratchpad { .. } => None,
        }
    }
}

/// A cache line and what it holds.
#[derive(Clone, Debug)]
pub struct LineContents {
    pub line: u32,
    pub size: u32,
    /// Each object overlapping the line, with the bytes of the line it holds.
    pub objects: Vec<Object>,
    /// Which objects the cache side's own CPU access touched, as (side, object index): with
    /// the racing bytes' objects, the false-sharing picture.
    pub touched: Vec<(usize, usize)>,
}

/// An ordering node of the CPU timeline, named.
#[derive(Clone, Debug)]
pub struct Landmark {
    pub pos: Pos,
    pub what: LandmarkKind,
    pub site: Site,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LandmarkKind {
    Sync,
    Maintenance { op: CacheOp, whole_cache: bool },
    Request,
}

/// Why one side is not ordered before the other, as the facts that decide it.
///
/// To order X before Y, X's end (succ) must come no later than Y's start (pred). A `sync`
/// after a request ends an engine node; a clean/flush after a store ends a write-back; an
/// invalidate before a load moves a fill's start; CPU accesses are fixed points.
#[derive(Clone, Debug)]
pub enum Ordering {
    /// X is an engine node requested at `request`; Y starts at `then`, after the request;
    /// the first sync after the request is `sync` (after `then`), or none.
    NoSyncBetween { request: Landmark, then: Site, sync: Option<Landmark> },
    /// X is a write-back of `line` from the store `store`; Y starts at `then`, after it;
    /// the line's next clean/flush/invalidate after the store is `next` (after `then`), or
    /// none.
    NoFlushBetween { line: u32, store: Site, then: Site, next: Option<Landmark> },
    /// Y is a fill of `line` for the load `load`, which may happen any time after the line's
    /// last flush/invalidate before the load (`since`, or the start of the run); X ends at
    /// `done` (or, an engine node without a sync before the load, `request`), not before.
    FillMayPrecede { line: u32, load: Site, since: Option<Landmark>, done: Option<Landmark>, request: Option<Landmark> },
    /// Two engine nodes (a DMA and a vector instruction: one queue's nodes are ordered), and
    /// no sync lies between their requests (`first` before `second`). The interlocks cover
    /// read-after-write and write-after-read through the scratchpad in either order
    /// (`detector/src/interlock.rs`), so the two both write the racing bytes:
    /// write-after-write is never interlocked.
    NoInterlock { first: Landmark, second: Landmark },
    /// X's start comes after Y's in program order and nothing can move it: only the other
    /// direction can be ordered.
    ProgramOrder { x: Site, y: Site },
}

/// What to change, in the words of the fix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FixKind {
    /// Add a `vbx_sync()` between a request and what depends on it.
    Sync,
    /// Flush (or clean) the line between a store and the DMA request or uncached access.
    Flush,
    /// Invalidate (or flush) the line after the DMA wrote it and before the load.
    Invalidate,
    /// The racing bytes only share a line with the bytes the CPU's access touched: align or
    /// pad the buffers to the line size (the ordering edge of [`Fix::direction`] would also do).
    Align,
}

impl FixKind {
    pub fn name(self) -> &'static str {
        match self {
            FixKind::Sync => "sync",
            FixKind::Flush => "flush",
            FixKind::Invalidate => "invalidate",
            FixKind::Align => "align",
        }
    }
}

#[derive(Clone, Debug)]
pub struct Fix {
    pub kind: FixKind,
    /// Which direction of [`Finding::why`] the fix orders (0: A before B).
    pub direction: usize,
}
