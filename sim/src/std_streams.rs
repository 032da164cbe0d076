//! The standard streams as the process was given them. Rust's runtime puts /dev/null in
//! the place of a closed standard stream before `main` (so that no file opened later takes
//! its number), and writes to it then succeed: a run with its standard output closed
//! (`>&-`) lost the firmware's console, a sweep's rows or the race report and said 0. A
//! closed standard output or error is refused instead, as coreutils refuse it. Whether one
//! was closed is looked at before the runtime's start, by a function the C runtime calls
//! with the program's other initialisers (`.init_array`); by `main` a closed stream and a
//! `/dev/null` given on purpose (`>/dev/null`, Python's `DEVNULL`) look alike.

use std::sync::atomic::{AtomicU8, Ordering};

/// Bit `fd` set: standard output (1) or error (2) was closed when the process started.
static CLOSED_AT_START: AtomicU8 = AtomicU8::new(0);

/// Runs before Rust's runtime starts (glibc calls `.init_array` before `main`).
#[used]
#[link_section = ".init_array"]
static LOOK_AT_START: extern "C" fn() = look_at_start;

extern "C" fn look_at_start() {
    for fd in [1, 2] {
        // SAFETY: F_GETFD reads the descriptor's flags and changes nothing.
        if unsafe { libc::fcntl(fd, libc::F_GETFD) } == -1 {
            CLOSED_AT_START.fetch_or(1 << fd, Ordering::Relaxed);
        }
    }
}

/// `Err` with the name of the first of standard output and error that was closed when the
/// process started (a closed standard input reads as empty: that is no loss).
pub fn check() -> Result<(), &'static str> {
    let closed = CLOSED_AT_START.load(Ordering::Relaxed);
    match [(1, "standard output"), (2, "standard error")].into_iter().find(|&(fd, _)| closed & (1 << fd) != 0) {
        Some((_, name)) => Err(name),
        None => Ok(()),
    }
}
