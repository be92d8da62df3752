//! Runs a fixed number of light 9x9 playouts (default 100,000) and prints the time: a
//! repeatable workload for `valgrind --tool=callgrind` or best-of-N timing.
use tengen::playout::{playout, Light, PlayoutRng};
use tengen::{Board, Color};
fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100_000);
    let size: usize = std::env::args()
        .nth(2)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9);
    let base = Board::new(size).expect("size in 2..=25");
    let mut b = base.clone();
    let mut rng = PlayoutRng::seed_from_u64(1);
    let t = std::time::Instant::now();
    let mut moves = 0;
    for _ in 0..n {
        b.copy_from(&base);
        moves += playout(&mut b, Color::Black, &mut Light, &mut rng).moves;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{n} playouts, {moves} moves, {s:.3} s, {:.0} playouts/s",
        n as f64 / s
    );
}
