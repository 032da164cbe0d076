//! `--trace FILE`: one line per retired instruction (PC, raw word, disassembly, register
//! written) and one per trap.
//!
//! ```text
//! 80000000  02000117  auipc sp, 0x2000                sp=0x82000000
//! 80000004  4505      addi a0, zero, 1                a0=0x00000001
//! 80000274  ffffffff  trap: illegal instruction (mcause 2, instruction 0xffffffff)
//! ```

use mxpsim_models::cpu::decode::{disassemble, length, REG_NAMES};
use mxpsim_models::cpu::{Interrupt, Observer, Trap};
use std::io::{self, Write};

pub struct Tracer<W: Write> {
    out: W,
    /// The first write error; reported once the run is over. After it nothing more is
    /// formatted: the rest of the trace is lost anyway, and formatting was most of a traced
    /// run's time (a trace onto a full disk went on six times as long as the run).
    error: Option<io::Error>,
}

impl<W: Write> Tracer<W> {
    pub fn new(out: W) -> Self {
        Tracer { out, error: None }
    }

    /// Flushes the trace; returns the first error seen while writing it.
    pub fn finish(mut self) -> io::Result<()> {
        match self.error.take() {
            Some(e) => Err(e),
            None => self.out.flush(),
        }
    }

    /// Writes one line made by `write`, unless a write has failed before (then nothing is
    /// formatted); keeps the first error.
    fn line(&mut self, write: impl FnOnce(&mut W) -> io::Result<()>) {
        if self.error.is_none() {
            self.error = write(&mut self.out).err();
        }
    }
}

impl<W: Write> Observer for Tracer<W> {
    fn retired(&mut self, pc: u32, raw: u32, rd_write: Option<(u8, u32)>) {
        self.line(|out| {
            let text = disassemble(raw);
            // A compressed instruction's word is 4 hex digits, as objdump prints it.
            let word = if length(raw) == 2 { format!("{raw:04x}    ") } else { format!("{raw:08x}") };
            match rd_write {
                Some((rd, value)) => {
                    writeln!(out, "{pc:08x}  {word}  {text:<32}{}=0x{value:08x}", REG_NAMES[rd as usize])
                }
                None => writeln!(out, "{pc:08x}  {word}  {text}"),
            }
        });
    }

    fn interrupted(&mut self, pc: u32, interrupt: Interrupt) {
        self.line(|out| {
            writeln!(out, "{pc:08x}  interrupt: {} (mcause {:#x})", interrupt.describe(), interrupt.mcause())
        });
    }

    fn trapped(&mut self, pc: u32, trap: Trap) {
        self.line(|out| writeln!(out, "{pc:08x}  trap: {trap}"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mxpsim_models::cpu::Cause;

    #[test]
    fn formats_retired_instructions_and_traps() {
        let mut t = Tracer::new(Vec::new());
        t.retired(0x8000_0000, 0x0200_0117, Some((2, 0x8200_0000)));
        t.retired(0x8000_0004, 0xfeb1_2e23, None);
        t.retired(0x8000_0008, 0x4505, Some((10, 1)));
        t.trapped(0x8000_000a, Trap::new(Cause::IllegalInsn, 0xffff_ffff));
        let text = String::from_utf8(t.out.clone()).unwrap();
        assert_eq!(
            text,
            "80000000  02000117  auipc sp, 0x2000                sp=0x82000000\n\
             80000004  feb12e23  sw a1, -4(sp)\n\
             80000008  4505      addi a0, zero, 1                a0=0x00000001\n\
             8000000a  trap: illegal instruction (mcause 2, instruction 0xffffffff)\n"
        );
        assert!(t.finish().is_ok());
    }

    /// A disk that fills after `room` bytes; counts the writes tried.
    struct FillingDisk {
        room: usize,
        tries: usize,
    }

    impl Write for FillingDisk {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.tries += 1;
            if buf.len() > self.room {
                return Err(io::Error::from(io::ErrorKind::StorageFull));
            }
            self.room -= buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn nothing_is_formatted_after_a_write_fails() {
        let mut t = Tracer::new(FillingDisk { room: 100, tries: 0 });
        let retire = |t: &mut Tracer<FillingDisk>, n: u32| {
            for i in 0..n {
                t.retired(0x8000_0000 + 4 * i, 0x0200_0117, Some((2, 0x8200_0000)));
            }
        };
        // (Two lines fill the disk; the writer sees each line in a few pieces.)
        retire(&mut t, 3);
        let tries = t.out.tries;
        retire(&mut t, 1000);
        t.trapped(0x8000_1000, Trap::new(Cause::IllegalInsn, 0));
        assert_eq!(t.out.tries, tries, "writes tried after the disk was full");
        assert_eq!(t.finish().unwrap_err().kind(), io::ErrorKind::StorageFull);
    }
}
