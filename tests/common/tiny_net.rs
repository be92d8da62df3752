//! A tiny KataGo network written for a test (issue 40): a valid model file in KataGo's
//! binary format (`.bin.gz`, the layout of its `desc.cpp`, as its exporter writes it) with
//! pseudo-random weights drawn from a seed, so that `tengen --model FILE` searches,
//! analyses, counts and plays with a network on a machine without KataGo's network files.
//! The same seed gives the same bytes. The file lives in its own temporary folder, deleted
//! with the [`TinyNet`] that names it.
//!
//! The network: a trunk of one ordinary and one global-pooling residual block on 8
//! channels (a few thousand weights), and every head the evaluator reads (policy and pass,
//! win/loss/no-result, score mean and spread, lead, time left, the two short-term errors,
//! ownership). Its judgement is noise, except what [`Spec`] fixes on purpose: a small
//! no-result logit and (by default) rare passes, as a real network's; optionally who owns
//! the board.
//!
//! Knows KataGo's file format only: nothing of Tengen's reader, evaluator or search, of
//! boards, or of what a test checks.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// What to write.
#[derive(Clone, Copy, Debug)]
pub struct Spec {
    /// Seeds every weight.
    pub seed: u64,
    /// KataGo's model version: 8 to 14, the versions with the fewest layers (before 9
    /// without the short-term errors, from 11 with activation kinds, from 12 with an
    /// optimistic second policy channel, from 13 with the output multipliers in the file).
    pub version: i32,
    /// Ownership for the player to move, before tanh, added everywhere through a constant
    /// channel of the value head: 0 leaves the ownership to the random weights; 5 (or -5)
    /// makes the player to move (or the opponent) own every point.
    pub owner: f32,
    /// Added to the pass logit (about: through a constant channel after its activation):
    /// -6 makes passing rare, as a real network's in an open position; 0 leaves the pass
    /// to the random weights, as likely as any move.
    pub pass: f32,
    /// The first block's first convolution 1x1 onto [`WIDE`] channels instead of 3x3 onto
    /// [`REGULAR`]: a layer the bf16 and int8 kernels run (they take 1x1 convolutions with
    /// outputs in blocks of 64), so that `precision` changes the evaluations.
    pub wide: bool,
}

impl Spec {
    /// Version 14 (the newest before KataGo's v15 layers, and the format of its networks
    /// until 2023), no fixed ownership, passing rare.
    pub fn new(seed: u64) -> Spec {
        Spec {
            seed,
            version: 14,
            owner: 0.0,
            pass: -6.0,
            wide: false,
        }
    }

    /// The network's name, as written in the file.
    pub fn name(&self) -> String {
        let wide = if self.wide { "-wide" } else { "" };
        format!("tiny-v{}-s{}{wide}", self.version, self.seed)
    }
}

// Sizes: KataGo's V7 inputs (spatial and global); trunk, regular (mid) and
// global-pooling channels of the blocks; the policy's, its pooled and the value head's
// first channels; the value head's hidden layer.
const INPUTS: usize = 22;
const GLOBALS: usize = 19;
const TRUNK: usize = 8;
const REGULAR: usize = 6;
/// The first block's middle channels with [`Spec::wide`].
const WIDE: usize = 64;
const GPOOL: usize = 4;
const P1: usize = 4;
const G1: usize = 4;
const V1: usize = 4;
const V2: usize = 8;

// Weight spreads (times one over the root of a layer's inputs), found by trying: enough
// that a stone changes the policy, the values and the ownership around it, and that the
// search's leads differ from move to move; not so much that one move takes every visit.
const GAIN: f32 = 3.0;
const V2_GAIN: f32 = 3.0;
// Score outputs of about 0.3, leads of a few points (times 20).
const SV3_GAIN: f32 = 0.3;

/// A network file for one test, in its own temporary folder (deleted on drop).
pub struct TinyNet {
    dir: PathBuf,
    path: PathBuf,
    name: String,
}

impl TinyNet {
    /// Writes `spec`'s network as `<name>.bin.gz` in a fresh temporary folder.
    pub fn write(spec: Spec) -> TinyNet {
        static COUNT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "tengen-tiny-net-{}-{}",
            std::process::id(),
            COUNT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let name = spec.name();
        let path = dir.join(format!("{name}.bin.gz"));
        std::fs::write(&path, gzipped(spec)).unwrap();
        TinyNet { dir, path, name }
    }

    /// [`TinyNet::write`] of [`Spec::new`]`(seed)`.
    pub fn new(seed: u64) -> TinyNet {
        TinyNet::write(Spec::new(seed))
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The path as a command-line argument.
    pub fn arg(&self) -> String {
        self.path.to_string_lossy().into_owned()
    }

    /// The model's name (what Tengen says it loaded).
    pub fn name(&self) -> &str {
        &self.name
    }
}

impl Drop for TinyNet {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The file's bytes, gzip-compressed (as KataGo's `.bin.gz`).
pub fn gzipped(spec: Spec) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(&bytes(spec)).unwrap();
    gz.finish().unwrap()
}

/// The file's bytes, uncompressed: names and sizes as text lines, each block of weights
/// `@BIN@` and little-endian float32.
pub fn bytes(spec: Spec) -> Vec<u8> {
    assert!(
        (8..=14).contains(&spec.version),
        "version {} is not written",
        spec.version
    );
    let mut w = Writer {
        out: Vec::new(),
        rng: spec.seed ^ 0x7469_6e79_6e65_7421,
        version: spec.version,
    };
    w.header(spec);
    w.trunk(spec);
    w.policy_head(spec);
    w.value_head(spec);
    w.out
}

struct Writer {
    out: Vec<u8>,
    /// splitmix64 state.
    rng: u64,
    version: i32,
}

impl Writer {
    fn line(&mut self, token: impl std::fmt::Display) {
        writeln!(self.out, "{token}").unwrap();
    }

    /// Uniform in [-1, 1).
    fn uniform(&mut self) -> f32 {
        self.rng = self.rng.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.rng;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 40) as f32 / (1u64 << 23) as f32) - 1.0
    }

    /// `n` weights uniform in [-scale, scale).
    fn random(&mut self, n: usize, scale: f32) -> Vec<f32> {
        (0..n).map(|_| self.uniform() * scale).collect()
    }

    fn floats(&mut self, values: &[f32]) {
        self.out.extend_from_slice(b"@BIN@");
        for v in values {
            self.out.extend_from_slice(&v.to_le_bytes());
        }
        self.out.push(b'\n');
    }

    /// A convolution; `weights` in the file's order (y, x, in, out), else random within
    /// [`GAIN`] over the root of its inputs.
    fn conv(&mut self, name: &str, k: usize, ic: usize, oc: usize, weights: Option<Vec<f32>>) {
        for t in [name.to_string(), k.to_string(), k.to_string()] {
            self.line(t);
        }
        for d in [ic, oc, 1, 1] {
            self.line(d);
        }
        let n = k * k * ic * oc;
        let weights =
            weights.unwrap_or_else(|| self.random(n, GAIN / ((k * k * ic) as f32).sqrt()));
        assert_eq!(weights.len(), n, "{name}");
        self.floats(&weights);
    }

    /// A batch norm with a scale and a bias; `beta` sets the biases, else random.
    fn bn(&mut self, name: &str, c: usize, beta: Option<Vec<f32>>) {
        self.line(name);
        self.line(c);
        self.line("1e-05");
        self.line(1);
        self.line(1);
        let mean = self.random(c, 0.1);
        let variance: Vec<f32> = (0..c).map(|_| 1.0 + 0.2 * self.uniform().abs()).collect();
        let gamma: Vec<f32> = (0..c).map(|_| 1.0 + 0.1 * self.uniform()).collect();
        // Mostly positive: few channels stay dark under ReLU.
        let beta = beta.unwrap_or_else(|| (0..c).map(|_| 0.3 + 0.2 * self.uniform()).collect());
        for block in [mean, variance, gamma, beta] {
            self.floats(&block);
        }
    }

    /// A batch norm that passes its input through (plus `beta`): mean 0, variance 1.
    fn plain_bn(&mut self, name: &str, beta: &[f32]) {
        let c = beta.len();
        self.line(name);
        self.line(c);
        self.line("1e-05");
        self.line(1);
        self.line(1);
        self.floats(&vec![0.0; c]);
        self.floats(&vec![1.0 - 1e-5; c]);
        self.floats(&vec![1.0; c]);
        self.floats(beta);
    }

    fn act(&mut self, name: &str) {
        self.line(name);
        if self.version >= 11 {
            self.line("ACTIVATION_MISH");
        }
    }

    fn matmul(&mut self, name: &str, ic: usize, oc: usize, scale: f32) {
        self.line(name);
        self.line(ic);
        self.line(oc);
        let w = self.random(ic * oc, scale / (ic as f32).sqrt());
        self.floats(&w);
    }

    fn bias(&mut self, name: &str, weights: &[f32]) {
        self.line(name);
        self.line(weights.len());
        self.floats(weights);
    }

    fn header(&mut self, spec: Spec) {
        self.line(spec.name());
        self.line(self.version);
        self.line(INPUTS);
        self.line(GLOBALS);
        if self.version >= 13 {
            // KataGo's multipliers of the outputs (those of its b18 networks).
            for m in ["20", "20", "20", "20", "40", "0.25", "30"] {
                self.line(m);
            }
        }
    }

    fn trunk(&mut self, spec: Spec) {
        self.line("trunk");
        // Blocks, trunk, mid, regular, dilated and gpool channels.
        for d in [2, TRUNK, REGULAR, REGULAR, 0, GPOOL] {
            self.line(d);
        }
        self.conv("trunk/conv1", 3, INPUTS, TRUNK, None);
        self.matmul("trunk/ginput", GLOBALS, TRUNK, 1.0);

        self.line("ordinary_block");
        self.line("trunk/block0");
        self.bn("trunk/block0/norm1", TRUNK, None);
        self.act("trunk/block0/act1");
        let (k, mid) = if spec.wide { (1, WIDE) } else { (3, REGULAR) };
        self.conv("trunk/block0/conv1", k, TRUNK, mid, None);
        self.bn("trunk/block0/norm2", mid, None);
        self.act("trunk/block0/act2");
        self.conv("trunk/block0/conv2", 3, mid, TRUNK, None);

        self.line("gpool_block");
        self.line("trunk/block1");
        self.bn("trunk/block1/norm1", TRUNK, None);
        self.act("trunk/block1/act1");
        self.conv("trunk/block1/conv1a", 3, TRUNK, REGULAR, None);
        self.conv("trunk/block1/conv1b", 3, TRUNK, GPOOL, None);
        self.bn("trunk/block1/norm1b", GPOOL, None);
        self.act("trunk/block1/act1b");
        self.matmul("trunk/block1/gpool", 3 * GPOOL, REGULAR, 1.0);
        self.bn("trunk/block1/norm2", REGULAR, None);
        self.act("trunk/block1/act2");
        self.conv("trunk/block1/conv2", 3, REGULAR, TRUNK, None);

        self.bn("trunk/norm", TRUNK, None);
        self.act("trunk/act");
    }

    fn policy_head(&mut self, spec: Spec) {
        let outputs = if self.version >= 12 { 2 } else { 1 };
        self.line("policy");
        self.conv("policy/p1", 1, TRUNK, P1, None);
        // Channel 0 of g1 is a constant (its weights 0, its batch norm's bias 1), which the
        // pass logits weigh at half the spec's `pass` twice (in the mean and the maximum).
        let mut g1 = self.random(G1 * TRUNK, GAIN / (TRUNK as f32).sqrt());
        for i in 0..TRUNK {
            g1[i * G1] = 0.0;
        }
        self.conv("policy/g1", 1, TRUNK, G1, Some(g1));
        let beta: Vec<f32> = (0..G1)
            .map(|c| {
                if c == 0 {
                    1.0
                } else {
                    0.3 + 0.2 * self.uniform()
                }
            })
            .collect();
        self.plain_bn("policy/g1norm", &beta);
        self.act("policy/g1act");
        self.matmul("policy/gpool", 3 * G1, P1, 1.0);
        self.bn("policy/p1norm", P1, None);
        self.act("policy/p1act");
        // Logits that differ by about 1 from point to point, so that some moves stand out.
        let w = self.random(P1 * outputs, 10.0 / (P1 as f32).sqrt());
        self.conv("policy/p2", 1, P1, outputs, Some(w));
        // The pooled values are the means, the scaled means, then the maxima, each for
        // every channel; the file's order is (in, out).
        let mut pass = self.random(3 * G1 * outputs, 1.0 / ((3 * G1) as f32).sqrt());
        for o in 0..outputs {
            pass[o] = spec.pass / 2.0;
            pass[2 * G1 * outputs + o] = spec.pass / 2.0;
        }
        self.line("policy/pass");
        self.line(3 * G1);
        self.line(outputs);
        self.floats(&pass);
    }

    fn value_head(&mut self, spec: Spec) {
        self.line("value");
        // Channel 0 of v1 is the constant 1 when the spec fixes the ownership.
        let fixed = spec.owner != 0.0;
        let mut v1 = self.random(V1 * TRUNK, GAIN / (TRUNK as f32).sqrt());
        let mut beta: Vec<f32> = (0..V1).map(|_| 0.3 + 0.2 * self.uniform()).collect();
        if fixed {
            // The file's order is (in, out): output channel 0 is every V1-th weight.
            for i in 0..TRUNK {
                v1[i * V1] = 0.0;
            }
            beta[0] = 1.0;
        }
        self.conv("value/v1", 1, TRUNK, V1, Some(v1));
        if fixed {
            self.plain_bn("value/v1norm", &beta);
        } else {
            self.bn("value/v1norm", V1, Some(beta));
        }
        self.act("value/v1act");
        self.matmul("value/v2", 3 * V1, V2, V2_GAIN);
        let b = self.random(V2, 0.1);
        self.bias("value/v2bias", &b);
        self.act("value/v2act");
        self.matmul("value/v3", V2, 3, 1.0);
        // Win and loss even, no result rare (as a real network's).
        self.bias("value/v3bias", &[0.0, 0.0, -5.0]);
        let scores = if self.version >= 9 { 6 } else { 4 };
        self.matmul("value/sv3", V2, scores, SV3_GAIN);
        let b = self.random(scores, 0.1);
        self.bias("value/sv3bias", &b);
        let mut own = if fixed {
            // The rest small beside the constant.
            self.random(V1, 0.5 / (V1 as f32).sqrt())
        } else {
            self.random(V1, 6.0 / (V1 as f32).sqrt())
        };
        if fixed {
            own[0] = spec.owner;
        }
        self.conv("value/ownership", 1, V1, 1, Some(own));
    }
}

/// The writer's own checks: Tengen reads every version it writes, as written, the same
/// bytes for a seed and other weights for another.
#[test]
fn tiny_networks_load_and_repeat_by_seed() {
    use tengen::nn::Model;
    for version in 8..=14 {
        let spec = Spec {
            version,
            ..Spec::new(3)
        };
        let m = Model::from_bytes(&gzipped(spec)).unwrap_or_else(|e| panic!("v{version}: {e}"));
        assert_eq!(
            (m.name.as_str(), m.version),
            (spec.name().as_str(), version)
        );
        assert_eq!(m.trunk.blocks.len(), 2);
        assert_eq!(m.trunk.channels, TRUNK);
        assert_eq!(m.policy.out_channels, if version >= 12 { 2 } else { 1 });
        assert_eq!(
            m.value.sv3_mul.out_channels,
            if version >= 9 { 6 } else { 4 }
        );
        // Uncompressed too.
        Model::from_bytes(&bytes(spec)).unwrap();
    }
    assert_eq!(bytes(Spec::new(7)), bytes(Spec::new(7)));
    assert_ne!(bytes(Spec::new(7)), bytes(Spec::new(8)));
    let net = TinyNet::new(5);
    let m = Model::load(net.path()).unwrap();
    assert_eq!(m.name, net.name());
    let dir = net.path().parent().unwrap().to_path_buf();
    drop(net);
    assert!(!dir.exists(), "the folder goes with the network");
}
