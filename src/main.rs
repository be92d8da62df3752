//! The `tengen` command: GTP on stdin/stdout by default; the subcommands are the tools
//! (`tengen::tools`): `bench` measures playouts and searches; `regress` runs GTP
//! regression files; `match` plays two GTP engines against each other (`match-merge`
//! sums the folders of a match played in shards); `selfplay` shows one game of Tengen
//! against itself; `review` analyses a game record; `train-patterns` fits the move model.
//! Each subcommand takes only the options it honours; the engine options of GTP mode are
//! refused before a subcommand.

use std::io::IsTerminal;

use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory, FromArgMatches, Parser, Subcommand};
use tengen::cli::EngineArgs;
use tengen::tools;

/// The end of `tengen --help`, after the research knobs.
const MODES: &str = "Without a subcommand Tengen speaks GTP on stdin/stdout with the options\n\
above. A subcommand takes its own options, after it (`tengen bench --help`);\n\
only -v goes anywhere.";

#[derive(Parser, Debug)]
#[command(
    name = "tengen",
    version,
    about = "A Go engine speaking GTP v2 (Chinese rules)"
)]
struct Cli {
    #[command(flatten)]
    engine: EngineArgs,
    /// Log on stderr: 0 quiet, 1 problems, 2 traffic, 3 details
    #[arg(long, short, default_value_t = 1, value_name = "LEVEL", global = true)]
    verbose: u8,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Subcommand, Debug)]
enum Sub {
    /// Measure playouts (or with --search whole searches) a second
    ///
    /// Light playouts from the empty board (one line per board size), or with --search
    /// one full search per size.
    Bench(Box<tools::bench::BenchArgs>),
    /// Run GTP regression files, with gogui-regress's verdicts
    ///
    /// Runs GTP regression files against an engine (default: this program), with the
    /// verdicts of gogui-regress: tengen regress [OPTIONS] FILE.tst... [-- ENGINE ARGS...]
    Regress(tools::regress::RegressArgs),
    /// Play a match between two GTP engines
    ///
    /// Plays games between two GTP engines (command lines), checking every move; writes
    /// SGFs, results.tsv and summary.txt to --out and resumes there. The last stdout line
    /// is `games=N a_wins=... winrate=... ci95=LO-HI elo=... illegal=... time_losses=...
    /// crashes=...`.
    Match(Box<tools::matches::MatchArgs>),
    /// Merge the result folders of one match's shards
    ///
    /// The summary of several `tengen match` folders of one match (the shards of
    /// --shard K/N, say), as `tengen match` prints it, its last line the machine-readable
    /// one.
    MatchMerge(tools::matches::MergeArgs),
    /// Play one game against itself, shown on stderr
    ///
    /// One game of Tengen against itself (GTP mode's options for play): the board and
    /// each move's time on stderr, the result and the SGF at the end.
    Selfplay(Box<tools::selfplay::SelfplayArgs>),
    /// Review a game record: win rates, mistakes, an annotated SGF
    ///
    /// Reviews a game record: every position analysed, the record written back with each
    /// move's win rate (SBKV) and score lead, Tengen's variation where a move lost much,
    /// each side's biggest mistakes on stdout, and with --plot a win-rate graph (SVG). The
    /// record's komi (KM) and size are kept.
    Review(Box<tools::review::ReviewArgs>),
    /// Fit the learned move model to game records
    ///
    /// Fits the move model (feature and pattern strengths) to game records with Coulom's
    /// minorization-maximization; a tenth of the games held out to measure prediction.
    TrainPatterns(tools::train::TrainArgs),
}

/// The options among `ids` given on the command line (not defaults), as `--long-name`.
fn given(matches: &ArgMatches, ids: impl IntoIterator<Item = String>) -> Vec<String> {
    ids.into_iter()
        .filter(|id| {
            matches.ids().any(|known| known.as_str() == id)
                && matches.value_source(id) == Some(ValueSource::CommandLine)
        })
        .map(|id| format!("--{}", id.replace('_', "-")))
        .collect()
}

/// Refuses (exit status 2) options that would be accepted and then ignored: GTP mode's
/// engine options before a subcommand, and `bench` options of the other bench mode.
fn refuse_ignored(matches: &ArgMatches) {
    let Some((name, sub)) = matches.subcommand() else {
        return;
    };
    let top = Cli::command()
        .get_arguments()
        .map(|a| a.get_id().to_string())
        .filter(|id| id != "verbose")
        .collect::<Vec<_>>();
    let engine = given(matches, top);
    if !engine.is_empty() {
        Cli::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "{} {} GTP mode's, not `{name}`'s; `tengen {name} --help` lists its own options, given after it",
                    engine.join(" "),
                    if engine.len() == 1 { "is" } else { "are" },
                ),
            )
            .exit();
    }
    if name == "bench" || name == "review" {
        // A knob that is no search constant (the move generator) would be ignored.
        let play_knobs: Vec<&str> = sub
            .get_many::<tengen::cli::Setting>("set")
            .into_iter()
            .flatten()
            .map(|s| s.knob.key)
            .filter(|k| tengen::cli::PLAY_KNOBS.contains(k))
            .collect();
        if !play_knobs.is_empty() {
            Cli::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!(
                        "`{name}` runs searches only: --set {} is for GTP mode and selfplay",
                        play_knobs.join(", ")
                    ),
                )
                .exit();
        }
    }
    if name == "bench" {
        let own = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let search = sub.get_flag("search");
        let (wrong, mode) = if search {
            (given(sub, own(tools::bench::PLAYOUTS_ONLY)), "--search")
        } else if sub.contains_id("nn") && sub.get_one::<std::path::PathBuf>("nn").is_some() {
            (given(sub, own(tools::bench::SEARCH_ONLY)), "--nn")
        } else {
            (
                given(sub, own(tools::bench::SEARCH_ONLY)),
                "bare playouts (no --search)",
            )
        };
        if !wrong.is_empty() {
            Cli::command()
                .error(
                    clap::error::ErrorKind::ArgumentConflict,
                    format!("bench: {} cannot be used with {mode}", wrong.join(" ")),
                )
                .exit();
        }
    }
}

fn main() -> anyhow::Result<()> {
    tengen::log::install_panic_report();
    // KataGo's analysis engine, with KataGo's command-line shape (`-model M -config C`).
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("analysis") {
        return tools::analysis::main(&args[2..]);
    }
    // The test doubles (`tools::fakes`), hidden from --help.
    match args.get(1).map(String::as_str) {
        Some("fake-gtp") => {
            tools::fakes::fake_gtp();
            return Ok(());
        }
        Some("scripted-gtp") => {
            return tools::fakes::scripted_gtp(&args[2..]).map_err(|e| {
                eprintln!("tengen: {e}");
                std::process::exit(2)
            });
        }
        _ => {}
    }
    let knobs = tengen::cli::knobs_help();
    let matches = Cli::command()
        .after_help(format!("{knobs}\n{MODES}"))
        .mut_subcommand("selfplay", |c| c.after_help(knobs.clone()))
        .mut_subcommand("review", |c| {
            c.after_help(format!(
                "{knobs}Here every knob but player (review only searches)."
            ))
        })
        .mut_subcommand("bench", |c| {
            c.after_help(format!(
                "{knobs}Here with --search only, every knob but player."
            ))
        })
        .get_matches();
    refuse_ignored(&matches);
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    tengen::log::set_level(cli.verbose);
    match cli.command {
        Some(Sub::Bench(args)) => tools::bench::run(&args),
        Some(Sub::Regress(args)) => {
            std::process::exit(tools::regress::main(args));
        }
        Some(Sub::Match(args)) => {
            // The summary, its last line the machine-readable one.
            let (_, text) = tools::matches::run(*args)?;
            print!("{text}");
            Ok(())
        }
        Some(Sub::MatchMerge(args)) => {
            let (_, text) = tools::matches::merge(&args)?;
            print!("{text}");
            Ok(())
        }
        Some(Sub::TrainPatterns(args)) => tools::train::run(&args),
        Some(Sub::Review(args)) => {
            tools::review::run(&args)?;
            Ok(())
        }
        Some(Sub::Selfplay(args)) => {
            tools::selfplay::run(&args)?;
            Ok(())
        }
        None => {
            // A network that cannot be read stops the program before any GTP.
            let (network, what) = tengen::cli::pick_network(cli.engine.model.clone())
                .unwrap_or_else(|e| {
                    eprintln!("tengen: {e}");
                    std::process::exit(2);
                });
            // The first line on stderr: what plays, so that nobody measures one engine
            // believing it is the other.
            if cli.verbose > 0 {
                let settings = cli.engine.settings();
                eprintln!(
                    "{}",
                    tengen::cli::start_line(&what, network.is_some(), &settings)
                );
            }
            if std::io::stdin().is_terminal() && cli.verbose > 0 {
                eprintln!("Tengen {}: speaking GTP v2 on stdin/stdout; try 'list_commands', 'quit' to leave.", env!("CARGO_PKG_VERSION"));
            }
            let mut front = cli.engine.front(network);
            tengen::gtp::serve_stdio(&mut front)?;
            Ok(())
        }
    }
}
