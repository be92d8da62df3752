//! `tengen match`: games between two GTP engines given as command lines, every move
//! checked with Tengen's own [`Game`], the runner keeping the clocks; one SGF per game,
//! `results.tsv`, a summary with a Wilson interval and an Elo estimate, resumable.
//!
//! A front end beside `gtp`: it speaks GTP to child processes and uses `game`, `record`,
//! `sgf` and (to count a disputed game) `engine`.

pub mod clock;
pub mod stats;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use anyhow::{bail, Context as _};
use clap::Args;

use crate::board::{Color, Move};
use crate::engine::{Engine, Settings, Stop};
use crate::game::Game;
use crate::gtp::client::{self, Client, Failure, Stderr};
use crate::gtp::GtpMove;
use crate::notation::{color_name, move_text};
use crate::record::record_of;
use crate::rules::Rules;
use crate::sgf;

use crate::time::TimeSystem;
use clock::RunningClock;

/// Options of `tengen match`.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// Engine A's command line, split as a shell would (quote it as one argument).
    #[arg(long)]
    pub a: String,
    /// Engine B's command line.
    #[arg(long)]
    pub b: String,
    /// Number of games; A is Black in the even-numbered ones (numbered from 0).
    #[arg(long, default_value_t = 10, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 1_000_000))]
    pub games: usize,
    /// Board size.
    #[arg(long, default_value_t = 19, value_parser = |s: &str| crate::cli::number_in(s, 2usize, crate::board::MAX_SIZE))]
    pub size: usize,
    /// Komi.
    #[arg(long, default_value_t = 7.5, value_parser = crate::cli::parse_komi, allow_negative_numbers = true)]
    pub komi: f64,
    /// Rules the runner checks moves with and counts by: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = crate::cli::parse_rules)]
    pub rules: Rules,
    /// Seconds a move: sends `time_settings 0 S 1` (Canadian, one stone a period) and
    /// keeps that clock.
    #[arg(long, conflicts_with = "time", value_parser = crate::cli::parse_whole_seconds)]
    pub time_per_move: Option<f64>,
    /// Time system the runner keeps for both players: 'absolute M', 'byoyomi M P N'
    /// (N periods of P s) or 'canadian M T S' (S stones in T s). `time_left` goes to the
    /// engine before every genmove; a flag fall loses the game.
    #[arg(long, value_parser = TimeSystem::parse)]
    pub time: Option<TimeSystem>,
    /// Seconds forgiven on every move, for process and pipe lag.
    #[arg(long, default_value_t = 1.0, value_parser = crate::cli::parse_wait)]
    pub grace: f64,
    /// Folder of SGF openings: game i first plays the moves of file i (sorted by name,
    /// cycling) on both engines.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// A third engine that counts a game when A and B name different winners (else
    /// Tengen counts).
    #[arg(long)]
    pub referee: Option<String>,
    /// Moves after which a game is stopped and counted as it stands (default 3·size²).
    #[arg(long, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 10_000))]
    pub max_moves: Option<usize>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 64))]
    pub parallel: usize,
    /// Threads each engine uses while thinking (only for the oversubscription warning).
    #[arg(long, default_value_t = 1)]
    pub engine_threads: usize,
    /// Seconds an engine may take to answer any command (start-up included), and genmove
    /// when no clock is kept; silence past it loses the game ("timeout").
    #[arg(long, default_value_t = 60.0, value_parser = |s: &str| crate::cli::number_in(s, 0.01, 86_400.0))]
    pub timeout: f64,
    /// The command engine A's moves are asked with (e.g. `kgs-genmove_cleanup`, to play
    /// out a game under Tromp-Taylor scoring).
    #[arg(long, default_value = "genmove")]
    pub a_genmove: String,
    /// The command engine B's moves are asked with.
    #[arg(long, default_value = "genmove")]
    pub b_genmove: String,
    /// Let the engines' stderr through (default: discarded).
    #[arg(long)]
    pub engine_stderr: bool,
    /// Output folder: game-NNN.sgf, results.tsv, summary.txt. Rerunning with the same
    /// folder resumes: finished games are kept.
    #[arg(long)]
    pub out: PathBuf,
    /// Play only shard K of N (K counted from 0, below N): the games numbered K, K+N,
    /// K+2N, ... of the --games, with the game numbers and colours of the whole match, to
    /// spread one match over machines (each with its own --out); `tengen match-merge`
    /// sums their folders.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// A share of a match's games: those whose number is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `K/N` with `0 <= K < N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("'{s}' is not K/N (shard K of N, K from 0)"))?;
        let count = crate::cli::number_in(n, 1usize, 1_000_000)?;
        let index = crate::cli::number_in(k, 0usize, count - 1)?;
        Ok(Shard { index, count })
    }

    /// Whether game number `game` is in this shard.
    pub fn has(&self, game: usize) -> bool {
        game % self.count == self.index
    }
}

/// Options of `tengen match-merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// Output folders of `tengen match` runs of one match (its shards, say), each with its
    /// match.txt and results.tsv.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}

/// Engine A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl Side {
    fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
    fn letter(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
    fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Two passes, counted.
    Score,
    /// `--max-moves` reached, counted as it stands.
    MaxMoves,
    Resign,
    /// The loser played a move Tengen's `Game` refuses (or off the board).
    Illegal,
    /// `genmove` answered `?` or something that is not a move.
    BadGenmove,
    /// The loser refused a legal move of its opponent (`play` answered `?`), or the
    /// position set-up (`boardsize`, `clear_board`, an opening move).
    Refused,
    /// The loser's process died.
    Crash,
    /// The loser did not answer within `--timeout`.
    Timeout,
    /// The loser's flag fell.
    Time,
}

impl Reason {
    pub fn word(self) -> &'static str {
        match self {
            Reason::Score => "score",
            Reason::MaxMoves => "max-moves",
            Reason::Resign => "resign",
            Reason::Illegal => "illegal",
            Reason::BadGenmove => "bad-genmove",
            Reason::Refused => "refused",
            Reason::Crash => "crash",
            Reason::Timeout => "timeout",
            Reason::Time => "time",
        }
    }
    fn parse(s: &str) -> Option<Reason> {
        [
            Reason::Score,
            Reason::MaxMoves,
            Reason::Resign,
            Reason::Illegal,
            Reason::BadGenmove,
            Reason::Refused,
            Reason::Crash,
            Reason::Timeout,
            Reason::Time,
        ]
        .into_iter()
        .find(|r| r.word() == s)
    }
    /// The SGF `RE` suffix of a game lost this way (counted games have a margin instead).
    fn re_suffix(self) -> &'static str {
        match self {
            Reason::Resign => "R",
            Reason::Time => "T",
            _ => "F",
        }
    }
}

/// Move times of one engine in one game.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTimes {
    pub moves: usize,
    pub total: f64,
    pub longest: f64,
}

impl MoveTimes {
    fn add(&mut self, t: f64) {
        self.moves += 1;
        self.total += t;
        self.longest = self.longest.max(t);
    }
}

/// One finished game, a row of `results.tsv`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    pub game: usize,
    /// Who had Black.
    pub black: Side,
    /// SGF-style result: `B+3.5`, `W+R`, `B+T`, `W+F`, `0`.
    pub result: String,
    /// The winner, `None` for a draw.
    pub winner: Option<Side>,
    pub reason: Reason,
    pub moves: usize,
    pub seconds: f64,
    /// `engines` (A and B agreed), `referee`, `tengen`, or `-` for a game not counted.
    pub scorer: String,
    pub times: [MoveTimes; 2],
    pub names: [String; 2],
}

const TSV_HEADER: &str = "game\tblack\twhite\tresult\treason\tmoves\tseconds\ta_longest\tb_longest\tscorer\twinner\ta_moves\ta_total\tb_moves\tb_total\ta_name\tb_name";

impl GameResult {
    fn tsv(&self) -> String {
        let winner = self.winner.map_or("draw", Side::letter);
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{:.3}\t{:.3}\t{}\t{}\t{}\t{:.3}\t{}\t{:.3}\t{}\t{}",
            self.game,
            self.black.letter(),
            self.black.other().letter(),
            self.result,
            self.reason.word(),
            self.moves,
            self.seconds,
            self.times[0].longest,
            self.times[1].longest,
            self.scorer,
            winner,
            self.times[0].moves,
            self.times[0].total,
            self.times[1].moves,
            self.times[1].total,
            clean(&self.names[0]),
            clean(&self.names[1]),
        )
    }

    fn from_tsv(line: &str) -> Option<GameResult> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 17 {
            return None;
        }
        let side = |s: &str| match s {
            "A" => Some(Side::A),
            "B" => Some(Side::B),
            _ => None,
        };
        let times = |m: &str, t: &str, l: &str| -> Option<MoveTimes> {
            Some(MoveTimes {
                moves: m.parse().ok()?,
                total: t.parse().ok()?,
                longest: l.parse().ok()?,
            })
        };
        Some(GameResult {
            game: f[0].parse().ok()?,
            black: side(f[1])?,
            result: f[3].to_string(),
            reason: Reason::parse(f[4])?,
            moves: f[5].parse().ok()?,
            seconds: f[6].parse().ok()?,
            scorer: f[9].to_string(),
            winner: match f[10] {
                "draw" => None,
                w => Some(side(w)?),
            },
            times: [times(f[11], f[12], f[7])?, times(f[13], f[14], f[8])?],
            names: [f[15].to_string(), f[16].to_string()],
        })
    }
}

/// The fixed settings of a match, shared by the workers.
struct Setup {
    args: MatchArgs,
    time: Option<TimeSystem>,
    max_moves: usize,
    openings: Vec<Opening>,
}

/// An opening: its file name and main-line moves.
type Opening = (String, Vec<(Color, Move)>);

/// A started engine and what it said of itself.
struct Player {
    client: Client,
    kgs_time: bool,
}

/// A worker's engines, kept from game to game and restarted when one failed.
struct Seats {
    players: [Option<Player>; 2],
    /// What each engine last said its name was (kept after it is stopped).
    names: [String; 2],
    referee: Option<Client>,
}

impl Setup {
    /// What becomes of the engines' stderr.
    fn stderr(&self) -> Stderr {
        if self.args.engine_stderr {
            Stderr::Inherit
        } else {
            Stderr::Discard
        }
    }
}

/// An engine failed the game for `side`.
struct Loss {
    side: Side,
    reason: Reason,
    note: String,
}

fn loss(side: Side, reason: Reason, note: impl Into<String>) -> Loss {
    Loss {
        side,
        reason,
        note: note.into(),
    }
}

fn failure_reason(f: &Failure) -> Reason {
    match f {
        Failure::Died(_) => Reason::Crash,
        Failure::Timeout(_) => Reason::Timeout,
    }
}

/// The winner a `final_score` text names: `Some(Some(c))`, `Some(None)` for a draw
/// (`0`), `None` if it is not a result.
pub fn score_winner(text: &str) -> Option<Option<Color>> {
    let t = text.trim();
    if t == "0" || t.eq_ignore_ascii_case("draw") || t.eq_ignore_ascii_case("jigo") {
        return Some(None);
    }
    let (who, rest) = t.split_once('+')?;
    let color = match who.trim().to_ascii_uppercase().as_str() {
        "B" | "BLACK" => Color::Black,
        "W" | "WHITE" => Color::White,
        _ => return None,
    };
    // A margin that is not a number (`B+R`, `B+`) still names the winner; a zero one not.
    Some(match rest.trim().parse::<f64>() {
        Ok(m) if m > 0.0 => Some(color),
        Ok(_) => None,
        Err(_) => Some(color),
    })
}

impl Seats {
    fn command(setup: &Setup, side: Side) -> &str {
        match side {
            Side::A => &setup.args.a,
            Side::B => &setup.args.b,
        }
    }

    /// The engine of `side`, started (and asked its name) if need be.
    fn player(&mut self, setup: &Setup, side: Side) -> Result<&mut Player, Loss> {
        // A failed exchange already emptied the seat (`send`), so a seated engine is sound.
        let slot = &mut self.players[side.index()];
        if slot.is_none() {
            let timeout = Duration::from_secs_f64(setup.args.timeout);
            let mut client = Client::spawn_command_line(Self::command(setup, side), setup.stderr())
                .map_err(|e| loss(side, Reason::Crash, e))?;
            let ask = |c: &mut Client, cmd: &str| -> Result<Option<String>, Loss> {
                match c.ask(cmd, timeout) {
                    Ok(a) if a.ok => Ok(Some(a.text)),
                    Ok(_) => Ok(None),
                    Err(f) => Err(loss(
                        side,
                        failure_reason(&f),
                        format!("no answer to {cmd}"),
                    )),
                }
            };
            let name = ask(&mut client, "name")?.unwrap_or_else(|| "?".into());
            let version = ask(&mut client, "version")?.unwrap_or_default();
            let kgs_time = ask(&mut client, "known_command kgs-time_settings")?
                .is_some_and(|t| t.trim() == "true");
            let name = format!("{} {}", name.trim(), version.trim())
                .trim()
                .to_string();
            self.names[side.index()] = name;
            *slot = Some(Player { client, kgs_time });
        }
        Ok(slot.as_mut().expect("started above"))
    }

    /// Sends `cmd` to `side`; a `?` is returned as `Ok(Err(text))`, no answer as a loss.
    fn send(
        &mut self,
        setup: &Setup,
        side: Side,
        cmd: &str,
        timeout: Duration,
    ) -> Result<Result<String, String>, Loss> {
        let p = self.player(setup, side)?;
        match p.client.ask(cmd, timeout) {
            Ok(a) if a.ok => Ok(Ok(a.text)),
            Ok(a) => Ok(Err(a.text)),
            Err(f) => {
                // Its state is unknown now: dropping it kills it.
                self.players[side.index()] = None;
                Err(loss(
                    side,
                    failure_reason(&f),
                    format!("{} to '{cmd}'", failure_text(&f)),
                ))
            }
        }
    }

    fn close(self) {
        // A failed engine was dropped (killed) already; the others are asked to quit.
        for p in self.players.into_iter().flatten() {
            p.client.finish(Duration::from_secs(2));
        }
        if let Some(r) = self.referee {
            r.finish(Duration::from_secs(2));
        }
    }
}

fn failure_text(f: &Failure) -> &'static str {
    match f {
        Failure::Died(_) => "died",
        Failure::Timeout(_) => "no answer",
    }
}

/// What a game produced: the result row, the SGF text.
struct Played {
    result: GameResult,
    sgf: String,
}

/// One move's time, and the mover's clock after it.
#[derive(Clone, Copy, Default)]
struct MoveNote {
    seconds: Option<f64>,
    left: Option<(f64, u32)>,
}

fn play_game(setup: &Setup, seats: &mut Seats, game_no: usize) -> Played {
    let start = Instant::now();
    let black = if game_no.is_multiple_of(2) {
        Side::A
    } else {
        Side::B
    };
    let side_of = |c: Color| {
        if c == Color::Black {
            black
        } else {
            black.other()
        }
    };
    let mut rules = setup.args.rules.clone();
    rules.komi = setup.args.komi;
    let mut game = Game::new(setup.args.size, rules).expect("size checked");
    let mut notes: Vec<MoveNote> = Vec::new();
    let mut times = [MoveTimes::default(); 2];
    let mut comment = String::new();
    let outcome = run_moves(
        setup, seats, game_no, &mut game, &mut notes, &mut times, &side_of,
    );
    let names = seats.names.clone();
    let (result, winner, reason, scorer) = match outcome {
        Err(l) => {
            let w = l.side.other();
            let wc = if w == black { "B" } else { "W" };
            let _ = write!(comment, "{} lost: {}", l.side.letter(), l.reason.word());
            if !l.note.is_empty() {
                let _ = write!(comment, " ({})", l.note);
            }
            (
                format!("{wc}+{}", l.reason.re_suffix()),
                Some(w),
                l.reason,
                "-".to_string(),
            )
        }
        Ok(reason) => {
            let (text, scorer) = count(setup, seats, &game);
            let winner = match score_winner(&text) {
                Some(Some(c)) => Some(side_of(c)),
                _ => None,
            };
            let _ = write!(comment, "counted by {scorer}");
            (text, winner, reason, scorer)
        }
    };
    let result_row = GameResult {
        game: game_no,
        black,
        result,
        winner,
        reason,
        moves: game.moves().len(),
        seconds: start.elapsed().as_secs_f64(),
        scorer,
        times,
        names: names.clone(),
    };
    let sgf = game_sgf(setup, &game, &notes, &result_row, &comment);
    Played {
        result: result_row,
        sgf,
    }
}

/// Sets both engines up and plays until two passes, a resignation, the move limit or a
/// loss; `Ok` with how a countable game ended.
fn run_moves(
    setup: &Setup,
    seats: &mut Seats,
    game_no: usize,
    game: &mut Game,
    notes: &mut Vec<MoveNote>,
    times: &mut [MoveTimes; 2],
    side_of: &dyn Fn(Color) -> Side,
) -> Result<Reason, Loss> {
    let timeout = Duration::from_secs_f64(setup.args.timeout);
    let size = setup.args.size;
    for side in [Side::A, Side::B] {
        let must = |r: Result<String, String>, cmd: &str| {
            r.map(|_| ())
                .map_err(|e| loss(side, Reason::Refused, format!("'{cmd}' answered ? {e}")))
        };
        let cmd = format!("boardsize {size}");
        must(seats.send(setup, side, &cmd, timeout)?, &cmd)?;
        must(
            seats.send(setup, side, "clear_board", timeout)?,
            "clear_board",
        )?;
        // A `?` to komi or the time settings is tolerated: the runner still keeps both.
        let _ = seats.send(setup, side, &format!("komi {}", setup.args.komi), timeout)?;
        if let Some(t) = setup.time {
            let kgs = seats.player(setup, side)?.kgs_time;
            let cmd = if kgs && matches!(t, TimeSystem::Byoyomi { .. }) {
                t.kgs_time_settings()
            } else {
                t.time_settings()
            };
            let _ = seats.send(setup, side, &cmd, timeout)?;
        }
    }
    if !setup.openings.is_empty() {
        let (_, moves) = &setup.openings[game_no % setup.openings.len()];
        for &(color, mv) in moves {
            if game.play(color, mv).is_err() {
                break;
            }
            notes.push(MoveNote::default());
            let cmd = format!("play {} {}", color_name(color), move_text(mv));
            for side in [Side::A, Side::B] {
                if let Err(e) = seats.send(setup, side, &cmd, timeout)? {
                    return Err(loss(
                        side,
                        Reason::Refused,
                        format!("'{cmd}' answered ? {e}"),
                    ));
                }
            }
        }
    }
    let mut clocks = [
        setup.time.map(RunningClock::new),
        setup.time.map(RunningClock::new),
    ];
    while !game.is_over() {
        if game.moves().len() >= setup.max_moves {
            return Ok(Reason::MaxMoves);
        }
        let color = game.to_move();
        let side = side_of(color);
        let mut wait = timeout;
        if let Some(clock) = &clocks[side.index()] {
            let (secs, stones) = clock.time_left();
            let cmd = format!("time_left {} {secs} {stones}", color_name(color));
            let _ = seats.send(setup, side, &cmd, timeout)?;
            // Past this the flag has fallen whatever the engine says.
            wait = Duration::from_secs_f64(clock.available() + setup.args.grace + 0.05);
        }
        let t0 = Instant::now();
        let ask = match side {
            Side::A => &setup.args.a_genmove,
            Side::B => &setup.args.b_genmove,
        };
        let reply = seats.send(setup, side, &format!("{ask} {}", color_name(color)), wait);
        let took = t0.elapsed().as_secs_f64();
        let reply = match reply {
            Err(l) if l.reason == Reason::Timeout && clocks[side.index()].is_some() => {
                return Err(loss(
                    side,
                    Reason::Time,
                    format!("no move after {took:.1} s"),
                ));
            }
            r => r?,
        };
        let text = match reply {
            Ok(t) => t,
            Err(e) => {
                return Err(loss(
                    side,
                    Reason::BadGenmove,
                    format!("genmove answered ? {e}"),
                ))
            }
        };
        times[side.index()].add(took);
        let mut left = None;
        if let Some(clock) = clocks[side.index()].as_mut() {
            if !clock.charge(took, setup.args.grace) {
                return Err(loss(side, Reason::Time, format!("move took {took:.2} s")));
            }
            left = Some((clock.time_left().0 as f64, clock.time_left().1));
        }
        let word = text.trim();
        if word.eq_ignore_ascii_case("resign") {
            return Err(loss(side, Reason::Resign, ""));
        }
        let mv = match word.to_ascii_lowercase().parse::<GtpMove>() {
            Ok(GtpMove::Pass) => Move::Pass,
            Ok(GtpMove::Vertex(v)) => match game.board().point(v.col as usize, v.row as usize) {
                Some(p) => Move::Place(p),
                None => {
                    return Err(loss(
                        side,
                        Reason::Illegal,
                        format!("{word}: off the board"),
                    ))
                }
            },
            Err(_) => {
                return Err(loss(
                    side,
                    Reason::BadGenmove,
                    format!("genmove answered {word:?}"),
                ))
            }
        };
        if let Err(e) = game.play(color, mv) {
            return Err(loss(side, Reason::Illegal, format!("{word}: {e}")));
        }
        notes.push(MoveNote {
            seconds: Some(took),
            left,
        });
        let other = side.other();
        let cmd = format!("play {} {}", color_name(color), move_text(mv));
        if let Err(e) = seats.send(setup, other, &cmd, timeout)? {
            return Err(loss(
                other,
                Reason::Refused,
                format!("'{cmd}' answered ? {e}"),
            ));
        }
    }
    Ok(Reason::Score)
}

/// Counts a finished game: A's `final_score` when B names the same winner, else the
/// referee's, else Tengen's own count (dead stones as the engine judges them).
fn count(setup: &Setup, seats: &mut Seats, game: &Game) -> (String, String) {
    let timeout = Duration::from_secs_f64(setup.args.timeout);
    let mut texts = Vec::new();
    for side in [Side::A, Side::B] {
        let t = match seats.send(setup, side, "final_score", timeout) {
            Ok(Ok(t)) => Some(t.trim().to_string()),
            _ => None,
        };
        texts.push(t);
    }
    if let (Some(a), Some(b)) = (&texts[0], &texts[1]) {
        if let (Some(wa), Some(wb)) = (score_winner(a), score_winner(b)) {
            if wa == wb {
                return (a.clone(), "engines".into());
            }
        }
    }
    if let Some(cmd) = &setup.args.referee {
        if let Some(text) = referee_count(seats, cmd, setup, game, timeout) {
            return (text, "referee".into());
        }
    }
    let mut engine = Engine::new(game.rules().clone(), Settings::default());
    engine.set_game(game.clone());
    let score = engine.final_score(Stop::never());
    (score.result_string(), "tengen".into())
}

fn referee_count(
    seats: &mut Seats,
    cmd: &str,
    setup: &Setup,
    game: &Game,
    timeout: Duration,
) -> Option<String> {
    if seats.referee.is_none() {
        seats.referee = Client::spawn_command_line(cmd, setup.stderr()).ok();
    }
    let r = seats.referee.as_mut()?;
    match referee_exchange(r, game, timeout) {
        Ok(text) => text,
        Err(_) => {
            // No answer: its state is unknown, so the next count starts a fresh one.
            seats.referee = None;
            None
        }
    }
}

/// Feeds the referee the game and asks its count: `Ok(None)` when it refuses a command or
/// names no winner.
fn referee_exchange(
    r: &mut Client,
    game: &Game,
    timeout: Duration,
) -> Result<Option<String>, Failure> {
    let mut accepted = |c: &str| -> Result<bool, Failure> { Ok(r.ask(c, timeout)?.ok) };
    if !accepted(&format!("boardsize {}", game.size()))? || !accepted("clear_board")? {
        return Ok(None);
    }
    // A referee may refuse `komi` (it then counts with its own): only silence fails.
    accepted(&format!("komi {}", game.komi()))?;
    for &(c, m) in game.moves() {
        if !accepted(&format!("play {} {}", color_name(c), move_text(m)))? {
            return Ok(None);
        }
    }
    let a = r.ask("final_score", timeout)?;
    Ok((a.ok && score_winner(&a.text).is_some()).then(|| a.text.trim().to_string()))
}

/// Today's date as YYYY-MM-DD (UTC), for SGF `DT`.
fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn game_sgf(
    setup: &Setup,
    game: &Game,
    notes: &[MoveNote],
    r: &GameResult,
    comment: &str,
) -> String {
    let mut rec = record_of(game);
    let name = |s: Side| r.names[s.index()].clone();
    rec.info = vec![
        ("PB".into(), name(r.black)),
        ("PW".into(), name(r.black.other())),
        ("RE".into(), r.result.clone()),
        ("DT".into(), today()),
        ("GN".into(), format!("game {}", r.game)),
    ];
    if let Some(t) = setup.time {
        rec.info.push(("TM".into(), t.to_string()));
    }
    rec.info.push((
        "C".into(),
        format!(
            "tengen match game {}: A = {} ({}), B = {} ({}); {}; {}",
            r.game,
            name(Side::A),
            setup.args.a,
            name(Side::B),
            setup.args.b,
            r.reason.word(),
            comment
        ),
    ));
    for (node, note) in rec.nodes.iter_mut().skip(1).zip(notes) {
        let Some((color, _)) = node.mv else { continue };
        if let Some((secs, stones)) = note.left {
            let (tl, ol) = if color == Color::Black {
                ("BL", "OB")
            } else {
                ("WL", "OW")
            };
            node.extra.push((tl.into(), format!("{secs}")));
            if stones > 0 {
                node.extra.push((ol.into(), stones.to_string()));
            }
        }
        if let Some(s) = note.seconds {
            node.extra.push(("C".into(), format!("{s:.2} s")));
        }
    }
    if let (Some(words), Some(last)) = (
        crate::score::result_in_words(&r.result),
        rec.nodes.last_mut(),
    ) {
        // The result where a person reads it: the last node's comment.
        match last.extra.iter_mut().find(|(k, _)| k == "C") {
            Some((_, c)) => *c = format!("{c}\n{words}"),
            None => last.extra.push(("C".into(), words)),
        }
    }
    sgf::write_record(&rec) + "\n"
}

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

/// Totals over finished games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub games: usize,
    pub a_wins: usize,
    pub b_wins: usize,
    pub draws: usize,
    /// A's wins as Black and games as Black; the same as White.
    pub a_black: (usize, usize),
    pub a_white: (usize, usize),
    pub black_wins: usize,
    pub times: [MoveTimes; 2],
    /// Losses by reason for A and B: illegal, time, crash (died or no answer).
    pub illegal: [usize; 2],
    pub time_losses: [usize; 2],
    pub crashes: [usize; 2],
    pub timeouts: [usize; 2],
    pub other_forfeits: usize,
    pub scorers: BTreeMap<String, usize>,
    pub names: [String; 2],
}

impl Summary {
    pub fn of(results: &[GameResult]) -> Summary {
        let mut s = Summary {
            names: ["?".into(), "?".into()],
            ..Summary::default()
        };
        for r in results {
            s.games += 1;
            for i in 0..2 {
                if s.names[i] == "?" {
                    s.names[i] = r.names[i].clone();
                }
                let t = &mut s.times[i];
                t.moves += r.times[i].moves;
                t.total += r.times[i].total;
                t.longest = t.longest.max(r.times[i].longest);
            }
            let a_won = r.winner == Some(Side::A);
            match r.winner {
                Some(Side::A) => s.a_wins += 1,
                Some(Side::B) => s.b_wins += 1,
                None => s.draws += 1,
            }
            let bucket = if r.black == Side::A {
                &mut s.a_black
            } else {
                &mut s.a_white
            };
            bucket.1 += 1;
            bucket.0 += usize::from(a_won);
            if r.winner == Some(r.black) {
                s.black_wins += 1;
            }
            if let Some(w) = r.winner {
                let loser = w.other().index();
                match r.reason {
                    Reason::Illegal => s.illegal[loser] += 1,
                    Reason::Time => s.time_losses[loser] += 1,
                    Reason::Crash => s.crashes[loser] += 1,
                    Reason::Timeout => s.timeouts[loser] += 1,
                    Reason::BadGenmove | Reason::Refused => s.other_forfeits += 1,
                    _ => {}
                }
            }
            *s.scorers.entry(r.scorer.clone()).or_default() += 1;
        }
        s
    }

    /// A's score: wins plus half the draws.
    pub fn a_score(&self) -> f64 {
        self.a_wins as f64 + self.draws as f64 / 2.0
    }

    pub fn winrate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.a_score() / self.games as f64
        }
    }

    /// The last line on stdout. `crashes` counts engines that died or stopped answering.
    pub fn machine_line(&self) -> String {
        let (lo, hi) = stats::wilson(self.a_score(), self.games, stats::Z95);
        format!(
            "games={} a_wins={} winrate={:.3} ci95={:.3}-{:.3} elo={} illegal={} time_losses={} crashes={}",
            self.games,
            self.a_wins,
            self.winrate(),
            lo,
            hi,
            stats::elo_text(stats::elo(self.winrate())),
            self.illegal[0] + self.illegal[1],
            self.time_losses[0] + self.time_losses[1],
            self.crashes[0] + self.crashes[1] + self.timeouts[0] + self.timeouts[1],
        )
    }

    pub fn text(&self, title: &Title) -> String {
        let (lo, hi) = stats::wilson(self.a_score(), self.games, stats::Z95);
        let e = |p: f64| stats::elo_text(stats::elo(p));
        let mean = |t: &MoveTimes| {
            if t.moves == 0 {
                0.0
            } else {
                t.total / t.moves as f64
            }
        };
        let mut s = String::new();
        let _ = writeln!(s, "A: {} [{}]", self.names[0], title.a);
        let _ = writeln!(s, "B: {} [{}]", self.names[1], title.b);
        let _ = writeln!(
            s,
            "{}x{} komi {}, {} games: A won {}, B won {}, draws {}",
            title.size, title.size, title.komi, self.games, self.a_wins, self.b_wins, self.draws
        );
        let _ = writeln!(
            s,
            "A's win rate {:.3} (95% Wilson interval {:.3}-{:.3}); Elo A-B {} (95% interval {} to {})",
            self.winrate(),
            lo,
            hi,
            e(self.winrate()),
            e(lo),
            e(hi)
        );
        let _ = writeln!(
            s,
            "by colour: A won {}/{} as Black, {}/{} as White; Black won {}/{}",
            self.a_black.0,
            self.a_black.1,
            self.a_white.0,
            self.a_white.1,
            self.black_wins,
            self.games
        );
        for (i, who) in ["A", "B"].iter().enumerate() {
            let t = &self.times[i];
            let _ = writeln!(
                s,
                "{who} move time: mean {:.3} s, longest {:.3} s over {} moves; lost by illegal move {}, on time {}, crash {}, no answer {}",
                mean(t), t.longest, t.moves, self.illegal[i], self.time_losses[i], self.crashes[i], self.timeouts[i]
            );
        }
        let scorers: Vec<String> = self
            .scorers
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        let _ = writeln!(
            s,
            "counted by: {} ('-': decided before counting); other forfeits {}",
            scorers.join(", "),
            self.other_forfeits
        );
        s
    }
}

/// What the first lines of a summary name: the two engines' commands, the board and the
/// komi (as `match.txt` writes them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Title {
    pub a: String,
    pub b: String,
    pub size: String,
    pub komi: String,
}

impl Title {
    fn of(args: &MatchArgs) -> Title {
        Title {
            a: args.a.clone(),
            b: args.b.clone(),
            size: args.size.to_string(),
            komi: args.komi.to_string(),
        }
    }

    /// From the text of a `match.txt`.
    fn from_identity(id: &str) -> Option<Title> {
        let field = |key: &str| {
            id.lines()
                .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
                .map(str::to_string)
        };
        Some(Title {
            a: field("a")?,
            b: field("b")?,
            size: field("size")?,
            komi: field("komi")?,
        })
    }
}

/// The finished games in a match folder's `results.tsv` (well-formed rows only).
fn read_results(dir: &Path) -> anyhow::Result<Vec<GameResult>> {
    let path = dir.join("results.tsv");
    let text = fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(GameResult::from_tsv)
        .collect())
}

/// `tengen match-merge`: the summary of the games of several folders of one match (the
/// shards of `--shard`, or runs that each played some of its games), as `tengen match`
/// prints it, its last line the machine-readable one. The folders' `match.txt` must agree
/// but for the shard, and no game may be in two folders.
pub fn merge(args: &MergeArgs) -> anyhow::Result<(Summary, String)> {
    let mut identity: Option<(String, &Path)> = None;
    let mut games: BTreeMap<usize, (GameResult, &Path)> = BTreeMap::new();
    for dir in &args.dirs {
        let id_path = dir.join("match.txt");
        let id = fs::read_to_string(&id_path)
            .with_context(|| format!("{} (not a tengen match folder?)", id_path.display()))?;
        let id: String = id
            .lines()
            .filter(|l| !l.starts_with("shard="))
            .map(|l| format!("{l}\n"))
            .collect();
        match &identity {
            Some((first, first_dir)) if *first != id => bail!(
                "{} and {} hold different matches (their match.txt differ)",
                first_dir.display(),
                dir.display()
            ),
            Some(_) => {}
            None => identity = Some((id, dir)),
        }
        let results = read_results(dir)?;
        eprintln!("{}: {} games", dir.display(), results.len());
        for r in results {
            if let Some((_, other)) = games.get(&r.game) {
                bail!(
                    "game {} is in both {} and {}",
                    r.game,
                    other.display(),
                    dir.display()
                );
            }
            games.insert(r.game, (r, dir));
        }
    }
    let (id, _) = identity.expect("clap requires a folder");
    let title = Title::from_identity(&id).context("match.txt lacks a=, b=, size= or komi=")?;
    let results: Vec<GameResult> = games.into_values().map(|(r, _)| r).collect();
    let summary = Summary::of(&results);
    let text = summary.text(&title) + &summary.machine_line() + "\n";
    Ok((summary, text))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_score_texts() {
        assert_eq!(score_winner("B+3.5"), Some(Some(Color::Black)));
        assert_eq!(score_winner("w+0.5"), Some(Some(Color::White)));
        assert_eq!(score_winner("W+R"), Some(Some(Color::White)));
        assert_eq!(score_winner("0"), Some(None));
        assert_eq!(score_winner("B+0"), Some(None));
        assert_eq!(score_winner("no idea"), None);
        assert_eq!(score_winner(""), None);
    }

    #[test]
    fn tsv_round_trip() {
        let r = GameResult {
            game: 7,
            black: Side::B,
            result: "W+T".into(),
            winner: Some(Side::A),
            reason: Reason::Time,
            moves: 31,
            seconds: 12.5,
            scorer: "-".into(),
            times: [
                MoveTimes {
                    moves: 16,
                    total: 3.25,
                    longest: 0.5,
                },
                MoveTimes {
                    moves: 15,
                    total: 9.0,
                    longest: 2.125,
                },
            ],
            names: ["Tengen 0.1.0".into(), "GNU Go 3.8".into()],
        };
        assert_eq!(GameResult::from_tsv(&r.tsv()), Some(r.clone()));
        let s = Summary::of(&[r]);
        assert_eq!((s.a_wins, s.a_white, s.time_losses), (1, (1, 1), [0, 1]));
        assert_eq!(
            s.machine_line(),
            "games=1 a_wins=1 winrate=1.000 ci95=0.207-1.000 elo=inf illegal=0 time_losses=1 crashes=0"
        );
    }

    #[test]
    fn date_is_iso() {
        let d = today();
        assert_eq!(d.len(), 10);
        assert!(d.starts_with("20"));
    }
}
