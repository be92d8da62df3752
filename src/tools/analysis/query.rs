//! One query of KataGo's analysis protocol read into what the pool searches: the game
//! (size, rules, komi, initial stones, moves), the turns to analyse with their priorities,
//! the limits, the move filters and what the answers include. Every field is checked; the
//! first bad one is the query's error. Knows the protocol's fields; nothing of threads or
//! of the output stream.

use std::time::Duration;

use serde_json::{Map, Value};

use crate::board::{Color, Move};
use crate::game::Game;
use crate::gtp::GtpMove;
use crate::notation::move_text;
use crate::rules::Rules;

use super::pool::{MoveFilter, MoveRule, Position};
use super::response::{error, warning, Perspective, Shape};
use super::MAX_VISITS;

/// A query read: the position and everything its searches and answers need.
pub struct Parsed {
    pub position: Position,
    /// The turns to analyse, in order, each with its priority.
    pub turns: Vec<(usize, i64)>,
    pub visits: u64,
    pub time: Option<Duration>,
    pub report_every: Option<Duration>,
    pub filter: MoveFilter,
    pub shape: Shape,
    /// Warnings to send before the answers.
    pub warnings: Vec<Value>,
}

/// Rules names KataGo knows; Tengen plays Chinese rules whatever is asked.
const RULES: &[&str] = &[
    "chinese",
    "tromp-taylor",
    "aga",
    "new-zealand",
    "new zealand",
    "japanese",
    "korean",
    "stone-scoring",
    "stone_scoring",
    "chinese-ogs",
    "chinese-kgs",
    "bga",
    "aga-button",
];

/// The fields a query may have (KataGo's list): any other gets a warning, as KataGo's
/// `warnUnusedFields` gives one, in case of a typo.
const FIELDS: &[&str] = &[
    "id",
    "action",
    "terminateId",
    "turnNumbers",
    "boardXSize",
    "boardYSize",
    "initialStones",
    "moves",
    "initialPlayer",
    "analyzeTurns",
    "priorities",
    "rules",
    "komi",
    "whiteHandicapBonus",
    "overrideSettings",
    "maxVisits",
    "analysisPVLen",
    "rootFpuReductionMax",
    "rootPolicyTemperature",
    "includeMovesOwnership",
    "includeMovesOwnershipStdev",
    "includeOwnership",
    "includeOwnershipStdev",
    "includePolicy",
    "includePVVisits",
    "includeNoResultValue",
    "reportDuringSearchEvery",
    "firstReportDuringSearchAfter",
    "priority",
    "allowMoves",
    "avoidMoves",
];

/// Reads query `q` (with id `id`); the error answer for its first bad field.
pub fn parse(id: &Value, q: &Map<String, Value>, default_visits: u64) -> Result<Parsed, Value> {
    let err = |field: &str, text: String| error(id, Some(field), text);
    let mut warnings: Vec<Value> = q
        .keys()
        .filter(|k| !FIELDS.contains(&k.as_str()))
        .map(|k| {
            warning(
                id,
                k,
                "Unexpected or unused field, do you have a typo?".into(),
            )
        })
        .collect();
    let size_of = |key: &str| -> Result<usize, Value> {
        let n = match q.get(key) {
            None => 19,
            Some(v) => v
                .as_u64()
                .ok_or_else(|| err(key, format!("{key} must be an integer")))?
                as usize,
        };
        if !(2..=crate::board::MAX_SIZE).contains(&n) {
            return Err(err(
                key,
                format!("{key} {n} out of range 2-{}", crate::board::MAX_SIZE),
            ));
        }
        Ok(n)
    };
    let (x, y) = (size_of("boardXSize")?, size_of("boardYSize")?);
    if x != y {
        return Err(err("boardYSize", "only square boards are supported".into()));
    }
    let size = x;
    if let Some(r) = q.get("rules") {
        let name = r.as_str().map(str::to_ascii_lowercase);
        let known = name.as_deref().is_some_and(|s| RULES.contains(&s));
        if !known && !r.is_object() {
            return Err(err("rules", format!("unknown rules {r}")));
        }
        if name.as_deref() != Some("chinese") {
            warnings.push(warning(
                id,
                "rules",
                "Tengen plays Chinese rules (area counting, positional superko): those are used"
                    .into(),
            ));
        }
    }
    let mut game = Game::new(size, Rules::chinese())
        .ok_or_else(|| err("boardXSize", "board size not supported".into()))?;
    if let Some(k) = q.get("komi") {
        let k = k
            .as_f64()
            .filter(|k| k.is_finite() && k.abs() <= 150.0)
            .ok_or_else(|| err("komi", "komi must be a number within 150".into()))?;
        game.set_komi(k);
    }
    let color_of = |v: &Value, field: &str| -> Result<Color, Value> {
        match v.as_str().map(|s| s.to_ascii_uppercase()) {
            Some(s) if s == "B" || s == "BLACK" => Ok(Color::Black),
            Some(s) if s == "W" || s == "WHITE" => Ok(Color::White),
            _ => Err(err(field, format!("{v} is not a player (B or W)"))),
        }
    };
    let empty = game.board().clone();
    let move_of = |v: &Value, field: &str| -> Result<Move, Value> {
        let s = v
            .as_str()
            .ok_or_else(|| err(field, format!("{v} is not a move")))?;
        let m: GtpMove = s
            .to_ascii_lowercase()
            .parse()
            .map_err(|_| err(field, format!("{s} is not a move")))?;
        match m {
            GtpMove::Pass => Ok(Move::Pass),
            GtpMove::Vertex(vx) => empty
                .point(vx.col as usize, vx.row as usize)
                .map(Move::Place)
                .ok_or_else(|| err(field, format!("{s} is off the {size}x{size} board"))),
        }
    };
    let pairs = |key: &str| -> Result<Vec<(Color, Move)>, Value> {
        let Some(list) = q.get(key) else {
            return Ok(Vec::new());
        };
        let list = list
            .as_array()
            .ok_or_else(|| err(key, format!("{key} must be a list of [player, move]")))?;
        list.iter()
            .map(|p| match p.as_array().map(|a| a.as_slice()) {
                Some([c, m]) => Ok((color_of(c, key)?, move_of(m, key)?)),
                _ => Err(err(key, format!("{p} is not a [player, move] pair"))),
            })
            .collect()
    };
    let stones = pairs("initialStones")?;
    let moves = pairs("moves")?;
    let placed: Vec<_> = stones
        .iter()
        .filter_map(|&(c, m)| match m {
            Move::Place(p) => Some((c, p)),
            Move::Pass => None,
        })
        .collect();
    // KataGo's default first player: the first move's, else White after handicap stones.
    let first = match q.get("initialPlayer") {
        Some(v) => color_of(v, "initialPlayer")?,
        None => match moves.first() {
            Some(m) => m.0,
            None if placed.len() >= 2 && placed.iter().all(|s| s.0 == Color::Black) => Color::White,
            None => Color::Black,
        },
    };
    if !placed.is_empty() || first != Color::Black {
        game.set_position(&placed, first);
    }
    // The whole history must replay before anything is analysed, as KataGo checks it.
    let mut replay = game.clone();
    for (turn, &(c, m)) in moves.iter().enumerate() {
        if replay.play_record(c, m).is_err() {
            return Err(err(
                "moves",
                format!("Illegal move {turn}: {}", move_text(m)),
            ));
        }
    }
    drop(replay);
    let turn_list = |key: &str| -> Result<Option<Vec<usize>>, Value> {
        let Some(v) = q.get(key) else {
            return Ok(None);
        };
        let list = v
            .as_array()
            .ok_or_else(|| err(key, format!("{key} must be a list of turn numbers")))?;
        list.iter()
            .map(|n| match n.as_u64() {
                Some(n) if n as usize <= moves.len() => Ok(n as usize),
                _ => Err(err(
                    key,
                    format!("turn {n} is not between 0 and {}", moves.len()),
                )),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    };
    let priority_of = |v: &Value, key: &str| -> Result<i64, Value> {
        v.as_i64()
            .filter(|p| p.unsigned_abs() < 1 << 62)
            .ok_or_else(|| err(key, "must be an integer between -2^62 and 2^62".into()))
    };
    let priority = match q.get("priority") {
        Some(_) if q.contains_key("priorities") => {
            return Err(err(
                "priority",
                "cannot give both priority and priorities".into(),
            ))
        }
        Some(v) => priority_of(v, "priority")?,
        None => 0,
    };
    let asked = turn_list("analyzeTurns")?;
    let mut turns: Vec<(usize, i64)> = match (&asked, q.get("priorities")) {
        (Some(list), Some(p)) => {
            let p = p
                .as_array()
                .filter(|p| p.len() == list.len())
                .ok_or_else(|| {
                    err(
                        "priorities",
                        "priorities must be a list as long as analyzeTurns".into(),
                    )
                })?;
            list.iter()
                .zip(p)
                .map(|(&t, v)| Ok((t, priority_of(v, "priorities")?)))
                .collect::<Result<_, Value>>()?
        }
        (None, Some(_)) => return Err(err("priorities", "priorities needs analyzeTurns".into())),
        (Some(list), None) => list.iter().map(|&t| (t, priority)).collect(),
        (None, None) => vec![(moves.len(), priority)],
    };
    turns.sort_by_key(|t| t.0);
    turns.dedup_by_key(|t| t.0);
    let settings = q.get("overrideSettings").and_then(Value::as_object);
    let setting = |k: &str| q.get(k).or_else(|| settings.and_then(|s| s.get(k)));
    // More visits than a search reaches (KaTrain ponders with ten million) are as good
    // as none: cut to MAX_VISITS without a word, the time and memory bounds hold anyway.
    let visits = match setting("maxVisits") {
        None => default_visits,
        Some(v) => v
            .as_u64()
            .filter(|&v| v >= 1)
            .ok_or_else(|| err("maxVisits", "maxVisits must be a positive integer".into()))?
            .min(MAX_VISITS),
    };
    let seconds = |key: &str| -> Result<Option<Duration>, Value> {
        match setting(key) {
            None => Ok(None),
            Some(v) => v
                .as_f64()
                .filter(|t| (0.001..=1_000_000.0).contains(t))
                .map(|t| Some(Duration::from_secs_f64(t)))
                .ok_or_else(|| err(key, format!("{key} must be seconds from 0.001 to 1000000"))),
        }
    };
    let time = match setting("maxTime").and_then(Value::as_f64) {
        // KataGo reads a maxTime of 0 or less as no limit.
        Some(t) if t <= 0.0 => None,
        _ => seconds("maxTime")?,
    };
    let report_every = seconds("reportDuringSearchEvery")?;
    let report_every = report_every.or(seconds("firstReportDuringSearchAfter")?);
    let perspective = match setting("reportAnalysisWinratesAs") {
        None => Perspective::Black,
        Some(v) => match v.as_str().map(str::to_ascii_uppercase).as_deref() {
            Some("BLACK") => Perspective::Black,
            Some("WHITE") => Perspective::White,
            Some("SIDETOMOVE") => Perspective::SideToMove,
            _ => {
                return Err(err(
                    "reportAnalysisWinratesAs",
                    "must be BLACK, WHITE or SIDETOMOVE".into(),
                ))
            }
        },
    };
    let flag = |k: &str| -> Result<bool, Value> {
        match q.get(k) {
            None => Ok(false),
            Some(v) => v
                .as_bool()
                .ok_or_else(|| err(k, format!("{k} must be true or false"))),
        }
    };
    let pv_len = match setting("analysisPVLen") {
        None => None,
        Some(v) => Some(
            v.as_u64()
                .filter(|&n| n <= 1000)
                .ok_or_else(|| err("analysisPVLen", "must be an integer 0-1000".into()))?
                as usize,
        ),
    };
    let shape = Shape {
        perspective,
        ownership: flag("includeOwnership")?,
        moves_ownership: flag("includeMovesOwnership")?,
        policy: flag("includePolicy")?,
        pv_visits: flag("includePVVisits")?,
        pv_len,
        size,
    };
    let filter = filter(id, q, &color_of, &move_of, &mut warnings)?;
    Ok(Parsed {
        position: Position {
            start: game,
            moves,
            on_drop: None,
        },
        turns,
        visits,
        time,
        report_every,
        filter,
        shape,
        warnings,
    })
}

/// `avoidMoves` or `allowMoves`: lists of {player, moves, untilDepth}. Only the first
/// move of each search (untilDepth 1) is restricted.
fn filter(
    id: &Value,
    q: &Map<String, Value>,
    color_of: &dyn Fn(&Value, &str) -> Result<Color, Value>,
    move_of: &dyn Fn(&Value, &str) -> Result<Move, Value>,
    warnings: &mut Vec<Value>,
) -> Result<MoveFilter, Value> {
    let (key, allow) = match (q.get("avoidMoves"), q.get("allowMoves")) {
        (Some(_), Some(_)) => {
            return Err(error(
                id,
                Some("allowMoves"),
                "cannot give both allowMoves and avoidMoves".into(),
            ))
        }
        (Some(_), None) => ("avoidMoves", false),
        (None, Some(_)) => ("allowMoves", true),
        (None, None) => return Ok(MoveFilter::default()),
    };
    let shape_error = || {
        error(
            id,
            Some(key),
            "must be a list of objects with player, moves and untilDepth".into(),
        )
    };
    let list = q[key].as_array().ok_or_else(shape_error)?;
    let mut f = MoveFilter::default();
    for entry in list {
        let (Some(player), Some(moves)) = (entry.get("player"), entry.get("moves")) else {
            return Err(shape_error());
        };
        let color = color_of(player, key)?;
        let moves = moves
            .as_array()
            .ok_or_else(shape_error)?
            .iter()
            .map(|m| move_of(m, key))
            .collect::<Result<Vec<_>, _>>()?;
        match entry.get("untilDepth") {
            None => {}
            Some(d) => match d.as_u64() {
                Some(1) => {}
                Some(d) if d > 1 => warnings.push(warning(
                    id,
                    key,
                    format!("untilDepth {d}: Tengen restricts the first move only"),
                )),
                _ => {
                    return Err(error(
                        id,
                        Some(key),
                        "untilDepth must be a positive integer".into(),
                    ))
                }
            },
        }
        let slot = &mut f.0[usize::from(color == Color::White)];
        *slot = Some(match (slot.take(), allow) {
            (None, false) => MoveRule::Avoid(moves),
            (None, true) => MoveRule::Allow(moves),
            (Some(MoveRule::Avoid(mut old)), false) => {
                old.extend(moves);
                MoveRule::Avoid(old)
            }
            _ => {
                return Err(error(
                    id,
                    Some(key),
                    "allowMoves may be given once for each player".into(),
                ))
            }
        });
    }
    Ok(f)
}
