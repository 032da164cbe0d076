//! The race detector: a pure library over a stream of memory-interface events (the node
//! kinds of `race-semantics.md` §1), knowing nothing of the simulator, so that it can run
//! online inside a simulation or offline on a recorded trace.
//!
//! Empty for now: the event vocabulary arrives with the memory system (the cache is the
//! first producer of events), the happens-before reference and the active-frontier
//! detector with the race-detector issue.
