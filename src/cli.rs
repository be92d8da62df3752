//! The engine's command-line options, in nested groups so that each mode takes only what
//! it honours: [`EngineArgs`] (GTP mode) holds [`PlayArgs`] (also `selfplay`), which holds
//! [`SearchArgs`] (also `review`), which holds [`TuningArgs`] (also `bench --search`); and
//! the range checks every command-line number goes through.

use clap::Args;

use crate::engine::{Engine, PlayerKind, Settings};
use crate::rules::Rules;
use crate::search::{PolicyKind, SearchConfig};

/// GTP mode's options: everything a game needs ([`PlayArgs`]) and what only a GTP
/// session uses (pondering between commands, the `version` answer Lizzie needs, GoGui's
/// live graphics).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    #[command(flatten)]
    pub play: PlayArgs,
    /// Think on the opponent's time (after each genmove, until the next command
    /// arrives), keeping the tree for the move that comes.
    #[arg(long)]
    pub ponder: bool,
    /// For Lizzie 0.7.4, which wants `version` to start with a Leela Zero version of 0.15
    /// or later: answer `0.15 (Leela Zero 0.15 analysis; Tengen X.Y.Z)`, the level of
    /// Leela Zero's `lz-analyze` that Tengen speaks, then its own version.
    #[arg(long)]
    pub lizzie: bool,
    /// GoGui's live graphics: while `genmove` thinks, the best moves, their win rates and
    /// the main variation as `gogui-gfx:` lines on stderr twice a second.
    #[arg(long)]
    pub live_gfx: bool,
}

/// How the engine plays a game: rules, komi, the move generator and its effort, the
/// dead-stone judgement, and the search ([`SearchArgs`]). GTP mode and `selfplay`.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// Rules preset: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Initial komi (GTP `komi` changes it) [default: 7.5].
    #[arg(long, value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Search playouts used to judge dead stones for final_score and final_status_list.
    #[arg(long, default_value_t = 1000, value_parser = |s: &str| number_in(s, 1usize, 1_000_000_000))]
    pub status_playouts: usize,
    /// Move generator: mcts (tree search) or random.
    #[arg(long, default_value = "mcts", value_parser = parse_player)]
    pub player: PlayerKind,
    /// Playouts a move (otherwise the GTP time settings decide; without any, 1 s on 9x9,
    /// 1.5 s on 13x13, 2 s on 19x19).
    #[arg(long, value_parser = |s: &str| number_in(s, 1u64, 1_000_000_000_000))]
    pub playouts: Option<u64>,
    /// Seconds a move while no GTP time system is set (default: 1 s on 9x9, 1.5 s on
    /// 13x13, 2 s on 19x19); fractions allowed, for fast soak and test games.
    #[arg(long, value_parser = parse_move_time)]
    pub move_time: Option<f64>,
    /// Resign when the win rate stays below this for 3 moves in a row (0: never), 0..=1.
    #[arg(long, default_value_t = 0.1, value_parser = parse_fraction)]
    pub resign: f64,
    /// Seconds kept back from each move's time for lag.
    #[arg(long, default_value_t = 0.2, value_parser = |s: &str| number_in(s, 0.0, 60.0))]
    pub lag_margin: f64,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// What a search is given: its seed, threads and memory, and its constants
/// ([`TuningArgs`]). GTP mode, `selfplay` and `review`.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Seed for every random choice: the same seed gives the same moves (with --threads 1).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Search threads (default: the machine's available parallelism; at most four times
    /// that, and at least 4 are always allowed).
    #[arg(long, value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Bound on the process's memory, in MiB (the search tree gets all but 32 MiB of it);
    /// at most the machine's memory.
    #[arg(long, default_value_t = 512, value_parser = |s: &str| number_in(s, 16usize, machine_mib()))]
    pub max_memory: usize,
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// The search's constants: the playout policy, the tree's expansion and selection, the
/// priors. GTP mode, `selfplay`, `review` and `bench --search`.
#[derive(Args, Debug, Clone)]
pub struct TuningArgs {
    /// Playout policy: moggy (captures, escapes, 3x3 patterns) or light (uniform).
    #[arg(long, default_value = "moggy", value_parser = parse_policy)]
    pub policy: PolicyKind,
    /// Visits before a tree leaf is expanded.
    #[arg(long, value_parser = |s: &str| number_in(s, 1u32, 1_000_000))]
    pub expand_visits: Option<u32>,
    /// RAVE equivalence (visits at which own and AMAF statistics weigh the same).
    #[arg(long, value_parser = |s: &str| number_in(s, 1.0, 1e9))]
    pub rave_equiv: Option<f64>,
    /// Share of a simulation's value that follows its final score margin rather than
    /// only who won (0: win or loss alone; Fuego uses 0.02).
    #[arg(long, value_parser = |s: &str| number_in(s, 0.0, 0.5))]
    pub score_bonus: Option<f64>,
    /// UCB exploration constant (0: priors and RAVE explore).
    #[arg(long, value_parser = |s: &str| number_in(s, 0.0, 100.0))]
    pub explore: Option<f64>,
    /// Equivalent visits of the learned move model's prior (0: hand-written priors).
    #[arg(long, value_parser = parse_prior_visits)]
    pub prior_learned: Option<u32>,
    /// How sharply the learned prior falls off with a move's probability ratio to the
    /// best move's.
    #[arg(long, value_parser = |s: &str| number_in(s, 0.0, 10.0))]
    pub prior_power: Option<f64>,
    /// Equivalent visits at an even win rate every candidate starts with.
    #[arg(long, value_parser = parse_prior_visits)]
    pub prior_even: Option<u32>,
    /// Wins added to the learned prior of a move that captures a chain of 3 stones or
    /// more its owner could otherwise save (by extending to three liberties or capturing
    /// a neighbour in atari), or saves an own one (three liberties), per 3 stones (up to
    /// 4 times); 0: none [default: 20].
    #[arg(long, value_parser = parse_prior_visits)]
    pub prior_tactics: Option<u32>,
    /// Rate at which the playouts' random moves refuse self-ataris of two stones or more.
    #[arg(long, value_parser = |s: &str| number_in(s, 0.0f32, 1.0))]
    pub playout_self_atari: Option<f32>,
}

impl TuningArgs {
    /// Sets the search constants given (the others keep their defaults).
    pub fn apply(&self, search: &mut SearchConfig) {
        search.policy = self.policy;
        if let Some(v) = self.expand_visits {
            search.expand_visits = v.max(1);
        }
        if let Some(v) = self.score_bonus {
            search.score_bonus = if v.is_finite() {
                v.clamp(0.0, 0.5)
            } else {
                0.0
            };
        }
        if let Some(v) = self.rave_equiv {
            search.rave_equiv = v.max(1.0);
        }
        if let Some(v) = self.explore {
            search.explore = v.max(0.0);
        }
        if let Some(v) = self.prior_learned {
            search.priors.learned = v;
        }
        if let Some(v) = self.prior_power {
            search.priors.learned_power = v.clamp(0.0, 10.0);
        }
        if let Some(v) = self.prior_even {
            search.priors.even = v;
        }
        if let Some(v) = self.prior_tactics {
            search.priors.big_tactics = v;
        }
        if let Some(v) = self.playout_self_atari {
            search.moggy.self_atari_rate = v.clamp(0.0, 1.0);
        }
    }
}

impl SearchArgs {
    /// Sets the seed, threads, memory and search constants given.
    pub fn apply(&self, settings: &mut Settings) {
        if let Some(s) = self.seed {
            settings.seed = s;
        }
        if let Some(t) = self.threads {
            settings.threads = t.max(1);
        }
        settings.max_memory_mib = self.max_memory.max(1);
        self.tuning.apply(&mut settings.search);
    }

    /// The engine settings these options give (the rest at their defaults).
    pub fn settings(&self) -> Settings {
        let mut settings = Settings::default();
        self.apply(&mut settings);
        settings
    }
}

impl PlayArgs {
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
        settings.player = self.player;
        settings.playouts = self.playouts;
        settings.move_time = self.move_time;
        settings.resign = self.resign;
        settings.lag_margin = self.lag_margin.max(0.0);
        self.search.apply(&mut settings);
        settings
    }

    /// The engine these options describe (19x19 until told otherwise).
    pub fn engine(&self) -> Engine {
        Engine::new(self.rules(), self.settings())
    }
}

impl EngineArgs {
    /// The engine settings these options give.
    pub fn settings(&self) -> Settings {
        Settings {
            ponder: self.ponder,
            lizzie: self.lizzie,
            live_gfx: self.live_gfx,
            ..self.play.settings()
        }
    }

    /// The engine these options describe (19x19 until told otherwise).
    pub fn engine(&self) -> Engine {
        Engine::new(self.play.rules(), self.settings())
    }
}

fn parse_player(s: &str) -> Result<PlayerKind, String> {
    match s {
        "mcts" => Ok(PlayerKind::Mcts),
        "random" => Ok(PlayerKind::Random),
        _ => Err(format!("unknown player '{s}' (mcts, random)")),
    }
}

fn parse_policy(s: &str) -> Result<PolicyKind, String> {
    match s {
        "moggy" => Ok(PolicyKind::Moggy),
        "light" => Ok(PolicyKind::Light),
        _ => Err(format!("unknown policy '{s}' (moggy, light)")),
    }
}

/// Parses a rules preset name for clap.
pub fn parse_rules(s: &str) -> Result<Rules, String> {
    Rules::by_name(s).ok_or_else(|| format!("unknown rules '{s}' (chinese, tromp-taylor)"))
}

/// A number in `lo..=hi` (finite: NaN and infinities are refused), for clap.
pub fn number_in<T>(s: &str, lo: T, hi: T) -> Result<T, String>
where
    T: std::str::FromStr + PartialOrd + std::fmt::Display + Copy,
{
    let v: T = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    // A NaN fails both comparisons; an infinity is outside any finite range.
    if v >= lo && v <= hi {
        Ok(v)
    } else {
        Err(format!("{s} is outside {lo}..={hi}"))
    }
}

/// `--komi`: finite, at most [`crate::limits::MAX_KOMI`] either way, as GTP `komi`.
pub fn parse_komi(s: &str) -> Result<f64, String> {
    let max = crate::limits::MAX_KOMI;
    number_in(s, -max, max)
}

/// `--move-time`: a finite number of seconds in 0.01..=86400.
pub fn parse_move_time(s: &str) -> Result<f64, String> {
    number_in(s, 0.01, 86_400.0)
}

/// Whole seconds a move for GTP's `time_settings 0 S 1`, which takes integers: 1..=86400.
pub fn parse_whole_seconds(s: &str) -> Result<f64, String> {
    let t: f64 = number_in(s, 1.0, 86_400.0)?;
    if t.fract() == 0.0 {
        Ok(t)
    } else {
        Err(format!(
            "{s} is not a whole number of seconds (GTP's time_settings takes integers)"
        ))
    }
}

/// A wait in seconds (a timeout, a grace): 0..=86400.
pub fn parse_wait(s: &str) -> Result<f64, String> {
    number_in(s, 0.0, 86_400.0)
}

/// Most search threads accepted: four times the machine's parallelism, at least 4.
pub fn max_threads() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (4 * cores).max(4)
}

/// `--threads`: 1..=[`max_threads`].
pub fn parse_threads(s: &str) -> Result<usize, String> {
    number_in(s, 1, max_threads())
}

/// The machine's memory in MiB (`MemTotal` of /proc/meminfo), or 1 TiB where unknown.
pub fn machine_mib() -> usize {
    std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|m| {
            m.lines()
                .find_map(|l| l.strip_prefix("MemTotal:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
        })
        .map_or(1 << 20, |kib| kib / 1024)
}

/// A share or win rate, 0..=1.
pub fn parse_fraction(s: &str) -> Result<f64, String> {
    number_in(s, 0.0, 1.0)
}

/// Equivalent visits of a prior: 0..=100,000.
fn parse_prior_visits(s: &str) -> Result<u32, String> {
    number_in(s, 0, 100_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Cli {
        #[command(flatten)]
        engine: EngineArgs,
    }

    fn parses(args: &[&str]) -> bool {
        Cli::try_parse_from(std::iter::once("tengen").chain(args.iter().copied())).is_ok()
    }

    #[test]
    fn every_number_is_checked_at_start_up() {
        for ok in [
            &["--komi", "-7.5"][..],
            &["--komi", "1000"],
            &["--threads", "1"],
            &["--max-memory", "64"],
            &["--resign", "0"],
            &["--lag-margin", "0.05"],
            &["--explore", "0.4"],
            &["--prior-power", "2"],
            &["--playout-self-atari", "1"],
        ] {
            assert!(parses(ok), "{ok:?}");
        }
        let huge_threads = (max_threads() + 1).to_string();
        let huge_memory = (machine_mib() + 1).to_string();
        for bad in [
            &["--komi", "1e308"][..],
            &["--komi", "nan"],
            &["--komi", "inf"],
            &["--komi", "-1001"],
            &["--threads", "40000"],
            &["--threads", &huge_threads],
            &["--threads", "0"],
            &["--max-memory", "99999999999"],
            &["--max-memory", &huge_memory],
            &["--max-memory", "0"],
            &["--lag-margin", "nan"],
            &["--lag-margin", "-1"],
            &["--resign", "nan"],
            &["--resign", "1.5"],
            &["--explore", "nan"],
            &["--explore", "inf"],
            &["--prior-power", "NaN"],
            &["--rave-equiv", "inf"],
            &["--score-bonus", "nan"],
            &["--playout-self-atari", "nan"],
            &["--playout-self-atari", "1.5"],
            &["--move-time", "nan"],
            &["--playouts", "0"],
            &["--status-playouts", "0"],
            &["--prior-tactics", "4294967295"],
        ] {
            assert!(!parses(bad), "{bad:?} accepted");
        }
    }
}
