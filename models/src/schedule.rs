//! A deliberate schedule (`mxpsim provoke`): changes to the default timing that the race
//! model of `race-semantics.md` allows, to make a reported race happen the other way round.
//!
//! Each directive names nodes of an earlier run of the same program by their CPU positions
//! (an engine node by its request's position). A re-run is the same run up to the first change
//! a directive makes, so the positions name the same nodes. Every directive only moves a node
//! within the interval the model gives it:
//!
//! * an engine node anywhere between its request and its `sync`: [`Directive::HoldEngine`]
//!   applies it (and all engine work due after it) only once the CPU has passed a node;
//!   [`Directive::HurryEngine`] applies it (and all engine work due before it) before a CPU
//!   node, as early as its request allows. Both keep the completion order of the engine's
//!   work, so queue order and the interlocks hold;
//! * a write-back anywhere between the store and the line's next clean/flush/inval:
//!   [`Directive::WriteBackBefore`] writes the line back just before an engine node;
//!   [`Directive::KeepLine`] keeps a line as it is (an eviction puts its bytes aside and the
//!   next fill takes them back), so that it is written back only when [`Directive::WriteBackBefore`]
//!   or [`Directive::ReleaseAfter`] says;
//! * a line fill anywhere between the line's last flush/inval and the access: [`Directive::KeepLine`]
//!   fills the line at a chosen CPU node and keeps those bytes (under whole-line write-back a
//!   write-back then carries the clean bytes as that early fill read them);
//!   [`Directive::RefreshAfter`] drops the line just after an engine node, so the next access
//!   fills it again;
//! * against a CPU access that bypasses the cache (`--race-uncached`), the same with the access
//!   in the engine node's place: [`Directive::WriteBackBeforeAccess`] writes the line back just
//!   before it; [`Directive::RefreshAfterAccess`] reads the line's clean bytes again just
//!   after it (under whole-line write-back, writing a dirty line back just before it first).
//!
//! What each directive did, with the cycle, is logged ([`Happened`]): a report states what was
//! done, not what was planned. [`Probe`]s record the bytes an engine node read or wrote.

use mxpsim_detector::event::{Pos, Range, Space};
use std::collections::BTreeMap;

/// One change to the default timing.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Directive {
    /// The engine node requested at `request`, and all engine work due after it, take effect
    /// only after the CPU node at `after` (or when the CPU waits for the engine at a sync).
    HoldEngine { request: Pos, after: Pos },
    /// Just before the CPU node at `before`, the engine node requested at `request` takes
    /// effect, with all engine work due before it.
    HurryEngine { request: Pos, before: Pos },
    /// Just before the engine node requested at `request` takes effect, `line` is written
    /// back if it is dirty.
    WriteBackBefore { line: u32, request: Pos },
    /// The engine node requested at `first`, with what must precede it in its queue and by
    /// the interlocks, takes effect just before the one requested at `second` (of the other
    /// queue) would; if `first` is not requested by then, `second` and all engine work due
    /// after it wait until it is.
    EngineFirst { first: Pos, second: Pos },
    /// Just after the engine node requested at `request` takes effect, `line`'s clean bytes
    /// are read again from memory, as a fill after an eviction would read them.
    RefreshAfter { line: u32, request: Pos },
    /// Just before the CPU node at `from`, `line`'s bytes are taken as they are (as a fill then
    /// would read them, if it is not cached) and kept from then on: an eviction puts them
    /// aside and the next fill takes them back.
    /// [`Directive::WriteBackBefore`] or [`Directive::ReleaseAfter`] ends the keep (a flush or
    /// invalidate of the line by the CPU ends it too).
    KeepLine { line: u32, from: Pos },
    /// Just after the engine node requested at `request` takes effect, the kept `line` is let
    /// go: dirty bytes aside go to memory.
    ReleaseAfter { line: u32, request: Pos },
    /// Just after the CPU node at `after`, the kept `line` is let go.
    LetGoAfter { line: u32, after: Pos },
    /// Just before the CPU node at `before` (an uncached access), `line` is written back if
    /// it is dirty (and a keep of it ends).
    WriteBackBeforeAccess { line: u32, before: Pos },
    /// Just after the CPU node at `after` (the last node of an uncached access), `line`'s clean
    /// bytes are read again from memory, as a fill after an eviction would read them (under
    /// whole-line write-back, a dirty line is first written back just before the access's first
    /// node, `before`, so that it can be: never between the two halves of an AMO).
    RefreshAfterAccess { line: u32, before: Pos, after: Pos },
}

/// What a directive did.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Happened {
    /// The engine work from the node requested at `request` on started waiting at `cycle`.
    Held { request: Pos, cycle: u64 },
    /// The held work went on at `cycle`, after the CPU node at `after`; `forced`: the CPU
    /// waited for the engine (a sync) before it reached that node, which ends the hold.
    Released { request: Pos, after: Pos, cycle: u64, forced: bool },
    /// The engine node requested at `request` took effect at `cycle`, before the CPU node at
    /// `before`, instead of at `scheduled` (`None`: it already had).
    Hurried { request: Pos, before: Pos, cycle: u64, scheduled: Option<u64> },
    /// `line`'s dirty bytes (`bytes`; 0: it was clean or not cached) went to memory at
    /// `cycle`, just before the engine node requested at `request`.
    WroteBack { line: u32, request: Pos, bytes: u32, cycle: u64 },
    /// `line`'s clean bytes (`bytes` of them) were read again at `cycle`, just after the
    /// engine node requested at `request` (`present`: it was cached; if not, the next access
    /// fills it anyway).
    Refreshed { line: u32, request: Pos, present: bool, bytes: u32, cycle: u64 },
    /// The engine node requested at `first` took effect at `cycle`, before the one requested
    /// at `second` (`already`: it had before `second` was due, nothing to do; `waited`:
    /// `second` waited from `cycle` on for `first`'s request).
    Ordered { first: Pos, second: Pos, cycle: u64, already: bool },
    /// `second` (and the engine work due after it) waited from `cycle` on for the request of
    /// `first`.
    Waited { first: Pos, second: Pos, cycle: u64 },
    /// `line`'s dirty bytes (`bytes`) went to memory at `cycle`, just before the CPU node at
    /// `before` ([`Directive::WriteBackBeforeAccess`]; or, if dirty, for
    /// [`Directive::RefreshAfterAccess`] under whole-line write-back).
    WroteBackBeforeAccess { line: u32, before: Pos, bytes: u32, cycle: u64 },
    /// `line`'s clean bytes (`bytes`; `present`: it was cached) were read again at `cycle`,
    /// just after the CPU node at `after`.
    RefreshedAfterAccess { line: u32, after: Pos, present: bool, bytes: u32, cycle: u64 },
    /// `line`'s bytes were taken at `cycle`, just before the CPU node at `before` (`cached`:
    /// from the cache; else from memory, as a fill then would read them), and kept from then on.
    Filled { line: u32, before: Pos, cycle: u64, cached: bool },
    /// The keep of `line` ended at `cycle` (`kept`: evictions that put it aside; `bytes`:
    /// dirty bytes aside written back then). `ended_by_cpu`: a flush or invalidate of the
    /// line by the CPU had ended it before.
    KeptLine { line: u32, kept: u32, bytes: u32, cycle: u64, ended_by_cpu: bool },
}

/// The bytes an engine node's operands hold just before and just after it takes effect.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Probe {
    pub request: Pos,
    pub space: Space,
    pub ranges: Vec<Range>,
    /// The bytes of `ranges`, in order, before the node took effect (empty: it never did).
    pub before: Vec<u8>,
    pub after: Vec<u8>,
}

impl Probe {
    pub fn new(request: Pos, space: Space, ranges: Vec<Range>) -> Probe {
        Probe { request, space, ranges, before: Vec::new(), after: Vec::new() }
    }
}

impl Directive {
    /// The CPU node the directive is tied to, if any (engine nodes are named by their
    /// request's position, which is a CPU node too, but only through the engine).
    pub fn cpu_anchor(&self) -> Option<Pos> {
        match *self {
            Directive::HoldEngine { after, .. } | Directive::LetGoAfter { after, .. } => Some(after),
            Directive::RefreshAfterAccess { after, .. } => Some(after),
            Directive::HurryEngine { before, .. } | Directive::WriteBackBeforeAccess { before, .. } => Some(before),
            Directive::KeepLine { from, .. } => Some(from),
            Directive::WriteBackBefore { .. }
            | Directive::EngineFirst { .. }
            | Directive::RefreshAfter { .. }
            | Directive::ReleaseAfter { .. } => None,
        }
    }
}

/// The directives of one re-run, their probes, and what happened.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Schedule {
    pub directives: Vec<Directive>,
    pub probes: Vec<Probe>,
    pub log: Vec<Happened>,
    /// CPU positions to watch, with the instruction (its pc) of the first access the CPU made
    /// once it had that many nodes but one (`None`: the run never got there). A re-run is the
    /// first run until its first change; if afterwards a watched position is reached at
    /// another instruction than in a run without changes, the program took another path and
    /// the positions from there on name other nodes.
    pub anchors: BTreeMap<Pos, Option<u32>>,
    /// The anchors below this position have been observed.
    watched_to: Pos,
    /// The held engine work has reached the front and waits.
    holding: bool,
    /// The cycle the hold ended at (work held until then takes effect then).
    released_at: Option<u64>,
    hurried: bool,
    /// The kept line has been filled and is kept (or was).
    keeping: bool,
    /// The kept line was let go after its CPU node ([`Directive::LetGoAfter`]).
    let_go: bool,
    /// The engine order has been made ([`Directive::EngineFirst`]).
    ordered: bool,
    /// (first, second) while `second` waits for `first`'s request.
    waiting: Option<(Pos, Pos)>,
    /// The write-back before a CPU node has been made ([`Directive::WriteBackBeforeAccess`]).
    written_back: bool,
    /// The refresh after a CPU node has been made ([`Directive::RefreshAfterAccess`]), and
    /// the write-back before that node it needs under whole-line write-back.
    refreshed: bool,
    refill_written_back: bool,
}

impl Schedule {
    /// Watches the directives' own CPU positions.
    pub fn new(directives: Vec<Directive>, probes: Vec<Probe>) -> Schedule {
        let anchors = directives.iter().filter_map(Directive::cpu_anchor).map(|p| (p, None)).collect();
        Schedule { directives, probes, anchors, ..Schedule::default() }
    }

    /// Also watches `positions`.
    pub fn watching(mut self, positions: impl IntoIterator<Item = Pos>) -> Schedule {
        self.anchors.extend(positions.into_iter().map(|p| (p, None)));
        self
    }

    /// An access by the instruction at `pc`, with `position` CPU nodes so far.
    pub(crate) fn observe(&mut self, position: Pos, pc: u32) {
        // Positions only grow: each anchor is visited once.
        if position + 1 < self.watched_to {
            return;
        }
        for (_, seen) in self.anchors.range_mut(self.watched_to..=position + 1) {
            *seen = Some(pc);
        }
        self.watched_to = position + 2;
    }

    /// The hold still in force: the held request and the CPU node it waits for.
    pub(crate) fn hold(&self) -> Option<(Pos, Pos)> {
        if self.released_at.is_some() {
            return None;
        }
        self.directives.iter().find_map(|d| match *d {
            Directive::HoldEngine { request, after } => Some((request, after)),
            _ => None,
        })
    }

    /// True once the held work waits at the front of the engine's work.
    pub(crate) fn holding(&self) -> bool {
        self.holding && self.hold().is_some()
    }

    pub(crate) fn start_holding(&mut self, request: Pos, cycle: u64) {
        self.holding = true;
        self.log.push(Happened::Held { request, cycle });
    }

    /// A sync, with `position` CPU nodes so far: it waits for everything requested before it,
    /// so a hold of such work ends (not realised), and so does a wait for a request that can
    /// now only come after the sync.
    pub(crate) fn release_for_sync(&mut self, cycle: u64, position: Pos) {
        if let Some((first, second)) = self.waiting.take() {
            self.ordered = true;
            self.log.push(Happened::Released { request: second, after: first, cycle, forced: true });
        }
        if self.hold().is_some_and(|(request, _)| request <= position) {
            self.release(cycle, true);
        }
    }

    pub(crate) fn release(&mut self, cycle: u64, forced: bool) {
        if let Some((request, after)) = self.hold() {
            self.released_at = Some(cycle);
            self.holding = false;
            self.log.push(Happened::Released { request, after, cycle, forced });
        }
    }

    /// The cycle work completed at `end` takes effect at: later than that if it was held.
    pub(crate) fn effect_cycle(&self, end: u64) -> u64 {
        self.released_at.map_or(end, |released| end.max(released))
    }

    /// The engine node that must take effect before the one requested at `second`, while
    /// that order is still to be made.
    pub(crate) fn first_before(&self, second: Pos) -> Option<Pos> {
        if self.ordered {
            return None;
        }
        self.directives.iter().find_map(|d| match *d {
            Directive::EngineFirst { first, second: s } if s == second => Some(first),
            _ => None,
        })
    }

    pub(crate) fn ordered(&mut self, first: Pos, second: Pos, cycle: u64, already: bool) {
        self.ordered = true;
        self.waiting = None;
        self.log.push(Happened::Ordered { first, second, cycle, already });
    }

    /// `second` waits for `first`'s request (logged once).
    pub(crate) fn wait_for_request(&mut self, first: Pos, second: Pos, cycle: u64) {
        if self.waiting.is_none() {
            self.waiting = Some((first, second));
            self.log.push(Happened::Waited { first, second, cycle });
        }
    }

    /// The hurry due before the next CPU node, given the CPU nodes so far.
    pub(crate) fn hurry_due(&self, position: Pos) -> Option<(Pos, Pos)> {
        self.due(self.hurried, position, |d| match *d {
            Directive::HurryEngine { request, before } => Some((request, before)),
            _ => None,
        })
    }

    pub(crate) fn hurry_done(&mut self, request: Pos, before: Pos, cycle: u64, scheduled: Option<u64>) {
        self.hurried = true;
        self.log.push(Happened::Hurried { request, before, cycle, scheduled });
    }

    /// The lines to write back just before the engine node requested at `request`.
    pub(crate) fn write_backs_before(&self, request: Pos) -> Vec<u32> {
        self.lines(request, |d| match *d {
            Directive::WriteBackBefore { line, request } => Some((line, request)),
            _ => None,
        })
    }

    /// The lines to refresh just after the engine node requested at `request`.
    pub(crate) fn refreshes_after(&self, request: Pos) -> Vec<u32> {
        self.lines(request, |d| match *d {
            Directive::RefreshAfter { line, request } => Some((line, request)),
            _ => None,
        })
    }

    /// The lines to let go just after the engine node requested at `request`.
    pub(crate) fn releases_after(&self, request: Pos) -> Vec<u32> {
        self.lines(request, |d| match *d {
            Directive::ReleaseAfter { line, request } => Some((line, request)),
            _ => None,
        })
    }

    /// The kept line to let go now that the CPU has passed its node, given the CPU nodes so
    /// far.
    pub(crate) fn let_go_due(&self, position: Pos) -> Option<u32> {
        if !self.keeping || self.let_go {
            return None;
        }
        self.directives.iter().find_map(|d| match *d {
            Directive::LetGoAfter { line, after } if position >= after => Some(line),
            _ => None,
        })
    }

    /// The line to write back before the next CPU node, given the CPU nodes so far (once).
    pub(crate) fn write_back_due(&mut self, position: Pos) -> Option<(u32, Pos)> {
        self.due_once(
            |s| &mut s.written_back,
            position,
            |d| match *d {
                Directive::WriteBackBeforeAccess { line, before } => Some(((line, before), before)),
                _ => None,
            },
        )
    }

    /// The line to refresh after the next CPU node, given the CPU nodes so far (once): under
    /// whole-line write-back it is written back before that node.
    pub(crate) fn refill_write_back_due(&mut self, position: Pos) -> Option<(u32, Pos)> {
        self.due_once(
            |s| &mut s.refill_written_back,
            position,
            |d| match *d {
                Directive::RefreshAfterAccess { line, before, .. } => Some(((line, before), before)),
                _ => None,
            },
        )
    }

    /// The line to refresh now that the CPU has passed its node, given the CPU nodes so far
    /// (once).
    pub(crate) fn line_refresh_due(&mut self, position: Pos) -> Option<(u32, Pos)> {
        self.due_once(
            |s| &mut s.refreshed,
            position,
            |d| match *d {
                // Due before the node after `after`.
                Directive::RefreshAfterAccess { line, after, .. } => Some(((line, after), after + 1)),
                _ => None,
            },
        )
    }

    /// True once the kept line has been taken ([`Directive::KeepLine`]).
    pub(crate) fn keep_begun(&self) -> bool {
        self.keeping
    }

    /// The keep is over (or will never begin): it is not begun again, nor let go twice.
    pub(crate) fn keep_ended(&mut self) {
        self.keeping = true;
        self.let_go = true;
    }

    /// The line to fill and keep before the next CPU node, given the CPU nodes so far.
    pub(crate) fn keep_due(&self, position: Pos) -> Option<(u32, Pos)> {
        self.due(self.keeping, position, |d| match *d {
            Directive::KeepLine { line, from } => Some((line, from)),
            _ => None,
        })
    }

    /// The directive `pick` finds whose CPU node (the pair's second) is the next one or
    /// passed, unless it was `done`.
    fn due<T>(&self, done: bool, position: Pos, pick: impl Fn(&Directive) -> Option<(T, Pos)>) -> Option<(T, Pos)> {
        match done {
            true => None,
            false => self.directives.iter().filter_map(pick).find(|(_, at)| position + 1 >= *at),
        }
    }

    /// [`Schedule::due`] for a directive that acts once: its `done` flag is set when it is due.
    /// `pick` gives what the caller needs and the CPU node the directive acts before.
    fn due_once<T>(
        &mut self,
        done: fn(&mut Schedule) -> &mut bool,
        position: Pos,
        pick: impl Fn(&Directive) -> Option<(T, Pos)>,
    ) -> Option<T> {
        let finished = *done(self);
        let due = self.due(finished, position, pick).map(|(what, _)| what);
        *done(self) |= due.is_some();
        due
    }

    pub(crate) fn keep_started(&mut self, line: u32, before: Pos, cycle: u64, cached: bool) {
        self.keeping = true;
        self.log.push(Happened::Filled { line, before, cycle, cached });
    }

    /// True if a directive keeps `line`.
    pub(crate) fn keeps(&self, line: u32) -> bool {
        self.directives.iter().any(|d| matches!(*d, Directive::KeepLine { line: l, .. } if l == line))
    }

    fn lines(&self, request: Pos, pick: impl Fn(&Directive) -> Option<(u32, Pos)>) -> Vec<u32> {
        self.directives.iter().filter_map(&pick).filter(|&(_, r)| r == request).map(|(line, _)| line).collect()
    }

    pub(crate) fn log(&mut self, happened: Happened) {
        self.log.push(happened);
    }

    /// The probes of the engine node requested at `request`.
    pub(crate) fn probes_of(&mut self, request: Pos) -> impl Iterator<Item = &mut Probe> {
        self.probes.iter_mut().filter(move |p| p.request == request)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_anchor_records_the_first_access_once_its_node_is_next() {
        let hold = Directive::HoldEngine { request: 1, after: 5 };
        let mut s = Schedule::new(vec![hold], Vec::new()).watching([3, 9]);
        s.observe(0, 0x100);
        s.observe(2, 0x104); // node 3 is next
        s.observe(2, 0x108); // the same position again: recorded already
        s.observe(6, 0x10c); // past node 5 without an access at node 4: the first access after
        assert_eq!(s.anchors.into_iter().collect::<Vec<_>>(), [(3, Some(0x104)), (5, Some(0x10c)), (9, None)]);
    }
}
