//! `tengen review` on a small record with an obvious blunder: every move gets SBKV and a
//! comment, mistakes get Tengen's variation beside them, the summary names the blunder,
//! the graph (SVG or PNG by the extension) is written with the blunder marked and
//! labelled.

#[test]
fn review_marks_every_move_and_the_blunder() {
    let dir = std::env::temp_dir().join(format!("tengen-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out, plot) = (dir.join("r.sgf"), dir.join("r.svg"));
    let run = crate::common::tengen()
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
    assert!(
        svg.starts_with("<svg") && svg.contains("<polyline"),
        "{svg}"
    );
    // The blunder is labelled with its move, the axes with moves and percentages.
    let texts: Vec<&str> = svg
        .split("<text")
        .skip(1)
        .map(|t| {
            t.split('>')
                .nth(1)
                .unwrap()
                .split('<')
                .next()
                .unwrap()
                .trim()
        })
        .collect();
    assert!(texts.contains(&"3 A8"), "{texts:?}");
    assert!(
        texts.contains(&"Move") && texts.contains(&"50%"),
        "{texts:?}"
    );
    assert!(svg.contains("Black&apos;s win rate"), "the axis named");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run of `tengen review --plot FILE` on the blunder record, returning its stderr.
fn review_plot(plot: &std::path::Path, out: &std::path::Path) -> std::process::Output {
    crate::common::tengen()
        .args(["review", "tests/data/review-blunder.sgf", "--visits", "300"])
        .args(["--threads", "1", "--seed", "1", "--out"])
        .arg(out)
        .arg("--plot")
        .arg(plot)
        .output()
        .unwrap()
}

#[test]
fn review_plot_format_follows_the_extension() {
    let dir = std::env::temp_dir().join(format!("tengen-review-png-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out, png) = (dir.join("r.sgf"), dir.join("r.PNG"));
    let run = review_plot(&png, &out);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&png).unwrap();
    assert!(bytes.len() > 5_000, "{} bytes", bytes.len());
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG signature");
    // IHDR: 1000 x 640 pixels.
    assert_eq!(&bytes[16..24], &[0, 0, 3, 0xe8, 0, 0, 2, 0x80]);

    // Any other extension is refused at once, before the review runs.
    let (pdf, out2) = (dir.join("r.pdf"), dir.join("r2.sgf"));
    let run = review_plot(&pdf, &out2);
    assert!(!run.status.success());
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains(".svg or .png"), "{err}");
    assert!(!pdf.exists() && !out2.exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn review_refuses_a_file_in_a_missing_directory_before_reviewing() {
    let dir = std::env::temp_dir().join(format!("tengen-review-dir-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (out, plot) = (dir.join("r.sgf"), dir.join("missing").join("r.svg"));
    // 10 million visits would take hours: the refusal comes first.
    let start = std::time::Instant::now();
    let run = crate::common::tengen()
        .args(["review", "tests/data/review-blunder.sgf"])
        .args(["--visits", "10000000", "--threads", "1", "--out"])
        .arg(&out)
        .arg("--plot")
        .arg(&plot)
        .output()
        .unwrap();
    assert!(!run.status.success());
    assert!(start.elapsed().as_secs() < 60);
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("no directory"), "{err}");
    assert!(!out.exists(), "nothing written");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn review_into_a_closed_pipe_is_not_a_failure() {
    let dir = std::env::temp_dir().join(format!("tengen-review-pipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("r.sgf");
    let mut child = crate::common::tengen()
        .args(["review", "tests/data/review-blunder.sgf", "--visits", "50"])
        .args(["--threads", "1", "--seed", "1", "--out"])
        .arg(&out)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // The reader goes away at once, as `| head -0` would.
    drop(child.stdout.take());
    let run = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(out.exists(), "the review is written");
    let _ = std::fs::remove_dir_all(&dir);
}
