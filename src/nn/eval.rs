//! One evaluation of a position as KataGo gives it (`nneval.cpp`, and the numbers its GTP
//! command `kata-raw-nn` prints): the V7 inputs of the game in one of the 8 symmetries, the
//! forward pass, the outputs turned back, then the post-processing: a softmax of the policy
//! over the legal moves and pass, a softmax of win / loss / no result, the score outputs
//! times the model's multipliers, ownership through tanh, and everything but the policy
//! from White's point of view. Also the mean of the 8 symmetries, KataGo's policy
//! optimism, and evaluations through a cache (`cache`): one entry,
//! [`Evaluator::evaluate`], takes every kind of request.

use std::sync::{Mutex, MutexGuard};

use super::cache::{Cache, EvalKey};
use super::features::{features, Features, InputRules};
use super::forward::{Forward, ForwardError, RawOutput};
use super::model::Model;
use crate::board::{Cell, Move, Point};
use crate::game::Game;
use crate::rules::KoRule;
use crate::{Color, IllegalMove};

/// KataGo's passing hack in GTP and analysis: the pass gets at most 19 times the summed
/// probability of the moves on the board (95%).
const MAX_PASS_FACTOR: f32 = 19.0;

/// A position's evaluation. Points are indexed as in [`Features`]: row 0 at the top.
#[derive(Clone, Debug, PartialEq)]
pub struct Evaluation {
    pub size: usize,
    /// The probability of each point for the player to move; 0 where illegal.
    pub policy: Vec<f32>,
    /// Whether the player to move may play each point.
    pub legal: Vec<bool>,
    pub pass: f32,
    pub white_win: f32,
    pub white_loss: f32,
    pub no_result: f32,
    /// KataGo's `whiteScoreSelfplay`: the expected score for White.
    pub white_score_mean: f32,
    /// KataGo's `whiteScoreSelfplaySq`: mean^2 + stdev^2.
    pub white_score_mean_sq: f32,
    pub white_lead: f32,
    /// Before model version 9, -1 (no output), as KataGo.
    pub var_time_left: f32,
    pub shortterm_winloss_error: f32,
    pub shortterm_score_error: f32,
    /// From -1 (Black's) to 1 (White's), per point.
    pub white_ownership: Vec<f32>,
}

impl Evaluation {
    /// The policy at `p`, `None` where illegal.
    pub fn policy_at(&self, p: Point) -> Option<f32> {
        let i = Features::pos(self.size, p);
        self.legal[i].then_some(self.policy[i])
    }
}

/// A cache of evaluations of one model ([`Evaluator::with_cache`]).
pub type EvalCache = Cache<Evaluation>;

/// The symmetry in the key of a [`CacheKeys::AnySymmetry`] cache: any.
const ANY_SYMMETRY: &str = "any";

/// About the bytes one cached evaluation of a `size` board takes, rounded up: its three
/// per-point vectors (policy, legality, ownership) with their allocations' overhead, the
/// rest of it, its key and the map's spare slots.
pub fn cached_bytes(size: usize) -> usize {
    size * size * (4 + 1 + 4) + 512
}

/// Which symmetries the network sees a position in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Symmetry {
    /// One, 0 to 7 (see [`Request::new`]).
    One(usize),
    /// All eight, every output averaged (KataGo's `NNOutput` of several symmetries: the
    /// probabilities, values and ownership after post-processing).
    Mean,
}

/// One evaluation's inputs and what the post-processing needs of the game.
struct Query {
    symmetry: Symmetry,
    features: Features,
    legal: Vec<bool>,
    pla: Color,
    superko: bool,
    optimism: f32,
}

/// The mean of evaluations of one position (the same legal points): every output
/// averaged.
pub fn mean(all: &[Evaluation]) -> Evaluation {
    let k = all.len() as f32;
    let avg = |get: fn(&Evaluation) -> f32| all.iter().map(get).sum::<f32>() / k;
    let avg_vec = |get: fn(&Evaluation) -> &Vec<f32>| {
        let mut out = vec![0.0f32; get(&all[0]).len()];
        for e in all {
            for (o, v) in out.iter_mut().zip(get(e)) {
                *o += v;
            }
        }
        out.iter_mut().for_each(|o| *o /= k);
        out
    };
    Evaluation {
        size: all[0].size,
        policy: avg_vec(|e| &e.policy),
        legal: all[0].legal.clone(),
        pass: avg(|e| e.pass),
        white_win: avg(|e| e.white_win),
        white_loss: avg(|e| e.white_loss),
        no_result: avg(|e| e.no_result),
        white_score_mean: avg(|e| e.white_score_mean),
        white_score_mean_sq: avg(|e| e.white_score_mean_sq),
        white_lead: avg(|e| e.white_lead),
        var_time_left: avg(|e| e.var_time_left),
        shortterm_winloss_error: avg(|e| e.shortterm_winloss_error),
        shortterm_score_error: avg(|e| e.shortterm_score_error),
        white_ownership: avg_vec(|e| &e.white_ownership),
    }
}

/// A model's evaluator of positions: its scratch buffers and, if it was given one, the
/// cache it answers from and adds to.
pub struct Evaluator<'m> {
    forward: Forward<'m>,
    /// KataGo's `enablePassingHacks`: the pass gets at most 95% of the policy. Off, as in
    /// `kata-raw-nn` (KataGo's search turns it on in GTP and analysis).
    pub passing_hacks: bool,
    cache: Option<(&'m Mutex<EvalCache>, CacheKeys)>,
    spatial: Vec<f32>,
    global: Vec<f32>,
    logits: Vec<f32>,
    /// What the network has run so far (cache hits are not runs).
    pub runs: RunCounts,
}

/// An evaluator's runs of the network: passes, the positions they held, and the wall
/// seconds they took (runs cut short by a stop included).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RunCounts {
    pub passes: u64,
    pub positions: u64,
    pub seconds: f64,
}

/// One position to evaluate ([`Evaluator::evaluate`]): the game's position for its
/// player to move, under `rules`, seen in `symmetry`, with policy `optimism` (0 to 1,
/// KataGo's `policyOptimism`: the logits moved that far towards the optimistic policy
/// head's; no effect on a model without one).
#[derive(Clone, Copy)]
pub struct Request<'g> {
    pub game: &'g Game,
    pub rules: InputRules,
    pub symmetry: Symmetry,
    pub optimism: f32,
}

impl<'g> Request<'g> {
    /// `game` seen in `symmetry` (0 to 7, KataGo's numbering: bit 0 flips the rows, bit 1
    /// the columns, bit 2 transposes), without policy optimism.
    pub fn new(game: &'g Game, rules: InputRules, symmetry: usize) -> Request<'g> {
        Request {
            game,
            rules,
            symmetry: Symmetry::One(symmetry),
            optimism: 0.0,
        }
    }

    /// The same request with policy `optimism`.
    pub fn optimism(self, optimism: f32) -> Request<'g> {
        Request { optimism, ..self }
    }

    /// The same request seen in `symmetry`.
    pub fn symmetry(self, symmetry: Symmetry) -> Request<'g> {
        Request { symmetry, ..self }
    }
}

/// Which evaluations an evaluator's cache answers a request with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheKeys {
    /// Only those of the same symmetry: the exact outputs (`kata-raw-nn`).
    PerSymmetry,
    /// For a request of one symmetry, one of any symmetry: in a search a position the
    /// network saw before (a transposition, a game ended in the tree visited again) costs
    /// no run. The mean of the eight is an entry of its own.
    AnySymmetry,
}

/// The lock of a cache, whether or not a thread panicked holding it (an entry is
/// inserted whole or not at all).
fn lock(cache: &Mutex<EvalCache>) -> MutexGuard<'_, EvalCache> {
    cache
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A position the network runs on within one call: its query, its cache key when the
/// evaluator has a cache, and the requests that take its answer.
struct Run {
    query: Query,
    key: Option<EvalKey>,
    takers: Vec<usize>,
}

impl<'m> Evaluator<'m> {
    /// An evaluator of `model` in fp32 (KataGo's outputs) without a cache.
    pub fn new(model: &'m Model) -> Result<Evaluator<'m>, ForwardError> {
        Evaluator::with_kind(model, super::Kind::Fp32)
    }

    /// An evaluator of `model` whose dense layers and 1x1 convolutions run in `kind`,
    /// without a cache (programs get theirs from a [`super::Service`], whose plan chose
    /// the kind); an error where this CPU has no kernels for `kind`.
    pub fn with_kind(model: &'m Model, kind: super::Kind) -> Result<Evaluator<'m>, ForwardError> {
        Ok(Evaluator {
            forward: Forward::new(model, kind)?,
            passing_hacks: false,
            cache: None,
            spatial: Vec::new(),
            global: Vec::new(),
            logits: Vec::new(),
            runs: RunCounts::default(),
        })
    }

    /// The evaluator answering from `cache` when it holds a request's evaluation (by
    /// `keys`) and adding what the network computes. A cache holds the evaluations of
    /// one model; evaluators on several threads may share it.
    pub fn with_cache(self, cache: &'m Mutex<EvalCache>, keys: CacheKeys) -> Evaluator<'m> {
        Evaluator {
            cache: Some((cache, keys)),
            ..self
        }
    }

    /// Adds up the network's time by kind of layer from now on (`true`) or stops.
    pub fn set_profiling(&mut self, on: bool) {
        self.forward.set_profiling(on);
    }

    /// The network's time by kind of layer, over the passes run while profiling.
    pub fn profile(&self) -> &super::profile::Profile {
        self.forward.profile()
    }

    /// The evaluations of `requests`, in their order. Those the cache holds come from it;
    /// the others go through the network, those of one symmetry in one batch (its
    /// weights read once for all; with a cache, a position asked twice runs once), a mean
    /// as the eight symmetries' evaluations averaged (KataGo's `NNOutput` of several
    /// symmetries: the probabilities, values and ownership after post-processing). Each
    /// answer is what the request alone would get, up to the rounding of the products'
    /// sums in a batch. `None`, and nothing added to the cache, when `stop` answered true
    /// between two blocks of the network. The positions share one board size.
    pub fn evaluate(
        &mut self,
        requests: &[Request],
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Evaluation>> {
        let mut answers: Vec<Option<Evaluation>> = vec![None; requests.len()];
        let mut runs: Vec<Run> = Vec::new();
        // The inputs are built before the cache is locked: other threads wait less.
        let queries: Vec<(Query, Option<EvalKey>)> = requests
            .iter()
            .map(|r| {
                let query = self.query(r.game, r.rules, r.symmetry, r.optimism);
                let key = self.cache.map(|(_, keys)| self.key(&query, keys));
                (query, key)
            })
            .collect();
        {
            let mut cached = self.cache.map(|(c, _)| lock(c));
            for (i, (query, key)) in queries.into_iter().enumerate() {
                if let (Some(c), Some(k)) = (cached.as_mut(), key) {
                    if let Some(e) = c.get(k) {
                        answers[i] = Some(e);
                        continue;
                    }
                    if let Some(run) = runs.iter_mut().find(|run| run.key == key) {
                        run.takers.push(i);
                        continue;
                    }
                }
                runs.push(Run {
                    query,
                    key,
                    takers: vec![i],
                });
            }
        }
        let mut evals: Vec<Option<Evaluation>> = vec![None; runs.len()];
        let ones: Vec<(usize, usize)> = runs
            .iter()
            .enumerate()
            .filter_map(|(j, run)| match run.query.symmetry {
                Symmetry::One(s) => Some((j, s)),
                Symmetry::Mean => None,
            })
            .collect();
        if !ones.is_empty() {
            let batch: Vec<(&Query, usize)> =
                ones.iter().map(|&(j, s)| (&runs[j].query, s)).collect();
            for (&(j, _), e) in ones.iter().zip(self.run_batch_until(&batch, stop)?) {
                evals[j] = Some(e);
            }
        }
        for (j, run) in runs.iter().enumerate() {
            if run.query.symmetry == Symmetry::Mean {
                let mut all = Vec::with_capacity(8);
                for s in 0..8 {
                    all.extend(self.run_batch_until(&[(&run.query, s)], stop)?);
                }
                evals[j] = Some(mean(&all));
            }
        }
        let mut cached = self.cache.map(|(c, _)| lock(c));
        for (run, e) in runs.iter().zip(evals) {
            let e = e.expect("every run answered");
            if let (Some(c), Some(k)) = (cached.as_mut(), run.key) {
                c.insert(k, e.clone());
            }
            for &i in &run.takers {
                answers[i] = Some(e.clone());
            }
        }
        Some(
            answers
                .into_iter()
                .map(|a| a.expect("every request answered"))
                .collect(),
        )
    }

    /// One request's evaluation ([`evaluate`](Self::evaluate), never stopped).
    pub fn evaluate_one(&mut self, request: Request) -> Evaluation {
        self.evaluate(&[request], &|| false)
            .and_then(|mut e| e.pop())
            .expect("an evaluation that is never stopped ends")
    }

    /// The cache key of `q`: its inputs, symmetry (any one, when `keys` says so and `q`
    /// asks for one), player to move, optimism and passing hack.
    fn key(&self, q: &Query, keys: CacheKeys) -> EvalKey {
        let any = keys == CacheKeys::AnySymmetry && q.symmetry != Symmetry::Mean;
        if any {
            EvalKey::new(
                &q.features,
                ANY_SYMMETRY,
                q.pla,
                q.optimism,
                self.passing_hacks,
            )
        } else {
            EvalKey::new(
                &q.features,
                q.symmetry,
                q.pla,
                q.optimism,
                self.passing_hacks,
            )
        }
    }

    /// The network run once on every query (each in its symmetry), `None` when `stop`
    /// answered true between two blocks.
    fn run_batch_until(
        &mut self,
        runs: &[(&Query, usize)],
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Evaluation>> {
        let Some(first) = runs.first() else {
            return Some(Vec::new());
        };
        let model = self.forward.model();
        let n = first.0.features.size;
        let area = n * n;
        let batch = runs.len();
        self.spatial.clear();
        self.spatial
            .resize(model.input_channels * batch * area, 0.0);
        self.global.clear();
        for (b, &(q, symmetry)) in runs.iter().enumerate() {
            let f = &q.features;
            assert_eq!(f.size, n, "one board size a batch");
            for (c, src) in f.spatial.chunks_exact(area).enumerate() {
                let dst = &mut self.spatial[(c * batch + b) * area..][..area];
                for (i, &v) in src.iter().enumerate() {
                    dst[sym_pos(n, symmetry, false, i)] = v;
                }
            }
            self.global.extend_from_slice(&f.global);
        }
        let t0 = std::time::Instant::now();
        let outs = self
            .forward
            .run_batch_until(n, batch, &self.spatial, &self.global, stop);
        self.runs.seconds += t0.elapsed().as_secs_f64();
        let outs = outs?;
        self.runs.passes += 1;
        self.runs.positions += batch as u64;
        Some(
            runs.iter()
                .zip(outs)
                .map(|(&(q, symmetry), out)| {
                    post_process(
                        model,
                        self.passing_hacks,
                        &mut self.logits,
                        q,
                        symmetry,
                        out,
                    )
                })
                .collect(),
        )
    }

    /// The inputs and everything else one evaluation needs of the game.
    fn query(&self, game: &Game, rules: InputRules, symmetry: Symmetry, optimism: f32) -> Query {
        if let Symmetry::One(s) = symmetry {
            assert!(s < 8, "symmetry {s} is not in 0..8");
        }
        let model = self.forward.model();
        let rules = InputRules {
            pass_alive_with_suicide: rules.pass_alive_with_suicide
                || model.prefer_pass_alive_under_suicide,
            ..rules
        };
        let optimism = if optimism.is_nan() {
            0.0
        } else {
            optimism.clamp(0.0, 1.0)
        };
        Query {
            symmetry,
            features: features(game, rules),
            legal: legal_points(game, rules),
            pla: game.to_move(),
            superko: rules.ko != KoRule::Simple,
            optimism,
        }
    }
}

/// The evaluation of a query from the network's raw outputs in `symmetry`: the policy
/// (moved by the optimism) and ownership turned back, the softmaxes, the score outputs
/// times the model's multipliers, everything but the policy from White's side. `logits`
/// is scratch.
fn post_process(
    model: &Model,
    passing_hacks: bool,
    logits_buf: &mut Vec<f32>,
    q: &Query,
    symmetry: usize,
    out: &RawOutput,
) -> Evaluation {
    let n = q.features.size;
    let area = n * n;
    let pla = q.pla;
    // The policy logits, moved towards the optimistic head's as KataGo (models with 2
    // policy channels, or 4 from version 16), and the outputs back to the board's
    // orientation.
    let channels = model.policy.out_channels;
    let optimistic = channels == 2 || (channels == 4 && model.version >= 16);
    let opt = q.optimism;
    logits_buf.clear();
    logits_buf.resize(area, 0.0);
    let mut ownership = vec![0.0; area];
    for i in 0..area {
        let j = sym_pos(n, symmetry, true, i);
        let p = out.policy[i];
        logits_buf[j] = if optimistic {
            p + (out.policy[area + i] - p) * opt
        } else {
            p
        };
        ownership[j] = out.ownership[i];
    }
    let pass_logit = if optimistic {
        out.pass[0] + (out.pass[1] - out.pass[0]) * opt
    } else {
        out.pass[0]
    };
    let value = out.value;
    let score = out.score.clone();
    let legal = q.legal.clone();

    // Policy: softmax over the legal moves and pass, in f32 as KataGo.
    let max = logits_buf
        .iter()
        .zip(&legal)
        .filter(|(_, &ok)| ok)
        .fold(pass_logit, |m, (&l, _)| m.max(l));
    let mut policy = vec![0.0f32; area];
    let mut sum = 0.0f32;
    for ((p, &l), &ok) in policy.iter_mut().zip(logits_buf.iter()).zip(&legal) {
        if ok {
            *p = (l - max).exp();
            sum += *p;
        }
    }
    let mut pass = (pass_logit - max).exp();
    if passing_hacks {
        pass = pass.min(sum * MAX_PASS_FACTOR).max(1e-20);
    }
    sum += pass;
    for p in policy.iter_mut() {
        *p /= sum;
    }
    pass /= sum;

    // Value and score, in f64 as KataGo, for the player to move.
    let pp = model.post_process;
    let version = model.version;
    let mut logits = value.map(f64::from);
    let superko = q.superko;
    if superko {
        logits[2] -= 100000.0;
    }
    let lmax = logits[0].max(logits[1]).max(logits[2]);
    let mut probs = logits.map(|l| (l - lmax).exp());
    if superko {
        probs[2] = 0.0;
    }
    let total: f64 = probs.iter().sum();
    let [win, loss, no_result] = probs.map(|p| p / total);
    let s = |i: usize| score.get(i).copied().map_or(0.0, f64::from);
    let mut score_mean = s(0) * pp.score_mean_multiplier;
    let stdev = softplus(s(1)) * pp.score_stdev_multiplier;
    let mut score_mean_sq = score_mean * score_mean + stdev * stdev;
    let mut lead = s(2) * pp.lead_multiplier;
    let var_time_left = softplus(s(3)) * pp.variance_time_multiplier;
    score_mean *= 1.0 - no_result;
    score_mean_sq *= 1.0 - no_result;
    lead *= 1.0 - no_result;
    let (st_value, st_score) = if version >= 14 {
        let a = softplus(s(4) * 0.5);
        let b = softplus(s(5) * 0.5);
        (
            (a * a * pp.shortterm_value_error_multiplier).sqrt(),
            (b * b * pp.shortterm_score_error_multiplier).sqrt(),
        )
    } else if version >= 10 {
        (
            (softplus(s(4)) * pp.shortterm_value_error_multiplier).sqrt(),
            (softplus(s(5)) * pp.shortterm_score_error_multiplier).sqrt(),
        )
    } else {
        (softplus(s(4)), softplus(s(5)) * 10.0)
    };
    let (white_win, white_loss, sign) = if pla == Color::White {
        (win, loss, 1.0)
    } else {
        (loss, win, -1.0)
    };
    let (var_time_left, st_value, st_score) = if version >= 9 {
        (var_time_left as f32, st_value as f32, st_score as f32)
    } else {
        (-1.0, -1.0, -1.0)
    };
    let sign32 = sign as f32;
    for o in ownership.iter_mut() {
        *o = sign32 * o.tanh();
    }
    Evaluation {
        size: n,
        policy,
        legal,
        pass,
        white_win: white_win as f32,
        white_loss: white_loss as f32,
        no_result: no_result as f32,
        white_score_mean: sign32 * score_mean as f32,
        white_score_mean_sq: score_mean_sq as f32,
        white_lead: sign32 * lead as f32,
        var_time_left,
        shortterm_winloss_error: st_value,
        shortterm_score_error: st_score,
        white_ownership: ownership,
    }
}

fn softplus(x: f64) -> f64 {
    if x > 40.0 {
        x
    } else {
        x.exp().ln_1p()
    }
}

/// Where point `i` (row-major, `n x n`) goes under `symmetry`: from the board to the
/// network's view (`reverse` false) or back (`reverse` true), as KataGo's
/// `SymmetryHelpers::copyWithSymmetry` on a square board.
pub fn sym_pos(n: usize, symmetry: usize, reverse: bool, i: usize) -> usize {
    let (h, w) = (i / n, i % n);
    let transpose = symmetry & 4 != 0;
    let mut flip_x = symmetry & 2 != 0;
    let mut flip_y = symmetry & 1 != 0;
    if transpose && !reverse {
        std::mem::swap(&mut flip_x, &mut flip_y);
    }
    let (row, col) = if transpose { (w, h) } else { (h, w) };
    let row = if flip_y { n - 1 - row } else { row };
    let col = if flip_x { n - 1 - col } else { col };
    row * n + col
}

/// The points the player to move may play, indexed as in [`Features`]: KataGo's
/// `isLegal` under `rules` (simple ko only, or superko bans too; multi-stone suicide if
/// the rules allow it, never a single stone's).
pub fn legal_points(game: &Game, rules: InputRules) -> Vec<bool> {
    let board = game.board();
    let n = board.size();
    let pla = game.to_move();
    let own = Cell::from(pla);
    let mut legal = vec![false; n * n];
    for p in board.points() {
        let ok = match board.check(pla, p) {
            Ok(()) => true,
            Err(IllegalMove::Suicide) => {
                rules.multi_stone_suicide && p.neighbors().iter().any(|&q| board.cell(q) == own)
            }
            Err(_) => false,
        };
        let banned = ok
            && rules.ko != KoRule::Simple
            && game.check(pla, Move::Place(p)) == Err(IllegalMove::Superko);
        legal[Features::pos(n, p)] = ok && !banned;
    }
    legal
}
