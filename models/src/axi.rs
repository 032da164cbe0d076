//! The AXI interconnect's timing: every transaction between a master and DRAM takes
//! simulated time, and masters share the data channel.
//!
//! The model: a transaction is split into bursts of at most `max_burst` beats of
//! `data_width` bytes. A burst waits for the data channel, then takes `latency` cycles
//! (address phase and memory access, pipelined with other bursts) plus one cycle per beat;
//! the data channel is busy for the beats only. Masters are granted in the order they
//! request. With one in-order CPU as the only requester, two masters never wait at the same
//! moment; round-robin arbitration between simultaneous waiters belongs with the DMA engine,
//! the first master that runs concurrently with the CPU.

use serde::{Deserialize, Serialize};
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AxiConfig {
    /// Cycles from a read burst's request to its first data beat.
    pub read_latency: u32,
    /// Cycles from a write burst's request to its acceptance by memory.
    pub write_latency: u32,
    /// Bytes per beat (a power of two, 1 to 64).
    pub data_width: u32,
    /// Beats per burst at most (1 to 256, as AXI4 allows).
    pub max_burst: u32,
}

impl Default for AxiConfig {
    fn default() -> Self {
        AxiConfig {
            read_latency: 20,
            write_latency: 20,
            data_width: 4,
            max_burst: 16,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidAxi {
    pub field: &'static str,
    pub reason: String,
}

impl fmt::Display for InvalidAxi {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "axi.{}: {}", self.field, self.reason)
    }
}

impl AxiConfig {
    pub fn validate(&self) -> Result<(), InvalidAxi> {
        if !self.data_width.is_power_of_two() || self.data_width > 64 {
            return Err(InvalidAxi {
                field: "data_width",
                reason: format!("{} is not a power of two from 1 to 64", self.data_width),
            });
        }
        if !(1..=256).contains(&self.max_burst) {
            return Err(InvalidAxi {
                field: "max_burst",
                reason: format!("{} is not from 1 to 256 beats", self.max_burst),
            });
        }
        Ok(())
    }
}

/// Who issues a transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Master {
    /// The data cache's port: line fills, write-backs, write-through stores.
    Cache = 0,
    /// CPU accesses through the uncached alias.
    Uncached = 1,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

pub struct Axi {
    cfg: AxiConfig,
    /// The first cycle at which the data channel is free.
    free_at: u64,
}

impl Axi {
    pub fn new(cfg: AxiConfig) -> Self {
        Axi { cfg, free_at: 0 }
    }

    /// A transaction of `bytes` bytes requested at cycle `now`; returns the cycle at which it
    /// completes (read data delivered, or write accepted).
    pub fn transfer(&mut self, _master: Master, dir: Dir, bytes: u32, now: u64) -> u64 {
        let latency = match dir {
            Dir::Read => self.cfg.read_latency,
            Dir::Write => self.cfg.write_latency,
        } as u64;
        let beats = bytes.div_ceil(self.cfg.data_width).max(1);
        let mut done = now;
        let mut left = beats;
        let mut at = now;
        while left > 0 {
            let burst = left.min(self.cfg.max_burst) as u64;
            let start = at.max(self.free_at);
            self.free_at = start + burst;
            done = start + latency + burst;
            at = start;
            left -= burst as u32;
        }
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_read_takes_latency_plus_beats() {
        let mut axi = Axi::new(AxiConfig {
            read_latency: 10,
            write_latency: 5,
            data_width: 4,
            max_burst: 16,
        });
        assert_eq!(axi.transfer(Master::Cache, Dir::Read, 32, 100), 100 + 10 + 8);
    }

    #[test]
    fn long_transfers_split_into_bursts() {
        let mut axi = Axi::new(AxiConfig {
            read_latency: 10,
            write_latency: 5,
            data_width: 4,
            max_burst: 4,
        });
        // 64 bytes = 16 beats = 4 bursts of 4; data channel busy 4 cycles per burst.
        assert_eq!(axi.transfer(Master::Cache, Dir::Read, 64, 0), 12 + 10 + 4);
    }

    #[test]
    fn masters_wait_for_the_data_channel() {
        let mut axi = Axi::new(AxiConfig {
            read_latency: 10,
            write_latency: 5,
            data_width: 4,
            max_burst: 16,
        });
        assert_eq!(axi.transfer(Master::Cache, Dir::Write, 64, 0), 5 + 16);
        // The uncached read at cycle 2 waits until the write's beats are through (cycle 16).
        assert_eq!(axi.transfer(Master::Uncached, Dir::Read, 4, 2), 16 + 10 + 1);
        assert_eq!(axi.transfer(Master::Uncached, Dir::Read, 4, 100), 100 + 10 + 1);
    }

    #[test]
    fn invalid_configuration_names_the_field() {
        let bad = AxiConfig {
            data_width: 3,
            ..AxiConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "data_width");
        let bad = AxiConfig {
            max_burst: 0,
            ..AxiConfig::default()
        };
        assert_eq!(bad.validate().unwrap_err().field, "max_burst");
    }
}
