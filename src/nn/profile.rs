//! Where a forward pass spends its time, by kind of layer: wall-clock sums the pass adds to
//! when asked to (`Forward::set_profiling`), read by `tengen bench --nn --profile`. The
//! bf16 kernels run where callgrind cannot follow (valgrind has no AVX-512), so this is
//! how their passes are taken apart. Off, it costs one branch a layer. Knows the kinds of
//! layers, not the layers.

use std::time::Instant;

/// The kinds of layers a pass is taken apart into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// The input convolution and the globals' biases.
    Input,
    /// The residual blocks' convolutions (the nested bottlenecks' 1x1 and 3x3).
    Convolutions,
    /// The transformers' query, key, value and output projections.
    Projections,
    /// Attention proper: RoPE, the queries' and keys' packing, scores, softmax, values.
    Heads,
    /// The feed-forward layers' products (SwiGLU's two inputs and its output layer).
    FeedForward,
    /// Norms, activations, SwiGLU's product, residual copies and sums.
    ElementWise,
    /// The trunk's final norm, the policy and value heads.
    Outputs,
}

impl Part {
    pub const ALL: [Part; 7] = [
        Part::Input,
        Part::Convolutions,
        Part::Projections,
        Part::Heads,
        Part::FeedForward,
        Part::ElementWise,
        Part::Outputs,
    ];

    /// The part's name in `bench --nn --profile`'s line.
    pub fn name(self) -> &'static str {
        match self {
            Part::Input => "input",
            Part::Convolutions => "convolutions",
            Part::Projections => "projections",
            Part::Heads => "attention_heads",
            Part::FeedForward => "feed_forward",
            Part::ElementWise => "element_wise",
            Part::Outputs => "outputs",
        }
    }
}

/// Seconds spent in each [`Part`], over the passes run while profiling.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    seconds: [f64; Part::ALL.len()],
    /// Passes counted.
    pub passes: u64,
    on: bool,
}

impl Profile {
    /// Starts or stops adding up; the sums are kept either way.
    pub fn set_on(&mut self, on: bool) {
        self.on = on;
    }

    /// A start time when profiling, for [`Profile::add`].
    #[inline]
    pub fn start(&self) -> Option<Instant> {
        self.on.then(Instant::now)
    }

    /// The time since `start` added to `part`'s; the end of this part is the start of
    /// the next, returned.
    #[inline]
    pub fn add(&mut self, part: Part, start: Option<Instant>) -> Option<Instant> {
        let start = start?;
        let now = Instant::now();
        self.seconds[part as usize] += (now - start).as_secs_f64();
        Some(now)
    }

    /// Seconds spent in `part`.
    pub fn seconds(&self, part: Part) -> f64 {
        self.seconds[part as usize]
    }

    /// Seconds spent in every part.
    pub fn total(&self) -> f64 {
        self.seconds.iter().sum()
    }

    /// Adds `other`'s sums and passes to these (the threads of a bench into one).
    pub fn merge(&mut self, other: &Profile) {
        for (a, b) in self.seconds.iter_mut().zip(other.seconds) {
            *a += b;
        }
        self.passes += other.passes;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_adds_nothing_and_on_adds_to_the_part_named() {
        let mut p = Profile::default();
        let t = p.start();
        assert!(t.is_none());
        assert!(p.add(Part::Heads, t).is_none());
        assert_eq!(p.total(), 0.0);
        p.set_on(true);
        let t = p.start();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let t = p.add(Part::Heads, t);
        assert!(p.seconds(Part::Heads) >= 0.002);
        assert_eq!(p.seconds(Part::Input), 0.0);
        p.add(Part::Input, t);
        let mut q = Profile::default();
        q.merge(&p);
        q.merge(&p);
        assert_eq!(q.total(), 2.0 * p.total());
    }
}
