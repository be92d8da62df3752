//! Subtree value bias (KataGo's `subtreeValueBiasFactor`, its "Accelerating Self-Play
//! Learning" follow-ups in docs/KataGoMethods.md): the network misjudges a local fight the
//! same way wherever it recurs in the tree, so each node's search says by how much. A
//! node's key is its move, the move before it and the 5x5 pattern around its move on the
//! board before it (colours as the mover's and the opponent's, the ko point too); the
//! table keeps, per key, the weighted mean of (the node's children's mean utility less
//! the network's own value of the node), and a new leaf under a key moves its value by a
//! share of that mean.
//!
//! Owns the table and the keys. Knows the board, nothing of the tree's layout, the
//! selection or the threads (the search holds the table behind a lock, for one search).

use std::collections::HashMap;

use crate::board::{Board, Color, Move};

use super::tree::NodeId;

/// Share of a node's children's weight that counts in its table entry, as a power:
/// KataGo's `subtreeValueBiasWeightExponent`.
const WEIGHT_EXPONENT: f64 = 0.85;

/// The table of one search.
#[derive(Default)]
pub(super) struct BiasTable {
    /// Per key: the sum of weighted deltas and of weights.
    entries: HashMap<u64, (f64, f64)>,
    /// Per node: its key and what it last added to its entry.
    last: HashMap<NodeId, (u64, f64, f64)>,
}

impl BiasTable {
    /// The mean delta of `key`'s entry (0 if none yet).
    pub(super) fn mean(&self, key: u64) -> f64 {
        match self.entries.get(&key) {
            Some(&(delta, weight)) if weight > 1e-3 => delta / weight,
            _ => 0.0,
        }
    }

    /// Node `id` (under `key`) now has children of total weight `child_weight` whose mean
    /// utility is `delta` above the network's value of the node: its share of the entry is
    /// replaced by this.
    pub(super) fn update(&mut self, id: NodeId, key: u64, delta: f64, child_weight: f64) {
        if child_weight <= 0.0 || !delta.is_finite() {
            return;
        }
        let weight = child_weight.powf(WEIGHT_EXPONENT);
        let (old_delta, old_weight) = match self.last.insert(id, (key, delta * weight, weight)) {
            Some((k, d, w)) if k == key => (d, w),
            _ => (0.0, 0.0),
        };
        let e = self.entries.entry(key).or_insert((0.0, 0.0));
        e.0 += delta * weight - old_delta;
        e.1 += weight - old_weight;
    }
}

/// The key of the node reached by `color` playing `mv` on `board`, after `prev`.
pub(super) fn key(board: &Board, prev: Option<Move>, mv: Move, color: Color) -> u64 {
    let code = |m: Option<Move>| match m {
        None => 0u64,
        Some(Move::Pass) => 1,
        Some(Move::Place(p)) => 2 + p.0 as u64,
    };
    let mut h = mix(code(prev) << 20 | code(Some(mv)));
    if let Move::Place(p) = mv {
        let size = board.size() as isize;
        let (col, row) = p.coord();
        let (col, row) = (col as isize, row as isize);
        for dr in -2..=2isize {
            for dc in -2..=2isize {
                let (c, r) = (col + dc, row + dr);
                let cell = if c < 0 || r < 0 || c >= size || r >= size {
                    3
                } else {
                    match board.get(crate::board::Point::from_coord(c as usize, r as usize)) {
                        None => 0,
                        Some(s) if s == color => 1,
                        Some(_) => 2,
                    }
                };
                h = mix(h ^ cell);
            }
        }
    }
    if let Some((k, _)) = board.ko() {
        h = mix(h ^ (0x1000 + k.0 as u64));
    }
    h
}

/// SplitMix64's finaliser.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_is_the_weighted_mean_of_its_nodes_latest_deltas() {
        let mut t = BiasTable::default();
        t.update(1, 7, 0.2, 1.0);
        assert!((t.mean(7) - 0.2).abs() < 1e-12);
        // The same node again replaces its share.
        t.update(1, 7, -0.1, 1.0);
        assert!((t.mean(7) + 0.1).abs() < 1e-12);
        // Another node under the same key adds its own, weighted.
        t.update(2, 7, 0.5, 3.0);
        let w = 3f64.powf(WEIGHT_EXPONENT);
        assert!((t.mean(7) - (-0.1 + 0.5 * w) / (1.0 + w)).abs() < 1e-12);
        assert_eq!(t.mean(8), 0.0);
    }

    #[test]
    fn keys_see_the_local_pattern_and_the_moves() {
        let b = Board::from_rows(&[
            ".........",
            ".........",
            "..X......",
            ".........",
            ".........",
            ".........",
            "......O..",
            ".........",
            ".........",
        ])
        .unwrap();
        let at = |c, r| Move::Place(crate::board::Point::from_coord(c, r));
        let x = b
            .points()
            .find(|&p| b.get(p) == Some(Color::Black))
            .unwrap();
        let (c, r) = x.coord();
        // A move next to the black stone: its colour seen as the mover's or not.
        let k = key(&b, None, at(c + 1, r), Color::Black);
        assert_eq!(k, key(&b, None, at(c + 1, r), Color::Black));
        assert_ne!(k, key(&b, None, at(c + 1, r), Color::White));
        assert_ne!(k, key(&b, Some(Move::Pass), at(c + 1, r), Color::Black));
        assert_ne!(k, key(&b, None, at(c + 2, r), Color::Black));
    }
}
