//! The AXI interconnect's timing: every transaction between a master and DRAM takes
//! simulated time, and the masters share one data path to memory.
//!
//! The model: a transaction is split into bursts of at most `max_burst` beats of
//! `data_width` bytes. A burst is granted the data path, then takes `latency` cycles (address
//! phase and memory access, pipelined with other bursts) plus one cycle per beat; the path is
//! busy for the beats only. Each master's bursts are served in order; between masters the
//! arbiter is round-robin, burst by burst, starting after the master granted last.
//!
//! Writes are *posted* ([`Axi::post`]): they queue and are granted as the bus frees up,
//! interleaved round-robin with other masters' bursts, while the poster goes on. Reads are
//! *blocking* ([`Axi::transfer`]): the caller learns when its data arrives. Time is driven
//! by the callers' `now`, which is not always in order between calls (the DMA issues a
//! transfer at its own start cycle; a write buffer that was full posts when it has room, after
//! the access that filled it); no transaction is granted before it is issued.

use crate::invalid::InvalidField;
use serde::{Deserialize, Serialize};
use std::collections::VecDeque;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AxiConfig {
    /// Cycles from a read burst's grant to its first data beat.
    pub read_latency: u32,
    /// Cycles from a write burst's grant to its acceptance by memory.
    pub write_latency: u32,
    /// Bytes per beat (a power of two, 1 to 64).
    pub data_width: u32,
    /// Beats per burst at most (1 to 256, as AXI4 allows).
    pub max_burst: u32,
}

impl Default for AxiConfig {
    fn default() -> Self {
        AxiConfig { read_latency: 20, write_latency: 20, data_width: 4, max_burst: 16 }
    }
}

impl AxiConfig {
    pub fn validate(&self) -> Result<(), InvalidField> {
        if !self.data_width.is_power_of_two() || self.data_width > 64 {
            return InvalidField::err("data_width", format!("{} is not a power of two from 1 to 64", self.data_width));
        }
        if !(1..=256).contains(&self.max_burst) {
            return InvalidField::err("max_burst", format!("{} is not from 1 to 256 beats", self.max_burst));
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
    /// The accelerator's DMA engine.
    Dma = 2,
}

const MASTERS: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Read,
    Write,
}

/// A transaction, as [`Axi::post`] names it.
pub type Txn = u64;

/// A transaction's bursts not yet granted: one entry however long the transaction (its
/// bursts are granted one by one, `max_burst` beats each, the last one shorter).
#[derive(Clone, Copy, Debug)]
struct Pending {
    txn: Txn,
    /// The earliest cycle its bursts may be granted (when it was issued).
    ready_at: u64,
    /// Beats not yet granted.
    beats: u64,
    latency: u64,
    /// A posted transaction (whose completion is kept until collected).
    posted: bool,
}

pub struct Axi {
    cfg: AxiConfig,
    /// log2 of `cfg.data_width` (validated a power of two): a transaction's beats by a shift,
    /// not by a 64-bit division, whose latency (tens of cycles) lay on every fill's and
    /// write-back's path.
    beat_shift: u32,
    /// The first cycle at which the data path is free after every burst granted so far.
    free_at: u64,
    /// Transactions waiting for grants, per master, in issue order.
    waiting: [VecDeque<Pending>; MASTERS],
    /// The masters whose queue in `waiting` is not empty, a bit each: an idle bus answers at
    /// once (most looks at it find it so: every post and transfer first grants what is due),
    /// and a bus that only one master waits for grants without arbitration.
    busy: u8,
    /// The master granted last (round-robin starts after it).
    last_granted: usize,
    next_txn: Txn,
    /// Completion cycles of posted transactions that are fully granted but not yet
    /// collected: a handful at most (the write buffer's depth).
    completed: Vec<(Txn, u64)>,
}

impl Axi {
    pub fn new(cfg: AxiConfig) -> Self {
        mxpsim_detector::invariant!(cfg.validate().is_ok());
        Axi {
            beat_shift: cfg.data_width.trailing_zeros(),
            cfg,
            free_at: 0,
            waiting: Default::default(),
            busy: 0,
            last_granted: MASTERS - 1,
            next_txn: 0,
            completed: Vec::new(),
        }
    }

    fn enqueue(&mut self, master: Master, dir: Dir, bytes: u64, now: u64, posted: bool) -> Txn {
        let txn = self.next_txn;
        self.next_txn += 1;
        let (latency, beats) = (self.latency(dir), self.beats(bytes));
        self.waiting[master as usize].push_back(Pending { txn, ready_at: now, beats, latency, posted });
        self.busy |= 1 << master as u8;
        txn
    }

    /// When the next grant happens and to which master, if any burst is waiting.
    #[inline(always)]
    fn next_grant(&self) -> Option<(u64, usize)> {
        mxpsim_detector::invariant!((0..MASTERS).all(|m| (self.busy >> m & 1 == 1) != self.waiting[m].is_empty()));
        match self.busy {
            0 => return None,
            // One master waiting (an uncached store loop, write-backs): its first transaction,
            // once it is issued and the data path is free; nothing to arbitrate.
            one if one.is_power_of_two() => {
                let master = one.trailing_zeros() as usize;
                let ready_at = self.waiting[master].front().expect("a busy master waits").ready_at;
                return Some((self.free_at.max(ready_at), master));
            }
            _ => {}
        }
        let earliest = self.waiting.iter().filter_map(|q| q.front()).map(|b| b.ready_at).min()?;
        let at = self.free_at.max(earliest);
        // Round-robin among the masters with a burst ready at that moment.
        let master = (1..=MASTERS)
            .map(|i| (self.last_granted + i) % MASTERS)
            .find(|&m| self.waiting[m].front().is_some_and(|b| b.ready_at <= at))
            .expect("the earliest burst is ready");
        Some((at, master))
    }

    /// Clears `master`'s bit of `busy` if its queue is empty.
    fn idle_if_empty(&mut self, master: usize) {
        if self.waiting[master].is_empty() {
            self.busy &= !(1 << master);
        }
    }

    /// Grants the next burst; returns its transaction, completion cycle and whether it was
    /// the transaction's last.
    #[inline(always)]
    fn grant(&mut self, at: u64, master: usize) -> (Txn, u64, bool) {
        let queue = &mut self.waiting[master];
        let front = queue.front_mut().expect("next_grant chose a waiting master");
        let beats = front.beats.min(self.cfg.max_burst.into());
        front.beats -= beats;
        let p = *front;
        let last = p.beats == 0;
        if last {
            queue.pop_front();
            self.idle_if_empty(master);
        }
        self.free_at = at + beats;
        self.last_granted = master;
        let done = at + p.latency + beats;
        if last && p.posted {
            self.completed.push((p.txn, done));
        }
        (p.txn, done, last)
    }

    /// Grants all the remaining bursts of `master`'s first transaction at once, when no other
    /// master waits (they would then be granted back to back): its completion cycle.
    fn grant_alone(&mut self, master: usize) -> Option<u64> {
        let others_wait = self.busy & !(1 << master) != 0;
        let p = *self.waiting[master].front().filter(|_| !others_wait)?;
        self.waiting[master].pop_front();
        self.idle_if_empty(master);
        let done = self.back_to_back(master, p.ready_at, p.beats, p.latency);
        if p.posted {
            self.completed.push((p.txn, done));
        }
        Some(done)
    }

    /// Grants `master` a transaction's `beats` issued at `ready_at`, every burst back to back
    /// from when the data path is free: its completion cycle.
    fn back_to_back(&mut self, master: usize, ready_at: u64, beats: u64, latency: u64) -> u64 {
        let at = self.free_at.max(ready_at);
        self.free_at = at + beats;
        self.last_granted = master;
        self.free_at + latency
    }

    /// Grants every waiting burst whose grant comes before `now`: they are on the bus by now.
    /// Inline: most calls find nothing waiting. (Again at the same `now`, it does nothing.)
    #[inline(always)]
    pub fn advance(&mut self, now: u64) {
        if self.busy != 0 {
            self.advance_queued(now);
        }
    }

    #[inline(never)]
    fn advance_queued(&mut self, now: u64) {
        while let Some((at, master)) = self.next_grant().filter(|&(at, _)| at < now) {
            self.grant(at, master);
        }
    }

    fn latency(&self, dir: Dir) -> u64 {
        match dir {
            Dir::Read => self.cfg.read_latency,
            Dir::Write => self.cfg.write_latency,
        }
        .into()
    }

    fn beats(&self, bytes: u64) -> u64 {
        let partial = bytes & (u64::from(self.cfg.data_width) - 1) != 0;
        ((bytes >> self.beat_shift) + u64::from(partial)).max(1)
    }

    /// A blocking transaction of `bytes` bytes issued at cycle `now`; returns the cycle at
    /// which it completes (read data delivered, or write accepted).
    #[inline]
    pub fn transfer(&mut self, master: Master, dir: Dir, bytes: u64, now: u64) -> u64 {
        self.advance(now);
        if self.busy == 0 {
            // Alone on the bus (the usual case: a fill, an uncached load, a DMA row with the
            // CPU idle): what `grant_alone` would do for it once queued, without the queue.
            return self.back_to_back(master as usize, now, self.beats(bytes), self.latency(dir));
        }
        self.transfer_queued(master, dir, bytes, now)
    }

    /// [`Axi::transfer`] behind other transactions: granted burst by burst, round-robin,
    /// until its last burst.
    #[inline(never)]
    fn transfer_queued(&mut self, master: Master, dir: Dir, bytes: u64, now: u64) -> u64 {
        let txn = self.enqueue(master, dir, bytes, now, false);
        loop {
            // Alone on the bus (and first in its master's queue), the rest of a long
            // transaction takes no arbitration: one step however many bursts it has left.
            if self.waiting[master as usize].front().is_some_and(|p| p.txn == txn) {
                if let Some(done) = self.grant_alone(master as usize) {
                    return done;
                }
            }
            let (at, m) = self.next_grant().expect("the transaction has waiting bursts");
            if let (t, done, true) = self.grant(at, m) {
                if t == txn {
                    return done;
                }
            }
        }
    }

    /// A posted write of `bytes` bytes issued at `now`: it waits for the bus while the poster
    /// goes on. Follow it with [`Axi::collect_by`] or [`Axi::wait`].
    pub fn post(&mut self, master: Master, bytes: u64, now: u64) -> Txn {
        self.advance(now);
        self.enqueue(master, Dir::Write, bytes, now, true)
    }

    /// Collects posted transaction `txn`'s completion cycle, if it is fully granted.
    fn collect(&mut self, txn: Txn) -> Option<u64> {
        let i = self.completed.iter().position(|&(t, _)| t == txn)?;
        Some(self.completed.swap_remove(i).1)
    }

    /// Whether posted transaction `txn` has completed by cycle `now` (it is then forgotten).
    /// The caller must have advanced the bus to `now` ([`Axi::advance`]; once will do for a
    /// write buffer looking at its oldest writes one after another): this does not, and a
    /// write whose last burst is not yet granted looks pending.
    pub fn collect_by(&mut self, txn: Txn, now: u64) -> bool {
        mxpsim_detector::invariant!(self.next_grant().is_none_or(|(at, _)| at >= now), "the bus is advanced to now");
        match self.completed.iter().position(|&(t, _)| t == txn) {
            Some(i) if self.completed[i].1 <= now => {
                self.completed.swap_remove(i);
                true
            }
            _ => false,
        }
    }

    /// Waits for posted transaction `txn`: returns its completion cycle (and forgets it).
    pub fn wait(&mut self, txn: Txn) -> u64 {
        loop {
            if let Some(done) = self.collect(txn) {
                return done;
            }
            let (at, master) = self.next_grant().expect("an incomplete transaction has waiting bursts");
            self.grant(at, master);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn axi(max_burst: u32) -> Axi {
        Axi::new(AxiConfig { read_latency: 10, write_latency: 5, data_width: 4, max_burst })
    }

    #[test]
    fn a_read_takes_latency_plus_beats() {
        assert_eq!(axi(16).transfer(Master::Cache, Dir::Read, 32, 100), 100 + 10 + 8);
    }

    #[test]
    fn long_transfers_split_into_bursts() {
        // 64 bytes = 16 beats = 4 bursts of 4; the data path is busy 4 cycles per burst.
        assert_eq!(axi(4).transfer(Master::Cache, Dir::Read, 64, 0), 12 + 10 + 4);
    }

    #[test]
    fn posted_writes_let_the_poster_go_on() {
        let mut a = axi(16);
        let w = a.post(Master::Cache, 64, 0); // 16 beats from cycle 0
        a.advance(20);
        assert!(!a.collect_by(w, 20));
        a.advance(21);
        assert!(a.collect_by(w, 21));
        // The data path is free again at 16.
        assert_eq!(a.transfer(Master::Uncached, Dir::Read, 4, 30), 30 + 10 + 1);
    }

    #[test]
    fn masters_take_turns_burst_by_burst() {
        let mut a = axi(4);
        // The cache posts 4 bursts of 4 beats at cycle 0; the first is granted at once.
        let w = a.post(Master::Cache, 64, 0);
        // An uncached read at cycle 1 gets the path after the current burst (cycle 4), not
        // after all four: round-robin.
        assert_eq!(a.transfer(Master::Uncached, Dir::Read, 4, 1), 4 + 10 + 1);
        // The write's remaining three bursts follow: 5..9, 9..13, 13..17, the last accepted at 22.
        assert_eq!(a.wait(w), 13 + 5 + 4);
    }

    #[test]
    fn one_masters_transactions_stay_in_order() {
        let mut a = axi(16);
        let w = a.post(Master::Cache, 64, 0); // beats 0..16
                                              // A fill from the same port queues behind its own posted write-back.
        assert_eq!(a.transfer(Master::Cache, Dir::Read, 16, 2), 16 + 10 + 4);
        assert_eq!(a.wait(w), 5 + 16);
    }

    #[test]
    fn a_long_transfer_alone_on_the_bus_is_timed_in_one_step() {
        // 2^40 bytes = 2^38 beats: burst by burst this would take minutes.
        let mut a = axi(16);
        assert_eq!(a.transfer(Master::Dma, Dir::Read, 1 << 40, 7), 7 + 10 + (1 << 38));
        // The bus is busy until its last beat; the next transfer follows.
        assert_eq!(a.transfer(Master::Cache, Dir::Read, 4, 8), 7 + (1 << 38) + 10 + 1);
    }

    #[test]
    fn a_long_transfer_behind_another_masters_bursts_takes_turns_then_runs_alone() {
        let mut a = axi(4);
        // The cache posts 2 bursts of 4 beats at 0; the DMA reads 6 bursts at 1. Round-robin:
        // cache 0..4, DMA 4..8, cache 8..12, then the DMA's last five back to back 12..32.
        let w = a.post(Master::Cache, 32, 0);
        assert_eq!(a.transfer(Master::Dma, Dir::Read, 96, 1), 28 + 10 + 4);
        assert_eq!(a.wait(w), 8 + 5 + 4);
    }

    /// The bus's rules in their plainest form, and a write buffer posting into it: every
    /// burst granted one at a time, by round-robin among the masters whose first transaction
    /// is issued, with none of the model's shortcuts (a transfer alone on the bus, a single
    /// master waiting). The model under test must time every call as this does. (It states
    /// the same rules as the model, not another reading of the module's doc: what it checks
    /// is that the shortcuts change no timing.)
    mod reference {
        use super::super::{AxiConfig, Dir, Master, MASTERS};
        use std::collections::VecDeque;

        /// A transaction: (id, ready_at, beats left, latency, posted).
        type Entry = (u64, u64, u64, u64, bool);

        pub struct Bus {
            cfg: AxiConfig,
            free_at: u64,
            last: usize,
            next: u64,
            queues: [VecDeque<Entry>; MASTERS],
            completed: Vec<(u64, u64)>,
        }

        impl Bus {
            pub fn new(cfg: AxiConfig) -> Self {
                Bus { cfg, free_at: 0, last: MASTERS - 1, next: 0, queues: Default::default(), completed: vec![] }
            }

            fn issue(&mut self, master: Master, dir: Dir, bytes: u64, now: u64, posted: bool) -> u64 {
                let latency = if dir == Dir::Read { self.cfg.read_latency } else { self.cfg.write_latency };
                let beats = bytes.div_ceil(self.cfg.data_width as u64).max(1);
                self.next += 1;
                self.queues[master as usize].push_back((self.next, now, beats, latency as u64, posted));
                self.next
            }

            /// The next burst's grant: (cycle, master).
            fn next_grant(&self) -> Option<(u64, usize)> {
                let earliest = self.queues.iter().filter_map(|q| q.front()).map(|e| e.1).min()?;
                let at = self.free_at.max(earliest);
                let m = (1..=MASTERS)
                    .map(|i| (self.last + i) % MASTERS)
                    .find(|&m| self.queues[m].front().is_some_and(|e| e.1 <= at))?;
                Some((at, m))
            }

            /// Grants one burst: (transaction, completion, whether it was its last).
            fn grant_one(&mut self) -> (u64, u64, bool) {
                let (at, m) = self.next_grant().unwrap();
                let e = self.queues[m].front_mut().unwrap();
                let beats = e.2.min(self.cfg.max_burst as u64);
                e.2 -= beats;
                let (id, _, left, latency, posted) = *e;
                if left == 0 {
                    self.queues[m].pop_front();
                    if posted {
                        self.completed.push((id, at + latency + beats));
                    }
                }
                self.free_at = at + beats;
                self.last = m;
                (id, at + latency + beats, left == 0)
            }

            fn advance(&mut self, now: u64) {
                while self.next_grant().is_some_and(|(at, _)| at < now) {
                    self.grant_one();
                }
            }

            pub fn transfer(&mut self, master: Master, dir: Dir, bytes: u64, now: u64) -> u64 {
                self.advance(now);
                let id = self.issue(master, dir, bytes, now, false);
                loop {
                    if let (t, done, true) = self.grant_one() {
                        if t == id {
                            return done;
                        }
                    }
                }
            }

            /// A write through a write buffer of `depth` entries holding `in_flight`: the stall.
            pub fn post(
                &mut self,
                in_flight: &mut VecDeque<u64>,
                depth: usize,
                master: Master,
                bytes: u64,
                now: u64,
            ) -> u64 {
                self.advance(now);
                let done = |bus: &Self, id| bus.completed.iter().find(|c| c.0 == id).map(|c| c.1);
                while in_flight.front().is_some_and(|&id| done(self, id).is_some_and(|d| d <= now)) {
                    in_flight.pop_front();
                }
                let mut at = now;
                if in_flight.len() == depth {
                    let oldest = in_flight.pop_front().unwrap();
                    while done(self, oldest).is_none() {
                        self.grant_one();
                    }
                    at = done(self, oldest).unwrap().max(now);
                }
                self.advance(at);
                in_flight.push_back(self.issue(master, Dir::Write, bytes, at, true));
                at - now
            }
        }
    }

    /// Latencies: often none or one cycle, where a write completes by the next cycle.
    fn latency() -> impl proptest::strategy::Strategy<Value = u32> {
        proptest::prop_oneof![0u32..2, 0u32..30]
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]

        /// Any interleaving of the masters' blocking transfers and posted writes (a write
        /// buffer's) is timed exactly as the burst-by-burst reference times it. (Steps of a
        /// cycle or two, and short latencies, make the masters meet at the same cycles.)
        #[test]
        fn prop_timing_matches_the_burst_by_burst_reference(
            read_latency in latency(),
            write_latency in latency(),
            width in 0u32..7,
            max_burst in 1u32..20,
            depth in 1usize..5,
            ops in proptest::collection::vec((0u8..4, proptest::prop_oneof![0u64..3, 0u64..40], 0u64..200), 1..120),
        ) {
            let cfg = AxiConfig { read_latency, write_latency, data_width: 1 << width, max_burst };
            let (mut axi, mut wb) = (Axi::new(cfg.clone()), crate::write_buffer::WriteBuffer::new(depth as u32));
            let (mut reference, mut in_flight) = (reference::Bus::new(cfg), VecDeque::new());
            let mut now = 0;
            for (i, &(kind, step, bytes)) in ops.iter().enumerate() {
                now += step;
                let (got, want) = match kind {
                    0 => (axi.transfer(Master::Cache, Dir::Read, bytes, now), reference.transfer(Master::Cache, Dir::Read, bytes, now)),
                    1 => (axi.transfer(Master::Dma, Dir::Write, bytes, now), reference.transfer(Master::Dma, Dir::Write, bytes, now)),
                    2 => {
                        let master = if bytes % 2 == 0 { Master::Cache } else { Master::Uncached };
                        let got = wb.post(&mut axi, master, bytes as u32, now);
                        (got, reference.post(&mut in_flight, depth, master, bytes, now))
                    }
                    _ => (axi.transfer(Master::Uncached, Dir::Read, bytes, now), reference.transfer(Master::Uncached, Dir::Read, bytes, now)),
                };
                proptest::prop_assert_eq!(got, want, "operation {} of {:?}", i, ops);
            }
            // Posts enough to wait for every write still in flight: their completions count.
            for i in 0..=depth {
                let got = wb.post(&mut axi, Master::Cache, 4, now);
                proptest::prop_assert_eq!(got, reference.post(&mut in_flight, depth, Master::Cache, 4, now), "final post {}", i);
            }
        }
    }

    #[test]
    fn invalid_configuration_names_the_field() {
        let bad = AxiConfig { data_width: 3, ..AxiConfig::default() };
        assert_eq!(bad.validate().unwrap_err().field, "data_width");
        let bad = AxiConfig { max_burst: 0, ..AxiConfig::default() };
        assert_eq!(bad.validate().unwrap_err().field, "max_burst");
    }
}
