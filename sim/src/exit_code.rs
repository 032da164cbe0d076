//! How a run ends and what mxpsim exits with: the one place for every exit status, how a
//! run's end is named (reports, sweeps), and which status wins when several apply.
//!
//! # Precedence
//!
//! 1. mxpsim could not start (bad command line, unreadable or unusable firmware, invalid
//!    configuration, an output file that cannot be created): that failure's status;
//! 2. the run did not finish (instruction limit, trap loop, accelerator error) or an output
//!    could not be written: that failure's status (the run's own when both), even when races
//!    were found — the race report is still delivered and says how the run ended;
//! 3. races were found and not all suppressed: `--race-exitcode` (66 unless set);
//! 4. otherwise the firmware's own status (its semihosting `exit`, or the riscv-tests
//!    `tohost` verdict).
//!
//! A firmware that itself exits with one of mxpsim's numbers is told apart by how the run
//! ended: mxpsim prints `mxpsim: error:` for each of its failures, and the race report's
//! SUMMARY line and JSON `outcome` name the firmware's status.

use serde::{Deserialize, Serialize};

/// One table of mxpsim's own failures: variant, exit status, what it means (for `--help`,
/// README and the variant's documentation). A failure added here is in [`Failure::ALL`] and
/// has a meaning, or does not compile.
macro_rules! failures {
    ($($name:ident = $code:literal => $meaning:literal,)*) => {
        /// Every way mxpsim itself can fail, with its exit status.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum Failure {
            $(#[doc = $meaning] $name = $code,)*
        }

        impl Failure {
            /// Every failure, in the order of its status.
            pub const ALL: &'static [Failure] = &[$(Failure::$name),*];

            /// What the status means, for `--help` and README.
            pub fn meaning(self) -> &'static str {
                match self {
                    $(Failure::$name => $meaning,)*
                }
            }
        }
    };
}

failures! {
    Usage = 2 => "bad command line",
    Internal = 100 => "mxpsim itself failed: a bug (the message says where; please report it)",
    Unreadable = 101 => "the firmware file (or, for `detect`, the trace; for `sweep merge`, a shard) cannot be read",
    NotElf = 102 => "not an ELF file, or a malformed one",
    Elf64 = 103 => "a 64-bit ELF file",
    BigEndian = 104 => "a big-endian ELF file",
    WrongMachine = 105 =>
        "not for this machine: not RISC-V, not an executable, or needing a float ABI or RV32E",
    NoLoadableSegment = 106 => "no loadable segment",
    OutsideMemory = 107 =>
        "a segment, the entry point or the stack's top outside memory (the message names the setting that fixes it, or why none does)",
    CutTrace = 108 =>
        "`detect`: the event trace ends before its trailer (the recording was cut short); `--partial` analyses what it holds",
    InvalidConfig = 110 => "invalid configuration, grid or suppressions file",
    BadShards = 111 =>
        "`sweep merge`: files that are not shard outputs, shards of different sweeps, a cell twice or cells missing",
    InsnLimit = 120 => "instruction or cycle limit reached (`--max-insns`, `--max-cycles`): the run did not finish",
    TrapLoop = 121 =>
        "the firmware trapped and its trap handler could not get through (none installed, it traps again before returning, it returns to the instruction, which traps again at once, time after time, or the same trap comes back in the same state with nothing between that could change it)",
    HostIo = 122 =>
        "an output (report, statistics, trace, table file, or the firmware's console) could not be created or written",
    Accelerator = 123 =>
        "the accelerator was given a command it cannot carry out (malformed command, scratchpad range out of bounds, DMA outside DRAM, VL of zero, …)",
    BadTrace = 124 =>
        "`detect`: not an event trace, a damaged one, or one with events the detector rejects as impossible",
    Asleep = 125 => "the firmware waits (`wfi`) for an interrupt that nothing can raise (none enabled, or no source armed)",
    Killed = 126 => "the debugger ended the run (`kill` under `--gdb`)",
    // 128 + the signal's number: what a shell reports of a process the signal ended.
    Interrupted = 130 =>
        "interrupted (SIGINT, Ctrl-C): the run stopped; the firmware's output, the race report so far and the files asked for are written",
    ClosedPipe = 141 => "standard output or standard error was closed by its reader (a pipe: `| head`, `2>&1 | head`)",
    Terminated = 143 => "terminated (SIGTERM): as for 130",
}

/// The default exit status when races were found (ThreadSanitizer's).
pub const RACES_FOUND: u8 = 66;

impl Failure {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// Every status mxpsim gives, in the order of the precedence rules: `(status, meaning)`.
/// The `--help` epilogue and README's table are this list.
pub fn table() -> Vec<(String, &'static str)> {
    let mut rows: Vec<(String, &'static str)> =
        Failure::ALL.iter().map(|f| (f.code().to_string(), f.meaning())).collect();
    rows.push((
        format!("{RACES_FOUND}"),
        "`--race-check` / `detect` found races that no suppression matched (`--race-exitcode N` changes it)",
    ));
    rows.push(("any other".into(), "the firmware's own exit status (the run ended normally, no races)"));
    rows
}

/// How a run ended, as reports and sweeps name it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum RunEnd {
    /// The firmware exited through semihosting with this status.
    Exited { status: i32 },
    /// The firmware wrote `value` to `tohost` (riscv-tests: 1 passed, else test
    /// `value >> 1` failed).
    Tohost { value: u32 },
    /// `--max-insns` instructions ran without the firmware exiting.
    InstructionLimit { limit: u64 },
    /// The simulated clock reached `--max-cycles` without the firmware exiting.
    CycleLimit { limit: u64 },
    /// A signal stopped the run after `instructions` instructions.
    Interrupted { signal: Signal, instructions: u64 },
    /// The firmware trapped and its trap handler could not get through.
    TrapLoop,
    /// The firmware waits (`wfi`) for an interrupt that nothing can raise.
    Asleep,
    /// The debugger ended the run.
    Killed,
    /// The accelerator was given a command it cannot carry out.
    AcceleratorError { message: String },
    /// The firmware's image does not fit the machine's memory.
    DoesNotFit { message: String },
    /// The race checker stopped the run at its first race (`--halt-on-race`).
    HaltedOnRace,
    /// `detect` analysed only the first `events` events (`--partial`: the trace was cut short
    /// or damaged there; or a signal stopped the reading); how the run ended is unknown.
    RecordingCut { events: u64 },
}

impl RunEnd {
    /// The firmware's status when the run ended normally, else mxpsim's failure.
    pub fn status(&self) -> Result<u8, Failure> {
        match *self {
            RunEnd::Exited { status } => Ok(firmware_exit_status(status)),
            RunEnd::Tohost { value: 1 } => Ok(0),
            RunEnd::Tohost { value } => Ok(tohost_failure_status(value)),
            RunEnd::InstructionLimit { .. } | RunEnd::CycleLimit { .. } => Err(Failure::InsnLimit),
            RunEnd::Interrupted { signal: Signal::Int, .. } => Err(Failure::Interrupted),
            RunEnd::Interrupted { signal: Signal::Term, .. } => Err(Failure::Terminated),
            RunEnd::Interrupted { signal: Signal::Pipe, .. } => Err(Failure::ClosedPipe),
            RunEnd::TrapLoop => Err(Failure::TrapLoop),
            RunEnd::Asleep => Err(Failure::Asleep),
            RunEnd::Killed => Err(Failure::Killed),
            RunEnd::AcceleratorError { .. } => Err(Failure::Accelerator),
            RunEnd::DoesNotFit { .. } => Err(Failure::OutsideMemory),
            RunEnd::HaltedOnRace => Ok(0),
            RunEnd::RecordingCut { .. } => Err(Failure::CutTrace),
        }
    }

    /// True when the firmware ran to its end (every race it can have was observed).
    pub fn complete(&self) -> bool {
        matches!(self, RunEnd::Exited { .. } | RunEnd::Tohost { .. })
    }
}

impl RunEnd {
    /// As a sentence's clause: `the firmware exited with status 0`.
    pub fn describe(&self) -> String {
        match self {
            RunEnd::Exited { status } => format!("the firmware exited with status {status}"),
            RunEnd::Tohost { value: 1 } => "the firmware passed (tohost = 1)".into(),
            RunEnd::Tohost { value } => format!("the firmware failed test {} (tohost = {value:#x})", value >> 1),
            RunEnd::InstructionLimit { limit } => {
                format!("the run stopped at the instruction limit ({limit}) before the firmware finished")
            }
            RunEnd::CycleLimit { limit } => {
                format!("the run stopped at the cycle limit ({limit}) before the firmware finished")
            }
            RunEnd::Interrupted { signal, instructions } => {
                format!("the run was interrupted ({}) after {instructions} instructions", signal.name())
            }
            RunEnd::TrapLoop => {
                "the run stopped: the firmware trapped and its trap handler could not get through".into()
            }
            RunEnd::Asleep => "the run stopped: the firmware waits for an interrupt that nothing can raise".into(),
            RunEnd::Killed => "the debugger ended the run".into(),
            RunEnd::AcceleratorError { message } => format!("the run stopped: accelerator error: {message}"),
            RunEnd::DoesNotFit { message } => format!("the firmware does not fit the machine: {message}"),
            RunEnd::HaltedOnRace => "the run stopped at the first race (--halt-on-race)".into(),
            RunEnd::RecordingCut { events } => {
                format!("the recording ends after {events} events here (cut short, damaged or not read further); how the run ended is unknown")
            }
        }
    }
}

/// In a table cell: the firmware's status (`0`), or what stopped it (`instruction limit`).
impl std::fmt::Display for RunEnd {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunEnd::Exited { status } => write!(f, "{status}"),
            RunEnd::Tohost { value: 1 } => write!(f, "0"),
            RunEnd::Tohost { value } => write!(f, "test {} failed", value >> 1),
            RunEnd::InstructionLimit { .. } => write!(f, "instruction limit"),
            RunEnd::CycleLimit { .. } => write!(f, "cycle limit"),
            RunEnd::Interrupted { signal, .. } => write!(f, "interrupted ({})", signal.name()),
            RunEnd::TrapLoop => write!(f, "trap loop"),
            RunEnd::Asleep => write!(f, "asleep"),
            RunEnd::Killed => write!(f, "killed"),
            RunEnd::AcceleratorError { message } => write!(f, "accelerator: {message}"),
            RunEnd::DoesNotFit { message } => write!(f, "does not fit: {message}"),
            RunEnd::HaltedOnRace => write!(f, "halted"),
            RunEnd::RecordingCut { .. } => write!(f, "recording cut"),
        }
    }
}

/// The signals that stop a run in an orderly way. `Pipe` is not a signal caught (Rust
/// ignores SIGPIPE) but what it means: the firmware's console is a pipe whose reader went
/// away (`| head`), so the run stops as a filter's would, its results delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Signal {
    Int,
    Term,
    Pipe,
}

impl Signal {
    /// The signal of this number (one of the three that stop a run; SIGINT for another).
    pub fn of(number: usize) -> Signal {
        [Signal::Term, Signal::Pipe].into_iter().find(|signal| signal.number() == number).unwrap_or(Signal::Int)
    }

    /// Its number, as a stop request carries it ([`Signal::of`] reads it back).
    pub fn number(self) -> usize {
        let number = match self {
            Signal::Int => signal_hook::consts::SIGINT,
            Signal::Term => signal_hook::consts::SIGTERM,
            Signal::Pipe => signal_hook::consts::SIGPIPE,
        };
        number as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Signal::Int => "SIGINT",
            Signal::Term => "SIGTERM",
            Signal::Pipe => "SIGPIPE",
        }
    }
}

/// The exit status for a failing `tohost` value: the test number, saturated at 255 so that
/// a test above 255 is never taken for another (or for 0, "pass") in the 8 bits of a process
/// status; at least 1.
fn tohost_failure_status(value: u32) -> u8 {
    (value >> 1).clamp(1, 255) as u8
}

/// The process status of a firmware's semihosting `exit(status)`: its low 8 bits, as a
/// POSIX exit() keeps them, but never 0 for a failing status: 256, -256 and every other
/// multiple of 256 give 255 (as the 8 bits of `exit(256)` on a host say 0, "passed", and a
/// failing firmware would pass its CI job).
fn firmware_exit_status(status: i32) -> u8 {
    match status as u8 {
        0 if status != 0 => 255,
        low => low,
    }
}

/// The process's exit status by the precedence rules: `end` is the firmware's status or the
/// failure that ended the run, `races` the findings no suppression matched.
pub fn exit_status(end: Result<u8, Failure>, races: usize, race_exitcode: u8) -> u8 {
    match end {
        Err(failure) => failure.code(),
        Ok(_) if races > 0 => race_exitcode,
        Ok(firmware) => firmware,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failing_firmware_status_never_exits_0() {
        for (status, expected) in
            [(0, 0), (1, 1), (255, 255), (256, 255), (257, 1), (-1, 255), (-256, 255), (1 << 30, 255)]
        {
            assert_eq!(RunEnd::Exited { status }.status(), Ok(expected), "exit({status})");
        }
    }

    #[test]
    fn failing_tohost_never_reports_success() {
        assert_eq!(tohost_failure_status((3 << 1) | 1), 3);
        assert_eq!(tohost_failure_status((255 << 1) | 1), 255);
        assert_eq!(tohost_failure_status((300 << 1) | 1), 255, "not 44, test 44's status");
        assert_eq!(tohost_failure_status((256 << 1) | 1), 255, "not 0, the passing status");
        assert_eq!(tohost_failure_status(0), 1);
    }

    #[test]
    fn failures_win_over_races_and_races_over_the_firmware() {
        assert_eq!(exit_status(Err(Failure::InsnLimit), 3, RACES_FOUND), 120);
        assert_eq!(exit_status(Ok(0), 3, RACES_FOUND), 66);
        assert_eq!(exit_status(Ok(7), 1, 9), 9);
        assert_eq!(exit_status(Ok(7), 0, RACES_FOUND), 7);
        assert_eq!(exit_status(Ok(66), 0, RACES_FOUND), 66);
    }

    #[test]
    fn statuses_are_distinct() {
        let mut codes: Vec<u8> = Failure::ALL.iter().map(|f| f.code()).collect();
        codes.push(RACES_FOUND);
        let n = codes.len();
        codes.sort();
        codes.dedup();
        assert_eq!(codes.len(), n);
    }
}
