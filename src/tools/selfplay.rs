//! `tengen selfplay`: one game of the engine against itself, built from GTP mode's options
//! for play (not those only a GTP session uses: pondering, `--lizzie`, `--live-gfx`); the
//! board and each move's time on stderr as it goes, the result and an SGF at the end.

use std::io::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::board::{Color, Move};
use crate::cli::PlayArgs;
use crate::engine::{Genmove, GenmoveOptions, Stop};
use crate::notation::{color_name, diagram, move_text};
use crate::record::record_of;
use crate::sgf;

/// Options of `tengen selfplay`.
#[derive(Args, Debug, Clone)]
pub struct SelfplayArgs {
    /// Board size.
    #[arg(long, default_value_t = 9,
          value_parser = |s: &str| crate::cli::number_in(s, crate::sgf::MIN_SIZE, crate::board::MAX_SIZE))]
    pub size: usize,
    /// Moves after which the game is stopped and counted (default 3·size²), 1..=10,000.
    #[arg(long, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 10_000))]
    pub max_moves: Option<usize>,
    /// Write the SGF here (default: print it on stdout).
    #[arg(long)]
    pub sgf: Option<PathBuf>,
    /// Print only the moves, not the board after each.
    #[arg(long)]
    pub quiet: bool,
    #[command(flatten)]
    pub engine: PlayArgs,
}

/// Plays the game; the result text (`B+3.5`, `W+R`).
pub fn run(args: &SelfplayArgs) -> anyhow::Result<String> {
    let mut engine = args.engine.engine();
    if !engine.resize(args.size) {
        anyhow::bail!("board size {} is not in 2..={}", args.size, crate::MAX_SIZE);
    }
    let max_moves = args.max_moves.unwrap_or(3 * args.size * args.size);
    let mut err = std::io::stderr().lock();
    let _ = writeln!(
        err,
        "Tengen {} plays itself: {n}x{n}, komi {}, {} rules",
        env!("CARGO_PKG_VERSION"),
        engine.game().komi(),
        engine.game().rules().name,
        n = args.size
    );
    let start = Instant::now();
    let mut times: Vec<f64> = Vec::new();
    let mut result = None;
    while !engine.game().is_over() && engine.game().moves().len() < max_moves {
        let color = engine.game().to_move();
        let t0 = Instant::now();
        let m = engine.genmove(color, GenmoveOptions::default());
        let took = t0.elapsed().as_secs_f64();
        let n = engine.game().moves().len();
        let text = match m {
            Genmove::Resign => "resign".to_string(),
            Genmove::Pass => move_text(Move::Pass),
            Genmove::Place(p) => move_text(Move::Place(p)),
        };
        let _ = writeln!(err, "{n:>3}. {} {text:<6} {took:.3} s", color_name(color));
        if m == Genmove::Resign {
            let winner = if color == Color::Black { "W" } else { "B" };
            result = Some(format!("{winner}+R"));
            break;
        }
        times.push(took);
        if !args.quiet {
            let _ = writeln!(err, "{}", diagram(engine.game()));
        }
    }
    let result = result.unwrap_or_else(|| engine.final_score(Stop::never()).result_string());
    let total: f64 = times.iter().sum();
    let longest = times.iter().cloned().fold(0.0, f64::max);
    let words = crate::score::result_in_words(&result).unwrap_or_else(|| result.clone());
    let _ = writeln!(
        err,
        "result {result} ({words}) after {} moves, {:.1} s (mean move {:.3} s, longest {longest:.3} s)",
        engine.game().moves().len(),
        start.elapsed().as_secs_f64(),
        total / times.len().max(1) as f64
    );
    let mut rec = record_of(engine.game());
    let name = format!("Tengen {}", env!("CARGO_PKG_VERSION"));
    rec.info = vec![
        ("PB".into(), name.clone()),
        ("PW".into(), name),
        ("RE".into(), result.clone()),
    ];
    for (node, t) in rec.nodes.iter_mut().skip(1).zip(&times) {
        node.extra.push(("C".into(), format!("{t:.3} s")));
    }
    if let Some(last) = rec.nodes.last_mut() {
        // The result where a person reads it: the last node's comment.
        match last.extra.iter_mut().find(|(k, _)| k == "C") {
            Some((_, c)) => *c = format!("{c}\n{words}"),
            None => last.extra.push(("C".into(), words.clone())),
        }
    }
    let text = sgf::write_record(&rec) + "\n";
    match &args.sgf {
        Some(path) => {
            std::fs::write(path, &text)?;
            let _ = writeln!(err, "SGF written to {}", path.display());
        }
        None => print!("{text}"),
    }
    Ok(result)
}
