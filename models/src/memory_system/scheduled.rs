//! The memory system under a deliberate schedule ([`crate::schedule`]): holding or hurrying
//! engine work, and the cache actions and probes tied to an engine node. Only `mxpsim provoke`
//! installs one; without it none of this runs.

use super::MemorySystem;
use crate::bus::Access;
use crate::events::EventSink;
use crate::schedule::{Happened, Schedule};
use mxpsim_detector::event::{Pos, Space};

impl<S: EventSink> MemorySystem<S> {
    /// Runs under `schedule` from now on (install it before the run: its positions count
    /// from the run's start).
    pub fn set_schedule(&mut self, schedule: Schedule) {
        self.schedule = Some(Box::new(schedule));
        self.refresh_due();
    }

    /// The schedule with what it did and probed, once the run is over.
    pub fn take_schedule(&mut self) -> Option<Schedule> {
        self.schedule.take().map(|s| *s)
    }

    /// [`MemorySystem::catch_up`] under a schedule (called before every CPU access): a
    /// hurried node takes effect before the CPU's next node; held work waits until the CPU
    /// has passed its node; the rest as the engine's timing says.
    pub(super) fn scheduled_catch_up(&mut self, at: Access) {
        let Some(mut schedule) = self.schedule.take() else { return };
        let (now, position) = (at.now, self.sink.position());
        schedule.observe(position, at.pc);
        if let Some((line, before)) = schedule.keep_due(position) {
            let cached = self.cache.as_mut().is_some_and(|cache| cache.keep_line(&self.dram, line));
            schedule.keep_started(line, before, now, cached);
        }
        if let Some(line) = schedule.let_go_due(position) {
            self.end_keep(&mut schedule, line, now);
        }
        if let Some((line, before)) = schedule.write_back_due(position) {
            let happened = |bytes| Happened::WroteBackBeforeAccess { line, before, bytes, cycle: now };
            self.write_back_now(&mut schedule, line, now, happened);
        }
        if let Some((line, before)) = schedule.refill_write_back_due(position) {
            let happened = |bytes| Happened::WroteBackBeforeAccess { line, before, bytes, cycle: now };
            self.write_back_to_refill(&mut schedule, line, happened);
        }
        if let Some((line, after)) = schedule.line_refresh_due(position) {
            let (present, bytes) = self.refresh_now(line);
            schedule.log(Happened::RefreshedAfterAccess { line, after, present, bytes, cycle: now });
        }
        if let Some((request, before)) = schedule.hurry_due(position) {
            let scheduled = self.mxp.end_of(request);
            while self.mxp.end_of(request).is_some() && self.stop.is_none() {
                let (_, next) = self.mxp.next_work().expect("the hurried node is pending");
                self.apply_scheduled(&mut schedule, next, now, now);
            }
            schedule.hurry_done(request, before, now, scheduled);
        }
        if schedule.hold().is_some_and(|(_, after)| position >= after) {
            schedule.release(now, false);
        }
        while let Some((end, request)) = self.mxp.next_work() {
            if end > now || self.stop.is_some() {
                break;
            }
            if let Some((held, _)) = schedule.hold() {
                if schedule.holding() || request == held {
                    if !schedule.holding() {
                        schedule.start_holding(request, end);
                    }
                    break;
                }
            }
            if let Some(first) = schedule.first_before(request) {
                if self.mxp.end_of(first).is_some() {
                    for earlier in self.mxp.must_precede(first) {
                        self.apply_scheduled(&mut schedule, earlier, now, now);
                    }
                    schedule.ordered(first, request, now, false);
                } else if position < first {
                    // Not requested yet: this node and everything due after it wait.
                    schedule.wait_for_request(first, request, end);
                    break;
                } else {
                    schedule.ordered(first, request, now, true);
                }
            }
            let at = schedule.effect_cycle(end);
            self.apply_scheduled(&mut schedule, request, at, now);
        }
        self.schedule = Some(schedule);
    }

    /// The CPU is about to wait for a sync: a hold of work requested before it ends now (the
    /// sync waits for that work, so it takes effect before the sync returns). A hold of a
    /// node not requested yet stays: the sync does not wait for it.
    pub(super) fn release_hold_for_sync(&mut self, now: u64) {
        let position = self.sink.position();
        if let Some(schedule) = self.schedule.as_mut() {
            schedule.release_for_sync(now, position);
        }
    }

    /// Applies the engine's operation requested at `request` at cycle `at`, with the
    /// cache actions and probes the schedule ties to it (logged at `at` too: they happen
    /// with it). `now` is the CPU's clock (not earlier than `at`).
    fn apply_scheduled(&mut self, schedule: &mut Schedule, request: Pos, at: u64, now: u64) {
        mxpsim_detector::invariant!(at <= now);
        for line in schedule.write_backs_before(request) {
            self.write_back_now(schedule, line, at, |bytes| Happened::WroteBack { line, request, bytes, cycle: at });
        }
        // A line to fill again just after the node, under whole-line write-back: its
        // write-back first, just before the node (its interval is open: the line is dirty).
        for line in schedule.refreshes_after(request) {
            self.write_back_to_refill(schedule, line, |bytes| Happened::WroteBack { line, request, bytes, cycle: at });
        }
        self.probe(schedule, request, true);
        let (mxp, dram, sink) = (&mut self.mxp, &mut self.dram, &mut self.sink);
        let result = mxp.apply_request(request, at, dram, &mut |event| {
            if S::ENABLED {
                sink.emit(event);
            }
        });
        if let Err(halt) = result {
            self.halt(halt);
            return;
        }
        self.probe(schedule, request, false);
        for line in schedule.refreshes_after(request) {
            let (present, bytes) = self.refresh_now(line);
            schedule.log(Happened::Refreshed { line, request, present, bytes, cycle: at });
        }
        for line in schedule.releases_after(request) {
            self.end_keep(schedule, line, at);
        }
    }

    /// Writes `line` back now if it is dirty, logs `happened` of how many bytes went, and ends
    /// a keep of the line.
    fn write_back_now(&mut self, schedule: &mut Schedule, line: u32, now: u64, happened: impl FnOnce(u32) -> Happened) {
        let bytes = self.cache.as_mut().map_or(0, |cache| cache.clean_line(&mut self.dram, line));
        schedule.log(happened(bytes));
        if schedule.keeps(line) {
            self.end_keep(schedule, line, now);
        }
    }

    /// Before a refresh of `line`: under whole-line write-back a dirty line is written back
    /// first (logged as `happened` of the bytes written, if any).
    fn write_back_to_refill(&mut self, schedule: &mut Schedule, line: u32, happened: impl FnOnce(u32) -> Happened) {
        let bytes = self.cache.as_mut().map_or(0, |cache| cache.write_back_to_refill(&mut self.dram, line));
        if bytes > 0 {
            schedule.log(happened(bytes));
        }
    }

    /// Reads `line`'s clean bytes again from memory: whether it was cached, and how many.
    fn refresh_now(&mut self, line: u32) -> (bool, u32) {
        let refreshed = self.cache.as_mut().and_then(|cache| cache.refresh_line(&self.dram, line));
        (refreshed.is_some(), refreshed.unwrap_or(0))
    }

    fn end_keep(&mut self, schedule: &mut Schedule, line: u32, now: u64) {
        // The node it was to end at came before the keep began: it never begins (and the
        // report says the schedule was not realised).
        if !schedule.keep_begun() {
            schedule.keep_ended();
            return;
        }
        schedule.keep_ended();
        let kept = self.cache.as_mut().map(|cache| cache.end_keep(&mut self.dram)).unwrap_or_default();
        let (kept, bytes, ended_by_cpu) = (kept.times, kept.bytes, kept.ended_by_cpu);
        schedule.log(Happened::KeptLine { line, kept, bytes, cycle: now, ended_by_cpu });
    }

    /// Records the bytes of the probes of the node requested at `request`.
    fn probe(&self, schedule: &mut Schedule, request: Pos, before: bool) {
        for probe in schedule.probes_of(request) {
            let mut bytes = Vec::new();
            for range in &probe.ranges {
                let mut part = vec![0; range.len as usize];
                match probe.space {
                    Space::Dram => {
                        // Outside DRAM (never, for an engine node's racing bytes) reads as zeros.
                        let _ = self.dram.read_bytes(range.start, &mut part);
                    }
                    Space::Scratchpad => {
                        let sp = self.mxp.scratchpad();
                        let start = (range.start as usize).min(sp.len());
                        let end = (start + part.len()).min(sp.len());
                        part[..end - start].copy_from_slice(&sp[start..end]);
                    }
                }
                bytes.extend(part);
            }
            match before {
                true => probe.before = bytes,
                false => probe.after = bytes,
            }
        }
    }
}
