//! Undo replays from a checkpoint every 16 moves: every position on the way back must be
//! the one that was played (stones, captures, ko, legal moves), and the move limit holds.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use tengen::game::MAX_GAME_MOVES;
use tengen::{Color, Game, IllegalMove, Move, Rules};

fn snapshot(g: &Game) -> String {
    let b = g.board();
    format!(
        "{:?} {} {} {:?} {:?}",
        b,
        b.captures(Color::Black),
        b.captures(Color::White),
        g.legal_points(Color::Black),
        g.legal_points(Color::White)
    )
}

#[test]
fn undo_walks_back_through_every_position() {
    let mut rng = SmallRng::seed_from_u64(5);
    for size in [5, 9, 13] {
        let mut g = Game::new(size, Rules::chinese()).unwrap();
        let mut seen = vec![snapshot(&g)];
        let mut color = Color::Black;
        while g.moves().len() < 150 {
            let legal = g.legal_points(color);
            let mv = if legal.is_empty() || rng.random_range(0..20) == 0 {
                Move::Pass
            } else {
                Move::Place(legal[rng.random_range(0..legal.len())])
            };
            g.play(color, mv).unwrap();
            seen.push(snapshot(&g));
            color = color.opponent();
            // Now and then go back a few moves and on again, across checkpoints.
            if rng.random_range(0..10) == 0 {
                for _ in 0..rng.random_range(1..20).min(g.moves().len()) {
                    assert!(g.undo());
                    seen.pop();
                    assert_eq!(&snapshot(&g), seen.last().unwrap());
                }
                color = g.to_move();
            }
        }
        while g.undo() {
            seen.pop();
            assert_eq!(&snapshot(&g), seen.last().unwrap(), "size {size}");
        }
        assert_eq!(seen.len(), 1);
    }
}

#[test]
fn a_game_holds_at_most_the_move_limit() {
    let mut g = Game::new(9, Rules::chinese()).unwrap();
    for i in 0..MAX_GAME_MOVES {
        let c = if i.is_multiple_of(2) {
            Color::Black
        } else {
            Color::White
        };
        g.play(c, Move::Pass).unwrap();
    }
    assert_eq!(
        g.play(Color::Black, Move::Pass),
        Err(IllegalMove::TooManyMoves)
    );
    assert_eq!(g.moves().len(), MAX_GAME_MOVES);
    assert!(g.undo());
    assert!(g.play(Color::White, Move::Pass).is_ok());
}
