//! `tengen match` against the scripted fake engine (`tengen scripted-gtp`,
//! src/tools/fakes.rs): every way of losing, clocks, resuming, and the SGF loading back
//! through `loadsgf`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::common::TENGEN;

/// The scripted engine: `tengen scripted-gtp` (src/tools/fakes.rs).
fn fake() -> String {
    format!("{TENGEN} scripted-gtp")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-match-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

struct Run {
    last_line: String,
    stdout: String,
    rows: Vec<Vec<String>>,
    dir: PathBuf,
}

impl Run {
    /// Column `name` of every row.
    fn col(&self, name: &str) -> Vec<String> {
        let header = "game\tblack\twhite\tresult\treason\tmoves\tseconds\ta_longest\tb_longest\tscorer\twinner";
        let i = header
            .split('\t')
            .position(|h| h == name)
            .expect("known column");
        self.rows.iter().map(|r| r[i].clone()).collect()
    }
}

fn run_match(dir: &Path, a: &str, b: &str, extra: &[&str]) -> Run {
    let mut args = vec![
        "match", "--a", a, "--b", b, "--size", "9", "--komi", "7.5", "--out",
    ];
    let d = dir.display().to_string();
    args.push(&d);
    args.extend_from_slice(extra);
    let out = crate::common::tengen()
        .args(&args)
        .stderr(Stdio::inherit())
        .output()
        .expect("run tengen match");
    assert!(out.status.success(), "tengen match {args:?} failed");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let last_line = stdout.lines().last().unwrap_or("").to_string();
    let tsv = std::fs::read_to_string(dir.join("results.tsv")).expect("results.tsv");
    let mut rows: Vec<Vec<String>> = tsv
        .lines()
        .skip(1)
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect();
    rows.sort_by_key(|r| r[0].parse::<usize>().unwrap());
    Run {
        last_line,
        stdout,
        rows,
        dir: dir.to_path_buf(),
    }
}

/// A with `a_opts`, B with `b_opts`, both the scripted engine.
fn scripted(name: &str, a_opts: &str, b_opts: &str, extra: &[&str]) -> Run {
    let f = fake();
    let dir = out_dir(name);
    run_match(
        &dir,
        &format!("{f} --name FakeA {a_opts}"),
        &format!("{f} --name FakeB {b_opts}"),
        extra,
    )
}

#[test]
fn normal_games_are_counted_and_the_sgf_loads_back() {
    let run = scripted(
        "normal",
        "--pass-after 10 --seed 1",
        "--pass-after 10 --seed 2",
        &["--games", "2", "--time-per-move", "5"],
    );
    assert_eq!(run.col("game"), ["0", "1"]);
    assert_eq!(run.col("black"), ["A", "B"]);
    assert_eq!(run.col("reason"), ["score", "score"]);
    assert_eq!(run.col("scorer"), ["engines", "engines"]);
    assert!(
        run.last_line.starts_with("games=2 a_wins="),
        "{}",
        run.last_line
    );
    assert!(run.last_line.ends_with("illegal=0 time_losses=0 crashes=0"));
    assert!(run.stdout.contains("Wilson"));
    let summary = std::fs::read_to_string(run.dir.join("summary.txt")).unwrap();
    assert!(summary.ends_with(&format!("{}\n", run.last_line)));

    // Game 0: each side plays 9 moves, then passes (the same processes play game 1,
    // which they pass out at once).
    let sgf_path = run.dir.join("game-000.sgf");
    let sgf = std::fs::read_to_string(&sgf_path).unwrap();
    for prop in [
        "PB[FakeA 1.0]",
        "PW[FakeB 1.0]",
        "SZ[9]",
        "KM[7.5]",
        "RU[",
        "RE[",
        "DT[",
        "WL[",
        "B[]",
    ] {
        assert!(sgf.contains(prop), "{prop} missing in {sgf}");
    }
    let moves: usize = run.col("moves")[0].parse().unwrap();
    assert!(moves >= 18, "{moves}");

    // loadsgf, then the move count and the result agree with the record.
    let mut gtp = crate::common::tengen()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let script = format!("loadsgf {}\nprintsgf\nquit\n", sgf_path.display());
    gtp.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = gtp.wait_with_output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with('=') && !text.contains('?'), "{text}");
    assert!(text.contains("= (;FF[4]"), "{text}");
    let nodes = text.matches(";B[").count() + text.matches(";W[").count();
    assert_eq!(nodes, moves, "{text}");
}

#[test]
fn illegal_move_loses() {
    let run = scripted(
        "illegal",
        "--pass-after 10",
        "--illegal-at 3",
        &["--games", "1"],
    );
    assert_eq!(run.col("reason"), ["illegal"]);
    assert_eq!(run.col("winner"), ["A"]);
    assert_eq!(run.col("result"), ["B+F"]);
    assert!(run.last_line.contains("illegal=1"), "{}", run.last_line);
    let sgf = std::fs::read_to_string(run.dir.join("game-000.sgf")).unwrap();
    assert!(sgf.contains("B lost: illegal"), "{sgf}");
}

#[test]
fn crash_loses() {
    let run = scripted(
        "crash",
        "--pass-after 10",
        "--crash-at 2",
        &["--games", "1"],
    );
    assert_eq!(run.col("reason"), ["crash"]);
    assert_eq!(run.col("winner"), ["A"]);
    assert!(run.last_line.contains("crashes=1"), "{}", run.last_line);
}

#[test]
fn no_answer_loses() {
    let run = scripted(
        "hang",
        "--pass-after 10",
        "--hang-at 2",
        &["--games", "1", "--timeout", "1"],
    );
    assert_eq!(run.col("reason"), ["timeout"]);
    assert_eq!(run.col("winner"), ["A"]);
    assert!(run.last_line.contains("crashes=1"), "{}", run.last_line);
}

#[test]
fn malformed_genmove_and_resign_lose() {
    let run = scripted(
        "garbage",
        "--pass-after 10 --resign-at 4",
        "--garbage-at 3",
        &["--games", "2"],
    );
    // Game 0: B (White) answers garbage at its 3rd move, before A resigns at its 4th.
    // Game 1: the same B process goes on counting; A resigns at its 4th genmove overall,
    // which comes in game 1 (A played 3 in game 0).
    assert_eq!(run.col("reason"), ["bad-genmove", "resign"]);
    assert_eq!(run.col("winner"), ["A", "B"]);
    assert_eq!(run.col("result"), ["B+F", "B+R"]);
}

#[test]
fn flag_falls_under_absolute_time() {
    // 1 s for the game, 0.2 s grace: B's moves of 0.8 s fall on the second.
    let run = scripted(
        "absolute",
        "--pass-after 10",
        "--pass-after 10 --sleep 0.8",
        &["--games", "1", "--time", "absolute 1", "--grace", "0.2"],
    );
    assert_eq!(run.col("reason"), ["time"]);
    assert_eq!(run.col("result"), ["B+T"]);
    assert_eq!(run.col("moves"), ["3"]);
    assert!(run.last_line.contains("time_losses=1"), "{}", run.last_line);
}

#[test]
fn flag_falls_under_byoyomi() {
    // One period of 1 s: B's 0.6 s moves keep it, its 1.6 s move overruns it. A is told
    // its clock with kgs-time_settings and time_left (checked in its log).
    let f = fake();
    let dir = out_dir("byoyomi");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("a.log");
    let run = run_match(
        &dir,
        &format!("{f} --pass-after 10 --log {}", log.display()),
        &format!("{f} --pass-after 10 --sleep 0.6 --sleep-at 3:1.6"),
        &["--games", "1", "--time", "byoyomi 0 1 1", "--grace", "0.2"],
    );
    assert_eq!(run.col("reason"), ["time"]);
    assert_eq!(run.col("winner"), ["A"]);
    assert_eq!(run.col("moves"), ["5"]);
    let log = std::fs::read_to_string(&log).unwrap();
    assert!(log.contains("kgs-time_settings byoyomi 0 1 1"), "{log}");
    assert!(log.contains("time_left black 1 1"), "{log}");
}

#[test]
fn engines_that_refuse_time_write_stderr_and_start_slowly_still_play() {
    let run = scripted(
        "tolerant",
        "--pass-after 10 --refuse-time --stderr-lines 2000 --startup 1",
        "--pass-after 10",
        &["--games", "1", "--time-per-move", "5"],
    );
    assert_eq!(run.col("reason"), ["score"]);
}

#[test]
fn disputed_scores_go_to_the_referee_or_tengen() {
    let f = fake();
    let dir = out_dir("dispute");
    let run = run_match(
        &dir,
        &format!("{f} --pass-after 10 --score B+1"),
        &format!("{f} --pass-after 10 --score W+1"),
        &["--games", "1"],
    );
    assert_eq!(run.col("scorer"), ["tengen"]);
    let dir = out_dir("referee");
    let run = run_match(
        &dir,
        &format!("{f} --pass-after 10 --score B+1"),
        &format!("{f} --pass-after 10 --score W+1"),
        &["--games", "1", "--referee", &format!("{f} --score W+99")],
    );
    assert_eq!(run.col("scorer"), ["referee"]);
    assert_eq!(run.col("result"), ["W+99"]);
    assert_eq!(run.col("winner"), ["B"]);
}

#[test]
fn rerun_resumes() {
    let f = fake();
    let dir = out_dir("resume");
    let a = format!("{f} --pass-after 10 --seed 3");
    let b = format!("{f} --pass-after 10 --seed 4");
    let first = run_match(&dir, &a, &b, &["--games", "2"]);
    let sgf0 = std::fs::read_to_string(dir.join("game-000.sgf")).unwrap();
    // A half-written row (a run killed mid-line) is dropped and its game replayed.
    let mut tsv = std::fs::OpenOptions::new()
        .append(true)
        .open(dir.join("results.tsv"))
        .unwrap();
    write!(tsv, "2\tA\tB\tB+").unwrap();
    drop(tsv);
    let second = run_match(&dir, &a, &b, &["--games", "4", "--parallel", "2"]);
    assert_eq!(second.col("game"), ["0", "1", "2", "3"]);
    assert_eq!(second.rows[..2], first.rows[..]);
    assert_eq!(
        std::fs::read_to_string(dir.join("game-000.sgf")).unwrap(),
        sgf0
    );
    assert!(second.last_line.starts_with("games=4 "));
    // Another match in the same folder is refused.
    let out = crate::common::tengen()
        .args(["match", "--a", &a, "--b", &b, "--size", "13", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("another match"));
}

/// `--shard K/N` plays the games numbered K modulo N, with the whole match's colours; the
/// shards' folders merged (`tengen match-merge`) give the unsharded match's summary.
#[test]
fn shards_merge_into_the_whole_match() {
    let f = fake();
    // Both pass at once and agree that Black won: the result depends on the colours alone.
    let a = format!("{f} --name FakeA --pass-after 1 --score B+5");
    let b = format!("{f} --name FakeB --pass-after 1 --score B+5");
    let games = ["--games", "5"];
    let whole = run_match(&out_dir("shard-whole"), &a, &b, &games);
    let s0 = run_match(
        &out_dir("shard-0"),
        &a,
        &b,
        &[&games[..], &["--shard", "0/2"]].concat(),
    );
    let s1 = run_match(
        &out_dir("shard-1"),
        &a,
        &b,
        &[&games[..], &["--shard", "1/2"]].concat(),
    );
    assert_eq!(s0.col("game"), ["0", "2", "4"]);
    assert_eq!(s0.col("black"), ["A", "A", "A"]);
    assert_eq!(s1.col("game"), ["1", "3"]);
    assert_eq!(s1.col("black"), ["B", "B"]);
    assert_eq!(whole.col("black"), ["A", "B", "A", "B", "A"]);
    assert_eq!(whole.col("winner"), ["A", "B", "A", "B", "A"]);
    assert!(
        s1.last_line.starts_with("games=2 a_wins=0 "),
        "{}",
        s1.last_line
    );

    let merge = |dirs: &[&Path]| {
        crate::common::tengen()
            .arg("match-merge")
            .args(dirs)
            .stderr(Stdio::inherit())
            .output()
            .expect("run tengen match-merge")
    };
    let out = merge(&[&s1.dir, &s0.dir]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(text.lines().last(), Some(whole.last_line.as_str()));
    assert!(
        whole.last_line.starts_with("games=5 a_wins=3 "),
        "{}",
        whole.last_line
    );
    // The whole summary but for the move times, line by line.
    let timeless = |t: &str| -> Vec<String> {
        t.lines()
            .filter(|l| !l.contains("move time"))
            .map(String::from)
            .collect()
    };
    assert_eq!(timeless(&text), timeless(&whole.stdout));

    // A game in two folders, or folders of two matches, are refused.
    assert!(!merge(&[&s0.dir, &whole.dir]).status.success());
    let other = run_match(
        &out_dir("shard-other"),
        &a,
        &b,
        &["--games", "1", "--grace", "2"],
    );
    assert!(!merge(&[&s1.dir, &other.dir]).status.success());
    // A shard out of range is refused before anything runs.
    let bad = crate::common::tengen()
        .args([
            "match",
            "--a",
            &a,
            "--b",
            &b,
            "--out",
            "/nonexistent/x",
            "--shard",
            "2/2",
        ])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
}
