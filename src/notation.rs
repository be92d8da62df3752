//! The text forms of moves, colours and the board, for every front end (GTP, the tools,
//! the logs): `D4`, `pass`, `black`, `B`, the `showboard` diagram. Formatting only; the
//! GTP parsers are in `gtp::parse`.

use std::fmt::Write as _;

use crate::board::{Cell, Color, Move, Point};
use crate::game::Game;

/// The GTP column letter of 0-based column `col`: `A` to `Z` skipping `I`.
pub fn column_letter(col: usize) -> char {
    match col {
        0..=7 => char::from(b'A' + col as u8),
        8..=24 => char::from(b'A' + col as u8 + 1),
        _ => '?',
    }
}

/// The GTP text of a move (`D4`, `pass`).
pub fn move_text(mv: Move) -> String {
    match mv {
        Move::Pass => "pass".to_string(),
        Move::Place(p) => {
            let (col, row) = p.coord();
            format!("{}{}", column_letter(col), row + 1)
        }
    }
}

/// The GTP name of a colour: `black` or `white`.
pub fn color_name(color: Color) -> &'static str {
    match color {
        Color::Black => "black",
        Color::White => "white",
    }
}

/// The one-letter form of a colour: `B` or `W` (as in `showboard` or SGF).
pub fn color_letter(color: Color) -> char {
    match color {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

/// The board diagram of `showboard` (no empty lines).
pub fn diagram(game: &Game) -> String {
    let b = game.board();
    let n = b.size();
    let letters: String = (0..n).map(|c| format!(" {}", column_letter(c))).collect();
    let mut s = String::new();
    let _ = writeln!(s, "   {letters}");
    for row in (0..n).rev() {
        let _ = write!(s, "{:>2} ", row + 1);
        for col in 0..n {
            let p = Point::from_coord(col, row);
            let ch = match b.cell(p) {
                Cell::Black => 'X',
                Cell::White => 'O',
                _ if b.ko().map(|k| k.0) == Some(p) => '*',
                _ => '.',
            };
            let _ = write!(s, " {ch}");
        }
        let _ = write!(s, " {:<2}", row + 1);
        match row {
            r if r == n - 1 => {
                let _ = write!(
                    s,
                    "    WHITE (O) has captured {} stones",
                    b.captures(Color::White)
                );
            }
            r if n >= 2 && r == n - 2 => {
                let _ = write!(
                    s,
                    "    BLACK (X) has captured {} stones",
                    b.captures(Color::Black)
                );
            }
            _ => {}
        }
        s.push('\n');
    }
    let _ = write!(s, "   {letters}");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_forms() {
        assert_eq!(color_name(Color::Black), "black");
        assert_eq!(color_name(Color::White), "white");
        assert_eq!(color_letter(Color::White), 'W');
        assert_eq!(column_letter(7), 'H');
        assert_eq!(column_letter(8), 'J');
        assert_eq!(column_letter(24), 'Z');
        assert_eq!(move_text(Move::Pass), "pass");
        assert_eq!(move_text(Move::Place(Point::from_coord(3, 3))), "D4");
    }
}
