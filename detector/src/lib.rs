//! The race detector: a pure library over a stream of memory-interface events (the node
//! kinds of `race-semantics.md` §1), knowing nothing of the simulator, so that it can run
//! online inside a simulation or offline on a recorded trace.
//!
//! * [`event`]: the vocabulary every producer (CPU, cache, MXP engine) emits.
//! * [`interlock`]: the accelerator's one ordering rule between its DMA and vector queues,
//!   shared by the engine model (which stalls on it) and the detector (which orders on it).

pub mod event;
pub mod interlock;
