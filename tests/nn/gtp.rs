//! The network over GTP: `tengen --model FILE` and `kata-raw-nn`. The golden positions
//! replayed with `boardsize`, `komi` and `play`, each asked `kata-raw-nn SYM` and the
//! printed answer compared with KataGo's (`golden/NET.txt`); `all`; the errors of a
//! missing network and of a model file that cannot be read; the default network; the
//! search with a network behind `genmove`, `kata-analyze`, `tengen-best_moves_gfx` and
//! `final_score`.
//!
//! Only the comparisons with KataGo and the judgements of a real network need the fixture
//! files; the rest runs on a tiny network written for the test (`common::tiny_net`) on
//! every machine, and on the fixture network too when it is there.

use std::process::Stdio;
use tengen::nn::Kind;

use super::forward::{parse, Golden};
use super::{fixture, fixture_dir, optional_fixture, G170};
use crate::common::gtp::Gtp;
use crate::common::tiny_net::{self, Spec, TinyNet};

/// Agreement asked of every value, as in `forward.rs`; leads and scores, printed to 3
/// decimals on both sides, relative to max(1, |KataGo's|) and with their rounding added.
const TOLERANCE: f64 = 1e-4;
const SCORE_ROUNDING: f64 = 1e-3;

/// An answer of `kata-raw-nn` as golden blocks (one per symmetry).
fn blocks_of(answer: &str, size: usize) -> Vec<Golden> {
    let mut text = String::new();
    for (i, block) in answer.split("symmetry ").skip(1).enumerate() {
        text.push_str(&format!(
            "position {i} size {size} komi 0 to_move b\nsymmetry {block}\nend\n"
        ));
    }
    parse(&text)
}

/// The worst differences between Tengen's printed block and KataGo's, or what differs
/// in kind (illegal points, missing values).
fn differences(ours: &Golden, theirs: &Golden) -> Vec<String> {
    let mut out = Vec::new();
    let mut see = |what: String, d: f64, limit: f64| {
        if d.is_nan() || d > limit {
            out.push(format!("{what}: {d:.2e}"));
        }
    };
    for name in ["whiteWin", "whiteLoss", "noResult"] {
        let d = (ours.scalar(name) - theirs.scalar(name)).abs();
        see(name.to_string(), d, TOLERANCE);
    }
    for name in ["whiteLead", "whiteScoreSelfplay", "whiteScoreSelfplaySq"] {
        let t = theirs.scalar(name);
        let d = (ours.scalar(name) - t).abs() / t.abs().max(1.0);
        see(format!("{name} (relative)"), d, TOLERANCE + SCORE_ROUNDING);
    }
    see(
        "policyPass".into(),
        (ours.pass - theirs.pass).abs(),
        TOLERANCE,
    );
    let n = theirs.size;
    assert_eq!(ours.policy.len(), n * n, "policy points");
    assert_eq!(ours.ownership.len(), n * n, "ownership points");
    for i in 0..n * n {
        match (ours.policy[i], theirs.policy[i]) {
            (Some(a), Some(b)) => see(format!("policy at {i}"), (a - b).abs(), TOLERANCE),
            (None, None) => {}
            // A point legal on one side only: an infinite difference.
            (_, _) => see(format!("legality at {i}"), f64::INFINITY, TOLERANCE),
        }
        see(
            format!("ownership at {i}"),
            (ours.ownership[i] - theirs.ownership[i]).abs(),
            TOLERANCE,
        );
    }
    out
}

/// A network file a test runs on: a tiny one written for it (deleted with it), or a
/// fixture.
struct Net {
    name: String,
    path: String,
    /// The tiny network's file, kept (and deleted) with this; `None` for a fixture.
    written: Option<TinyNet>,
}

impl Net {
    fn tiny(spec: Spec) -> Net {
        let t = TinyNet::write(spec);
        Net {
            name: t.name().to_string(),
            path: t.arg(),
            written: Some(t),
        }
    }

    fn is_fixture(&self) -> bool {
        self.written.is_none()
    }
}

/// The tiny network of `seed`, and the fixture network when its file is there (else the
/// test says that it ran on the tiny one only).
fn networks(seed: u64) -> Vec<Net> {
    let mut out = vec![Net::tiny(Spec::new(seed))];
    if let Some(p) = optional_fixture(G170) {
        out.push(Net {
            name: G170.trim_end_matches(".bin.gz").to_string(),
            path: p.to_string_lossy().into_owned(),
            written: None,
        });
    }
    out
}

/// Sets up the golden position over GTP (its komi, its moves from an empty board).
fn replay(gtp: &mut Gtp, g: &Golden) {
    gtp.ask(&format!("boardsize {}", g.size));
    gtp.ask("clear_board");
    gtp.ask(&format!("komi {}", g.komi));
    for pair in g.moves.chunks(2) {
        gtp.ask(&format!("play {} {}", pair[0], pair[1]));
    }
}

/// `--set precision` reaches the network GTP evaluates with: bf16's and int8's answers
/// differ from fp32's where the CPU runs them, and auto answers as the kind it picks here
/// (bf16 with AVX512-BF16, else int8 with AVX512-VNNI, else fp32). On the tiny network
/// with a 1x1 convolution of 64 outputs, which those kernels run; on a CPU without AVX-512
/// only fp32 and auto are asked.
#[test]
fn the_precision_knob_reaches_the_evaluations() {
    let tiny = TinyNet::write(Spec {
        wide: true,
        ..Spec::new(11)
    });
    let net = tiny.path();
    let answer = |precision: &str| {
        let knob = format!("precision={precision}");
        let mut gtp = Gtp::start(&["--model", net.to_str().unwrap(), "--set", &knob]);
        gtp.ask("boardsize 9");
        gtp.ask("play b e5");
        let (answer, _) = gtp.ask("kata-raw-nn 0");
        gtp.finish();
        assert!(answer.starts_with("symmetry 0\nwhiteWin "), "{answer}");
        answer
    };
    let (fp32, auto) = (answer("fp32"), answer("auto"));
    for kind in [Kind::Bf16, Kind::Int8]
        .into_iter()
        .filter(|k| k.available())
    {
        let other = answer(kind.name());
        assert_ne!(
            other,
            fp32,
            "{} asked for, fp32's answer given",
            kind.name()
        );
    }
    let picked = tengen::nn::Plan::resolve(tengen::nn::Precision::Auto).kind;
    assert_eq!(
        auto,
        answer(picked.name()),
        "auto is {} on this CPU",
        picked.name()
    );
}

#[cfg_attr(
    not(tengen_fixtures),
    ignore = "needs KataGo's fixture networks: ../shared/nn or $TENGEN_NN_DIR"
)]
#[test]
fn kata_raw_nn_matches_katago_on_the_golden_positions() {
    let net = fixture(G170);
    let golden = fixture_dir().join("golden/g170-b6c96-s175395328-d26788732.txt");
    let blocks = parse(&std::fs::read_to_string(golden).unwrap());
    assert!(blocks.len() >= 60, "{} golden blocks", blocks.len());
    // fp32: KataGo's outputs (auto would be bf16 on a CPU with AVX512-BF16).
    let mut gtp = Gtp::start(&["--model", net.to_str().unwrap(), "--set", "precision=fp32"]);
    let mut failed = Vec::new();
    for g in &blocks {
        replay(&mut gtp, g);
        let (answer, _) = gtp.ask(&format!("kata-raw-nn {}", g.symmetry));
        assert!(
            answer.starts_with(&format!("symmetry {}\nwhiteWin ", g.symmetry)),
            "{answer}"
        );
        let ours = blocks_of(&answer, g.size);
        assert_eq!(ours.len(), 1, "one block for one symmetry");
        for d in differences(&ours[0], g) {
            failed.push(format!("position {} symmetry {}: {d}", g.id, g.symmetry));
        }
    }
    let stderr = gtp.finish();
    assert!(
        stderr.starts_with("tengen ")
            && stderr.contains("network g170-b6c96-s175395328-d26788732 (")
            && stderr.contains(", loaded in "),
        "no load line on stderr: {stderr}"
    );
    assert!(failed.is_empty(), "beyond {TOLERANCE}: {failed:#?}");
}

/// `kata-raw-nn all` is the eight symmetries' answers in turn, each another evaluation;
/// the default optimism is KataGo's 0.2, which moves the policy of a network with an
/// optimistic second policy head (the tiny one's) and of no other (g170's). Only that the
/// symmetries of a position agree on the win rate needs a real network.
#[test]
fn kata_raw_nn_all_answers_each_symmetry_in_turn() {
    for net in networks(21) {
        let name = &net.name;
        let mut gtp = Gtp::start(&["--model", &net.path]);
        gtp.ask("boardsize 9");
        gtp.ask("komi 7");
        for mv in ["b E5", "w C4", "b G3"] {
            gtp.ask(&format!("play {mv}"));
        }
        let (all, _) = gtp.ask("kata-raw-nn all 0");
        let mut expected = String::new();
        for s in 0..8 {
            let (one, _) = gtp.ask(&format!("kata-raw-nn {s} 0"));
            expected.push_str(&one);
            expected.push('\n');
        }
        assert_eq!(all, expected.trim_end(), "{name}");
        let blocks = blocks_of(&all, 9);
        assert_eq!(blocks.len(), 8, "{name}");
        for (s, b) in blocks.iter().enumerate() {
            assert_eq!(b.symmetry, s, "{name}");
        }
        // The same position in another symmetry is another evaluation (but the same game).
        assert_ne!(blocks[0].policy, blocks[1].policy, "{name}");
        if net.is_fixture() {
            let win = |b: &Golden| b.scalar("whiteWin");
            assert!((win(&blocks[0]) - win(&blocks[5])).abs() < 0.05, "{name}");
        }
        // The default optimism is 0.2: the same as 0 for one policy head; for the tiny
        // network's optimistic head another policy (and the same values).
        let default = gtp.ask("kata-raw-nn all").0;
        assert_eq!(default, gtp.ask("kata-raw-nn all 0.2").0, "{name}");
        if net.is_fixture() {
            assert_eq!(default, all, "{name}: one policy head");
        } else {
            let optimistic = blocks_of(&default, 9);
            assert_ne!(optimistic[0].policy, blocks[0].policy, "{name}");
            assert_eq!(
                optimistic[0].scalar("whiteWin"),
                blocks[0].scalar("whiteWin"),
                "{name}"
            );
        }
        // A bad symmetry or optimism is a syntax error, and nothing changes.
        for bad in [
            "kata-raw-nn 8",
            "kata-raw-nn all 2",
            "kata-raw-nn",
            "kata-raw-nn x",
        ] {
            gtp.send(bad);
            assert_eq!(gtp.answer_failure(), "syntax error", "{name}: {bad}");
        }
        // Asked again (from the cache): the same text.
        assert_eq!(gtp.ask("kata-raw-nn all 0").0, all, "{name}");
        gtp.finish();
    }
}

#[test]
fn kata_raw_nn_without_a_network_is_an_error() {
    let mut gtp = Gtp::start(&[]);
    let (commands, _) = gtp.ask("list_commands");
    assert!(commands.lines().any(|l| l == "kata-raw-nn"), "{commands}");
    assert_eq!(gtp.ask("known_command kata-raw-nn").0, "true");
    gtp.send("kata-raw-nn 0");
    let e = gtp.answer_failure();
    assert!(e.contains("no network") && e.contains("--model"), "{e}");
    // The engine goes on.
    assert_eq!(gtp.ask("name").0, "Tengen");
    gtp.finish();
}

/// `tengen --model FILE` on stdin `quit`: exit status and stderr.
fn start_with_model(file: &std::path::Path) -> (Option<i32>, String) {
    let out = crate::common::tengen()
        .arg("--model")
        .arg(file)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("run tengen");
    assert!(out.stdout.is_empty(), "GTP started: {:?}", out.stdout);
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_model_that_cannot_be_read_stops_start_up_naming_the_file() {
    let dir = std::env::temp_dir().join(format!("tengen-nn-gtp-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let png = dir.join("picture.png");
    std::fs::write(&png, b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01").unwrap();
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a network at all\n").unwrap();
    let cut_gz = dir.join("cut.bin.gz");
    std::fs::write(&cut_gz, b"\x1f\x8b\x08\0\0\0\0\0").unwrap();
    let cases = [
        (dir.join("missing.bin.gz"), "cannot read"),
        (dir.clone(), "not a regular file"),
        (png, "picture.png: "),
        (text, "notes.txt: "),
        (cut_gz, "gzip"),
    ];
    for (file, problem) in cases {
        let (code, stderr) = start_with_model(&file);
        assert_eq!(code, Some(2), "{}: {stderr}", file.display());
        assert!(
            stderr.contains(&file.display().to_string()) && stderr.contains(problem),
            "{}: {stderr}",
            file.display()
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With a network, `final_score` counts with the network's dead stones, the passes that
/// ended the game taken back first: shown the two passes, the small fixture network
/// judged White's dead stones of this GNU Go game alive and counted W+11.5 where the
/// record (and GNU Go) count B+72.5. A real network's judgement of a real game: skips
/// when the fixture network or the corpora are not beside the checkout (the mechanism on
/// every machine: the next test).
#[cfg_attr(
    not(all(tengen_fixtures, tengen_corpora)),
    ignore = "needs KataGo's fixture networks and ../shared/corpora"
)]
#[test]
fn final_score_uses_the_network_dead_stones_of_a_finished_game() {
    let net = fixture(G170);
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpora/gnugo-regression/games/kgs/GNU-tadf.sgf"
    );
    assert!(std::path::Path::new(game).is_file(), "{game} is absent");
    let net = net.to_string_lossy().into_owned();
    let mut e = Gtp::start(&["--threads", "1", "--model", &net]);
    e.ask(&format!("loadsgf {game}"));
    e.ask("komi 6.5");
    assert_eq!(e.ask("final_score").0, "B+72.5");
    let (dead, _) = e.ask("final_status_list dead");
    assert!(dead.len() > 10, "dead stones: {dead}");
    e.finish();
}

/// `final_score` and `final_status_list dead` with a network count with its dead stones,
/// judged in the position without the passes that ended the game, by the ownership of
/// the player to move there. Tiny networks that give every point to the player to move
/// (or to the opponent): Black's wall D1-D9 and White's wall F1-F9, White's stone B5 in
/// Black's side and Black's stone H5 in White's; whichever of the two the network gives
/// away is dead (the other side's is out in open ground, and stays), and the count is
/// exact, the empty points both colours reach (column E, and the side of the lone stone
/// that stays) counted to the colour the network gives them: B+56 with B5 off (Black 9 +
/// 27 + 1 + 9 + 26, White 9), W+70 with H5 off (White 9 + 27 + 1 + 9 + 26, Black 9; komi
/// 7).
#[test]
fn final_score_counts_with_the_dead_stones_the_network_gives() {
    let walls: Vec<String> = (1..=9)
        .flat_map(|i| [format!("b D{i}"), format!("w F{i}")])
        .collect();
    let walls: Vec<&str> = walls.iter().map(String::as_str).collect();
    let black_to_move = [&walls[..], &["b H5", "w B5"]].concat();
    let white_to_move = [&walls[..], &["b pass", "w B5", "b H5"]].concat();
    let b5 = ("B+56", "B5");
    let h5 = ("W+70", "H5");
    for (owner, mover_owns) in [(5.0, true), (-5.0, false)] {
        let net = Net::tiny(Spec {
            owner,
            ..Spec::new(31)
        });
        let (if_black, if_white) = if mover_owns { (b5, h5) } else { (h5, b5) };
        let cases = [
            (black_to_move.clone(), if_black),
            (white_to_move.clone(), if_white),
            // A pass is taken back: Black to move (White to move on the board).
            ([&black_to_move[..], &["b pass"]].concat(), if_black),
            (
                [&black_to_move[..], &["b pass", "w pass"]].concat(),
                if_black,
            ),
            (
                [&white_to_move[..], &["w pass", "b pass"]].concat(),
                if_white,
            ),
        ];
        for (moves, (score, dead)) in cases {
            let mut e = Gtp::start(&["--threads", "1", "--model", &net.path]);
            e.ask("boardsize 9");
            e.ask("komi 7");
            for m in &moves {
                e.ask(&format!("play {m}"));
            }
            let last = moves.last().unwrap();
            assert_eq!(e.ask("final_score").0, score, "owner {owner}, last {last}");
            assert_eq!(e.ask("final_status_list dead").0, dead, "owner {owner}");
            e.finish();
        }
    }
    // Without a network the playouts judge: neither lone stone survives.
    let mut e = Gtp::start(&["--threads", "1", "--model", "none", "--seed", "1"]);
    e.ask("boardsize 9");
    for m in &black_to_move {
        e.ask(&format!("play {m}"));
    }
    assert_eq!(e.ask("final_status_list dead").0, "B5\nH5");
    e.finish();
}

/// `tengen` with `input` on stdin, `TENGEN_MODEL` and `TENGEN_MODEL_DIR` as given (unset
/// when `None`), `args` on the command line: stdout and stderr.
fn run_with_env(
    args: &[&str],
    model: Option<&str>,
    model_dir: &std::path::Path,
    input: &str,
) -> (String, String) {
    use std::io::Write;
    let mut cmd = crate::common::tengen();
    cmd.args(args)
        .env("TENGEN_MODEL_DIR", model_dir)
        .env_remove("TENGEN_MODEL")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(m) = model {
        cmd.env("TENGEN_MODEL", m);
    }
    let mut child = cmd.spawn().expect("run tengen");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Without `--model`, the network at the default place is loaded and named on stderr;
/// `--model none` (or `TENGEN_MODEL=none`) plays without it; with no file there, stderr
/// says so and the playout search plays; `TENGEN_MODEL=FILE` names another network. Tiny
/// networks (any network file would do), one at the default place and another elsewhere.
#[test]
fn the_default_network_is_loaded_when_present_and_none_refuses_it() {
    let dir = std::env::temp_dir().join(format!("tengen-default-model-{}", std::process::id()));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let default = Spec::new(41);
    std::fs::write(
        dir.join(tengen::nn::DEFAULT_MODEL_NAME),
        tiny_net::gzipped(default),
    )
    .unwrap();
    let other = Net::tiny(Spec::new(42));
    let input = "boardsize 9\nkata-raw-nn 0\nquit\n";
    let has_net = |out: &str| out.contains("whiteWin");
    let loaded = |err: &str, name: &str| {
        // The first line on stderr says what plays.
        let first = err.lines().next().unwrap_or("");
        first.starts_with("tengen ")
            && first.contains(&format!(": network {name} ("))
            && first.contains(", loaded in ")
            && first.contains("; precision ")
    };

    let (out, err) = run_with_env(&[], None, &dir, input);
    assert!(has_net(&out), "{out}\n{err}");
    assert!(loaded(&err, &default.name()), "{err}");

    for (args, model) in [(&["--model", "none"][..], None), (&[][..], Some("none"))] {
        let (out, err) = run_with_env(args, model, &dir, input);
        assert!(!has_net(&out) && out.contains("? "), "{out}\n{err}");
        assert!(!err.contains("loaded in"), "{err}");
        let first = err.lines().next().unwrap_or("");
        assert!(first.contains(": the playout search plays ("), "{err}");
    }

    let (out, err) = run_with_env(&[], None, &empty, input);
    assert!(!has_net(&out), "{out}");
    assert!(err.contains("no network at"), "{err}");

    let (out, err) = run_with_env(&[], Some(&other.path), &dir, input);
    assert!(has_net(&out), "{out}\n{err}");
    assert!(loaded(&err, &other.name), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The `n` numbers after `key` in each visited segment of an analysis update that has it.
fn values_of(update: &str, key: &str, n: usize) -> Vec<Vec<f64>> {
    update
        .split("info ")
        .filter(|s| !s.contains(" visits 0 "))
        .filter_map(|s| {
            let t: Vec<&str> = s.split_whitespace().collect();
            let i = t.iter().position(|&x| x == key)?;
            Some(
                t[i + 1..i + 1 + n]
                    .iter()
                    .map(|v| v.parse().unwrap())
                    .collect(),
            )
        })
        .collect()
}

/// With a network, `kata-analyze` gives each move its own `scoreStdev` (the network's
/// score spread under the move: its evaluations' own spread and that of their leads) and
/// its own `movesOwnership`, and stops on the next line as without one. On the tiny
/// network (and the fixture one when present): any network's evaluations differ from
/// move to move. (The same fields on the fake network: `tests/puct.rs`.)
#[test]
fn kata_analyze_with_a_network_gives_each_move_its_score_spread_and_ownership() {
    for net in networks(51) {
        let name = &net.name;
        let wait = std::time::Duration::from_secs(30);
        let mut g = Gtp::start(&["--threads", "2", "--model", &net.path]);
        g.ask("boardsize 9");
        g.send("kata-analyze B 20 movesOwnership true");
        assert_eq!(g.line(wait), "=");
        let mut stdevs: Vec<f64> = Vec::new();
        let mut owns: Vec<Vec<f64>> = Vec::new();
        for _ in 0..50 {
            let update = g.line(wait);
            owns = values_of(&update, "movesOwnership", 81);
            stdevs = values_of(&update, "scoreStdev", 1)
                .into_iter()
                .map(|v| v[0])
                .collect();
            if stdevs.len() >= 3 {
                break;
            }
        }
        g.send("protocol_version");
        while !g.line(wait).is_empty() {}
        assert_eq!(g.answer().0, "2");
        assert!(stdevs.len() >= 3, "{name}: {stdevs:?}");
        assert!(
            stdevs.iter().all(|&s| s > 0.5 && s < 100.0),
            "{name}: {stdevs:?}"
        );
        assert!(
            stdevs.windows(2).any(|w| w[0] != w[1]),
            "{name}: one spread for every move: {stdevs:?}"
        );
        assert!(
            owns.len() >= 3,
            "{name}: movesOwnership in {} segments",
            owns.len()
        );
        assert!(
            owns.windows(2).any(|w| w[0] != w[1]),
            "{name}: one ownership for every move"
        );
        assert!(
            owns.iter().flatten().all(|o| (-1.0..=1.0).contains(o)),
            "{name}"
        );
        g.finish();
    }
}

/// With a network, `tengen-best_moves_gfx` counts evaluations (one a simulation: the 40
/// asked for) where the playouts count playouts, and shows the lead of the side to move.
/// On the tiny network and, when present, the fixture one, whose lead (White's after E5)
/// is a judgement: within 15 points of even. (The same on the fake network:
/// `tests/puct.rs`.)
#[test]
fn gogui_best_moves_with_a_network_count_evaluations_and_show_the_lead() {
    for net in networks(61) {
        let name = &net.name;
        let mut e = Gtp::start(&[
            "--threads",
            "1",
            "--seed",
            "1",
            "--visits",
            "40",
            "--model",
            &net.path,
        ]);
        e.ask("boardsize 9");
        e.ask("play B E5");
        let (gfx, _) = e.ask("tengen-best_moves_gfx");
        let text = gfx.lines().find(|l| l.starts_with("TEXT ")).expect(&gfx);
        // "TEXT D5 43.1% (12 visits), lead -0.6, 40 evaluations": White's lead after E5.
        assert!(text.ends_with(", 40 evaluations"), "{name}: {text}");
        let lead = crate::common::gfx_lead(text);
        assert!(lead.is_finite(), "{name}: {text}");
        if net.is_fixture() {
            assert!((-15.0..15.0).contains(&lead), "{name}: {text}");
        }
        e.finish();
    }
}

/// `genmove` with a network plays legal moves for both sides, stones while the board is
/// open: ten moves on a tiny network, each replayed on a game of our own, and the engine's
/// board has them (a stone there cannot be played again).
#[test]
fn genmove_with_a_network_plays_legal_moves() {
    let net = Net::tiny(Spec::new(71));
    let mut e = Gtp::start(&[
        "--threads",
        "1",
        "--seed",
        "2",
        "--visits",
        "30",
        "--model",
        &net.path,
    ]);
    e.ask("boardsize 9");
    e.ask("komi 7");
    let mut game = tengen::Game::new(9, tengen::Rules::chinese()).unwrap();
    for i in 0..10 {
        let (color, name) = if i % 2 == 0 {
            (tengen::Color::Black, "b")
        } else {
            (tengen::Color::White, "w")
        };
        let (mv, _) = e.ask(&format!("genmove {name}"));
        assert!(mv != "pass" && mv != "resign", "move {i}: {mv}");
        let p = super::point(9, &mv);
        if let Err(err) = game.play(color, tengen::Move::Place(p)) {
            panic!("move {i}: {mv} is illegal: {err:?}");
        }
        e.send(&format!("play {} {mv}", if i % 2 == 0 { "w" } else { "b" }));
        assert!(e.answer_failure().contains("illegal"), "move {i}: {mv}");
    }
    e.finish();
}
