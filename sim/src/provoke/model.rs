//! What `provoke` found, as data: per finding, each schedule tried, what its directives did,
//! and what came out different from the first run. Printed by [`super::text`] and
//! [`super::json`].

use crate::exit_code::RunEnd;
use crate::report::model::Finding;
use mxpsim_detector::event::Space;
use mxpsim_models::cpu::calls::CallTree;
use mxpsim_models::schedule::{Directive, Happened};
use mxpsim_models::timeline::Recorder;
use serde::Serialize;

/// The whole result.
#[derive(Clone, Debug)]
pub struct Provoked {
    /// How the first run (the default schedule) ended.
    pub first_end: RunEnd,
    /// Findings of the first run, in report order.
    pub findings_total: usize,
    pub findings: Vec<ProvokedFinding>,
}

#[derive(Clone, Debug)]
pub struct ProvokedFinding {
    /// 1-based, as the race report numbers it.
    pub number: usize,
    /// The finding, with the sides and racing bytes of the race shown (`race`).
    pub finding: Finding,
    /// The race of the finding whose attempts are shown (0-based, in the detector's order):
    /// the first with the worst effect of those tried.
    pub race: usize,
    /// The finding's races, and how many were tried (in order, until one changed the output or exit status).
    pub races: usize,
    pub tried: usize,
    /// The two orders tried for that race (side A first, side B first), or why none could be.
    pub attempts: Result<Vec<Attempt>, String>,
}

impl ProvokedFinding {
    /// The attempt behind the verdict: the first with the worst effect.
    pub fn worst(&self) -> Option<&Attempt> {
        let worst = self.verdict()?;
        self.attempts.as_ref().ok()?.iter().find(|a| a.verdict() == Some(worst))
    }

    /// The worst effect any schedule had; `None` if none could be tried (or finished).
    pub fn verdict(&self) -> Option<Verdict> {
        self.attempts.as_ref().ok()?.iter().filter_map(Attempt::verdict).max()
    }

    /// True if the finding has no verdict because a signal cut its runs short.
    pub fn cut_short(&self) -> bool {
        self.verdict().is_none() && self.attempts.as_ref().is_ok_and(|a| a.iter().any(|a| a.cut_short.is_some()))
    }
}

/// A CPU node a directive names, reached at another instruction in the re-run than in the
/// probing run (`None`: not reached).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Divergence {
    pub node: u64,
    pub first: Option<u32>,
    pub this: Option<u32>,
}

/// One re-run under one order.
#[derive(Clone, Debug)]
pub struct Attempt {
    /// The side that was made to go first (0: A, 1: B).
    pub first: usize,
    pub directives: Vec<Directive>,
    pub happened: Vec<Happened>,
    /// The directives did all they planned (a hold not cut short by a sync, kept bytes not
    /// written back by the CPU first).
    pub realised: bool,
    /// The program took another path before a node the directives name (so not realised).
    pub diverged: Option<Divergence>,
    /// How a signal ended the re-run, or the probing run it is compared with, if one did:
    /// then there is no effect to show (the differences of a run cut short, or from one,
    /// say nothing of the race) and no verdict.
    pub cut_short: Option<RunEnd>,
    pub effect: Effect,
    /// The re-run's timeline and call contexts, when one was asked for.
    pub timeline: Option<(Recorder, CallTree)>,
}

impl Attempt {
    /// The effect's verdict; none for a re-run a signal cut short, or compared with a
    /// probing run a signal cut short.
    pub fn verdict(&self) -> Option<Verdict> {
        self.cut_short.is_none().then(|| self.effect.verdict())
    }

    /// [`Attempt::cut_short`] of a re-run that ended `this`, compared with a probing run
    /// that ended `probing`.
    pub fn cut_short_of(probing: &RunEnd, this: &RunEnd) -> Option<RunEnd> {
        [this, probing].into_iter().find(|end| matches!(end, RunEnd::Interrupted { .. })).cloned()
    }
}

/// What a re-run changed, next to the first run.
#[derive(Clone, Debug, Default)]
pub struct Effect {
    /// The console's first changes from the first run (a line diff, at most six).
    pub console: Vec<LineDiff>,
    /// Console lines gone or new, in all.
    pub console_lines: usize,
    /// How the run ended, if that differs: (first run, this run).
    pub end: Option<(RunEnd, RunEnd)>,
    /// The racing bytes as the engine node read or left them, where they differ.
    pub other_side: Vec<BytesDiff>,
    /// Memory at the end of the run (DRAM as the CPU sees it, and the scratchpad).
    pub memory: Vec<BytesDiff>,
    /// Bytes of memory that differ in all.
    pub memory_bytes: u64,
}

impl Effect {
    pub fn verdict(&self) -> Verdict {
        if self.console_lines > 0 || self.end.is_some() {
            Verdict::Harmful
        } else if !self.other_side.is_empty() || self.memory_bytes > 0 {
            Verdict::SilentCorruption
        } else {
            Verdict::Benign
        }
    }
}

/// A console line the re-run lost (`first`: its number in the first run's output) or
/// gained (`this`: its number in the re-run's).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineDiff {
    pub line: usize,
    pub first: Option<String>,
    pub this: Option<String>,
}

/// A run of bytes that differ: where, and the first 16 values each way.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BytesDiff {
    pub space: Space,
    pub start: u32,
    pub len: u32,
    /// For the racing bytes: what the engine node `read` (just before it took effect) or
    /// `left` (just after).
    pub when: Option<&'static str>,
    pub first: Vec<u8>,
    pub this: Vec<u8>,
}

/// Ordered from least to most harmful.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The values were the same either way, in this run.
    Benign,
    /// Memory differs; the output and the exit status do not.
    SilentCorruption,
    /// The output or the exit status changes.
    Harmful,
}

impl Verdict {
    pub fn words(self) -> &'static str {
        match self {
            Verdict::Benign => "benign in this run",
            Verdict::SilentCorruption => "silent corruption",
            Verdict::Harmful => "harmful",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit_code::Signal;

    fn attempt(probing: RunEnd, this: RunEnd) -> Attempt {
        let cut_short = Attempt::cut_short_of(&probing, &this);
        let effect = Effect { end: (probing != this).then_some((probing, this)), ..Effect::default() };
        Attempt {
            first: 0,
            directives: Vec::new(),
            happened: Vec::new(),
            realised: true,
            diverged: None,
            cut_short,
            effect,
            timeline: None,
        }
    }

    /// A re-run that a signal cut short has no verdict (issue 13: its different end read as
    /// harmful), nor one compared with a probing run a signal cut short (its console and
    /// memory differ from those of a run that stopped anywhere: every re-run after a Ctrl-C
    /// read as harmful); one that ended otherwise has a verdict.
    #[test]
    fn a_rerun_cut_short_by_a_signal_has_no_verdict() {
        let exited = RunEnd::Exited { status: 0 };
        let interrupted = RunEnd::Interrupted { signal: Signal::Int, instructions: 0 };
        assert_eq!(attempt(exited.clone(), interrupted.clone()).verdict(), None);
        assert_eq!(attempt(interrupted.clone(), interrupted.clone()).verdict(), None);
        assert_eq!(attempt(interrupted, exited.clone()).verdict(), None);
        assert_eq!(attempt(exited, RunEnd::Exited { status: 1 }).verdict(), Some(Verdict::Harmful));
    }
}
