//! The ranges every number from outside must lie in, whichever door it comes through:
//! GTP commands, SGF records (`KM`, `TM`, `OT`) and the command line. One place, so that
//! a value refused by one door is refused by all.

/// Largest komi accepted, either sign: far beyond any score (a 25x25 board has 625
/// points), so a typo such as `1e308` is refused instead of printed back in 309 digits.
pub const MAX_KOMI: f64 = 1000.0;
/// Longest time accepted in a time setting or `time_left`, in seconds (about three years).
pub const MAX_SECONDS: u32 = 100_000_000;
/// Most stones (or periods) accepted in a time setting or `time_left`.
pub const MAX_STONES: u32 = 100_000;

/// A komi: finite, at most [`MAX_KOMI`] either way.
pub fn komi_ok(komi: f64) -> bool {
    komi.is_finite() && komi.abs() <= MAX_KOMI
}

/// A time in seconds (main time, a period, a move's time): finite, 0..=[`MAX_SECONDS`].
pub fn seconds_ok(seconds: f64) -> bool {
    seconds.is_finite() && (0.0..=MAX_SECONDS as f64).contains(&seconds)
}

/// Stones or periods of a time setting: 0..=[`MAX_STONES`].
pub fn stones_ok(stones: u64) -> bool {
    stones <= u64::from(MAX_STONES)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn komi_and_seconds_refuse_what_is_not_a_finite_number_in_range() {
        for k in [0.0, 7.5, -1000.0, 1000.0, 0.25] {
            assert!(komi_ok(k), "{k}");
        }
        for k in [
            f64::NAN,
            f64::INFINITY,
            -f64::INFINITY,
            1e308,
            1000.5,
            -1000.5,
        ] {
            assert!(!komi_ok(k), "{k}");
        }
        for t in [0.0, 0.5, 100_000_000.0] {
            assert!(seconds_ok(t), "{t}");
        }
        for t in [f64::NAN, f64::INFINITY, -0.5, 1e9] {
            assert!(!seconds_ok(t), "{t}");
        }
        assert!(stones_ok(100_000) && !stones_ok(100_001));
    }
}
