//! Live analysis on the wire: one [`Analysis`] as one line of `info` segments in Leela
//! Zero's form (`lz-analyze`: integers 0..10000) or KataGo's (`kata-analyze`: floats that
//! always hold a `.`, score fields, `ownership` after the segments), following KataGo's
//! GTP extensions document. Values are from the analysed player's view.

use super::command::{AnalyzeArgs, AnalyzeFormat, MoveRule};
use super::exec::vertex_of;
use super::parse::GtpMove;
use crate::board::{Board, Color, Move, Point};
use crate::search::{Analysis, Candidate};

/// The wire text of a move: a vertex or `pass`.
pub fn move_text(mv: Move) -> String {
    match mv {
        Move::Pass => "pass".into(),
        Move::Place(p) => vertex_of(p).to_string(),
    }
}

/// The candidates to show, best first: those with visits, topped up with unvisited ones
/// (by prior) to `minmoves`, at most `maxmoves`.
fn shown<'a>(a: &'a Analysis, args: &AnalyzeArgs) -> Vec<&'a Candidate> {
    let mut out: Vec<&Candidate> = a.candidates.iter().filter(|c| c.visits > 0).collect();
    if out.len() < args.minmoves as usize {
        let mut rest: Vec<&Candidate> = a.candidates.iter().filter(|c| c.visits == 0).collect();
        rest.sort_by_key(|c| std::cmp::Reverse(c.prior_wins));
        out.extend(rest.into_iter().take(args.minmoves as usize - out.len()));
    }
    if let Some(n) = args.maxmoves {
        out.truncate(n as usize);
    }
    out
}

/// A lower confidence bound of a win rate from `n` visits (normal approximation, 95%).
fn lcb(winrate: f64, n: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let sd = (winrate * (1.0 - winrate) / n as f64).sqrt();
    (winrate - 1.96 * sd).clamp(0.0, 1.0)
}

/// One update: every shown candidate as an `info` segment, `pv` last in each, then for
/// `kata-analyze` with `ownership true` the `ownership` list (and `ownershipStdev`).
pub fn info_line(a: &Analysis, args: &AnalyzeArgs, format: AnalyzeFormat, board: &Board) -> String {
    let sign = if a.color == Color::Black { 1.0 } else { -1.0 };
    let prior_total: f64 = a
        .candidates
        .iter()
        .map(|c| c.prior_wins as f64)
        .sum::<f64>()
        .max(1.0);
    let mut segments = Vec::new();
    for (order, c) in shown(a, args).into_iter().enumerate() {
        let prior = c.prior_wins as f64 / prior_total;
        let low = lcb(c.winrate, c.visits);
        let pv: Vec<String> = c.pv.iter().map(|&m| move_text(m)).collect();
        let mut seg = format!("info move {} visits {}", move_text(c.mv), c.visits);
        match format {
            AnalyzeFormat::Lz => {
                let int = |x: f64| (x * 10000.0).round().clamp(0.0, 10000.0) as u32;
                seg.push_str(&format!(
                    " winrate {} prior {} lcb {} order {order}",
                    int(c.winrate),
                    int(prior),
                    int(low)
                ));
            }
            AnalyzeFormat::Kata => {
                let lead = sign * c.score_black;
                seg.push_str(&format!(
                    " edgeVisits {} utility {:.6} winrate {:.6} scoreMean {lead:.6} \
                     scoreStdev {:.6} scoreLead {lead:.6} scoreSelfplay {lead:.6} prior {prior:.6} \
                     lcb {low:.6} utilityLcb {:.6} order {order}",
                    c.visits,
                    2.0 * c.winrate - 1.0,
                    c.winrate,
                    a.score_stdev,
                    2.0 * low - 1.0,
                ));
                if args.pv_visits {
                    let v: Vec<String> = c.pv_visits.iter().map(|v| v.to_string()).collect();
                    seg.push_str(&format!(" pvVisits {}", v.join(" ")));
                }
            }
        }
        seg.push_str(" pv");
        for m in &pv {
            seg.push(' ');
            seg.push_str(m);
        }
        segments.push(seg);
    }
    let mut line = segments.join(" ");
    if format == AnalyzeFormat::Kata && (args.ownership || args.ownership_stdev) {
        let values = |f: &dyn Fn(Point) -> f64| -> String {
            let mut out = Vec::with_capacity(board.size() * board.size());
            for row in (0..board.size()).rev() {
                for col in 0..board.size() {
                    out.push(format!("{:.4}", f(Point::from_coord(col, row))));
                }
            }
            out.join(" ")
        };
        let own = |p: Point| -> f64 {
            a.ownership
                .get(p.index())
                .map_or(0.0, |&v| (sign * v as f64).clamp(-1.0, 1.0))
        };
        if args.ownership {
            line.push_str(" ownership ");
            line.push_str(&values(&own));
        }
        if args.ownership_stdev {
            let sd = |p: Point| -> f64 {
                let m = own(p);
                let sq = a.owned.get(p.index()).map_or(m * m, |&v| v as f64);
                (sq - m * m).max(0.0).sqrt()
            };
            line.push_str(" ownershipStdev ");
            line.push_str(&values(&sd));
        }
    }
    line
}

/// Whether the analysis may consider the root move `mv` of `color` under the `avoid` and
/// `allow` rules (only rules for the analysed colour reaching the first move apply: the
/// tree below the root is not restricted).
pub fn root_allowed(
    board: &Board,
    color: Color,
    avoid: &[MoveRule],
    allow: &[MoveRule],
    mv: Move,
) -> bool {
    let listed = |r: &MoveRule| {
        r.moves.iter().any(|&m| match m {
            GtpMove::Pass => mv == Move::Pass,
            GtpMove::Vertex(v) => match mv {
                Move::Place(p) => board.point(v.col as usize, v.row as usize) == Some(p),
                Move::Pass => false,
            },
        })
    };
    let applies = |r: &&MoveRule| r.color == color && r.until_depth >= 1;
    if avoid.iter().filter(applies).any(listed) {
        return false;
    }
    let allows: Vec<&MoveRule> = allow.iter().filter(applies).collect();
    allows.is_empty() || allows.into_iter().any(listed)
}
