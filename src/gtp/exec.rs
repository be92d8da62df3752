//! Runs GTP commands against the [`Engine`]: one exhaustive `match`, converting between
//! GTP vertices and board points and producing the reply texts. No stdin/stdout here
//! (details of refusals go to stderr), so it is unit-testable.
use super::analysis;
use super::command::{Command, Status};
use super::error::GtpError;
use super::parse::{GtpMove, Vertex};
use super::serve::{Context, Executor, Reply};
use crate::board::{Board, Color, Move, Point};
use crate::engine::{AnalyzeOptions, Engine, Genmove, GenmoveOptions, Stop};
use crate::game::SetupError;
use crate::nn::Evaluation;
use crate::notation::diagram;
use crate::record::{game_from_record, record_of};
use crate::search::Reporter;
use crate::sgf;
use crate::time::{Clock, TimeSystem};

/// The engine's GTP name.
pub const NAME: &str = "Tengen";

/// The board point of a vertex, if it is on the board.
pub fn point_of(board: &Board, v: Vertex) -> Option<Point> {
    board.point(v.col as usize, v.row as usize)
}

/// The vertex of a board point.
pub fn vertex_of(p: Point) -> Vertex {
    let (col, row) = p.coord();
    Vertex {
        col: col as u8,
        row: row as u8,
    }
}

fn move_of(board: &Board, m: GtpMove) -> Option<Move> {
    match m {
        GtpMove::Pass => Some(Move::Pass),
        GtpMove::Vertex(v) => point_of(board, v).map(Move::Place),
    }
}

/// Vertices in GNU Go's order: top row first, left to right, separated by spaces.
fn vertex_list(mut points: Vec<Point>) -> String {
    points.sort_by_key(|p| {
        let (c, r) = p.coord();
        (std::cmp::Reverse(r), c)
    });
    let texts: Vec<String> = points.iter().map(|&p| vertex_of(p).to_string()).collect();
    texts.join(" ")
}

/// The GTP text of a generated move: a vertex, `pass` or `resign`.
pub(super) fn genmove_text(m: Genmove) -> String {
    match m {
        Genmove::Place(p) => vertex_of(p).to_string(),
        Genmove::Pass => "pass".into(),
        Genmove::Resign => "resign".into(),
    }
}

/// Everything a GTP command may change, one `key value` line each (`tengen-state`):
/// what a failed command must leave as it was, and what a user may want to check.
fn state_text(engine: &Engine) -> String {
    let letter = crate::notation::color_letter;
    let g = engine.game();
    let hashes: Vec<u64> = g.position_hashes().collect();
    let history = hashes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &x| {
        (h ^ x).wrapping_mul(0x100_0000_01b3)
    });
    // The last 20 moves (the count says how many there are).
    let all = g.moves();
    let moves: Vec<String> = all[all.len().saturating_sub(20)..]
        .iter()
        .map(|&(c, m)| format!("{}{}", letter(c), crate::notation::move_text(m)))
        .collect();
    format!(
        "size {}\nkomi {}\nrules {:?}\nhandicap {}\nsetup {}\nfirst_to_move {}\nto_move {}\nmoves {} last {}\ncaptures {} {}\nposition_hash {:016x}\nhistory_hash {:016x}\ntime_control {}\nclock_black {:?}\nclock_white {:?}",
        g.size(),
        g.komi(),
        g.rules(),
        g.handicap(),
        g.setup().len(),
        letter(g.first_to_move()),
        letter(g.to_move()),
        all.len(),
        moves.join(" "),
        g.board().captures(Color::Black),
        g.board().captures(Color::White),
        hashes.last().copied().unwrap_or(0),
        history,
        engine.clocks()
            .system()
            .map_or("None".to_string(), |t| format!("{t:?}")),
        engine.clocks().left(Color::Black),
        engine.clocks().left(Color::White),
    )
}

/// One symmetry's block of `kata-raw-nn`, as KataGo 1.17.2 prints it (`rawNN` in its
/// `gtp.cpp`): the values from White's point of view but the policy (for the player to
/// move), the policy and ownership in rows from the top, each value followed by a space,
/// `NAN` for an illegal point (the caller trims the end of the response, as KataGo).
/// KataGo separates the blocks of `all` by an empty line, which ends a GTP response
/// early; here they follow one another.
fn raw_nn_text(symmetry: usize, e: &Evaluation) -> String {
    use std::fmt::Write;
    let n = e.size;
    let mut out = String::with_capacity(24 * n * n + 400);
    let f = |x: f32| f64::from(x);
    let _ = writeln!(out, "symmetry {symmetry}");
    let _ = writeln!(out, "whiteWin {:.6}", f(e.white_win));
    let _ = writeln!(out, "whiteLoss {:.6}", f(e.white_loss));
    let _ = writeln!(out, "noResult {:.6}", f(e.no_result));
    let _ = writeln!(out, "whiteLead {:.3}", f(e.white_lead));
    let _ = writeln!(out, "whiteScoreSelfplay {:.3}", f(e.white_score_mean));
    let _ = writeln!(out, "whiteScoreSelfplaySq {:.3}", f(e.white_score_mean_sq));
    let _ = writeln!(out, "varTimeLeft {:.3}", f(e.var_time_left));
    let _ = writeln!(
        out,
        "shorttermWinlossError {:.3}",
        f(e.shortterm_winloss_error)
    );
    let _ = writeln!(out, "shorttermScoreError {:.3}", f(e.shortterm_score_error));
    out.push_str("policy\n");
    for row in 0..n {
        for i in row * n..(row + 1) * n {
            if e.legal[i] {
                let _ = write!(out, "{:8.6} ", f(e.policy[i]));
            } else {
                out.push_str("    NAN ");
            }
        }
        out.push('\n');
    }
    let _ = writeln!(out, "policyPass {:8.6} ", f(e.pass));
    out.push_str("whiteOwnership\n");
    for row in 0..n {
        for i in row * n..(row + 1) * n {
            let _ = write!(out, "{:9.7} ", f(e.white_ownership[i]));
        }
        out.push('\n');
    }
    out
}

/// CPU seconds used by this process (Linux `/proc/self/stat`; 0 elsewhere).
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may contain spaces) start after ") ".
    let Some(rest) = stat.rsplit_once(") ").map(|x| x.1) else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    // utime and stime are fields 14 and 15 of the whole line: 12 and 13 here.
    let ticks: f64 = [11usize, 12]
        .iter()
        .filter_map(|&i| f.get(i).and_then(|t| t.parse::<f64>().ok()))
        .sum();
    ticks / 100.0
}

/// Chains (one per line, vertices separated by spaces) whose status is `status`, as the
/// engine judges them ([`crate::status::chain_statuses`]).
fn status_list(engine: &Engine, status: Status, stop: Stop<'_>) -> String {
    let lines: Vec<String> = engine
        .chain_statuses(stop)
        .into_iter()
        .filter(|(s, _)| *s == status)
        .map(|(_, chain)| vertex_list(chain))
        .collect();
    lines.join("\n")
}

impl Executor for Engine {
    fn idle(&mut self, ctx: &Context) {
        self.ponder(Stop::when(&|| ctx.idle_over()));
    }

    fn execute_streamed(
        &mut self,
        command: Command,
        ctx: &Context,
        out: &mut dyn FnMut(&str),
    ) -> Result<Reply, GtpError> {
        let (format, args, genmove) = match command {
            Command::Analyze(f, a) => (f, a, false),
            Command::GenmoveAnalyze(f, a) => (f, a, true),
            other => return self.execute(other, ctx),
        };
        let color = args.color.unwrap_or_else(|| self.game().to_move());
        let board = self.game().board().clone();
        let interval = std::time::Duration::from_millis(10 * args.interval as u64);
        // `=` at once, once the arguments are known good.
        out("");
        let mut sink = |a: &crate::search::Analysis| {
            out(&analysis::info_line(a, &args, format, &board));
        };
        if genmove {
            // The move ends the response. Not stopped by input, only by `# interrupt`.
            let m = self.genmove(
                color,
                GenmoveOptions {
                    stop: Stop::when(&|| ctx.interrupted()),
                    report: Some(Reporter {
                        interval,
                        sink: &mut sink,
                        moves_ownership: args.moves_ownership,
                    }),
                    ..GenmoveOptions::default()
                },
            );
            return Ok(format!("play {}", genmove_text(m)).into());
        }
        let filter = |mv: Move| analysis::root_allowed(&board, color, &args.avoid, &args.allow, mv);
        let restricted = !args.avoid.is_empty() || !args.allow.is_empty();
        let stop = || ctx.line_arrived() || ctx.interrupted() || ctx.input_closed();
        self.analyze(
            color,
            AnalyzeOptions {
                stop: Stop::when(&stop),
                root_filter: if restricted { Some(&filter) } else { None },
                report: Some(Reporter {
                    interval,
                    sink: &mut sink,
                    moves_ownership: args.moves_ownership,
                }),
                move_time: false,
            },
        );
        Ok(Reply::empty())
    }

    fn execute(&mut self, command: Command, ctx: &Context) -> Result<Reply, GtpError> {
        let size = self.game().size();
        match command {
            // Answered by `serve` before they reach an executor; the same answer here for
            // callers that drive the executor directly.
            c @ (Command::ProtocolVersion | Command::ListCommands | Command::KnownCommand(_)) => {
                Ok(super::serve::builtin_reply(&c).unwrap_or_default())
            }
            // Streamed commands run through `execute_streamed`; called here directly, their
            // lines go nowhere.
            c @ (Command::Analyze(..) | Command::GenmoveAnalyze(..)) => {
                self.execute_streamed(c, ctx, &mut |_| {})
            }
            Command::Name => Ok(NAME.into()),
            Command::Version => Ok(env!("CARGO_PKG_VERSION").into()),
            Command::Quit => Ok(Reply::empty().and_quit()),
            Command::Boardsize(n) => {
                if self.resize(n as usize) {
                    Ok(Reply::empty())
                } else {
                    Err(GtpError::UnacceptableSize)
                }
            }
            Command::ClearBoard => {
                self.clear();
                Ok(Reply::empty())
            }
            Command::Komi(k) => {
                self.set_komi(k);
                Ok(Reply::empty())
            }
            Command::Play(color, m) => {
                let mv = move_of(self.game().board(), m).ok_or_else(|| {
                    crate::log!(1, "play {m}: off the {size}x{size} board");
                    GtpError::IllegalMove
                })?;
                self.play(color, mv).map_err(|e| {
                    crate::log!(1, "play {m}: {e}");
                    GtpError::IllegalMove
                })?;
                Ok(Reply::empty())
            }
            Command::Genmove(color) => {
                let m = self.genmove(
                    color,
                    GenmoveOptions {
                        stop: Stop::when(&|| ctx.interrupted()),
                        ..GenmoveOptions::default()
                    },
                );
                Ok(genmove_text(m).into())
            }
            Command::KgsGenmoveCleanup(color) => {
                let m = self.genmove(
                    color,
                    GenmoveOptions {
                        stop: Stop::when(&|| ctx.interrupted()),
                        cleanup: true,
                        ..GenmoveOptions::default()
                    },
                );
                Ok(genmove_text(m).into())
            }
            Command::RegGenmove(color) => {
                let m = self.genmove(
                    color,
                    GenmoveOptions {
                        stop: Stop::when(&|| ctx.interrupted()),
                        dry_run: true,
                        ..GenmoveOptions::default()
                    },
                );
                Ok(genmove_text(m).into())
            }
            Command::Undo => {
                if self.undo() {
                    Ok(Reply::empty())
                } else {
                    Err(GtpError::CannotUndo)
                }
            }
            Command::GgUndo(n) => {
                let n = n.unwrap_or(1) as usize;
                if n > self.game().moves().len() {
                    return Err(GtpError::CannotUndo);
                }
                for _ in 0..n {
                    self.undo();
                }
                Ok(Reply::empty())
            }
            Command::FixedHandicap(n) => {
                let pts = crate::handicap::fixed_handicap_points(size, n as usize)
                    .ok_or(GtpError::InvalidNumberOfStones)?;
                self.place_handicap(&pts)
            }
            Command::PlaceFreeHandicap(n) => {
                let pts = crate::handicap::free_handicap_points(size, n as usize)
                    .ok_or(GtpError::InvalidNumberOfStones)?;
                self.place_handicap(&pts)
            }
            Command::SetFreeHandicap(list) => {
                let mut pts = Vec::with_capacity(list.len());
                for m in list {
                    match move_of(self.game().board(), m) {
                        Some(Move::Place(p)) => pts.push(p),
                        _ => return Err(GtpError::BadVertexList),
                    }
                }
                self.set_handicap(&pts).map_err(|e| match e {
                    SetupError::BoardNotEmpty => GtpError::BoardNotEmpty,
                    SetupError::BadPoints => GtpError::BadVertexList,
                })?;
                Ok(Reply::empty())
            }
            Command::TimeSettings {
                main_time,
                byo_yomi_time,
                byo_yomi_stones,
            } => {
                self.set_time_system(TimeSystem::from_gtp(
                    main_time as f64,
                    byo_yomi_time as f64,
                    byo_yomi_stones,
                ));
                Ok(Reply::empty())
            }
            Command::KgsTimeSettings(system) => {
                self.set_time_system(system);
                Ok(Reply::empty())
            }
            Command::TimeLeft {
                color,
                time,
                stones,
            } => {
                self.set_time_left(
                    color,
                    Clock {
                        seconds: time.max(0) as f64,
                        stones,
                    },
                );
                Ok(Reply::empty())
            }
            // Both stop judging dead stones on `# interrupt` and answer from the playouts
            // run so far.
            Command::FinalScore => Ok(self
                .final_score(Stop::when(&|| ctx.interrupted()))
                .result_string()
                .into()),
            Command::FinalScoreStones => Ok(self
                .final_score(Stop::when(&|| ctx.interrupted()))
                .in_stones()
                .into()),
            Command::TengenState => Ok(state_text(self).into()),
            Command::FinalStatusList(status) => {
                Ok(status_list(self, status, Stop::when(&|| ctx.interrupted())).into())
            }
            Command::Loadsgf { file, move_number } => {
                let path = std::path::Path::new(&file);
                let rec = sgf::read_record_file(path, move_number).map_err(|e| {
                    crate::log!(1, "loadsgf {file}: {e}");
                    GtpError::CannotLoadFile
                })?;
                let game = game_from_record(&rec, self.game(), move_number).map_err(|e| {
                    crate::log!(1, "loadsgf {file}: {e}");
                    GtpError::CannotLoadFile
                })?;
                self.set_game(game);
                Ok(Reply::empty())
            }
            Command::Printsgf(file) => {
                let text = sgf::write_record(&record_of(self.game()));
                match file {
                    None => Ok(text.into()),
                    Some(f) => {
                        sgf::write_file(std::path::Path::new(&f), &(text + "\n")).map_err(|e| {
                            crate::log!(1, "printsgf {f}: {e}");
                            GtpError::Other("cannot write file".into())
                        })?;
                        Ok(Reply::empty())
                    }
                }
            }
            Command::Showboard => Ok(format!("\n{}", diagram(self.game())).into()),
            Command::Cputime => Ok(format!("{:.3}", cpu_seconds()).into()),
            Command::GoguiInterrupt => Ok(Reply::empty()),
            Command::IsLegal(color, m) => {
                let legal = move_of(self.game().board(), m)
                    .is_some_and(|mv| self.game().check(color, mv).is_ok());
                Ok(if legal { "1" } else { "0" }.into())
            }
            Command::AllLegal(color) => Ok(vertex_list(self.game().legal_points(color)).into()),
            Command::ListStones(color) => {
                let b = self.game().board();
                let pts: Vec<Point> = b.points().filter(|&p| b.get(p) == Some(color)).collect();
                Ok(vertex_list(pts).into())
            }
            Command::Captures(color) => Ok(self.game().board().captures(color).to_string().into()),
            Command::KataRawNn { symmetry, optimism } => {
                let symmetries: Vec<usize> = match symmetry {
                    Some(s) => vec![s as usize],
                    None => (0..8).collect(),
                };
                let optimism = optimism.unwrap_or(super::command::RAW_NN_OPTIMISM) as f32;
                let evals = self.raw_nn(&symmetries, optimism).map_err(|e| {
                    crate::log!(1, "kata-raw-nn: {e}");
                    GtpError::Other(e.to_string())
                })?;
                let text: String = symmetries
                    .iter()
                    .zip(&evals)
                    .map(|(&s, e)| raw_nn_text(s, e))
                    .collect();
                Ok(text.trim_end().into())
            }
            Command::GoguiAnalyzeCommands => Ok(analysis::GOGUI_ANALYZE_COMMANDS.into()),
            Command::GoguiPlaySequence(list) => {
                let mut game = self.game().clone();
                for (color, m) in list {
                    let mv = move_of(game.board(), m).ok_or(GtpError::IllegalMove)?;
                    game.play(color, mv).map_err(|e| {
                        crate::log!(1, "gogui-play_sequence {m}: {e}");
                        GtpError::IllegalMove
                    })?;
                }
                self.set_game(game);
                Ok(Reply::empty())
            }
            Command::GoguiSetup(list) => {
                let b = self.game().board();
                if !self.game().moves().is_empty()
                    || b.stone_count(crate::board::Color::Black)
                        + b.stone_count(crate::board::Color::White)
                        > 0
                {
                    return Err(GtpError::BoardNotEmpty);
                }
                let mut stones = Vec::with_capacity(list.len());
                for (color, m) in list {
                    match move_of(b, m) {
                        Some(Move::Place(p)) if !stones.iter().any(|&(_, q)| q == p) => {
                            stones.push((color, p))
                        }
                        _ => return Err(GtpError::Other("bad vertex list".into())),
                    }
                }
                let to_move = self.game().to_move();
                self.set_position(&stones, to_move);
                Ok(Reply::empty())
            }
            Command::GoguiSetupPlayer(color) => {
                if self.set_first_to_move(color) {
                    Ok(Reply::empty())
                } else {
                    Err(GtpError::Other("moves already played".into()))
                }
            }
            Command::GoguiShow(what) => {
                let color = self.game().to_move();
                let a = self
                    .analyze(
                        color,
                        AnalyzeOptions {
                            stop: Stop::when(&|| ctx.interrupted()),
                            move_time: true,
                            ..AnalyzeOptions::default()
                        },
                    )
                    .ok_or_else(|| GtpError::Other("no search (--player random)".into()))?;
                Ok(analysis::gogui_show(what, &a, self.game().board()).into())
            }
            Command::Countlib(v) => {
                let b = self.game().board();
                let p = point_of(b, v).ok_or(GtpError::Other("invalid coordinate".into()))?;
                if b.get(p).is_none() {
                    return Err(GtpError::Other("vertex must not be empty".into()));
                }
                Ok(b.liberties(p).len().to_string().into())
            }
        }
    }
}

impl Engine {
    fn place_handicap(&mut self, pts: &[(usize, usize)]) -> Result<Reply, GtpError> {
        let points: Vec<Point> = pts.iter().map(|&(c, r)| Point::from_coord(c, r)).collect();
        self.set_handicap(&points).map_err(|e| match e {
            SetupError::BoardNotEmpty => GtpError::BoardNotEmpty,
            SetupError::BadPoints => GtpError::InvalidNumberOfStones,
        })?;
        Ok(vertex_list(points).into())
    }
}
