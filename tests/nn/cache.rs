//! Evaluations through the cache (`tengen::nn::cache`), the mean of the 8 symmetries and
//! policy optimism: a hit gives the very evaluation the network gave; positions with the
//! same board but history the inputs show differently are different keys, history the
//! inputs do not show is the same key. Any network will do: a tiny one written for the
//! test (`common::tiny_net`) on every machine, and KataGo's fixture networks too when
//! their files are there.

use std::sync::Mutex;
use tengen::nn::features::{features, InputRules};

use tengen::nn::{CacheKeys, EvalCache, Evaluation, Evaluator, Model, Request, Symmetry};
use tengen::{Color, Game, Move, Rules};

use super::{optional_fixture, point, G170, TF_KV};
use crate::common::tiny_net::{gzipped, Spec};

/// The tiny network of `spec`, and the fixture network `name` when its file is there
/// (else the test says that it ran on the tiny one only).
fn models(spec: Spec, name: &str) -> Vec<(String, Model)> {
    let tiny = Model::from_bytes(&gzipped(spec)).unwrap();
    let mut out = vec![(spec.name(), tiny)];
    if let Some(p) = optional_fixture(name) {
        out.push((name.to_string(), Model::load(p).unwrap()));
    }
    out
}

fn game(size: usize, moves: &[&str]) -> Game {
    let mut g = Game::new(size, Rules::chinese()).unwrap();
    let mut color = Color::Black;
    for m in moves {
        let mv = match *m {
            "pass" => Move::Pass,
            v => Move::Place(point(size, v)),
        };
        g.play(color, mv).unwrap_or_else(|e| panic!("{m}: {e}"));
        color = color.opponent();
    }
    g
}

const RULES: fn() -> InputRules = InputRules::katago_chinese;

/// `g` under [`RULES`], seen in `symmetry`, with policy `optimism`.
fn ask(g: &Game, symmetry: Symmetry, optimism: f32) -> Request<'_> {
    Request::new(g, RULES(), 0)
        .symmetry(symmetry)
        .optimism(optimism)
}

/// `g`'s evaluation by `eval` in one symmetry, without optimism.
fn plain(eval: &mut Evaluator, g: &Game, symmetry: usize) -> Evaluation {
    eval.evaluate_one(Request::new(g, RULES(), symmetry))
}

#[test]
fn a_hit_is_the_evaluation_the_network_gave() {
    for (name, model) in models(Spec::new(1), G170) {
        a_hit_is_the_evaluation(&name, &model);
    }
}

fn a_hit_is_the_evaluation(name: &str, model: &Model) {
    let cache = Mutex::new(EvalCache::new(64));
    let stats = || cache.lock().unwrap().stats();
    let mut eval = Evaluator::new(model)
        .unwrap()
        .with_cache(&cache, CacheKeys::PerSymmetry);
    let g = game(9, &["E5", "C4", "G3", "pass"]);
    let first = eval.evaluate_one(ask(&g, Symmetry::One(2), 0.0));
    let s = stats();
    assert_eq!((s.hits, s.misses, s.entries), (0, 1, 1));
    let again = eval.evaluate_one(ask(&g, Symmetry::One(2), 0.0));
    assert_eq!(first, again, "{name}");
    let s = stats();
    assert_eq!((s.hits, s.misses, s.entries), (1, 1, 1), "{name}");
    // And the same as without the cache.
    let mut uncached = Evaluator::new(model).unwrap();
    assert_eq!(first, plain(&mut uncached, &g, 2), "{name}");
    // Another symmetry is another key, and another evaluation.
    let other = eval.evaluate_one(ask(&g, Symmetry::One(3), 0.0));
    assert_ne!(first.policy, other.policy, "{name}");
    assert_eq!(stats().misses, 2, "{name}");
    // Asked twice in one call: one run, both answered.
    let h = game(9, &["E5", "C4"]);
    let runs = eval.runs.positions;
    let both = eval
        .evaluate(
            &[
                ask(&h, Symmetry::One(1), 0.0),
                ask(&h, Symmetry::One(1), 0.0),
            ],
            &|| false,
        )
        .unwrap();
    assert_eq!(both[0], both[1], "{name}");
    assert_eq!(eval.runs.positions, runs + 1, "{name}");
    assert_eq!(both[0], plain(&mut uncached, &h, 1), "{name}");
}

#[test]
fn history_the_inputs_see_makes_another_key() {
    for (name, model) in models(Spec::new(2), G170) {
        history_makes_another_key(&name, &model);
    }
}

fn history_makes_another_key(name: &str, model: &Model) {
    let cache = Mutex::new(EvalCache::new(64));
    let stats = || cache.lock().unwrap().stats();
    let mut eval = Evaluator::new(model)
        .unwrap()
        .with_cache(&cache, CacheKeys::PerSymmetry);
    let mut look = |g: &Game| {
        let before = stats();
        let e = eval.evaluate_one(ask(g, Symmetry::One(0), 0.0));
        (e, stats().hits > before.hits)
    };
    // The same stones reached in another order: the last-move planes differ.
    let a = game(9, &["D4", "E5", "C3", "F6"]);
    let b = game(9, &["C3", "F6", "D4", "E5"]);
    assert_eq!(a.board().hash(), b.board().hash());
    assert_ne!(features(&a, RULES()), features(&b, RULES()));
    let (ea, hit_a) = look(&a);
    let (eb, hit_b) = look(&b);
    assert!(
        !hit_a && !hit_b,
        "{name}: a different history the network sees is a miss"
    );
    assert_ne!(ea.policy, eb.policy, "{name}");
    // The same board with a pass in the history: another key too.
    let c = game(9, &["D4", "E5", "C3", "F6", "pass", "pass"]);
    let d = game(9, &["D4", "E5", "C3", "F6"]);
    assert!(!look(&c).1, "{name}");
    let (ed, hit_d) = look(&d);
    assert!(hit_d, "{name}: the same game again is a hit");
    assert_eq!(ed, ea, "{name}");
    // Black's first and second moves swapped: the last five moves are the same, so the
    // network sees the same inputs and the cache answers.
    let e = game(9, &["D4", "E5", "C3", "F6", "G4", "D6", "C6", "B4"]);
    let f = game(9, &["C3", "E5", "D4", "F6", "G4", "D6", "C6", "B4"]);
    assert_eq!(features(&e, RULES()), features(&f, RULES()));
    let (ee, hit_e) = look(&e);
    let (ef, hit_f) = look(&f);
    assert!(!hit_e && hit_f, "{name}");
    assert_eq!(ee, ef, "{name}");
}

#[test]
fn the_mean_is_the_average_of_the_eight_symmetries() {
    for (name, model) in models(Spec::new(3), G170) {
        the_mean_is_the_average(&name, &model);
    }
}

fn the_mean_is_the_average(name: &str, model: &Model) {
    let mut eval = Evaluator::new(model).unwrap();
    let g = game(9, &["E5", "C4", "G3", "D6", "F4"]);
    let each: Vec<Evaluation> = (0..8).map(|s| plain(&mut eval, &g, s)).collect();
    let mean = eval.evaluate_one(ask(&g, Symmetry::Mean, 0.0));
    let avg = |get: &dyn Fn(&Evaluation) -> f32| each.iter().map(get).sum::<f32>() / 8.0;
    let close = |a: f32, b: f32| (a - b).abs() <= 1e-6 * a.abs().max(1.0);
    assert!(close(mean.white_win, avg(&|e| e.white_win)), "{name}");
    assert!(close(mean.white_lead, avg(&|e| e.white_lead)), "{name}");
    assert!(close(mean.pass, avg(&|e| e.pass)), "{name}");
    for i in 0..81 {
        assert_eq!(mean.legal[i], each[0].legal[i], "{name}");
        assert!(
            close(mean.policy[i], avg(&|e| e.policy[i])),
            "{name}: policy {i}"
        );
        assert!(
            close(mean.white_ownership[i], avg(&|e| e.white_ownership[i])),
            "{name}: ownership {i}"
        );
    }
    let total: f32 = mean.policy.iter().sum::<f32>() + mean.pass;
    assert!((total - 1.0).abs() < 1e-5, "{name}: {total}");
    // The mean is a key of its own, in either kind of cache; asked in one call with
    // a single symmetry, each is what it is alone.
    for keys in [CacheKeys::PerSymmetry, CacheKeys::AnySymmetry] {
        let cache = Mutex::new(EvalCache::new(8));
        let mut cached = Evaluator::new(model).unwrap().with_cache(&cache, keys);
        let one = cached.evaluate_one(ask(&g, Symmetry::One(0), 0.0));
        let all = cached.evaluate_one(ask(&g, Symmetry::Mean, 0.0));
        assert_eq!(
            (one, all.clone()),
            (each[0].clone(), mean.clone()),
            "{name}"
        );
        assert_eq!(cache.lock().unwrap().stats().misses, 2, "{name}");
    }
    let together = eval
        .evaluate(
            &[ask(&g, Symmetry::Mean, 0.0), ask(&g, Symmetry::One(3), 0.0)],
            &|| false,
        )
        .unwrap();
    assert_eq!(together, vec![mean, each[3].clone()], "{name}");
}

#[test]
fn optimism_moves_the_policy_of_a_network_with_an_optimistic_head() {
    // Tiny networks of version 14 (two policy channels, the second optimistic) and 11
    // (one); KataGo's TF_KV (four, from version 16) and g170 (one) when present.
    let v11 = Spec {
        version: 11,
        ..Spec::new(4)
    };
    let nets = models(Spec::new(4), TF_KV)
        .into_iter()
        .map(|(name, model)| (name, model, true))
        .chain(models(v11, G170).into_iter().map(|(n, m)| (n, m, false)));
    for (net, model, moves) in nets {
        let mut eval = Evaluator::new(&model).unwrap();
        let g = game(9, &["E5", "C4"]);
        let neutral = eval.evaluate_one(ask(&g, Symmetry::One(0), 0.0));
        let optimistic = eval.evaluate_one(ask(&g, Symmetry::One(0), 1.0));
        assert_eq!(neutral, plain(&mut eval, &g, 0), "{net}");
        assert_eq!(neutral.policy != optimistic.policy, moves, "{net}");
        // Optimism is about the policy only.
        assert_eq!(neutral.white_win, optimistic.white_win, "{net}");
        assert_eq!(neutral.white_ownership, optimistic.white_ownership, "{net}");
        // Out of range is clamped, never a panic.
        let clamped = eval.evaluate_one(ask(&g, Symmetry::One(0), 7.0));
        assert_eq!(clamped, optimistic, "{net}");
        let nan = eval.evaluate_one(ask(&g, Symmetry::One(0), f32::NAN));
        assert_eq!(nan, neutral, "{net}");
    }
}

#[test]
fn the_search_cache_answers_a_position_seen_in_any_symmetry() {
    // Networks with an optimistic policy head.
    for (name, model) in models(Spec::new(5), TF_KV) {
        search_cache_answers_any_symmetry(&name, &model);
    }
}

fn search_cache_answers_any_symmetry(name: &str, model: &Model) {
    let cache = Mutex::new(EvalCache::new(64));
    let mut eval = Evaluator::new(model)
        .unwrap()
        .with_cache(&cache, CacheKeys::AnySymmetry);
    let g = game(9, &["E5", "C4", "G3"]);
    let mut look =
        |symmetry, optimism| eval.evaluate_one(ask(&g, Symmetry::One(symmetry), optimism));
    let first = look(2, 1.0);
    // The network's own answer in that symmetry and optimism.
    let mut fresh = Evaluator::new(model).unwrap();
    assert_eq!(
        first,
        fresh.evaluate_one(ask(&g, Symmetry::One(2), 1.0)),
        "{name}"
    );
    // Another symmetry: the same evaluation, from the cache.
    assert_eq!(look(5, 1.0), first, "{name}");
    let s = cache.lock().unwrap().stats();
    assert_eq!((s.hits, s.misses, s.entries), (1, 1, 1), "{name}");
    // Another optimism is another evaluation.
    assert_ne!(look(5, 0.2).policy, first.policy, "{name}");
    assert_eq!(cache.lock().unwrap().stats().misses, 2, "{name}");
    // Stopped before the network ran: nothing, and nothing kept.
    let other = game(9, &["E5", "C4"]);
    assert!(eval
        .evaluate(&[ask(&other, Symmetry::One(0), 1.0)], &|| true)
        .is_none());
    assert_eq!(cache.lock().unwrap().stats().entries, 2, "{name}");
}

/// One service, one cache: a position one evaluator of a service ran is a hit for every
/// other evaluator of it, on any thread, with the very evaluation the first gave; the
/// service counts the hits and the runs its evaluators add, and its plan runs the
/// precision asked for (fp32 here: KataGo's outputs, equal to an evaluator's own).
#[test]
fn a_services_evaluators_share_one_cache() {
    use std::sync::Arc;
    use tengen::nn::{Kind, Precision, Service};
    let model = Arc::new(Model::from_bytes(&gzipped(Spec::new(3))).unwrap());
    let service = Service::new(model.clone(), Precision::Fp32, 64).unwrap();
    assert_eq!(service.plan().kind, Kind::Fp32);
    let g = game(9, &["E5", "C3"]);
    let mut first = service.evaluator(CacheKeys::PerSymmetry);
    let a = plain(&mut first, &g, 2);
    service.add_runs(first.runs);
    assert_eq!(service.runs().positions, 1);
    let b = std::thread::scope(|s| {
        s.spawn(|| plain(&mut service.evaluator(CacheKeys::PerSymmetry), &g, 2))
            .join()
            .unwrap()
    });
    assert_eq!(a, b);
    let stats = service.cache_stats();
    assert_eq!((stats.hits, stats.misses, stats.entries), (1, 1, 1));
    let own = plain(&mut Evaluator::new(&model).unwrap(), &g, 2);
    assert_eq!(a, own, "fp32 through the service is the evaluator's own");
    service.clear_cache();
    assert_eq!(service.cache_stats().entries, 0);
}
