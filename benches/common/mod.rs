//! The benches' small timing harness (no criterion: its ninety crates were built by every
//! `cargo test`): each bench runs in batches for about two seconds after a warm-up and
//! reports the median batch's rate and the spread. Knows nothing of what it times.

use std::time::{Duration, Instant};

/// The bench filter: `cargo bench` passes `--bench`; the first other argument is it.
pub fn filter() -> Option<String> {
    std::env::args().skip(1).find(|a| !a.starts_with('-'))
}

/// Seconds per unit of work of the median batch, and of the fastest and slowest.
pub struct Timing {
    pub median: f64,
    pub fastest: f64,
    pub slowest: f64,
}

/// Times `f` (which does `elements` units of work a call) unless `filter` leaves `name`
/// out: 20 batches' time per unit, each batch sized to take ~0.1 s.
pub fn time(
    name: &str,
    filter: &Option<String>,
    elements: u64,
    mut f: impl FnMut(),
) -> Option<Timing> {
    if filter.as_ref().is_some_and(|w| !name.contains(w.as_str())) {
        return None;
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
    Some(Timing {
        median: per_unit[per_unit.len() / 2],
        fastest: per_unit[0],
        slowest: per_unit[per_unit.len() - 1],
    })
}

/// [`time`], printed as units a second and microseconds a unit.
#[allow(dead_code)]
pub fn bench(name: &str, filter: &Option<String>, elements: u64, f: impl FnMut()) {
    if let Some(t) = time(name, filter, elements, f) {
        println!(
            "{name:<20} {:>12.0} /s   {:>9.3} µs each   (batches {:.3}..{:.3} µs)",
            1.0 / t.median,
            t.median * 1e6,
            t.fastest * 1e6,
            t.slowest * 1e6
        );
    }
}
