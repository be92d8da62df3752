//! Learned local answers for playouts: a softmax over the empty points around the last
//! move (its eight neighbours), each weighted by a strength (Coulom's gamma) learned for
//! its 3x3 neighbourhood, plus one more strength for "play elsewhere" (a random move).
//! The strengths are fitted by `tengen train-local` ([`crate::policy::local_train`]) on
//! the same game records as the tree's model, and built in from `weights/local3x3.bin`.
//!
//! Codes are [`Board::pattern3`] codes seen from the mover (for White the stone colours
//! are swapped), canonical under the 8 symmetries. File format (little-endian):
//! `b"TGLOC3\0\0"`, `f32` strength of "elsewhere", `u32` count, then per shape `u16`
//! canonical code and `f32` strength. Shapes missing from the file have strength 1 (the
//! prior's value for a shape never seen).

use std::sync::{Arc, Mutex, OnceLock};

use super::patterns::symmetric;
use crate::board::Color;

const MAGIC: &[u8; 8] = b"TGLOC3\0\0";

/// The built-in strengths.
static BUILTIN: &[u8] = include_bytes!("../../weights/local3x3.bin");

/// The 3x3 code of `p` seen from `color`: for White, Black and White cells swap.
#[inline]
pub fn mover_code(code: u16, color: Color) -> u16 {
    match color {
        Color::Black => code,
        Color::White => {
            // Cells are 2-bit fields: Black 0, White 1, Empty 2, Border 3. Flip the low
            // bit of the fields whose high bit is clear (the stones).
            let high = code & 0xAAAA;
            code ^ (!high >> 1 & 0x5555)
        }
    }
}

/// Field order of a code: N, S, W, E, NW, NE, SW, SE, as (row, column) in a 3x3 grid.
const CELLS: [(usize, usize); 8] = [
    (0, 1),
    (2, 1),
    (1, 0),
    (1, 2),
    (0, 0),
    (0, 2),
    (2, 0),
    (2, 2),
];

/// `code` under symmetry `sym` (see [`symmetric`]).
pub fn transform(code: u16, sym: u8) -> u16 {
    let mut out = 0u16;
    for (i, &(r, c)) in CELLS.iter().enumerate() {
        let (rr, cc) = symmetric(r, c, sym);
        let j = CELLS.iter().position(|&x| x == (rr, cc)).expect("a cell");
        out |= ((code >> (2 * i)) & 3) << (2 * j);
    }
    out
}

/// The smallest of `code`'s 8 symmetric images.
pub fn canonical(code: u16) -> u16 {
    (0..8).map(|s| transform(code, s)).min().expect("8 images")
}

/// Strength of every mover-view code, and of playing elsewhere.
#[derive(Clone, Debug, PartialEq)]
pub struct LocalTable {
    gammas: Vec<f32>,
    /// The strength of "not one of the local points" (a random move).
    pub elsewhere: f32,
}

impl LocalTable {
    /// A table from canonical code -> strength pairs.
    pub fn from_canonical(elsewhere: f32, pairs: &[(u16, f32)]) -> LocalTable {
        let mut by_canon = vec![1.0f32; 1 << 16];
        for &(c, g) in pairs {
            by_canon[c as usize] = g;
        }
        let gammas = (0..=u16::MAX)
            .map(|code| by_canon[canonical(code) as usize])
            .collect();
        LocalTable { gammas, elsewhere }
    }

    /// The strength of the empty point with mover-view code `code`.
    #[inline]
    pub fn gamma(&self, code: u16) -> f32 {
        self.gammas[code as usize]
    }

    /// Every strength raised to `1 / temperature` (above 1 flattens the choice).
    pub fn with_temperature(&self, temperature: f32) -> LocalTable {
        let e = 1.0 / temperature.max(0.01);
        LocalTable {
            gammas: self.gammas.iter().map(|g| g.powf(e)).collect(),
            elsewhere: self.elsewhere.powf(e),
        }
    }

    /// Reads a weights file.
    pub fn from_bytes(bytes: &[u8]) -> Option<LocalTable> {
        let rest = bytes.strip_prefix(MAGIC)?;
        let f32_at =
            |b: &[u8], i: usize| Some(f32::from_le_bytes(b.get(i..i + 4)?.try_into().ok()?));
        let elsewhere = f32_at(rest, 0)?;
        let n = u32::from_le_bytes(rest.get(4..8)?.try_into().ok()?) as usize;
        let body = rest.get(8..)?;
        if body.len() != n * 6 {
            return None;
        }
        let pairs: Option<Vec<(u16, f32)>> = body
            .chunks_exact(6)
            .map(|c| Some((u16::from_le_bytes([c[0], c[1]]), f32_at(c, 2)?)))
            .collect();
        Some(LocalTable::from_canonical(elsewhere, &pairs?))
    }

    /// Writes a weights file from canonical pairs.
    pub fn to_bytes(elsewhere: f32, pairs: &[(u16, f32)]) -> Vec<u8> {
        let mut out = MAGIC.to_vec();
        out.extend(elsewhere.to_le_bytes());
        out.extend((pairs.len() as u32).to_le_bytes());
        for &(c, g) in pairs {
            out.extend(c.to_le_bytes());
            out.extend(g.to_le_bytes());
        }
        out
    }
}

/// The built-in table at `temperature` (tables are made once per temperature and shared).
pub fn table(temperature: f32) -> Arc<LocalTable> {
    static BASE: OnceLock<LocalTable> = OnceLock::new();
    static MADE: Mutex<Vec<(u32, Arc<LocalTable>)>> = Mutex::new(Vec::new());
    let base = BASE.get_or_init(|| {
        LocalTable::from_bytes(BUILTIN).expect("weights/local3x3.bin is a local table")
    });
    let key = temperature.to_bits();
    let mut made = MADE.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, t)) = made.iter().find(|(k, _)| *k == key) {
        return t.clone();
    }
    let t = Arc::new(if temperature == 1.0 {
        base.clone()
    } else {
        base.with_temperature(temperature)
    });
    made.push((key, t.clone()));
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Board, Point};

    #[test]
    fn mover_code_swaps_stones_only() {
        let mut b = Board::new(9).unwrap();
        let p = |c, r| Point::from_coord(c, r);
        b.set_stone(Color::Black, p(4, 5));
        b.set_stone(Color::White, p(3, 4));
        let mut w = Board::new(9).unwrap();
        w.set_stone(Color::White, p(4, 5));
        w.set_stone(Color::Black, p(3, 4));
        assert_eq!(
            mover_code(b.pattern3(p(4, 4)), Color::Black),
            mover_code(w.pattern3(p(4, 4)), Color::White)
        );
        let edge = b.pattern3(p(0, 0));
        assert_eq!(
            mover_code(edge, Color::White),
            edge,
            "no stones around the corner"
        );
        assert_eq!(
            mover_code(mover_code(0x1234, Color::White), Color::White),
            0x1234
        );
    }

    #[test]
    fn symmetric_neighbourhoods_share_a_canonical_code() {
        let p = |c, r| Point::from_coord(c, r);
        // A stone to the north of E5 and to its east, west and south: one canonical code.
        let codes: Vec<u16> = [(4, 5), (5, 4), (3, 4), (4, 3)]
            .iter()
            .map(|&(c, r)| {
                let mut b = Board::new(9).unwrap();
                b.set_stone(Color::Black, p(c, r));
                canonical(b.pattern3(p(4, 4)))
            })
            .collect();
        assert!(codes.windows(2).all(|w| w[0] == w[1]));
        // Corners: A1 and J9 alike.
        let b = Board::new(9).unwrap();
        assert_eq!(
            canonical(b.pattern3(p(0, 0))),
            canonical(b.pattern3(p(8, 8)))
        );
        assert_ne!(
            canonical(b.pattern3(p(0, 0))),
            canonical(b.pattern3(p(4, 0)))
        );
    }

    #[test]
    fn weights_round_trip_and_the_builtin_loads() {
        let pairs = [(canonical(0xAAAA), 0.5f32), (7, 3.0)];
        let bytes = LocalTable::to_bytes(20.0, &pairs);
        let t = LocalTable::from_bytes(&bytes).unwrap();
        assert_eq!(t.elsewhere, 20.0);
        assert_eq!(t.gamma(0xAAAA), 0.5);
        assert_eq!(t.gamma(1), 1.0);
        assert!(LocalTable::from_bytes(&bytes[..bytes.len() - 1]).is_none());
        let built = table(1.0);
        assert!(built.elsewhere > 0.0);
        let hot = table(2.0);
        assert!((hot.elsewhere - built.elsewhere.sqrt()).abs() < 1e-3 * built.elsewhere);
    }
}
