//! The CLINT (core-local interruptor) at SiFive's and QEMU `virt`'s layout, for one hart:
//! `msip` (+0x0, bit 0: the machine software interrupt), `mtimecmp` (+0x4000, 64-bit) and
//! `mtime` (+0xBFF8, 64-bit).
//!
//! `mtime` is derived from the simulated clock: `cycles × timebase_hz / clock_hz` (plus what a
//! write to `mtime` moved it by), so it advances only with simulated time and every interrupt
//! lands at the same instruction in every run. The timer interrupt is pending while
//! `mtime ≥ mtimecmp`. Both registers reset to 0, as in QEMU (so the timer interrupt is
//! pending until the firmware sets `mtimecmp`).

use super::{read_part, write_part};
use crate::bus::Width;
use serde::{Deserialize, Serialize};

/// The size of the CLINT's region.
pub const SIZE: u32 = 0x1_0000;
pub const MSIP: u32 = 0x0;
pub const MTIMECMP: u32 = 0x4000;
pub const MTIME: u32 = 0xbff8;

/// `mip`/`mie` bit of the machine software interrupt.
pub const MSI: u32 = 1 << 3;
/// `mip`/`mie` bit of the machine timer interrupt.
pub const MTI: u32 = 1 << 7;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClintConfig {
    pub base: u32,
    /// `mtime`'s frequency (QEMU `virt`: 10 MHz).
    pub timebase_hz: u32,
}

impl Default for ClintConfig {
    fn default() -> Self {
        ClintConfig { base: 0x0200_0000, timebase_hz: 10_000_000 }
    }
}

#[derive(Clone, Debug)]
pub struct Clint {
    clock_hz: u64,
    timebase_hz: u64,
    msip: bool,
    mtimecmp: u64,
    /// What writes to `mtime` added to the clock-derived count (wrapping).
    mtime_offset: u64,
}

impl Clint {
    pub fn new(config: &ClintConfig, clock_hz: u32) -> Self {
        Clint {
            clock_hz: clock_hz as u64,
            timebase_hz: config.timebase_hz as u64,
            msip: false,
            mtimecmp: 0,
            mtime_offset: 0,
        }
    }

    /// `mtime` at cycle `now`.
    pub fn mtime(&self, now: u64) -> u64 {
        self.ticks(now).wrapping_add(self.mtime_offset)
    }

    fn ticks(&self, now: u64) -> u64 {
        (now as u128 * self.timebase_hz as u128 / self.clock_hz as u128) as u64
    }

    /// The interrupt lines (`mip` bits) at cycle `now`.
    pub fn lines(&self, now: u64) -> u32 {
        let timer = if self.mtime(now) >= self.mtimecmp { MTI } else { 0 };
        let software = if self.msip { MSI } else { 0 };
        timer | software
    }

    /// The first cycle after `now` at which the timer line rises by itself (`u64::MAX`:
    /// it is already up, or `mtime` cannot reach `mtimecmp` before it wraps).
    pub fn next_rise(&self, now: u64) -> u64 {
        if self.mtime(now) >= self.mtimecmp {
            return u64::MAX;
        }
        // The first tick count t with t + offset = mtimecmp (no wrap: mtime < mtimecmp now),
        // then the first cycle whose tick count reaches it: ceil(t × clock / timebase).
        let ticks = self.mtimecmp.wrapping_sub(self.mtime_offset) as u128;
        let cycle = (ticks * self.clock_hz as u128).div_ceil(self.timebase_hz as u128);
        u64::try_from(cycle).unwrap_or(u64::MAX).max(now + 1)
    }

    pub fn read(&self, offset: u32, width: Width, now: u64) -> u32 {
        let word = |v: u64, high: bool| if high { (v >> 32) as u32 } else { v as u32 };
        let value = match offset & !3 {
            MSIP => self.msip as u32,
            o @ (MTIMECMP | 0x4004) => word(self.mtimecmp, o == 0x4004),
            o @ (MTIME | 0xbffc) => word(self.mtime(now), o == 0xbffc),
            _ => 0,
        };
        read_part(value, offset, width)
    }

    pub fn write(&mut self, offset: u32, width: Width, value: u32, now: u64) {
        let set = |v: u64, high: bool| {
            let half = if high { (v >> 32) as u32 } else { v as u32 };
            let new = write_part(half, offset, width, value) as u64;
            if high {
                (v & 0xffff_ffff) | new << 32
            } else {
                (v & !0xffff_ffff) | new
            }
        };
        match offset & !3 {
            MSIP => self.msip = write_part(self.msip as u32, offset, width, value) & 1 != 0,
            o @ (MTIMECMP | 0x4004) => self.mtimecmp = set(self.mtimecmp, o == 0x4004),
            o @ (MTIME | 0xbffc) => {
                let mtime = set(self.mtime(now), o == 0xbffc);
                self.mtime_offset = mtime.wrapping_sub(self.ticks(now));
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 100 MHz core, 10 MHz timebase: one tick every 10 cycles.
    fn clint() -> Clint {
        Clint::new(&ClintConfig::default(), 100_000_000)
    }

    #[test]
    fn mtime_follows_simulated_cycles_at_the_timebase() {
        let c = clint();
        assert_eq!((c.mtime(0), c.mtime(9), c.mtime(10), c.mtime(1_000_000_000)), (0, 0, 1, 100_000_000));
        assert_eq!(c.read(MTIME, Width::Word, 25), 2);
        assert_eq!(c.read(0xbffc, Width::Word, 10 << 32), 1, "the high half: 2^32 ticks");
    }

    #[test]
    fn the_timer_line_rises_at_the_first_cycle_mtime_reaches_mtimecmp() {
        let mut c = clint();
        assert_eq!(c.lines(0), MTI, "mtimecmp resets to 0");
        c.write(MTIMECMP, Width::Word, 5, 0);
        c.write(0x4004, Width::Word, 0, 0);
        assert_eq!((c.lines(49), c.lines(50)), (0, MTI));
        assert_eq!(c.next_rise(0), 50);
        assert_eq!(c.next_rise(50), u64::MAX, "already up");
        c.write(0x4004, Width::Word, u32::MAX, 0);
        c.write(MTIMECMP, Width::Word, u32::MAX, 0);
        assert_eq!(c.next_rise(0), u64::MAX, "never, in 2^64 ticks");
    }

    #[test]
    fn writing_mtime_moves_the_count_and_msip_raises_the_software_line() {
        let mut c = clint();
        c.write(MTIME, Width::Word, 1000, 100); // at tick 10
        assert_eq!((c.mtime(100), c.mtime(110)), (1000, 1001));
        c.write(MTIMECMP, Width::Word, 1005, 100);
        c.write(0x4004, Width::Word, 0, 100);
        assert_eq!(c.next_rise(100), 150);
        c.write(MSIP, Width::Byte, 1, 0);
        assert_eq!(c.lines(100) & MSI, MSI);
        c.write(MSIP, Width::Word, 2, 0);
        assert_eq!(c.lines(100) & MSI, 0, "only bit 0");
    }
}
