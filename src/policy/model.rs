//! The learned move model: one strength (Coulom's gamma) per feature value, the strength
//! of a move the product of its features' strengths, its probability its share of the
//! sum over all candidates. The weights file is written by `tengen train-patterns` and
//! built into the program (`weights/patterns.bin`).
//!
//! File format (little-endian): `b"TGPATS\0\0"`, `u32` feature version, then per group
//! `u32` count and that many `f32`; then `u32` number of spatial patterns and per pattern
//! `u64` key and `f32` strength; then the same for the 3x3 shapes with liberties.

use std::sync::OnceLock;

use crate::board::{Board, Move};

use super::features::{self, Context, Features, GROUP_SIZES, NONE, NUM_GROUPS};

const MAGIC: &[u8; 8] = b"TGPATS\0\0";

/// The built-in weights.
static BUILTIN: &[u8] = include_bytes!("../../weights/patterns.bin");

pub use super::spatial::{KeyHasher, KeyMap};

/// Feature strengths.
#[derive(Clone, Debug, Default)]
pub struct Model {
    /// `groups[g][v]`: the strength of value `v` of group `g`.
    pub groups: Vec<Vec<f32>>,
    /// Spatial pattern key -> strength.
    pub spatial: KeyMap,
    /// 3x3 shape with liberties -> strength.
    pub shapes: KeyMap,
}

impl Model {
    /// A model whose strengths are all 1 (every move equally likely).
    pub fn uniform() -> Model {
        Model {
            groups: GROUP_SIZES.iter().map(|&n| vec![1.0; n]).collect(),
            spatial: KeyMap::default(),
            shapes: KeyMap::default(),
        }
    }

    /// Reads a weights file; `None` if it is malformed or of another feature version.
    pub fn from_bytes(bytes: &[u8]) -> Option<Model> {
        let mut r = Reader { bytes, pos: 0 };
        if r.take(8)? != MAGIC || r.u32()? != features::VERSION {
            return None;
        }
        let mut groups = Vec::with_capacity(NUM_GROUPS);
        for &size in GROUP_SIZES.iter() {
            let n = r.u32()? as usize;
            if n != size {
                return None;
            }
            groups.push((0..n).map(|_| r.f32()).collect::<Option<Vec<f32>>>()?);
        }
        let spatial = r.table()?;
        let shapes = r.table()?;
        (r.pos == bytes.len()).then_some(Model {
            groups,
            spatial,
            shapes,
        })
    }

    /// The weights file of this model (spatial patterns sorted by key, so that the same
    /// model always gives the same bytes).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(features::VERSION.to_le_bytes());
        for g in &self.groups {
            out.extend((g.len() as u32).to_le_bytes());
            for &v in g {
                out.extend(v.to_le_bytes());
            }
        }
        for table in [&self.spatial, &self.shapes] {
            let mut keys: Vec<(&u64, &f32)> = table.iter().collect();
            keys.sort_unstable_by_key(|(k, _)| **k);
            out.extend((keys.len() as u32).to_le_bytes());
            for (k, v) in keys {
                out.extend(k.to_le_bytes());
                out.extend(v.to_le_bytes());
            }
        }
        out
    }

    /// The strength of a move with features `f`.
    pub fn strength(&self, f: &Features) -> f64 {
        let mut s = 1.0f64;
        for (g, &v) in f.values.iter().enumerate() {
            if v != NONE {
                s *= self.groups[g][v as usize] as f64;
            }
        }
        if f.spatial[0] != 0 {
            // Keys past the first size the walk found unknown are 0 (see
            // `Grid::keys_while`): skip them rather than look them up.
            let mut keys = f.spatial.iter().rev().filter(|&&k| k != 0);
            if let Some(&g) = keys.find_map(|k| self.spatial.get(k)) {
                s *= g as f64;
            }
        }
        if let Some(&g) = self.shapes.get(&f.shape) {
            s *= g as f64;
        }
        s
    }

    /// Every legal move of `ctx.color` that `keep` allows with its probability under the
    /// model (they sum to 1).
    pub fn probabilities(
        &self,
        board: &Board,
        ctx: &Context,
        keep: &dyn Fn(Move) -> bool,
    ) -> Vec<(Move, f64)> {
        let mut out: Vec<(Move, f64)> =
            features::all_features(board, ctx, keep, Some(&self.spatial))
                .into_iter()
                .map(|(m, f)| (m, self.strength(&f)))
                .collect();
        let total: f64 = out.iter().map(|(_, s)| s).sum();
        if total > 0.0 {
            for (_, s) in out.iter_mut() {
                *s /= total;
            }
        }
        out
    }
}

/// The built-in model, read once (`None` if the built-in file holds no model, as before
/// the first training).
pub fn builtin() -> Option<&'static Model> {
    static M: OnceLock<Option<Model>> = OnceLock::new();
    M.get_or_init(|| Model::from_bytes(BUILTIN)).as_ref()
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn table(&mut self) -> Option<KeyMap> {
        let n = self.u32()? as usize;
        if n > self.bytes.len() / 12 {
            return None;
        }
        let mut t = KeyMap::with_capacity_and_hasher(n, Default::default());
        for _ in 0..n {
            let k = self.u64()?;
            t.insert(k, self.f32()?);
        }
        Some(t)
    }
    fn f32(&mut self) -> Option<f32> {
        let v = f32::from_le_bytes(self.take(4)?.try_into().ok()?);
        (v.is_finite() && v > 0.0).then_some(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_refuse_garbage() {
        let mut m = Model::uniform();
        m.groups[1][3] = 7.5;
        m.spatial.insert(42, 3.25);
        m.shapes.insert(7, 0.5);
        let bytes = m.to_bytes();
        let back = Model::from_bytes(&bytes).unwrap();
        assert_eq!(back.groups, m.groups);
        assert_eq!(back.spatial, m.spatial);
        assert_eq!(back.shapes, m.shapes);
        assert!(Model::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        assert!(Model::from_bytes(b"nonsense").is_none());
    }
}
