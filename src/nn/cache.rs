//! A bounded cache of evaluations, keyed by exactly what the network sees: a 128-bit hash
//! of the input features (every spatial plane and global, so the board, the history the
//! planes show, ko and superko bans, ladders, area, komi and rules) with the symmetry, the
//! policy optimism, the passing hack and the player to move (the outputs are given from
//! White's point of view, and a colour-swapped position with negated komi has the same
//! inputs). Two positions that differ only in history the inputs do not show (moves
//! before the last five, a different move order to the same board and last moves) share
//! a key; a difference in what the network sees never does (but for a hash collision,
//! about 2^-64 over a billion entries).
//!
//! Bounded by entries, in two generations: new entries go to the recent one; when it is
//! full it becomes the old one (the previous old one dropped) and a hit in the old one
//! moves back to the recent one. An entry used within the last `capacity / 2` insertions
//! is always kept, so the cache behaves as an LRU at half to full capacity, at O(1) a
//! look-up. Generic over the value, so that it knows nothing of `eval`.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hasher};

use super::features::Features;
use crate::board::Color;

/// The key of one evaluation (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct EvalKey(u128);

impl EvalKey {
    /// The key of `features` seen in `symmetry` (`Debug`-printed, so `One(3)` and `Mean`
    /// differ), with the policy optimism, the passing hack and the player to move.
    pub fn new(
        features: &Features,
        symmetry: impl std::fmt::Debug,
        to_move: Color,
        optimism: f32,
        passing_hacks: bool,
    ) -> EvalKey {
        let tag = format!("{symmetry:?}");
        // Two SipHash streams with different prefixes: 128 bits.
        let lane = |seed: u64| {
            let mut h = DefaultHasher::new();
            h.write_u64(seed);
            h.write_usize(features.size);
            h.write(tag.as_bytes());
            h.write_u8(to_move as u8);
            h.write_u32(optimism.to_bits());
            h.write_u8(passing_hacks as u8);
            h.write_usize(features.spatial.len());
            for v in &features.spatial {
                h.write_u32(v.to_bits());
            }
            for v in &features.global {
                h.write_u32(v.to_bits());
            }
            h.finish()
        };
        EvalKey((u128::from(lane(0x7465_6e67_656e_0001)) << 64) | u128::from(lane(0x2)))
    }
}

/// Hits, misses and entries of a cache.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CacheStats {
    pub hits: u64,
    pub misses: u64,
    pub entries: usize,
    pub capacity: usize,
}

/// A bounded map from [`EvalKey`] to evaluations (see the module documentation).
#[derive(Debug)]
pub struct Cache<V> {
    capacity: usize,
    recent: HashMap<EvalKey, V>,
    old: HashMap<EvalKey, V>,
    hits: u64,
    misses: u64,
}

impl<V: Clone> Cache<V> {
    /// A cache of at most `capacity` entries (at least 2).
    pub fn new(capacity: usize) -> Cache<V> {
        Cache {
            capacity: capacity.max(2),
            recent: HashMap::new(),
            old: HashMap::new(),
            hits: 0,
            misses: 0,
        }
    }

    /// Entries a generation holds.
    fn half(&self) -> usize {
        self.capacity / 2
    }

    /// The value under `key`, counted as a hit or a miss.
    pub fn get(&mut self, key: EvalKey) -> Option<V> {
        if let Some(v) = self.recent.get(&key) {
            self.hits += 1;
            return Some(v.clone());
        }
        match self.old.remove(&key) {
            Some(v) => {
                self.hits += 1;
                self.insert(key, v.clone());
                Some(v)
            }
            None => {
                self.misses += 1;
                None
            }
        }
    }

    /// Keeps `value` under `key`, dropping the old generation when the recent one is full.
    pub fn insert(&mut self, key: EvalKey, value: V) {
        if self.recent.len() >= self.half() && !self.recent.contains_key(&key) {
            self.old = std::mem::take(&mut self.recent);
        }
        self.old.remove(&key);
        self.recent.insert(key, value);
    }

    /// Entries held (at most the capacity).
    pub fn len(&self) -> usize {
        self.recent.len() + self.old.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Drops every entry (the counts stay).
    pub fn clear(&mut self) {
        self.recent.clear();
        self.old.clear();
    }

    pub fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits,
            misses: self.misses,
            entries: self.len(),
            capacity: self.capacity,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(i: u32) -> EvalKey {
        let mut f = Features {
            size: 2,
            spatial: vec![0.0; 4],
            global: [0.0; super::super::features::GLOBAL],
        };
        f.global[0] = i as f32;
        EvalKey::new(&f, 0, Color::Black, 0.0, false)
    }

    #[test]
    fn bounded_and_recently_used_entries_stay() {
        let mut c: Cache<u32> = Cache::new(10);
        for i in 0..100 {
            c.insert(key(i), i);
            // Entry 0, used after every insertion, is never dropped.
            assert_eq!(c.get(key(0)), Some(0), "after {i}");
            assert!(c.len() <= 10, "{} entries", c.len());
        }
        // The last half-capacity insertions are all there; early ones are gone.
        for i in 96..100 {
            assert_eq!(c.get(key(i)), Some(i));
        }
        assert_eq!(c.get(key(1)), None);
        let s = c.stats();
        assert_eq!((s.hits, s.misses), (104, 1));
        c.clear();
        assert!(c.is_empty());
        assert_eq!(c.get(key(0)), None);
    }

    #[test]
    fn every_part_of_the_key_counts() {
        let f = Features {
            size: 2,
            spatial: vec![0.0, 1.0, 0.0, 0.0],
            global: [0.0; super::super::features::GLOBAL],
        };
        let base = EvalKey::new(&f, 3, Color::Black, 0.0, false);
        assert_eq!(base, EvalKey::new(&f.clone(), 3, Color::Black, 0.0, false));
        let mut g = f.clone();
        g.spatial[2] = 1.0;
        let mut h = f.clone();
        h.global[18] = 0.5;
        for other in [
            EvalKey::new(&g, 3, Color::Black, 0.0, false),
            EvalKey::new(&h, 3, Color::Black, 0.0, false),
            EvalKey::new(&f, 4, Color::Black, 0.0, false),
            EvalKey::new(&f, 3, Color::White, 0.0, false),
            EvalKey::new(&f, 3, Color::Black, 0.2, false),
            EvalKey::new(&f, 3, Color::Black, 0.0, true),
        ] {
            assert_ne!(base, other);
        }
    }
}
