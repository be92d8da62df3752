//! The seam between the PUCT search and what evaluates its leaves (issue 40): the
//! search hands a position (the game the evaluator sees, with the player to move, the
//! input rules, a symmetry, the policy optimism and a stop check) to a [`LeafEvaluator`]
//! and reads back an [`Evaluation`] (policy by point and pass, win / loss / no result,
//! score lead, mean and spread, ownership). A network's [`Service`] is one (through
//! its cache); `fake::FakeNet` a deterministic one for
//! tests.
//!
//! Owns the traits and the network's implementation of them. Knows nothing of the tree,
//! the selection, the threads or the analysis: those are the search's, on the other side
//! of the seam.

use crate::nn::{CacheKeys, Evaluation, Evaluator, Service};

/// One position of a batch: the game's position for its player to move, under the
/// rules, in a symmetry (one of the eight, or their mean), with a policy optimism (0 to
/// 1).
pub use crate::nn::eval::Request as LeafRequest;

/// What evaluates the leaves of a PUCT search: shared by the search's worker threads,
/// each of which asks it for its own [`LeafEvaluator`] (with its own scratch).
pub trait EvaluatorSource: Send + Sync {
    /// A name for the logs (a network's own).
    fn name(&self) -> &str;

    /// One thread's evaluator (a network's answers from and adds to its service's cache,
    /// shared by the threads and kept between searches).
    fn evaluator(&self) -> Box<dyn LeafEvaluator + '_>;
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

/// A network's evaluation service as the search's evaluator: [`Evaluator::evaluate`]
/// through the service's cache, whose keys leave the symmetry out
/// ([`CacheKeys::AnySymmetry`]). Each thread's runs of the network are added to the
/// service's counts when its evaluator is done.
impl EvaluatorSource for Service {
    fn name(&self) -> &str {
        &self.model().name
    }

    fn evaluator(&self) -> Box<dyn LeafEvaluator + '_> {
        Box::new(NetEvaluator {
            eval: Service::evaluator(self, CacheKeys::AnySymmetry),
            service: self,
        })
    }
}

/// One thread's evaluator of a [`Service`].
struct NetEvaluator<'a> {
    eval: Evaluator<'a>,
    service: &'a Service,
}

impl Drop for NetEvaluator<'_> {
    fn drop(&mut self) {
        self.service.add_runs(self.eval.runs);
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
