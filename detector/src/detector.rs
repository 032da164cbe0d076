//! The detector as the simulator uses it: the fast detector plus a deduplicated report.

use crate::config::{Config, ConfigError, StreamError};
use crate::event::{Event, Pos};
use crate::fast::{FastDetector, StateSize};
use crate::race::Report;

/// Feed events with [`Detector::observe`]; read the races so far with [`Detector::report`]
/// (for a halt-on-first-race option, stop when `observe` returns a non-zero count); get the
/// final report with [`Detector::finish`].
#[derive(Clone, Debug)]
pub struct Detector {
    fast: FastDetector,
    report: Report,
}

impl Detector {
    pub fn new(config: Config) -> Result<Detector, ConfigError> {
        Ok(Detector { fast: FastDetector::new(config)?, report: Report::default() })
    }

    /// Takes one event; returns how many races (occurrences, before deduplication) it
    /// revealed.
    #[inline(always)] // Cached accesses take a short path: inline it into the caller.
    pub fn observe(&mut self, event: &Event) -> Result<usize, StreamError> {
        self.fast.observe(event)?;
        Ok(if self.fast.has_races() { self.collect_races() } else { 0 })
    }

    #[inline(never)]
    fn collect_races(&mut self) -> usize {
        let mut count = 0;
        for race in self.fast.drain_races() {
            self.report.add(race);
            count += 1;
        }
        count
    }

    /// The CPU timeline position of the last CPU node observed (0 before the first).
    pub fn position(&self) -> Pos {
        self.fast.position()
    }

    /// The distinct races found so far.
    pub fn report(&self) -> &Report {
        &self.report
    }

    pub fn state_size(&self) -> StateSize {
        self.fast.state_size()
    }

    pub fn finish(self) -> Report {
        self.report
    }
}
