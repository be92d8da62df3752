//! Match statistics: the Wilson score interval of a win rate and the Elo difference it
//! implies.

/// z for a two-sided 95% interval.
pub const Z95: f64 = 1.959_963_984_540_054;

/// The Wilson score interval of `score` successes (draws as halves) in `n` games at
/// normal quantile `z`; (0, 1) for no games.
pub fn wilson(score: f64, n: usize, z: f64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let n = n as f64;
    let p = score / n;
    let z2 = z * z;
    let denom = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denom;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// The Elo difference of a player who scores the fraction `p`: 400·log10(p / (1 − p));
/// ±infinity at 1 and 0.
pub fn elo(p: f64) -> f64 {
    if p <= 0.0 {
        f64::NEG_INFINITY
    } else if p >= 1.0 {
        f64::INFINITY
    } else {
        400.0 * (p / (1.0 - p)).log10()
    }
}

/// An Elo figure as a whole number, or `inf` / `-inf`.
pub fn elo_text(e: f64) -> String {
    if e.is_finite() {
        format!("{:.0}", e)
    } else if e > 0.0 {
        "inf".into()
    } else {
        "-inf".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Worked by hand with z = 1.96 (the code uses 1.959964: agreement to 2e-5).
    // 93 of 100, p = 0.93, z²/n = 0.038415;
    // centre = (0.93 + 0.019208) / 1.038415 = 0.914099;
    // half = 1.96 · sqrt(0.93 · 0.07 / 100 + 3.8415 / 40000) / 1.038415
    //      = 1.96 · sqrt(0.000651 + 0.0000960) / 1.038415 = 0.051588;
    // interval 0.862511 – 0.965687. Elo: 400 · log10(0.93 / 0.07) = 400 · 1.123385 = 449.35.
    #[test]
    fn wilson_and_elo_by_hand() {
        let (lo, hi) = wilson(93.0, 100, Z95);
        assert!((lo - 0.862511).abs() < 2e-5, "{lo}");
        assert!((hi - 0.965687).abs() < 2e-5, "{hi}");
        assert!((elo(0.93) - 449.35).abs() < 0.01, "{}", elo(0.93));
        // 20 of 40: centre 0.5, half = 1.96 · sqrt(0.00625 + 0.0006002) / 1.096037
        // = 0.148013.
        let (lo, hi) = wilson(20.0, 40, Z95);
        assert!((lo - 0.351987).abs() < 2e-5 && (hi - 0.648013).abs() < 2e-5);
        assert_eq!(elo(0.5), 0.0);
        // 0 of 10: lower bound 0, upper z²/n / (1 + z²/n) = 0.384146 / 1.384146 = 0.277533.
        let (lo, hi) = wilson(0.0, 10, Z95);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.277533).abs() < 2e-5);
        assert_eq!(elo_text(elo(0.0)), "-inf");
        assert_eq!(elo_text(elo(1.0)), "inf");
        assert_eq!(elo_text(elo(0.93)), "449");
        // Elo of 0.75: 400 · log10(3) = 190.85.
        assert!((elo(0.75) - 190.849).abs() < 0.001);
        assert_eq!(wilson(0.0, 0, Z95), (0.0, 1.0));
    }
}
