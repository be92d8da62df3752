//! `tengen review GAME.sgf`: analyses every position of a record's main line and writes
//! the record back with each move's win rate (Sabaki's `SBKV`, Black's win rate in
//! percent, from which Sabaki draws its graph) and score lead (in the comment), Tengen's
//! preferred move and its main variation as an SGF variation where a move lost much, a
//! summary of each side's biggest mistakes on stdout, and with `--plot` a graph of the
//! win rate and score lead with the mistakes marked (drawn by `plot.rs`, SVG or PNG).
//! The positions are searched by the analysis pool (`analysis/pool.rs`), as many at a time
//! as there are threads, as `tengen analysis` searches them.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use clap::Args;

use crate::board::{Color, Move};
use crate::cli::SearchArgs;
use crate::game::Game;
use crate::notation::move_text;
use crate::record::{game_from_record, record_of};
use crate::rules::Rules;
use crate::search::Analysis;
use crate::sgf::{self, SgfMove, SgfNode, SgfPoint};

use super::analysis::pool::{self, MoveFilter, Outcome, Pool, PoolSize, Request, Sink};
use super::plot;

/// Options of `tengen review`.
#[derive(Args, Debug, Clone)]
pub struct ReviewArgs {
    /// The game record (SGF); its main line is reviewed with the record's komi (KM; 7.5
    /// when it has none) and board size.
    pub file: PathBuf,
    /// Playouts (visits with a network) for each position (default: 1,000; 100 with a
    /// network).
    #[arg(long, conflicts_with = "time_per_move",
          value_parser = |s: &str| crate::cli::number_in(s, 1u64, 1_000_000_000_000))]
    pub visits: Option<u64>,
    /// Seconds for each position instead of a playout count.
    #[arg(long, value_parser = crate::cli::parse_move_time)]
    pub time_per_move: Option<f64>,
    /// Where to write the reviewed record (default: GAME-review.sgf beside the record).
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Also draw a graph here: Black's win rate and score lead move by move, the
    /// mistakes marked with their moves; SVG or PNG by the extension (.svg, .png).
    #[arg(long, value_name = "FILE.svg|FILE.png", value_parser = super::plot::parse_path)]
    pub plot: Option<PathBuf>,
    /// A move is a mistake, and gets Tengen's variation, when it loses at least this
    /// much win rate (0..1) against Tengen's preferred move.
    #[arg(long, default_value_t = 0.1, value_parser = crate::cli::parse_fraction)]
    pub threshold: f64,
    /// Mistakes listed for each side.
    #[arg(long, default_value_t = 3)]
    pub top: usize,
    /// A KataGo network (.bin.gz) to review with (PUCT search; its win rate and score
    /// lead) [default: $TENGEN_MODEL, else scripts/fetch-model.sh's file when present];
    /// `none`: playouts.
    #[arg(long, value_name = "FILE")]
    pub model: Option<PathBuf>,
    /// Rules the positions are searched under: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = crate::cli::parse_rules)]
    pub rules: Rules,
    #[command(flatten)]
    pub search: SearchArgs,
}

/// What the review found at one position (before move `k + 1`, after move `k`).
#[derive(Clone, Debug)]
pub struct Position {
    /// Black's win rate and score lead (komi included).
    pub black_winrate: f64,
    pub black_lead: f64,
    pub analysis: Analysis,
}

/// One move judged against the search of the position before it.
#[derive(Clone, Debug)]
pub struct Mistake {
    /// 1-based move number.
    pub number: usize,
    pub color: Color,
    pub played: Move,
    /// The mover's win rate with Tengen's move, and after the move played.
    pub best_winrate: f64,
    pub after_winrate: f64,
    pub best: Move,
    /// Tengen's variation, its preferred move first.
    pub pv: Vec<Move>,
}

impl Mistake {
    pub fn loss(&self) -> f64 {
        self.best_winrate - self.after_winrate
    }
}

/// The whole review: every position's figures and every move's judgement.
pub struct Review {
    pub start: Game,
    /// The record's game information (players, date, result...), written back.
    pub info: Vec<(String, String)>,
    pub moves: Vec<(Color, Move)>,
    pub positions: Vec<Position>,
    pub judged: Vec<Mistake>,
    /// The search each position had: "1000 playouts", "100 visits of NETWORK", "2 s".
    pub effort: String,
}

/// Reads the record and builds its start position and main-line moves.
#[allow(clippy::type_complexity)]
fn load(args: &ReviewArgs) -> anyhow::Result<(Game, Vec<(Color, Move)>, Vec<(String, String)>)> {
    let rec = sgf::read_record_file(&args.file, None)
        .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
    let template = Game::new(19, args.rules.clone()).expect("19x19 is a board size");
    let full = game_from_record(&rec, &template, None).map_err(anyhow::Error::msg)?;
    let start = game_from_record(&rec, &template, Some(1)).map_err(anyhow::Error::msg)?;
    Ok((start, full.moves().to_vec(), rec.info))
}

/// Analyses every position, with a progress bar on stderr.
pub fn review(args: &ReviewArgs) -> anyhow::Result<Review> {
    let (start, moves, info) = load(args)?;
    let settings = args.search.settings();
    let net = crate::cli::resolve_network(args.model.clone()).map_err(anyhow::Error::msg)?;
    let visits = args
        .visits
        .unwrap_or(if net.is_some() { 100 } else { 1000 });
    let effort = match (args.time_per_move, &net) {
        (Some(s), None) => format!("{s} s"),
        (Some(s), Some(n)) => format!("{s} s with {}", n.0.name),
        (None, None) => format!("{visits} playouts"),
        (None, Some(n)) => format!("{visits} visits of {}", n.0.name),
    };
    // One evaluation service in `--set precision` for the pool's workers.
    let service = net
        .as_ref()
        .map(|n| n.service(settings.precision, settings.search.max_memory_mib));
    let bar = indicatif::ProgressBar::new(moves.len() as u64 + 1);
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{prefix} [{bar:40}] {pos}/{len} positions, {elapsed} (eta {eta})",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    bar.set_prefix("review");
    // Every position through the analysis pool, as `tengen analysis` searches them:
    // as many at a time as there are threads.
    let found: Arc<Mutex<Vec<Option<Analysis>>>> =
        Arc::new(Mutex::new(vec![None; moves.len() + 1]));
    let threads = settings.search.threads.max(1);
    let pool = Pool::new(
        &settings.search,
        service,
        PoolSize {
            workers: threads,
            threads_per_search: None,
            cores: threads,
        },
    );
    let position = Arc::new(pool::Position {
        start: start.clone(),
        moves: moves.clone(),
        on_drop: None,
    });
    let no_filter = Arc::new(MoveFilter::default());
    for turn in 0..=moves.len() {
        let (found, bar) = (found.clone(), bar.clone());
        let sink: Sink = Arc::new(move |o: Outcome<'_>| {
            if let Outcome::Final(a, _) = o {
                if let Some(slot) = found
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .get_mut(turn)
                {
                    *slot = Some(a.clone());
                }
                bar.inc(1);
            }
        });
        pool.submit(Request {
            position: position.clone(),
            turn,
            // The earlier positions first, so the bar moves through the game.
            priority: -(turn as i64),
            visits: if args.time_per_move.is_some() {
                crate::tools::analysis::MAX_VISITS
            } else {
                visits.max(1)
            },
            time: args
                .time_per_move
                .map(|s| std::time::Duration::from_secs_f64(s.max(0.01))),
            report_every: None,
            moves_ownership: false,
            policy: false,
            filter: no_filter.clone(),
            status: Arc::new(pool::Status::default()),
            sink,
        });
    }
    pool.finish();
    let found = std::mem::take(&mut *found.lock().unwrap_or_else(|e| e.into_inner()));
    let mut positions = Vec::with_capacity(moves.len() + 1);
    for (turn, a) in found.into_iter().enumerate() {
        let a = a.ok_or_else(|| anyhow::anyhow!("position {turn} could not be searched"))?;
        let black_winrate = if a.color == Color::Black {
            a.winrate
        } else {
            1.0 - a.winrate
        };
        positions.push(Position {
            black_winrate,
            black_lead: a.score_black,
            analysis: a,
        });
    }
    bar.finish_and_clear();
    let judged = moves
        .iter()
        .enumerate()
        .map(|(i, &(color, played))| {
            let before = &positions[i].analysis;
            let mover = |black: f64| {
                if color == Color::Black {
                    black
                } else {
                    1.0 - black
                }
            };
            // The search before the move answers for whoever moved, whose turn it was.
            let best_winrate = if before.color == color {
                before.winrate
            } else {
                1.0 - before.winrate
            };
            let top = before.candidates.first();
            Mistake {
                number: i + 1,
                color,
                played,
                best_winrate,
                after_winrate: mover(positions[i + 1].black_winrate),
                best: top.map_or(Move::Pass, |c| c.mv),
                pv: top.map(|c| c.pv.clone()).unwrap_or_default(),
            }
        })
        .collect();
    Ok(Review {
        start,
        info,
        moves,
        positions,
        judged,
        effort,
    })
}

fn sgf_move(mv: Move) -> SgfMove {
    match mv {
        Move::Pass => SgfMove::Pass,
        Move::Place(p) => {
            let (col, row) = p.coord();
            SgfMove::Play(SgfPoint {
                col: col as u8,
                row: row as u8,
            })
        }
    }
}

fn percent(x: f64) -> String {
    format!("{:.1}%", 100.0 * x)
}

fn lead_text(black_lead: f64) -> String {
    if black_lead >= 0.0 {
        format!("B+{black_lead:.1}")
    } else {
        format!("W+{:.1}", -black_lead)
    }
}

/// Whether Tengen's variation is shown for this move.
fn is_mistake(m: &Mistake, threshold: f64) -> bool {
    m.loss() >= threshold && m.best != m.played
}

/// The reviewed record as SGF: the main line with `SBKV` and a comment on every move
/// node, and Tengen's variation beside each mistake.
pub fn write_sgf(r: &Review, threshold: f64) -> String {
    let size = r.start.size();
    let mut rec = record_of(&r.start);
    rec.info = r.info.clone();
    rec.info.push((
        "GC".into(),
        format!(
            "Reviewed by Tengen {}: SBKV is Black's win rate in percent",
            env!("CARGO_PKG_VERSION")
        ),
    ));
    let root = sgf::write_record(&rec);
    let mut out = root.trim_end_matches(')').to_string();
    let mut pending: Vec<String> = Vec::new();
    for (i, &(color, mv)) in r.moves.iter().enumerate() {
        let p = &r.positions[i + 1];
        let m = &r.judged[i];
        let mut comment = format!(
            "Black {} ({}) after move {}",
            percent(p.black_winrate),
            lead_text(p.black_lead),
            i + 1
        );
        if is_mistake(m, threshold) {
            let _ = write!(
                comment,
                "; lost {} for {}: Tengen prefers {} ({})",
                percent(m.loss()),
                if color == Color::Black {
                    "Black"
                } else {
                    "White"
                },
                move_text(m.best),
                percent(m.best_winrate)
            );
            // The variation: a sibling of this move node.
            let mut var = String::from("(");
            let mut c = color;
            for (j, &v) in m.pv.iter().enumerate() {
                let node = SgfNode {
                    mv: Some((c, sgf_move(v))),
                    extra: if j == 0 {
                        vec![(
                            "C".into(),
                            format!("Tengen: {} for {}", percent(m.best_winrate), {
                                if color == Color::Black {
                                    "Black"
                                } else {
                                    "White"
                                }
                            }),
                        )]
                    } else {
                        Vec::new()
                    },
                    ..SgfNode::default()
                };
                var.push(';');
                var.push_str(&sgf::node_properties(&node, size));
                c = c.opponent();
            }
            var.push(')');
            out.push('(');
            pending.push(var);
        }
        let node = SgfNode {
            mv: Some((color, sgf_move(mv))),
            extra: vec![
                ("SBKV".into(), format!("{:.2}", 100.0 * p.black_winrate)),
                ("C".into(), comment),
            ],
            ..SgfNode::default()
        };
        out.push_str("\n;");
        out.push_str(&sgf::node_properties(&node, size));
    }
    for var in pending.iter().rev() {
        out.push(')');
        out.push_str(var);
    }
    out.push_str(")\n");
    out
}

/// Each side's biggest mistakes, as lines for stdout.
pub fn summary(r: &Review, args: &ReviewArgs) -> String {
    let mut out = String::new();
    let first = r.positions.first().map_or(0.5, |p| p.black_winrate);
    let last = r.positions.last().map_or(0.5, |p| p.black_winrate);
    let _ = writeln!(
        out,
        "{} moves reviewed; Black's win rate {} at the start, {} at the end",
        r.moves.len(),
        percent(first),
        percent(last)
    );
    for color in Color::BOTH {
        let mut ms: Vec<&Mistake> = r.judged.iter().filter(|m| m.color == color).collect();
        ms.sort_by(|a, b| b.loss().total_cmp(&a.loss()));
        let name = if color == Color::Black {
            "Black"
        } else {
            "White"
        };
        let _ = writeln!(out, "{name}'s biggest mistakes:");
        let shown: Vec<&&Mistake> = ms
            .iter()
            .filter(|m| is_mistake(m, args.threshold))
            .take(args.top)
            .collect();
        if shown.is_empty() {
            let _ = writeln!(out, "  none losing {} or more", percent(args.threshold));
        }
        for m in shown {
            let _ = writeln!(
                out,
                "  move {} {}: {} -> {} ({}), Tengen prefers {}",
                m.number,
                move_text(m.played),
                percent(m.best_winrate),
                percent(m.after_winrate),
                format_args!("-{}", percent(m.loss())),
                move_text(m.best)
            );
        }
    }
    out
}

/// The graph of the review: its title names the game (players, result), its subtitle
/// the board, komi, date and effort; the mistakes are those of the SGF and the summary.
pub fn graph(r: &Review, args: &ReviewArgs) -> plot::Graph {
    let info = |key: &str| {
        r.info
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.trim().to_string())
            .filter(|v| !v.is_empty())
    };
    // "Gu Li 9p (B) vs Master (W)"; a side the record does not name is "Black" alone.
    let player = |name: &str, rank: &str, color: &str| match info(name) {
        Some(who) => {
            let rank = info(rank).map_or(String::new(), |r| format!(" {r}"));
            format!("{who}{rank} ({})", &color[..1])
        }
        None => color.to_string(),
    };
    let mut title = format!(
        "{} vs {}",
        player("PB", "BR", "Black"),
        player("PW", "WR", "White")
    );
    if let Some(result) = info("RE") {
        let _ = write!(title, ", {result}");
    }
    let size = r.start.size();
    let mut sub = vec![format!("{size}x{size}, komi {}", r.start.komi())];
    sub.extend(info("EV"));
    sub.extend(info("DT"));
    sub.push(format!("Tengen review at {} a position", r.effort));
    let mistakes = r
        .judged
        .iter()
        .filter(|m| is_mistake(m, args.threshold))
        .map(|m| plot::Mark {
            number: m.number,
            color: m.color,
            label: format!("{} {}", m.number, move_text(m.played)),
            loss: m.loss(),
        })
        .collect();
    plot::Graph {
        title,
        subtitle: sub.join(", "),
        winrate: r.positions.iter().map(|p| p.black_winrate).collect(),
        lead: r.positions.iter().map(|p| p.black_lead).collect(),
        mistakes,
    }
}

/// `tengen review`: analyses, writes the record (and graph), prints the summary.
pub fn run(args: &ReviewArgs) -> anyhow::Result<()> {
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .file
            .file_stem()
            .map_or("game".into(), |s| s.to_string_lossy().into_owned());
        args.file.with_file_name(format!("{stem}-review.sgf"))
    });
    // A file that cannot be written is said before the review's minutes, not after.
    for path in std::iter::once(&out).chain(&args.plot) {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => std::path::Path::new("."),
        };
        if !dir.is_dir() {
            anyhow::bail!(
                "cannot write {}: no directory {}",
                path.display(),
                dir.display()
            );
        }
    }
    let r = review(args)?;
    std::fs::write(&out, write_sgf(&r, args.threshold))?;
    if let Some(plot) = &args.plot {
        plot::write(&graph(&r, args), plot)?;
    }
    let text = format!("{}wrote {}\n", summary(&r, args), out.display());
    match std::io::Write::write_all(&mut std::io::stdout().lock(), text.as_bytes()) {
        // A reader that stopped early (`| head`) is not a failure of the review.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(e.into()),
        _ => Ok(()),
    }
}
