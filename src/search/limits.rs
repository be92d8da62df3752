//! How long one search may run: playouts, a planned and a longest time, early stops, the
//! stop signal (input, `# interrupt`, the clock) and the root moves allowed. The run
//! checks them; the engine builds them (from its clocks) in one place.

use std::time::Duration;

use crate::board::Move;

/// How long one search may run. It stops at the first limit reached, or when `stop`
/// answers true (checked every few playouts).
pub struct Limits<'a> {
    pub playouts: Option<u64>,
    /// The time the search means to take.
    pub time: Option<Duration>,
    /// The time it may take when the choice is still open at `time`: the best two moves
    /// close in visits, or the best move changed late. At most this long in any case
    /// (`None`: `time` is a hard limit).
    pub max_time: Option<Duration>,
    /// Stop early when the most visited move can no longer be overtaken in the time left.
    pub early_stop: bool,
    pub stop: &'a (dyn Fn() -> bool + Sync),
    /// Root moves the search may consider (analysis `avoid` / `allow`); `None`: all.
    pub root_filter: Option<&'a (dyn Fn(Move) -> bool + Sync)>,
}

impl Limits<'_> {
    /// Exactly `n` playouts, whatever the threads.
    pub fn playouts(n: u64) -> Limits<'static> {
        Limits {
            playouts: Some(n),
            ..Limits::none()
        }
    }

    /// `time` and no longer: a hard limit.
    pub fn time(time: Duration) -> Limits<'static> {
        Limits {
            time: Some(time),
            ..Limits::none()
        }
    }

    /// No limit: until `stop` (which never comes here; set it).
    fn none() -> Limits<'static> {
        Limits {
            playouts: None,
            time: None,
            max_time: None,
            early_stop: false,
            stop: &|| false,
            root_filter: None,
        }
    }
}
