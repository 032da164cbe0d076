//! The race detector: a pure library over a stream of memory-interface events (the node
//! kinds of `race-semantics.md` §1), knowing nothing of the simulator, so that it can run
//! online inside a simulation or offline on a recorded trace.
//!
//! * [`event`]: the vocabulary every producer (CPU, cache, MXP engine) emits.
//! * [`interlock`]: the accelerator's one ordering rule between its DMA and vector queues,
//!   shared by the engine model (which stalls on it) and the detector (which orders on it).
//! * [`node`]: the memory-touching nodes of the model and their bytes; [`bytes`]: byte sets.
//! * [`race`]: what is reported; [`config`]: options and stream errors.
//! * [`fast`]: the online detector (interval form, bounded state), with its proof of
//!   equivalence to the graph; [`detector`]: it plus the deduplicated report.
//! * [`reference`]: the graph built literally — slow, for tests only.

/// Asserts an invariant of mxpsim's own state on a path too hot to check on every call in
/// the simulator that runs firmware: checked in unit tests (built with `cfg(test)`, which drive
/// these paths with random inputs) and in any build with debug assertions. Not in a release
/// build, nor in the tests' build of the simulator, which has no debug assertions (Cargo.toml,
/// `[profile.dev.package.mxpsim-*]`: the integration tests run whole firmware programs). The
/// condition is still compiled everywhere, so it cannot go stale.
#[macro_export]
macro_rules! invariant {
    ($($assertion:tt)*) => {
        if cfg!(any(test, debug_assertions)) {
            assert!($($assertion)*);
        }
    };
}

pub mod bytes;
pub mod config;
pub mod detector;
pub mod event;
pub mod fast;
pub mod interlock;
pub mod node;
pub mod race;
pub mod reference;

pub use config::{Config, ConfigError, StreamError};
pub use detector::Detector;
pub use race::{Race, RaceNode, Report};
