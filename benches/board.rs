//! Benches of the board core on criterion: `play` throughput (moves a second, replaying a
//! recorded random game) and light playouts from the empty board, on 9x9 and 19x19
//! (PERF.md records the figures). `cargo bench -p tengen-benches --bench board [-- FILTER]`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
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

fn board(c: &mut Criterion) {
    let mut group = c.benchmark_group("play");
    for size in [9usize, 19] {
        let game = recorded_game(size);
        let empty = Board::new(size).unwrap();
        group.throughput(Throughput::Elements(game.len() as u64));
        group.bench_function(size.to_string(), |bench| {
            bench.iter(|| {
                let mut b = empty.clone();
                for &(c, m) in &game {
                    match m {
                        Some(p) => b.play(c, p).unwrap(),
                        None => b.pass(),
                    }
                }
                black_box(b.hash())
            })
        });
    }
    group.finish();
    let mut group = c.benchmark_group("light_playout");
    group.throughput(Throughput::Elements(1));
    for size in [9usize, 19] {
        let empty = Board::new(size).unwrap();
        let mut rng = PlayoutRng::seed_from_u64(1);
        let mut b = empty.clone();
        group.bench_function(size.to_string(), |bench| {
            bench.iter(|| {
                b.copy_from(&empty);
                black_box(playout(&mut b, Color::Black, &mut Light, &mut rng))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, board);
criterion_main!(benches);
