//! The seam between the PUCT search and what evaluates its leaves (issue 40): the
//! search hands a position (the game the evaluator sees, with the player to move, the
//! input rules, a symmetry, the policy optimism and a stop check) to a [`LeafEvaluator`]
//! and reads back an [`Evaluation`] (policy by point and pass, win / loss / no result,
//! score lead, mean and spread, ownership). [`Network`] is the evaluator of a KataGo
//! network through the search's shared cache; `fake::FakeNet` a deterministic one for
//! tests.
//!
//! Owns the traits and the network's implementation of them. Knows nothing of the tree,
//! the selection, the threads or the analysis: those are the search's, on the other side
//! of the seam.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use crate::nn::eval::RunCounts;
use crate::nn::{CacheKeys, EvalCache, Evaluation, Evaluator, Model};

/// One position of a batch: the game's position for its player to move, under the
/// rules, in a symmetry (one of the eight, or their mean), with a policy optimism (0 to
/// 1).
pub use crate::nn::eval::Request as LeafRequest;

/// What evaluates the leaves of a PUCT search: shared by the search's worker threads,
/// each of which asks it for its own [`LeafEvaluator`] (with its own scratch).
pub trait EvaluatorSource: Send + Sync {
    /// A name for the logs (a network's own).
    fn name(&self) -> &str;

    /// One thread's evaluator. `cache` is the search's cache of evaluations, shared by
    /// its threads and kept between its searches (for one board size); an evaluator may
    /// answer from it and add to it, or ignore it.
    fn evaluator<'a>(&'a self, cache: &'a Mutex<EvalCache>) -> Box<dyn LeafEvaluator + 'a>;
}

/// One thread's evaluator of positions.
pub trait LeafEvaluator {
    /// The evaluations of `requests`, in order: each the position of its game for its
    /// player to move, under its rules, seen in its symmetry (KataGo's numbering), with
    /// its policy optimism (0 to 1). Points are laid out as in
    /// [`crate::nn::features::Features`], values are from White's point of view but the
    /// policy, as [`Evaluation`] says. An evaluator that can run them together (a
    /// network's batch) does; each answer is as a request alone would get it, up to
    /// rounding. `None` when `stop` answered true before they were done (the search then
    /// takes its simulations back).
    fn evaluate(
        &mut self,
        requests: &[LeafRequest],
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Evaluation>>;
}

/// A KataGo network as the search's evaluator: [`Evaluator::evaluate`] through the
/// search's cache, whose keys leave the symmetry out ([`CacheKeys::AnySymmetry`]). Counts
/// its threads' runs of the network (added when a search's evaluator is done).
pub struct Network {
    model: Arc<Model>,
    passes: AtomicU64,
    positions: AtomicU64,
    nanos: AtomicU64,
}

impl Network {
    /// The evaluator of `model`, whose layers the caller has checked
    /// ([`Evaluator::new`] succeeds on it).
    pub fn new(model: Arc<Model>) -> Network {
        Network {
            model,
            passes: AtomicU64::new(0),
            positions: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        }
    }

    /// The network's runs by the evaluators done so far (the seconds summed over threads).
    pub fn runs(&self) -> RunCounts {
        RunCounts {
            passes: self.passes.load(Relaxed),
            positions: self.positions.load(Relaxed),
            seconds: self.nanos.load(Relaxed) as f64 * 1e-9,
        }
    }

    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }
}

impl EvaluatorSource for Network {
    fn name(&self) -> &str {
        &self.model.name
    }

    fn evaluator<'a>(&'a self, cache: &'a Mutex<EvalCache>) -> Box<dyn LeafEvaluator + 'a> {
        Box::new(NetEvaluator {
            eval: Evaluator::new(&self.model)
                .expect("checked when the model was set")
                .with_cache(cache, CacheKeys::AnySymmetry),
            counts: self,
        })
    }
}

/// One thread's evaluator of a [`Network`]: the network's scratch and the shared cache.
struct NetEvaluator<'a> {
    eval: Evaluator<'a>,
    counts: &'a Network,
}

impl Drop for NetEvaluator<'_> {
    fn drop(&mut self) {
        let r = self.eval.runs;
        self.counts.passes.fetch_add(r.passes, Relaxed);
        self.counts.positions.fetch_add(r.positions, Relaxed);
        self.counts
            .nanos
            .fetch_add((r.seconds * 1e9) as u64, Relaxed);
    }
}

impl LeafEvaluator for NetEvaluator<'_> {
    fn evaluate(
        &mut self,
        requests: &[LeafRequest],
        stop: &dyn Fn() -> bool,
    ) -> Option<Vec<Evaluation>> {
        self.eval.evaluate(requests, stop)
    }
}
