//! Helpers shared by the integration tests.

pub mod alloc;
pub mod gtp;
pub mod tiny_net;

use tengen::{Color, Game, Point, Rules};

/// A ko fight on 9x9 (White to move takes the ko at E8; Black's threat is C4, White's
/// answer G4): `tests/search.rs` and `tests/puct.rs`.
pub const KO_FIGHT: [&str; 9] = [
    ". . . X X O . . .",
    ". . . X . X O . .",
    ". . . X X O . O .",
    ". . . . . . O . .",
    ". . . X X X . . .",
    ". . . O O O . . .",
    ". . . X X X . O .",
    ". . . . . . . . .",
    ". . . . . . . . .",
];

/// A finished 9x9 game with a seki: White's A4-B2 chain and Black's big group share B4
/// and A1 and nothing else (`tests/game_end.rs`, `tests/puct.rs`).
pub const SEKI_GAME: [&str; 9] = [
    ". O . O O X X X .",
    "O O O . O O X X X",
    "O O X O O X X X .",
    "O X X X O X . X X",
    "X X X O O X X X X",
    "O . X O O X X X X",
    "O X X X O O O X O",
    "O O X O O O . O O",
    ". X X X O . O . O",
];

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

/// The lead in the `TEXT` line of GoGui's best-moves graphics (`TEXT D5 43.1% (12
/// visits), lead -0.6, 40 evaluations`): -0.6.
pub fn gfx_lead(text: &str) -> f64 {
    text.split("lead ")
        .nth(1)
        .and_then(|rest| rest.split(',').next())
        .and_then(|lead| lead.parse().ok())
        .unwrap_or_else(|| panic!("no lead in {text}"))
}
