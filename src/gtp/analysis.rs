//! Live analysis on the wire: one [`Analysis`] as one line of `info` segments in Leela
//! Zero's form (`lz-analyze`: integers 0..10000) or KataGo's (`kata-analyze`: floats that
//! always hold a `.`, score fields, `ownership` after the segments), following KataGo's
//! GTP extensions document. Values are from the analysed player's view.

use super::command::{AnalyzeArgs, AnalyzeFormat, MoveRule};
use super::parse::GtpMove;
use crate::board::{Board, Color, Move, Point};
use crate::notation::move_text;
use crate::search::{Analysis, Candidate};

/// The candidates to show, best first: those with visits, topped up with unvisited ones
/// (by prior) to `minmoves`, at most `maxmoves`.
fn shown<'a>(a: &'a Analysis, args: &AnalyzeArgs) -> Vec<&'a Candidate> {
    let mut out: Vec<&Candidate> = a.candidates.iter().filter(|c| c.visits > 0).collect();
    if out.len() < args.minmoves as usize {
        let mut rest: Vec<&Candidate> = a.candidates.iter().filter(|c| c.visits == 0).collect();
        if a.net {
            rest.sort_by(|x, y| y.prior.total_cmp(&x.prior));
        } else {
            rest.sort_by_key(|c| std::cmp::Reverse(c.prior_wins));
        }
        out.extend(rest.into_iter().take(args.minmoves as usize - out.len()));
    }
    if let Some(n) = args.maxmoves {
        out.truncate(n as usize);
    }
    out
}

/// One update: every shown candidate as an `info` segment, `pv` last in each, then for
/// `kata-analyze` with `ownership true` the `ownership` list (and `ownershipStdev`).
pub fn info_line(a: &Analysis, args: &AnalyzeArgs, format: AnalyzeFormat, board: &Board) -> String {
    let sign = if a.color == Color::Black { 1.0 } else { -1.0 };
    let prior_of = a.prior_share();
    let mut segments = Vec::new();
    for (order, c) in shown(a, args).into_iter().enumerate() {
        let prior = prior_of(c);
        let low = c.lcb;
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
                let stdev = if a.net { c.score_stdev } else { a.score_stdev };
                seg.push_str(&format!(
                    " edgeVisits {} utility {:.6} winrate {:.6} scoreMean {lead:.6} \
                     scoreStdev {:.6} scoreLead {lead:.6} scoreSelfplay {lead:.6} prior {prior:.6} \
                     lcb {low:.6} utilityLcb {:.6} order {order}",
                    c.visits,
                    2.0 * c.winrate - 1.0,
                    c.winrate,
                    stdev,
                    2.0 * low - 1.0,
                ));
            }
        }
        if format == AnalyzeFormat::Kata && args.pv_visits {
            let v: Vec<String> = c.pv_visits.iter().map(|v| v.to_string()).collect();
            seg.push_str(&format!(" pvVisits {}", v.join(" ")));
        }
        if format == AnalyzeFormat::Kata && args.moves_ownership {
            // The move's own ownership (rows from the top), from the analysed player's
            // view; the root's before any simulation went through the move. Before `pv`
            // as `pvVisits` (KataGo puts both after it): Sabaki takes the trailing run of
            // vertices as the variation.
            seg.push_str(" movesOwnership ");
            seg.push_str(&points_text(board, &|p: Point| {
                let own = if c.ownership.is_empty() {
                    &a.ownership
                } else {
                    &c.ownership
                };
                own.get(p.index())
                    .map_or(0.0, |&v| (sign * v as f64).clamp(-1.0, 1.0))
            }));
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
        let values = |f: &dyn Fn(Point) -> f64| points_text(board, f);
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

/// `f` of every point, rows from the top, 4 decimals, space-separated (KataGo's order).
fn points_text(board: &Board, f: &dyn Fn(Point) -> f64) -> String {
    let mut out = Vec::with_capacity(board.size() * board.size());
    for row in (0..board.size()).rev() {
        for col in 0..board.size() {
            out.push(format!("{:.4}", f(Point::from_coord(col, row))));
        }
    }
    out.join(" ")
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

/// The answer to `gogui-analyze_commands`: `type/label/command` a line.
pub const GOGUI_ANALYZE_COMMANDS: &str = "\
dboard/Tengen: ownership/tengen-ownership
pspairs/Tengen: best moves (win rate, visits)/tengen-best_moves
gfx/Tengen: best moves and variation/tengen-best_moves_gfx
var/Tengen: principal variation/tengen-pv
string/Tengen: search statistics/tengen-search_stats
plist/Dead stones/final_status_list dead
string/Final score/final_score";

/// Visits in at most three characters, rounded down: `812`, `1k`, `35k`, `.3M`, `12M`.
fn visits_text(n: u32) -> String {
    match n {
        0..=999 => n.to_string(),
        1_000..=99_999 => format!("{}k", n / 1_000),
        100_000..=999_999 => format!(".{}M", n / 100_000),
        1_000_000..=99_999_999 => format!("{}M", n / 1_000_000),
        _ => "99M".to_string(),
    }
}

/// A GoGui point label of at most six characters (GoGui shows no more): the win rate in
/// percent (at most 99, so two digits), a slash, the visits (see [`visits_text`]).
fn best_move_label(winrate: f64, visits: u32) -> String {
    let percent = (100.0 * winrate).round().clamp(0.0, 99.0);
    format!("{percent:.0}/{}", visits_text(visits))
}

/// The best candidates with visits, at most ten.
fn best(a: &Analysis) -> impl Iterator<Item = &Candidate> {
    a.candidates.iter().filter(|c| c.visits > 0).take(10)
}

/// A GoGui analyze command's response from one search (types as listed in
/// [`GOGUI_ANALYZE_COMMANDS`]; ownership with Black positive, as `dboard` draws it).
pub fn gogui_show(what: super::command::GoguiShow, a: &Analysis, board: &Board) -> String {
    use super::command::GoguiShow;
    let size = board.size();
    match what {
        GoguiShow::Ownership => {
            let mut rows = Vec::with_capacity(size);
            for row in (0..size).rev() {
                let vals: Vec<String> = (0..size)
                    .map(|col| {
                        let p = Point::from_coord(col, row);
                        let v = a.ownership.get(p.index()).copied().unwrap_or(0.0);
                        format!("{:.2}", v.clamp(-1.0, 1.0))
                    })
                    .collect();
                rows.push(vals.join(" "));
            }
            rows.join("\n")
        }
        GoguiShow::BestMoves => best(a)
            .filter(|c| c.mv != Move::Pass)
            .map(|c| {
                format!(
                    "{} {}",
                    move_text(c.mv),
                    best_move_label(c.winrate, c.visits)
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
        GoguiShow::BestMovesGfx => {
            let labels: Vec<String> = best(a)
                .filter(|c| c.mv != Move::Pass)
                .map(|c| format!("{} {:.0}", move_text(c.mv), 100.0 * c.winrate))
                .collect();
            let mut out = Vec::new();
            if !labels.is_empty() {
                out.push(format!("LABEL {}", labels.join(" ")));
            }
            if let Some(top) = a.candidates.first() {
                let mut color = a.color;
                let var: Vec<String> = top
                    .pv
                    .iter()
                    .map(|&m| {
                        let s = format!(
                            "{} {}",
                            if color == Color::Black { "b" } else { "w" },
                            move_text(m)
                        );
                        color = color.opponent();
                        s
                    })
                    .collect();
                if !var.is_empty() {
                    out.push(format!("VAR {}", var.join(" ")));
                }
                // With a network each visit is one evaluation, and its score lead means
                // something: the lead for the side to move goes beside the win rate.
                let (lead, counted) = if a.net {
                    let sign = if a.color == Color::Black { 1.0 } else { -1.0 };
                    (
                        format!(", lead {:+.1}", sign * top.score_black),
                        "evaluations",
                    )
                } else {
                    (String::new(), "playouts")
                };
                out.push(format!(
                    "TEXT {} {:.1}% ({} visits){lead}, {} {counted}",
                    move_text(top.mv),
                    100.0 * top.winrate,
                    top.visits,
                    a.playouts
                ));
            }
            out.join("\n")
        }
        GoguiShow::Pv => a
            .candidates
            .first()
            .map(|c| {
                c.pv.iter()
                    .map(|&m| move_text(m))
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .unwrap_or_default(),
        GoguiShow::SearchStats => {
            let lead = if a.color == Color::Black {
                a.score_black
            } else {
                -a.score_black
            };
            let mut lines = vec![
                format!(
                    "{} to move: win rate {:.1}%, score lead {lead:+.1}",
                    if a.color == Color::Black {
                        "Black"
                    } else {
                        "White"
                    },
                    100.0 * a.winrate
                ),
                format!(
                    "{} playouts in {:.2} s ({:.0}/s), {} root visits, {} nodes",
                    a.playouts,
                    a.seconds,
                    a.playouts as f64 / a.seconds.max(1e-9),
                    a.root_visits,
                    a.tree_nodes
                ),
            ];
            for c in best(a).take(5) {
                lines.push(format!(
                    "{}: {:.1}% over {} visits, pv {}",
                    move_text(c.mv),
                    100.0 * c.winrate,
                    c.visits,
                    c.pv.iter()
                        .take(8)
                        .map(|&m| move_text(m))
                        .collect::<Vec<_>>()
                        .join(" ")
                ));
            }
            lines.join("\n")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// GoGui shows six characters of a label: `49%/28k` became `49%/28`, so the most
    /// visited move looked like the least. Every label fits, visits rounded down.
    #[test]
    fn best_move_labels_fit_in_six_characters() {
        assert_eq!(best_move_label(0.49, 28_400), "49/28k");
        assert_eq!(best_move_label(0.5, 812), "50/812");
        assert_eq!(best_move_label(1.0, 1_234), "99/1k");
        assert_eq!(best_move_label(0.0, 0), "0/0");
        assert_eq!(best_move_label(0.731, 350_000), "73/.3M");
        assert_eq!(best_move_label(0.731, 12_500_000), "73/12M");
        for wr in [0.0, 0.004, 0.5, 0.996, 1.0] {
            for v in [
                0,
                9,
                999,
                1_000,
                9_999,
                99_999,
                100_000,
                999_999,
                1_000_000,
                u32::MAX,
            ] {
                let label = best_move_label(wr, v);
                assert!(label.chars().count() <= 6, "{label}");
            }
        }
    }
}
