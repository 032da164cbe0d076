//! What the simulated UART receives: mxpsim's standard input, byte by byte, when it is a file
//! or a pipe. Reads block, so a run given the same input is the same run. An interactive
//! terminal gives no input (the firmware sees an idle line): waiting for keystrokes would
//! make the run depend on when they come.

use mxpsim_models::devices::uart::UartInput;
use std::io::{IsTerminal, Read};

pub struct StdinInput {
    stdin: std::io::Stdin,
}

impl StdinInput {
    /// The standard input, or `None` when it is a terminal.
    pub fn open() -> Option<StdinInput> {
        let stdin = std::io::stdin();
        (!stdin.is_terminal()).then_some(StdinInput { stdin })
    }
}

impl UartInput for StdinInput {
    fn next_byte(&mut self) -> Option<u8> {
        let mut byte = [0];
        loop {
            match self.stdin.lock().read(&mut byte) {
                Ok(0) => return None,
                Ok(_) => return Some(byte[0]),
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                // An unreadable input is an ended one: the firmware sees an idle line.
                Err(_) => return None,
            }
        }
    }
}
