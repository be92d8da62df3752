//! `tengen review` on a small record with an obvious blunder: every move gets SBKV and a
//! comment, mistakes get Tengen's variation beside them, the summary names the blunder,
//! the graph is an SVG.

use std::process::Command;

#[test]
fn review_marks_every_move_and_the_blunder() {
    let dir = std::env::temp_dir().join(format!("tengen-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out, plot) = (dir.join("r.sgf"), dir.join("r.svg"));
    let run = Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args([
            "review",
            "tests/data/review-blunder.sgf",
            "--visits",
            "2000",
        ])
        .args(["--threads", "1", "--seed", "1", "--out"])
        .arg(&out)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let summary = String::from_utf8_lossy(&run.stdout);
    // Move 3 (A8) leaves the three black stones captured and the game lost.
    let black = summary
        .split("White's biggest mistakes")
        .next()
        .unwrap()
        .to_string();
    assert!(black.contains("move 3 A8"), "{summary}");
    let sgf = std::fs::read_to_string(&out).unwrap();
    let rec = tengen::sgf::parse_record(&sgf).expect("the review parses");
    assert_eq!(rec.nodes.len(), 5, "root and four moves on the main line");
    let sbkv = sgf.matches("SBKV[").count();
    assert_eq!(sbkv, 4, "{sgf}");
    for v in sgf.split("SBKV[").skip(1) {
        let x: f64 = v.split(']').next().unwrap().parse().unwrap();
        assert!((0.0..=100.0).contains(&x));
    }
    assert!(sgf.contains(")(;"), "a variation beside a mistake: {sgf}");
    let svg = std::fs::read_to_string(&plot).unwrap();
    assert!(svg.starts_with("<svg") && svg.contains("<polyline"));
    let _ = std::fs::remove_dir_all(&dir);
}
