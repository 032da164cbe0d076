//! Stopping a simulation from outside (a signal handler) and bounding simulated time.
//!
//! The host sets a [`StopRequest`] from a signal handler; the run loop looks at it between
//! slices of instructions, and the accelerator between rows of a long command, so that a
//! stop is seen quickly without a check on every instruction.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// A request to stop, shared with whoever may set it: 0 while the run may go on, else the
/// reason (the host stores the number of the signal that asked).
#[derive(Clone, Debug, Default)]
pub struct StopRequest(Arc<AtomicUsize>);

impl StopRequest {
    /// The shared word, for a signal handler to store its reason into.
    pub fn word(&self) -> Arc<AtomicUsize> {
        Arc::clone(&self.0)
    }

    /// The reason, once a stop was asked for.
    #[inline]
    pub fn reason(&self) -> Option<usize> {
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            reason => Some(reason),
        }
    }

    /// Asks for a stop (the console's closed pipe, tests; a signal handler stores into
    /// [`StopRequest::word`]).
    pub fn request(&self, reason: usize) {
        self.0.store(reason, Ordering::Relaxed);
    }
}

/// The last cycle simulated time may reach: 2^62 cycles (146 years at 1 GHz). Commands
/// that would complete later are refused, so cycle arithmetic can never overflow.
pub const MAX_CYCLE: u64 = 1 << 62;

/// Why the memory system stopped the run before the hart's next instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The CPU would have waited for the accelerator past the cycle limit: the clock stands
    /// at the limit.
    CycleLimit,
    /// The [`StopRequest`] was set while the accelerator carried out a long command (its
    /// effect is only partly applied).
    Requested,
}
