//! The write buffer: posted writes (dirty lines evicted or cleaned, write-through stores,
//! uncached stores) wait here for the bus, so the CPU stalls on a write only when the
//! buffer is full.

use std::collections::VecDeque;

pub struct WriteBuffer {
    depth: usize,
    /// Completion cycles of the writes still in flight, oldest first.
    in_flight: VecDeque<u64>,
}

impl WriteBuffer {
    pub fn new(depth: u32) -> Self {
        WriteBuffer {
            depth: depth as usize,
            in_flight: VecDeque::with_capacity(depth as usize),
        }
    }

    /// Makes room for a write posted at `now`; returns the cycle at which it can enter the
    /// buffer (later than `now` only when the buffer was full).
    pub fn reserve(&mut self, now: u64) -> u64 {
        while self.in_flight.front().is_some_and(|&done| done <= now) {
            self.in_flight.pop_front();
        }
        if self.in_flight.len() < self.depth {
            return now;
        }
        self.in_flight.pop_front().expect("buffer is full, so not empty")
    }

    /// Records a write that completes at `done`.
    pub fn push(&mut self, done: u64) {
        self.in_flight.push_back(done);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stalls_only_when_full() {
        let mut wb = WriteBuffer::new(2);
        assert_eq!(wb.reserve(0), 0);
        wb.push(50);
        assert_eq!(wb.reserve(1), 1);
        wb.push(60);
        assert_eq!(wb.reserve(2), 50, "full: wait for the oldest write");
        wb.push(70);
        assert_eq!(wb.reserve(65), 65, "both older writes have drained");
    }
}
