//! The totals over finished games (wins by side and colour, move times, losses by
//! reason, who counted) and their text: the human summary, with the Wilson interval and
//! the Elo estimate, and the last machine-readable line. Knows nothing of engines or of
//! how the games were played.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::args::MatchArgs;
use super::result::{GameResult, MoveTimes, Reason, Side};
use super::stats;

/// Totals over finished games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: usize,
    pub a_wins: usize,
    pub b_wins: usize,
    pub draws: usize,
    /// A's wins as Black and games as Black; the same as White.
    pub a_black: (usize, usize),
    pub a_white: (usize, usize),
    pub black_wins: usize,
    pub times: [MoveTimes; 2],
    /// Losses by reason for A and B: illegal, time, crash (died or no answer).
    pub illegal: [usize; 2],
    pub time_losses: [usize; 2],
    pub crashes: [usize; 2],
    pub timeouts: [usize; 2],
    pub other_forfeits: usize,
    pub scorers: BTreeMap<String, usize>,
    pub names: [String; 2],
}

impl Summary {
    pub fn of(results: &[GameResult]) -> Summary {
        let mut s = Summary {
            names: ["?".into(), "?".into()],
            ..Summary::default()
        };
        for r in results {
            s.games += 1;
            for i in 0..2 {
                if s.names[i] == "?" {
                    s.names[i] = r.names[i].clone();
                }
                let t = &mut s.times[i];
                t.moves += r.times[i].moves;
                t.total += r.times[i].total;
                t.longest = t.longest.max(r.times[i].longest);
            }
            let a_won = r.winner == Some(Side::A);
            match r.winner {
                Some(Side::A) => s.a_wins += 1,
                Some(Side::B) => s.b_wins += 1,
                None => s.draws += 1,
            }
            let bucket = if r.black == Side::A {
                &mut s.a_black
            } else {
                &mut s.a_white
            };
            bucket.1 += 1;
            bucket.0 += usize::from(a_won);
            if r.winner == Some(r.black) {
                s.black_wins += 1;
            }
            if let Some(w) = r.winner {
                let loser = w.other().index();
                match r.reason {
                    Reason::Illegal => s.illegal[loser] += 1,
                    Reason::Time => s.time_losses[loser] += 1,
                    Reason::Crash => s.crashes[loser] += 1,
                    Reason::Timeout => s.timeouts[loser] += 1,
                    Reason::BadGenmove | Reason::Refused => s.other_forfeits += 1,
                    _ => {}
                }
            }
            *s.scorers.entry(r.scorer.clone()).or_default() += 1;
        }
        s
    }

    /// A's score: wins plus half the draws.
    pub fn a_score(&self) -> f64 {
        self.a_wins as f64 + self.draws as f64 / 2.0
    }

    pub fn winrate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.a_score() / self.games as f64
        }
    }

    /// The last line on stdout. `crashes` counts engines that died or stopped answering.
    pub fn machine_line(&self) -> String {
        let (lo, hi) = stats::wilson(self.a_score(), self.games, stats::Z95);
        format!(
            "games={} a_wins={} winrate={:.3} ci95={:.3}-{:.3} elo={} illegal={} time_losses={} crashes={}",
            self.games,
            self.a_wins,
            self.winrate(),
            lo,
            hi,
            stats::elo_text(stats::elo(self.winrate())),
            self.illegal[0] + self.illegal[1],
            self.time_losses[0] + self.time_losses[1],
            self.crashes[0] + self.crashes[1] + self.timeouts[0] + self.timeouts[1],
        )
    }

    pub fn text(&self, title: &Title) -> String {
        let (lo, hi) = stats::wilson(self.a_score(), self.games, stats::Z95);
        let e = |p: f64| stats::elo_text(stats::elo(p));
        let mean = |t: &MoveTimes| {
            if t.moves == 0 {
                0.0
            } else {
                t.total / t.moves as f64
            }
        };
        let mut s = String::new();
        let _ = writeln!(s, "A: {} [{}]", self.names[0], title.a);
        let _ = writeln!(s, "B: {} [{}]", self.names[1], title.b);
        let _ = writeln!(
            s,
            "{}x{} komi {}, {} games: A won {}, B won {}, draws {}",
            title.size, title.size, title.komi, self.games, self.a_wins, self.b_wins, self.draws
        );
        let _ = writeln!(
            s,
            "A's win rate {:.3} (95% Wilson interval {:.3}-{:.3}); Elo A-B {} (95% interval {} to {})",
            self.winrate(),
            lo,
            hi,
            e(self.winrate()),
            e(lo),
            e(hi)
        );
        let _ = writeln!(
            s,
            "by colour: A won {}/{} as Black, {}/{} as White; Black won {}/{}",
            self.a_black.0,
            self.a_black.1,
            self.a_white.0,
            self.a_white.1,
            self.black_wins,
            self.games
        );
        for (i, who) in ["A", "B"].iter().enumerate() {
            let t = &self.times[i];
            let _ = writeln!(
                s,
                "{who} move time: mean {:.3} s, longest {:.3} s over {} moves; lost by illegal move {}, on time {}, crash {}, no answer {}",
                mean(t), t.longest, t.moves, self.illegal[i], self.time_losses[i], self.crashes[i], self.timeouts[i]
            );
        }
        let scorers: Vec<String> = self
            .scorers
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(
            s,
            "counted by: {} ('-': decided before counting); other forfeits {}",
            scorers.join(", "),
            self.other_forfeits
        );
        s
    }
}

/// What the first lines of a summary name: the two engines' commands, the board and the
/// komi (as `match.txt` writes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title {
    pub a: String,
    pub b: String,
    pub size: String,
    pub komi: String,
}

impl Title {
    pub(super) fn of(args: &MatchArgs) -> Title {
        Title {
            a: args.a.clone(),
            b: args.b.clone(),
            size: args.size.to_string(),
            komi: args.komi.to_string(),
        }
    }

    /// From the text of a `match.txt`.
    pub(super) fn from_identity(id: &str) -> Option<Title> {
        let field = |key: &str| {
            id.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        Some(Title {
            a: field("a")?,
            b: field("b")?,
            size: field("size")?,
            komi: field("komi")?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_round_trip() {
        let r = GameResult {
            game: 7,
            black: Side::B,
            result: "W+T".into(),
            winner: Some(Side::A),
            reason: Reason::Time,
            moves: 31,
            seconds: 12.5,
            scorer: "-".into(),
            times: [
                MoveTimes {
                    moves: 16,
                    total: 3.25,
                    longest: 0.5,
                },
                MoveTimes {
                    moves: 15,
                    total: 9.0,
                    longest: 2.125,
                },
            ],
            names: ["Tengen 0.1.0".into(), "GNU Go 3.8".into()],
        };
        assert_eq!(GameResult::from_tsv(&r.tsv()), Some(r.clone()));
        let s = Summary::of(&[r]);
        assert_eq!((s.a_wins, s.a_white, s.time_losses), (1, (1, 1), [0, 1]));
        assert_eq!(
            s.machine_line(),
            "games=1 a_wins=1 winrate=1.000 ci95=0.207-1.000 elo=inf illegal=0 time_losses=1 crashes=0"
        );
    }
}
