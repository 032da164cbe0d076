//! Where the hardware reports its memory-interface events (the detector's vocabulary,
//! [`mxpsim_detector::event`]). Components are generic over the sink; with the unit sink
//! `()` nothing is built or stored, so an unobserved run pays nothing.

use mxpsim_detector::event::{Access, Event, Origin, Pos, Range};

pub trait EventSink {
    /// False for sinks that drop everything: producers skip building the events.
    const ENABLED: bool = true;
    fn emit(&mut self, event: Event);
    /// `Event::Cached`, nearly every event of a run: a sink with a shorter path for it than
    /// building and matching the whole event (the race checker) overrides this.
    #[inline(always)]
    fn cached(&mut self, access: Access, range: Range, origin: Origin) {
        self.emit(Event::Cached { access, range, origin });
    }
    /// The CPU nodes received so far: the position of the latest on the CPU timeline (what
    /// an engine node names its request by). The sink numbers them, so that the producer
    /// need not count them too: the race checker answers with its detector's count, a
    /// trace writer on its own counts them itself.
    fn position(&self) -> Pos;
    /// True once the sink wants the run to stop (a race checker told to halt on the first
    /// race). Checked after every CPU load and store.
    fn wants_halt(&self) -> bool {
        false
    }
}

impl EventSink for () {
    const ENABLED: bool = false;
    fn emit(&mut self, _: Event) {}
    fn position(&self) -> Pos {
        0
    }
}

/// Two sinks fed the same stream (e.g. the race checker and a trace recorder).
impl<A: EventSink, B: EventSink> EventSink for (A, B) {
    const ENABLED: bool = A::ENABLED || B::ENABLED;
    fn emit(&mut self, event: Event) {
        if A::ENABLED && B::ENABLED {
            self.0.emit(event.clone());
            self.1.emit(event);
        } else if A::ENABLED {
            self.0.emit(event);
        } else {
            self.1.emit(event);
        }
    }
    fn cached(&mut self, access: Access, range: Range, origin: Origin) {
        if A::ENABLED && B::ENABLED {
            self.0.cached(access, range, origin);
            self.1.cached(access, range, origin);
        } else if A::ENABLED {
            self.0.cached(access, range, origin);
        } else {
            self.1.cached(access, range, origin);
        }
    }
    fn position(&self) -> Pos {
        if A::ENABLED {
            self.0.position()
        } else {
            self.1.position()
        }
    }
    fn wants_halt(&self) -> bool {
        self.0.wants_halt() || self.1.wants_halt()
    }
}

/// Collects events in memory (tests, and small runs).
impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
    fn position(&self) -> Pos {
        self.iter().filter(|e| e.is_cpu_node()).count() as Pos
    }
}
