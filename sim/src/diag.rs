//! mxpsim's own lines on standard error — notes, warnings, statistics, how a run ended, the
//! race report — written so that a closed or full standard error never makes mxpsim panic
//! (`eprintln!` does), and so that a line that could not be written is not lost silently:
//! the first failure is remembered and the exit status says an output was lost
//! ([`unless_lost`]).

use crate::exit_code::Failure;
use std::io::{self, Write};
use std::os::fd::AsFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

/// How the first write to standard error failed, if one did.
static LOST: OnceLock<io::ErrorKind> = OnceLock::new();

/// Whether the firmware's output, where it meets mxpsim's lines, stopped in the middle of a
/// line: mxpsim's next line then starts on a line of its own ("partial" and an error were
/// one line: "partialmxpsim: error: …").
static FIRMWARE_MID_LINE: AtomicBool = AtomicBool::new(false);

/// Writes `text` to standard error as it is; an error is remembered (and returned).
pub fn write(text: &str) -> io::Result<()> {
    let mut stderr = io::stderr().lock();
    let result = match FIRMWARE_MID_LINE.swap(false, Ordering::Relaxed) {
        true => stderr.write_all(b"\n").and_then(|()| stderr.write_all(text.as_bytes())),
        false => stderr.write_all(text.as_bytes()),
    };
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

/// A firmware stream (its standard output or error) that tells mxpsim's lines on standard
/// error whether it left a line unfinished where they will show: on standard error itself,
/// or on standard output when both go to the same place (a terminal, `2>&1`).
pub struct FirmwareStream<W> {
    inner: W,
    meets_stderr: bool,
}

impl<W: Write + AsFd> FirmwareStream<W> {
    /// `stream` (standard output or standard error), written unbuffered: what it is given
    /// has reached the file.
    pub fn new(stream: W) -> FirmwareStream<W> {
        FirmwareStream { meets_stderr: same_file(&stream, io::stderr()), inner: stream }
    }
}

impl<W: Write> Write for FirmwareStream<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let written = self.inner.write(buf)?;
        if let (true, Some(&last)) = (self.meets_stderr, buf[..written].last()) {
            FIRMWARE_MID_LINE.store(last != b'\n', Ordering::Relaxed);
        }
        Ok(written)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// Whether two open files are one (the same device and inode: one terminal, one pipe, one
/// file); when that cannot be told, they are taken as one (a newline too many is harmless).
fn same_file(a: impl AsFd, b: impl AsFd) -> bool {
    use std::os::unix::fs::MetadataExt;
    let identity = |fd: std::os::fd::BorrowedFd| {
        let metadata = std::fs::File::from(fd.try_clone_to_owned()?).metadata()?;
        io::Result::Ok((metadata.dev(), metadata.ino()))
    };
    match (identity(a.as_fd()), identity(b.as_fd())) {
        (Ok(a), Ok(b)) => a == b,
        _ => true,
    }
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
