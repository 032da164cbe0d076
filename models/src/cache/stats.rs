//! Cache statistics, named as Spike's cache simulator names them where it has a name.

use mxpsim_detector::event::CacheOp;
use serde::Serialize;
use std::fmt;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct CacheStats {
    /// Loads that looked up the cache.
    pub read_accesses: u64,
    /// Stores that looked up the cache.
    pub write_accesses: u64,
    pub read_misses: u64,
    pub write_misses: u64,
    /// Lines (or dirty byte sets) written back to memory: evictions, cleans, flushes.
    pub writebacks: u64,
    /// Valid lines evicted to make room.
    pub evictions: u64,
    /// Clean operations (`cbo.clean`, or a whole-cache clean counted once).
    pub cleans: u64,
    /// Flush operations (`cbo.flush`, or a whole-cache flush counted once).
    pub flushes: u64,
    /// Invalidate operations (`cbo.inval`, or a whole-cache invalidate counted once).
    pub invals: u64,
    /// Bytes read from memory (line fills).
    pub bytes_read: u64,
    /// Bytes written to memory (write-backs, write-through stores).
    pub bytes_written: u64,
}

impl CacheStats {
    pub(super) fn count_maintenance(&mut self, op: CacheOp) {
        match op {
            CacheOp::Clean => self.cleans += 1,
            CacheOp::Flush => self.flushes += 1,
            CacheOp::Inval => self.invals += 1,
        }
    }

    pub fn miss_rate(&self) -> f64 {
        let accesses = self.read_accesses + self.write_accesses;
        if accesses == 0 {
            0.0
        } else {
            (self.read_misses + self.write_misses) as f64 / accesses as f64
        }
    }
}

impl fmt::Display for CacheStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let rows: [(&str, u64); 11] = [
            ("D$ Bytes Read", self.bytes_read),
            ("D$ Bytes Written", self.bytes_written),
            ("D$ Read Accesses", self.read_accesses),
            ("D$ Write Accesses", self.write_accesses),
            ("D$ Read Misses", self.read_misses),
            ("D$ Write Misses", self.write_misses),
            ("D$ Writebacks", self.writebacks),
            ("D$ Evictions", self.evictions),
            ("D$ Cleans", self.cleans),
            ("D$ Flushes", self.flushes),
            ("D$ Invalidates", self.invals),
        ];
        for (name, value) in rows {
            writeln!(f, "{name:<20} {value}")?;
        }
        write!(f, "{:<20} {:.3}%", "D$ Miss Rate", 100.0 * self.miss_rate())
    }
}
