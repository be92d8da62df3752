//! The engine's command-line options, shared by every mode that builds an [`Engine`]
//! (GTP on stdin/stdout, `selfplay`), so an option added here applies to all of them.

use clap::Args;

use crate::engine::{Engine, Settings};
use crate::rules::Rules;

/// Options that shape the engine: rules, komi, seed, effort.
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    /// Rules preset: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Initial komi (GTP `komi` changes it).
    #[arg(long)]
    pub komi: Option<f64>,
    /// Seed for every random choice: the same seed gives the same moves.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Playouts used to judge dead stones for final_score and final_status_list.
    #[arg(long, default_value_t = 1000)]
    pub status_playouts: usize,
}

/// Parses a rules preset name for clap.
pub fn parse_rules(s: &str) -> Result<Rules, String> {
    Rules::by_name(s).ok_or_else(|| format!("unknown rules '{s}' (chinese, tromp-taylor)"))
}

impl EngineArgs {
    /// The rules with the komi option applied.
    pub fn rules(&self) -> Rules {
        let mut rules = self.rules.clone();
        if let Some(k) = self.komi {
            rules.komi = k;
        }
        rules
    }

    /// The engine settings these options give.
    pub fn settings(&self) -> Settings {
        let mut settings = Settings {
            status_playouts: self.status_playouts,
            ..Settings::default()
        };
        if let Some(s) = self.seed {
            settings.seed = s;
        }
        settings
    }

    /// The engine these options describe (19x19 until told otherwise).
    pub fn engine(&self) -> Engine {
        Engine::new(self.rules(), self.settings())
    }
}
