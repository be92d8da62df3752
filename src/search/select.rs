//! The selection formula, alone: which child a descent follows.
//!
//! A child's urgency blends its own win rate `Q` (priors added as equivalent experience)
//! with its AMAF win rate `A` by Gelly & Silver's (2011) minimum-MSE schedule
//! `beta = a / (a + n + n * a / K)`, `n` the child's visits plus prior visits, `a` its
//! AMAF visits, `K` the RAVE equivalence. There is no UCB term: the priors and the AMAF
//! statistics explore (a UCB constant was a knob until issue 40 retired it: it never
//! helped).

use std::sync::atomic::Ordering::Relaxed;

use super::tree::{NodeId, Stats, Tree};
use super::SearchConfig;

/// The urgency of a child with statistics `s`.
#[inline]
pub fn urgency(s: &Stats, rave_equiv: f64) -> f64 {
    let n = (s.visits + s.prior_visits) as f64;
    let q = if n > 0.0 {
        (s.wins + s.prior_wins) as f64 / (2.0 * n)
    } else {
        0.5
    };
    let a = s.amaf_visits as f64;
    if a > 0.0 {
        let amaf = s.amaf_wins as f64 / (2.0 * a);
        let beta = a / (a + n + n * a / rave_equiv);
        beta * amaf + (1.0 - beta) * q
    } else {
        q
    }
}

/// The child of `id` with the highest urgency (first of equals), skipping pruned ones.
///
/// The urgency is one fraction (see [`urgency_fraction`]), and children are compared by
/// cross-multiplying, with no division in the loop: this is the hottest loop of the
/// tree, every descent runs it over every child.
pub fn best_child(tree: &Tree, id: NodeId, cfg: &SearchConfig) -> Option<NodeId> {
    let k = cfg.rave_equiv;
    let mut best = None;
    let (mut best_num, mut best_den) = (f64::NEG_INFINITY, 1.0f64);
    for c in tree.node(id).children() {
        let node = tree.node(c);
        if node.is_pruned() {
            continue;
        }
        let (num, den) = urgency_fraction(
            node.visits.load(Relaxed) + node.prior_visits.load(Relaxed),
            node.wins.load(Relaxed) + node.prior_wins.load(Relaxed),
            node.amaf_visits.load(Relaxed),
            node.amaf_wins.load(Relaxed),
            k,
        );
        if num * best_den > best_num * den {
            best_num = num;
            best_den = den;
            best = Some(c);
        }
    }
    best
}

/// [`urgency`] as a fraction `num / den` (`den > 0`), from the
/// visits `n` and half-point wins `w` (priors included) and the AMAF visits `a` and
/// half-point wins `aw`. With `beta = a K / D`, `D = a K + n K + n a`, the blend
/// `beta aw / 2a + (1 - beta) w / 2n` is `(K aw + (K + a) w) / 2D`.
#[inline]
pub fn urgency_fraction(n: u32, w: u32, a: u32, aw: u32, k: f64) -> (f64, f64) {
    if n == 0 && a == 0 {
        return (1.0, 2.0);
    }
    let (n, w, a, aw) = (n as f64, w as f64, a as f64, aw as f64);
    let num = k * aw + (k + a) * w;
    let den = 2.0 * (k * (a + n) + n * a);
    (num, den)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(visits: u32, wins: u32, amaf_visits: u32, amaf_wins: u32) -> Stats {
        Stats {
            visits,
            wins,
            amaf_visits,
            amaf_wins,
            ..Stats::default()
        }
    }

    #[test]
    fn amaf_dominates_early_and_fades() {
        // Few visits: the AMAF rate (0.9) weighs most.
        let early = urgency(&stats(2, 0, 200, 360), 3000.0);
        assert!(early > 0.8, "{early}");
        // Many visits: the move's own rate (0.2) takes over.
        let late = urgency(&stats(100_000, 40_000, 200_000, 360_000), 3000.0);
        assert!((late - 0.2).abs() < 0.05, "{late}");
        // No information at all: an even 0.5.
        assert_eq!(urgency(&Stats::default(), 3000.0), 0.5);
        // Priors count as experience.
        let p = Stats {
            prior_visits: 10,
            prior_wins: 20,
            ..Stats::default()
        };
        assert_eq!(urgency(&p, 3000.0), 1.0);
    }

    #[test]
    fn the_fraction_is_the_urgency() {
        for &(n, w, a, aw) in &[
            (0, 0, 0, 0),
            (0, 0, 5, 7),
            (3, 4, 0, 0),
            (10, 13, 200, 150),
            (100_000, 80_000, 200_000, 360_000),
            (7, 14, 1, 2),
        ] {
            let s = Stats {
                visits: n,
                wins: w,
                amaf_visits: a,
                amaf_wins: aw,
                ..Stats::default()
            };
            let (num, den) = urgency_fraction(n, w, a, aw, 3000.0);
            let u = urgency(&s, 3000.0);
            assert!(
                (num / den - u).abs() < 1e-12,
                "{n} {w} {a} {aw}: {} vs {u}",
                num / den
            );
        }
    }
}
