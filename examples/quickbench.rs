use rand::{rngs::SmallRng, SeedableRng};
use tengen::{Board, Color};
fn main() {
    for size in [9usize, 19] {
        let base = Board::new(size).unwrap();
        let mut rng = SmallRng::seed_from_u64(1);
        let t = std::time::Instant::now();
        let mut n = 0u64;
        let mut moves = 0u64;
        let mut score = 0i64;
        while t.elapsed().as_secs_f64() < 2.0 {
            for _ in 0..100 {
                let mut b = base.clone();
                moves += b.playout(Color::Black, &mut rng) as u64;
                score += b.area_score() as i64;
                n += 1;
            }
        }
        let s = t.elapsed().as_secs_f64();
        println!(
            "size={size} playouts/s={:.0} moves/playout={:.1} avg_score={:.2}",
            n as f64 / s,
            moves as f64 / n as f64,
            score as f64 / n as f64
        );
    }
}
