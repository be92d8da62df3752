//! A fake network, for tests: a deterministic [`EvaluatorSource`] that answers from a few
//! cheap rules about the position, so that the PUCT search (its selection, backup, move
//! choice, tree reuse, passes, stops and analysis) can be tested on any machine, without
//! a network file. Not for play: it sees one move ahead at most (captures, saves, chains
//! in atari). It ignores the history (passes included), the search's cache and the rules
//! but for which points are legal; it checks the stop before each evaluation, and every
//! millisecond of a delay when it is given one (a slow network); it counts its
//! evaluations.
//!
//! The rules ([`FakeNet::evaluate`]):
//!
//! - Ownership: every stone owns its point, but for dead ones, which own it for the
//!   opponent: a chain in atari with the opponent to move, and stones in the area of the
//!   opponent's pass-alive chains (Benson's, `board::benson::pass_alive`; a seki is
//!   never that). An empty region that reaches one colour's stones only (the dead ones
//!   taken off) is that colour's; elsewhere a point goes the way of the stones'
//!   influence, `tanh(influence / 8)`, the influence of a stone 8, 4, 2 and 1 at
//!   distance 0 to 3 (Black's positive).
//! - Score: Black's lead is the ownership summed less the komi; its spread 1 plus the
//!   square root of how unsettled the points are (`1 - own^2` summed); the mean score
//!   is the lead.
//! - Value: Black wins with probability `0.5 + 0.5 tanh(lead / spread)`: a lead counts
//!   for more on a settled board. Never a result other than a win or a loss.
//! - Policy, over the legal points (as the network's, `nn::eval::legal_points`) and the
//!   pass: a weight of 1 (0.2 on the first line, 0.6 on the second, 1.5 on the third,
//!   1.3 on the fourth), 20 times for a capture, 10 times for a move that gives an own
//!   chain in atari two liberties or more, a twentieth for a self-atari that captures
//!   nothing, a hundredth in an own eye; times up to 1.05 by a hash of the symmetry and
//!   the point (a network's outputs differ a little between symmetries); raised to the
//!   power `1 + optimism` (policy optimism sharpens it, as an optimistic head would
//!   differ). The pass weighs the moves' sum times `0.02 + settled^2`, `settled` the
//!   share of points whose ownership is certain: rarely early, about half the policy
//!   once every point is settled. `FakeNet::uniform_policy` gives every legal point
//!   and the pass the same weight instead.
//! - The short-term error heads: `sqrt(p (1 - p))` of the win probability and half the
//!   score spread; no time-left output (-1).
//!
//! Knows the board, the game, the area count and the evaluation's layout; the search
//! only through the seam it implements.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::{Duration, Instant};

use crate::board::benson::pass_alive;
use crate::board::{Board, Cell, Color, Point, NUM_CELLS};
use crate::game::Game;
use crate::nn::eval::{legal_points, mean};
use crate::nn::features::{Features, InputRules};
use crate::nn::{Evaluation, Symmetry};
use crate::score::regions;

use super::leaf::{EvaluatorSource, LeafEvaluator, LeafRequest};

/// The fake network (see the module's rules). For tests: give it to a search with
/// [`crate::search::Search::set_evaluator`].
#[derive(Debug, Default)]
pub struct FakeNet {
    uniform: bool,
    delay: Duration,
    evaluations: AtomicU64,
}

impl FakeNet {
    pub fn new() -> FakeNet {
        FakeNet::default()
    }

    /// The same, but for the policy: uniform over the legal points and the pass, so
    /// that only the values guide the search.
    pub fn uniform_policy(mut self) -> FakeNet {
        self.uniform = true;
        self
    }

    /// The same, each evaluation taking `delay` (a slow network), the stop checked
    /// every millisecond meanwhile.
    pub fn with_delay(mut self, delay: Duration) -> FakeNet {
        self.delay = delay;
        self
    }

    /// The evaluations it has finished (stopped ones not counted).
    pub fn evaluations(&self) -> u64 {
        self.evaluations.load(Relaxed)
    }

    /// The evaluation of `game`'s position for its player to move under `rules`, seen in
    /// `symmetry` with policy `optimism`, by the module's rules.
    pub fn evaluate(
        &self,
        game: &Game,
        rules: InputRules,
        symmetry: usize,
        optimism: f32,
    ) -> Evaluation {
        let board = game.board();
        let size = board.size();
        let pla = game.to_move();
        let own = black_ownership(board, pla);
        let mut lead = -game.total_komi();
        let mut unsettled = 0.0;
        let mut settled = 0usize;
        let mut white_ownership = vec![0.0f32; size * size];
        for p in board.points() {
            let o = own[p.index()] as f64;
            lead += o;
            unsettled += 1.0 - o * o;
            settled += (o.abs() >= 0.999) as usize;
            white_ownership[Features::pos(size, p)] = -own[p.index()];
        }
        let stdev = 1.0 + unsettled.sqrt();
        let black_win = 0.5 + 0.5 * (lead / stdev).tanh();
        let legal = legal_points(game, rules);
        let settled = settled as f64 / (size * size) as f64;
        let (policy, pass) = self.policy(board, pla, &legal, settled, symmetry, optimism);
        let white_lead = -lead as f32;
        Evaluation {
            size,
            policy,
            legal,
            pass,
            white_win: (1.0 - black_win) as f32,
            white_loss: black_win as f32,
            no_result: 0.0,
            white_score_mean: white_lead,
            white_score_mean_sq: (lead * lead + stdev * stdev) as f32,
            white_lead,
            var_time_left: -1.0,
            shortterm_winloss_error: (black_win * (1.0 - black_win)).sqrt() as f32,
            shortterm_score_error: (0.5 * stdev) as f32,
            white_ownership,
        }
    }

    /// The policy by point (laid out as `legal`) and the pass's.
    fn policy(
        &self,
        board: &Board,
        pla: Color,
        legal: &[bool],
        settled: f64,
        symmetry: usize,
        optimism: f32,
    ) -> (Vec<f32>, f32) {
        let size = board.size();
        let mut weights = vec![0.0f64; size * size];
        for p in board.points() {
            let i = Features::pos(size, p);
            if legal[i] {
                weights[i] = if self.uniform {
                    1.0
                } else {
                    let w = move_weight(board, pla, p) * (1.0 + 0.05 * jitter(symmetry, i));
                    w.powf(1.0 + optimism.clamp(0.0, 1.0) as f64)
                };
            }
        }
        let moves: f64 = weights.iter().sum();
        let pass = if self.uniform || moves == 0.0 {
            1.0
        } else {
            moves * (0.02 + settled * settled)
        };
        let total = moves + pass;
        let policy = weights.iter().map(|&w| (w / total) as f32).collect();
        (policy, (pass / total) as f32)
    }
}

impl EvaluatorSource for FakeNet {
    fn name(&self) -> &str {
        if self.uniform {
            "fake-uniform"
        } else {
            "fake"
        }
    }

    fn evaluator(&self) -> Box<dyn LeafEvaluator + '_> {
        Box::new(FakeEvaluator(self))
    }
}

/// One thread's evaluator: the fake network itself, which keeps no scratch.
struct FakeEvaluator<'a>(&'a FakeNet);

impl LeafEvaluator for FakeEvaluator<'_> {
    /// Each request in turn, after the fake's delay; a mean is the eight symmetries'
    /// evaluations averaged.
    fn evaluate(
        &mut self,
        requests: &[LeafRequest],
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Evaluation>> {
        let net = self.0;
        let mut answers = Vec::with_capacity(requests.len());
        for r in requests {
            if stop() {
                return None;
            }
            if !net.delay.is_zero() {
                let end = Instant::now() + net.delay;
                loop {
                    let now = Instant::now();
                    if now >= end {
                        break;
                    }
                    std::thread::sleep((end - now).min(Duration::from_millis(1)));
                    if stop() {
                        return None;
                    }
                }
            }
            let e = match r.symmetry {
                Symmetry::One(s) => net.evaluate(r.game, r.rules, s, r.optimism),
                Symmetry::Mean => {
                    let all: Vec<Evaluation> = (0..8)
                        .map(|s| net.evaluate(r.game, r.rules, s, r.optimism))
                        .collect();
                    mean(&all)
                }
            };
            net.evaluations.fetch_add(1, Relaxed);
            answers.push(e);
        }
        Some(answers)
    }
}

/// A legal move's weight in the shaped policy, before the symmetry's jitter.
fn move_weight(board: &Board, pla: Color, p: Point) -> f64 {
    let (col, row) = p.coord();
    let n = board.size();
    let line = col.min(row).min(n - 1 - col).min(n - 1 - row);
    let mut w = match line {
        0 => 0.2,
        1 => 0.6,
        2 => 1.5,
        3 => 1.3,
        _ => 1.0,
    };
    let own = Cell::from(pla);
    if board.captures_any(pla, p) {
        w *= 20.0;
    } else if board.self_atari(pla, p).is_some() {
        w /= 20.0;
    }
    let saves = p
        .neighbors()
        .iter()
        .any(|&q| board.cell(q) == own && board.in_atari(q));
    if saves && board.liberties_after(pla, p, 2) >= 2 {
        w *= 10.0;
    }
    if board.is_eye(pla, p) {
        w /= 100.0;
    }
    w
}

/// A number in [0, 1) from the symmetry and the point's place.
fn jitter(symmetry: usize, i: usize) -> f64 {
    let mut h = (symmetry as u64 + 1)
        .wrapping_mul(0x9e37_79b9_7f4a_7c15)
        .wrapping_add(i as u64);
    h ^= h >> 31;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^= h >> 29;
    (h >> 11) as f64 / (1u64 << 53) as f64
}

/// The stones' influence on every point (by point index): the weights 8, 4, 2 and 1 of
/// the stones at distance 0 to 3, Black's positive.
fn influence(board: &Board) -> Vec<f32> {
    let n = board.size() as i32;
    let mut infl = vec![0.0f32; NUM_CELLS];
    for s in board.points() {
        let sign = match board.get(s) {
            Some(Color::Black) => 1.0,
            Some(Color::White) => -1.0,
            None => continue,
        };
        let (c, r) = s.coord();
        let (c, r) = (c as i32, r as i32);
        for dr in -3i32..=3 {
            for dc in -3 + dr.abs()..=3 - dr.abs() {
                let (x, y) = (c + dc, r + dr);
                if x < 0 || y < 0 || x >= n || y >= n {
                    continue;
                }
                let d = dr.abs() + dc.abs();
                let p = Point::from_coord(x as usize, y as usize);
                infl[p.index()] += sign * (8 >> d) as f32;
            }
        }
    }
    infl
}

/// Black's ownership of every point (by point index) with `pla` to move, by the
/// module's rules.
fn black_ownership(board: &Board, pla: Color) -> Vec<f32> {
    let infl = influence(board);
    let certain = pass_alive(board, false);
    let dead: Vec<Point> = board
        .points()
        .filter(|&p| match board.get(p) {
            Some(c) => certain[p.index()] == Some(c.opponent()) || (c != pla && board.in_atari(p)),
            None => false,
        })
        .collect();
    let (reach, _) = regions(board, &dead);
    let mut is_dead = vec![false; NUM_CELLS];
    for p in &dead {
        is_dead[p.index()] = true;
    }
    let mut own = vec![0.0f32; NUM_CELLS];
    for p in board.points() {
        let i = p.index();
        own[i] = match (board.get(p), reach[i]) {
            (Some(c), _) if !is_dead[i] => sign(c),
            (_, 1) => 1.0,
            (_, 2) => -1.0,
            (Some(c), _) => -sign(c),
            (None, _) => (infl[i] / 8.0).tanh(),
        };
    }
    own
}

fn sign(c: Color) -> f32 {
    match c {
        Color::Black => 1.0,
        Color::White => -1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn game(rows: &[&str], to_move: Color) -> Game {
        let rows: Vec<String> = rows.iter().map(|r| r.replace(' ', "")).collect();
        let rows: Vec<&str> = rows.iter().map(|r| r.as_str()).collect();
        let board = Board::from_rows(&rows).unwrap();
        let mut g = Game::new(board.size(), Rules::chinese()).unwrap();
        g.set_komi(0.5);
        let stones: Vec<(Color, Point)> = board
            .points()
            .filter_map(|p| board.get(p).map(|c| (c, p)))
            .collect();
        g.set_position(&stones, to_move);
        g
    }

    fn eval(g: &Game, symmetry: usize, optimism: f32) -> Evaluation {
        FakeNet::new().evaluate(g, InputRules::from_rules(g.rules()), symmetry, optimism)
    }

    #[test]
    fn an_empty_board_is_even_but_for_komi_and_the_policy_sums_to_one() {
        let g = Game::new(9, Rules::chinese()).unwrap();
        let e = eval(&g, 0, 0.0);
        let sum: f32 = e.policy.iter().sum::<f32>() + e.pass;
        assert!((sum - 1.0).abs() < 1e-5, "{sum}");
        assert!(e.pass < 0.05, "{}", e.pass);
        // White's komi: a small lead for White, a win rate a little over a half.
        assert!(
            e.white_lead > 0.0 && e.white_lead < 10.0,
            "{}",
            e.white_lead
        );
        assert!(e.white_win > 0.5 && e.white_win < 0.95, "{}", e.white_win);
        assert_eq!(e.white_win + e.white_loss + e.no_result, 1.0);
        // The third line over the first.
        let at = |c, r| e.policy[Features::pos(9, Point::from_coord(c, r))];
        assert!(at(2, 2) > at(0, 0) * 5.0);
        // The same answer twice; another symmetry moves the policy a little.
        assert_eq!(e, eval(&g, 0, 0.0));
        let other = eval(&g, 3, 0.0);
        assert_ne!(e.policy, other.policy);
        assert_eq!(e.white_win, other.white_win);
        // Optimism sharpens the policy.
        let sharp = eval(&g, 0, 1.0);
        assert!(sharp.policy.iter().cloned().fold(0.0, f32::max) > at(2, 2));
    }

    #[test]
    fn a_capture_is_likely_and_a_chain_in_atari_counts_for_the_side_to_move() {
        let rows = [
            ". . X . .",
            ". X O . .",
            ". X O X .",
            ". . X . .",
            ". . . . .",
        ];
        // The two white stones have one liberty, D4 (the top row is 5).
        let black = game(&rows, Color::Black);
        let e = eval(&black, 0, 0.0);
        let d4 = Point::from_coord(3, 3);
        let best = (0..25).max_by(|&a, &b| e.policy[a].total_cmp(&e.policy[b]));
        assert_eq!(best, Some(Features::pos(5, d4)));
        assert_eq!(
            e.white_ownership[Features::pos(5, Point::from_coord(2, 3))],
            1.0 - 2.0
        );
        // With White to move they are White's, and saving them is White's likely move.
        let white = game(&rows, Color::White);
        let w = eval(&white, 0, 0.0);
        assert_eq!(
            w.white_ownership[Features::pos(5, Point::from_coord(2, 3))],
            1.0
        );
        assert!(w.policy[Features::pos(5, d4)] > 0.3, "{:?}", w.policy);
        assert!(w.white_lead > e.white_lead);
    }

    #[test]
    fn a_stone_in_pass_alive_area_is_dead_and_a_settled_board_passes() {
        // Black's left side has two eyes (B5, A4); White's B1 is inside it.
        let rows = [
            "X . X O .",
            ". X X O .",
            "X X X O .",
            ". X X O .",
            ". O X O .",
        ];
        for to_move in [Color::Black, Color::White] {
            let g = game(&rows, to_move);
            let e = eval(&g, 0, 0.0);
            let at = |c, r| e.white_ownership[Features::pos(5, Point::from_coord(c, r))];
            // White's B1 and A1 are Black's; Black leads by 15 to 10, less komi.
            assert_eq!(at(1, 0), -1.0, "{to_move:?}");
            assert_eq!(at(0, 0), -1.0, "{to_move:?}");
            assert_eq!(at(4, 2), 1.0, "{to_move:?}");
            assert!(
                (e.white_lead - (-5.0 + 0.5)).abs() < 1e-6,
                "{}",
                e.white_lead
            );
            // Every point settled: the pass is about half the policy.
            assert!(e.pass > 0.4, "{}", e.pass);
        }
    }
}
