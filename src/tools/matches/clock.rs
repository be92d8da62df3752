//! The runner's own clocks: what each engine is told with `time_settings` / `time_left`,
//! and when its flag falls. Seconds throughout.

use crate::time::TimeSystem;

/// One player's clock.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RunningClock {
    pub system: TimeSystem,
    /// Main time left.
    pub main: f64,
    /// Whether main time is used up.
    pub overtime: bool,
    /// Time left in the current period (overtime only).
    pub period_left: f64,
    /// Byo-yomi: periods left; Canadian: stones left in this period.
    pub count: u32,
}

impl RunningClock {
    pub fn new(system: TimeSystem) -> RunningClock {
        let (main, period, count) = match system {
            TimeSystem::Absolute { main } => (main, 0.0, 0),
            TimeSystem::Byoyomi {
                main,
                period_time,
                periods,
            } => (main, period_time, periods),
            TimeSystem::Canadian {
                main,
                period_time,
                stones,
            } => (main, period_time, stones),
        };
        let overtime = main <= 0.0 && !matches!(system, TimeSystem::Absolute { .. });
        RunningClock {
            system,
            main,
            overtime,
            period_left: period,
            count,
        }
    }

    /// The `time_left` arguments: whole seconds and stones (0 in main time; byo-yomi
    /// periods or Canadian stones left in overtime).
    pub fn time_left(&self) -> (u64, u32) {
        if self.overtime {
            (self.period_left.max(0.0) as u64, self.count)
        } else {
            (self.main.max(0.0) as u64, 0)
        }
    }

    /// Seconds the next move may take before the flag falls (grace not included).
    pub fn available(&self) -> f64 {
        match self.system {
            TimeSystem::Absolute { .. } => self.main.max(0.0),
            TimeSystem::Byoyomi {
                period_time: period,
                ..
            } => {
                if self.overtime {
                    period * self.count as f64
                } else {
                    self.main + period * self.count as f64
                }
            }
            TimeSystem::Canadian {
                period_time: period,
                ..
            } => {
                if self.overtime {
                    self.period_left.max(0.0)
                } else {
                    self.main + period
                }
            }
        }
    }

    /// Takes `t` seconds from main time: `None` if main time covered them, else the part
    /// left for overtime (which has begun).
    fn spend_main(&mut self, t: f64) -> Option<f64> {
        if self.overtime {
            return Some(t);
        }
        if t <= self.main {
            self.main -= t;
            return None;
        }
        let rest = t - self.main;
        self.main = 0.0;
        self.overtime = true;
        Some(rest)
    }

    /// Charges a move that took `seconds`, `grace` of it forgiven; false if the flag fell.
    pub fn charge(&mut self, seconds: f64, grace: f64) -> bool {
        let t = (seconds - grace).max(0.0);
        match self.system {
            TimeSystem::Absolute { .. } => {
                self.main -= t;
                self.main >= 0.0
            }
            TimeSystem::Byoyomi {
                period_time: period,
                ..
            } => {
                let Some(t) = self.spend_main(t) else {
                    return true;
                };
                if t > period * self.count as f64 {
                    self.count = 0;
                    return false;
                }
                // Periods wholly overrun are lost; the one the move ended in is kept.
                let used = if t <= 0.0 {
                    1
                } else {
                    (t / period).ceil() as u32
                };
                self.count -= used.saturating_sub(1);
                self.period_left = period;
                true
            }
            TimeSystem::Canadian {
                period_time: period,
                stones,
                ..
            } => {
                // The period and its stones stand as `new` set them until overtime.
                let Some(t) = self.spend_main(t) else {
                    return true;
                };
                self.period_left -= t;
                if self.period_left < 0.0 {
                    return false;
                }
                self.count -= 1;
                if self.count == 0 {
                    self.period_left = period;
                    self.count = stones;
                }
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_flag() {
        let mut c = RunningClock::new(TimeSystem::Absolute { main: 10.0 });
        assert!(c.charge(6.0, 1.0));
        assert_eq!(c.time_left(), (5, 0));
        assert!(c.charge(6.0, 1.0)); // exactly used up
        assert!(!c.charge(1.5, 1.0));
    }

    #[test]
    fn byoyomi_periods() {
        let mut c = RunningClock::new(TimeSystem::Byoyomi {
            main: 10.0,
            period_time: 5.0,
            periods: 3,
        });
        assert!(c.charge(8.0, 0.0));
        assert_eq!(c.time_left(), (2, 0));
        // 2 s of main, then 4 s into the first period: kept.
        assert!(c.charge(6.0, 0.0));
        assert_eq!((c.overtime, c.count), (true, 3));
        assert_eq!(c.time_left(), (5, 3));
        // 11 s ends in the third period: two periods lost, one left.
        assert!(c.charge(11.0, 0.0));
        assert_eq!(c.count, 1);
        assert_eq!(c.available(), 5.0);
        assert!(c.charge(5.0, 0.0));
        assert!(!c.charge(5.5, 0.0));
    }

    #[test]
    fn canadian_periods() {
        let mut c = RunningClock::new(TimeSystem::per_move(2.0));
        assert!(c.overtime);
        assert_eq!(c.time_left(), (2, 1));
        assert!(c.charge(2.5, 1.0));
        assert_eq!(c.time_left(), (2, 1));
        assert!(!c.charge(3.5, 1.0));
        let mut c = RunningClock::new(TimeSystem::Canadian {
            main: 1.0,
            period_time: 10.0,
            stones: 2,
        });
        assert_eq!(c.available(), 11.0);
        assert!(c.charge(4.0, 0.0)); // 1 s main, 3 s of the period, one stone
        assert_eq!(c.time_left(), (7, 1));
        assert!(c.charge(6.0, 0.0)); // period done in time: a new one
        assert_eq!(c.time_left(), (10, 2));
        assert!(c.charge(9.0, 0.0));
        assert!(!c.charge(1.5, 0.0));
    }
}
