//! Benches of the board core: `play` throughput and light playouts from the empty board on
//! 9x9 and 19x19 (PERF.md records the figures). A small harness of our own (no criterion:
//! its ninety crates were built by every `cargo test`): each bench runs in batches for
//! about two seconds after a warm-up and reports the median batch's rate and the spread.
//! `cargo bench --bench board [-- FILTER]` runs the benches whose name contains FILTER.

use std::hint::black_box;
use std::time::{Duration, Instant};
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

/// Times `f` (which does `elements` units of work a call): the median and the spread
/// (lowest to highest) of 20 batches' time per unit, each batch sized to take ~0.1 s.
fn bench(name: &str, filter: &Option<String>, elements: u64, mut f: impl FnMut()) {
    if filter.as_ref().is_some_and(|w| !name.contains(w.as_str())) {
        return;
    }
    // Warm-up, and the calls that fill a batch of about 0.1 s.
    let t0 = Instant::now();
    let mut calls = 0u64;
    while t0.elapsed() < Duration::from_millis(300) {
        f();
        calls += 1;
    }
    let per_batch = (calls / 3).max(1);
    let mut per_unit: Vec<f64> = (0..20)
        .map(|_| {
            let t = Instant::now();
            for _ in 0..per_batch {
                f();
            }
            t.elapsed().as_secs_f64() / (per_batch * elements) as f64
        })
        .collect();
    per_unit.sort_by(f64::total_cmp);
    let median = per_unit[per_unit.len() / 2];
    println!(
        "{name:<20} {:>12.0} /s   {:>9.3} µs each   (batches {:.3}..{:.3} µs)",
        1.0 / median,
        median * 1e6,
        per_unit[0] * 1e6,
        per_unit[per_unit.len() - 1] * 1e6
    );
}

fn main() {
    // `cargo bench` passes `--bench`; the first other argument is the filter.
    let filter = std::env::args().skip(1).find(|a| !a.starts_with('-'));
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
