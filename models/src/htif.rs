//! The HTIF `tohost` convention of riscv-tests and Spike: what a value the firmware stored in
//! the 8-byte `tohost` word asks of the host.
//!
//! `tohost` is `device << 56 | command << 48 | payload`. Device 0, command 0 with payload
//! bit 0 set ends the test (`1`: passed; `N << 1 | 1`: test N failed). Device 1 (Spike's
//! `bcd` console), command 1 writes the payload's low byte to the console; the host then
//! clears `tohost` and answers in `fromhost` (`device << 56 | command << 48 | 0x100 | byte`,
//! as Spike does), so firmware that waits for `tohost` to be zero again can write the next
//! byte. Anything else non-zero (another device or command, or Spike's syscall proxy: device
//! 0 with an even payload) is not served: it ends the run as a failing test.
//!
//! On RV32 the word takes two 32-bit stores, low half first (as riscv-tests and compilers
//! write it), and the low half alone of a console write can look like a verdict (an odd
//! byte): the host acts at the store that reaches the high half, or — for firmware that only
//! ever writes the low half — at the next store to it (riscv-tests re-write it in a loop).

/// What the host does after a store to `tohost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Request {
    /// Nothing (yet): zero, or half of a value still being written.
    Wait,
    /// Write this byte to the console, clear `tohost`, answer in `fromhost` with `reply`.
    Putchar { byte: u8, reply: u64 },
    /// End the run with this `tohost` value (its low 32 bits: 1 = passed).
    Exit(u32),
}

const CONSOLE: u64 = 1;
const WRITE: u64 = 1;

/// Decodes `value`, the whole `tohost` word once written.
pub fn request(value: u64) -> Request {
    let (device, command) = (value >> 56, (value >> 48) & 0xff);
    let low = value as u32;
    match value {
        0 => Request::Wait,
        _ if device == CONSOLE && command == WRITE => {
            let byte = value as u8;
            Request::Putchar { byte, reply: CONSOLE << 56 | WRITE << 48 | 0x100 | u64::from(byte) }
        }
        // riscv-tests' verdict: the low half, odd, the high half zero.
        _ if value >> 32 == 0 && low & 1 == 1 => Request::Exit(low),
        // Not served: a failing test with the value's low half (never 1, which passes).
        _ => Request::Exit(if low == 1 { 0 } else { low }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_end_the_run() {
        assert_eq!(request(1), Request::Exit(1));
        assert_eq!(request(3 << 1 | 1), Request::Exit(7));
        assert_eq!(request(0), Request::Wait);
    }

    #[test]
    fn console_writes_print_and_answer() {
        let h = 1u64 << 56 | 1 << 48 | u64::from(b'H');
        assert_eq!(request(h), Request::Putchar { byte: b'H', reply: 1 << 56 | 1 << 48 | 0x148 });
        let a = 1u64 << 56 | 1 << 48 | u64::from(b'a');
        assert_eq!(request(a), Request::Putchar { byte: b'a', reply: 1 << 56 | 1 << 48 | 0x161 });
    }

    #[test]
    fn anything_else_fails() {
        // The syscall proxy (an even pointer, device 0) and console reads are not served.
        assert_eq!(request(0x8000_1000), Request::Exit(0x8000_1000));
        assert_eq!(request(1u64 << 56 | 0x41), Request::Exit(0x41));
        assert_eq!(request(2u64 << 56 | 1), Request::Exit(0));
    }
}
