//! The `tengen` command: GTP on stdin/stdout by default; `bench` measures light playouts;
//! `regress` runs GTP regression files.

use std::io::IsTerminal;

use clap::{Parser, Subcommand};
use tengen::engine::{Engine, PlayerKind, Settings};
use tengen::search::PolicyKind;
use tengen::Rules;

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine speaking GTP v2 (Chinese rules)"
)]
struct Cli {
    /// Rules preset: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = parse_rules)]
    rules: Rules,
    /// Initial komi (GTP `komi` changes it).
    #[arg(long)]
    komi: Option<f64>,
    /// Seed for every random choice: the same seed gives the same moves.
    #[arg(long)]
    seed: Option<u64>,
    /// Playouts used to judge dead stones for final_score and final_status_list.
    #[arg(long, default_value_t = 1000)]
    status_playouts: usize,
    /// Log verbosity on stderr (0: quiet).
    #[arg(long, short, default_value_t = 1)]
    verbose: u8,
    #[command(flatten)]
    search: SearchArgs,
    #[command(subcommand)]
    command: Option<Sub>,
}

/// Move generator options.
#[derive(clap::Args, Debug, Clone)]
struct SearchArgs {
    /// Move generator: mcts (tree search) or random.
    #[arg(long, default_value = "mcts", value_parser = parse_player)]
    player: PlayerKind,
    /// Playouts a move (otherwise the GTP time settings decide; without any, 1 s on 9x9,
    /// 1.5 s on 13x13, 2 s on 19x19).
    #[arg(long)]
    playouts: Option<u64>,
    /// Search threads (default: the machine's available parallelism).
    #[arg(long)]
    threads: Option<usize>,
    /// Bound on the search tree's memory, in MiB; the tree stops growing there.
    #[arg(long, default_value_t = 512)]
    max_memory: usize,
    /// Resign when the win rate stays below this for 3 moves in a row (0: never).
    #[arg(long, default_value_t = 0.1)]
    resign: f64,
    /// Seconds kept back from each move's time for lag.
    #[arg(long, default_value_t = 0.2)]
    lag_margin: f64,
    /// Playout policy: moggy (captures, escapes, 3x3 patterns) or light (uniform).
    #[arg(long, default_value = "moggy", value_parser = parse_policy)]
    policy: PolicyKind,
    /// Visits before a tree leaf is expanded.
    #[arg(long)]
    expand_visits: Option<u32>,
    /// RAVE equivalence (visits at which own and AMAF statistics weigh the same).
    #[arg(long)]
    rave_equiv: Option<f64>,
    /// UCB exploration constant (0: priors and RAVE explore).
    #[arg(long)]
    explore: Option<f64>,
}

impl SearchArgs {
    fn apply(&self, settings: &mut Settings) {
        settings.player = self.player;
        settings.playouts = self.playouts;
        if let Some(t) = self.threads {
            settings.threads = t.max(1);
        }
        settings.max_memory_mib = self.max_memory.max(1);
        settings.resign = self.resign;
        settings.lag_margin = self.lag_margin.max(0.0);
        settings.search.policy = self.policy;
        if let Some(v) = self.expand_visits {
            settings.search.expand_visits = v.max(1);
        }
        if let Some(v) = self.rave_equiv {
            settings.search.rave_equiv = v.max(1.0);
        }
        if let Some(v) = self.explore {
            settings.search.explore = v.max(0.0);
        }
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

#[derive(Subcommand, Debug)]
enum Sub {
    /// Light playouts from the empty board: prints one line per board size.
    Bench {
        /// Board size(s); repeat for several.
        #[arg(long = "size", default_values_t = [9usize, 19])]
        sizes: Vec<usize>,
        /// Seconds per size.
        #[arg(long, default_value_t = 5.0)]
        seconds: f64,
        /// Threads.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Run full searches from the empty board instead of bare playouts.
        #[arg(long)]
        search: bool,
        /// Playouts per search (with --search).
        #[arg(long, default_value_t = 10_000)]
        playouts: u64,
    },
    /// Run GTP regression files (gogui-regress format) against an engine (default: this
    /// program). Usage: tengen regress FILE.tst... [-- ENGINE ARGS...]
    Regress {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

fn parse_rules(s: &str) -> Result<Rules, String> {
    Rules::by_name(s).ok_or_else(|| format!("unknown rules '{s}' (chinese, tromp-taylor)"))
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tengen::log::set_level(cli.verbose);
    match cli.command {
        Some(Sub::Bench {
            sizes,
            seconds,
            threads,
            search,
            playouts,
        }) => {
            let seed = cli.seed.unwrap_or(1);
            if search {
                for size in sizes {
                    let mut settings = Settings::default();
                    cli.search.apply(&mut settings);
                    settings.threads = threads.max(1);
                    settings.seed = seed;
                    let mut game = tengen::Game::new(size, Rules::chinese())
                        .ok_or_else(|| anyhow::anyhow!("size {size} is not in 2..=25"))?;
                    game.set_komi(7.5);
                    let mut s = tengen::search::Search::new(settings.search_config());
                    let a = s.run(
                        &game,
                        tengen::Color::Black,
                        &tengen::search::Limits::playouts(playouts),
                    );
                    println!(
                        "mode=search size={} threads={} playouts={} seconds={:.2} playouts_per_s={:.0} nodes={} peak_rss_mib={}",
                        size,
                        settings.threads,
                        a.playouts,
                        a.seconds,
                        a.playouts as f64 / a.seconds.max(1e-9),
                        a.tree_nodes,
                        peak_rss_mib().map_or("?".to_string(), |m| m.to_string())
                    );
                }
                return Ok(());
            }
            for size in sizes {
                let r = tengen::playout::bench(size, seconds, threads, seed)
                    .ok_or_else(|| anyhow::anyhow!("size {size} is not in 2..=25"))?;
                println!(
                    "size={} threads={} playouts_per_s={:.0} moves_per_s={:.0}",
                    r.size,
                    r.threads,
                    r.playouts_per_second(),
                    r.moves_per_second()
                );
            }
            Ok(())
        }
        Some(Sub::Regress { args }) => {
            std::process::exit(tengen::regress::main_with_args(&args));
        }
        None => {
            let mut rules = cli.rules;
            if let Some(k) = cli.komi {
                rules.komi = k;
            }
            let mut settings = Settings {
                status_playouts: cli.status_playouts,
                ..Settings::default()
            };
            if let Some(s) = cli.seed {
                settings.seed = s;
            }
            cli.search.apply(&mut settings);
            if std::io::stdin().is_terminal() && cli.verbose > 0 {
                eprintln!("Tengen {}: speaking GTP v2 on stdin/stdout; try 'list_commands', 'quit' to leave.", env!("CARGO_PKG_VERSION"));
            }
            let mut engine = Engine::new(rules, settings);
            tengen::gtp::serve_stdio(&mut engine)?;
            Ok(())
        }
    }
}

/// Peak resident memory of this process (VmHWM), in MiB, where /proc tells it.
fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.div_ceil(1024))
}
