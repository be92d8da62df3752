//! Counts of finished positions with seki (issue 42): GNU Go's seki regression games
//! played out by KataGo (`tests/data/seki_positions.tsv`, made by
//! `scripts/make_seki_positions.py`), each counted by Tengen's playout judge and network
//! judge as KataGo counts it. The seki positions are read from `../shared/corpora`; a
//! test that finds them (or the network it needs) absent says so and passes.
//!
//! `cargo test --release --test integration seki::`

use std::path::{Path, PathBuf};

use crate::common::gtp::run_once;

/// One position: the corpus file, whether KataGo took the dead stones off before passing
/// (its count is then exact), the moves after the set-up, KataGo's dead stones and count.
struct Row {
    source: String,
    cleanup: bool,
    moves: Vec<String>,
    dead: Vec<String>,
    score: String,
}

/// `../shared/corpora`: its tests are marked ignored where build.rs did not find it; run
/// anyway, they fail here.
fn corpora() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/corpora");
    assert!(dir.is_dir(), "no ../shared/corpora beside the crate");
    dir
}

/// The network `scripts/fetch-model.sh` fetches, as an argument: its tests are marked
/// ignored where build.rs did not find it; run anyway, they fail here.
fn network() -> String {
    let model = tengen::nn::default_model_path().expect("a home folder");
    assert!(
        model.is_file(),
        "{} is absent (scripts/fetch-model.sh)",
        model.display()
    );
    model.to_string_lossy().into_owned()
}

fn rows() -> Vec<Row> {
    let text = include_str!("data/seki_positions.tsv");
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.starts_with("source\t"))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 5, "{l}");
            let moves: Vec<&str> = f[2].split_whitespace().collect();
            Row {
                source: f[0].to_string(),
                cleanup: f[1] == "1",
                moves: moves
                    .chunks(2)
                    .map(|m| format!("{} {}", m[0], m[1]))
                    .collect(),
                dead: f[3].split_whitespace().map(str::to_string).collect(),
                score: f[4].to_string(),
            }
        })
        .collect()
}

/// Every row's `final_status_list dead` and `final_score` from one engine with `args`.
fn judge(corpora: &Path, rows: &[&Row], args: &[&str]) -> Vec<(Vec<String>, String)> {
    let mut input = String::new();
    for r in rows {
        input += &format!("loadsgf {}\nkomi 7.5\n", corpora.join(&r.source).display());
        for m in &r.moves {
            input += &format!("play {m}\n");
        }
        input += "final_status_list dead\nfinal_score\n";
    }
    let (out, err) = run_once(args, &input);
    let answers: Vec<&str> = out.split("\n\n").filter(|a| !a.is_empty()).collect();
    let mut at = 0;
    rows.iter()
        .map(|r| {
            at += 2 + r.moves.len();
            let dead = answers[at].trim_start_matches('=').split_whitespace();
            let score = answers[at + 1].trim_start_matches('=').trim();
            assert!(
                answers[at].starts_with('='),
                "{}: {}\n{err}",
                r.source,
                answers[at]
            );
            at += 2;
            (dead.map(str::to_string).collect(), score.to_string())
        })
        .collect()
}

/// Rows where the judge's count differs from KataGo's (and, for positions KataGo left
/// with dead stones, where its dead stones differ), as lines to print.
fn disagreements(rows: &[&Row], args: &[&str]) -> Vec<String> {
    let corpora = corpora();
    let got = judge(&corpora, rows, args);
    let mut bad = Vec::new();
    for (r, (dead, score)) in rows.iter().zip(got) {
        let mut want_dead = r.dead.clone();
        want_dead.sort();
        let mut dead_sorted = dead.clone();
        dead_sorted.sort();
        if score != r.score || (!r.cleanup && dead_sorted != want_dead) {
            bad.push(format!(
                "{}: {score} dead [{}], KataGo {} dead [{}]",
                r.source,
                dead.join(" "),
                r.score,
                r.dead.join(" ")
            ));
        }
    }
    bad
}

#[cfg_attr(not(tengen_corpora), ignore = "needs ../shared/corpora")]
#[test]
fn the_playout_judge_counts_every_seki_position_as_katago() {
    let rows = rows();
    let all: Vec<&Row> = rows.iter().collect();
    assert!(all.len() >= 40);
    let bad = disagreements(&all, &["--model", "none", "--threads", "1", "--seed", "1"]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[cfg_attr(
    not(all(tengen_corpora, tengen_network)),
    ignore = "needs ../shared/corpora and the network scripts/fetch-model.sh fetches"
)]
#[test]
fn the_network_judge_counts_every_seki_position_as_katago() {
    let rows = rows();
    let all: Vec<&Row> = rows.iter().collect();
    let model = network();
    let bad = disagreements(&all, &["--model", &model, "--threads", "1"]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[cfg_attr(
    not(all(tengen_corpora, tengen_fixtures)),
    ignore = "needs ../shared/corpora and KataGo's fixture networks"
)]
#[test]
fn the_fixture_networks_judge_counts_the_finished_seki_positions_as_katago() {
    // The small fixture network (g170 b6c96): the positions KataGo finished by taking
    // every dead stone off, so that every stone left is alive or in seki.
    let rows = rows();
    let finished: Vec<&Row> = rows.iter().filter(|r| r.cleanup).collect();
    assert!(finished.len() >= 20);
    let model = crate::nn::fixture(crate::nn::G170);
    let model = model.to_string_lossy().into_owned();
    let bad = disagreements(&finished, &["--model", &model, "--threads", "1"]);
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// KataGo's 7x7 area-scoring position (`tests/data/area_scoring_seki_7x7.sgf`: Black
/// B7-G6 in seki with White D7-F7, komi 0.5) and seven moves after it, with GNU Go 3.8's
/// `final_score` (`--chinese-rules`) of each of the eight positions. In the first two,
/// E3 F3 G3 F4 G4 (inside Black's living group, touching White's wall) are Black's by
/// the judgement's ownership, as GNU Go and KataGo count them (W+1.5), not nobody's.
const SEVEN_BY_SEVEN_MOVES: [&str; 7] = ["b F4", "w G4", "b G3", "w F3", "b E3", "w A4", "b G1"];
const SEVEN_BY_SEVEN_GNUGO: [&str; 8] = [
    "W+1.5", "W+1.5", "B+3.5", "B+3.5", "B+3.5", "B+3.5", "B+3.5", "B+3.5",
];

/// `final_score` of the 7x7 position and after each of its seven moves, by an engine
/// with `args`. The file is part of the repository: its absence fails.
fn seven_by_seven_scores(args: &[&str]) -> Vec<String> {
    let sgf = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/area_scoring_seki_7x7.sgf"
    );
    assert!(Path::new(sgf).is_file(), "{sgf} is missing");
    let mut input = format!("loadsgf {sgf}\nkomi 0.5\nfinal_score\n");
    for m in SEVEN_BY_SEVEN_MOVES {
        input += &format!("play {m}\nfinal_score\n");
    }
    let (out, err) = run_once(args, &input);
    let scores: Vec<String> = out
        .split("\n\n")
        .filter_map(|a| a.strip_prefix('='))
        .map(str::trim)
        .filter(|a| !a.is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(scores.len(), 8, "{out}\n{err}");
    scores
}

/// The playout judge counts the empty points both colours reach to nobody (its playouts'
/// ownership would give a seki's shared liberty away), and judges the dead stones as GNU
/// Go does from W F3 on: there it counts as GNU Go. Before that it keeps B4 A2 B1 (its
/// search sees a seki) or B4 (in atari) on the board, and counts E3 F3 to nobody.
#[test]
fn the_playout_judge_counts_the_7x7_seki_position_as_gnugo_once_settled() {
    let got = seven_by_seven_scores(&["--model", "none", "--threads", "1"]);
    assert_eq!(got[4..], SEVEN_BY_SEVEN_GNUGO[4..], "{got:?}");
}

#[test]
#[cfg_attr(
    not(tengen_network),
    ignore = "needs the network scripts/fetch-model.sh fetches"
)]
fn the_network_judge_counts_the_7x7_seki_position_as_gnugo() {
    let model = network();
    let got = seven_by_seven_scores(&["--model", &model, "--threads", "1"]);
    assert_eq!(got, SEVEN_BY_SEVEN_GNUGO);
}
