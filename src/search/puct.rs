//! The search with a network (AlphaZero and KataGo style): a leaf is evaluated by the
//! network instead of a playout; its children get the policy as priors; a descent follows
//! PUCT, `Q + c P sqrt(N) / (1 + n)`, where `Q` is the child's mean win probability plus a
//! small score utility, and a child not yet visited takes its parent's value less a
//! first-play-urgency reduction. Each evaluation sees the board in a random symmetry (from
//! the worker's seeded generator, so one thread and a fixed seed repeat the same moves).
//!
//! It shares everything else with the playout search: the descent from the root
//! (`descend`, with this search's selection and leaf claim), the arena, the lock-free
//! statistics, the visits counted on the way down (the virtual loss), tree reuse, the
//! memory bound, the limits and the stop signal, the analysis. A descent passes over a
//! leaf another thread is evaluating, which the virtual loss alone does not prevent
//! where the side to move is losing everywhere.
//!
//! The evaluations come through the seam of `leaf` (a [`LeafEvaluator`]: the network,
//! or the fake one of the tests); this file knows no network, no model and no cache.

use std::sync::atomic::Ordering::Relaxed;

use crate::board::{Color, Move};
use crate::game::Game;
use crate::nn::eval::Evaluation;
use crate::nn::features::Features;
use crate::playout::PlayoutRng;

use super::analysis::Analysis;
use super::descend::{descend, Descent};
use super::leaf::{LeafEvaluator, LeafRequest};
use super::shared::{NetRoot, Shared};
use super::simulator::{Outcome, Owner, Simulator};
use super::tree::{NewChild, NodeId, Tree, LEAD_UNIT, ROOT, SCORE_SQ_UNIT, VALUE_UNIT};

/// Fixed-point unit of the network's ownership in the search's ownership sums.
const OWNERSHIP_UNIT: i32 = 1024;

/// What one simulation's full ownership of a point adds to the ownership sums: 1 for
/// playouts (whole points), [`OWNERSHIP_UNIT`] for the network's fractional ownership.
pub(super) fn ownership_unit(with_net: bool) -> i32 {
    if with_net {
        OWNERSHIP_UNIT
    } else {
        1
    }
}

/// The PUCT search's constants (research knobs: the `puct-*` and `nn-batch` rows of
/// `cli::KNOBS`).
#[derive(Clone, Debug, PartialEq)]
pub struct PuctConfig {
    /// Exploration constant `c`, on win probabilities in [0, 1].
    pub cpuct: f64,
    /// How far `c` follows the spread of the parent's values: `c` is multiplied by
    /// `1 + k (sd / sd0 - 1)`, `sd` the parent's standard deviation (with the prior
    /// [`VALUE_STDEV_PRIOR`]) and `sd0` the prior's; 0 keeps `c` fixed. A settled position
    /// explores less, an open one more.
    pub cpuct_stdev_scale: f64,
    /// First-play urgency: an unvisited child's value is its parent's less this times
    /// the square root of the policy already visited (inside the tree, and at the root).
    pub fpu_reduction: f64,
    pub root_fpu_reduction: f64,
    /// Weight of the score utility `2/pi atan((lead - centre) / (0.75 size))` added to
    /// the win probability, the centre the network's lead at the root
    /// (`score_utility`), and of the same with the centre at 0 (`static_score_utility`).
    pub score_utility: f64,
    pub static_score_utility: f64,
    /// The move played: 0, the most visited; else, among the root moves with at least
    /// [`LCB_MIN_SHARE`] of the most visited one's visits, the one whose utility less
    /// this many standard errors is highest.
    pub lcb_stdevs: f64,
    /// KataGo's policy optimism (0 to 1): how far the policy of a position inside the
    /// tree, and of the root, moves towards the network's optimistic policy head (no
    /// effect on a network without one).
    pub optimism: f64,
    pub root_optimism: f64,
    /// Leaves a search thread gathers (each descent counting its visits on the way down)
    /// and has the network evaluate in one batch. 1 by default on every board and thread
    /// count: more evaluations a second (up to a fifth more on 9x9) do not pay for the
    /// wider search at the visits of a short move (STRENGTH.md, issue 44's screen).
    pub batch: usize,
}

/// The least share of the most visited move's visits a move needs to be chosen by its
/// lower confidence bound.
const LCB_MIN_SHARE: f64 = 0.15;

/// The prior on a move's win-probability spread (standard deviation, and its weight in
/// evaluations), so that a move with a few agreeing evaluations is not taken as certain.
const VALUE_STDEV_PRIOR: (f64, f64) = (0.2, 2.0);

impl Default for PuctConfig {
    fn default() -> PuctConfig {
        PuctConfig {
            cpuct: 0.6,
            cpuct_stdev_scale: 0.85,
            fpu_reduction: 0.1,
            root_fpu_reduction: 0.05,
            score_utility: 0.15,
            static_score_utility: 0.05,
            lcb_stdevs: 5.0,
            optimism: 1.0,
            root_optimism: 0.2,
            batch: 1,
        }
    }
}

/// One worker's network state: its evaluator, the generator of its symmetries, and the
/// leaves of its current batch.
pub(super) struct NetWorker<'m> {
    eval: Box<dyn LeafEvaluator + 'm>,
    rng: PlayoutRng,
    /// Leaves a batch holds at most ([`PuctConfig::batch`]).
    batch: usize,
    /// The batch's descents (kept from one batch to the next for their buffers).
    leaves: Vec<Leaf>,
}

/// One descent of a batch, waiting for its evaluation.
struct Leaf {
    /// The position at the leaf.
    game: Game,
    /// The nodes from the root to the leaf, each with the player who moved into it.
    path: Vec<(NodeId, Color)>,
    /// Whether this descent claimed the leaf and expands it.
    expand: bool,
    symmetry: usize,
}

/// What one simulation of a batch hands back: Black's lead at the leaf in half points
/// (for the score's spread), the root child it went through, and the leaf's ownership
/// for Black by point index, in 1/[`OWNERSHIP_UNIT`].
struct Backed {
    margin: i32,
    root_child: Option<NodeId>,
    owner: Vec<(usize, i32)>,
}

impl<'m> NetWorker<'m> {
    /// A worker evaluating batches of up to `batch` leaves, its symmetries drawn from
    /// `seed`.
    pub(super) fn new(net: &NetRoot<'m>, seed: u64, batch: usize) -> NetWorker<'m> {
        NetWorker {
            eval: net.source.evaluator(),
            rng: PlayoutRng::seed_from_u64(seed),
            batch: batch.max(1),
            leaves: Vec::new(),
        }
    }
}

impl Simulator for NetWorker<'_> {
    fn check_every(&self) -> u32 {
        1
    }

    fn batch(&self) -> usize {
        self.batch
    }

    /// `k` descents, their leaves evaluated in one call, each in a random symmetry.
    fn run(
        &mut self,
        shared: &Shared,
        k: usize,
        stop: &dyn Fn() -> bool,
        done: &mut dyn FnMut(Outcome<'_>),
    ) -> Option<()> {
        let net = shared.net.as_ref().expect("a network worker has a network");
        let symmetries: Vec<usize> = (0..k).map(|_| (self.rng.next_u64() % 8) as usize).collect();
        for b in simulate(shared, net, self, &symmetries, stop)? {
            done(Outcome {
                margin: b.margin,
                root_child: b.root_child,
                owner: Owner::Points(&b.owner),
            });
        }
        Some(())
    }
}

/// The children of a position from its evaluation: every legal point and the pass, with
/// their policy.
pub(super) fn children(game: &Game, e: &Evaluation, keep: &dyn Fn(Move) -> bool) -> Vec<NewChild> {
    let mut kids = Vec::with_capacity(e.size * e.size + 1);
    for p in game.board().points() {
        let i = Features::pos(e.size, p);
        if e.legal[i] && keep(Move::Place(p)) {
            kids.push(child(Move::Place(p), e.policy[i]));
        }
    }
    if keep(Move::Pass) {
        kids.push(child(Move::Pass, e.pass));
    }
    // Most likely first: a search that stops early has looked at the best first.
    kids.sort_by(|a, b| b.policy.total_cmp(&a.policy));
    kids
}

fn child(mv: Move, policy: f32) -> NewChild {
    NewChild {
        mv,
        prior_visits: 0,
        prior_wins: 0,
        policy,
    }
}

/// The network's evaluation of the root, in the first symmetry, with the root's policy
/// optimism.
fn root_evaluation(net: &NetRoot, cfg: &PuctConfig) -> Evaluation {
    let request = LeafRequest::new(net.game, net.rules, 0).optimism(cfg.root_optimism as f32);
    net.source
        .evaluator()
        .evaluate(&[request], &|| false)
        .and_then(|mut e| e.pop())
        .expect("an evaluation that is never stopped ends")
}

/// The root's evaluation ([`root_evaluation`]): its lead for Black, and its children.
pub(super) fn evaluate_root(
    net: &NetRoot,
    cfg: &PuctConfig,
    keep: &dyn Fn(Move) -> bool,
) -> (f64, Vec<NewChild>) {
    let e = root_evaluation(net, cfg);
    (-(e.white_lead as f64), children(net.game, &e, keep))
}

/// Gives the children of a root kept from an earlier search (their policy seen from
/// inside the tree) the root's policy.
pub(super) fn reprior_root(tree: &Tree, net: &NetRoot, cfg: &PuctConfig) {
    if cfg.root_optimism == cfg.optimism {
        return;
    }
    let e = root_evaluation(net, cfg);
    for c in tree.node(ROOT).children() {
        let n = tree.node(c);
        let policy = match n.mv() {
            Move::Pass => e.pass,
            Move::Place(p) => e.policy_at(p).unwrap_or(0.0),
        };
        n.policy.store(policy.to_bits(), Relaxed);
    }
}

/// A batch of `symmetries.len()` simulations: as many descents (each counting its visits
/// on the way down, so that the next one of the batch, like another thread's, passes over
/// the leaves in flight), one call to the evaluator for all the leaves (leaf `i` seen in
/// `symmetries[i]`), then each leaf's backup in order. `None`, and the tree as before the
/// descents, when `stop` answered true during the evaluation.
fn simulate(
    shared: &Shared,
    net: &NetRoot,
    nw: &mut NetWorker,
    symmetries: &[usize],
    stop: &dyn Fn() -> bool,
) -> Option<Vec<Backed>> {
    let tree = shared.tree;
    let cfg = &shared.config.puct;
    let k = symmetries.len();
    if nw.leaves.len() < k {
        nw.leaves.resize_with(k, || Leaf {
            game: net.game.clone(),
            path: Vec::with_capacity(64),
            expand: false,
            symmetry: 0,
        });
    }
    for (leaf, &symmetry) in nw.leaves[..k].iter_mut().zip(symmetries) {
        descend_into(shared, net, leaf);
        leaf.symmetry = symmetry;
    }
    let requests: Vec<LeafRequest> = nw.leaves[..k]
        .iter()
        .map(|leaf| {
            LeafRequest::new(&leaf.game, net.rules, leaf.symmetry).optimism(cfg.optimism as f32)
        })
        .collect();
    let Some(evals) = nw.eval.evaluate(&requests, stop) else {
        for leaf in nw.leaves[..k].iter().rev() {
            for &(id, _) in &leaf.path {
                tree.node(id).visits.fetch_sub(1, Relaxed);
            }
            if leaf.expand {
                tree.abandon(leaf.path.last().expect("a path holds the root").0);
            }
        }
        return None;
    };
    Some(
        nw.leaves[..k]
            .iter()
            .zip(&evals)
            .map(|(leaf, e)| back_up(shared, leaf, e))
            .collect(),
    )
}

/// A PUCT descent into a leaf of the batch: its game, and whether it claimed its last
/// node for expansion.
struct NetDescent<'l, 'n> {
    net: &'l NetRoot<'n>,
    game: &'l mut Game,
    expand: &'l mut bool,
}

impl Descent for NetDescent<'_, '_> {
    fn select(&mut self, shared: &Shared, node: NodeId, color: Color) -> Option<NodeId> {
        select(
            shared.tree,
            node,
            &shared.config.puct,
            node == ROOT,
            color,
            self.net.centre,
            self.net.game.size(),
        )
    }

    fn play(&mut self, color: Color, mv: Move) -> bool {
        self.game.play_record(color, mv).is_ok()
    }

    /// Claims the leaf for expansion when the tree has room (it is expanded with the
    /// policy once evaluated); the descent stops there.
    fn unexpanded(&mut self, shared: &Shared, node: NodeId, _visits: u32, _color: Color) -> bool {
        let tree = shared.tree;
        *self.expand = !tree.is_full() && tree.try_claim(node);
        false
    }
}

/// One descent from the root by the selection formula, into `leaf`: the visits counted
/// on the way down, the leaf claimed for expansion when it is new and the tree has room.
/// A game ended in the tree stops it too: the network, shown the two passes, values it.
fn descend_into(shared: &Shared, net: &NetRoot, leaf: &mut Leaf) {
    leaf.game.clone_from(net.game);
    leaf.expand = false;
    let mut d = NetDescent {
        net,
        game: &mut leaf.game,
        expand: &mut leaf.expand,
    };
    descend(shared, &mut d, &mut leaf.path);
}

/// The backup of one leaf's evaluation `e`: the leaf expanded if the descent claimed it,
/// the value, lead and spread added to every node of the path.
fn back_up(shared: &Shared, leaf: &Leaf, e: &Evaluation) -> Backed {
    let tree = shared.tree;
    let path = &leaf.path;
    let node = path.last().expect("a path holds the root").0;
    if leaf.expand {
        tree.expand(node, &children(&leaf.game, e, &|_| true));
    }
    let mean = e.white_score_mean as f64;
    let white = e.white_win as f64 + 0.5 * e.no_result as f64;
    let lead = -(e.white_lead as f64);
    let variance = (e.white_score_mean_sq as f64 - mean * mean).max(0.0);
    let lead_fixed = (lead * LEAD_UNIT).round() as i64;
    let sq_fixed = ((variance + lead * lead) * SCORE_SQ_UNIT).round() as u64;
    for &(id, mover) in path.iter() {
        let v = if mover == Color::White {
            white
        } else {
            1.0 - white
        };
        let n = tree.node(id);
        let v = v.clamp(0.0, 1.0);
        n.value_sum
            .fetch_add((v * VALUE_UNIT).round() as u64, Relaxed);
        n.value_sq_sum
            .fetch_add((v * v * VALUE_UNIT).round() as u64, Relaxed);
        n.lead_sum.fetch_add(lead_fixed, Relaxed);
        n.score_sq_sum.fetch_add(sq_fixed, Relaxed);
        n.evals.fetch_add(1, Relaxed);
    }
    let size = e.size;
    let owner = leaf
        .game
        .board()
        .points()
        .map(|p| {
            let own = -e.white_ownership[Features::pos(size, p)];
            (p.index(), (own * OWNERSHIP_UNIT as f32).round() as i32)
        })
        .collect();
    Backed {
        margin: (lead * 2.0).round() as i32,
        root_child: path.get(1).map(|&(id, _)| id),
        owner,
    }
}

/// `2/pi atan(x)`: a score's utility, in (-1, 1).
fn score_shape(x: f64) -> f64 {
    std::f64::consts::FRAC_2_PI * x.atan()
}

/// The score utility for the player `sign` (1 Black, -1 White) of Black's lead
/// `lead_black`, around the root's `centre` and around 0, on a board of `size`.
fn utility(cfg: &PuctConfig, sign: f64, centre: f64, size: usize, lead_black: f64) -> f64 {
    let scale = 0.75 * size as f64;
    let lead = sign * lead_black;
    cfg.score_utility * score_shape((lead - sign * centre) / scale)
        + cfg.static_score_utility * score_shape(lead / scale)
}

/// The standard deviation of `n` values measured as `sd`, with [`VALUE_STDEV_PRIOR`].
fn stdev_with_prior(n: f64, sd: f64) -> f64 {
    let (prior_sd, prior_n) = VALUE_STDEV_PRIOR;
    ((n * sd * sd + prior_n * prior_sd * prior_sd) / (n + prior_n)).sqrt()
}

/// Sets every candidate's lower confidence bound on its win rate (`cfg.lcb_stdevs`
/// standard errors), and moves the candidate chosen by the lower confidence bound of its
/// utility (if `cfg.lcb_stdevs` > 0) to the front of `a.candidates`, the rest staying by
/// visits.
pub(super) fn choose_by_lcb(a: &mut Analysis, cfg: &PuctConfig, centre: f64, size: usize) {
    for c in a.candidates.iter_mut().filter(|c| c.visits > 0) {
        let n = c.visits as f64;
        c.lcb = c.winrate - cfg.lcb_stdevs * stdev_with_prior(n, c.value_stdev) / n.sqrt();
    }
    let Some(most) = a.candidates.first().map(|c| c.visits) else {
        return;
    };
    if cfg.lcb_stdevs <= 0.0 || most == 0 {
        return;
    }
    let sign = if a.color == Color::Black { 1.0 } else { -1.0 };
    let least = (LCB_MIN_SHARE * most as f64).max(1.0);
    let best = a
        .candidates
        .iter()
        .enumerate()
        .filter(|(_, c)| c.visits as f64 >= least)
        .map(|(i, c)| (i, c.lcb + utility(cfg, sign, centre, size, c.score_black)))
        .max_by(|x, y| x.1.total_cmp(&y.1).then(y.0.cmp(&x.0)));
    if let Some((i, _)) = best {
        let chosen = a.candidates.remove(i);
        a.candidates.insert(0, chosen);
    }
}

/// The child of `id` PUCT prefers for `to_move`, skipping pruned ones.
fn select(
    tree: &Tree,
    id: NodeId,
    cfg: &PuctConfig,
    root: bool,
    to_move: Color,
    centre: f64,
    size: usize,
) -> Option<NodeId> {
    let parent = tree.node(id).stats();
    let sign = if to_move == Color::Black { 1.0 } else { -1.0 };
    let utility = |lead_black: f64| utility(cfg, sign, centre, size, lead_black);
    let mut visited_policy = 0.0f64;
    let mut total = 0u64;
    for c in tree.node(id).children() {
        let n = tree.node(c);
        let v = n.visits.load(Relaxed);
        if v > 0 && !n.is_pruned() {
            visited_policy += f32::from_bits(n.policy.load(Relaxed)) as f64;
            total += v as u64;
        }
    }
    // The parent's value for the player to move there (its own statistics are its
    // mover's, the opponent's).
    let parent_q = if parent.visits > 1 {
        1.0 - parent.value() + utility(parent.lead())
    } else {
        0.5
    };
    let reduction = if root {
        cfg.root_fpu_reduction
    } else {
        cfg.fpu_reduction
    };
    let fpu = parent_q - reduction * visited_policy.sqrt();
    let mut c = cfg.cpuct;
    if cfg.cpuct_stdev_scale > 0.0 {
        let prior_sd = VALUE_STDEV_PRIOR.0;
        let sd = stdev_with_prior(parent.visits as f64, parent.value_stdev());
        c *= (1.0 + cfg.cpuct_stdev_scale * (sd / prior_sd - 1.0)).max(0.05);
    }
    let explore = c * (total.max(1) as f64).sqrt();
    // A child whose leaf another thread is evaluating is passed over while there is
    // another: reaching it would evaluate the same position twice.
    let mut best = (None, f64::NEG_INFINITY);
    let mut busy = (None, f64::NEG_INFINITY);
    for c in tree.node(id).children() {
        let n = tree.node(c);
        if n.is_pruned() {
            continue;
        }
        let s = n.stats();
        let q = if s.visits > 0 {
            s.value() + utility(s.lead())
        } else {
            fpu
        };
        let value = q + explore * s.policy as f64 / (1.0 + s.visits as f64);
        let slot = if n.is_expanding() {
            &mut busy
        } else {
            &mut best
        };
        if value > slot.1 {
            *slot = (Some(c), value);
        }
    }
    best.0.or(busy.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::analysis::Candidate;

    fn candidate(mv: u16, visits: u32, winrate: f64, value_stdev: f64) -> Candidate {
        Candidate {
            mv: Move::Place(crate::board::Point(mv)),
            visits,
            winrate,
            prior: 0.1,
            prior_visits: 0,
            prior_wins: 0,
            amaf_visits: 0,
            amaf_winrate: 0.5,
            score_black: 1.0,
            score_stdev: 3.0,
            value_stdev,
            lcb: 0.0,
            ownership: Vec::new(),
            pv: Vec::new(),
            pv_visits: Vec::new(),
        }
    }

    fn order(lcb_stdevs: f64, candidates: Vec<Candidate>) -> Vec<Move> {
        chosen(lcb_stdevs, candidates)
            .iter()
            .map(|c| c.mv)
            .collect()
    }

    fn chosen(lcb_stdevs: f64, candidates: Vec<Candidate>) -> Vec<Candidate> {
        let mut a = Analysis {
            color: Color::Black,
            candidates,
            root_visits: 200,
            winrate: 0.6,
            score_black: 1.0,
            score_stdev: 3.0,
            playouts: 200,
            seconds: 1.0,
            tree_nodes: 1000,
            ownership: Vec::new(),
            owned: Vec::new(),
            net: true,
        };
        let cfg = PuctConfig {
            lcb_stdevs,
            ..PuctConfig::default()
        };
        choose_by_lcb(&mut a, &cfg, 0.0, 9);
        a.candidates
    }

    #[test]
    fn each_candidate_shows_the_bound_the_choice_uses() {
        // 100 values spread 0.2 (as the prior): 0.6 less 5 standard errors of 0.02.
        let c = chosen(
            5.0,
            vec![candidate(11, 100, 0.6, 0.2), candidate(12, 0, 0.5, 0.0)],
        );
        assert!((c[0].lcb - 0.5).abs() < 1e-9, "{}", c[0].lcb);
        assert_eq!(c[1].lcb, 0.0);
        // Below 0 when the win rate is low and the visits few, as KataGo's.
        let c = chosen(5.0, vec![candidate(11, 4, 0.1, 0.2)]);
        assert!((c[0].lcb - (0.1 - 0.5)).abs() < 1e-9, "{}", c[0].lcb);
    }

    #[test]
    fn the_lower_confidence_bound_picks_among_well_visited_moves() {
        let p = |i| Move::Place(crate::board::Point(i));
        let moves = || {
            vec![
                candidate(11, 100, 0.60, 0.05),
                candidate(12, 40, 0.70, 0.05),
                candidate(13, 10, 0.95, 0.01),
            ]
        };
        // By visits when off.
        assert_eq!(order(0.0, moves()), vec![p(11), p(12), p(13)]);
        // 40 visits at 0.70 are surely better than 100 at 0.60; 10 visits (under 15% of
        // the most visited) are too few to choose however good they look.
        assert_eq!(order(5.0, moves()), vec![p(12), p(11), p(13)]);
        // A spread so wide that 40 visits cannot tell: the most visited stays.
        let wide = vec![
            candidate(11, 100, 0.60, 0.05),
            candidate(12, 40, 0.70, 0.45),
        ];
        assert_eq!(order(5.0, wide), vec![p(11), p(12)]);
    }

    #[test]
    fn a_leaf_another_thread_is_evaluating_is_passed_over_while_there_is_another() {
        let p = |i| Move::Place(crate::board::Point(i));
        let tree = Tree::new(100);
        assert!(tree.try_claim(ROOT));
        let kids = [(p(11), 0.7), (p(12), 0.2), (p(13), 0.1)].map(|(mv, policy)| NewChild {
            mv,
            prior_visits: 0,
            prior_wins: 0,
            policy,
        });
        assert!(tree.expand(ROOT, &kids));
        let cfg = PuctConfig::default();
        let pick =
            || select(&tree, ROOT, &cfg, true, Color::Black, 0.0, 9).map(|c| tree.node(c).mv());
        assert_eq!(pick(), Some(p(11)));
        // Another thread claims the most likely move's leaf: the next one is taken.
        let first = tree.child_by_move(ROOT, p(11)).unwrap();
        assert!(tree.try_claim(first));
        assert_eq!(pick(), Some(p(12)));
        // Nothing else left: the busy one rather than none.
        tree.node(tree.child_by_move(ROOT, p(12)).unwrap()).prune();
        tree.node(tree.child_by_move(ROOT, p(13)).unwrap()).prune();
        assert_eq!(pick(), Some(p(11)));
        tree.abandon(first);
        assert!(!tree.node(first).is_expanding());
    }

    #[test]
    fn score_shape_is_odd_and_bounded() {
        assert_eq!(score_shape(0.0), 0.0);
        assert!((score_shape(1e9) - 1.0).abs() < 1e-6);
        assert!((score_shape(-3.0) + score_shape(3.0)).abs() < 1e-12);
    }
}
