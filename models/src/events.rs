//! Where the hardware reports its memory-interface events (the detector's vocabulary,
//! [`mxpsim_detector::event`]). Components are generic over the sink; with the unit sink
//! `()` nothing is built or stored, so an unobserved run pays nothing.

use mxpsim_detector::event::Event;

pub trait EventSink {
    /// False for sinks that drop everything: producers skip building the events.
    const ENABLED: bool = true;
    fn emit(&mut self, event: Event);
}

impl EventSink for () {
    const ENABLED: bool = false;
    fn emit(&mut self, _: Event) {}
}

/// Collects events in memory (tests, and small runs).
impl EventSink for Vec<Event> {
    fn emit(&mut self, event: Event) {
        self.push(event);
    }
}
