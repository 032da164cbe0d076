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

/// The races one event revealed, grouped by key (a read of a line that uncached writes
/// flagged races with every writer there: many races, few keys). Grouped once per event, for
/// the report and for whoever notes what only a key's first race tells.
#[derive(Clone, Debug, Default)]
pub struct KeyGroups {
    /// Each race's key and index, sorted: a key's races together, in event order.
    order: Vec<(RaceKey, usize)>,
    /// Per race: whether an earlier race of the event has its key.
    repeats: Vec<bool>,
}

impl KeyGroups {
    /// Groups `races`. (The buffers are kept: some runs group millions of events.)
    pub fn group(&mut self, races: &[Race]) {
        self.order.clear();
        self.order.extend(races.iter().map(Race::key).zip(0..));
        self.order.sort_unstable();
        self.repeats.clear();
        self.repeats.resize(races.len(), false);
        for pair in self.order.windows(2) {
            if pair[0].0 == pair[1].0 {
                self.repeats[pair[1].1] = true;
            }
        }
    }

    /// Per race of the last grouped event: whether an earlier race of it has its key.
    pub fn repeats(&self) -> &[bool] {
        &self.repeats
    }
}

impl Report {
    /// Adds the races one event revealed (grouped by `groups`), as adding each in order
    /// would: each key is looked up once.
    pub fn add_all(&mut self, races: &[Race], groups: &KeyGroups) {
        for group in groups.order.chunk_by(|a, b| a.0 == b.0) {
            self.add_occurrences(group[0].0, group.iter().map(|&(_, at)| &races[at]));
        }
    }

    /// Adds occurrences of the race `key`, the first one first.
    fn add_occurrences<'a>(&mut self, key: RaceKey, races: impl IntoIterator<Item = &'a Race>) {
        let mut races = races.into_iter();
        let entry = match self.entries.entry(key) {
            std::collections::btree_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::btree_map::Entry::Vacant(e) => {
                let Some(first) = races.next() else { return };
                e.insert(ReportEntry { bytes: first.bytes.clone(), first: first.clone(), occurrences: 1 })
            }
        };
        for race in races {
            entry.occurrences += 1;
            // Most repeats touch bytes already recorded (a loop re-reading a buffer).
            if bytes::covers(&entry.bytes, &race.bytes) {
                continue;
            }
            for &r in &race.bytes {
                bytes::insert(&mut entry.bytes, r);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn node(kind: NodeKind, pos: Pos, pc: u32, line: Option<u32>) -> RaceNode {
        RaceNode {
            id: NodeId { kind, pos, line },
            origin: Origin { pc, cycle: pos, ctx: 0 },
            pred: pos,
            succ: Some(pos),
        }
    }

    #[test]
    fn the_races_of_one_event_add_up_as_one_at_a_time() {
        // A read's alloc against writers of two sites, interleaved: two keys, each first seen
        // in the middle of the batch; the first occurrence of each key is the one kept.
        let alloc = node(NodeKind::Alloc, 9, 0x100, Some(0x40));
        let writer = |pos: Pos, pc: u32, byte: u32| {
            Race::new(
                alloc,
                node(NodeKind::CpuUncachedWrite, pos, pc, None),
                Space::Dram,
                vec![Range::new(0x40 + byte, 1)],
            )
        };
        let earlier = [writer(1, 0x200, 0)];
        let event = [writer(2, 0x300, 1), writer(3, 0x200, 2), writer(4, 0x300, 3), writer(5, 0x200, 2)];
        let add = |report: &mut Report, races: &[Race]| {
            let mut groups = KeyGroups::default();
            groups.group(races);
            report.add_all(races, &groups);
        };
        let mut one_at_a_time = Report::default();
        let mut batched = Report::default();
        for report in [&mut one_at_a_time, &mut batched] {
            add(report, &earlier);
        }
        for race in &event {
            add(&mut one_at_a_time, std::slice::from_ref(race));
        }
        add(&mut batched, &event);
        assert_eq!(batched, one_at_a_time);
        let entries: Vec<_> = batched.entries().map(|e| (e.first.a.id.pos, e.occurrences, e.bytes.clone())).collect();
        assert_eq!(
            entries,
            [
                (1, 3, vec![Range::new(0x40, 1), Range::new(0x42, 1)]),
                (2, 2, vec![Range::new(0x41, 1), Range::new(0x43, 1)])
            ]
        );
    }
}
