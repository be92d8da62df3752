//! `tengen match`: games between two GTP engines given as command lines, every move
//! checked with Tengen's own [`Game`](crate::game::Game), the runner keeping the clocks;
//! one SGF per game, `results.tsv`, a summary with a Wilson interval and an Elo estimate,
//! resumable.
//!
//! A front end beside `gtp`: it speaks GTP to child processes and uses `game`, `record`,
//! `sgf` and (to count a disputed game) `engine`.
//!
//! The files: `args.rs` the options; `result.rs` a finished game (a row of `results.tsv`);
//! `seats.rs` the engines a worker keeps and the match's fixed setup; `game.rs` one game
//! played and its SGF; `referee.rs` who counts a finished game; `summary.rs` the totals
//! and their text; `merge.rs` `tengen match-merge`; `clock.rs` and `stats.rs` the clocks
//! and the statistics. This file is the runner: the match folder, resuming, the workers.

pub mod clock;
pub mod stats;

mod args;
mod game;
mod merge;
mod referee;
mod result;
mod seats;
mod summary;

pub use args::{MatchArgs, MergeArgs, Shard};
pub use merge::merge;
pub use referee::score_winner;
pub use result::{GameResult, MoveTimes, Reason, Side};
pub use summary::{Summary, Title};

use std::collections::BTreeMap;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};

use anyhow::{bail, Context as _};

use crate::gtp::client;
use crate::sgf;
use crate::time::TimeSystem;
use game::{play_game, Played};
use result::TSV_HEADER;
use seats::{Opening, Seats, Setup};

/// Loads the openings: the main-line moves of every `.sgf` in `dir`, by file name.
fn load_openings(dir: &Path, size: usize) -> anyhow::Result<Vec<Opening>> {
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .with_context(|| format!("openings folder {}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let rec =
            sgf::read_record_file(&f, None).map_err(|e| anyhow::anyhow!("{}: {e}", f.display()))?;
        if rec.size != size {
            bail!(
                "{}: a {}x{} opening for a {size}x{size} match",
                f.display(),
                rec.size,
                rec.size
            );
        }
        let moves = rec
            .nodes
            .iter()
            .filter_map(|n| n.mv)
            .map(|(c, m)| (c, crate::record::move_of_sgf(m)))
            .collect();
        out.push((f.display().to_string(), moves));
    }
    if out.is_empty() {
        bail!("no .sgf files in openings folder {}", dir.display());
    }
    Ok(out)
}

/// The match identity written to `match.txt`: a resumed run must agree on every line.
fn identity(args: &MatchArgs, time: Option<TimeSystem>, max_moves: usize) -> String {
    let shard = args.shard.map_or(String::new(), |s| {
        format!("shard={}/{}\n", s.index, s.count)
    });
    shard
        + &format!(
        "a={}\nb={}\nsize={}\nkomi={}\nrules={}\ntime={}\ngrace={}\nmax_moves={}\nopenings={}\n",
        args.a,
        args.b,
        args.size,
        args.komi,
        args.rules.name,
        time.map_or("none".into(), |t| t.to_string()),
        args.grace,
        max_moves,
        args.openings
            .as_ref()
            .map_or("none".into(), |p| p.display().to_string()),
    )
}

/// Runs (or resumes) the match; returns the summary of all finished games and its text
/// (as written to `summary.txt`, ending in the machine-readable line).
pub fn run(args: MatchArgs) -> anyhow::Result<(Summary, String)> {
    if !(2..=crate::MAX_SIZE).contains(&args.size) {
        bail!("board size {} is not in 2..={}", args.size, crate::MAX_SIZE);
    }
    if args.parallel == 0 {
        bail!("--parallel must be at least 1");
    }
    client::split_command(&args.a).map_err(anyhow::Error::msg)?;
    client::split_command(&args.b).map_err(anyhow::Error::msg)?;
    if let Some(t) = args.time_per_move {
        // GTP's time commands take whole seconds: 0.5 would go out as `time_settings 0 0 1`,
        // which means no byo-yomi at all.
        if t < 1.0 || t.fract() != 0.0 {
            bail!("--time-per-move must be a whole number of seconds, at least 1 (GTP sends whole seconds)");
        }
    }
    let time = args.time.or(args.time_per_move.map(TimeSystem::per_move));
    let max_moves = args.max_moves.unwrap_or(3 * args.size * args.size);
    let openings = match &args.openings {
        Some(dir) => load_openings(dir, args.size)?,
        None => Vec::new(),
    };
    fs::create_dir_all(&args.out).with_context(|| format!("{}", args.out.display()))?;
    let id_path = args.out.join("match.txt");
    let id = identity(&args, time, max_moves);
    match fs::read_to_string(&id_path) {
        Ok(old) if old != id => bail!(
            "{} holds another match (its match.txt differs); use another --out\nold:\n{old}new:\n{id}",
            args.out.display()
        ),
        Ok(_) => {}
        Err(_) => fs::write(&id_path, &id)?,
    }
    let tsv_path = args.out.join("results.tsv");
    let mut done: BTreeMap<usize, GameResult> = BTreeMap::new();
    if let Ok(text) = fs::read_to_string(&tsv_path) {
        for line in text.lines().skip(1) {
            if let Some(r) = GameResult::from_tsv(line) {
                done.insert(r.game, r);
            }
        }
    }
    // Rewrite the table with only well-formed rows (a run killed mid-line leaves a stub).
    {
        let mut text = format!("{TSV_HEADER}\n");
        for r in done.values() {
            text.push_str(&r.tsv());
            text.push('\n');
        }
        fs::write(&tsv_path, text)?;
    }
    let mine = |g: usize| g < args.games && args.shard.is_none_or(|s| s.has(g));
    let pending: Vec<usize> = (0..args.games)
        .filter(|&g| mine(g) && !done.contains_key(&g))
        .collect();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if args.parallel * args.engine_threads > cores {
        eprintln!(
            "warning: {} games at once with {} thread(s) per engine exceed this machine's {cores} cores: move times will mean little",
            args.parallel, args.engine_threads
        );
    }
    let in_range = |r: &&GameResult| mine(r.game);
    let mut finished: Vec<GameResult> = done.values().filter(in_range).cloned().collect();
    if !done.is_empty() {
        eprintln!(
            "resuming: {} finished games kept, {} to play",
            finished.len(),
            pending.len()
        );
    }
    let bar = indicatif::ProgressBar::new((0..args.games).filter(|&g| mine(g)).count() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{bar:30} {pos}/{len} {msg} [{elapsed_precise}<{eta_precise}]",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.set_position(finished.len() as u64);
    let score_msg = |s: &Summary| format!("A {} B {} draws {}", s.a_wins, s.b_wins, s.draws);
    bar.set_message(score_msg(&Summary::of(&finished)));

    let setup = Arc::new(Setup {
        args: args.clone(),
        time,
        max_moves,
        openings,
    });
    let queue = Arc::new((pending, AtomicUsize::new(0)));
    let (tx, rx) = mpsc::channel::<Played>();
    let workers = args.parallel.min(queue.0.len());
    let mut handles = Vec::new();
    for _ in 0..workers {
        let (setup, queue, tx) = (setup.clone(), queue.clone(), tx.clone());
        handles.push(std::thread::spawn(move || {
            let mut seats = Seats {
                players: [None, None],
                names: ["?".into(), "?".into()],
                referee: None,
            };
            loop {
                let i = queue.1.fetch_add(1, Ordering::SeqCst);
                let Some(&game_no) = queue.0.get(i) else {
                    break;
                };
                let played = play_game(&setup, &mut seats, game_no);
                if tx.send(played).is_err() {
                    break;
                }
            }
            seats.close();
        }));
    }
    drop(tx);
    let mut tsv = fs::OpenOptions::new().append(true).open(&tsv_path)?;
    for played in rx {
        let r = &played.result;
        let sgf_path = args.out.join(format!("game-{:03}.sgf", r.game));
        fs::write(&sgf_path, &played.sgf).with_context(|| format!("{}", sgf_path.display()))?;
        writeln!(tsv, "{}", r.tsv())?;
        tsv.flush()?;
        let words = crate::score::result_in_words(&r.result).unwrap_or_default();
        let black = &r.names[r.black.index()];
        let white = &r.names[r.black.other().index()];
        if r.reason != Reason::Score && r.reason != Reason::Resign {
            bar.println(format!(
                "game {}: {black} (B) - {white} (W) {} ({words}; {}), see {}",
                r.game,
                r.result,
                r.reason.word(),
                sgf_path.display()
            ));
        } else {
            bar.println(format!(
                "game {}: {black} (B) - {white} (W) {} ({words})",
                r.game, r.result
            ));
        }
        finished.push(played.result);
        bar.inc(1);
        bar.set_message(score_msg(&Summary::of(&finished)));
    }
    for h in handles {
        let _ = h.join();
    }
    bar.finish_and_clear();
    finished.sort_by_key(|r| r.game);
    let summary = Summary::of(&finished);
    let text = summary.text(&Title::of(&args)) + &summary.machine_line() + "\n";
    fs::write(args.out.join("summary.txt"), &text)?;
    Ok((summary, text))
}
