//! Criterion benches of the board core: `play` throughput and light playouts from the
//! empty board on 9x9 and 19x19 (PERF.md records the figures).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
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

fn bench_play(c: &mut Criterion) {
    let mut g = c.benchmark_group("play");
    for size in [9usize, 19] {
        let game = recorded_game(size);
        let empty = Board::new(size).unwrap();
        g.throughput(Throughput::Elements(game.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(size), &game, |bch, game| {
            bch.iter(|| {
                let mut b = empty.clone();
                for &(c, m) in game {
                    match m {
                        Some(p) => b.play(c, p).unwrap(),
                        None => b.pass(),
                    }
                }
                black_box(b.hash())
            })
        });
    }
    g.finish();
}

fn bench_playouts(c: &mut Criterion) {
    let mut g = c.benchmark_group("light_playout");
    for size in [9usize, 19] {
        let empty = Board::new(size).unwrap();
        let mut rng = PlayoutRng::seed_from_u64(1);
        g.throughput(Throughput::Elements(1));
        let mut b = empty.clone();
        g.bench_function(BenchmarkId::from_parameter(size), |bch| {
            bch.iter(|| {
                b.copy_from(&empty);
                black_box(playout(&mut b, Color::Black, &mut Light, &mut rng))
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_play, bench_playouts);
criterion_main!(benches);
