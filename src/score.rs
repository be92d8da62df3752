//! Area counting: stones plus empty regions bordered by one colour only, after removing the
//! dead stones the caller names, and the points of regions bordered by both colours that
//! the caller's ownership gives clearly to one; the result in points (`B+3.5`) and in the
//! rules' own form, stones against half the board. Knows nothing of how dead stones are
//! judged.

use crate::board::{Board, Cell, Color, Point, NUM_CELLS};

/// A counted position.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Board points (size squared).
    pub points: usize,
    /// Black stones plus empty points reached only by Black (or by both, owned by Black).
    pub black_area: usize,
    /// White stones plus empty points reached only by White (or by both, owned by White).
    pub white_area: usize,
    /// Empty points reached by both colours and owned by neither, or by no colour: dame
    /// and shared liberties in seki, half to each side.
    pub neutral: usize,
    pub komi: f64,
    /// Points given to White for handicap stones.
    pub compensation: f64,
}

impl Score {
    /// Black's lead in points: Black area − White area − komi − compensation.
    pub fn margin(&self) -> f64 {
        self.black_area as f64 - self.white_area as f64 - self.komi - self.compensation
    }

    /// The winner, or `None` for a draw.
    pub fn winner(&self) -> Option<Color> {
        let m = self.margin();
        if m > 0.0 {
            Some(Color::Black)
        } else if m < 0.0 {
            Some(Color::White)
        } else {
            None
        }
    }

    /// The GTP / SGF form: `B+3.5`, `W+0.5`, or `0` for a draw.
    pub fn result_string(&self) -> String {
        let m = self.margin();
        if m > 0.0 {
            format!("B+{m}")
        } else if m < 0.0 {
            format!("W+{}", -m)
        } else {
            "0".to_string()
        }
    }

    /// Black's total in stones under the rules' own counting: Black's area plus half the
    /// neutral points, less half a stone per handicap stone returned.
    pub fn black_stones(&self) -> f64 {
        self.black_area as f64 + self.neutral as f64 / 2.0 - self.compensation / 2.0
    }

    /// What Black needs to win in stones: half the board plus half the komi
    /// (19x19, komi 7.5: 180.5 + 3.75 = 184.25).
    pub fn black_target(&self) -> f64 {
        self.points as f64 / 2.0 + self.komi / 2.0
    }

    /// The result in the rules' own words, e.g. "Black wins by 3/4 stone".
    pub fn in_stones(&self) -> String {
        stones_words(self.black_stones() - self.black_target())
    }
}

/// Black's lead of `d` stones in words: "Black wins by 3/4 stone", "Draw".
fn stones_words(d: f64) -> String {
    let who = if d > 0.0 { "Black" } else { "White" };
    if d == 0.0 {
        return "Draw".to_string();
    }
    let quarters = (d.abs() * 4.0).round() as i64;
    let (whole, frac) = (quarters / 4, quarters % 4);
    let frac_text = ["", "1/4", "1/2", "3/4"][frac as usize];
    let amount = match (whole, frac) {
        (w, 0) => format!("{w}"),
        (0, _) => frac_text.to_string(),
        (w, _) => format!("{w} {frac_text}"),
    };
    let unit = if quarters <= 4 { "stone" } else { "stones" };
    format!("{who} wins by {amount} {unit}")
}

/// A result in the SGF / GTP form (`B+3.5`, `W+R`, `B+T`, `0`) in the rules' own words:
/// a margin of m points is m/2 stones (Black's stones less half the board and half the
/// komi and compensation), so `B+1.5` is "Black wins by 3/4 stone". `None` for a form it
/// does not know.
pub fn result_in_words(result: &str) -> Option<String> {
    let r = result.trim();
    if r == "0" || r.eq_ignore_ascii_case("draw") {
        return Some("Draw".to_string());
    }
    let (who, rest) = r.split_once('+')?;
    let winner = match who {
        "B" | "b" => "Black",
        "W" | "w" => "White",
        _ => return None,
    };
    let how = match rest {
        "R" | "Resign" => "by resignation",
        "T" | "Time" => "on time",
        "F" | "Forfeit" => "by forfeit",
        "" => return Some(format!("{winner} wins")),
        n => {
            let m: f64 = n.parse().ok().filter(|m: &f64| m.is_finite() && *m > 0.0)?;
            return Some(stones_words(if winner == "Black" {
                m / 2.0
            } else {
                -m / 2.0
            }));
        }
    };
    Some(format!("{winner} wins {how}"))
}

/// The empty regions of `board` once the stones on `dead` points are taken off: for
/// every point, which colours its region touches (bit 0 Black, bit 1 White; 0 for a live
/// stone) and the region's size (0 for a live stone). Indexed by point index.
pub fn regions(board: &Board, dead: &[Point]) -> (Vec<u8>, Vec<usize>) {
    let mut cells = [Cell::Border; NUM_CELLS];
    for p in board.points() {
        cells[p.index()] = board.cell(p);
    }
    for &p in dead {
        if board.on_board(p) {
            cells[p.index()] = Cell::Empty;
        }
    }
    let mut reach = vec![0u8; NUM_CELLS];
    let mut size = vec![0usize; NUM_CELLS];
    let mut done = [false; NUM_CELLS];
    let mut region = Vec::new();
    for p in board.points() {
        if cells[p.index()] != Cell::Empty || done[p.index()] {
            continue;
        }
        region.clear();
        region.push(p);
        done[p.index()] = true;
        let mut touches = 0u8;
        let mut k = 0;
        while k < region.len() {
            for n in region[k].neighbors() {
                match cells[n.index()] {
                    Cell::Black => touches |= 1,
                    Cell::White => touches |= 2,
                    Cell::Empty if !done[n.index()] => {
                        done[n.index()] = true;
                        region.push(n);
                    }
                    _ => {}
                }
            }
            k += 1;
        }
        for &q in &region {
            reach[q.index()] = touches;
            size[q.index()] = region.len();
        }
    }
    (reach, size)
}

/// Black's area minus White's with every stone alive and no komi (Tromp-Taylor).
pub fn area_difference(board: &Board) -> i32 {
    let s = area(board, &[], 0.0, 0.0);
    s.black_area as i32 - s.white_area as i32
}

/// How surely an ownership must give an empty point reached by both colours to one of
/// them for the count to give it to that colour (ownership in [-1, 1]: 0.8 in nine
/// simulations out of ten, as the end of the game settles an area). A seki's shared
/// liberties and dame stay near 0. On `scripts/score_corpus.py` 0.7 and 0.8 keep the
/// network's 142/148 exact counts; 0.5 and 0.6 give a professional game's dame away.
pub const BOTH_REACH_OWNED: f32 = 0.8;

/// Counts `board` by area after removing the stones on `dead` points.
pub fn area(board: &Board, dead: &[Point], komi: f64, compensation: f64) -> Score {
    area_owned(board, dead, &[], komi, compensation)
}

/// [`area`], with an empty point reached by both colours counted to the colour that
/// `own` (Black's ownership by point index, in [-1, 1]; empty for none) gives it beyond
/// [`BOTH_REACH_OWNED`]: the inside of a living group that the opponent's wall touches
/// (an unfinished boundary) is its owner's, as GNU Go and KataGo count it.
pub fn area_owned(
    board: &Board,
    dead: &[Point],
    own: &[f32],
    komi: f64,
    compensation: f64,
) -> Score {
    let (reach, size) = regions(board, dead);
    let mut score = Score {
        points: board.size() * board.size(),
        black_area: 0,
        white_area: 0,
        neutral: 0,
        komi,
        compensation,
    };
    for p in board.points() {
        if size[p.index()] == 0 {
            // A live stone.
            match board.get(p) {
                Some(Color::Black) => score.black_area += 1,
                Some(Color::White) => score.white_area += 1,
                None => {}
            }
            continue;
        }
        let owned = own.get(p.index()).copied().unwrap_or(0.0);
        match reach[p.index()] {
            1 => score.black_area += 1,
            2 => score.white_area += 1,
            3 if owned >= BOTH_REACH_OWNED => score.black_area += 1,
            3 if owned <= -BOTH_REACH_OWNED => score.white_area += 1,
            _ => score.neutral += 1,
        }
    }
    score
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stones_form() {
        let s = Score {
            points: 361,
            black_area: 185,
            white_area: 176,
            neutral: 0,
            komi: 7.5,
            compensation: 0.0,
        };
        assert_eq!(s.margin(), 1.5);
        assert_eq!(s.result_string(), "B+1.5");
        assert_eq!(s.black_target(), 184.25);
        assert_eq!(s.in_stones(), "Black wins by 3/4 stone");
        let s = Score {
            black_area: 180,
            white_area: 181,
            ..s
        };
        assert_eq!(s.result_string(), "W+8.5");
        assert_eq!(s.in_stones(), "White wins by 4 1/4 stones");
        assert_eq!(
            result_in_words(&s.result_string()).as_deref(),
            Some("White wins by 4 1/4 stones")
        );
    }

    #[test]
    fn empty_board() {
        let b = Board::new(9).unwrap();
        let s = area(&b, &[], 7.5, 0.0);
        assert_eq!((s.black_area, s.white_area, s.neutral), (0, 0, 81));
        assert_eq!(s.result_string(), "W+7.5");
        let s = area(&b, &[], 0.0, 0.0);
        assert_eq!(s.result_string(), "0");
    }

    #[test]
    fn both_reached_points_go_to_their_clear_owner() {
        // 5x5: Black's wall on column B, White's on column D; column C between them
        // reaches both colours. An ownership that gives C1-C3 clearly to Black and C4-C5
        // to nobody in particular (a seki's liberties, dame) counts C1-C3 to Black.
        let mut b = Board::new(5).unwrap();
        for r in 0..5 {
            b.place(Color::Black, Point::from_coord(1, r));
            b.place(Color::White, Point::from_coord(3, r));
        }
        let mut own = vec![0f32; NUM_CELLS];
        for r in 0..3 {
            own[Point::from_coord(2, r).index()] = 0.9;
        }
        own[Point::from_coord(2, 3).index()] = -0.5;
        let s = area_owned(&b, &[], &own, 0.0, 0.0);
        assert_eq!((s.black_area, s.white_area, s.neutral), (13, 10, 2));
        // Without an ownership, the whole column counts to nobody.
        let s = area(&b, &[], 0.0, 0.0);
        assert_eq!((s.black_area, s.white_area, s.neutral), (10, 10, 5));
    }

    #[test]
    fn results_in_words() {
        let w = |r: &str| result_in_words(r);
        assert_eq!(w("B+1.5").as_deref(), Some("Black wins by 3/4 stone"));
        assert_eq!(w("B+0.5").as_deref(), Some("Black wins by 1/4 stone"));
        assert_eq!(w("W+2").as_deref(), Some("White wins by 1 stone"));
        assert_eq!(w("W+8.5").as_deref(), Some("White wins by 4 1/4 stones"));
        assert_eq!(w("W+R").as_deref(), Some("White wins by resignation"));
        assert_eq!(w("B+T").as_deref(), Some("Black wins on time"));
        assert_eq!(w("0").as_deref(), Some("Draw"));
        assert_eq!(w("Void"), None);
        assert_eq!(w("B+x"), None);
    }
}
