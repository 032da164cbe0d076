//! RISC-V semihosting: the host side of the `slli; ebreak; srai` calls, with the operations
//! picolibc's `--oslib=semihost` uses (the ARM semihosting numbering, RV32 conventions: the
//! operation in `a0`, the argument — a value or a pointer to a block of words — in `a1`, the
//! result in `a0`).
//!
//! The firmware gets the console and nothing else of the host: `:tt` opens standard input
//! (always at end of file), output and error; the `:semihosting-features` file advertises
//! `SYS_EXIT_EXTENDED` and separate stdout/stderr; any other file name fails with `ENOENT`.
//! Time comes from the simulated cycle count, never from the host clock, so runs are
//! reproducible.

use crate::exit_code::Signal;
use mxpsim_models::bus::Bus;
use mxpsim_models::stop::StopRequest;
use std::io::Write;

/// Operation numbers.
mod op {
    pub const OPEN: u32 = 0x01;
    pub const CLOSE: u32 = 0x02;
    pub const WRITEC: u32 = 0x03;
    pub const WRITE0: u32 = 0x04;
    pub const WRITE: u32 = 0x05;
    pub const READ: u32 = 0x06;
    pub const READC: u32 = 0x07;
    pub const ISERROR: u32 = 0x08;
    pub const ISTTY: u32 = 0x09;
    pub const SEEK: u32 = 0x0a;
    pub const FLEN: u32 = 0x0c;
    pub const CLOCK: u32 = 0x10;
    pub const TIME: u32 = 0x11;
    pub const ERRNO: u32 = 0x13;
    pub const GET_CMDLINE: u32 = 0x15;
    pub const EXIT: u32 = 0x18;
    pub const EXIT_EXTENDED: u32 = 0x20;
    pub const ELAPSED: u32 = 0x30;
    pub const TICKFREQ: u32 = 0x31;
}

/// `ADP_Stopped_ApplicationExit`: the reason code of a normal exit.
const APPLICATION_EXIT: u32 = 0x20026;
/// The feature file's contents: magic "SHFB" and byte 0 with EXIT_EXTENDED (bit 0) and
/// STDOUT_STDERR (bit 1).
const FEATURES: &[u8] = b"SHFB\x03";
const FEATURES_FILE: &str = ":semihosting-features";

/// picolibc's errno values for the failures reported here.
mod errno {
    pub const ENOENT: u32 = 2;
    pub const EBADF: u32 = 9;
    pub const EFAULT: u32 = 14;
    pub const EINVAL: u32 = 22;
    pub const ESPIPE: u32 = 29;
    pub const ENOSYS: u32 = 88;
}

const FAIL: u32 = u32::MAX; // -1

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum File {
    Stdin,
    Stdout,
    Stderr,
    Features { pos: u32 },
}

/// What the firmware asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Continue with this value in `a0`.
    Return(u32),
    /// The firmware exits with this status.
    Exit(i32),
}

/// The host's side: console streams, open files, `errno` and the command line.
pub struct Semihost {
    stdout: Box<dyn Write>,
    stderr: Box<dyn Write>,
    /// Handle `n` is `files[n - 1]` (0 is never a valid handle).
    files: Vec<Option<File>>,
    errno: u32,
    cmdline: String,
    clock_hz: u32,
    /// The first error writing the firmware's console (reported once, after the run).
    console_error: Option<std::io::Error>,
    /// Set when the console's reader goes away ([`Semihost::stop_when_console_closes`]).
    console_closed: Option<StopRequest>,
}

/// The command line the firmware gets (`SYS_GET_CMDLINE`): the ELF's file name as `argv[0]`
/// — not the path as typed, so that a run does not depend on where the file is or how its path
/// is spelled (crt0 copies the line into memory) — then `args`. The firmware's C library
/// splits the line at spaces, so an argument containing whitespace (or an empty one) cannot
/// reach it whole: refused; whitespace in the file name becomes `_` (`argv[0]` stays one
/// word, and `argv[1..]` the arguments given).
pub fn command_line(elf: &std::path::Path, args: &[String]) -> Result<String, String> {
    if let Some(arg) = args.iter().find(|a| a.is_empty() || a.contains(char::is_whitespace)) {
        return Err(format!(
            "the argument {arg:?} cannot reach the firmware whole: its C library splits the semihosting command line at spaces"
        ));
    }
    let name = crate::elf::file_name(elf).replace(char::is_whitespace, "_");
    Ok(std::iter::once(name).chain(args.iter().cloned()).collect::<Vec<_>>().join(" "))
}

impl Semihost {
    pub fn new(stdout: Box<dyn Write>, stderr: Box<dyn Write>, cmdline: String, clock_hz: u32) -> Self {
        Semihost {
            stdout,
            stderr,
            files: Vec::new(),
            errno: 0,
            cmdline,
            clock_hz,
            console_error: None,
            console_closed: None,
        }
    }

    /// Performs operation `op` with argument `arg`; `cycles` is the simulated time.
    pub fn call<B: Bus>(&mut self, bus: &mut B, op: u32, arg: u32, cycles: u64) -> Outcome {
        match self.dispatch(bus, op, arg, cycles) {
            Ok(outcome) => outcome,
            Err(errno) => {
                self.errno = errno;
                Outcome::Return(FAIL)
            }
        }
    }

    /// Writes what the firmware sent through another console (the HTIF's, the UART's) to its
    /// standard output. A write error is the same as a semihosting write's: the firmware's
    /// output is lost, the first error is kept for [`Semihost::console_error`], and the run
    /// goes on, unless the error is a closed pipe ([`Semihost::stop_when_console_closes`]).
    pub fn console(&mut self, bytes: &[u8]) {
        let written = self.stdout.write_all(bytes);
        let _ = self.note(written);
    }

    /// Flushes the console streams (at exit, and before anything else writes to the terminal).
    pub fn flush(&mut self) {
        let flushed = self.stdout.flush().and_then(|()| self.stderr.flush());
        let _ = self.note(flushed);
    }

    /// The first error writing the firmware's console, if there was one (and forgets it).
    pub fn console_error(&mut self) -> Option<std::io::Error> {
        self.console_error.take()
    }

    /// Asks `stop` to end the run, as SIGPIPE would, once a console write finds its reader
    /// gone: a firmware that prints forever to `| head` ran forever (its output lost, the
    /// errors ignored).
    pub fn stop_when_console_closes(&mut self, stop: StopRequest) {
        self.console_closed = Some(stop);
    }

    /// Keeps the first console error; a closed pipe stops the run.
    fn note(&mut self, result: std::io::Result<()>) -> std::io::Result<()> {
        if let Err(e) = &result {
            self.console_error.get_or_insert_with(|| std::io::Error::new(e.kind(), e.to_string()));
            if let (std::io::ErrorKind::BrokenPipe, Some(stop)) = (e.kind(), &self.console_closed) {
                stop.request(Signal::Pipe.number());
            }
        }
        result
    }

    fn dispatch<B: Bus>(&mut self, bus: &mut B, op: u32, arg: u32, cycles: u64) -> Result<Outcome, u32> {
        let ret = |v: u32| Ok(Outcome::Return(v));
        match op {
            op::OPEN => {
                let [name, mode, len] = words(bus, arg)?;
                let name = String::from_utf8_lossy(&bytes(bus, name, len)?).into_owned();
                let file = match (name.as_str(), mode) {
                    (":tt", 0..=3) => File::Stdin,
                    (":tt", 4..=7) => File::Stdout,
                    (":tt", 8..=11) => File::Stderr,
                    (FEATURES_FILE, 0..=3) => File::Features { pos: 0 },
                    _ => {
                        tracing::warn!(
                            "firmware tried to open host file '{name}'; mxpsim gives firmware no host files"
                        );
                        return Err(errno::ENOENT);
                    }
                };
                self.files.push(Some(file));
                ret(self.files.len() as u32)
            }
            op::CLOSE => {
                let [handle] = words(bus, arg)?;
                *self.file_slot(handle)? = None;
                ret(0)
            }
            op::WRITEC => {
                let c = bytes(bus, arg, 1)?;
                self.console_write(File::Stdout, &c)?;
                ret(0)
            }
            op::WRITE0 => {
                let text = c_string(bus, arg)?;
                self.console_write(File::Stdout, &text)?;
                ret(0)
            }
            op::WRITE => {
                let [handle, buf, len] = words(bus, arg)?;
                let file = self.file(handle)?;
                let data = bytes(bus, buf, len)?;
                self.console_write(file, &data)?;
                ret(0) // bytes not written
            }
            op::READ => {
                let [handle, buf, len] = words(bus, arg)?;
                match self.file(handle)? {
                    File::Stdin => ret(len), // end of file: nothing read
                    File::Features { pos } => {
                        let rest = FEATURES.get(pos as usize..).unwrap_or_default();
                        let n = rest.len().min(len as usize);
                        bus.poke(buf, &rest[..n]).map_err(|_| errno::EFAULT)?;
                        *self.file_slot(handle)? = Some(File::Features { pos: pos + n as u32 });
                        ret(len - n as u32)
                    }
                    File::Stdout | File::Stderr => Err(errno::EBADF),
                }
            }
            op::READC => ret(FAIL), // standard input is always at end of file
            op::ISERROR => {
                let [status] = words(bus, arg)?;
                ret(((status as i32) < 0) as u32)
            }
            op::ISTTY => {
                let [handle] = words(bus, arg)?;
                ret(matches!(self.file(handle)?, File::Stdin | File::Stdout | File::Stderr) as u32)
            }
            op::SEEK => {
                let [handle, pos] = words(bus, arg)?;
                match self.file(handle)? {
                    File::Features { .. } if pos as usize <= FEATURES.len() => {
                        *self.file_slot(handle)? = Some(File::Features { pos });
                        ret(0)
                    }
                    File::Features { .. } => Err(errno::EINVAL),
                    _ => Err(errno::ESPIPE),
                }
            }
            op::FLEN => {
                let [handle] = words(bus, arg)?;
                match self.file(handle)? {
                    File::Features { .. } => ret(FEATURES.len() as u32),
                    _ => ret(0),
                }
            }
            op::CLOCK => ret((cycles / (self.clock_hz as u64 / 100).max(1)) as u32),
            op::TIME => ret((cycles / self.clock_hz as u64) as u32),
            op::ELAPSED => {
                bus.poke(arg, &cycles.to_le_bytes()).map_err(|_| errno::EFAULT)?;
                ret(0)
            }
            op::TICKFREQ => ret(self.clock_hz),
            op::ERRNO => ret(self.errno),
            op::GET_CMDLINE => {
                let [buf, len] = words(bus, arg)?;
                let mut text = self.cmdline.clone().into_bytes();
                if text.len() >= len as usize {
                    return Err(errno::EINVAL);
                }
                let text_len = text.len() as u32;
                text.push(0);
                bus.poke(buf, &text).map_err(|_| errno::EFAULT)?;
                bus.poke(arg.wrapping_add(4), &text_len.to_le_bytes()).map_err(|_| errno::EFAULT)?;
                ret(0)
            }
            // RV32: the reason code itself is the argument, and a normal exit carries no
            // status (QEMU maps every other reason to status 1, as here).
            op::EXIT => Ok(Outcome::Exit(if arg == APPLICATION_EXIT { 0 } else { 1 })),
            op::EXIT_EXTENDED => {
                let [reason, status] = words(bus, arg)?;
                Ok(Outcome::Exit(if reason == APPLICATION_EXIT { status as i32 } else { 1 }))
            }
            _ => {
                tracing::warn!("unsupported semihosting operation {op:#x}; returning -1");
                Err(errno::ENOSYS)
            }
        }
    }

    fn file_slot(&mut self, handle: u32) -> Result<&mut Option<File>, u32> {
        let slot = (handle as usize).checked_sub(1).and_then(|i| self.files.get_mut(i));
        match slot {
            Some(s @ Some(_)) => Ok(s),
            _ => Err(errno::EBADF),
        }
    }

    fn file(&mut self, handle: u32) -> Result<File, u32> {
        Ok(self.file_slot(handle)?.expect("file_slot only returns open files"))
    }

    fn console_write(&mut self, file: File, data: &[u8]) -> Result<(), u32> {
        let result = match file {
            File::Stdout => self.stdout.write_all(data),
            // Keep the terminal's order: what the firmware printed before goes out first.
            File::Stderr => self.stdout.flush().and_then(|_| self.stderr.write_all(data)),
            File::Stdin | File::Features { .. } => return Err(errno::EBADF),
        };
        self.note(result).map_err(|_| errno::EBADF)
    }
}

/// Reads `N` little-endian words of a parameter block.
fn words<B: Bus, const N: usize>(bus: &B, addr: u32) -> Result<[u32; N], u32> {
    let mut raw = vec![0u8; 4 * N];
    bus.peek(addr, &mut raw).map_err(|_| errno::EFAULT)?;
    Ok(std::array::from_fn(|i| u32::from_le_bytes(raw[4 * i..4 * i + 4].try_into().expect("4 bytes"))))
}

/// `len` bytes from `addr`, read a block at a time: memory grows only as far as the range
/// is readable (a length of 0xffffffff fails at the end of memory, not by allocating 4 GiB).
fn bytes<B: Bus>(bus: &B, addr: u32, len: u32) -> Result<Vec<u8>, u32> {
    const BLOCK: u32 = 64 << 10;
    let mut buf = Vec::new();
    let mut done = 0;
    while done < len {
        let n = (len - done).min(BLOCK);
        let start = buf.len();
        buf.resize(start + n as usize, 0);
        bus.peek(addr.wrapping_add(done), &mut buf[start..]).map_err(|_| errno::EFAULT)?;
        done += n;
    }
    Ok(buf)
}

/// A NUL-terminated string (at most 64 KiB, so a missing terminator cannot run away).
fn c_string<B: Bus>(bus: &B, addr: u32) -> Result<Vec<u8>, u32> {
    let mut out = Vec::new();
    let mut byte = [0u8];
    for i in 0..65536u32 {
        bus.peek(addr.wrapping_add(i), &mut byte).map_err(|_| errno::EFAULT)?;
        if byte[0] == 0 {
            return Ok(out);
        }
        out.push(byte[0]);
    }
    Err(errno::EINVAL)
}

/// A console kept in memory (a clone writes to the same bytes): what a run printed, for a
/// caller that compares runs rather than shows them.
#[derive(Clone, Default)]
pub struct Captured(pub std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mxpsim_models::axi::AxiConfig;
    use mxpsim_models::cache::config::CacheConfig;
    use mxpsim_models::memory_system::{MemoryMap, MemorySystem};
    use mxpsim_models::mxp::config::MxpConfig;
    const MEM: u32 = 0x8000_0000;

    use super::Captured as Shared;

    struct Rig {
        host: Semihost,
        bus: MemorySystem<()>,
        out: Shared,
        err: Shared,
    }

    fn rig() -> Rig {
        let (out, err) = (Shared::default(), Shared::default());
        let host = Semihost::new(Box::new(out.clone()), Box::new(err.clone()), "fw.elf a b".into(), 100_000_000);
        let map = MemoryMap { dram_base: MEM, dram_size: 0x10000, ..MemoryMap::default() };
        // A cache model with its defaults: host calls must see through it.
        let bus = MemorySystem::new(
            map,
            &CacheConfig::default(),
            AxiConfig::default(),
            &MxpConfig::default(),
            100_000_000,
            (),
        );
        Rig { host, bus, out, err }
    }

    impl Rig {
        fn put(&mut self, addr: u32, data: &[u8]) -> u32 {
            self.bus.poke(addr, data).unwrap();
            addr
        }
        fn block(&mut self, addr: u32, words: &[u32]) -> u32 {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            self.put(addr, &bytes)
        }
        fn call(&mut self, op: u32, arg: u32) -> Outcome {
            self.host.call(&mut self.bus, op, arg, 250_000_000)
        }
        fn open(&mut self, name: &str, mode: u32) -> Outcome {
            let n = self.put(MEM + 0x100, name.as_bytes());
            let b = self.block(MEM + 0x200, &[n, mode, name.len() as u32]);
            self.call(op::OPEN, b)
        }
    }

    #[test]
    fn the_command_line_is_the_file_name_then_the_arguments_as_given() {
        let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let line = |path: &str, a: &[&str]| command_line(std::path::Path::new(path), &args(a));
        assert_eq!(line("/abs/dir/fw.elf", &["-n", "3"]), Ok("fw.elf -n 3".into()));
        assert_eq!(line("./fw.elf", &[]), line("fw.elf", &[]));
        assert!(line("fw.elf", &["two words"]).unwrap_err().contains("\"two words\""));
        assert!(line("fw.elf", &[""]).is_err());
        // A file name with whitespace stays one word (issue 13: picolibc split it in two).
        assert_eq!(line("/dir/my prog\t.elf", &["x"]), Ok("my_prog_.elf x".into()));
    }

    #[test]
    fn console_streams_through_tt_handles() {
        let mut r = rig();
        let (Outcome::Return(out), Outcome::Return(err)) = (r.open(":tt", 4), r.open(":tt", 8)) else { panic!() };
        let text = r.put(MEM + 0x300, b"hello\n");
        let b = r.block(MEM + 0x400, &[out, text, 6]);
        assert_eq!(r.call(op::WRITE, b), Outcome::Return(0));
        let b = r.block(MEM + 0x400, &[err, text, 5]);
        assert_eq!(r.call(op::WRITE, b), Outcome::Return(0));
        let c = r.put(MEM + 0x500, b"!\0");
        r.call(op::WRITEC, c);
        let ok = r.put(MEM + 0x600, b"ok\0");
        r.call(op::WRITE0, ok);
        assert_eq!(r.out.0.borrow().as_slice(), b"hello\n!ok");
        assert_eq!(r.err.0.borrow().as_slice(), b"hello");
        let b = r.block(MEM + 0x400, &[out]);
        assert_eq!(r.call(op::ISTTY, b), Outcome::Return(1));
    }

    #[test]
    fn a_write_longer_than_memory_fails_without_allocating_it() {
        // Found by issue 13: a length of 0xffffffff allocated 4 GiB before its range check.
        let mut r = rig();
        let Outcome::Return(out) = r.open(":tt", 4) else { panic!() };
        let b = r.block(MEM + 0x400, &[out, MEM + 0x300, u32::MAX]);
        assert_eq!(r.call(op::WRITE, b), Outcome::Return(FAIL));
        assert_eq!(r.call(op::ERRNO, 0), Outcome::Return(errno::EFAULT));
        assert!(r.out.0.borrow().is_empty(), "nothing of it is written");
    }

    #[test]
    fn stdin_is_at_end_of_file() {
        let mut r = rig();
        let Outcome::Return(h) = r.open(":tt", 0) else { panic!() };
        let b = r.block(MEM + 0x400, &[h, MEM + 0x800, 16]);
        assert_eq!(r.call(op::READ, b), Outcome::Return(16));
        assert_eq!(r.call(op::READC, 0), Outcome::Return(FAIL));
    }

    #[test]
    fn feature_file_advertises_exit_extended() {
        let mut r = rig();
        let Outcome::Return(h) = r.open(FEATURES_FILE, 0) else { panic!() };
        let b = r.block(MEM + 0x400, &[h]);
        assert_eq!(r.call(op::FLEN, b), Outcome::Return(5));
        let b = r.block(MEM + 0x400, &[h, MEM + 0x800, 8]);
        assert_eq!(r.call(op::READ, b), Outcome::Return(3));
        let mut got = [0u8; 5];
        r.bus.peek(MEM + 0x800, &mut got).unwrap();
        assert_eq!(&got, FEATURES);
        let b = r.block(MEM + 0x400, &[h]);
        assert_eq!(r.call(op::CLOSE, b), Outcome::Return(0));
        assert_eq!(r.call(op::CLOSE, b), Outcome::Return(FAIL));
        assert_eq!(r.call(op::ERRNO, 0), Outcome::Return(errno::EBADF));
    }

    #[test]
    fn host_files_are_refused() {
        let mut r = rig();
        assert_eq!(r.open("/etc/passwd", 0), Outcome::Return(FAIL));
        assert_eq!(r.call(op::ERRNO, 0), Outcome::Return(errno::ENOENT));
    }

    #[test]
    fn exits_follow_the_rv32_conventions() {
        let mut r = rig();
        assert_eq!(r.call(op::EXIT, APPLICATION_EXIT), Outcome::Exit(0));
        assert_eq!(r.call(op::EXIT, 0x20023), Outcome::Exit(1));
        let b = r.block(MEM + 0x400, &[APPLICATION_EXIT, 42]);
        assert_eq!(r.call(op::EXIT_EXTENDED, b), Outcome::Exit(42));
    }

    #[test]
    fn time_comes_from_simulated_cycles() {
        let mut r = rig();
        assert_eq!(r.call(op::CLOCK, 0), Outcome::Return(250)); // 2.5 s in centiseconds
        assert_eq!(r.call(op::TIME, 0), Outcome::Return(2));
        assert_eq!(r.call(op::TICKFREQ, 0), Outcome::Return(100_000_000));
        r.call(op::ELAPSED, MEM + 0x900);
        let mut t = [0u8; 8];
        r.bus.peek(MEM + 0x900, &mut t).unwrap();
        assert_eq!(u64::from_le_bytes(t), 250_000_000);
    }

    #[test]
    fn command_line_and_bad_pointers() {
        let mut r = rig();
        let b = r.block(MEM + 0x400, &[MEM + 0x800, 64]);
        assert_eq!(r.call(op::GET_CMDLINE, b), Outcome::Return(0));
        let mut got = [0u8; 11];
        r.bus.peek(MEM + 0x800, &mut got).unwrap();
        assert_eq!(&got, b"fw.elf a b\0");
        let [_, len] = words::<_, 2>(&r.bus, b).unwrap();
        assert_eq!(len, 10);
        assert_eq!(r.call(op::WRITE0, 0x1000), Outcome::Return(FAIL));
        assert_eq!(r.call(op::ERRNO, 0), Outcome::Return(errno::EFAULT));
        assert_eq!(r.call(0x99, 0), Outcome::Return(FAIL));
    }
}
