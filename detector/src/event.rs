//! The event vocabulary: the nodes of the happens-before model (`race-semantics.md` §1) as
//! the simulated hardware reports them.
//!
//! # The stream's contract
//!
//! * **CPU nodes** ([`Event::CpuAccess`], [`Event::Cached`], [`Event::CacheMaintenance`],
//!   [`Event::Request`], [`Event::Sync`]) arrive in CPU program order. The *k*-th CPU node of
//!   the stream is at position *k* of the CPU timeline (1-based): positions are implicit, the
//!   detector counts them.
//! * **Engine nodes** ([`Event::Dma`], [`Event::Vector`]) name the CPU position of the
//!   [`Event::Request`] that asked for them. Each request has exactly one engine node, which
//!   arrives after its request and before the first [`Event::Sync`] that follows the request
//!   (a sync waits for all earlier work). DMA nodes arrive in request order, and so do vector
//!   nodes; between the two queues any order the interlocks allow is possible.
//! * Cache nodes (`alloc`, `wb`, …) are not in the stream: they are derived from the CPU's
//!   cached accesses and maintenance, using the [`CacheGeometry`]. That is the paper's
//!   abstraction: the verdict must not depend on when (or whether) the real cache moved a line.
//!
//! Addresses are physical: DRAM addresses for [`Space::Dram`] (the uncached alias is already
//! folded onto the DRAM address it aliases), scratchpad offsets for [`Space::Scratchpad`].

use std::fmt;

/// A position on the CPU timeline (1-based; 0 means "before the first CPU node").
pub type Pos = u64;

/// The two address spaces that nodes touch.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Space {
    /// Main memory (physical DRAM addresses).
    Dram,
    /// The accelerator's scratchpad (offsets from its base).
    Scratchpad,
}

/// A half-open byte range `[start, start + len)` within one space.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Range {
    pub start: u32,
    pub len: u32,
}

impl Range {
    pub const fn new(start: u32, len: u32) -> Self {
        Range { start, len }
    }

    /// One past the last byte (as u64: a range may end at 2^32).
    pub const fn end(self) -> u64 {
        self.start as u64 + self.len as u64
    }

    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    pub fn overlaps(self, other: Range) -> bool {
        !self.is_empty() && !other.is_empty() && (self.start as u64) < other.end() && (other.start as u64) < self.end()
    }

    /// The common bytes, if any.
    pub fn intersection(self, other: Range) -> Option<Range> {
        let start = self.start.max(other.start);
        let end = self.end().min(other.end());
        (self.overlaps(other)).then(|| Range::new(start, (end - start as u64) as u32))
    }
}

impl fmt::Display for Range {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#010x}..{:#010x}", self.start, self.end())
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Access {
    Read,
    Write,
}

/// A cache maintenance operation (`cbo.*`, or the whole-cache command).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum CacheOp {
    /// Write back if dirty; the line stays valid (so it does not order later allocations).
    Clean,
    /// Write back if dirty, then invalidate.
    Flush,
    /// Invalidate, discarding dirty data.
    Inval,
}

/// What a maintenance operation covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Scope {
    /// The line at this line-aligned DRAM address.
    Line(u32),
    /// Every line of the cache (`vbx_dcache_flush_all`).
    All,
}

/// Direction of a DMA transfer, named after the SDK calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum DmaDir {
    /// `vbx_dma_to_vector`: the paper's `dma_r`. Reads DRAM, writes the scratchpad.
    ToScratchpad,
    /// `vbx_dma_to_host`: the paper's `dma_w`. Reads the scratchpad, writes DRAM.
    ToHost,
}

/// What the CPU asks the accelerator for (the paper's `do_dma_read`, `do_dma_write`, `do_vec`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum Request {
    Dma(DmaDir),
    Vector,
}

/// Where a node comes from, for reports: the PC of the instruction that caused it (for engine
/// nodes, the instruction-port store of the request), the simulated cycle it happened at, and
/// the call context the instruction ran in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub struct Origin {
    pub pc: u32,
    pub cycle: u64,
    /// The producer's call-context id (the simulator's call-context tree: a node per distinct
    /// chain of call sites). Opaque to the detector, which only carries it into reports.
    pub ctx: u32,
}

/// One node of the happens-before model as the hardware reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Event {
    // ---- CPU nodes: each takes the next CPU timeline position.
    /// `cpu_uncached_read/write` (space `Dram`, through the uncached alias) or
    /// `cpu_sp_read/write` (space `Scratchpad`).
    CpuAccess { space: Space, access: Access, range: Range, origin: Origin },
    /// `cached_read` / `cached_write`: a CPU load/store through the data cache. The detector
    /// derives `alloc` (whole line) and `wb` (line, or dirty bytes) from it.
    Cached { access: Access, range: Range, origin: Origin },
    /// `cache_clean` / `cache_flush` / `cache_inval`.
    CacheMaintenance { op: CacheOp, scope: Scope, origin: Origin },
    /// `do_dma_read` / `do_dma_write` / `do_vec`: the CPU wrote a command to the instruction
    /// port. Ordering only; the engine node that carries it out names this position.
    Request { request: Request, origin: Origin },
    /// `sync`: `vbx_sync()` returned: every engine node requested before it has completed.
    Sync { origin: Origin },

    // ---- Engine nodes.
    /// `dma_r` / `dma_w`: one transfer (1D: one range each side; 2D: one range per row, the
    /// i-th host row moving to/from the i-th scratchpad row — or, above 4,096 rows, each
    /// side's union of rows, the same bytes in bounded size).
    Dma { request: Pos, dir: DmaDir, host: Vec<Range>, scratchpad: Vec<Range>, cycle: u64 },
    /// `vec`: one vector instruction's scratchpad reads (operand A's rows, then B's) and
    /// writes (D), one range per row for 2D/3D. `insn` (the instruction's word 0: opcode
    /// and mode) and `a_reads` (how many of `reads` are A's) only name the instruction and
    /// its operands in reports: the detector does not read them.
    Vector { request: Pos, insn: u32, a_reads: u32, reads: Vec<Range>, writes: Vec<Range>, cycle: u64 },
}

impl Event {
    /// True for the nodes that take a position on the CPU timeline.
    pub fn is_cpu_node(&self) -> bool {
        !matches!(self, Event::Dma { .. } | Event::Vector { .. })
    }
}

/// Write-back granularity of the data cache (also a machine-configuration value, hence
/// the serde names `line` and `dirty-bytes`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WriteBack {
    /// A write-back writes the whole line.
    Line,
    /// A write-back writes only the bytes written since the line was last clean.
    DirtyBytes,
}

/// What the detector must know of the cache: what an allocation reads and a write-back
/// writes. Size, ways, replacement and timing are deliberately absent (they must not change
/// the verdict).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct CacheGeometry {
    /// Line size in bytes (a power of two).
    pub line_size: u32,
    pub write_back: WriteBack,
}

impl CacheGeometry {
    /// The line-aligned address of the line holding `addr`.
    pub fn line_of(&self, addr: u32) -> u32 {
        addr & !(self.line_size - 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_overlap_only_on_common_bytes() {
        let a = Range::new(0x100, 0x10);
        assert!(a.overlaps(Range::new(0x10f, 1)));
        assert!(!a.overlaps(Range::new(0x110, 4)));
        assert!(!a.overlaps(Range::new(0x100, 0)));
        assert_eq!(a.intersection(Range::new(0x108, 0x20)), Some(Range::new(0x108, 8)));
        assert_eq!(Range::new(0xffff_fff0, 0x10).end(), 1 << 32);
        assert!(Range::new(0xffff_fff0, 0x10).overlaps(Range::new(0xffff_ffff, 1)));
    }

    #[test]
    fn lines_are_aligned_down() {
        let g = CacheGeometry { line_size: 64, write_back: WriteBack::Line };
        assert_eq!(g.line_of(0x8000_007f), 0x8000_0040);
    }
}
