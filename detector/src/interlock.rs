//! The accelerator's hardware interlocks (`mxp-spec.md` §1.4): the only thing that orders a
//! DMA transfer and a vector instruction relative to each other. Defined once, here: the
//! engine model stalls on exactly these cases and the detector adds exactly these edges.
//!
//! Only scratchpad addresses count; nothing interlocks on DRAM addresses. Two DMA transfers
//! are ordered by their queue (FIFO) and two vector instructions by program order, which are
//! not interlocks and not decided here.

use crate::event::{DmaDir, Event, Range};

/// What an engine operation does to the scratchpad.
#[derive(Clone, Copy, Debug)]
pub enum EngineOp<'a> {
    /// A DMA transfer and its scratchpad rows (written for `ToScratchpad`, read for `ToHost`).
    Dma { dir: DmaDir, scratchpad: &'a [Range] },
    /// A vector instruction's scratchpad rows read (A, B) and written (D).
    Vector { reads: &'a [Range], writes: &'a [Range] },
}

impl<'a> EngineOp<'a> {
    /// The scratchpad side of an engine node ([`Event::Dma`] or [`Event::Vector`]).
    pub fn of(event: &'a Event) -> Option<EngineOp<'a>> {
        match event {
            Event::Dma { dir, scratchpad, .. } => Some(EngineOp::Dma { dir: *dir, scratchpad }),
            Event::Vector { reads, writes, .. } => Some(EngineOp::Vector { reads, writes }),
            _ => None,
        }
    }
}

fn any_overlap(a: &[Range], b: &[Range]) -> bool {
    a.iter().any(|x| b.iter().any(|y| x.overlaps(*y)))
}

/// True when the hardware makes `later` wait for `earlier` (requested before it, in the
/// other queue). The four cases:
/// 1. a vector op reading the destination of an earlier `vbx_dma_to_vector`;
/// 2. a vector op writing the source of an earlier `vbx_dma_to_host`;
/// 3. a `vbx_dma_to_host` reading a range written by an earlier vector op;
/// 4. a `vbx_dma_to_vector` writing a range read by an earlier vector op.
///
/// Anything else (notably write-after-write between a DMA and a vector op) is not
/// interlocked: the two may run in either order.
pub fn interlocked(earlier: EngineOp<'_>, later: EngineOp<'_>) -> bool {
    use DmaDir::*;
    match (earlier, later) {
        (EngineOp::Dma { dir: ToScratchpad, scratchpad }, EngineOp::Vector { reads, .. }) => {
            any_overlap(scratchpad, reads)
        }
        (EngineOp::Dma { dir: ToHost, scratchpad }, EngineOp::Vector { writes, .. }) => any_overlap(scratchpad, writes),
        (EngineOp::Vector { writes, .. }, EngineOp::Dma { dir: ToHost, scratchpad }) => any_overlap(writes, scratchpad),
        (EngineOp::Vector { reads, .. }, EngineOp::Dma { dir: ToScratchpad, scratchpad }) => {
            any_overlap(reads, scratchpad)
        }
        // Same queue: ordered by the queue, not by an interlock.
        (EngineOp::Dma { .. }, EngineOp::Dma { .. }) | (EngineOp::Vector { .. }, EngineOp::Vector { .. }) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: [Range; 1] = [Range::new(0x100, 0x40)];
    const B: [Range; 1] = [Range::new(0x200, 0x40)];
    const A_PART: [Range; 1] = [Range::new(0x13c, 8)];

    fn dma(dir: DmaDir, sp: &[Range]) -> EngineOp<'_> {
        EngineOp::Dma { dir, scratchpad: sp }
    }
    fn vec<'a>(reads: &'a [Range], writes: &'a [Range]) -> EngineOp<'a> {
        EngineOp::Vector { reads, writes }
    }

    #[test]
    fn the_four_interlocks() {
        use DmaDir::*;
        assert!(interlocked(dma(ToScratchpad, &A), vec(&A_PART, &B))); // 1: RAW
        assert!(interlocked(dma(ToHost, &A), vec(&B, &A_PART))); // 2: WAR
        assert!(interlocked(vec(&B, &A), dma(ToHost, &A_PART))); // 3: RAW
        assert!(interlocked(vec(&A, &B), dma(ToScratchpad, &A_PART))); // 4: WAR
    }

    #[test]
    fn everything_else_is_unordered() {
        use DmaDir::*;
        // Write-after-write between the queues is not interlocked.
        assert!(!interlocked(dma(ToScratchpad, &A), vec(&B, &A)));
        assert!(!interlocked(vec(&B, &A), dma(ToScratchpad, &A)));
        // Read-read never conflicts.
        assert!(!interlocked(dma(ToHost, &A), vec(&A, &B)));
        assert!(!interlocked(vec(&A, &B), dma(ToHost, &A)));
        // Disjoint ranges, and same-queue pairs.
        assert!(!interlocked(dma(ToScratchpad, &A), vec(&B, &B)));
        assert!(!interlocked(dma(ToScratchpad, &A), dma(ToHost, &A)));
        assert!(!interlocked(vec(&A, &A), vec(&A, &A)));
    }
}
