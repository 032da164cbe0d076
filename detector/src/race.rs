//! What the detector reports: races between two named nodes, with their intervals, and the
//! deduplicated report over a whole run. Words are the simulator's business (`sim/src/report`).

use std::collections::BTreeMap;

use crate::bytes;
use crate::event::{Origin, Pos, Range, Space};
use crate::node::{NodeId, NodeKind};

/// One side of a race: the node, where it came from, and its interval on the CPU timeline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RaceNode {
    pub id: NodeId,
    /// The instruction and cycle of what created the node: the access for CPU nodes, the
    /// cached access for `alloc`/`wb`, the request's instruction-port store for engine nodes.
    pub origin: Origin,
    /// The latest CPU node that happens before this node (0: none).
    pub pred: Pos,
    /// The earliest CPU node this node happens before, as known when the race was found
    /// (`None`: none yet — e.g. no `sync` after the request, or no clean of a dirty line).
    pub succ: Option<Pos>,
}

/// Two nodes that touch common bytes, at least one writing, with no happens-before path
/// between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Race {
    /// The two nodes, in [`NodeId`] order.
    pub a: RaceNode,
    pub b: RaceNode,
    pub space: Space,
    /// The bytes both touch and one writes (normalised).
    pub bytes: Vec<Range>,
}

impl Race {
    /// Builds a race, putting the nodes in canonical order and normalising the bytes.
    pub fn new(x: RaceNode, y: RaceNode, space: Space, bytes: Vec<Range>) -> Race {
        let (a, b) = if x.id <= y.id { (x, y) } else { (y, x) };
        Race { a, b, space, bytes: bytes::normalize(bytes) }
    }

    /// The line of the cache node in the race, if there is one.
    pub fn line(&self) -> Option<u32> {
        self.a.id.line.or(self.b.id.line)
    }

    pub fn key(&self) -> RaceKey {
        RaceKey {
            site_a: (self.a.origin.pc, self.a.origin.ctx),
            kind_a: self.a.id.kind,
            site_b: (self.b.origin.pc, self.b.origin.ctx),
            kind_b: self.b.id.kind,
            space: self.space,
            line: self.line(),
        }
    }
}

/// What makes two races "the same" in a report: both sites (instruction and call context:
/// a routine racing when called from two places races twice), both kinds, the space and
/// the cache line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RaceKey {
    pub site_a: (u32, u32),
    pub kind_a: NodeKind,
    pub site_b: (u32, u32),
    pub kind_b: NodeKind,
    pub space: Space,
    pub line: Option<u32>,
}

/// One distinct race: its first occurrence, every byte any occurrence touched, and how many
/// occurrences were found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReportEntry {
    pub first: Race,
    pub bytes: Vec<Range>,
    pub occurrences: u64,
}

/// Distinct races, in [`RaceKey`] order (deterministic).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    entries: BTreeMap<RaceKey, ReportEntry>,
}

impl Report {
    pub fn add(&mut self, race: Race) {
        match self.entries.entry(race.key()) {
            std::collections::btree_map::Entry::Occupied(mut e) => {
                let entry = e.get_mut();
                entry.occurrences += 1;
                // Most repeats touch bytes already recorded (a loop re-reading a buffer).
                if bytes::covers(&entry.bytes, &race.bytes) {
                    return;
                }
                for &r in &race.bytes {
                    bytes::insert(&mut entry.bytes, r);
                }
            }
            std::collections::btree_map::Entry::Vacant(e) => {
                e.insert(ReportEntry { bytes: race.bytes.clone(), first: race, occurrences: 1 });
            }
        }
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Number of distinct races.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn entries(&self) -> impl Iterator<Item = &ReportEntry> {
        self.entries.values()
    }
}
