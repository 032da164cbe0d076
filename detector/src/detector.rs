//! The detector as the simulator uses it: the fast detector plus a deduplicated report.

use crate::config::{Config, ConfigError, StreamError};
use crate::event::{Access, Event, Origin, Pos, Range, Space};
use crate::fast::{FastDetector, InlineQuiet, StateSize};
use crate::race::{KeyGroups, Race, Report};

/// Feed events with [`Detector::observe`]; read the races so far with [`Detector::report`]
/// (for a halt-on-first-race option, stop when `observe` returns a non-zero count) and the
/// ones the last event revealed with [`Detector::fresh`]; get the final report with
/// [`Detector::finish`].
#[derive(Clone, Debug)]
pub struct Detector {
    fast: FastDetector,
    report: Report,
    /// The races the last event that revealed any revealed, and their keys' groups.
    fresh: Vec<Race>,
    fresh_groups: KeyGroups,
}

impl Detector {
    pub fn new(config: Config) -> Result<Detector, ConfigError> {
        Ok(Detector {
            fast: FastDetector::new(config)?,
            report: Report::default(),
            fresh: Vec::new(),
            fresh_groups: KeyGroups::default(),
        })
    }

    /// Takes one event; returns how many races (occurrences, before deduplication) it
    /// revealed.
    #[inline(always)] // Cached accesses take a short path: inline it into the caller.
    pub fn observe(&mut self, event: &Event) -> Result<usize, StreamError> {
        self.fast.observe(event)?;
        Ok(if self.fast.has_races() { self.collect_races() } else { 0 })
    }

    /// [`Detector::observe`] of `Event::Cached { access, range, origin }`, without the event
    /// built (the common case, kept short).
    #[inline(always)]
    pub fn observe_cached(&mut self, access: Access, range: Range, origin: Origin) -> usize {
        self.fast.observe_cached(access, range, origin);
        if self.fast.has_races() {
            self.collect_races()
        } else {
            0
        }
    }

    /// [`FastDetector::observe_quiet`]: takes a cached access that changes nothing but the
    /// position (true), or leaves it to [`Detector::observe_cached`] (false).
    #[inline(always)]
    pub fn observe_quiet(&mut self, access: Access, range: Range) -> bool {
        self.fast.observe_quiet(access, range)
    }

    /// [`FastDetector::observe_cpu_quiet`]: takes an access outside the cache (uncached DRAM,
    /// the scratchpad) in `space` that can race with nothing and leaves nothing to keep
    /// (true), or leaves it to [`Detector::observe`] (false).
    #[inline(always)]
    pub fn observe_cpu_quiet(&mut self, space: Space) -> bool {
        self.fast.observe_cpu_quiet(space)
    }

    /// [`FastDetector::INLINE_QUIET`], from the detector's start: for a caller that takes
    /// the accesses [`Detector::observe_quiet`] would take, inline.
    pub const INLINE_QUIET: InlineQuiet = FastDetector::INLINE_QUIET.within(std::mem::offset_of!(Detector, fast));

    #[inline(never)]
    fn collect_races(&mut self) -> usize {
        self.fresh.clear();
        self.fresh.extend(self.fast.drain_races());
        self.fresh_groups.group(&self.fresh);
        self.report.add_all(&self.fresh, &self.fresh_groups);
        self.fresh.len()
    }

    /// The races the last [`Detector::observe`] that returned a non-zero count revealed (for
    /// callers that note what they know of the moment, e.g. the last store to a line).
    pub fn fresh(&self) -> &[Race] {
        &self.fresh
    }

    /// Per race of [`Detector::fresh`]: whether an earlier one has its key (the report kept
    /// the first).
    pub fn fresh_repeats(&self) -> &[bool] {
        self.fresh_groups.repeats()
    }

    /// True while a request's engine node has not arrived: only then can a cached read's
    /// `alloc` race with a node still to come (a request made later orders the read
    /// before its node).
    #[inline(always)]
    pub fn request_pending(&self) -> bool {
        self.fast.request_pending()
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
