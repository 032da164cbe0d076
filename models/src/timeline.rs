//! What a timeline of a run needs (`--timeline`): the hart's call-context changes, each
//! engine command's start and end, the cache's fills and write-backs, and the CPU's waits for
//! replies — each with its cycle. The memory system records them while a [`Recorder`] is
//! installed; the `sim` crate turns them into a trace viewers open.

use mxpsim_detector::event::Pos;

/// An engine's queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Queue {
    /// The DMA queue; `to_host`: a DMA to host (else to the scratchpad).
    Dma {
        to_host: bool,
    },
    Vector,
}

/// A cache action, as its timing counts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheAction {
    Fill,
    WriteBack,
}

/// One thing that happened, with its cycle(s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Record {
    /// The hart entered call context `ctx` at `cycle`, jumping to `pc` (a callee's entry, or
    /// the address a return went back to).
    Context { ctx: u32, pc: u32, cycle: u64 },
    /// The engine command requested at `request` (by the store at `pc`) ran on `queue` from
    /// `start` to `end`.
    Engine { queue: Queue, request: Pos, pc: u32, start: u64, end: u64 },
    /// The cache moved `line` for the CPU's access at `cycle`.
    Cache { action: CacheAction, line: u32, cycle: u64 },
    /// The CPU, at the load at `pc`, waited for a reply of the accelerator from `start` to
    /// `end` (a `vbx_sync()`, or a register read).
    Wait { pc: u32, start: u64, end: u64 },
}

impl Record {
    /// The cycle the record starts at.
    pub fn cycle(&self) -> u64 {
        match *self {
            Record::Context { cycle, .. } | Record::Cache { cycle, .. } => cycle,
            Record::Engine { start, .. } | Record::Wait { start, .. } => start,
        }
    }
}

/// Keeps the records of a window of cycles, up to a number of them.
#[derive(Clone, Debug)]
pub struct Recorder {
    /// Cycles `[from, to)` (records that start there).
    window: (u64, u64),
    limit: usize,
    /// The last context change before the window: where the CPU is when the window opens.
    before: Option<Record>,
    records: Vec<Record>,
    /// Records of the window left out because the limit was reached.
    dropped: u64,
}

impl Recorder {
    pub fn new(from: u64, to: u64, limit: usize) -> Recorder {
        Recorder { window: (from, to), limit, before: None, records: Vec::new(), dropped: 0 }
    }

    pub fn window(&self) -> (u64, u64) {
        self.window
    }

    pub fn push(&mut self, record: Record) {
        let cycle = record.cycle();
        if cycle < self.window.0 {
            if let Record::Context { .. } = record {
                self.before = Some(record);
            }
            return;
        }
        if cycle >= self.window.1 {
            return;
        }
        match self.records.len() < self.limit {
            true => self.records.push(record),
            false => self.dropped += 1,
        }
    }

    /// The records in the order they came (the context the window opens in first), and how
    /// many the limit left out.
    pub fn finish(self) -> (Vec<Record>, u64) {
        (self.before.into_iter().chain(self.records).collect(), self.dropped)
    }
}
