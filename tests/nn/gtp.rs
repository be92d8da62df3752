//! The network over GTP: `tengen --model FILE` and `kata-raw-nn`. The golden positions
//! replayed with `boardsize`, `komi` and `play`, each asked `kata-raw-nn SYM` and the
//! printed answer compared with KataGo's (`golden/NET.txt`); `all`; the errors of a
//! missing network and of a model file that cannot be read.

use std::process::{Command, Stdio};

use super::forward::{parse, Golden};
use super::{fixture, fixture_dir, G170};
use crate::common::gtp::Gtp;

const TENGEN: &str = env!("CARGO_BIN_EXE_tengen");

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

/// Sets up the golden position over GTP (its komi, its moves from an empty board).
fn replay(gtp: &mut Gtp, g: &Golden) {
    gtp.ask(&format!("boardsize {}", g.size));
    gtp.ask("clear_board");
    gtp.ask(&format!("komi {}", g.komi));
    for pair in g.moves.chunks(2) {
        gtp.ask(&format!("play {} {}", pair[0], pair[1]));
    }
}

#[test]
fn kata_raw_nn_matches_katago_on_the_golden_positions() {
    let Some(net) = fixture(G170) else { return };
    let golden = fixture_dir()
        .unwrap()
        .join("golden/g170-b6c96-s175395328-d26788732.txt");
    let blocks = parse(&std::fs::read_to_string(golden).unwrap());
    assert!(blocks.len() >= 60, "{} golden blocks", blocks.len());
    let mut gtp = Gtp::start(&["--model", net.to_str().unwrap()]);
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
        stderr.contains("network g170-b6c96-s175395328-d26788732 ")
            && stderr.contains(" loaded from ")
            && stderr.contains(" s\n"),
        "no load line on stderr: {stderr}"
    );
    assert!(failed.is_empty(), "beyond {TOLERANCE}: {failed:#?}");
}

#[test]
fn kata_raw_nn_all_answers_each_symmetry_in_turn() {
    let Some(net) = fixture(G170) else { return };
    let mut gtp = Gtp::start(&["--model", net.to_str().unwrap()]);
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
    assert_eq!(all, expected.trim_end());
    let blocks = blocks_of(&all, 9);
    assert_eq!(blocks.len(), 8);
    for (s, b) in blocks.iter().enumerate() {
        assert_eq!(b.symmetry, s);
    }
    // The same position in another symmetry is another evaluation (but the same game).
    assert_ne!(blocks[0].policy, blocks[1].policy);
    let win = |b: &Golden| b.scalar("whiteWin");
    assert!((win(&blocks[0]) - win(&blocks[5])).abs() < 0.05);
    // Asked again (from the cache): the same text. The default optimism changes nothing
    // for a network with one policy head.
    assert_eq!(gtp.ask("kata-raw-nn all").0, all);
    // A bad symmetry or optimism is a syntax error, and nothing changes.
    for bad in [
        "kata-raw-nn 8",
        "kata-raw-nn all 2",
        "kata-raw-nn",
        "kata-raw-nn x",
    ] {
        gtp.send(bad);
        assert_eq!(gtp.answer_failure(), "syntax error", "{bad}");
    }
    gtp.finish();
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
    let out = Command::new(TENGEN)
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
/// record (and GNU Go) count B+72.5. Skips when the corpora are not beside the checkout.
#[test]
fn final_score_uses_the_network_dead_stones_of_a_finished_game() {
    let Some(net) = fixture(G170) else {
        return;
    };
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../shared/corpora/gnugo-regression/games/kgs/GNU-tadf.sgf"
    );
    if !std::path::Path::new(game).is_file() {
        eprintln!("skipped: {game} is absent");
        return;
    }
    let net = net.to_string_lossy().into_owned();
    let mut e = Gtp::start(&["--threads", "1", "--model", &net]);
    e.ask(&format!("loadsgf {game}"));
    e.ask("komi 6.5");
    assert_eq!(e.ask("final_score").0, "B+72.5");
    let (dead, _) = e.ask("final_status_list dead");
    assert!(dead.len() > 10, "dead stones: {dead}");
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
    let mut cmd = Command::new(TENGEN);
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
/// says so and the playout search plays; `TENGEN_MODEL=FILE` names another network.
#[test]
fn the_default_network_is_loaded_when_present_and_none_refuses_it() {
    let Some(net) = fixture(G170) else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("tengen-default-model-{}", std::process::id()));
    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    std::fs::copy(&net, dir.join(tengen::nn::DEFAULT_MODEL_NAME)).unwrap();
    let input = "boardsize 9\nkata-raw-nn 0\nquit\n";
    let has_net = |out: &str| out.contains("whiteWin");

    let (out, err) = run_with_env(&[], None, &dir, input);
    assert!(has_net(&out), "{out}\n{err}");
    assert!(
        err.contains("network g170") && err.contains("loaded from"),
        "{err}"
    );

    for (args, model) in [(&["--model", "none"][..], None), (&[][..], Some("none"))] {
        let (out, err) = run_with_env(args, model, &dir, input);
        assert!(!has_net(&out) && out.contains("? "), "{out}\n{err}");
        assert!(!err.contains("loaded from"), "{err}");
    }

    let (out, err) = run_with_env(&[], None, &empty, input);
    assert!(!has_net(&out), "{out}");
    assert!(err.contains("no network at"), "{err}");

    let (out, err) = run_with_env(&[], Some(&net.to_string_lossy()), &empty, input);
    assert!(has_net(&out), "{out}\n{err}");
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
/// its own `movesOwnership`, and stops on the next line as without one. (The same fields
/// on the fake network, without network files: `tests/puct.rs`.)
#[test]
fn kata_analyze_with_a_network_gives_each_move_its_score_spread_and_ownership() {
    let Some(net) = fixture(G170) else {
        return;
    };
    let net = net.to_string_lossy().into_owned();
    let wait = std::time::Duration::from_secs(30);
    let mut g = Gtp::start(&["--threads", "2", "--model", &net]);
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
    assert!(stdevs.len() >= 3, "{stdevs:?}");
    assert!(stdevs.iter().all(|&s| s > 0.5 && s < 100.0), "{stdevs:?}");
    assert!(
        stdevs.windows(2).any(|w| w[0] != w[1]),
        "one spread for every move: {stdevs:?}"
    );
    assert!(owns.len() >= 3, "movesOwnership in {} segments", owns.len());
    assert!(
        owns.windows(2).any(|w| w[0] != w[1]),
        "one ownership for every move"
    );
    g.finish();
}

/// (The same on the fake network, without network files: `tests/puct.rs`.)
#[test]
fn gogui_best_moves_with_a_network_count_evaluations_and_show_the_lead() {
    let Some(net) = fixture(G170) else {
        return;
    };
    let net = net.to_string_lossy().into_owned();
    let mut e = Gtp::start(&[
        "--threads",
        "1",
        "--seed",
        "1",
        "--visits",
        "40",
        "--model",
        &net,
    ]);
    e.ask("boardsize 9");
    e.ask("play B E5");
    let (gfx, _) = e.ask("tengen-best_moves_gfx");
    let text = gfx.lines().find(|l| l.starts_with("TEXT ")).expect(&gfx);
    // "TEXT D5 43.1% (12 visits), lead -0.6, 40 evaluations": White's lead after E5.
    assert!(text.ends_with(" evaluations"), "{text}");
    let lead: f64 = text
        .split("lead ")
        .nth(1)
        .unwrap()
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((-15.0..15.0).contains(&lead), "{text}");
    e.finish();
}
