//! The engine's settings (the command line's engine options) and what the search is
//! configured with from them, including the memory split. No game, no GTP.

use super::PlayerKind;
use crate::search::SearchConfig;

/// Engine settings from the command line.
#[derive(Clone, Debug)]
pub struct Settings {
    /// Seed of every random choice; the same seed gives the same moves.
    pub seed: u64,
    /// Search playouts used to judge dead stones for counting.
    pub status_playouts: usize,
    pub player: PlayerKind,
    /// Playouts a move (instead of the clock).
    pub playouts: Option<u64>,
    /// Seconds a move while no time system is set (`None`: by board size).
    pub move_time: Option<f64>,
    /// Search threads.
    pub threads: usize,
    /// Bound on the search tree, in MiB.
    pub max_memory_mib: usize,
    /// Resign when the win rate stays below this for several moves (0: never).
    pub resign: f64,
    /// Seconds kept back from every move's budget for process and pipe lag.
    pub lag_margin: f64,
    /// Think on the opponent's time after a generated move.
    pub ponder: bool,
    /// Answer `version` as Lizzie 0.7.4 needs (see `--lizzie`).
    pub lizzie: bool,
    /// GoGui live graphics on stderr during `genmove` (see `--live-gfx`).
    pub live_gfx: bool,
    /// The search's other constants (threads, memory and seed are set from the fields
    /// above).
    pub search: SearchConfig,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            seed: 0x7465_6e67_656e,
            status_playouts: 1000,
            player: PlayerKind::Mcts,
            playouts: None,
            move_time: None,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            max_memory_mib: 512,
            resign: 0.1,
            lag_margin: 0.2,
            ponder: false,
            lizzie: false,
            live_gfx: false,
            search: SearchConfig::default(),
        }
    }
}

/// Memory kept out of `--max-memory` for everything but the search tree (the program,
/// boards, per-thread state, the dead-stone search's own small tree, I/O buffers).
const RESERVE_MIB: usize = 32;

/// The search tree's share of a memory bound of `mib` MiB: all but [`RESERVE_MIB`], or
/// half of a bound too small for that. The whole process stays within the bound.
pub fn tree_bytes(mib: usize) -> usize {
    let mib = mib.max(1);
    if mib >= 2 * RESERVE_MIB {
        (mib - RESERVE_MIB) << 20
    } else {
        (mib << 20) / 2
    }
}

impl Settings {
    /// The search configuration these settings give.
    pub fn search_config(&self) -> SearchConfig {
        SearchConfig {
            threads: self.threads.max(1),
            max_memory: tree_bytes(self.max_memory_mib),
            seed: self.seed,
            ..self.search.clone()
        }
    }
}
