//! The write buffer: posted writes (dirty lines evicted or cleaned, write-through stores,
//! uncached stores) wait here for the bus, so the CPU stalls on a write only when the
//! buffer is full.

use crate::axi::{Axi, Master, Txn};
use std::collections::VecDeque;

pub struct WriteBuffer {
    depth: usize,
    /// The posted writes not known to have completed, oldest first.
    in_flight: VecDeque<Txn>,
}

impl WriteBuffer {
    pub fn new(depth: u32) -> Self {
        WriteBuffer { depth: depth as usize, in_flight: VecDeque::with_capacity(depth as usize) }
    }

    /// Posts a write of `bytes` from `master` at `now`; returns the stall: the cycles until
    /// the buffer had room (non-zero only when it was full). Inlined into the memory
    /// system's one place that posts (a miss's write-back, a write-through or uncached store).
    #[inline(always)]
    pub fn post(&mut self, axi: &mut Axi, master: Master, bytes: u32, now: u64) -> u64 {
        axi.advance(now);
        while self.in_flight.front().is_some_and(|&txn| axi.collect_by(txn, now)) {
            self.in_flight.pop_front();
        }
        let mut at = now;
        if self.in_flight.len() == self.depth {
            let oldest = self.in_flight.pop_front().expect("a full buffer is not empty");
            at = axi.wait(oldest).max(now);
        }
        self.in_flight.push_back(axi.post(master, bytes.into(), at));
        at - now
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::axi::AxiConfig;

    #[test]
    fn stalls_only_when_full() {
        let mut axi = Axi::new(AxiConfig { read_latency: 10, write_latency: 10, data_width: 4, max_burst: 16 });
        let mut wb = WriteBuffer::new(2);
        assert_eq!(wb.post(&mut axi, Master::Cache, 4, 0), 0); // granted at 0, done 11
        assert_eq!(wb.post(&mut axi, Master::Cache, 4, 1), 0); // granted at 1, done 12
        assert_eq!(wb.post(&mut axi, Master::Cache, 4, 2), 9, "full: wait for the oldest (done at 11)");
        assert_eq!(wb.post(&mut axi, Master::Cache, 4, 40), 0, "everything has drained");
    }
}
