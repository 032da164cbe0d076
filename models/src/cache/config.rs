//! The data cache's parameters and their validation.

use crate::invalid::InvalidField;
use mxpsim_detector::event::WriteBack;
use serde::{Deserialize, Serialize};

/// Which way a miss evicts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Policy {
    /// Least recently used.
    Lru,
    /// First in, first out (order of allocation).
    Fifo,
    /// Tree pseudo-LRU (ways must be a power of two).
    Plru,
    /// Uniformly random, from a seeded generator (deterministic for a given seed).
    Random,
}

/// What a store does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WritePolicy {
    /// Write-back with write-allocate: stores dirty the line; memory sees the data only when
    /// the line is written back (eviction, clean, flush).
    Back,
    /// Write-through without write-allocate: every store goes to memory (through the write
    /// buffer) and updates the line only if it is present.
    Through,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CacheConfig {
    /// False: no cache model at all ("functional mode"): memory is coherent and every access
    /// is as fast as a hit. Events still describe cached accesses with `line` bytes per line.
    pub enabled: bool,
    /// Total capacity in bytes.
    pub size: u32,
    /// Line size in bytes: a power of two from 16 to 256.
    pub line: u32,
    /// Associativity: 1 is direct-mapped, size / line is fully associative.
    pub ways: u32,
    pub policy: Policy,
    pub write: WritePolicy,
    /// Write-back granularity: the whole line, or only its dirty bytes.
    pub writeback: WriteBack,
    /// Cycles of a hit (the first overlaps the instruction's own cycle).
    pub hit_latency: u32,
    /// Entries of the write buffer (evicted dirty lines, write-through stores): the CPU
    /// stalls only when it is full.
    pub write_buffer: u32,
    /// Seed of the random replacement policy.
    pub seed: u64,
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig {
            enabled: true,
            size: 16 << 10,
            line: 32,
            ways: 4,
            policy: Policy::Lru,
            write: WritePolicy::Back,
            writeback: WriteBack::Line,
            hit_latency: 1,
            write_buffer: 4,
            seed: 1,
        }
    }
}

/// An invalid value, naming the field.
/// The ranges of the configuration (checked by [`CacheConfig::validate`]): data caches
/// beyond them do not exist, and a bound keeps a mistyped value from costing hours or all
/// memory (a 512 MiB fully associative cache, a 2^32-entry write buffer).
pub const MAX_SIZE: u32 = 64 << 20;
pub const MAX_WAYS: u32 = 4096;
pub const MAX_LATENCY: u32 = 1000;
pub const MAX_WRITE_BUFFER: u32 = 1024;

impl CacheConfig {
    /// Number of sets.
    /// The number of sets (of a validated configuration).
    pub fn sets(&self) -> u32 {
        self.size / (self.line * self.ways)
    }

    pub fn validate(&self) -> Result<(), InvalidField> {
        let err = InvalidField::err;
        if !self.line.is_power_of_two() || !(16..=256).contains(&self.line) {
            return err("line", format!("{} is not a power of two from 16 to 256", self.line));
        }
        if self.size == 0 || self.size > MAX_SIZE {
            return err("size", format!("{} is not from 1 to {MAX_SIZE} bytes (64 MiB)", self.size));
        }
        if !(1..=MAX_WAYS).contains(&self.ways) {
            return err("ways", format!("{} is not from 1 to {MAX_WAYS}", self.ways));
        }
        // Both bounded above: line × ways fits easily in 32 bits.
        let way_bytes = self.line * self.ways;
        if !self.size.is_multiple_of(way_bytes) {
            return err("size", format!("{} is not a multiple of line × ways = {way_bytes}", self.size));
        }
        if !self.sets().is_power_of_two() {
            return err(
                "size",
                format!("{} gives {} sets; the number of sets must be a power of two", self.size, self.sets()),
            );
        }
        if self.policy == Policy::Plru && !self.ways.is_power_of_two() {
            return err("policy", format!("plru needs a power-of-two number of ways, not {}", self.ways));
        }
        if !(1..=MAX_LATENCY).contains(&self.hit_latency) {
            return err("hit_latency", format!("{} is not from 1 to {MAX_LATENCY} cycles", self.hit_latency));
        }
        if !(1..=MAX_WRITE_BUFFER).contains(&self.write_buffer) {
            return err("write_buffer", format!("{} is not from 1 to {MAX_WRITE_BUFFER} entries", self.write_buffer));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(f: impl FnOnce(&mut CacheConfig)) -> Result<(), InvalidField> {
        let mut c = CacheConfig::default();
        f(&mut c);
        c.validate()
    }

    #[test]
    fn values_out_of_range_are_refused_before_any_arithmetic() {
        // line × ways once overflowed 32 bits (a division by zero); the write buffer allocated
        // 2^32 entries.
        assert_eq!(with(|c| (c.line, c.ways) = (256, 16_777_216)).unwrap_err().field, "ways");
        assert_eq!(with(|c| c.write_buffer = u32::MAX).unwrap_err().field, "write_buffer");
        assert_eq!(with(|c| c.size = 512 << 20).unwrap_err().field, "size");
        assert_eq!(with(|c| c.hit_latency = 5000).unwrap_err().field, "hit_latency");
        assert!(with(|c| (c.size, c.line, c.ways) = (MAX_SIZE, 256, MAX_WAYS)).is_ok());
    }

    #[test]
    fn default_is_valid() {
        assert_eq!(CacheConfig::default().validate(), Ok(()));
        assert_eq!(CacheConfig::default().sets(), 128);
    }

    #[test]
    fn invalid_values_name_their_field() {
        assert_eq!(with(|c| c.line = 48).unwrap_err().field, "line");
        assert_eq!(with(|c| c.line = 8).unwrap_err().field, "line");
        assert_eq!(with(|c| c.line = 512).unwrap_err().field, "line");
        assert_eq!(with(|c| c.ways = 0).unwrap_err().field, "ways");
        assert_eq!(with(|c| c.size = 1000).unwrap_err().field, "size");
        assert_eq!(with(|c| c.ways = 3).unwrap_err().field, "size"); // 16K / (32·3) is fractional
        assert_eq!(with(|c| c.size = 3 * 32 * 4).unwrap_err().field, "size"); // 3 sets
        assert_eq!(
            with(|c| {
                c.ways = 3;
                c.size = 3 * 32 * 64;
                c.policy = Policy::Plru
            })
            .unwrap_err()
            .field,
            "policy"
        );
        assert!(with(|c| {
            c.ways = 3;
            c.size = 3 * 32 * 64
        })
        .is_ok());
        assert!(with(|c| {
            c.ways = 512;
            c.size = 512 * 32
        })
        .is_ok()); // fully associative
    }
}
