//! The memory-touching nodes of the happens-before model (`race-semantics.md` §1): what each
//! kind is, how a node is named, and which bytes it reads and writes.
//!
//! Ordering-only nodes (maintenance, requests, `sync`, `cached_read`/`cached_write`
//! themselves) have no bytes and never race; they appear here only as positions.

use std::fmt;

use crate::bytes;
use crate::event::{Access, DmaDir, Event, Pos, Range, Space};

/// What a racing node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum NodeKind {
    /// `cpu_uncached_read`.
    CpuUncachedRead,
    /// `cpu_uncached_write`.
    CpuUncachedWrite,
    /// `cpu_sp_read`.
    CpuSpRead,
    /// `cpu_sp_write`.
    CpuSpWrite,
    /// `alloc`: the cache fetched the whole line for a cached read.
    Alloc,
    /// `wb`: the cache wrote the line (or its dirty bytes) back, for a cached write; or the
    /// Thm 3.3 copy of it added at a cached read of a dirty line.
    WriteBack,
    /// `dma_r` (`vbx_dma_to_vector`): reads DRAM, writes the scratchpad.
    DmaToScratchpad,
    /// `dma_w` (`vbx_dma_to_host`): reads the scratchpad, writes DRAM.
    DmaToHost,
    /// `vec`: one vector instruction.
    Vector,
}

impl NodeKind {
    /// The CPU node of a direct (uncached or scratchpad) access.
    pub fn cpu_access(space: Space, access: Access) -> NodeKind {
        match (space, access) {
            (Space::Dram, Access::Read) => NodeKind::CpuUncachedRead,
            (Space::Dram, Access::Write) => NodeKind::CpuUncachedWrite,
            (Space::Scratchpad, Access::Read) => NodeKind::CpuSpRead,
            (Space::Scratchpad, Access::Write) => NodeKind::CpuSpWrite,
        }
    }

    pub fn dma(dir: DmaDir) -> NodeKind {
        match dir {
            DmaDir::ToScratchpad => NodeKind::DmaToScratchpad,
            DmaDir::ToHost => NodeKind::DmaToHost,
        }
    }

    pub fn is_cache(self) -> bool {
        matches!(self, NodeKind::Alloc | NodeKind::WriteBack)
    }

    pub fn is_cpu_uncached(self) -> bool {
        matches!(self, NodeKind::CpuUncachedRead | NodeKind::CpuUncachedWrite)
    }

    pub fn is_engine(self) -> bool {
        matches!(self, NodeKind::DmaToScratchpad | NodeKind::DmaToHost | NodeKind::Vector)
    }
}

/// The names of each kind: the one table of them.
struct Names {
    /// The model's name (`race-semantics.md` §1).
    model: &'static str,
    /// Short, for tables and race classes (`wb/dma_r`).
    short: &'static str,
    /// Words, for rule ids and headlines (`write-back`, `dma-read`).
    words: &'static str,
}

impl NodeKind {
    const fn names(self) -> Names {
        let (model, short, words) = match self {
            NodeKind::CpuUncachedRead => ("cpu_uncached_read", "ur", "uncached-read"),
            NodeKind::CpuUncachedWrite => ("cpu_uncached_write", "uw", "uncached-write"),
            NodeKind::CpuSpRead => ("cpu_sp_read", "spr", "scratchpad-read"),
            NodeKind::CpuSpWrite => ("cpu_sp_write", "spw", "scratchpad-write"),
            NodeKind::Alloc => ("alloc", "alloc", "line-fill"),
            NodeKind::WriteBack => ("wb", "wb", "write-back"),
            NodeKind::DmaToScratchpad => ("dma_r", "dma_r", "dma-read"),
            NodeKind::DmaToHost => ("dma_w", "dma_w", "dma-write"),
            NodeKind::Vector => ("vec", "vec", "vector-op"),
        };
        Names { model, short, words }
    }

    /// `ur`, `uw`, `spr`, `spw`, `alloc`, `wb`, `dma_r`, `dma_w`, `vec`.
    pub const fn short(self) -> &'static str {
        self.names().short
    }

    /// `uncached-read`, …, `write-back`, `dma-read`, `dma-write`, `vector-op`.
    pub const fn words(self) -> &'static str {
        self.names().words
    }
}

impl fmt::Display for NodeKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.names().model)
    }
}

/// The name of one node: its kind, the CPU position of what created it (the access itself
/// for CPU nodes; the cached access for `alloc`/`wb`; the request for engine nodes) and, for
/// cache nodes, the line. Unique within a stream.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct NodeId {
    pub kind: NodeKind,
    pub pos: Pos,
    pub line: Option<u32>,
}

/// The bytes one node reads and writes in one address space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub reads: Vec<Range>,
    pub writes: Vec<Range>,
}

impl Footprint {
    pub fn access(access: Access, range: Range) -> Footprint {
        match access {
            Access::Read => Footprint { reads: vec![range], writes: vec![] },
            Access::Write => Footprint { reads: vec![], writes: vec![range] },
        }
    }

    pub fn is_empty(&self) -> bool {
        self.reads.iter().chain(&self.writes).all(|r| r.is_empty())
    }

    /// The bytes on which the two conflict: touched by both, written by at least one.
    /// (The common parts gathered into one vector, normalised once: most pairs of engine
    /// nodes share no byte, and then nothing is allocated.)
    pub fn conflicts(&self, other: &Footprint) -> Vec<Range> {
        let pairs = [(&self.writes, &other.writes), (&self.writes, &other.reads), (&self.reads, &other.writes)];
        let mut common = Vec::new();
        for (mine, theirs) in pairs {
            bytes::push_common(mine, theirs, &mut common);
        }
        bytes::normalize(common)
    }
}

/// What an engine node does to each address space.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineFootprint {
    pub dram: Footprint,
    pub scratchpad: Footprint,
}

impl EngineFootprint {
    /// The footprint of a [`Event::Dma`] or [`Event::Vector`]; `None` for CPU nodes.
    pub fn of(event: &Event) -> Option<EngineFootprint> {
        match event {
            Event::Dma { dir, host, scratchpad, .. } => {
                let (dram, sp) = match dir {
                    DmaDir::ToScratchpad => (
                        Footprint { reads: host.clone(), writes: vec![] },
                        Footprint { reads: vec![], writes: scratchpad.clone() },
                    ),
                    DmaDir::ToHost => (
                        Footprint { reads: vec![], writes: host.clone() },
                        Footprint { reads: scratchpad.clone(), writes: vec![] },
                    ),
                };
                Some(EngineFootprint { dram, scratchpad: sp })
            }
            Event::Vector { reads, writes, .. } => Some(EngineFootprint {
                dram: Footprint::default(),
                scratchpad: Footprint { reads: reads.clone(), writes: writes.clone() },
            }),
            _ => None,
        }
    }

    pub fn space(&self, space: Space) -> &Footprint {
        match space {
            Space::Dram => &self.dram,
            Space::Scratchpad => &self.scratchpad,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn ranges() -> impl Strategy<Value = Vec<Range>> {
        prop::collection::vec((0..48u32, 0..12u32).prop_map(|(start, len)| Range::new(start, len)), 0..4)
    }

    /// The bytes of `ranges`, one by one.
    fn bytes_of(ranges: &[Range]) -> BTreeSet<u32> {
        ranges.iter().flat_map(|r| r.start..r.start + r.len).collect()
    }

    proptest! {
        /// `conflicts` is, byte for byte, what both touch and at least one writes, in the
        /// canonical form (sorted, merged).
        #[test]
        fn conflicts_are_the_bytes_both_touch_and_one_writes(
            (reads_a, writes_a, reads_b, writes_b) in (ranges(), ranges(), ranges(), ranges()),
        ) {
            let a = Footprint { reads: reads_a, writes: writes_a };
            let b = Footprint { reads: reads_b, writes: writes_b };
            let touched = |f: &Footprint| &bytes_of(&f.reads) | &bytes_of(&f.writes);
            let (written_a, written_b) = (bytes_of(&a.writes), bytes_of(&b.writes));
            let both: BTreeSet<u32> = &touched(&a) & &touched(&b);
            let expected: Vec<Range> = bytes::normalize(
                both.iter().filter(|x| written_a.contains(x) || written_b.contains(x)).map(|&x| Range::new(x, 1)).collect(),
            );
            prop_assert_eq!(a.conflicts(&b), expected.clone());
            prop_assert_eq!(b.conflicts(&a), expected);
        }
    }
}
