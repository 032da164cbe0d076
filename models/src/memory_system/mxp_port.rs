//! The glue between the bus and the accelerator: its instruction port (a store appends a
//! command word, a load takes a reply, after waiting for it), the requests and syncs the
//! port reports as events, and letting the engine catch up with the CPU's clock before each
//! CPU access (so the access sees memory as the engine's timing leaves it).

use super::MemorySystem;
use crate::bus::{Access, Width};
use crate::events::EventSink;
use crate::mxp::command::{Command, DmaDir};
use crate::mxp::engine::{Halt, Mxp, MxpError};
use crate::stop::Stop;
use crate::timeline::{Queue, Record};
use mxpsim_detector::event::Event;

impl<S: EventSink> MemorySystem<S> {
    /// Lets the accelerator apply everything it has completed by `now`, before a CPU access
    /// at `now` (so the access sees memory as the engine's timing leaves it).
    #[inline(always)]
    pub(super) fn catch_up(&mut self, at: Access) {
        if at.now >= self.mxp_due {
            self.catch_up_engine(at);
        }
    }

    #[cold]
    fn catch_up_engine(&mut self, at: Access) {
        let now = at.now;
        if self.schedule.is_some() {
            self.scheduled_catch_up(at);
            self.refresh_due();
            return;
        }
        let (mxp, dram, sink) = (&mut self.mxp, &mut self.dram, &mut self.sink);
        let result = mxp.catch_up(now, dram, &mut |event| {
            if S::ENABLED {
                sink.emit(event);
            }
        });
        if let Err(halt) = result {
            self.halt(halt);
        }
        self.refresh_due();
    }

    /// When the CPU must next let the engine catch up: at its next effect, or at every
    /// access under a schedule (whose directives look at the CPU's position).
    pub(super) fn refresh_due(&mut self) {
        self.mxp_due = if self.schedule.is_some() { 0 } else { self.mxp.next_due() };
    }

    fn fail(&mut self, error: MxpError) {
        self.mxp_error.get_or_insert(error);
        self.halting = true;
    }

    pub(super) fn halt(&mut self, halt: Halt) {
        match halt {
            Halt::Error(e) => self.fail(e),
            Halt::Requested => self.stop_run(Stop::Requested),
        }
    }

    /// Stops the run before the hart's next instruction (the first reason given is kept).
    fn stop_run(&mut self, stop: Stop) {
        self.stop.get_or_insert(stop);
        self.halting = true;
    }

    /// The CPU's stall for a wait from `now` until `until`, cut at the cycle limit (the run
    /// then stops, the clock at the limit).
    fn wait_until(&mut self, now: u64, until: u64) -> u64 {
        if until > self.cycle_limit {
            self.stop_run(Stop::CycleLimit);
            return self.cycle_limit.saturating_sub(now);
        }
        until - now
    }

    /// A 32-bit store to the instruction port; returns the CPU's stall.
    pub(super) fn port_write(&mut self, at: Access, width: Width, value: u32) -> u64 {
        if width != Width::Word {
            self.fail(MxpError { pc: at.pc, what: "the MXP instruction port takes 32-bit stores only".into() });
            return 0;
        }
        let cmd = match self.mxp.write_word(value, at.pc) {
            Ok(Some(cmd)) => cmd,
            Ok(None) => return 0,
            Err(e) => {
                self.fail(e);
                return 0;
            }
        };
        if let Some(request) = Mxp::request_of(&cmd) {
            self.emit(Event::Request { request, origin: self.origin(at.pc, at.now) });
        }
        // The request node, if any, is the sink's latest CPU node.
        let (request, dram, axi) = (self.sink.position(), &self.dram, &mut self.axi);
        let queue = match &cmd {
            Command::Dma { dir, .. } | Command::Dma2d { dir, .. } => {
                Some(Queue::Dma { to_host: *dir == DmaDir::ToHost })
            }
            Command::Vector(_) => Some(Queue::Vector),
            _ => None,
        };
        let stall = match self.mxp.submit(cmd, request, at.pc, at.now, dram, axi) {
            // A full FIFO: the CPU waits for a slot.
            Ok(stall) => self.wait_until(at.now, at.now + stall),
            Err(halt) => {
                self.halt(halt);
                0
            }
        };
        if let (Some(timeline), Some(queue)) = (self.timeline.as_mut(), queue) {
            if let Some((start, end)) = self.mxp.take_last_scheduled() {
                timeline.push(Record::Engine { queue, request, pc: at.pc, start, end });
            }
        }
        self.refresh_due();
        stall
    }

    /// A load from the instruction port: the pending reply, after waiting for it.
    pub(super) fn port_read(&mut self, at: Access, width: Width) -> (u32, u64) {
        if width != Width::Word {
            self.fail(MxpError { pc: at.pc, what: "the MXP instruction port takes 32-bit loads only".into() });
            return (0, 0);
        }
        if self.mxp.sync_pending() {
            self.release_hold_for_sync(at.now);
        }
        let ready = match self.mxp.reply_ready(at.pc) {
            Ok(ready) => ready.max(at.now),
            Err(e) => {
                self.fail(e);
                return (0, 0);
            }
        };
        let stall = self.wait_until(at.now, ready);
        if let Some(timeline) = self.timeline.as_mut().filter(|_| stall > 0) {
            timeline.push(Record::Wait { pc: at.pc, start: at.now, end: at.now + stall });
        }
        self.catch_up_engine(Access { now: at.now + stall, ..at });
        self.mxp.count_stall(stall);
        if self.stop.is_some() {
            // The reply stays pending: the run ends before it.
            return (0, stall);
        }
        let (cmd, value) = self.mxp.take_reply().expect("a reply is pending");
        if cmd == Command::Sync {
            self.emit(Event::Sync { origin: self.origin(at.pc, ready) });
        }
        (value, stall)
    }
}
