//! The `tengen` command: GTP on stdin/stdout by default; `bench` measures light playouts;
//! `regress` runs GTP regression files.

use std::io::IsTerminal;

use clap::{Parser, Subcommand};
use tengen::engine::{Engine, Settings};
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
    /// Run GTP regression files against an engine (default: this program), with the
    /// verdicts of gogui-regress: tengen regress [OPTIONS] FILE.tst... [-- ENGINE ARGS...]
    Regress(tengen::regress::RegressArgs),
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
        }) => {
            let seed = cli.seed.unwrap_or(1);
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
            if std::io::stdin().is_terminal() && cli.verbose > 0 {
                eprintln!("Tengen {}: speaking GTP v2 on stdin/stdout; try 'list_commands', 'quit' to leave.", env!("CARGO_PKG_VERSION"));
            }
            let mut engine = Engine::new(rules, settings);
            tengen::gtp::serve_stdio(&mut engine)?;
            Ok(())
        }
    }
}
