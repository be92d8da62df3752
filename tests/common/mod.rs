//! Helpers shared by the integration tests.

pub mod gtp;

use tengen::{Color, Game, Point, Rules};

/// A game set up from a diagram (top row first; `X` Black, `O` White, anything else
/// empty) with `to_move` to play.
pub fn position(rows: &[&str], to_move: Color, rules: Rules) -> Game {
    let size = rows.len();
    let mut game = Game::new(size, rules).unwrap();
    let mut stones = Vec::new();
    for (r, line) in rows.iter().enumerate() {
        for (col, ch) in line.split_whitespace().enumerate() {
            let p = Point::from_coord(col, size - 1 - r);
            match ch {
                "X" => stones.push((Color::Black, p)),
                "O" => stones.push((Color::White, p)),
                _ => {}
            }
        }
    }
    game.set_position(&stones, to_move);
    game
}
