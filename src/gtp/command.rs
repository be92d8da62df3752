//! The GTP command set: the typed [`Command`], the single declarative table [`COMMANDS`]
//! (name, argument parser, example per row) that drives dispatch, `list_commands` and
//! `known_command`, and [`parse_command`] for one preprocessed line.

use std::fmt;

use nom::branch::alt;
use nom::bytes::complete::tag_no_case;
use nom::character::complete::{digit1, space1};
use nom::combinator::{all_consuming, eof, map, opt, recognize, value, verify};
use nom::multi::separated_list0;
use nom::sequence::{preceded, terminated};
use nom::{IResult, Parser};
use thiserror::Error;

use super::error::GtpError;
use super::parse::{color, float, gtp_move, int, is_word_char, string, vertex};
use super::parse::{GtpMove, Vertex};
use crate::board::Color;
use crate::notation::color_name;
use crate::time::TimeSystem;

/// The status argument of `final_status_list`: the judgement's own [`Status`].
pub use crate::status::Status;

impl Status {
    /// The GTP spelling: `alive`, `dead` or `seki`.
    pub fn name(self) -> &'static str {
        match self {
            Status::Alive => "alive",
            Status::Dead => "dead",
            Status::Seki => "seki",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which analysis output: Leela Zero's integers or KataGo's floats and extra fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnalyzeFormat {
    Lz,
    Kata,
}

/// `avoid COLOUR V,V,.. UNTILDEPTH` / `allow ...`: root moves of `color` limited while
/// the move number (from the analysed position, 1 = the next move) is at most
/// `until_depth`.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveRule {
    pub color: Color,
    pub moves: Vec<GtpMove>,
    pub until_depth: u32,
}

/// The arguments of `lz-analyze`, `kata-analyze` and the `*-genmove_analyze` commands
/// (KataGo's GTP extensions), in any order after the optional colour and interval.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnalyzeArgs {
    pub color: Option<Color>,
    /// Centiseconds between updates; 0: none.
    pub interval: u32,
    pub minmoves: u32,
    pub maxmoves: Option<u32>,
    pub avoid: Vec<MoveRule>,
    pub allow: Vec<MoveRule>,
    pub ownership: bool,
    pub ownership_stdev: bool,
    pub moves_ownership: bool,
    pub pv_visits: bool,
}

impl fmt::Display for AnalyzeArgs {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(c) = self.color {
            write!(f, " {}", color_name(c))?;
        }
        write!(f, " interval {}", self.interval)?;
        if self.minmoves > 0 {
            write!(f, " minmoves {}", self.minmoves)?;
        }
        if let Some(n) = self.maxmoves {
            write!(f, " maxmoves {n}")?;
        }
        for (word, rules) in [("avoid", &self.avoid), ("allow", &self.allow)] {
            for r in rules {
                let list: Vec<String> = r.moves.iter().map(|m| m.to_string()).collect();
                write!(
                    f,
                    " {word} {} {} {}",
                    color_name(r.color),
                    list.join(","),
                    r.until_depth
                )?;
            }
        }
        for (word, on) in [
            ("ownership", self.ownership),
            ("ownershipStdev", self.ownership_stdev),
            ("movesOwnership", self.moves_ownership),
            ("pvVisits", self.pv_visits),
        ] {
            if on {
                write!(f, " {word} true")?;
            }
        }
        Ok(())
    }
}

/// Parses the analysis arguments: `[colour] [interval] (key value)*` with the keys
/// `interval N`, `minmoves N`, `maxmoves N`, `avoid|allow COLOUR V,V,.. UNTILDEPTH`,
/// `ownership|ownershipStdev|movesOwnership|pvVisits true|false`.
fn analyze_args(input: &str) -> Result<AnalyzeArgs, SyntaxError> {
    let tokens: Vec<&str> = input.split_whitespace().collect();
    let mut a = AnalyzeArgs::default();
    let mut i = 0;
    let whole =
        |t: &str, p: fn(&str) -> IResult<&str, u32>| -> Result<u32, SyntaxError> { args(t, p) };
    if let Some(t) = tokens.first() {
        if let Ok(c) = args(t, color) {
            a.color = Some(c);
            i = 1;
        }
    }
    if let Some(t) = tokens.get(i) {
        if let Ok(n) = whole(t, int) {
            a.interval = n;
            i += 1;
        }
    }
    let need = |k: usize| tokens.get(k).copied().ok_or_else(|| SyntaxError::at(""));
    let boolean = |t: &str| match t.to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(SyntaxError::at(t)),
    };
    while i < tokens.len() {
        let key = tokens[i];
        match key {
            "interval" | "minmoves" | "maxmoves" => {
                let n = whole(need(i + 1)?, int)?;
                match key {
                    "interval" => a.interval = n,
                    "minmoves" => a.minmoves = n,
                    _ => a.maxmoves = Some(n),
                }
                i += 2;
            }
            "avoid" | "allow" => {
                let c = args(need(i + 1)?, color)?;
                let list = need(i + 2)?;
                let moves = list
                    .split(',')
                    .map(|v| args(v, gtp_move))
                    .collect::<Result<Vec<_>, _>>()?;
                let until_depth = whole(need(i + 3)?, int)?;
                let rule = MoveRule {
                    color: c,
                    moves,
                    until_depth,
                };
                if key == "avoid" {
                    a.avoid.push(rule);
                } else {
                    a.allow.push(rule);
                }
                i += 4;
            }
            "ownership" | "ownershipStdev" | "movesOwnership" | "pvVisits" => {
                let on = boolean(need(i + 1)?)?;
                match key {
                    "ownership" => a.ownership = on,
                    "ownershipStdev" => a.ownership_stdev = on,
                    "movesOwnership" => a.moves_ownership = on,
                    _ => a.pv_visits = on,
                }
                i += 2;
            }
            _ => return Err(SyntaxError::at(key)),
        }
    }
    Ok(a)
}

/// One GTP command with typed arguments. Board size is not checked here: a `Vertex` may
/// lie off the current board and the executor must say so.
#[derive(Clone, Debug, PartialEq)]
pub enum Command {
    ProtocolVersion,
    Name,
    Version,
    KnownCommand(String),
    ListCommands,
    Quit,
    Boardsize(u32),
    ClearBoard,
    Komi(f64),
    Play(Color, GtpMove),
    Genmove(Color),
    RegGenmove(Color),
    /// KGS's `kgs-genmove_cleanup`: a move that does not pass while a dead opponent stone
    /// stands (for servers that score Tromp-Taylor after a dispute).
    KgsGenmoveCleanup(Color),
    Undo,
    /// `gg-undo [n]`: take back `n` moves (the executor picks the default for `None`).
    GgUndo(Option<u32>),
    FixedHandicap(u32),
    PlaceFreeHandicap(u32),
    /// May be empty or hold `pass`: the executor answers "bad vertex list".
    SetFreeHandicap(Vec<GtpMove>),
    TimeSettings {
        main_time: u32,
        byo_yomi_time: u32,
        byo_yomi_stones: u32,
    },
    TimeLeft {
        color: Color,
        /// Seconds left; negative (a clock run past zero) counts as none left.
        time: i64,
        stones: u32,
    },
    KgsTimeSettings(Option<TimeSystem>),
    FinalScore,
    /// `tengen-final_score_stones`: `final_score` in the rules' own words ("Black wins by
    /// 3/4 stone").
    FinalScoreStones,
    /// `tengen-state`: everything a command may change, as `key value` lines.
    TengenState,
    FinalStatusList(Status),
    Loadsgf {
        file: String,
        move_number: Option<u32>,
    },
    Printsgf(Option<String>),
    Showboard,
    Cputime,
    /// GoGui's `gogui-interrupt`: listing it tells GoGui that the engine understands the
    /// `# interrupt` line sent while a command runs. Does nothing itself.
    GoguiInterrupt,
    IsLegal(Color, GtpMove),
    AllLegal(Color),
    ListStones(Color),
    Captures(Color),
    Countlib(Vertex),
    /// `lz-analyze` / `kata-analyze`: live analysis until the next input line.
    Analyze(AnalyzeFormat, AnalyzeArgs),
    /// `lz-genmove_analyze` / `kata-genmove_analyze`: `genmove` with live analysis.
    GenmoveAnalyze(AnalyzeFormat, AnalyzeArgs),
    /// KataGo's `kata-raw-nn SYMMETRY [OPTIMISM]`: the network's raw evaluation of the
    /// position in one symmetry (0 to 7), or in each of the eight (`None`, `all`), with
    /// policy optimism (0 to 1; `None`: KataGo's GTP default, [`RAW_NN_OPTIMISM`]).
    KataRawNn {
        symmetry: Option<u8>,
        optimism: Option<f64>,
    },
    /// GoGui: the analyze commands on offer, `type/label/command` a line.
    GoguiAnalyzeCommands,
    /// GoGui: `gogui-play_sequence b D4 w E5 ...`, all or nothing.
    GoguiPlaySequence(Vec<(Color, GtpMove)>),
    /// GoGui: `gogui-setup b D4 w E5 ...` on an empty board.
    GoguiSetup(Vec<(Color, GtpMove)>),
    /// GoGui: `gogui-setup_player b`.
    GoguiSetupPlayer(Color),
    /// A GoGui analyze command over one search of the position (the search is kept for
    /// the next of them while the position stays).
    GoguiShow(GoguiShow),
}

/// What a GoGui analyze command shows (see `gogui-analyze_commands`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GoguiShow {
    /// `dboard`: final ownership, Black positive.
    Ownership,
    /// `pspairs`: win rate and visits of the best moves.
    BestMoves,
    /// `gfx`: labels with win rates, the variation and a status line.
    BestMovesGfx,
    /// `var`: the principal variation.
    Pv,
    /// `string`: the search's figures.
    SearchStats,
}

impl Command {
    /// The GTP command name, as in [`COMMANDS`] (a unit test keeps the two in step).
    pub fn name(&self) -> &'static str {
        match self {
            Command::ProtocolVersion => "protocol_version",
            Command::Name => "name",
            Command::Version => "version",
            Command::KnownCommand(_) => "known_command",
            Command::ListCommands => "list_commands",
            Command::Quit => "quit",
            Command::Boardsize(_) => "boardsize",
            Command::ClearBoard => "clear_board",
            Command::Komi(_) => "komi",
            Command::Play(..) => "play",
            Command::Genmove(_) => "genmove",
            Command::RegGenmove(_) => "reg_genmove",
            Command::KgsGenmoveCleanup(_) => "kgs-genmove_cleanup",
            Command::Undo => "undo",
            Command::GgUndo(_) => "gg-undo",
            Command::FixedHandicap(_) => "fixed_handicap",
            Command::PlaceFreeHandicap(_) => "place_free_handicap",
            Command::SetFreeHandicap(_) => "set_free_handicap",
            Command::TimeSettings { .. } => "time_settings",
            Command::TimeLeft { .. } => "time_left",
            Command::KgsTimeSettings(_) => "kgs-time_settings",
            Command::FinalScore => "final_score",
            Command::FinalScoreStones => "tengen-final_score_stones",
            Command::TengenState => "tengen-state",
            Command::FinalStatusList(_) => "final_status_list",
            Command::Loadsgf { .. } => "loadsgf",
            Command::Printsgf(_) => "printsgf",
            Command::Showboard => "showboard",
            Command::Cputime => "cputime",
            Command::GoguiInterrupt => "gogui-interrupt",
            Command::IsLegal(..) => "is_legal",
            Command::AllLegal(_) => "all_legal",
            Command::ListStones(_) => "list_stones",
            Command::Captures(_) => "captures",
            Command::Countlib(_) => "countlib",
            Command::Analyze(AnalyzeFormat::Lz, _) => "lz-analyze",
            Command::Analyze(AnalyzeFormat::Kata, _) => "kata-analyze",
            Command::GenmoveAnalyze(AnalyzeFormat::Lz, _) => "lz-genmove_analyze",
            Command::GenmoveAnalyze(AnalyzeFormat::Kata, _) => "kata-genmove_analyze",
            Command::KataRawNn { .. } => "kata-raw-nn",
            Command::GoguiAnalyzeCommands => "gogui-analyze_commands",
            Command::GoguiPlaySequence(_) => "gogui-play_sequence",
            Command::GoguiSetup(_) => "gogui-setup",
            Command::GoguiSetupPlayer(_) => "gogui-setup_player",
            Command::GoguiShow(GoguiShow::Ownership) => "tengen-ownership",
            Command::GoguiShow(GoguiShow::BestMoves) => "tengen-best_moves",
            Command::GoguiShow(GoguiShow::BestMovesGfx) => "tengen-best_moves_gfx",
            Command::GoguiShow(GoguiShow::Pv) => "tengen-pv",
            Command::GoguiShow(GoguiShow::SearchStats) => "tengen-search_stats",
        }
    }
}

/// The canonical command line (no id), e.g. `play black D4`; parses back to the same
/// command. Meant for logs and tests.
impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Command::KnownCommand(s) => write!(f, " {s}"),
            Command::Boardsize(n) | Command::FixedHandicap(n) | Command::PlaceFreeHandicap(n) => {
                write!(f, " {n}")
            }
            Command::Komi(k) => write!(f, " {k}"),
            Command::Play(c, m) | Command::IsLegal(c, m) => {
                write!(f, " {} {m}", color_name(*c))
            }
            Command::Genmove(c)
            | Command::RegGenmove(c)
            | Command::KgsGenmoveCleanup(c)
            | Command::AllLegal(c)
            | Command::ListStones(c)
            | Command::Captures(c) => write!(f, " {}", color_name(*c)),
            Command::GgUndo(Some(n)) => write!(f, " {n}"),
            Command::SetFreeHandicap(moves) => moves.iter().try_for_each(|m| write!(f, " {m}")),
            Command::TimeSettings {
                main_time,
                byo_yomi_time,
                byo_yomi_stones,
            } => write!(f, " {main_time} {byo_yomi_time} {byo_yomi_stones}"),
            Command::TimeLeft {
                color,
                time,
                stones,
            } => write!(f, " {} {time} {stones}", color_name(*color)),
            Command::KgsTimeSettings(Some(t)) => write!(f, " {t}"),
            Command::KgsTimeSettings(None) => write!(f, " none"),
            Command::FinalStatusList(s) => write!(f, " {s}"),
            Command::Loadsgf { file, move_number } => {
                write!(f, " {file}")?;
                match move_number {
                    Some(n) => write!(f, " {n}"),
                    None => Ok(()),
                }
            }
            Command::Printsgf(Some(file)) => write!(f, " {file}"),
            Command::Countlib(v) => write!(f, " {v}"),
            Command::Analyze(_, a) | Command::GenmoveAnalyze(_, a) => write!(f, "{a}"),
            Command::KataRawNn { symmetry, optimism } => {
                match symmetry {
                    Some(s) => write!(f, " {s}")?,
                    None => write!(f, " all")?,
                }
                match optimism {
                    Some(o) => write!(f, " {o}"),
                    None => Ok(()),
                }
            }
            Command::GoguiPlaySequence(list) | Command::GoguiSetup(list) => list
                .iter()
                .try_for_each(|(c, m)| write!(f, " {} {m}", color_name(*c))),
            Command::GoguiSetupPlayer(c) => write!(f, " {}", color_name(*c)),
            Command::GoguiAnalyzeCommands | Command::GoguiShow(_) => Ok(()),
            Command::ProtocolVersion
            | Command::Name
            | Command::Version
            | Command::ListCommands
            | Command::Quit
            | Command::ClearBoard
            | Command::Undo
            | Command::GgUndo(None)
            | Command::FinalScore
            | Command::FinalScoreStones
            | Command::TengenState
            | Command::Printsgf(None)
            | Command::Showboard
            | Command::Cputime
            | Command::GoguiInterrupt => Ok(()),
        }
    }
}

/// Bad arguments for a known command. `near` is the text where parsing stopped (at most
/// a few dozen characters), for logs only: the wire text is always `syntax error`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("syntax error near `{near}`")]
pub struct SyntaxError {
    pub near: String,
}

impl SyntaxError {
    /// Longest `near` text kept, in characters.
    const NEAR_CHARS: usize = 32;

    fn at(rest: &str) -> SyntaxError {
        SyntaxError {
            near: rest.chars().take(Self::NEAR_CHARS).collect(),
        }
    }

    fn from_nom(err: nom::Err<nom::error::Error<&str>>) -> SyntaxError {
        match err {
            nom::Err::Error(e) | nom::Err::Failure(e) => SyntaxError::at(e.input),
            nom::Err::Incomplete(_) => SyntaxError::at(""),
        }
    }
}

/// The argument parser of one table row: the argument text (trimmed, without the command
/// name) to the command.
pub type ArgParser = fn(&str) -> Result<Command, SyntaxError>;

/// One row of the command table.
#[derive(Clone, Copy, Debug)]
pub struct CommandSpec {
    /// The GTP name, case-sensitive.
    pub name: &'static str,
    /// Parses the arguments.
    pub parse: ArgParser,
    /// A valid command line, used by tests and documentation.
    pub example: &'static str,
}

type NomError<'a> = nom::error::Error<&'a str>;

/// Runs `parser` on the whole argument text: anything left over is a syntax error.
fn args<'a, O>(
    input: &'a str,
    parser: impl Parser<&'a str, Output = O, Error = NomError<'a>>,
) -> Result<O, SyntaxError> {
    all_consuming(parser)
        .parse(input)
        .map(|(_, out)| out)
        .map_err(SyntaxError::from_nom)
}

/// A following argument: white space, then `parser`.
fn then<'a, O>(
    parser: impl Parser<&'a str, Output = O, Error = NomError<'a>>,
) -> impl Parser<&'a str, Output = O, Error = NomError<'a>> {
    preceded(space1, parser)
}

pub use crate::limits::{MAX_KOMI, MAX_SECONDS, MAX_STONES};

/// A komi: finite, at most [`MAX_KOMI`] either way.
fn komi_value(input: &str) -> IResult<&str, f64> {
    verify(float, |k: &f64| crate::limits::komi_ok(*k)).parse(input)
}

/// Seconds of a time setting: 0..=[`MAX_SECONDS`].
fn seconds(input: &str) -> IResult<&str, u32> {
    verify(int, |n: &u32| *n <= MAX_SECONDS).parse(input)
}

/// Stones or periods of a time setting: 0..=[`MAX_STONES`].
fn stones(input: &str) -> IResult<&str, u32> {
    verify(int, |n: &u32| *n <= MAX_STONES).parse(input)
}

/// Seconds left on a clock, negative allowed (KGS and other servers report a clock run
/// past zero so): -[`MAX_SECONDS`]..=[`MAX_SECONDS`].
fn signed_seconds(input: &str) -> IResult<&str, i64> {
    map(
        recognize((opt(nom::character::complete::char('-')), seconds)),
        |t: &str| t.parse::<i64>().unwrap_or(0),
    )
    .parse(input)
}

/// A command that only answers (nothing to change, nothing to read): extra arguments
/// are ignored, as GNU Go does (`quit now`, `protocol_version 2`).
fn ignoring_args(_input: &str, command: Command) -> Result<Command, SyntaxError> {
    Ok(command)
}

/// `boardsize N`, or `N N` (a square board written as width and height); other
/// rectangles are unacceptable sizes, said by the executor.
fn boardsize(input: &str) -> Result<Command, SyntaxError> {
    let (n, second) = args(input, (int, opt(then(int))))?;
    Ok(Command::Boardsize(match second {
        Some(m) if m != n => 0,
        _ => n,
    }))
}

/// A command without arguments.
fn no_args(input: &str, command: Command) -> Result<Command, SyntaxError> {
    if input.is_empty() {
        Ok(command)
    } else {
        Err(SyntaxError::at(input))
    }
}

/// A keyword argument, any case, ending at a word boundary.
fn keyword<'a, T: Clone>(
    word: &'static str,
    out: T,
) -> impl Parser<&'a str, Output = T, Error = NomError<'a>> {
    value(out, terminated(tag_no_case(word), alt((space1, eof))))
}

fn status(input: &str) -> IResult<&str, Status> {
    // `keyword` eats the following space, so check the end of input separately here.
    alt((
        value(Status::Alive, (tag_no_case("alive"), eof)),
        value(Status::Dead, (tag_no_case("dead"), eof)),
        value(Status::Seki, (tag_no_case("seki"), eof)),
    ))
    .parse(input)
}

/// `COLOUR MOVE COLOUR MOVE ...` (possibly empty), as GoGui's sequence commands send.
fn color_moves(input: &str) -> IResult<&str, Vec<(Color, GtpMove)>> {
    separated_list0(space1, (color, preceded(space1, gtp_move))).parse(input)
}

/// The `kgs-time_settings` argument: `none` (no limit) or a time system in whole
/// seconds.
fn kgs_time(input: &str) -> IResult<&str, Option<TimeSystem>> {
    alt((
        value(None, (tag_no_case("none"), eof)),
        map(preceded(keyword("absolute", ()), seconds), |main| {
            Some(TimeSystem::Absolute {
                main: f64::from(main),
            })
        }),
        map(
            preceded(
                keyword("byoyomi", ()),
                (seconds, then(seconds), then(stones)),
            ),
            |(main, period_time, periods)| {
                Some(TimeSystem::Byoyomi {
                    main: f64::from(main),
                    period_time: f64::from(period_time),
                    periods,
                })
            },
        ),
        map(
            preceded(
                keyword("canadian", ()),
                (seconds, then(seconds), then(stones)),
            ),
            |(main, period_time, stones)| {
                Some(TimeSystem::Canadian {
                    main: f64::from(main),
                    period_time: f64::from(period_time),
                    stones,
                })
            },
        ),
    ))
    .parse(input)
}

/// The policy optimism of `kata-raw-nn` when none is given: KataGo's GTP default
/// (`rootPolicyOptimism`, 0.2 unless its configuration says otherwise).
pub const RAW_NN_OPTIMISM: f64 = 0.2;

/// `kata-raw-nn`'s arguments: `all` (any case) or a symmetry 0..=7, then an optional
/// optimism in 0..=1.
fn raw_nn_args(input: &str) -> Result<Command, SyntaxError> {
    let symmetry = alt((
        value(None, terminated(tag_no_case("all"), super::parse::word_end)),
        map(verify(int, |s: &u32| *s < 8), |s| Some(s as u8)),
    ));
    let optimism = verify(float, |o: &f64| (0.0..=1.0).contains(o));
    args(input, (symmetry, opt(then(optimism))))
        .map(|(symmetry, optimism)| Command::KataRawNn { symmetry, optimism })
}

/// The command table: the single source of command names. Its order is the order of
/// `list_commands`.
pub static COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "protocol_version",
        parse: |a| ignoring_args(a, Command::ProtocolVersion),
        example: "protocol_version",
    },
    CommandSpec {
        name: "name",
        parse: |a| ignoring_args(a, Command::Name),
        example: "name",
    },
    CommandSpec {
        name: "version",
        parse: |a| ignoring_args(a, Command::Version),
        example: "version",
    },
    CommandSpec {
        name: "known_command",
        parse: |a| args(a, string).map(|s| Command::KnownCommand(s.to_string())),
        example: "known_command genmove",
    },
    CommandSpec {
        name: "list_commands",
        parse: |a| ignoring_args(a, Command::ListCommands),
        example: "list_commands",
    },
    CommandSpec {
        name: "quit",
        parse: |a| ignoring_args(a, Command::Quit),
        example: "quit",
    },
    CommandSpec {
        name: "boardsize",
        parse: boardsize,
        example: "boardsize 19",
    },
    CommandSpec {
        name: "clear_board",
        parse: |a| no_args(a, Command::ClearBoard),
        example: "clear_board",
    },
    CommandSpec {
        name: "komi",
        parse: |a| args(a, komi_value).map(Command::Komi),
        example: "komi 7.5",
    },
    CommandSpec {
        name: "play",
        parse: |a| args(a, (color, then(gtp_move))).map(|(c, m)| Command::Play(c, m)),
        example: "play b D4",
    },
    CommandSpec {
        name: "genmove",
        parse: |a| args(a, color).map(Command::Genmove),
        example: "genmove white",
    },
    CommandSpec {
        name: "reg_genmove",
        parse: |a| args(a, color).map(Command::RegGenmove),
        example: "reg_genmove b",
    },
    CommandSpec {
        name: "kgs-genmove_cleanup",
        parse: |a| args(a, color).map(Command::KgsGenmoveCleanup),
        example: "kgs-genmove_cleanup b",
    },
    CommandSpec {
        name: "undo",
        parse: |a| no_args(a, Command::Undo),
        example: "undo",
    },
    CommandSpec {
        name: "gg-undo",
        parse: |a| args(a, opt(int)).map(Command::GgUndo),
        example: "gg-undo 2",
    },
    CommandSpec {
        name: "fixed_handicap",
        parse: |a| args(a, int).map(Command::FixedHandicap),
        example: "fixed_handicap 4",
    },
    CommandSpec {
        name: "place_free_handicap",
        parse: |a| args(a, int).map(Command::PlaceFreeHandicap),
        example: "place_free_handicap 3",
    },
    CommandSpec {
        name: "set_free_handicap",
        parse: |a| args(a, separated_list0(space1, gtp_move)).map(Command::SetFreeHandicap),
        example: "set_free_handicap D4 Q16 q4",
    },
    CommandSpec {
        name: "time_settings",
        parse: |a| {
            args(a, (seconds, then(seconds), then(stones))).map(|(m, t, s)| Command::TimeSettings {
                main_time: m,
                byo_yomi_time: t,
                byo_yomi_stones: s,
            })
        },
        example: "time_settings 1800 30 5",
    },
    CommandSpec {
        name: "time_left",
        parse: |a| {
            args(a, (color, then(signed_seconds), then(stones))).map(|(color, time, stones)| {
                Command::TimeLeft {
                    color,
                    time,
                    stones,
                }
            })
        },
        example: "time_left w 120 3",
    },
    CommandSpec {
        name: "kgs-time_settings",
        parse: |a| args(a, kgs_time).map(Command::KgsTimeSettings),
        example: "kgs-time_settings byoyomi 600 30 5",
    },
    CommandSpec {
        name: "final_score",
        parse: |a| no_args(a, Command::FinalScore),
        example: "final_score",
    },
    CommandSpec {
        name: "tengen-final_score_stones",
        parse: |a| no_args(a, Command::FinalScoreStones),
        example: "tengen-final_score_stones",
    },
    CommandSpec {
        name: "tengen-state",
        parse: |a| no_args(a, Command::TengenState),
        example: "tengen-state",
    },
    CommandSpec {
        name: "final_status_list",
        parse: |a| args(a, status).map(Command::FinalStatusList),
        example: "final_status_list dead",
    },
    CommandSpec {
        name: "loadsgf",
        parse: |a| {
            args(a, (string, opt(then(int)))).map(|(file, move_number)| Command::Loadsgf {
                file: file.to_string(),
                move_number,
            })
        },
        example: "loadsgf games/game1.sgf 42",
    },
    CommandSpec {
        name: "printsgf",
        parse: |a| args(a, opt(string)).map(|f| Command::Printsgf(f.map(str::to_string))),
        example: "printsgf out.sgf",
    },
    CommandSpec {
        name: "showboard",
        parse: |a| no_args(a, Command::Showboard),
        example: "showboard",
    },
    CommandSpec {
        name: "cputime",
        parse: |a| no_args(a, Command::Cputime),
        example: "cputime",
    },
    CommandSpec {
        name: "gogui-interrupt",
        parse: |a| no_args(a, Command::GoguiInterrupt),
        example: "gogui-interrupt",
    },
    CommandSpec {
        name: "is_legal",
        parse: |a| args(a, (color, then(gtp_move))).map(|(c, m)| Command::IsLegal(c, m)),
        example: "is_legal w pass",
    },
    CommandSpec {
        name: "all_legal",
        parse: |a| args(a, color).map(Command::AllLegal),
        example: "all_legal black",
    },
    CommandSpec {
        name: "list_stones",
        parse: |a| args(a, color).map(Command::ListStones),
        example: "list_stones white",
    },
    CommandSpec {
        name: "captures",
        parse: |a| args(a, color).map(Command::Captures),
        example: "captures b",
    },
    CommandSpec {
        name: "countlib",
        parse: |a| args(a, vertex).map(Command::Countlib),
        example: "countlib K10",
    },
    CommandSpec {
        name: "kata-raw-nn",
        parse: raw_nn_args,
        example: "kata-raw-nn 3 0.5",
    },
    CommandSpec {
        name: "gogui-analyze_commands",
        parse: |a| no_args(a, Command::GoguiAnalyzeCommands),
        example: "gogui-analyze_commands",
    },
    CommandSpec {
        name: "gogui-play_sequence",
        parse: |a| args(a, color_moves).map(Command::GoguiPlaySequence),
        example: "gogui-play_sequence b D4 w Q16",
    },
    CommandSpec {
        name: "gogui-setup",
        parse: |a| args(a, color_moves).map(Command::GoguiSetup),
        example: "gogui-setup b D4 w Q16",
    },
    CommandSpec {
        name: "gogui-setup_player",
        parse: |a| args(a, color).map(Command::GoguiSetupPlayer),
        example: "gogui-setup_player w",
    },
    CommandSpec {
        name: "tengen-ownership",
        parse: |a| no_args(a, Command::GoguiShow(GoguiShow::Ownership)),
        example: "tengen-ownership",
    },
    CommandSpec {
        name: "tengen-best_moves",
        parse: |a| no_args(a, Command::GoguiShow(GoguiShow::BestMoves)),
        example: "tengen-best_moves",
    },
    CommandSpec {
        name: "tengen-best_moves_gfx",
        parse: |a| no_args(a, Command::GoguiShow(GoguiShow::BestMovesGfx)),
        example: "tengen-best_moves_gfx",
    },
    CommandSpec {
        name: "tengen-pv",
        parse: |a| no_args(a, Command::GoguiShow(GoguiShow::Pv)),
        example: "tengen-pv",
    },
    CommandSpec {
        name: "tengen-search_stats",
        parse: |a| no_args(a, Command::GoguiShow(GoguiShow::SearchStats)),
        example: "tengen-search_stats",
    },
    CommandSpec {
        name: "lz-analyze",
        parse: |a| analyze_args(a).map(|a| Command::Analyze(AnalyzeFormat::Lz, a)),
        example: "lz-analyze black interval 50",
    },
    CommandSpec {
        name: "kata-analyze",
        parse: |a| analyze_args(a).map(|a| Command::Analyze(AnalyzeFormat::Kata, a)),
        example: "kata-analyze black interval 50 ownership true",
    },
    CommandSpec {
        name: "lz-genmove_analyze",
        parse: |a| analyze_args(a).map(|a| Command::GenmoveAnalyze(AnalyzeFormat::Lz, a)),
        example: "lz-genmove_analyze black interval 50",
    },
    CommandSpec {
        name: "kata-genmove_analyze",
        parse: |a| analyze_args(a).map(|a| Command::GenmoveAnalyze(AnalyzeFormat::Kata, a)),
        example: "kata-genmove_analyze white interval 50",
    },
];

/// The table row for a command name (case-sensitive).
pub fn find_command(name: &str) -> Option<&'static CommandSpec> {
    COMMANDS.iter().find(|spec| spec.name == name)
}

/// The answer to `known_command`: is `name` in the table?
pub fn is_known_command(name: &str) -> bool {
    find_command(name).is_some()
}

/// The answer to `list_commands`: one name a line, in table order.
pub fn list_commands() -> String {
    COMMANDS
        .iter()
        .map(|spec| spec.name)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Why a line did not parse to a command.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParseError {
    /// The command name is not in [`COMMANDS`].
    #[error("unknown command `{name}`")]
    UnknownCommand { name: String },
    /// A known command (or none at all) with bad arguments.
    #[error("{0}")]
    Syntax(#[from] SyntaxError),
}

impl From<ParseError> for GtpError {
    fn from(err: ParseError) -> GtpError {
        match err {
            ParseError::UnknownCommand { .. } => GtpError::UnknownCommand,
            ParseError::Syntax(_) => GtpError::Syntax,
        }
    }
}

/// One parsed command line: the id, echoed verbatim in the response, and the command.
#[derive(Clone, Debug, PartialEq)]
pub struct ParsedLine {
    /// The digits of the id, if the line starts with one (any length).
    pub id: Option<String>,
    pub command: Result<Command, ParseError>,
}

/// The id: a run of digits followed by white space or the end of the line.
fn id(input: &str) -> IResult<&str, &str> {
    terminated(digit1, alt((space1, eof))).parse(input)
}

/// The id at the start of a preprocessed line, if any: a run of digits followed by a
/// space or the end of the line.
pub fn line_id(line: &str) -> Option<&str> {
    id(line.trim_start_matches(|c: char| !is_word_char(c)))
        .ok()
        .map(|(_, id)| id)
}

/// Parses a preprocessed, non-empty line `[id] name [args]`.
///
/// A line holding only an id (or nothing) is a syntax error; a name not in the table is an
/// unknown command; bad arguments for a known name are a syntax error.
pub fn parse_command(line: &str) -> ParsedLine {
    let line = line.trim_matches(|c: char| !is_word_char(c));
    let (rest, id) = match id(line) {
        Ok((rest, id)) => (rest, Some(id.to_string())),
        Err(_) => (line, None),
    };
    let (name, args) = match rest.find(|c: char| !is_word_char(c)) {
        Some(i) => (
            &rest[..i],
            rest[i..].trim_matches(|c: char| !is_word_char(c)),
        ),
        None => (rest, ""),
    };
    let command = if name.is_empty() {
        Err(ParseError::Syntax(SyntaxError::at("")))
    } else {
        match find_command(name) {
            Some(spec) => (spec.parse)(args).map_err(ParseError::Syntax),
            None => Err(ParseError::UnknownCommand {
                name: name.chars().take(SyntaxError::NEAR_CHARS).collect(),
            }),
        }
    };
    ParsedLine { id, command }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    fn cmd(line: &str) -> Result<Command, ParseError> {
        parse_command(line).command
    }

    fn ok(line: &str) -> Command {
        match cmd(line) {
            Ok(c) => c,
            Err(e) => panic!("{line:?} should parse, got {e}"),
        }
    }

    fn is_syntax(line: &str) -> bool {
        matches!(cmd(line), Err(ParseError::Syntax(_)))
    }

    const D4: Vertex = Vertex { col: 3, row: 3 };

    #[test]
    fn every_example_parses_to_its_own_name_and_round_trips() {
        for spec in COMMANDS {
            let parsed = parse_command(spec.example);
            assert_eq!(parsed.id, None);
            let command = match parsed.command {
                Ok(c) => c,
                Err(e) => panic!("example {:?} fails: {e}", spec.example),
            };
            assert_eq!(command.name(), spec.name, "example {:?}", spec.example);
            assert!(spec.example.starts_with(spec.name));
            // Display gives a line that parses back to the same command.
            let again = ok(&command.to_string());
            assert_eq!(again, command, "round trip of {:?}", spec.example);
            // With an id in front too.
            let with_id = parse_command(&format!("7 {}", spec.example));
            assert_eq!(with_id.id.as_deref(), Some("7"));
            assert_eq!(with_id.command, Ok(command));
        }
    }

    #[test]
    fn names_are_unique_lower_case_and_listed_in_order() {
        let mut seen = HashSet::new();
        for spec in COMMANDS {
            assert!(seen.insert(spec.name), "duplicate {}", spec.name);
            assert!(!spec.name.chars().any(|c| c.is_ascii_uppercase()));
            assert!(is_known_command(spec.name));
        }
        let listed: Vec<&str> = COMMANDS.iter().map(|s| s.name).collect();
        assert_eq!(list_commands(), listed.join("\n"));
        assert!(list_commands().starts_with("protocol_version\nname\nversion\n"));
        assert!(!list_commands().ends_with('\n'));
        assert!(!is_known_command("PLAY"));
        assert!(!is_known_command("foo"));
        assert!(!is_known_command(""));
    }

    #[test]
    fn ids_are_kept_verbatim() {
        let p = parse_command("12 play b d4");
        assert_eq!(p.id.as_deref(), Some("12"));
        assert_eq!(
            p.command,
            Ok(Command::Play(Color::Black, GtpMove::Vertex(D4)))
        );
        let long = "000123456789012345678901234567890";
        let p = parse_command(&format!("{long} name"));
        assert_eq!(p.id.as_deref(), Some(long));
        assert_eq!(p.command, Ok(Command::Name));
        // Id kept on failures too.
        let p = parse_command("5 foo");
        assert_eq!(p.id.as_deref(), Some("5"));
        assert!(matches!(p.command, Err(ParseError::UnknownCommand { .. })));
        let p = parse_command("6 boardsize x");
        assert_eq!(p.id.as_deref(), Some("6"));
        assert!(matches!(p.command, Err(ParseError::Syntax(_))));
    }

    #[test]
    fn id_alone_is_a_syntax_error() {
        let p = parse_command("12");
        assert_eq!(p.id.as_deref(), Some("12"));
        assert!(matches!(p.command, Err(ParseError::Syntax(_))));
        assert!(is_syntax(""));
    }

    #[test]
    fn line_id_finds_only_a_leading_digit_word() {
        assert_eq!(line_id("12 play b d4"), Some("12"));
        assert_eq!(line_id("12"), Some("12"));
        assert_eq!(line_id("12play"), None);
        assert_eq!(line_id("play 12"), None);
        assert_eq!(line_id(""), None);
    }

    #[test]
    fn digits_glued_to_a_name_are_not_an_id() {
        let p = parse_command("12play b d4");
        assert_eq!(p.id, None);
        assert!(matches!(p.command, Err(ParseError::UnknownCommand { .. })));
    }

    #[test]
    fn names_are_case_sensitive() {
        assert_eq!(
            cmd("Play b d4"),
            Err(ParseError::UnknownCommand {
                name: "Play".into()
            })
        );
        assert!(matches!(
            cmd("kgs-time_settingsnone"),
            Err(ParseError::UnknownCommand { .. })
        ));
        assert!(matches!(
            cmd("NAME"),
            Err(ParseError::UnknownCommand { .. })
        ));
    }

    #[test]
    fn extra_spaces_between_arguments_are_fine() {
        assert_eq!(
            ok("play   white    pass"),
            Command::Play(Color::White, GtpMove::Pass)
        );
        assert_eq!(ok("  3   name  "), Command::Name);
    }

    #[test]
    fn lenient_where_gnu_go_is() {
        assert_eq!(ok("name x"), Command::Name);
        assert_eq!(ok("quit now"), Command::Quit);
        assert_eq!(ok("protocol_version 2"), Command::ProtocolVersion);
        assert_eq!(ok("boardsize 19 19"), Command::Boardsize(19));
        // A rectangle reaches the executor as size 0: `unacceptable size`.
        assert_eq!(ok("boardsize 9 13"), Command::Boardsize(0));
        assert_eq!(ok("komi -1000"), Command::Komi(-1000.0));
        assert!(matches!(
            ok("time_left w -5 0"),
            Command::TimeLeft { time: -5, .. }
        ));
    }

    #[test]
    fn wrong_arity_or_type_is_a_syntax_error() {
        for line in [
            "boardsize",
            "boardsize 19 19 19",
            "boardsize -1",
            "komi 1e308",
            "komi 1000.5",
            "time_settings 300 30 -5",
            "time_settings 100000001 0 0",
            "time_left b 10 -1",
            "kgs-time_settings canadian 60 30 -1",
            "boardsize 9.5",
            "boardsize 99999999999",
            "komi",
            "komi nan",
            "komi inf",
            "komi 6.5 1",
            "play",
            "play b",
            "play d4 b",
            "play x d4",
            "play b i4",
            "play b d4 d5",
            "play b resign",
            "genmove",
            "genmove bw",
            "gg-undo x",
            "gg-undo 1 2",
            "fixed_handicap",
            "set_free_handicap d4 x",
            "time_settings 1 2",
            "time_settings 1 2 3 4",
            "time_left b 10",
            "time_left 10 10 0",
            "kgs-time_settings",
            "kgs-time_settings none 5",
            "kgs-time_settings absolute",
            "kgs-time_settings byoyomi 1 2",
            "kgs-time_settings canadian 1 2 3 4",
            "kgs-time_settings fischer 1 2",
            "final_status_list",
            "final_status_list unknown",
            "final_status_list alive dead",
            "loadsgf",
            "loadsgf a.sgf x",
            "loadsgf a.sgf 1 2",
            "printsgf a b",
            "countlib",
            "countlib pass",
            "countlib A0",
            "known_command",
            "known_command a b",
            "all_legal",
            "list_stones x",
            "captures",
            "kata-raw-nn",
            "kata-raw-nn 8",
            "kata-raw-nn -1",
            "kata-raw-nn allx",
            "kata-raw-nn all 1.5",
            "kata-raw-nn 0 -0.1",
            "kata-raw-nn 0 nan",
            "kata-raw-nn 0 0.5 1",
            "kata-raw-nn b 0",
        ] {
            assert!(is_syntax(line), "{line:?} should be a syntax error");
        }
    }

    #[test]
    fn typed_arguments() {
        assert_eq!(ok("boardsize 19"), Command::Boardsize(19));
        assert_eq!(ok("komi -3"), Command::Komi(-3.0));
        assert_eq!(ok("komi 0.5"), Command::Komi(0.5));
        assert_eq!(ok("genmove W"), Command::Genmove(Color::White));
        assert_eq!(ok("gg-undo"), Command::GgUndo(None));
        assert_eq!(ok("gg-undo 3"), Command::GgUndo(Some(3)));
        assert_eq!(
            ok("set_free_handicap d4 pass"),
            Command::SetFreeHandicap(vec![GtpMove::Vertex(D4), GtpMove::Pass])
        );
        assert_eq!(ok("set_free_handicap"), Command::SetFreeHandicap(vec![]));
        assert_eq!(
            ok("time_left b 0 0"),
            Command::TimeLeft {
                color: Color::Black,
                time: 0,
                stones: 0
            }
        );
        assert_eq!(ok("kgs-time_settings none"), Command::KgsTimeSettings(None));
        assert_eq!(
            ok("kgs-time_settings absolute 300"),
            Command::KgsTimeSettings(Some(TimeSystem::Absolute { main: 300.0 }))
        );
        assert_eq!(
            ok("kgs-time_settings canadian 600 300 25"),
            Command::KgsTimeSettings(Some(TimeSystem::Canadian {
                main: 600.0,
                period_time: 300.0,
                stones: 25
            }))
        );
        assert_eq!(
            ok("final_status_list seki"),
            Command::FinalStatusList(Status::Seki)
        );
        assert_eq!(
            ok("loadsgf x.sgf"),
            Command::Loadsgf {
                file: "x.sgf".into(),
                move_number: None
            }
        );
        assert_eq!(ok("printsgf"), Command::Printsgf(None));
        assert_eq!(ok("known_command foo"), Command::KnownCommand("foo".into()));
        assert_eq!(ok("countlib d4"), Command::Countlib(D4));
        assert_eq!(
            ok("kata-raw-nn ALL"),
            Command::KataRawNn {
                symmetry: None,
                optimism: None
            }
        );
        assert_eq!(
            ok("kata-raw-nn 7 1"),
            Command::KataRawNn {
                symmetry: Some(7),
                optimism: Some(1.0)
            }
        );
        assert_eq!(
            ok("kata-raw-nn 0 0"),
            Command::KataRawNn {
                symmetry: Some(0),
                optimism: Some(0.0)
            }
        );
    }

    #[test]
    fn errors_map_to_wire_texts() {
        let unknown: GtpError = cmd("foo").unwrap_err().into();
        assert_eq!(unknown.to_string(), "unknown command");
        let syntax: GtpError = cmd("play").unwrap_err().into();
        assert_eq!(syntax.to_string(), "syntax error");
    }

    #[test]
    fn odd_input_does_not_panic() {
        for line in [
            "\u{FFFD}",
            "play \u{FFFD} d4",
            "12 \u{1F600}",
            "komi 1e308",
            "komi 1e309",
            "countlib Z25",
            "countlib ZZ25",
            "9999999999999999999999999999999999",
        ] {
            let _ = parse_command(line);
        }
        assert!(is_syntax("komi 1e309"));
    }
}
