//! An ns16550a UART (QEMU `virt`'s console at 0x1000_0000), as firmware drivers use it:
//! bytes written to THR go to the host's console at once, the transmitter is always ready
//! (LSR.THRE and TEMT set), and received bytes come from the host's input (mxpsim's standard
//! input), one at a time as the firmware reads RBR; LSR.DR says whether one is waiting, and
//! stays clear once the input has ended. The divisor latch, FIFO control, line and modem
//! control and scratch registers hold what is written and change nothing (there is no line
//! to time). There are no interrupts (no PLIC): IER holds its value, IIR reads "none pending".
//!
//! Registers are bytes at offsets 0-7 (`reg-shift` 0, as in QEMU's device tree).

use serde::{Deserialize, Serialize};

pub const SIZE: u32 = 0x100;

const RBR_THR_DLL: u32 = 0;
const IER_DLM: u32 = 1;
const IIR_FCR: u32 = 2;
const LCR: u32 = 3;
const MCR: u32 = 4;
const LSR: u32 = 5;
const MSR: u32 = 6;
const SCR: u32 = 7;

const LCR_DLAB: u8 = 0x80;
const LSR_DR: u8 = 0x01;
const LSR_THRE: u8 = 0x20;
const LSR_TEMT: u8 = 0x40;
/// IIR: no interrupt pending; FIFOs enabled (bits 7:6) once FCR bit 0 was set.
const IIR_NONE: u8 = 0x01;
const IIR_FIFOS: u8 = 0xc0;
/// MSR: DCD, DSR and CTS asserted (a host is always connected).
const MSR_CONNECTED: u8 = 0xb0;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct UartConfig {
    pub base: u32,
}

impl Default for UartConfig {
    fn default() -> Self {
        UartConfig { base: 0x1000_0000 }
    }
}

/// Where received bytes come from (the host's standard input, in the simulator).
pub trait UartInput {
    /// The next byte, or `None` once the input has ended (asked again, still `None`).
    fn next_byte(&mut self) -> Option<u8>;
}

/// No input: the line is idle forever.
impl UartInput for () {
    fn next_byte(&mut self) -> Option<u8> {
        None
    }
}

pub struct Uart {
    input: Box<dyn UartInput>,
    /// The byte read from the input and not yet taken from RBR.
    received: Option<u8>,
    ended: bool,
    ier: u8,
    fcr: u8,
    lcr: u8,
    mcr: u8,
    scr: u8,
    divisor: u16,
}

impl Uart {
    pub fn new(input: Box<dyn UartInput>) -> Self {
        Uart { input, received: None, ended: false, ier: 0, fcr: 0, lcr: 0, mcr: 0, scr: 0, divisor: 0 }
    }

    /// Takes input from `input` from now on.
    pub fn connect(&mut self, input: Box<dyn UartInput>) {
        (self.input, self.ended) = (input, false);
    }

    /// The waiting byte, reading one from the input if none is.
    fn waiting(&mut self) -> Option<u8> {
        if self.received.is_none() && !self.ended {
            self.received = self.input.next_byte();
            self.ended = self.received.is_none();
        }
        self.received
    }

    /// A byte read at `offset`. Reading RBR takes the waiting byte; reading LSR may wait for
    /// the host's input (a blocking read of standard input: the simulated time does not move).
    pub fn read(&mut self, offset: u32) -> u8 {
        let dlab = self.lcr & LCR_DLAB != 0;
        match offset {
            RBR_THR_DLL if dlab => self.divisor as u8,
            RBR_THR_DLL => {
                let byte = self.waiting().unwrap_or(0);
                self.received = None;
                byte
            }
            IER_DLM if dlab => (self.divisor >> 8) as u8,
            IER_DLM => self.ier,
            IIR_FCR => IIR_NONE | if self.fcr & 1 != 0 { IIR_FIFOS } else { 0 },
            LCR => self.lcr,
            MCR => self.mcr,
            LSR => LSR_THRE | LSR_TEMT | if self.waiting().is_some() { LSR_DR } else { 0 },
            MSR => MSR_CONNECTED,
            SCR => self.scr,
            _ => 0,
        }
    }

    /// A byte written at `offset`; returns the byte to transmit, if it was one.
    pub fn write(&mut self, offset: u32, value: u8) -> Option<u8> {
        let dlab = self.lcr & LCR_DLAB != 0;
        match offset {
            RBR_THR_DLL if dlab => self.divisor = (self.divisor & 0xff00) | value as u16,
            RBR_THR_DLL => return Some(value),
            IER_DLM if dlab => self.divisor = (self.divisor & 0x00ff) | (value as u16) << 8,
            IER_DLM => self.ier = value & 0x0f,
            IIR_FCR => self.fcr = value,
            LCR => self.lcr = value,
            MCR => self.mcr = value & 0x1f,
            SCR => self.scr = value,
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Bytes(std::vec::IntoIter<u8>);
    impl UartInput for Bytes {
        fn next_byte(&mut self) -> Option<u8> {
            self.0.next()
        }
    }

    #[test]
    fn transmits_every_byte_and_is_always_ready() {
        let mut u = Uart::new(Box::new(()));
        assert_eq!(u.write(RBR_THR_DLL, b'x'), Some(b'x'));
        assert_eq!(u.read(LSR), LSR_THRE | LSR_TEMT, "ready, nothing received (no input)");
    }

    #[test]
    fn receives_the_host_input_then_stays_empty() {
        let mut u = Uart::new(Box::new(Bytes(b"ok".to_vec().into_iter())));
        assert_eq!(u.read(LSR) & LSR_DR, LSR_DR);
        assert_eq!((u.read(RBR_THR_DLL), u.read(RBR_THR_DLL)), (b'o', b'k'));
        assert_eq!(u.read(LSR) & LSR_DR, 0);
        assert_eq!(u.read(RBR_THR_DLL), 0);
    }

    #[test]
    fn the_divisor_latch_hides_thr_and_ier() {
        let mut u = Uart::new(Box::new(()));
        u.write(LCR, LCR_DLAB | 3);
        assert_eq!(u.write(RBR_THR_DLL, 0x1b), None, "a divisor byte is not transmitted");
        u.write(IER_DLM, 0x00);
        assert_eq!((u.read(RBR_THR_DLL), u.read(IER_DLM)), (0x1b, 0));
        u.write(LCR, 3);
        u.write(IER_DLM, 0x01);
        assert_eq!((u.read(IER_DLM), u.read(LCR)), (1, 3));
    }
}
