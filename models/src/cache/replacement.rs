//! Replacement policies: which way of a full set a miss evicts (the cache fills an invalid
//! way first); the cache tells the policy about hits (`touch`) and allocations (`fill`).

use super::config::Policy;
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

pub enum Replacement {
    /// Per slot, the time of its last use (LRU) or of its allocation (FIFO); the victim has
    /// the smallest.
    Stamps {
        stamps: Vec<u64>,
        clock: u64,
        on_touch: bool,
    },
    /// Per set, the `ways - 1` node bits of a binary tree; each bit points away from the
    /// most recently used half.
    Tree {
        bits: Vec<u64>,
        ways: u32,
    },
    Random(Xoshiro256PlusPlus),
}

impl Replacement {
    pub fn new(policy: Policy, sets: u32, ways: u32, seed: u64) -> Self {
        let slots = (sets * ways) as usize;
        match policy {
            Policy::Lru => Replacement::Stamps { stamps: vec![0; slots], clock: 0, on_touch: true },
            Policy::Fifo => Replacement::Stamps { stamps: vec![0; slots], clock: 0, on_touch: false },
            // The tree has ways - 1 nodes; up to 64 of them fit one word, wider sets use a
            // vector of words per set.
            Policy::Plru => Replacement::Tree { bits: vec![0; sets as usize * words_per_tree(ways)], ways },
            Policy::Random => Replacement::Random(Xoshiro256PlusPlus::seed_from_u64(seed)),
        }
    }

    /// A hit on `slot` (`set * ways + way`). Called on every hit: no division unless the
    /// policy needs the set and way apart.
    #[inline(always)]
    pub fn touch(&mut self, slot: u32) {
        match self {
            Replacement::Stamps { stamps, clock, on_touch: true } => {
                *clock += 1;
                stamps[slot as usize] = *clock;
            }
            Replacement::Tree { bits, ways } => tree_point_away(bits, slot / *ways, slot % *ways, *ways),
            _ => {}
        }
    }

    /// What [`Replacement::touch`] does, for code that does it inline: `Some(true)`: stamps
    /// the slot with the next tick of the clock (LRU); `Some(false)`: nothing (FIFO, random);
    /// `None`: more than that (the pseudo-LRU tree).
    pub fn stamps_hits(&self) -> Option<bool> {
        match self {
            Replacement::Stamps { on_touch, .. } => Some(*on_touch),
            Replacement::Tree { .. } => None,
            Replacement::Random(_) => Some(false),
        }
    }

    /// The stamps and their clock (LRU, FIFO), else null pointers.
    pub fn stamp_pointers(&mut self) -> (*mut u64, *mut u64) {
        match self {
            Replacement::Stamps { stamps, clock, .. } => (stamps.as_mut_ptr(), clock),
            _ => (std::ptr::null_mut(), std::ptr::null_mut()),
        }
    }

    /// `slot` (`set * ways + way`) was just allocated.
    #[inline(always)]
    pub fn fill(&mut self, slot: u32) {
        match self {
            Replacement::Stamps { stamps, clock, .. } => {
                *clock += 1;
                stamps[slot as usize] = *clock;
            }
            Replacement::Tree { bits, ways } => tree_point_away(bits, slot / *ways, slot % *ways, *ways),
            Replacement::Random(_) => {}
        }
    }

    /// The way to evict from `set`, all of whose `ways` are valid (the cache fills an
    /// invalid way first).
    #[inline(always)]
    pub fn victim(&mut self, set: u32, ways: u32) -> u32 {
        match self {
            Replacement::Stamps { stamps, .. } => {
                let base = (set * ways) as usize;
                mxpsim_detector::invariant!(ways >= 1, "a set has a way");
                // The first of the oldest stamps (the ways searched in order), chosen without
                // a branch on the stamps (selects, which compile to conditional moves): which
                // way is oldest is a coin toss to the host's branch predictor, and perf's samples
                // of the miss path gathered on that branch (cpubench).
                let set_stamps = &stamps[base..base + ways as usize];
                let (mut oldest, mut min) = (0, set_stamps[0]);
                for (way, &stamp) in set_stamps.iter().enumerate().skip(1) {
                    let older = stamp < min;
                    min = if older { stamp } else { min };
                    oldest = if older { way } else { oldest };
                }
                oldest as u32
            }
            Replacement::Tree { bits, ways } => tree_follow(bits, set, *ways),
            // Multiply-shift maps 32 random bits onto 0..ways without a division.
            Replacement::Random(rng) => ((rng.next_u32() as u64 * ways as u64) >> 32) as u32,
        }
    }
}

fn words_per_tree(ways: u32) -> usize {
    (ways as usize).div_ceil(64).max(1)
}

fn bit(bits: &[u64], base: usize, node: u32) -> bool {
    bits[base + node as usize / 64] >> (node % 64) & 1 != 0
}

fn set_bit(bits: &mut [u64], base: usize, node: u32, value: bool) {
    let word = &mut bits[base + node as usize / 64];
    *word = (*word & !(1 << (node % 64))) | ((value as u64) << (node % 64));
}

/// Walks from the root to `way`, setting each node to point at the other half.
fn tree_point_away(bits: &mut [u64], set: u32, way: u32, ways: u32) {
    let base = set as usize * words_per_tree(ways);
    let (mut node, mut lo, mut span) = (0u32, 0u32, ways);
    while span > 1 {
        span /= 2;
        let upper = way >= lo + span;
        set_bit(bits, base, node, !upper); // points to the half not used
        if upper {
            lo += span;
        }
        node = 2 * node + 1 + upper as u32;
    }
}

/// Follows the node bits from the root to the pseudo-least-recently-used way.
fn tree_follow(bits: &[u64], set: u32, ways: u32) -> u32 {
    let base = set as usize * words_per_tree(ways);
    let (mut node, mut lo, mut span) = (0u32, 0u32, ways);
    while span > 1 {
        span /= 2;
        let upper = bit(bits, base, node);
        if upper {
            lo += span;
        }
        node = 2 * node + 1 + upper as u32;
    }
    lo
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAYS: u32 = 4;

    fn slot(set: u32, way: u32, ways: u32) -> u32 {
        set * ways + way
    }

    #[test]
    fn lru_evicts_the_least_recently_touched() {
        let mut r = Replacement::new(Policy::Lru, 2, WAYS, 0);
        for w in 0..WAYS {
            r.fill(slot(1, w, WAYS));
        }
        r.touch(slot(1, 0, WAYS));
        assert_eq!(r.victim(1, WAYS), 1);
        r.touch(slot(1, 1, WAYS));
        assert_eq!(r.victim(1, WAYS), 2);
    }

    #[test]
    fn fifo_ignores_hits() {
        let mut r = Replacement::new(Policy::Fifo, 1, WAYS, 0);
        for w in 0..WAYS {
            r.fill(slot(0, w, WAYS));
        }
        r.touch(slot(0, 0, WAYS));
        assert_eq!(r.victim(0, WAYS), 0);
        r.fill(slot(0, 0, WAYS));
        assert_eq!(r.victim(0, WAYS), 1);
    }

    #[test]
    fn plru_tree_points_away_from_recent_use() {
        let mut r = Replacement::new(Policy::Plru, 1, WAYS, 0);
        // Use 0, 1, 2, 3 in order: the tree then points at the half {0,1} and in it at 0.
        for w in 0..WAYS {
            r.touch(slot(0, w, WAYS));
        }
        assert_eq!(r.victim(0, WAYS), 0);
        r.touch(slot(0, 0, WAYS));
        // Root now points to {2,3}; inside it, 3 was used after 2.
        assert_eq!(r.victim(0, WAYS), 2);
    }

    #[test]
    fn plru_works_for_wide_sets() {
        let ways = 128;
        let mut r = Replacement::new(Policy::Plru, 2, ways, 0);
        for w in 0..ways {
            r.touch(slot(1, w, ways));
        }
        assert_eq!(r.victim(1, ways), 0);
        r.touch(slot(1, 0, ways));
        assert_eq!(r.victim(1, ways), 64);
    }

    #[test]
    fn random_is_reproducible_for_a_seed() {
        let picks = |seed| {
            let mut r = Replacement::new(Policy::Random, 1, 8, seed);
            (0..32).map(|_| r.victim(0, 8)).collect::<Vec<_>>()
        };
        assert_eq!(picks(7), picks(7));
        assert_ne!(picks(7), picks(8));
        assert!(picks(7).iter().all(|&w| w < 8));
    }
}
