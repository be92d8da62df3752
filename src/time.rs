//! Time: the one time system (GTP `time_settings` and `kgs-time_settings`, the match
//! runner's `--time`), the clocks as the controller reports them (`time_left`), and the
//! pure budget of a move. Seconds throughout. Knows board sizes and colours; no search,
//! no game, no GTP parsing.

use std::fmt;
use std::time::Duration;

use crate::board::Color;

/// A time system. "No limit" is its absence (`Option<TimeSystem>`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TimeSystem {
    /// Sudden death: `main` seconds for the whole game.
    Absolute { main: f64 },
    /// Japanese byo-yomi: main time, then `periods` periods of `period_time` a move; a
    /// move that ends within a period keeps it, every period overrun is lost.
    Byoyomi {
        main: f64,
        period_time: f64,
        periods: u32,
    },
    /// Canadian: main time, then `stones` moves in every `period_time`.
    Canadian {
        main: f64,
        period_time: f64,
        stones: u32,
    },
}

impl TimeSystem {
    /// GTP `time_settings main byo_time byo_stones` (Canadian by nature): byo_time 0 is
    /// absolute time; byo_time > 0 with 0 stones means no limit (GTP v2 §6.3.6).
    pub fn from_gtp(main: f64, byo_time: f64, byo_stones: u32) -> Option<TimeSystem> {
        if byo_time > 0.0 && byo_stones == 0 {
            None
        } else if byo_time == 0.0 {
            Some(TimeSystem::Absolute { main })
        } else {
            Some(TimeSystem::Canadian {
                main,
                period_time: byo_time,
                stones: byo_stones,
            })
        }
    }

    /// Parses `absolute M`, `byoyomi M P N` or `canadian M T S` (whole seconds, counts
    /// of 1 or more), the match runner's `--time`.
    pub fn parse(s: &str) -> Result<TimeSystem, String> {
        let words: Vec<&str> = s.split_whitespace().collect();
        let num = |i: usize| -> Result<f64, String> {
            words
                .get(i)
                .and_then(|w| w.parse::<f64>().ok())
                .filter(|v| crate::limits::seconds_ok(*v) && v.fract() == 0.0)
                .ok_or_else(|| format!("bad number in time system {s:?} (whole seconds)"))
        };
        let count = |i: usize| -> Result<u32, String> {
            words
                .get(i)
                .and_then(|w| w.parse::<u32>().ok())
                .filter(|&v| v >= 1 && crate::limits::stones_ok(u64::from(v)))
                .ok_or_else(|| format!("bad count in time system {s:?} (need 1 or more)"))
        };
        let kind = words.first().map(|w| w.to_ascii_lowercase());
        let sys = match (kind.as_deref(), words.len()) {
            (Some("absolute"), 2) => TimeSystem::Absolute { main: num(1)? },
            (Some("byoyomi"), 4) => TimeSystem::Byoyomi {
                main: num(1)?,
                period_time: num(2)?,
                periods: count(3)?,
            },
            (Some("canadian"), 4) => TimeSystem::Canadian {
                main: num(1)?,
                period_time: num(2)?,
                stones: count(3)?,
            },
            _ => {
                return Err(format!(
                    "time system {s:?}: use 'absolute M', 'byoyomi M P N' or 'canadian M T S'"
                ))
            }
        };
        Ok(sys)
    }

    /// `--time-per-move S`: Canadian, one stone every S seconds, no main time.
    pub fn per_move(seconds: f64) -> TimeSystem {
        TimeSystem::Canadian {
            main: 0.0,
            period_time: seconds,
            stones: 1,
        }
    }

    /// The GTP v2 `time_settings` command (Canadian by nature; byo-yomi is sent as one
    /// stone a period, which is what a byo-yomi period is while periods last).
    pub fn time_settings(&self) -> String {
        match *self {
            TimeSystem::Absolute { main } => format!("time_settings {} 0 0", main as u64),
            TimeSystem::Byoyomi {
                main, period_time, ..
            } => {
                format!("time_settings {} {} 1", main as u64, period_time as u64)
            }
            TimeSystem::Canadian {
                main,
                period_time,
                stones,
            } => format!(
                "time_settings {} {} {stones}",
                main as u64, period_time as u64
            ),
        }
    }

    /// The `kgs-time_settings` command, for engines that know it (byo-yomi only needs
    /// it).
    pub fn kgs_time_settings(&self) -> String {
        match *self {
            TimeSystem::Absolute { main } => format!("kgs-time_settings absolute {}", main as u64),
            TimeSystem::Byoyomi {
                main,
                period_time,
                periods,
            } => format!(
                "kgs-time_settings byoyomi {} {} {periods}",
                main as u64, period_time as u64
            ),
            TimeSystem::Canadian {
                main,
                period_time,
                stones,
            } => format!(
                "kgs-time_settings canadian {} {} {stones}",
                main as u64, period_time as u64
            ),
        }
    }
}

/// `absolute M`, `byoyomi M P N`, `canadian M T S`: the `kgs-time_settings` argument and
/// the short text of tables and SGF comments.
impl fmt::Display for TimeSystem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            TimeSystem::Absolute { main } => write!(f, "absolute {main}"),
            TimeSystem::Byoyomi {
                main,
                period_time,
                periods,
            } => write!(f, "byoyomi {main} {period_time} {periods}"),
            TimeSystem::Canadian {
                main,
                period_time,
                stones,
            } => write!(f, "canadian {main} {period_time} {stones}"),
        }
    }
}

/// Time left for one player, as the controller last told it (`time_left`).
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Clock {
    /// Seconds left in the current period (main time or byo-yomi period).
    pub seconds: f64,
    /// 0 while in main time; otherwise stones (Canadian) or periods (byo-yomi) left.
    pub stones: u32,
}

/// The engine's clock state: the time system (both players') and what `time_left` last
/// said of each player.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Clocks {
    system: Option<TimeSystem>,
    left: [Option<Clock>; 2],
}

impl Clocks {
    /// Sets the time system and forgets what `time_left` said.
    pub fn set_system(&mut self, system: Option<TimeSystem>) {
        self.system = system;
        self.left = [None; 2];
    }

    /// Records a `time_left` for `color`.
    pub fn set_left(&mut self, color: Color, clock: Clock) {
        self.left[color.index()] = Some(clock);
    }

    pub fn system(&self) -> Option<TimeSystem> {
        self.system
    }

    /// What `time_left` last said of `color` under this time system.
    pub fn left(&self, color: Color) -> Option<Clock> {
        self.left[color.index()]
    }
}

/// How long a move may take: the planned time, and the most when the choice is still
/// open then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    pub target: Duration,
    pub max: Duration,
    /// Whether time this move leaves unused is there for later moves (main time, a
    /// Canadian period with stones still to play after this one): only then is it worth
    /// stopping the search early when its choice is settled. In a byo-yomi period, a
    /// Canadian period of one stone, or a fixed time a move, unused time is lost.
    pub bankable: bool,
}

/// Seconds a move while no time system is set and `--move-time` does not say: 1 s on
/// 9x9 and below, 1.5 s up to 13x13, 2 s above.
pub fn default_move_time(size: usize) -> f64 {
    if size <= 9 {
        1.0
    } else if size <= 13 {
        1.5
    } else {
        2.0
    }
}

/// How long to think about a move: from the time `system` and the `clock` the mover's
/// `time_left` reported (`None`: not reported, the system's own start), on a board of
/// `size` with `empty` empty points, less `lag_margin` seconds. Without a time system:
/// `move_time` seconds, never extended.
///
/// Main time is shared over the moves this player may still make (two fifths of the
/// empty points, at least 15), weighted by the phase of the game: three quarters of the
/// share in the opening, a quarter more in the middle game. During main time a byo-yomi
/// period (or a Canadian period's share per stone) is added, since a move that runs out
/// of main time goes on in the period. In byo-yomi periods a move takes nearly the whole
/// period; in a Canadian period, the time left over the stones left. The search may
/// think up to [`Budget::max`] when the choice is still open.
pub fn budget(
    system: Option<TimeSystem>,
    clock: Option<Clock>,
    size: usize,
    empty: usize,
    move_time: f64,
    lag_margin: f64,
) -> Budget {
    let empties = empty as f64;
    let points = (size * size) as f64;
    let moves_left = (empties / 2.5).max(15.0);
    let filled = 1.0 - empties / points;
    let phase = if filled < 0.1 {
        0.75
    } else if filled < 0.55 {
        1.25
    } else {
        1.0
    };
    // (planned seconds, most seconds, whether unused time is kept), before the margin.
    let (target, max, bankable) = match system {
        None => (move_time, move_time, false),
        Some(TimeSystem::Absolute { main }) => {
            let left = clock.map_or(main, |c| c.seconds);
            let t = left / moves_left * phase;
            (t, (2.5 * t).min(left / 8.0).max(t), true)
        }
        Some(TimeSystem::Canadian {
            main,
            period_time,
            stones,
        }) => {
            let per_stone = period_time / stones.max(1) as f64;
            match clock {
                Some(c) if c.stones > 0 => {
                    let t = c.seconds / c.stones as f64;
                    // Extend only into what the remaining stones can spare.
                    let spare = c.seconds - (c.stones as f64 - 1.0) * 0.8 * t;
                    (t, spare.min(1.5 * t).max(t), c.stones > 1)
                }
                _ => {
                    let left = clock.map_or(main, |c| c.seconds);
                    let share = left / moves_left * phase;
                    let t = share + per_stone;
                    let max = (share * 2.5).min(left / 8.0).max(share) + per_stone;
                    (t, max, left > 0.0 || stones > 1)
                }
            }
        }
        Some(TimeSystem::Byoyomi {
            main, period_time, ..
        }) => match clock {
            Some(c) if c.stones > 0 => {
                let t = c.seconds.min(period_time);
                (t, t, false)
            }
            _ => {
                let left = clock.map_or(main, |c| c.seconds);
                let share = left / moves_left * phase;
                (
                    share + period_time,
                    (share * 2.5).min(left / 8.0).max(share) + period_time,
                    left > 0.0,
                )
            }
        },
    };
    // At least 3% of the most time, whatever the lag margin: the search's own
    // overrun (stopping the workers, the final judgement) is a few tens of ms.
    let margin = lag_margin.max(0.03 * max);
    let cut = |s: f64| Duration::from_secs_f64((s - margin).max(0.05).min(s.max(0.05)));
    Budget {
        target: cut(target),
        max: cut(max),
        bankable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(d: Duration) -> f64 {
        d.as_secs_f64()
    }

    /// A 9x9 board at the start (81 empty points), a lag margin of 0.2 s.
    fn on_9x9(system: Option<TimeSystem>, clock: Option<Clock>) -> Budget {
        budget(system, clock, 9, 81, 1.0, 0.2)
    }

    #[test]
    fn gtp_time_settings() {
        assert_eq!(TimeSystem::from_gtp(300.0, 30.0, 0), None);
        assert_eq!(
            TimeSystem::from_gtp(300.0, 0.0, 0),
            Some(TimeSystem::Absolute { main: 300.0 })
        );
        assert_eq!(
            TimeSystem::from_gtp(300.0, 30.0, 5),
            Some(TimeSystem::Canadian {
                main: 300.0,
                period_time: 30.0,
                stones: 5
            })
        );
    }

    #[test]
    fn parse_and_gtp_forms() {
        assert_eq!(
            TimeSystem::parse("byoyomi 60 5 3"),
            Ok(TimeSystem::Byoyomi {
                main: 60.0,
                period_time: 5.0,
                periods: 3
            })
        );
        assert!(TimeSystem::parse("byoyomi 60 5").is_err());
        assert!(TimeSystem::parse("fischer 1 2").is_err());
        assert_eq!(
            TimeSystem::parse("absolute 300").unwrap().time_settings(),
            "time_settings 300 0 0"
        );
        assert_eq!(
            TimeSystem::per_move(2.0).time_settings(),
            "time_settings 0 2 1"
        );
        let canadian = TimeSystem::parse("canadian 10 30 5").unwrap();
        assert_eq!(
            canadian.kgs_time_settings(),
            "kgs-time_settings canadian 10 30 5"
        );
        assert_eq!(canadian.to_string(), "canadian 10 30 5");
    }

    #[test]
    fn without_a_time_system_the_move_time_less_the_margin() {
        let b = on_9x9(None, None);
        assert!((secs(b.target) - 0.8).abs() < 1e-9);
        assert_eq!(b.target, b.max);
        assert!(!b.bankable);
        assert_eq!(default_move_time(9), 1.0);
        assert_eq!(default_move_time(13), 1.5);
        assert_eq!(default_move_time(19), 2.0);
    }

    #[test]
    fn main_time_is_shared_over_the_moves_left() {
        // 81 empty points: 32.4 moves left; the opening weighs three quarters: 7.5 s, up
        // to 2.5 times that when the choice is open. The margin kept back is 3% of the
        // most (0.5625 s), more than the lag margin.
        let b = on_9x9(Some(TimeSystem::Absolute { main: 324.0 }), None);
        assert!((secs(b.target) - (7.5 - 0.5625)).abs() < 1e-9);
        assert!((secs(b.max) - (18.75 - 0.5625)).abs() < 1e-9);
        assert!(b.bankable);
        // time_left says less: its seconds count, not the system's main time.
        let left = Clock {
            seconds: 32.4,
            stones: 0,
        };
        let b = on_9x9(Some(TimeSystem::Absolute { main: 324.0 }), Some(left));
        assert!((secs(b.target) - (0.75 - 0.2)).abs() < 1e-9);
    }

    #[test]
    fn a_byoyomi_period_is_nearly_all_used() {
        let system = Some(TimeSystem::Byoyomi {
            main: 0.0,
            period_time: 5.0,
            periods: 3,
        });
        let b = on_9x9(
            system,
            Some(Clock {
                seconds: 5.0,
                stones: 3,
            }),
        );
        assert!((secs(b.target) - 4.8).abs() < 1e-9);
        assert_eq!(b.target, b.max);
        assert!(!b.bankable, "byo-yomi period");
    }

    /// Early stop only where unused time is kept: main time, or a Canadian period with
    /// stones still to play after this one.
    #[test]
    fn unused_time_is_bankable_only_where_the_clock_keeps_it() {
        let bankable = |s, c| on_9x9(s, c).bankable;
        assert!(!bankable(None, None), "no time settings");
        // tengen match --time-per-move 1: Canadian, no main time, one stone a period.
        let per_move = TimeSystem::from_gtp(0.0, 1.0, 1);
        assert!(!bankable(per_move, None));
        let one = Some(Clock {
            seconds: 1.0,
            stones: 1,
        });
        assert!(!bankable(per_move, one));
        assert_eq!(
            on_9x9(per_move, one).target,
            Duration::from_secs_f64(0.8),
            "1 s less the lag margin"
        );
        // A smaller lag margin gives more time, down to 3% of the move's time kept back.
        let target = |margin| secs(budget(per_move, one, 9, 81, 1.0, margin).target);
        assert!((target(0.05) - 0.95).abs() < 1e-6);
        assert!((target(0.0) - 0.97).abs() < 1e-6);
        let five = Some(Clock {
            seconds: 10.0,
            stones: 5,
        });
        assert!(
            bankable(TimeSystem::from_gtp(0.0, 10.0, 5), five),
            "Canadian period with stones to come"
        );
        assert!(
            bankable(TimeSystem::from_gtp(60.0, 0.0, 0), None),
            "absolute time"
        );
    }

    #[test]
    fn clocks_forget_time_left_when_the_system_changes() {
        let mut c = Clocks::default();
        c.set_system(TimeSystem::from_gtp(60.0, 0.0, 0));
        c.set_left(
            Color::White,
            Clock {
                seconds: 5.0,
                stones: 0,
            },
        );
        assert_eq!(c.left(Color::White).map(|c| c.seconds), Some(5.0));
        assert_eq!(c.left(Color::Black), None);
        c.set_system(None);
        assert_eq!(c.left(Color::White), None);
        assert_eq!(c.system(), None);
    }
}
