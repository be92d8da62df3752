//! The `tengen` command: GTP on stdin/stdout by default; `bench` measures light playouts;
//! `regress` runs GTP regression files; `match` plays two GTP engines against each other;
//! `selfplay` shows one game of Tengen against itself.

use std::io::IsTerminal;

use clap::{Parser, Subcommand};
use tengen::cli::EngineArgs;

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine speaking GTP v2 (Chinese rules)"
)]
struct Cli {
    #[command(flatten)]
    engine: EngineArgs,
    /// Log verbosity on stderr (0: quiet).
    #[arg(long, short, default_value_t = 1)]
    verbose: u8,
    #[command(subcommand)]
    command: Option<Sub>,
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
    },
    /// Run GTP regression files (gogui-regress format) against an engine (default: this
    /// program). Usage: tengen regress FILE.tst... [-- ENGINE ARGS...]
    Regress {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Play games between two GTP engines (command lines), checking every move; writes
    /// SGFs, results.tsv and summary.txt to --out and resumes there. The last stdout line
    /// is `games=N a_wins=... winrate=... ci95=LO-HI elo=... illegal=... time_losses=...
    /// crashes=...`.
    Match(Box<tengen::matches::MatchArgs>),
    /// One game of Tengen against itself (same engine options as GTP mode): the board and
    /// each move's time on stderr, the result and the SGF at the end.
    Selfplay(tengen::selfplay::SelfplayArgs),
}

fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    tengen::log::set_level(cli.verbose);
    match cli.command {
        Some(Sub::Bench {
            sizes,
            seconds,
            threads,
        }) => {
            let seed = cli.engine.seed.unwrap_or(1);
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
        Some(Sub::Match(args)) => {
            // The summary, its last line the machine-readable one.
            let (_, text) = tengen::matches::run(*args)?;
            print!("{text}");
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
