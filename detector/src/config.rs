//! What the detector is told, and what it refuses.

use crate::bytes::MAX_LINE_SIZE;
use crate::event::{CacheGeometry, Pos, Request};

/// Detector options.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Config {
    pub geometry: CacheGeometry,
    /// Also report CPU uncached accesses against cache nodes (`alloc`/`wb`): the paper's
    /// footnote 5. CPU-vs-accelerator and accelerator-vs-accelerator races are always
    /// reported.
    pub cpu_uncached_vs_cache: bool,
}

impl Config {
    pub fn validate(&self) -> Result<(), ConfigError> {
        let size = self.geometry.line_size;
        if size.is_power_of_two() && size <= MAX_LINE_SIZE {
            Ok(())
        } else {
            Err(ConfigError::LineSize(size))
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("cache line size {0} is not a power of two of at most {MAX_LINE_SIZE} bytes")]
    LineSize(u32),
}

/// A stream that breaks the contract of [`crate::event`]. The detector's state is unchanged
/// by the offending event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StreamError {
    #[error("engine node for CPU node {request}, which is not a request awaiting its engine node")]
    UnknownRequest { request: Pos },
    #[error("engine node for request {request} does not match the request ({expected:?})")]
    WrongEngine { request: Pos, expected: Request },
    #[error(
        "engine node for request {request} arrived before the one for request {expected}, which its queue runs first"
    )]
    OutOfQueueOrder { request: Pos, expected: Pos },
    #[error("engine node for request {earlier} arrived after the one for request {later}, which the interlocks make wait for it")]
    InterlockOrder { earlier: Pos, later: Pos },
    #[error("sync at CPU node {sync} before the engine node of request {request}")]
    SyncBeforeEngineNode { sync: Pos, request: Pos },
}
