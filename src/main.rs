//! The `tengen` command: GTP on stdin/stdout by default; `bench` measures playouts and
//! searches; `regress` runs GTP regression files; `match` plays two GTP engines against
//! each other; `selfplay` shows one game of Tengen against itself; `review` analyses a
//! game record; `train-patterns` fits the move model.

use std::io::IsTerminal;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};
use tengen::cli::EngineArgs;
use tengen::Rules;

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine speaking GTP v2 (Chinese rules)"
)]
struct Cli {
    #[command(flatten)]
    engine: EngineArgs,
    /// Log on stderr: 0 quiet, 1 problems, 2 traffic, 3 search details
    #[arg(long, short, default_value_t = 1, value_name = "LEVEL")]
    verbose: u8,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Light playouts from the empty board: prints one line per board size.
    Bench {
        /// Board size(s); repeat for several.
        #[arg(long = "size", default_values_t = [9usize, 19],
              value_parser = |s: &str| tengen::cli::number_in(s, 2usize, tengen::MAX_SIZE))]
        sizes: Vec<usize>,
        /// Seconds per size.
        #[arg(long, default_value_t = 5.0, value_parser = tengen::cli::parse_move_time)]
        seconds: f64,
        /// Threads.
        #[arg(long, default_value_t = 1, value_parser = tengen::cli::parse_threads)]
        threads: usize,
        /// Run full searches from the empty board instead of bare playouts.
        #[arg(long)]
        search: bool,
        /// Playouts per search (with --search).
        #[arg(long, default_value_t = 10_000, value_parser = |s: &str| tengen::cli::number_in(s, 1u64, 1_000_000_000_000))]
        playouts: u64,
    },
    /// Run GTP regression files against an engine (default: this program), with the
    /// verdicts of gogui-regress: tengen regress [OPTIONS] FILE.tst... [-- ENGINE ARGS...]
    Regress(tengen::regress::RegressArgs),
    /// Play games between two GTP engines (command lines), checking every move; writes
    /// SGFs, results.tsv and summary.txt to --out and resumes there. The last stdout line
    /// is `games=N a_wins=... winrate=... ci95=LO-HI elo=... illegal=... time_losses=...
    /// crashes=...`.
    Match(Box<tengen::matches::MatchArgs>),
    /// One game of Tengen against itself (same engine options as GTP mode): the board and
    /// each move's time on stderr, the result and the SGF at the end.
    Selfplay(Box<tengen::selfplay::SelfplayArgs>),
    /// Review a game record: every position analysed, the record written back with each
    /// move's win rate (SBKV) and score lead, Tengen's variation where a move lost much,
    /// each side's biggest mistakes on stdout, and with --plot a win-rate graph (SVG).
    Review(Box<tengen::review::ReviewArgs>),
    /// Fit the move model (feature and pattern strengths) to game records with Coulom's
    /// minorization-maximization; a tenth of the games held out to measure prediction.
    TrainPatterns(tengen::policy::train::TrainArgs),
}

fn main() -> anyhow::Result<()> {
    let matches = Cli::command()
        .after_help(tengen::cli::knobs_help())
        .get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    tengen::log::set_level(cli.verbose);
    match cli.command {
        Some(Sub::Bench {
            sizes,
            seconds,
            threads,
            search,
            playouts,
        }) => {
            let seed = cli.engine.seed.unwrap_or(1);
            if search {
                for size in sizes {
                    let mut settings = cli.engine.settings();
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
        Some(Sub::Regress(args)) => {
            std::process::exit(tengen::regress::main(args));
        }
        Some(Sub::Match(args)) => {
            // The summary, its last line the machine-readable one.
            let (_, text) = tengen::matches::run(*args)?;
            print!("{text}");
            Ok(())
        }
        Some(Sub::TrainPatterns(args)) => tengen::policy::train::run(&args),
        Some(Sub::Review(args)) => {
            tengen::review::run(&args)?;
            Ok(())
        }
        Some(Sub::Selfplay(args)) => {
            tengen::selfplay::run(&args)?;
            Ok(())
        }
        None => {
            if std::io::stdin().is_terminal() && cli.verbose > 0 {
                eprintln!("Tengen {}: speaking GTP v2 on stdin/stdout; try 'list_commands', 'quit' to leave.", env!("CARGO_PKG_VERSION"));
            }
            let mut engine = cli.engine.engine();
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
