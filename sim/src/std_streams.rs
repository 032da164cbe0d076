//! The standard streams as the process was given them. Rust's runtime puts /dev/null in
//! the place of a closed standard stream before `main` (so that no file opened later takes
//! its number), and writes to it then succeed: a run with its standard output closed
//! (`>&-`) lost the firmware's console, a sweep's rows or the race report and said 0. A
//! closed standard output or error is refused instead, as coreutils refuse it.

use std::io;

/// `Err` with the name of the first of standard output and error that was closed when the
/// process started (a closed standard input reads as empty: that is no loss).
pub fn check() -> Result<(), &'static str> {
    match [(1, "standard output"), (2, "standard error")].into_iter().find(|&(fd, _)| put_in_for_closed(fd)) {
        Some((_, name)) => Err(name),
        None => Ok(()),
    }
}

/// Whether descriptor `fd` is the runtime's stand-in for a closed one: /dev/null open for
/// reading and writing. (A shell opens a file it sends output to for writing only; only
/// `<>/dev/null` gives the same, and it would send the output nowhere too.)
fn put_in_for_closed(fd: libc::c_int) -> bool {
    let mut stat = std::mem::MaybeUninit::<libc::stat>::uninit();
    // SAFETY: fstat writes a whole `stat` into the buffer when it returns 0, and F_GETFL only
    // reads the descriptor's flags.
    let (stat, flags) = unsafe {
        if libc::fstat(fd, stat.as_mut_ptr()) != 0 {
            return io::Error::last_os_error().raw_os_error() == Some(libc::EBADF);
        }
        (stat.assume_init(), libc::fcntl(fd, libc::F_GETFL))
    };
    let dev_null = libc::makedev(1, 3);
    stat.st_mode & libc::S_IFMT == libc::S_IFCHR && stat.st_rdev == dev_null && flags & libc::O_ACCMODE == libc::O_RDWR
}
