//! The lines `tengen analysis` writes: a search's analysis as KataGo's analysis engine
//! formats it (moveInfos, rootInfo, ownership, policy), a terminated turn without
//! results, errors and warnings. Knows the protocol's field names and perspectives;
//! nothing of how the analysis was found.

use serde_json::{json, Map, Value};

use crate::board::{Color, Move, Point};
use crate::nn::eval::Evaluation;
use crate::notation::{color_letter, move_text};
use crate::search::Analysis;

/// Whose point of view win rates, scores and ownership are reported from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Perspective {
    Black,
    White,
    SideToMove,
}

/// What a query's answers include, and how they are seen.
#[derive(Clone, Debug)]
pub struct Shape {
    pub perspective: Perspective,
    pub ownership: bool,
    pub moves_ownership: bool,
    pub policy: bool,
    pub pv_visits: bool,
    /// Moves of each variation after its first (`analysisPVLen`); `None`: all.
    pub pv_len: Option<usize>,
    pub size: usize,
}

/// An error line: the text, the field it is about, the query's id when known.
pub fn error(id: &Value, field: Option<&str>, text: String) -> Value {
    let mut m = Map::new();
    if !id.is_null() {
        m.insert("id".into(), id.clone());
    }
    if let Some(f) = field {
        m.insert("field".into(), json!(f));
    }
    m.insert("error".into(), json!(text));
    Value::Object(m)
}

pub fn warning(id: &Value, field: &str, text: String) -> Value {
    json!({"id": id, "field": field, "warning": text})
}

/// A turn terminated before its search found anything.
pub fn no_results(id: &Value, turn: usize) -> Value {
    json!({"id": id, "turnNumber": turn, "isDuringSearch": false, "noResults": true})
}

/// Every point's value, rows from the top (KataGo's order).
fn rows_from_top(size: usize, value: impl Fn(Point) -> f64) -> Vec<f64> {
    (0..size)
        .rev()
        .flat_map(|row| (0..size).map(move |col| Point::from_coord(col, row)))
        .map(value)
        .collect()
}

/// The answer for turn `turn`: `during` while the search still runs.
pub fn analysis(
    id: &Value,
    turn: usize,
    a: &Analysis,
    shape: &Shape,
    during: bool,
    policy: Option<&Evaluation>,
) -> Value {
    let mover = a.color;
    // Win rate and score for the reported side, from the mover's win rate and Black's score.
    let side_is_black = match shape.perspective {
        Perspective::Black => true,
        Perspective::White => false,
        Perspective::SideToMove => mover == Color::Black,
    };
    let flip = side_is_black != (mover == Color::Black);
    let wr = |w: f64| if flip { 1.0 - w } else { w };
    let sc = |black: f64| if side_is_black { black } else { -black };
    let own = |o: &[f32]| {
        rows_from_top(shape.size, |p| {
            let b = f64::from(o.get(p.index()).copied().unwrap_or(0.0));
            if side_is_black {
                b
            } else {
                -b
            }
        })
    };
    let keep = shape.pv_len.map_or(usize::MAX, |n| n + 1);
    let prior = a.prior_share();
    let infos: Vec<Value> = a
        .candidates
        .iter()
        .filter(|c| c.visits > 0)
        .enumerate()
        .map(|(order, c)| {
            let mut m = json!({
                "move": move_text(c.mv),
                "visits": c.visits,
                "edgeVisits": c.visits,
                "weight": f64::from(c.visits),
                "edgeWeight": f64::from(c.visits),
                "playSelectionValue": f64::from(c.visits),
                "winrate": wr(c.winrate),
                "scoreLead": sc(c.score_black),
                "scoreMean": sc(c.score_black),
                "scoreSelfplay": sc(c.score_black),
                "scoreStdev": c.score_stdev,
                "prior": prior(c),
                "lcb": wr(c.lcb),
                "utility": 2.0 * wr(c.winrate) - 1.0,
                "utilityLcb": 2.0 * wr(c.lcb) - 1.0,
                "order": order,
                "pv": c.pv.iter().take(keep).map(|&m| move_text(m)).collect::<Vec<_>>(),
            });
            if shape.pv_visits {
                let v: Vec<u32> = c.pv_visits.iter().take(keep).copied().collect();
                m["pvEdgeVisits"] = json!(v);
                m["pvVisits"] = json!(v);
            }
            if shape.moves_ownership && !c.ownership.is_empty() {
                m["ownership"] = json!(own(&c.ownership));
            }
            m
        })
        .collect();
    let mut r = json!({
        "id": id,
        "isDuringSearch": during,
        "turnNumber": turn,
        "moveInfos": infos,
        "rootInfo": {
            "winrate": wr(a.winrate),
            "scoreLead": sc(a.score_black),
            "scoreSelfplay": sc(a.score_black),
            "scoreStdev": a.score_stdev,
            "utility": 2.0 * wr(a.winrate) - 1.0,
            "visits": a.root_visits,
            "weight": f64::from(a.root_visits),
            "currentPlayer": color_letter(mover).to_string(),
        },
    });
    if shape.ownership {
        r["ownership"] = json!(own(&a.ownership));
    }
    if let Some(e) = policy {
        let mut p = rows_from_top(shape.size, |pt| e.policy_at(pt).map_or(-1.0, f64::from));
        p.push(f64::from(e.pass));
        r["policy"] = json!(p);
    } else if shape.policy {
        // Without a network: the priors of the root's moves, -1 elsewhere.
        let mut p = rows_from_top(shape.size, |pt| {
            a.candidates
                .iter()
                .find(|c| c.mv == Move::Place(pt))
                .map_or(-1.0, &prior)
        });
        p.push(
            a.candidates
                .iter()
                .find(|c| c.mv == Move::Pass)
                .map_or(-1.0, &prior),
        );
        r["policy"] = json!(p);
    }
    r
}
