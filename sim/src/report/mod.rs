//! Race reports: the detector's races turned into findings a firmware engineer can act on.
//!
//! * [`model`]: what a report says, as data (findings, sides with stacks, memory, ordering
//!   facts, fix);
//! * [`facts`]: the ordering facts, from the whole run's timeline;
//! * [`enrich`]: stacks, user-code frames, names of memory;
//! * this module: [`build`], which groups races by root cause (one finding per pair of
//!   top user frames and kinds) and decides each finding's facts and fix;
//! * [`suppress`]: suppressions, which move findings aside before rendering;
//! * [`text`], [`json`] and [`sarif`]: renderings of the model (nothing is analysed there).

pub mod enrich;
pub mod facts;
pub mod json;
pub mod model;
pub mod sarif;
pub mod suppress;
pub mod text;

use crate::exit_code::RunEnd;
use crate::machine::RunNotes;
use crate::race_check::{CacheSide, Findings, Landmark as Mark, VectorSide};
use crate::source_map::SourceMap;
use enrich::Enricher;
use facts::Timeline;
use model::*;
use mxpsim_detector::bytes;
use mxpsim_detector::event::{Pos, Range, Space};
use mxpsim_detector::node::NodeKind;
use mxpsim_detector::race::{Race, ReportEntry};
use mxpsim_detector::RaceNode;
use std::collections::{BTreeMap, BTreeSet};

/// How reports are built.
#[derive(Clone, Debug)]
pub struct Options {
    /// Frames per stack at most.
    pub stack_depth: usize,
    /// The files that are the firmware's own code (`--user-code`); `None`: the default rule
    /// ([`enrich::is_user_file`]).
    pub user_code: Option<globset::GlobSet>,
}

impl Default for Options {
    fn default() -> Self {
        Options { stack_depth: 16, user_code: None }
    }
}

/// Builds the report of a race check.
pub fn build(findings: &Findings, source: &SourceMap, notes: &RunNotes, options: &Options, outcome: RunEnd) -> Report {
    let builder = Builder {
        findings,
        timeline: Timeline::new(&findings.landmarks),
        enrich: Enricher::new(source, notes, findings.line_size, options),
    };
    // Group the detector's distinct races by root cause, in the order their first race
    // comes in the detector's (deterministic) order.
    let mut groups: Vec<(GroupKey, Vec<Member>)> = Vec::new();
    let mut index: BTreeMap<GroupKey, usize> = BTreeMap::new();
    for entry in findings.report.entries() {
        let sides = builder.sides(entry);
        let key = GroupKey::of(&entry.first, &sides);
        let i = *index.entry(key.clone()).or_insert_with(|| {
            groups.push((key, Vec::new()));
            groups.len() - 1
        });
        // A finding may fold a million races (a buffer's every line, many DMA rows): the
        // sides of the first few are kept, of the rest what the counts need.
        let members = &mut groups[i].1;
        let pcs = (sides[0].site.pc, sides[1].site.pc);
        members.push(Member { entry, pcs, sides: (members.len() < KEPT_RACES).then_some(sides) });
    }
    let findings_out = groups.into_iter().map(|(_, members)| builder.finding(members)).collect();
    Report {
        findings: findings_out,
        suppressed: Vec::new(),
        suppressions: Vec::new(),
        events: findings.events,
        stream_errors: findings.stream_errors,
        outcome,
    }
}

/// A race of a finding: its entry, its sites' pcs, and its sides if it is one of the first
/// [`KEPT_RACES`].
struct Member<'a> {
    entry: &'a ReportEntry,
    pcs: (u32, u32),
    sides: Option<[Side; 2]>,
}

/// What makes races one finding: both kinds, the space and both top user frames, by their
/// source line (instantiations of one macro or template are one line of code), else by
/// function.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct GroupKey {
    kinds: (NodeKind, NodeKind),
    space: Space,
    tops: [(Option<String>, Option<u32>, Option<String>); 2],
}

impl GroupKey {
    fn of(race: &Race, sides: &[Side; 2]) -> Self {
        let top = |s: &Side| {
            s.site.top_user_frame().map_or((None, None, None), |f| match &f.source.file {
                Some(file) => (Some(file.clone()), f.source.line, None),
                None => (None, None, f.source.function.clone()),
            })
        };
        GroupKey { kinds: (race.a.id.kind, race.b.id.kind), space: race.space, tops: [top(&sides[0]), top(&sides[1])] }
    }
}

struct Builder<'a> {
    findings: &'a Findings,
    timeline: Timeline,
    enrich: Enricher<'a>,
}

impl Builder<'_> {
    fn landmark(&self, pos: Pos) -> Option<Landmark> {
        let mark = self.findings.landmarks.get(&pos)?;
        let (what, origin) = match *mark {
            Mark::Sync { origin } => (LandmarkKind::Sync, origin),
            Mark::Request { origin, .. } => (LandmarkKind::Request, origin),
            Mark::Maintenance { op, scope, origin } => {
                (LandmarkKind::Maintenance { op, whole_cache: scope == mxpsim_detector::event::Scope::All }, origin)
            }
        };
        Some(Landmark { pos, what, site: self.enrich.site(pos, origin) })
    }

    /// Both sides of a distinct race, with final intervals and sites.
    fn sides(&self, entry: &ReportEntry) -> [Side; 2] {
        let race = &entry.first;
        let cache = self.findings.cache_sides.get(&race.key()).copied().unwrap_or_default();
        let vector = self.findings.vector_sides.get(&race.key()).and_then(vector_use);
        [self.side(&race.a, cache, vector.clone()), self.side(&race.b, cache, vector)]
    }

    fn side(&self, node: &RaceNode, cache: CacheSide, vector: Option<VectorUse>) -> Side {
        let node = self.timeline.final_interval(node);
        let own = self.enrich.site(node.id.pos, node.origin);
        let ends = node.id.kind.is_engine() || node.id.kind == NodeKind::WriteBack;
        let end = node.succ.filter(|_| ends).and_then(|p| self.landmark(p));
        let mut side = Side {
            kind: node.id.kind,
            node,
            site: own,
            first_store: None,
            last_store_known: false,
            end,
            accessed: None,
            vector: vector.filter(|_| node.id.kind == NodeKind::Vector),
        };
        if !node.id.kind.is_cache() {
            return side;
        }
        side.accessed = cache.own;
        // A write-back's last store must be of its dirty epoch: at or after its first store,
        // before the line's next maintenance.
        let in_epoch = |pos: Pos| pos >= node.pred && node.succ.is_none_or(|c| pos < c);
        if let Some(store) = cache.last_store.filter(|s| node.id.kind == NodeKind::WriteBack && in_epoch(s.pos)) {
            side.last_store_known = true;
            side.accessed = Some(store.range);
            if store.pos != node.pred {
                let first = std::mem::replace(&mut side.site, self.enrich.site(store.pos, store.origin));
                side.first_store = Some(first);
            }
        }
        side
    }

    /// The site a side starts at (its pred): the request, the access, the epoch's first store.
    fn start_site<'s>(&self, side: &'s Side) -> &'s Site {
        side.first_store.as_ref().unwrap_or(&side.site)
    }

    /// Why `x` is not ordered before `y`.
    fn ordering(&self, x: &Side, y: &Side) -> Ordering {
        let (xk, yk) = (x.kind, y.kind);
        let line = x.node.id.line.or(y.node.id.line).unwrap_or(0);
        if xk.is_engine() && yk.is_engine() {
            if x.node.pred < y.node.pred {
                return Ordering::NoInterlock {
                    first: self.landmark_or_site(x.node.pred, &x.site),
                    second: self.landmark_or_site(y.node.pred, &y.site),
                };
            }
            return Ordering::ProgramOrder { x: x.site.clone(), y: y.site.clone() };
        }
        if yk == NodeKind::Alloc {
            let since = self.timeline.last_invalidation(line, y.node.id.pos).and_then(|p| self.landmark(p));
            let (done, request) = if xk.is_engine() {
                let sync = x.node.succ.filter(|&s| s < y.node.id.pos).and_then(|p| self.landmark(p));
                (sync, self.landmark(x.node.pred))
            } else {
                (None, None)
            };
            return Ordering::FillMayPrecede { line, load: y.site.clone(), since, done, request };
        }
        let then = self.start_site(y).clone();
        if xk.is_engine() && x.node.pred < y.node.pred {
            return Ordering::NoSyncBetween {
                request: self.landmark_or_site(x.node.pred, &x.site),
                then,
                sync: x.node.succ.and_then(|p| self.landmark(p)),
            };
        }
        if xk == NodeKind::WriteBack && x.site.pos < y.node.pred {
            let next = self.timeline.next_maintenance(line, x.site.pos).and_then(|p| self.landmark(p));
            return Ordering::NoFlushBetween { line, store: x.site.clone(), then, next };
        }
        Ordering::ProgramOrder { x: self.start_site(x).clone(), y: then }
    }

    fn landmark_or_site(&self, pos: Pos, site: &Site) -> Landmark {
        self.landmark(pos).unwrap_or_else(|| Landmark { pos, what: LandmarkKind::Request, site: site.clone() })
    }

    fn finding(&self, members: Vec<Member>) -> Finding {
        let first: &ReportEntry = members[0].entry;
        let race = &first.first;
        let bytes_all = bytes::normalize(members.iter().flat_map(|m| m.entry.bytes.iter().copied()).collect());
        let lines: BTreeSet<u32> = members.iter().filter_map(|m| m.entry.first.line()).collect();
        let site_pairs: BTreeSet<(u32, u32)> = members.iter().map(|m| m.pcs).collect();
        let sides = members[0].sides.clone().expect("the first race's sides are kept");
        let why = [self.ordering(&sides[0], &sides[1]), self.ordering(&sides[1], &sides[0])];
        let cycle = race.a.origin.cycle.max(race.b.origin.cycle);
        let (objects, mut line) = {
            let sites = [&sides[0].site, &sides[1].site];
            let objects = self.enrich.objects(race.space, &bytes_all, cycle, &sites);
            (objects, race.line().map(|l| self.enrich.line_contents(l, cycle, &sites)))
        };
        if let Some(line) = &mut line {
            for (i, side) in sides.iter().enumerate() {
                let Some(accessed) = side.accessed else { continue };
                let (start, end) = (accessed.start as u64, accessed.end());
                for (j, o) in line.objects.iter().enumerate() {
                    if o.span().is_some_and(|(from, to)| from < end && start < to) {
                        line.touched.push((i, j));
                    }
                }
            }
        }
        let fix = Self::fix(&sides, &why, &bytes_all);
        let occurrences = members.len() as u64;
        let races = members
            .into_iter()
            .filter_map(|m| Some(FoldedRace { sides: m.sides?, bytes: m.entry.bytes.clone() }))
            .collect();
        Finding {
            space: race.space,
            sides,
            bytes: bytes_all,
            cache_lines: lines.len(),
            sites: site_pairs.len(),
            occurrences,
            objects,
            line,
            why,
            fix,
            races,
        }
    }

    /// The fix: the direction that can be ordered (when both can, the one the program
    /// order suggests: the earlier side first); `align` instead when the cache side's own
    /// access touched none of the racing bytes (they only share its line).
    fn fix(sides: &[Side; 2], why: &[Ordering; 2], racing: &[Range]) -> Fix {
        let possible = |o: &Ordering| !matches!(o, Ordering::ProgramOrder { .. });
        let direction = match (possible(&why[0]), possible(&why[1])) {
            (true, false) => 0,
            (false, true) => 1,
            _ => usize::from(sides[1].node.pred < sides[0].node.pred),
        };
        let false_sharing =
            sides.iter().filter_map(|s| s.accessed).any(|accessed| !racing.iter().any(|r| r.overlaps(accessed)));
        let kind = match &why[direction] {
            _ if false_sharing => FixKind::Align,
            Ordering::NoSyncBetween { .. } | Ordering::NoInterlock { .. } => FixKind::Sync,
            Ordering::NoFlushBetween { .. } => FixKind::Flush,
            Ordering::FillMayPrecede { request: Some(_), done: None, .. } => FixKind::Sync,
            Ordering::FillMayPrecede { .. } => FixKind::Invalidate,
            Ordering::ProgramOrder { .. } => FixKind::Sync,
        };
        Fix { kind, direction }
    }
}

/// The instruction and operands of a vector side.
fn vector_use(side: &VectorSide) -> Option<VectorUse> {
    use mxpsim_models::mxp::command::{decode, Command};
    let Ok(Command::Vector(insn)) = decode(&[side.insn, 0, 0, 0]) else { return None };
    let operands = [(side.a, VectorOperand::A), (side.b, VectorOperand::B), (side.d, VectorOperand::D)];
    Some(VectorUse {
        call: insn.sdk_call(),
        mode: insn.mode_name(),
        opcode: insn.op.to_string(),
        operands: operands.into_iter().filter(|&(touched, _)| touched).map(|(_, op)| op).collect(),
    })
}
