//! Tengen: a Go (weiqi, baduk) engine speaking GTP v2 and playing Chinese rules, with a
//! PUCT search on KataGo networks it evaluates itself (`nn`) and, with no network, a
//! playout search.
//!
//! Layers, dependencies pointing one way:
//! `board` <- `rules`/`game`/`score` <- {`playout`, `policy`, `nn`} <- `search` <- `status`
//! <- `engine` <- `gtp` <- `cli` <- `main`; `life` (exact reading of small enclosed
//! fights) and `dead` (dead stones from an ownership map) sit below `status`;
//! `sgf`/`record` (game records), `notation` (the text forms of moves, colours and the
//! board), `handicap` (placement) and `time` (time systems, clocks, move budgets) sit
//! beside `game`; `limits` (the ranges every number from outside must lie in) and `log`
//! serve every layer. The tools (`tools/`: bench, match, regress, selfplay, review and its
//! plot, train, the analysis engine, the fuzz targets) use the library, which never uses
//! them. ARCHITECTURE.md says which file owns what.
//!
//! The rules API in a few lines: the test `crate_example` at the end of this file (a unit
//! test rather than a doc test, which would cost a fresh clone's `cargo test` a build of
//! its own).

pub mod board;
pub mod cli;
pub mod dead;
pub mod engine;
pub mod game;
pub mod gtp;
pub mod handicap;
pub mod life;
pub mod limits;
pub mod log;
pub mod nn;
pub mod notation;
pub mod playout;
pub mod policy;
pub mod record;
pub mod rules;
pub mod score;
pub mod search;
pub mod sgf;
pub mod status;
pub mod time;
pub mod tools;

pub use board::{Board, Cell, Color, IllegalMove, Move, Point, MAX_SIZE};
pub use game::{Game, SetupError};
pub use rules::{KoRule, Rules};
pub use score::Score;

#[cfg(test)]
mod tests {
    use crate::{Color, Game, IllegalMove, Move, Rules};

    /// A capture, suicide refused, two passes ending the game, the area count, undo.
    #[test]
    fn crate_example() {
        let mut game = Game::new(9, Rules::chinese()).unwrap();
        let b = game.board();
        let (a1, b1, a2) = (
            b.point(0, 0).unwrap(),
            b.point(1, 0).unwrap(),
            b.point(0, 1).unwrap(),
        );
        game.play(Color::Black, Move::Place(a1)).unwrap();
        game.play(Color::White, Move::Place(b1)).unwrap();
        game.play(Color::Black, Move::Pass).unwrap();
        game.play(Color::White, Move::Place(a2)).unwrap(); // captures A1
        assert_eq!(game.board().captures(Color::White), 1);
        // A1 is now White's eye: Black may not play there.
        assert_eq!(
            game.check(Color::Black, Move::Place(a1)),
            Err(IllegalMove::Suicide)
        );
        game.play(Color::Black, Move::Pass).unwrap();
        game.play(Color::White, Move::Pass).unwrap();
        assert!(game.is_over());
        // White owns the whole board by area; komi 7.5 on top.
        assert_eq!(game.score(&[]).result_string(), "W+88.5");
        assert!(game.undo());
        assert!(!game.is_over());
    }
}
