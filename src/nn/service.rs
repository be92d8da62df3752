//! The evaluation service (the idea of KataGo's `NNEvaluator`): one loaded model, its
//! [`Plan`] (the arithmetic its dense layers run in and the kernels that run it, resolved
//! once from the model, the precision asked for and this CPU), one bounded cache of
//! evaluations with its counts, and the network's run counts. Every caller evaluates
//! through it: the search threads (one [`Evaluator`] each, all sharing the cache), the
//! analysis engine's workers (one service for the pool), the dead-stone judgement, review,
//! `kata-raw-nn` and bench. A program makes one service a model and precision; the model
//! itself knows no precision.
//!
//! Owns the plan, the cache and the counts; the evaluation itself is `eval`'s.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};

use super::cache::CacheStats;
use super::eval::{CacheKeys, EvalCache, Evaluator, RunCounts};
use super::forward::{Forward, ForwardError};
use super::model::Model;
use super::ops::{kernels, Kind, Precision};

/// How a service's evaluators compute: the arithmetic of the dense layers and 1x1
/// convolutions, from the precision asked for on this CPU (`precision=auto`'s choice
/// made here, once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// What was asked for.
    pub precision: Precision,
    /// What runs.
    pub kind: Kind,
}

impl Plan {
    /// The plan for `precision` on this CPU (auto's choice, [`auto`]; an explicit
    /// precision this CPU has no kernels for runs in fp32, which `Precision::parse`
    /// refuses earlier).
    pub fn resolve(precision: Precision) -> Plan {
        let kind = match precision {
            Precision::Auto => auto(&super::cpu::features()),
            Precision::Fp32 => Kind::Fp32,
            Precision::Bf16 => Kind::Bf16,
            Precision::Int8 => Kind::Int8,
        };
        let kind = if kind.available() { kind } else { Kind::Fp32 };
        Plan { precision, kind }
    }

    /// The kernels the dense layers of a board of `area` points run on.
    pub fn kernels(&self, area: usize) -> &'static str {
        kernels(self.kind, area)
    }

    /// `precision bf16 (precision=auto), kernels K on CPU`, for the start-up line.
    pub fn describe(&self) -> String {
        format!(
            "precision {} (precision={}), kernels {} on {}",
            self.kind.name(),
            self.precision.name(),
            self.kernels(19 * 19),
            super::cpu::features().describe(),
        )
    }
}

/// `precision=auto`'s arithmetic by kind of CPU: on each, the one a match at equal time
/// chose (STRENGTH.md has the matches).
/// - AMX-INT8 (Intel Sapphire Rapids and later): int8 on AMX's tiles, about three times
///   bf16's evaluations a second there (whose `vdpbf16ps` runs at fp32's rate).
/// - AVX512-BF16 without AMX (AMD Zen 4, Zen 5): bf16.
/// - AVX512-VNNI without either (Intel Ice Lake, Cascade Lake): int8.
/// - Anything else: fp32.
pub fn auto(f: &super::cpu::Features) -> Kind {
    if f.amxint8 {
        Kind::Int8
    } else if f.avx512bf16 {
        Kind::Bf16
    } else if f.avx512vnni {
        Kind::Int8
    } else {
        Kind::Fp32
    }
}

/// About the memory of the evaluations a cache of `bytes` holds, as entries: counted at
/// 19x19 (the largest board), so that the bound holds whatever the board size.
pub fn entries_for_bytes(bytes: usize) -> usize {
    bytes / super::eval::cached_bytes(19)
}

/// A model with its plan, its cache and its counts (see the module documentation).
/// Shared between threads behind an `Arc`.
pub struct Service {
    model: Arc<Model>,
    plan: Plan,
    cache: Mutex<EvalCache>,
    passes: AtomicU64,
    positions: AtomicU64,
    nanos: AtomicU64,
}

impl std::fmt::Debug for Service {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service")
            .field("model", &self.model.name)
            .field("plan", &self.plan)
            .finish()
    }
}

impl Service {
    /// The service of `model` in `precision`, with a cache of at most `cache_entries`
    /// evaluations; an error when the forward pass cannot run the model's layers.
    pub fn new(
        model: Arc<Model>,
        precision: Precision,
        cache_entries: usize,
    ) -> Result<Service, ForwardError> {
        Forward::new(&model, Kind::Fp32)?;
        Ok(Service {
            model,
            plan: Plan::resolve(precision),
            cache: Mutex::new(EvalCache::new(cache_entries)),
            passes: AtomicU64::new(0),
            positions: AtomicU64::new(0),
            nanos: AtomicU64::new(0),
        })
    }

    pub fn model(&self) -> &Arc<Model> {
        &self.model
    }

    pub fn plan(&self) -> Plan {
        self.plan
    }

    /// One thread's evaluator, answering from the service's cache by `keys` and adding to
    /// it. Its runs are added to the service's counts with [`Service::add_runs`].
    pub fn evaluator(&self, keys: CacheKeys) -> Evaluator<'_> {
        self.uncached().with_cache(&self.cache, keys)
    }

    /// One thread's evaluator that always runs the network (bench's measurements).
    pub fn uncached(&self) -> Evaluator<'_> {
        Evaluator::with_kind(&self.model, self.plan.kind).expect("checked in Service::new")
    }

    /// Adds an evaluator's runs to the service's counts.
    pub fn add_runs(&self, r: RunCounts) {
        self.passes.fetch_add(r.passes, Relaxed);
        self.positions.fetch_add(r.positions, Relaxed);
        self.nanos.fetch_add((r.seconds * 1e9) as u64, Relaxed);
    }

    /// The network's runs added so far (the seconds summed over threads).
    pub fn runs(&self) -> RunCounts {
        RunCounts {
            passes: self.passes.load(Relaxed),
            positions: self.positions.load(Relaxed),
            seconds: self.nanos.load(Relaxed) as f64 * 1e-9,
        }
    }

    /// Hits, misses, entries and capacity of the cache.
    pub fn cache_stats(&self) -> CacheStats {
        self.lock().stats()
    }

    /// Forgets every cached evaluation.
    pub fn clear_cache(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, EvalCache> {
        self.cache
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
