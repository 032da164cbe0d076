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
//!
//! The memory system stops the run after each store to the word
//! ([`MemorySystem::watch_stores`](mxpsim_models::memory_system::MemorySystem::watch_stores));
//! [`Htif::stored`] then serves it, as the host.

use mxpsim_models::bus::Bus;

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

/// The host's side of the firmware's `tohost`/`fromhost` words.
#[derive(Clone, Copy, Debug)]
pub struct Htif {
    tohost: u32,
    fromhost: Option<u32>,
    /// A store wrote the low half only: the host has not looked at the word yet.
    low_pending: bool,
}

/// What a store to `tohost` made the host do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Print this console byte.
    Console(u8),
    /// End the run with this `tohost` value.
    Exit(u32),
}

impl Htif {
    /// The 8-byte words at `tohost` (and `fromhost`, if there is one).
    pub fn new(tohost: u32, fromhost: Option<u32>) -> Self {
        Htif { tohost, fromhost, low_pending: false }
    }

    /// The bytes to watch stores to.
    pub fn tohost(&self) -> (u32, u32) {
        (self.tohost, 8)
    }

    /// A store of `len` bytes at `addr` touched `tohost`: once the word is written (the store
    /// reaches its high half, or a store to the low half finds an earlier one undecided),
    /// serves what it asks ([`request`]): a console byte is taken (`tohost` cleared, Spike's
    /// reply in `fromhost`, written as a debugger would: no events, no timing).
    pub fn stored<B: Bus>(&mut self, bus: &mut B, addr: u32, len: u32) -> Option<Action> {
        let reaches_high = u64::from(addr) + u64::from(len) > u64::from(self.tohost) + 4;
        if !reaches_high && !self.low_pending {
            self.low_pending = true;
            return None;
        }
        self.low_pending = false;
        let mut word = [0; 8];
        bus.peek(self.tohost, &mut word).ok()?;
        match request(u64::from_le_bytes(word)) {
            Request::Wait => None,
            Request::Putchar { byte, reply } => {
                let _ = bus.poke(self.tohost, &[0; 8]);
                if let Some(fromhost) = self.fromhost {
                    let _ = bus.poke(fromhost, &reply.to_le_bytes());
                }
                Some(Action::Console(byte))
            }
            Request::Exit(value) => Some(Action::Exit(value)),
        }
    }
}

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
    use mxpsim_models::axi::AxiConfig;
    use mxpsim_models::bus::{Access, Width};
    use mxpsim_models::cache::config::CacheConfig;
    use mxpsim_models::memory_system::{MemoryMap, MemorySystem};
    use mxpsim_models::mxp::config::MxpConfig;

    const BASE: u32 = 0x8000_0000;

    /// A memory system with a cache (the host must see through it) watching `tohost`.
    fn system(htif: &Htif) -> MemorySystem<()> {
        let map = MemoryMap { dram_size: 0x1_0000, ..MemoryMap::default() };
        let mut m = MemorySystem::new(
            map,
            &CacheConfig::default(),
            AxiConfig::default(),
            &MxpConfig::default(),
            100_000_000,
            (),
        );
        let (start, len) = htif.tohost();
        m.watch_stores(start, len);
        m
    }

    /// Stores `value` at `addr` and lets the host serve what it stopped for.
    fn store(m: &mut MemorySystem<()>, htif: &mut Htif, addr: u32, value: u32) -> Vec<Action> {
        m.store(Access { pc: 0, now: 0 }, addr, Width::Word, value).unwrap();
        let stores = m.take_watched_stores();
        stores.into_iter().filter_map(|(a, len)| htif.stored(m, a, len)).collect()
    }

    #[test]
    fn the_verdict_is_read_through_the_cache_once_both_halves_are_written() {
        let mut htif = Htif::new(BASE + 0x200, None);
        let mut m = system(&htif);
        assert_eq!(store(&mut m, &mut htif, BASE + 0x200, 7), [], "the high half is still to come");
        assert_eq!(store(&mut m, &mut htif, BASE + 0x204, 0), [Action::Exit(7)]);
        // Firmware that only ever writes the low half: the next store to it decides.
        let mut htif = Htif::new(BASE + 0x200, None);
        let mut m = system(&htif);
        assert_eq!(store(&mut m, &mut htif, BASE + 0x200, 1), []);
        assert_eq!(store(&mut m, &mut htif, BASE + 0x200, 1), [Action::Exit(1)]);
        assert_eq!(store(&mut m, &mut htif, BASE + 0x300, 1), [], "elsewhere: not watched");
    }

    #[test]
    fn console_writes_are_served() {
        let mut htif = Htif::new(BASE + 0x200, Some(BASE + 0x240));
        let mut m = system(&htif);
        // 'a' is odd: the low half alone must not read as a verdict.
        assert_eq!(store(&mut m, &mut htif, BASE + 0x200, u32::from(b'a')), []);
        assert_eq!(store(&mut m, &mut htif, BASE + 0x204, 0x0101_0000), [Action::Console(b'a')]);
        let mut words = [0; 8];
        m.peek(BASE + 0x200, &mut words).unwrap();
        assert_eq!(words, [0; 8], "tohost cleared for the next byte");
        m.peek(BASE + 0x240, &mut words).unwrap();
        assert_eq!(u64::from_le_bytes(words), 1 << 56 | 1 << 48 | 0x161, "Spike's reply in fromhost");
    }

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
