//! The engine's settings: the command line's engine options, the search's among them.
//! No game, no GTP.

use std::sync::Arc;

use super::PlayerKind;
use crate::nn::service::entries_for_bytes;
use crate::nn::{Model, Precision, Service};
use crate::search::SearchConfig;

/// A network loaded at start-up (`--model`), shared: cloning the settings does not copy
/// its weights, and `Debug` shows its name, not its weights.
#[derive(Clone)]
pub struct Network(pub Arc<Model>);

impl Network {
    /// The network's evaluation service in `precision`, its cache the network's share of
    /// the memory bound `max_memory_mib` ([`crate::search::cache_bytes`]): what a program
    /// evaluates through, made once.
    pub fn service(&self, precision: Precision, max_memory_mib: usize) -> Arc<Service> {
        let entries = entries_for_bytes(crate::search::cache_bytes(max_memory_mib));
        Arc::new(
            Service::new(self.0.clone(), precision, entries)
                .expect("the network was checked when loaded"),
        )
    }
}

impl std::fmt::Debug for Network {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Network({})", self.0.name)
    }
}

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
    /// The network, if one was loaded (`--model`): GTP's `kata-raw-nn` evaluates with
    /// it; the move generator does not use it yet.
    pub network: Option<Network>,
    /// The network's dense layers and 1x1 convolutions: fp32, bf16 or int8 (`--set
    /// precision=auto|fp32|bf16|int8`; auto is `nn::service::auto`'s choice for the CPU;
    /// bf16 runs emulated on other AVX-512 CPUs, int8 on any with AVX2 when asked for).
    pub precision: crate::nn::Precision,
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
            network: None,
            precision: crate::nn::Precision::Auto,
        }
    }
}
