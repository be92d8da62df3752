//! Benches of the board core: `play` throughput and light playouts from the empty board on
//! 9x9 and 19x19 (PERF.md records the figures). A small harness of our own (no criterion:
//! its ninety crates were built by every `cargo test`): each bench runs in batches for
//! about two seconds after a warm-up and reports the median batch's rate and the spread.
//! `cargo bench --bench board [-- FILTER]` runs the benches whose name contains FILTER.
//! The harness is `common`'s, shared with the other benches.

mod common;

use common::bench;
use std::hint::black_box;
use tengen::playout::{playout, Light, PlayoutRng};
use tengen::{Board, Color, Point};

/// A fixed legal game (from a seeded playout) to replay with `play`.
fn recorded_game(size: usize) -> Vec<(Color, Option<Point>)> {
    let mut rng = PlayoutRng::seed_from_u64(42);
    let mut b = Board::new(size).unwrap();
    let mut moves = Vec::new();
    let mut c = Color::Black;
    let mut passes = 0;
    while passes < 2 && moves.len() < 3 * size * size {
        let m = b.random_move(c, &mut rng);
        match m {
            Some(p) => {
                b.play(c, p).unwrap();
                passes = 0;
            }
            None => {
                b.pass();
                passes += 1;
            }
        }
        moves.push((c, m));
        c = c.opponent();
    }
    moves
}

fn main() {
    let filter = common::filter();
    for size in [9usize, 19] {
        let game = recorded_game(size);
        let empty = Board::new(size).unwrap();
        bench(&format!("play/{size}"), &filter, game.len() as u64, || {
            let mut b = empty.clone();
            for &(c, m) in &game {
                match m {
                    Some(p) => b.play(c, p).unwrap(),
                    None => b.pass(),
                }
            }
            black_box(b.hash());
        });
    }
    for size in [9usize, 19] {
        let empty = Board::new(size).unwrap();
        let mut rng = PlayoutRng::seed_from_u64(1);
        let mut b = empty.clone();
        bench(&format!("light_playout/{size}"), &filter, 1, || {
            b.copy_from(&empty);
            black_box(playout(&mut b, Color::Black, &mut Light, &mut rng));
        });
    }
}
