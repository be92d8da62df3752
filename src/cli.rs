//! The engine's command-line options, in nested groups so that each mode takes only what
//! it honours: [`EngineArgs`] (GTP mode) holds [`PlayArgs`] (also `selfplay`), which holds
//! [`SearchArgs`] (also `review`), which holds [`TuningArgs`], the research knobs behind
//! `--set` (also `bench --search`); and the range checks every command-line number goes
//! through.

use clap::Args;

use crate::engine::{Engine, Network, PlayerKind, Settings};
use crate::nn::forward::Forward;
use crate::nn::Model;
use crate::rules::Rules;
use crate::search::PolicyKind;

/// GTP mode's options: everything a game needs ([`PlayArgs`]) and what only a GTP
/// session uses (pondering between commands, the `version` answer Lizzie needs, GoGui's
/// live graphics).
#[derive(Args, Debug, Clone)]
pub struct EngineArgs {
    #[command(flatten)]
    pub play: PlayArgs,
    /// Think on the opponent's time, until the next command [default: off]
    #[arg(long)]
    pub ponder: bool,
    /// Answer `version` as Lizzie 0.7.4 wants [default: off]
    #[arg(long)]
    pub lizzie: bool,
    /// GoGui live graphics on stderr while genmove thinks [default: off]
    #[arg(long)]
    pub live_gfx: bool,
    /// A KataGo network (.bin.gz) the search plays and analyses with, or `none` for the
    /// playout search [default: $TENGEN_MODEL, else scripts/fetch-model.sh's file when present]
    #[arg(long, value_name = "FILE|none")]
    pub model: Option<std::path::PathBuf>,
}

/// How the engine plays a game: rules, komi, each move's effort, resigning, the
/// dead-stone judgement, and the search ([`SearchArgs`]). GTP mode and `selfplay`.
#[derive(Args, Debug, Clone)]
pub struct PlayArgs {
    /// Rules: chinese or tromp-taylor
    #[arg(long, value_name = "RULES", default_value = "chinese", value_parser = parse_rules)]
    pub rules: Rules,
    /// Komi, until GTP `komi` changes it [default: 7.5]
    #[arg(long, value_name = "KOMI", value_parser = parse_komi, allow_negative_numbers = true)]
    pub komi: Option<f64>,
    /// Playouts that judge dead stones when counting
    #[arg(long, value_name = "N", default_value_t = 1000, value_parser = |s: &str| number_in(s, 1usize, 1_000_000_000))]
    pub status_playouts: usize,
    /// Playouts (with a network, visits) a move [default: the clock decides]
    #[arg(long, visible_alias = "visits", value_name = "N", value_parser = |s: &str| number_in(s, 1u64, 1_000_000_000_000))]
    pub playouts: Option<u64>,
    /// Seconds a move with no GTP clock [default: 1 / 1.5 / 2 by size]
    #[arg(long, value_name = "SECONDS", value_parser = parse_move_time)]
    pub move_time: Option<f64>,
    /// Resign below this win rate 3 moves in a row (0: never)
    #[arg(long, value_name = "WINRATE", default_value_t = 0.1, value_parser = parse_fraction)]
    pub resign: f64,
    /// Seconds kept back from each move's time for lag
    #[arg(long, value_name = "SECONDS", default_value_t = 0.2, value_parser = |s: &str| number_in(s, 0.0, 60.0))]
    pub lag_margin: f64,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// What a search is given: its seed, threads and memory, and the research knobs
/// ([`TuningArgs`]). GTP mode, `selfplay` and `review`.
#[derive(Args, Debug, Clone)]
pub struct SearchArgs {
    /// Seed of every random choice [default: a fixed one]
    #[arg(long, value_name = "SEED")]
    pub seed: Option<u64>,
    /// Search threads, at most 4 a core [default: one a core]
    #[arg(long, value_name = "N", value_parser = parse_threads)]
    pub threads: Option<usize>,
    /// Memory bound of the whole process in MiB
    #[arg(long, value_name = "MIB", default_value_t = crate::search::DEFAULT_MAX_MEMORY_MIB, value_parser = |s: &str| number_in(s, 16usize, machine_mib()))]
    pub max_memory: usize,
    #[command(flatten)]
    pub tuning: TuningArgs,
}

/// The research knobs, `--set KEY=VALUE` ([`KNOBS`]). GTP mode, `selfplay`, `review` and
/// `bench --search` (the last two refuse `player`, the move generator, which they do not
/// use).
#[derive(Args, Debug, Clone)]
pub struct TuningArgs {
    /// A research knob (listed below); repeatable [default: none]
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_setting)]
    pub set: Vec<Setting>,
}

/// The knobs that are no search constant, refused where only a search runs.
pub const PLAY_KNOBS: &[&str] = &["player"];

impl TuningArgs {
    /// Sets the knobs given (the others keep their values).
    pub fn apply(&self, settings: &mut Settings) {
        for setting in &self.set {
            // Checked when parsed: applying cannot fail.
            let _ = (setting.knob.set)(settings, &setting.value);
        }
    }
}

impl SearchArgs {
    /// Sets the seed, threads, memory and knobs given.
    pub fn apply(&self, settings: &mut Settings) {
        if let Some(s) = self.seed {
            settings.search.seed = s;
        }
        if let Some(t) = self.threads {
            settings.search.threads = t.max(1);
        }
        settings.search.max_memory_mib = self.max_memory.max(1);
        self.tuning.apply(settings);
    }

    /// The engine settings these options give (the rest at their defaults).
    pub fn settings(&self) -> Settings {
        let mut settings = Settings::default();
        self.apply(&mut settings);
        settings
    }
}

/// One `--set KEY=VALUE`: a knob and a value it accepts.
#[derive(Clone, Debug)]
pub struct Setting {
    pub knob: &'static Knob,
    pub value: String,
}

/// A research knob of the search: its key for `--set`, what it does, the values it takes,
/// how to read it from settings (for the default shown by `--help`) and how to set it.
pub struct Knob {
    pub key: &'static str,
    pub help: &'static str,
    pub range: &'static str,
    pub get: fn(&Settings) -> String,
    pub set: fn(&mut Settings, &str) -> Result<(), String>,
}

impl std::fmt::Debug for Knob {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.key)
    }
}

/// Every knob `--set` knows, in the order `--help` lists them.
pub static KNOBS: &[Knob] = &[
    Knob {
        key: "player",
        help: "move generator: mcts (tree search) or random",
        range: "mcts, random",
        get: |s| match s.player {
            PlayerKind::Mcts => "mcts".into(),
            PlayerKind::Random => "random".into(),
        },
        set: |s, v| {
            s.player = parse_player(v)?;
            Ok(())
        },
    },
    Knob {
        key: "policy",
        help: "playouts: moggy (captures, escapes, shapes), light",
        range: "moggy, light",
        get: |s| match s.search.policy {
            PolicyKind::Moggy => "moggy".into(),
            PolicyKind::Light => "light".into(),
        },
        set: |s, v| {
            s.search.policy = parse_policy(v)?;
            Ok(())
        },
    },
    Knob {
        key: "expand-visits",
        help: "visits before a tree leaf is expanded",
        range: "1..=1000000",
        get: |s| s.search.expand_visits.to_string(),
        set: |s, v| {
            s.search.expand_visits = number_in(v, 1, 1_000_000)?;
            Ok(())
        },
    },
    Knob {
        key: "rave-equiv",
        help: "visits where own and AMAF statistics weigh alike",
        range: "1..=1e9",
        get: |s| s.search.rave_equiv.to_string(),
        set: |s, v| {
            s.search.rave_equiv = number_in(v, 1.0, 1e9)?;
            Ok(())
        },
    },
    Knob {
        key: "prior-learned",
        help: "visits of the learned prior (0: hand-written priors)",
        range: "0..=100000",
        get: |s| s.search.priors.learned.to_string(),
        set: |s, v| {
            s.search.priors.learned = parse_prior_visits(v)?;
            Ok(())
        },
    },
    Knob {
        key: "prior-power",
        help: "fall-off of the learned prior with the move's odds",
        range: "0..=10",
        get: |s| s.search.priors.learned_power.to_string(),
        set: |s, v| {
            s.search.priors.learned_power = number_in(v, 0.0, 10.0)?;
            Ok(())
        },
    },
    Knob {
        key: "prior-even",
        help: "visits at an even win rate every move starts with",
        range: "0..=100000",
        get: |s| s.search.priors.even.to_string(),
        set: |s, v| {
            s.search.priors.even = parse_prior_visits(v)?;
            Ok(())
        },
    },
    Knob {
        key: "prior-tactics",
        help: "prior wins for a capture or save of 3+ stones, per 3",
        range: "0..=100000",
        get: |s| s.search.priors.big_tactics.to_string(),
        set: |s, v| {
            s.search.priors.big_tactics = parse_prior_visits(v)?;
            Ok(())
        },
    },
    Knob {
        key: "playout-self-atari",
        help: "rate at which playouts refuse self-ataris of 2+ stones",
        range: "0..=1",
        get: |s| s.search.moggy.self_atari_rate.to_string(),
        set: |s, v| {
            s.search.moggy.self_atari_rate = number_in(v, 0.0f32, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-c",
        help: "PUCT exploration constant (with a network)",
        range: "0..=10",
        get: |s| s.search.puct.cpuct.to_string(),
        set: |s, v| {
            s.search.puct.cpuct = number_in(v, 0.0, 10.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-c-stdev",
        help: "how far the PUCT constant follows the spread of the parent's values (0: fixed)",
        range: "0..=1",
        get: |s| s.search.puct.cpuct_stdev_scale.to_string(),
        set: |s, v| {
            s.search.puct.cpuct_stdev_scale = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-fpu",
        help: "first-play urgency reduction inside the tree",
        range: "0..=1",
        get: |s| s.search.puct.fpu_reduction.to_string(),
        set: |s, v| {
            s.search.puct.fpu_reduction = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-root-fpu",
        help: "first-play urgency reduction at the root",
        range: "0..=1",
        get: |s| s.search.puct.root_fpu_reduction.to_string(),
        set: |s, v| {
            s.search.puct.root_fpu_reduction = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-score",
        help: "weight of the score utility around the root lead",
        range: "0..=1",
        get: |s| s.search.puct.score_utility.to_string(),
        set: |s, v| {
            s.search.puct.score_utility = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-lcb",
        help: "play the move with the best lower confidence bound, this many standard errors (0: the most visited)",
        range: "0..=10",
        get: |s| s.search.puct.lcb_stdevs.to_string(),
        set: |s, v| {
            s.search.puct.lcb_stdevs = number_in(v, 0.0, 10.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-optimism",
        help: "policy optimism inside the tree (KataGo's policyOptimism)",
        range: "0..=1",
        get: |s| s.search.puct.optimism.to_string(),
        set: |s, v| {
            s.search.puct.optimism = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-root-optimism",
        help: "policy optimism at the root (KataGo's rootPolicyOptimism)",
        range: "0..=1",
        get: |s| s.search.puct.root_optimism.to_string(),
        set: |s, v| {
            s.search.puct.root_optimism = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
    Knob {
        key: "precision",
        help: "the network's dense layers and 1x1 convolutions in fp32 (KataGo's outputs), bf16 (AVX-512 CPUs; emulated, as fast as fp32, without AVX512-BF16) or int8 (AVX512-VNNI CPUs, AMX's tiles where the CPU has AMX-INT8, and AVX2 ones: AVX-VNNI's or AVX2's own instructions; coarser than bf16); auto: int8 where the CPU has AMX-INT8, else bf16 where it has AVX512-BF16, else int8 where it has AVX512-VNNI, else fp32",
        range: "auto|fp32|bf16|int8",
        get: |s| s.precision.name().to_string(),
        set: |s, v| {
            s.precision = crate::nn::Precision::parse(v)?;
            Ok(())
        },
    },
    Knob {
        key: "nn-batch",
        help: "leaves a search thread has the network evaluate at once (more evaluations a second, a wider search)",
        range: "1..=64",
        get: |s| s.search.puct.batch.to_string(),
        set: |s, v| {
            s.search.puct.batch = number_in(v, 1usize, 64)?;
            Ok(())
        },
    },
    Knob {
        key: "puct-static-score",
        help: "weight of the score utility around 0",
        range: "0..=1",
        get: |s| s.search.puct.static_score_utility.to_string(),
        set: |s, v| {
            s.search.puct.static_score_utility = number_in(v, 0.0, 1.0)?;
            Ok(())
        },
    },
];

/// `--set KEY=VALUE`: a known key and a value it takes.
pub fn parse_setting(s: &str) -> Result<Setting, String> {
    let keys = || KNOBS.iter().map(|k| k.key).collect::<Vec<_>>().join(", ");
    let (key, value) = s
        .split_once('=')
        .ok_or_else(|| format!("'{s}' is not KEY=VALUE (keys: {})", keys()))?;
    let knob = KNOBS
        .iter()
        .find(|k| k.key == key.trim())
        .ok_or_else(|| format!("unknown key '{key}' (keys: {})", keys()))?;
    (knob.set)(&mut Settings::default(), value.trim()).map_err(|e| format!("{}: {e}", knob.key))?;
    Ok(Setting {
        knob,
        value: value.trim().to_string(),
    })
}

/// The knobs' part of `tengen --help`: each key, its default and its range.
pub fn knobs_help() -> String {
    let defaults = Settings::default();
    let mut s = String::from("Research knobs (--set KEY=VALUE, repeatable):\n");
    for k in KNOBS {
        s.push_str(&format!(
            "  {:<19} {} [default: {}; {}]\n",
            k.key,
            k.help,
            (k.get)(&defaults),
            k.range
        ));
    }
    s
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
            ..self.play.settings()
        }
    }

    /// The engine these options describe (19x19 until told otherwise).
    pub fn engine(&self) -> Engine {
        Engine::new(self.play.rules(), self.settings())
    }

    /// The network of `--model` (else of `$TENGEN_MODEL`, else the default file when
    /// present, [`crate::nn::default_model_path`]), loaded and checked that the forward
    /// pass can run it, its name and load time said on stderr; `None` for `none` or when no
    /// default file is there (said on stderr). A network named on the command line or in
    /// the environment that cannot be loaded is an error naming the file and the problem;
    /// a default file that cannot is said on stderr and play goes on without one.
    pub fn network(&self) -> Result<Option<Network>, String> {
        resolve_network(self.model.clone())
    }

    /// The GTP session these options describe, with the network loaded from `--model`
    /// (see [`network`](Self::network)): the engine and the session's own options.
    pub fn front(&self, network: Option<Network>) -> crate::gtp::Front {
        let mut engine = self.engine();
        engine.set_network(network);
        crate::gtp::Front::new(
            engine,
            crate::gtp::FrontOptions {
                lizzie: self.lizzie,
                live_gfx: self.live_gfx,
            },
        )
    }
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

/// The network `model` names (else `$TENGEN_MODEL`, else the default file when present):
/// what `--model` means for the engine and for `tengen review` (see [`EngineArgs::network`]).
/// What plays is said on stderr.
pub fn resolve_network(model: Option<std::path::PathBuf>) -> Result<Option<Network>, String> {
    let (network, what) = pick_network(model)?;
    crate::log!(1, "{what}");
    Ok(network)
}

/// The network `model` names, as [`resolve_network`], and what plays in words: the network
/// (its name, size, file and load time) or why the playout search plays (`none` named, or
/// no default file, which `scripts/fetch-model.sh` fetches).
pub fn pick_network(
    model: Option<std::path::PathBuf>,
) -> Result<(Option<Network>, String), String> {
    let from_env = model.is_none();
    let named = model.or_else(|| {
        std::env::var_os("TENGEN_MODEL")
            .filter(|v| !v.is_empty())
            .map(Into::into)
    });
    let playouts = "the playout search plays";
    if let Some(path) = named {
        if path.as_os_str() == "none" {
            let by = if from_env {
                "TENGEN_MODEL=none"
            } else {
                "--model none"
            };
            return Ok((None, format!("{playouts} ({by})")));
        }
        return load_network(&path).map(|(n, what)| (Some(n), what));
    }
    let Some(path) = crate::nn::default_model_path() else {
        return Ok((
            None,
            format!("{playouts} (no home folder to look for a network in; --model FILE names one)"),
        ));
    };
    if !path.is_file() {
        return Ok((
            None,
            format!(
                "{playouts}: no network at {} (scripts/fetch-model.sh fetches one; --model FILE names another)",
                path.display()
            ),
        ));
    }
    Ok(match load_network(&path) {
        Ok((n, what)) => (Some(n), what),
        Err(e) => (
            None,
            format!("{playouts}: default network not loaded ({e})"),
        ),
    })
}

/// The network in `path`, loaded and checked that the forward pass can run it, with its
/// description (name, size, file, load time). The error names the file and the problem.
pub fn load_network(path: &std::path::Path) -> Result<(Network, String), String> {
    let start = std::time::Instant::now();
    let model = Model::load(path).map_err(|e| e.to_string())?;
    Forward::new(&model, crate::nn::Kind::Fp32).map_err(|e| format!("{}: {e}", path.display()))?;
    let what = format!(
        "network {} (model version {}, {} blocks, {} channels, {:.1}M parameters) from {}, loaded in {:.2} s",
        model.name,
        model.version,
        model.trunk.blocks.len(),
        model.trunk.channels,
        model.parameters() as f64 / 1e6,
        path.display(),
        start.elapsed().as_secs_f64()
    );
    Ok((Network(std::sync::Arc::new(model)), what))
}

/// The first line GTP mode writes on stderr: the version, what plays (`what`, from
/// [`pick_network`]), with a network its precision and the kernels it runs on, and the
/// search threads.
pub fn start_line(what: &str, network: bool, settings: &Settings) -> String {
    let threads = settings.search.threads;
    let threads = format!(
        "{threads} search thread{}",
        if threads == 1 { "" } else { "s" }
    );
    let version = env!("CARGO_PKG_VERSION");
    if !network {
        return format!("tengen {version}: {what}; {threads}");
    }
    // The plan the engine's service resolves from the same precision.
    let plan = crate::nn::Plan::resolve(settings.precision);
    format!("tengen {version}: {what}; {}; {threads}", plan.describe())
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
            &["--set", "rave-equiv=2000"],
            &["--set", "prior-power=2", "--set", "player=random"],
            &["--set", "playout-self-atari=1"],
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
            &["--set", "rave-equiv=nan"],
            &["--set", "prior-power=NaN"],
            &["--set", "rave-equiv=inf"],
            &["--set", "playout-self-atari=nan"],
            &["--set", "playout-self-atari=1.5"],
            &["--set", "no-such-knob=1"],
            &["--set", "rave-equiv"],
            &["--set", "explore=1"],
            &["--set", "score-bonus=0.1"],
            &["--set", "puct-count-ends=1"],
            // Retired in issue 60 (screened, measured nothing: STRENGTH.md keeps the rows).
            &["--set", "puct-uncertainty=0.25"],
            &["--set", "puct-uncertainty-max=8"],
            &["--set", "puct-fpu-parent-nn=2"],
            &["--set", "puct-subtree-bias=0.45"],
            &["--set", "puct-root-symmetries=8"],
            &["--set", "puct-transpositions=1"],
            &["--set", "puct-policy-temp=1.3"],
            &["--set", "policy=heavy"],
            &["--move-time", "nan"],
            &["--playouts", "0"],
            &["--status-playouts", "0"],
            &["--set", "prior-tactics=4294967295"],
        ] {
            assert!(!parses(bad), "{bad:?} accepted");
        }
    }

    #[test]
    fn every_knob_takes_its_own_default_and_sets_what_it_shows() {
        let defaults = Settings::default();
        for k in KNOBS {
            let shown = (k.get)(&defaults);
            let setting = parse_setting(&format!("{}={shown}", k.key))
                .unwrap_or_else(|e| panic!("{}: default {shown} refused: {e}", k.key));
            let mut s = Settings::default();
            (setting.knob.set)(&mut s, &setting.value).unwrap();
            assert_eq!((k.get)(&s), shown, "{}", k.key);
            assert!(knobs_help().contains(k.key));
        }
    }

    #[test]
    fn set_changes_the_search_settings() {
        let cli = Cli::try_parse_from([
            "tengen",
            "--set",
            "expand-visits=3",
            "--set",
            "policy=light",
            "--set",
            "prior-tactics=0",
            "--set",
            "player=random",
        ])
        .unwrap();
        let s = cli.engine.settings();
        assert_eq!(s.search.expand_visits, 3);
        assert_eq!(s.search.policy, PolicyKind::Light);
        assert_eq!(s.search.priors.big_tactics, 0);
        assert_eq!(s.player, PlayerKind::Random);
        let plain = Cli::try_parse_from(["tengen"]).unwrap().engine.settings();
        assert_eq!(plain.search, Settings::default().search);
    }
}
