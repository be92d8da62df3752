//! What a search found: the root's candidates with their statistics and variations, the
//! win rate, score and ownership. One value that `genmove`, the analysis commands, the
//! dead-stone judgement and the review tool each only format.

use std::sync::atomic::Ordering::Relaxed;

use crate::board::{Color, Move};

use super::tree::{NodeId, Tree, ROOT};

/// One candidate move of the root.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub mv: Move,
    pub visits: u32,
    /// Win rate for the player to move at the root, in [0, 1].
    pub winrate: f64,
    /// The prior's win rate (with a network, the policy), and its weight (equivalent
    /// visits) and virtual wins (half points).
    pub prior: f64,
    pub prior_visits: u32,
    pub prior_wins: u32,
    pub amaf_visits: u32,
    pub amaf_winrate: f64,
    /// Mean final score, Black minus White with komi, from the playouts through it (with
    /// a network, its lead), and with a network the score's standard deviation under the
    /// move (else 0: the playouts' spread is the search's, [`Analysis::score_stdev`]).
    pub score_black: f64,
    pub score_stdev: f64,
    /// With a network, the standard deviation of its win probabilities under the move
    /// (for the lower confidence bound); else 0.
    pub value_stdev: f64,
    /// A lower confidence bound of `winrate`: with a network, the move choice's (the win
    /// rate less `PuctConfig::lcb_stdevs` standard errors, which may fall below 0, as
    /// KataGo's); else the 95% normal bound of a binomial. 0 for an unvisited move.
    pub lcb: f64,
    /// Black's mean final ownership of every point (by point index) over this search's
    /// simulations through the move; filled only for live analysis that asks for it
    /// (`movesOwnership`), else empty.
    pub ownership: Vec<f32>,
    /// Principal variation, this move first, and the visits of each of its nodes.
    pub pv: Vec<Move>,
    pub pv_visits: Vec<u32>,
}

/// What a search found.
#[derive(Clone, Debug, PartialEq)]
pub struct Analysis {
    pub color: Color,
    /// Root children, most visited first.
    pub candidates: Vec<Candidate>,
    /// Visits of the root (all playouts in the tree, reused ones included).
    pub root_visits: u32,
    /// Win rate of the player to move at the root.
    pub winrate: f64,
    /// Mean final score, Black minus White with komi, and its standard deviation over
    /// this search's own simulations (0 without any; with a network, the root's over
    /// the tree, each evaluation's own spread included).
    pub score_black: f64,
    pub score_stdev: f64,
    /// Playouts run by this search, and the time taken.
    pub playouts: u64,
    pub seconds: f64,
    pub tree_nodes: usize,
    /// Final ownership of every point over this search's own simulations, indexed by
    /// point index: +1 always Black's area, -1 always White's, 0 neither or evenly split.
    /// A simulation that ends by two passes in the tree counts the board as it stands
    /// (area, every stone alive). All zeros when the search ran no simulation.
    pub ownership: Vec<f32>,
    /// How often each point ended up anybody's area (the mean of the ownership's
    /// square), for its standard deviation; filled by live analysis only (else empty).
    pub owned: Vec<f32>,
    /// Whether the values are a network's (PUCT): then [`Candidate::prior`] is the policy.
    pub net: bool,
}

impl Analysis {
    /// The move to play: the first candidate, the most visited unless a lower confidence
    /// bound chose another (pass if there is none).
    pub fn best(&self) -> Move {
        self.candidates.first().map_or(Move::Pass, |c| c.mv)
    }

    /// Each candidate's prior as a share of the root's: a network's policy, or the
    /// playout search's share of the prior wins.
    pub fn prior_share(&self) -> impl Fn(&Candidate) -> f64 + '_ {
        let total = self
            .candidates
            .iter()
            .map(|c| f64::from(c.prior_wins))
            .sum::<f64>()
            .max(1.0);
        move |c| {
            if self.net {
                c.prior
            } else {
                f64::from(c.prior_wins) / total
            }
        }
    }
}

/// The analysis of the tree as it stands; `net`: its values are the network's.
pub(super) fn analyse(
    tree: &Tree,
    color: Color,
    playouts: u64,
    seconds: f64,
    net: bool,
) -> Analysis {
    let root = tree.node(ROOT).stats();
    let mut candidates: Vec<Candidate> = tree
        .node(ROOT)
        .children()
        .filter(|&c| !tree.node(c).is_pruned())
        .map(|c| {
            let n = tree.node(c);
            let s = n.stats();
            let mut pv = vec![n.mv()];
            let mut pv_visits = vec![s.visits];
            let mut at = c;
            while let Some(next) = most_visited(tree, at) {
                pv.push(tree.node(next).mv());
                pv_visits.push(tree.node(next).visits.load(Relaxed));
                at = next;
                if pv.len() >= 40 {
                    break;
                }
            }
            Candidate {
                mv: n.mv(),
                visits: s.visits,
                winrate: if net {
                    s.value()
                } else {
                    ratio(s.wins, s.visits)
                },
                prior: if net {
                    s.policy as f64
                } else {
                    ratio(s.prior_wins, s.prior_visits)
                },
                prior_visits: s.prior_visits,
                prior_wins: s.prior_wins,
                amaf_visits: s.amaf_visits,
                amaf_winrate: ratio(s.amaf_wins, s.amaf_visits),
                score_black: if net {
                    s.lead()
                } else {
                    s.score_sum as f64 / 2.0 / s.visits.max(1) as f64
                },
                score_stdev: if net { s.score_stdev() } else { 0.0 },
                value_stdev: if net { s.value_stdev() } else { 0.0 },
                lcb: binomial_lcb(ratio(s.wins, s.visits), s.visits),
                ownership: Vec::new(),
                pv,
                pv_visits,
            }
        })
        .collect();
    candidates.sort_by(|a, b| {
        b.visits.cmp(&a.visits).then(
            b.winrate
                .partial_cmp(&a.winrate)
                .unwrap_or(std::cmp::Ordering::Equal),
        )
    });
    let winrate = match candidates.first() {
        Some(c) if c.visits > 0 => c.winrate,
        _ if net => 1.0 - root.value(),
        _ => 1.0 - ratio(root.wins, root.visits),
    };
    Analysis {
        color,
        candidates,
        root_visits: root.visits,
        winrate,
        score_black: if net {
            root.lead()
        } else {
            root.score_sum as f64 / 2.0 / root.visits.max(1) as f64
        },
        playouts,
        seconds,
        tree_nodes: tree.len(),
        ownership: Vec::new(),
        owned: Vec::new(),
        score_stdev: if net { root.score_stdev() } else { 0.0 },
        net,
    }
}

fn most_visited(tree: &Tree, id: NodeId) -> Option<NodeId> {
    tree.node(id)
        .children()
        .filter(|&c| tree.node(c).visits.load(Relaxed) > 0)
        .max_by_key(|&c| tree.node(c).visits.load(Relaxed))
}

/// The 95% lower confidence bound of a win rate from `n` visits (normal approximation).
fn binomial_lcb(winrate: f64, n: u32) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let sd = (winrate * (1.0 - winrate) / n as f64).sqrt();
    (winrate - 1.96 * sd).clamp(0.0, 1.0)
}

/// Half-point wins over visits, 0.5 for no visits.
fn ratio(wins: u32, visits: u32) -> f64 {
    if visits == 0 {
        0.5
    } else {
        wins as f64 / (2.0 * visits as f64)
    }
}
