//! mxpsim's own lines on standard error — notes, warnings, statistics, how a run ended, the
//! race report — written so that a closed or full standard error never makes mxpsim panic
//! (`eprintln!` does), and so that a line that could not be written is not lost silently:
//! the first failure is remembered and the exit status says an output was lost
//! ([`unless_lost`]).

use crate::exit_code::Failure;
use std::io::{self, Write};
use std::sync::OnceLock;

/// How the first write to standard error failed, if one did.
static LOST: OnceLock<io::ErrorKind> = OnceLock::new();

/// Writes `text` to standard error as it is; an error is remembered (and returned).
pub fn write(text: &str) -> io::Result<()> {
    let result = io::stderr().lock().write_all(text.as_bytes());
    if let Err(e) = &result {
        LOST.get_or_init(|| e.kind());
    }
    result
}

/// Writes one line to standard error (see [`write`]).
pub fn line(args: std::fmt::Arguments) {
    let _ = write(&format!("{args}\n"));
}

/// The failure a lost write to standard error amounts to: a reader that went away is a
/// closed pipe, anything else (a full disk) an output that could not be written.
pub fn lost() -> Option<Failure> {
    LOST.get().map(|&kind| output_failure(kind))
}

/// The failure of an output that could not be written for `kind`.
pub fn output_failure(kind: io::ErrorKind) -> Failure {
    match kind {
        io::ErrorKind::BrokenPipe => Failure::ClosedPipe,
        _ => Failure::HostIo,
    }
}

/// How a run that ended as `end` ends once its diagnostics are counted: a run that finished
/// but whose lines to standard error were lost fails as an output failure (rule 2 of
/// [`crate::exit_code`]); a run that did not finish keeps its own failure.
pub fn unless_lost(end: Result<u8, Failure>) -> Result<u8, Failure> {
    end.and_then(|status| lost().map_or(Ok(status), Err))
}

/// `eprintln!` that neither panics nor loses the fact that it failed.
#[macro_export]
macro_rules! diag {
    ($($arg:tt)*) => {
        $crate::diag::line(format_args!($($arg)*))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reader_that_went_away_is_a_closed_pipe_and_anything_else_an_output_failure() {
        assert_eq!(output_failure(io::ErrorKind::BrokenPipe), Failure::ClosedPipe);
        assert_eq!(output_failure(io::ErrorKind::StorageFull), Failure::HostIo);
        assert_eq!(output_failure(io::ErrorKind::Other), Failure::HostIo);
    }
}
