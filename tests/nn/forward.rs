//! The forward pass and evaluation (`tengen::nn::{forward, eval}`) against KataGo 1.17.2's
//! own answers to `kata-raw-nn SYM 0` (`golden/NET.txt` beside the fixtures), position by
//! position and symmetry by symmetry: policy of every legal move (and the same illegal
//! points), pass, win / loss / no result, lead, score and ownership.

use std::path::Path;

use tengen::nn::eval::{sym_pos, Evaluation, Evaluator, Request};
use tengen::nn::features::InputRules;
use tengen::nn::{Kind, Model};
use tengen::{Color, Game, Move, Rules};

/// Agreement asked of every value KataGo prints to 6 or 7 decimals.
const TOLERANCE: f64 = 1e-4;

/// Positions whose inputs are known to differ from KataGo's, compared and reported but
/// not asserted: none. (Position 30, `b E5 w pass b C3 w pass`, was one until the inputs
/// took KataGo's reading of Black's opening moves between White passes as handicap.)
const KNOWN_INPUT_DIFFERENCES: &[&str] = &[];

/// One block of a golden file (or of a `kata-raw-nn` answer, `tests/nn/gtp.rs`).
#[derive(Default)]
pub(super) struct Golden {
    pub id: String,
    pub size: usize,
    pub komi: f64,
    pub to_move: String,
    pub moves: Vec<String>,
    pub symmetry: usize,
    pub scalars: Vec<(String, f64)>,
    /// Row 0 at the top; `None` for NAN (illegal).
    pub policy: Vec<Option<f64>>,
    pub pass: f64,
    pub ownership: Vec<f64>,
}

impl Golden {
    /// The scalar called `name` (`whiteWin`, ...).
    pub fn scalar(&self, name: &str) -> f64 {
        self.scalars
            .iter()
            .find(|s| s.0 == name)
            .unwrap_or_else(|| panic!("{name} in position {}", self.id))
            .1
    }
}

pub(super) fn parse(text: &str) -> Vec<Golden> {
    let mut out = Vec::new();
    let mut cur = Golden::default();
    let mut section = "";
    for line in text.lines() {
        let toks: Vec<&str> = line.split_whitespace().collect();
        let Some(&head) = toks.first() else { continue };
        match head {
            "#" => {}
            "position" => {
                cur = Golden::default();
                let field = |name: &str| {
                    let i = toks.iter().position(|t| *t == name).expect(name);
                    toks[i + 1]
                };
                cur.id = toks[1].to_string();
                cur.size = field("size").parse().unwrap();
                cur.komi = field("komi").parse().unwrap();
                cur.to_move = field("to_move").to_string();
            }
            "moves" => cur.moves = toks[1..].iter().map(|s| s.to_string()).collect(),
            "raw" => {}
            "symmetry" => cur.symmetry = toks[1].parse().unwrap(),
            "policy" => section = "policy",
            "whiteOwnership" => section = "ownership",
            "policyPass" => {
                cur.pass = toks[1].parse().unwrap();
                section = "";
            }
            "end" => {
                out.push(std::mem::take(&mut cur));
                section = "";
            }
            _ if section == "policy" => cur.policy.extend(
                toks.iter()
                    .map(|t| (*t != "NAN").then(|| t.parse().unwrap())),
            ),
            _ if section == "ownership" => cur
                .ownership
                .extend(toks.iter().map(|t| t.parse::<f64>().unwrap())),
            _ => cur
                .scalars
                .push((head.to_string(), toks[1].parse().unwrap())),
        }
    }
    out
}

pub(super) fn game_of(g: &Golden) -> Game {
    let mut game = Game::new(g.size, Rules::chinese()).unwrap();
    game.set_komi(g.komi);
    for pair in g.moves.chunks(2) {
        let color = if pair[0] == "b" {
            Color::Black
        } else {
            Color::White
        };
        let mv = if pair[1] == "pass" {
            Move::Pass
        } else {
            Move::Place(super::point(g.size, &pair[1]))
        };
        game.play_record(color, mv)
            .unwrap_or_else(|e| panic!("position {}: {pair:?}: {e}", g.id));
    }
    let expected = if g.to_move == "b" {
        Color::Black
    } else {
        Color::White
    };
    assert_eq!(game.to_move(), expected, "position {}", g.id);
    game
}

/// The largest difference of each kind over a file, with where it was.
#[derive(Default)]
struct Worst(Vec<(&'static str, f64, String)>);

impl Worst {
    fn see(&mut self, kind: &'static str, ours: f64, theirs: f64, at: impl FnOnce() -> String) {
        let d = (ours - theirs).abs();
        let d = if d.is_nan() { f64::INFINITY } else { d };
        match self.0.iter_mut().find(|w| w.0 == kind) {
            Some(w) if w.1 >= d => {}
            Some(w) => *w = (kind, d, at()),
            None => self.0.push((kind, d, at())),
        }
    }
}

fn compare(e: &Evaluation, g: &Golden, worst: &mut Worst) {
    let at = |what: &str| format!("position {} sym {} {what}", g.id, g.symmetry);
    let scalar = |name: &str| {
        g.scalars
            .iter()
            .find(|s| s.0 == name)
            .unwrap_or_else(|| panic!("{name} in position {}", g.id))
            .1
    };
    worst.see("whiteWin", e.white_win as f64, scalar("whiteWin"), || {
        at("")
    });
    worst.see(
        "whiteLoss",
        e.white_loss as f64,
        scalar("whiteLoss"),
        || at(""),
    );
    worst.see("noResult", e.no_result as f64, scalar("noResult"), || {
        at("")
    });
    // Scores reach hundreds of points, where fp32 itself differs by about 1e-4: lead and
    // score are compared relative to max(1, |KataGo's value|).
    for name in ["whiteLead", "whiteScoreSelfplay"] {
        let (ours, theirs) = match name {
            "whiteLead" => (e.white_lead as f64, scalar(name)),
            _ => (e.white_score_mean as f64, scalar(name)),
        };
        let scale = theirs.abs().max(1.0);
        let kind = match name {
            "whiteLead" => "whiteLead (relative)",
            _ => "whiteScoreSelfplay (relative)",
        };
        worst.see(kind, ours / scale, theirs / scale, || at(""));
    }
    worst.see(
        "whiteScoreSelfplaySq (relative)",
        e.white_score_mean_sq as f64 / scalar("whiteScoreSelfplaySq").max(1.0),
        scalar("whiteScoreSelfplaySq") / scalar("whiteScoreSelfplaySq").max(1.0),
        || at(""),
    );
    worst.see("policyPass", e.pass as f64, g.pass, || at(""));
    let n = g.size;
    assert_eq!(g.policy.len(), n * n, "position {}", g.id);
    for i in 0..n * n {
        let place = || at(&format!("point {} of row {} from the top", i % n, i / n));
        match g.policy[i] {
            None => assert!(!e.legal[i], "{}: legal for us, not KataGo", place()),
            Some(p) => {
                assert!(e.legal[i], "{}: legal for KataGo, not us", place());
                worst.see("policy", e.policy[i] as f64, p, place);
            }
        }
        worst.see(
            "whiteOwnership",
            e.white_ownership[i] as f64,
            g.ownership[i],
            place,
        );
    }
}

fn check_file(net: &str, golden: &Path) {
    check_path(&super::fixture(net), golden);
}

fn check_path(path: &Path, golden: &Path) {
    let net = path.file_name().unwrap().to_string_lossy();
    let model = Model::load(path).unwrap();
    let text = std::fs::read_to_string(golden).unwrap();
    let blocks = parse(&text);
    assert!(
        blocks.len() >= 60,
        "{} blocks in {}",
        blocks.len(),
        golden.display()
    );
    let mut eval = Evaluator::new(&model).unwrap();
    let mut worst = Worst::default();
    let mut known = Worst::default();
    for g in &blocks {
        let game = game_of(g);
        let e = eval.evaluate_one(Request::new(
            &game,
            InputRules::katago_chinese(),
            g.symmetry,
        ));
        if KNOWN_INPUT_DIFFERENCES.contains(&g.id.as_str()) {
            compare(&e, g, &mut known);
        } else {
            compare(&e, g, &mut worst);
        }
    }
    // The same positions in batches of up to 7 of one board size (each in its own
    // symmetry): as close to KataGo as one by one.
    let mut batched = Worst::default();
    let mut i = 0;
    while i < blocks.len() {
        let size = blocks[i].size;
        let mut j = i;
        while j < blocks.len() && j - i < 7 && blocks[j].size == size {
            j += 1;
        }
        let games: Vec<Game> = blocks[i..j].iter().map(game_of).collect();
        let requests: Vec<Request> = games
            .iter()
            .zip(&blocks[i..j])
            .map(|(game, g)| Request::new(game, InputRules::katago_chinese(), g.symmetry))
            .collect();
        for (e, g) in eval
            .evaluate(&requests, &|| false)
            .unwrap()
            .iter()
            .zip(&blocks[i..j])
        {
            if !KNOWN_INPUT_DIFFERENCES.contains(&g.id.as_str()) {
                compare(e, g, &mut batched);
            }
        }
        i = j;
    }
    for (kind, d, at) in &known.0 {
        eprintln!("{net}: known input difference: {kind}: max error {d:.2e} ({at})");
    }
    let mut failed = Vec::new();
    let one = worst.0.iter().map(|w| ("", w));
    for (batch, (kind, d, at)) in one.chain(batched.0.iter().map(|w| ("batched: ", w))) {
        // whiteLead and the two scores are printed to 3 decimals: rounding adds 5e-4.
        let printed = match *kind {
            "whiteLead (relative)" | "whiteScoreSelfplay (relative)" => 5e-4,
            "whiteScoreSelfplaySq (relative)" => 5e-4,
            _ => 0.0,
        };
        eprintln!("{net}: {batch}{kind}: max error {d:.2e} ({at})");
        if *d > TOLERANCE + printed {
            failed.push(format!("{batch}{kind}: {d:.2e} at {at}"));
        }
    }
    assert!(failed.is_empty(), "{net}: beyond {TOLERANCE}: {failed:?}");
}

/// The fixture network `net` against its golden file (`golden/` + the name without
/// `.bin.gz`).
fn check_fixture(net: &str) {
    let dir = super::fixture_dir();
    let golden = dir.join("golden").join(net.replace(".bin.gz", ".txt"));
    check_file(net, &golden);
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn g170_matches_katago() {
    check_fixture(super::G170);
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn transformer_with_fixed_rope_matches_katago() {
    check_fixture(super::TF_ROPE);
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn transformer_with_grouped_heads_and_learned_rope_matches_katago() {
    check_fixture(super::TF_KV);
}

/// The network to play with (38 MB, not a fixture): where `scripts/fetch-model.sh` puts it.
/// CI fetches it.
#[test]
#[cfg_attr(
    not(all(tengen_fixtures, tengen_network)),
    ignore = "needs KataGo's fixture outputs and the network scripts/fetch-model.sh fetches"
)]
fn nested_bottleneck_transformer_matches_katago() {
    let dir = super::fixture_dir();
    let net = tengen::nn::default_model_path().expect("a home folder");
    assert!(
        net.is_file(),
        "{} is absent (scripts/fetch-model.sh fetches it)",
        net.display()
    );
    check_path(&net, &dir.join("golden/b10c384h6nbttflrs.txt"));
}

/// The fixtures' golden tests (and bf16's bounds where `cap` has AVX-512) again, in a test
/// process of their own under `TENGEN_CPU=cap` (`nn::cpu`): every kernel path this CPU
/// can execute is tested on it, the fallbacks of older CPUs included. The native path is
/// the tests themselves, in this process.
fn golden_under(cap: &str) {
    let mut tests = vec![
        "nn::forward::the_kernels_follow_tengen_cpu",
        "nn::forward::g170_matches_katago",
        "nn::forward::transformer_with_fixed_rope_matches_katago",
        "nn::forward::transformer_with_grouped_heads_and_learned_rope_matches_katago",
    ];
    if cap == "avx512" {
        tests.push("nn::forward::bf16_stays_close_to_fp32");
    }
    tests_under(cap, &tests);
}

/// The `tests` of this crate (full names) in a test process of their own under
/// `TENGEN_CPU=cap`, each of them run and passed.
fn tests_under(cap: &str, tests: &[&str]) {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .env("TENGEN_CPU", cap)
        .args(tests)
        .args(["--exact", "--test-threads", "2"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let want = format!(
        "test result: ok. {} passed; 0 failed; 0 ignored",
        tests.len()
    );
    assert!(
        out.status.success() && text.contains(&want),
        "TENGEN_CPU={cap}:\n{text}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    println!("TENGEN_CPU={cap}: {}", tests.join(", "));
}

/// Under `TENGEN_CPU` the kernels use what the cap leaves and nothing more; without it,
/// everything the CPU has.
#[test]
fn the_kernels_follow_tengen_cpu() {
    use tengen::nn::cpu::{features, Features};
    let (f, cpu) = (features(), Features::detected());
    match std::env::var("TENGEN_CPU").ok().as_deref() {
        Some("scalar") => assert!(!f.avx2 && !f.avx512 && f.capped == cpu.avx2, "{f:?}"),
        Some("avx2") => {
            assert!(f.avx2 && !f.avx512 && !f.avxvnni, "{f:?}");
            // The kernel of AVX2 CPUs without AVX-VNNI, what `int8_on_the_avx2_kernel` tests.
            assert_eq!(tengen::nn::kernels(Kind::Int8, 81), "avx2-int8");
        }
        Some("avx512") => assert!(f.avx512 && !f.avx512bf16 && !f.avx512vnni, "{f:?}"),
        _ => assert_eq!(f, cpu),
    }
    assert_eq!(Kind::Bf16.available(), f.avx512);
    assert_eq!(Kind::Int8.available(), f.avx2);
}

#[test]
#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
fn golden_on_the_scalar_kernels() {
    golden_under("scalar");
}

#[test]
#[cfg_attr(
    not(all(tengen_fixtures, tengen_avx2)),
    ignore = "needs KataGo's fixture networks and AVX2"
)]
fn golden_on_the_avx2_kernels() {
    golden_under("avx2");
}

/// int8's bounds ([`int8_stays_close_to_fp32`]) on the kernel of AVX2 CPUs without either
/// VNNI (`vpmaddubsw`, `src/nn/int8_avx2.rs`), in a test process under `TENGEN_CPU=avx2`.
#[test]
#[cfg_attr(
    not(all(tengen_fixtures, tengen_avx2)),
    ignore = "needs KataGo's fixture networks and AVX2"
)]
fn int8_on_the_avx2_kernel() {
    tests_under("avx2", &["nn::forward::int8_stays_close_to_fp32"]);
}

/// fp32 on AVX-512 without AVX512-BF16 or VNNI, and bf16 emulated by fp32 multiply-adds.
#[test]
#[cfg_attr(
    not(all(tengen_fixtures, tengen_avx512)),
    ignore = "needs KataGo's fixture networks and AVX-512 (F, VL, BW)"
)]
fn golden_on_the_avx512_kernels_and_bf16_emulated() {
    golden_under("avx512");
}

#[test]
fn symmetries_are_permutations_and_undo_each_other() {
    for n in [1, 2, 9, 13, 19] {
        for s in 0..8 {
            let mut seen = vec![false; n * n];
            for i in 0..n * n {
                let j = sym_pos(n, s, false, i);
                assert!(!seen[j]);
                seen[j] = true;
                // The output of the point the network saw at j is brought back to i.
                assert_eq!(sym_pos(n, s, true, j), i, "n {n} symmetry {s} point {i}");
            }
        }
    }
}

/// bf16's or int8's distance from fp32 (issue 45), over every golden position of a
/// network: the largest and mean differences in policy, win rate, lead and ownership, and
/// how often the policy's first move is fp32's, printed (the figures of PERF.md).
fn against_fp32(path: &Path, golden: &Path, kind: Kind) -> [(f64, f64); 4] {
    let model = Model::load(path).unwrap();
    let blocks = parse(&std::fs::read_to_string(golden).unwrap());
    let mut fp32 = Evaluator::new(&model).unwrap();
    let mut bf16 = Evaluator::with_kind(&model, kind).unwrap();
    let first = |p: &[f32]| (0..p.len()).max_by(|&a, &b| p[a].total_cmp(&p[b]));
    let mut same_first = 0;
    // (largest, sum) of |difference| per kind: policy, win rate, lead, ownership.
    let mut d = [(0.0f64, 0.0f64, 0usize); 4];
    let mut see = |k: usize, a: f32, b: f32| {
        let x = (a as f64 - b as f64).abs();
        d[k].0 = d[k].0.max(x);
        d[k].1 += x;
        d[k].2 += 1;
    };
    for g in &blocks {
        let game = game_of(g);
        let a = fp32.evaluate_one(Request::new(
            &game,
            InputRules::katago_chinese(),
            g.symmetry,
        ));
        let b = bf16.evaluate_one(Request::new(
            &game,
            InputRules::katago_chinese(),
            g.symmetry,
        ));
        for (x, y) in a.policy.iter().zip(&b.policy) {
            see(0, *x, *y);
        }
        see(0, a.pass, b.pass);
        see(1, a.white_win, b.white_win);
        see(2, a.white_lead, b.white_lead);
        for (x, y) in a.white_ownership.iter().zip(&b.white_ownership) {
            see(3, *x, *y);
        }
        same_first += usize::from(first(&a.policy) == first(&b.policy));
    }
    let net = path.file_name().unwrap().to_string_lossy();
    let out = d.map(|(max, sum, n)| (max, sum / n.max(1) as f64));
    let k = kind.name();
    for (what, (max, mean)) in ["policy", "win rate", "lead", "ownership"].iter().zip(out) {
        eprintln!("{net}: {k} against fp32: {what}: largest {max:.2e}, mean {mean:.2e}");
    }
    eprintln!(
        "{net}: {k} against fp32: the policy's first move the same in {same_first} of {}",
        blocks.len()
    );
    out
}

/// The networks the error tests run: the two fixture transformers, and b10c384h6 where it
/// has been fetched (`tengen_network`).
fn error_nets() -> Vec<(std::path::PathBuf, std::path::PathBuf)> {
    let dir = super::fixture_dir();
    let mut nets: Vec<_> = [super::TF_ROPE, super::TF_KV]
        .iter()
        .map(|n| {
            (
                dir.join(n),
                dir.join("golden").join(n.replace(".bin.gz", ".txt")),
            )
        })
        .collect();
    if cfg!(tengen_network) {
        let big = tengen::nn::default_model_path().expect("a home folder");
        nets.push((big, dir.join("golden/b10c384h6nbttflrs.txt")));
    } else {
        eprintln!("without b10c384h6: scripts/fetch-model.sh fetches it");
    }
    nets
}

/// `kind`'s distance from fp32 on every network of [`error_nets`] within `bounds`
/// (largest, mean) for policy, win rate, lead and ownership. Its tests are marked ignored
/// where this CPU has no kernels for `kind` or the fixtures are missing.
fn stays_close(kind: Kind, bounds: [(f64, f64); 4]) {
    assert!(
        kind.available(),
        "this CPU has no kernels for {}",
        kind.name()
    );
    let nets = error_nets();
    for (net, golden) in nets {
        let got = against_fp32(&net, &golden, kind);
        let what = ["policy", "win rate", "lead", "ownership"];
        for ((w, (max, mean)), (max_bound, mean_bound)) in what.iter().zip(got).zip(bounds) {
            assert!(
                max < max_bound && mean < mean_bound,
                "{}: {w} largest {max}, mean {mean}",
                net.display()
            );
        }
    }
}

#[cfg_attr(
    not(all(tengen_fixtures, tengen_avx512)),
    ignore = "needs KataGo's fixture networks and AVX-512 (F, VL, BW)"
)]
#[test]
fn bf16_stays_close_to_fp32() {
    stays_close(
        Kind::Bf16,
        [(0.05, 1e-3), (0.05, 0.01), (3.0, 0.3), (0.15, 0.01)],
    );
}

/// int8, with wider bounds on the means: on AVX512-VNNI three to four times bf16's
/// distance (PERF.md). The AVX2 kernels' integer sums are the same
/// ([`int8_on_the_avx2_kernel`] runs this under `TENGEN_CPU=avx2`).
#[cfg_attr(
    not(all(tengen_fixtures, tengen_avx2)),
    ignore = "needs KataGo's fixture networks and AVX2"
)]
#[test]
fn int8_stays_close_to_fp32() {
    stays_close(
        Kind::Int8,
        [(0.08, 5e-4), (0.05, 0.006), (3.0, 0.4), (0.15, 0.01)],
    );
}
