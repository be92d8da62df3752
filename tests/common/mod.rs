//! Helpers shared by the integration tests.

pub mod alloc;
pub mod gtp;
pub mod tiny_net;

use std::process::Command;

use tengen::{Color, Game, Point, Rules};

/// The engine under test. Every test starts it through [`tengen`] or [`engine_command`],
/// which pin the playout search (`TENGEN_MODEL=none`: a network fetched to the default
/// place must not change what the tests pin; an explicit `--model` still wins), so that
/// `cargo run` plays with the network while `cargo test` does not
/// (`tests_start_the_engine_through_common` checks that no test names the binary itself).
pub const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");

/// A command for the engine under test, without the network unless `--model` names one.
pub fn tengen() -> Command {
    let mut c = Command::new(TENGEN);
    c.env("TENGEN_MODEL", "none");
    c
}

/// The engine under test with `args` as a command line for a GTP client that takes no
/// environment (`env TENGEN_MODEL=none tengen ARGS`: `env` execs it, the same process).
pub fn engine_command(args: &[&str]) -> Vec<String> {
    ["env", "TENGEN_MODEL=none", TENGEN]
        .iter()
        .chain(args)
        .map(|s| s.to_string())
        .collect()
}

/// Every test file starts the engine through this module: `CARGO_BIN_EXE_tengen` named
/// nowhere else under tests/ (else its engine would load a fetched network).
#[test]
fn tests_start_the_engine_through_common() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut stack = vec![root.clone()];
    let mut offenders = Vec::new();
    let needle = concat!("CARGO_BIN_EXE", "_tengen");
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs")
                && path != root.join("common/mod.rs")
                && std::fs::read_to_string(&path).unwrap().contains(needle)
            {
                offenders.push(path.display().to_string());
            }
        }
    }
    assert!(
        offenders.is_empty(),
        "engine started without the pin: {offenders:?}"
    );
}

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
