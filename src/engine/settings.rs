//! The engine's settings: the command line's engine options, the search's among them.
//! No game, no GTP.

use super::PlayerKind;
use crate::search::SearchConfig;

/// Engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Search playouts used to judge dead stones for counting.
    pub status_playouts: usize,
    pub player: PlayerKind,
    /// Playouts a move (instead of the clock).
    pub playouts: Option<u64>,
    /// Seconds a move while no time system is set (`None`: by board size).
    pub move_time: Option<f64>,
    /// Resign when the win rate stays below this for several moves (0: never).
    pub resign: f64,
    /// Seconds kept back from every move's budget for process and pipe lag.
    pub lag_margin: f64,
    /// Think on the opponent's time after a generated move.
    pub ponder: bool,
    /// The search's threads, memory bound, seed and constants (the random mover takes
    /// its seed from there too).
    pub search: SearchConfig,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            status_playouts: 1000,
            player: PlayerKind::Mcts,
            playouts: None,
            move_time: None,
            resign: 0.1,
            lag_margin: 0.2,
            ponder: false,
            search: SearchConfig::default(),
        }
    }
}
