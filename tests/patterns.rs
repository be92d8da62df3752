//! The learned move model: the built-in weights load, the model's first choice in
//! positions with one right answer, and `tengen train-patterns` end to end on a few
//! records (deterministic, and far better than chance on held-out moves).

use tengen::board::{Board, Color, Move};
use tengen::policy::features::{Context, VERSION};
use tengen::policy::model::{self, Model};

fn board_from(rows: &[&str]) -> Board {
    Board::from_rows(rows).expect("a square diagram")
}

fn top_move(m: &Model, b: &Board, color: Color, last: Option<Move>) -> Move {
    let ctx = Context {
        color,
        last,
        before: None,
        third: None,
    };
    let probs = m.probabilities(b, &ctx, &|_| true);
    let total: f64 = probs.iter().map(|(_, p)| p).sum();
    assert!((total - 1.0).abs() < 1e-9, "{total}");
    probs
        .into_iter()
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .unwrap()
        .0
}

fn builtin() -> &'static Model {
    model::builtin().expect("weights/patterns.bin holds a model of this feature version")
}

#[test]
fn builtin_weights_load() {
    let m = builtin();
    assert!(m.spatial.len() > 10_000, "{} patterns", m.spatial.len());
    assert!(!m.shapes.is_empty());
    // The file is what `to_bytes` writes: reading and writing it back changes nothing.
    let bytes =
        std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/weights/patterns.bin")).unwrap();
    assert_eq!(m.to_bytes(), bytes, "feature version {VERSION}");
}

#[test]
fn captures_a_big_chain_in_atari() {
    // Six white stones (A4-F4) in atari, their last liberty B3; Black to move, White's
    // last move far away.
    let b = board_from(&[
        ".........",
        ".........",
        ".........",
        ".........",
        "XXXXXX...",
        "OOOOOOX..",
        "X.XXXXX..",
        "X.XX.....",
        ".X.......",
    ]);
    let last = b.point(8, 8).map(Move::Place);
    let mv = top_move(builtin(), &b, Color::Black, last);
    let lib = b.liberties(b.point(0, 3).unwrap());
    assert_eq!(lib.len(), 1, "the chain is in atari");
    assert_eq!(mv, Move::Place(lib[0]));
}

#[test]
fn saves_a_big_chain_in_atari() {
    // Five black stones (C5-F5, F4) put in atari by White's G4; extending at F3, their
    // one liberty, gives them three.
    let b = board_from(&[
        ".........",
        ".........",
        ".........",
        "..OOOO...",
        ".OXXXXO..",
        "..OOOXO..",
        ".........",
        ".........",
        ".........",
    ]);
    let chain = b.point(2, 4).unwrap();
    let libs = b.liberties(chain);
    assert_eq!(libs.len(), 1, "in atari: {libs:?}");
    let last = b.point(6, 3).map(Move::Place);
    let mv = top_move(builtin(), &b, Color::Black, last);
    assert_eq!(mv, Move::Place(libs[0]));
}

/// Runs `tengen SUBCOMMAND` with `args` on the 13 AlphaGo games (against Lee Sedol and
/// others) twice, checks that both runs write the same file, and gives the summary line
/// (stdout) and the file.
/// The 13 AlphaGo games of the shared corpora (beside the checkout, as `.ci/run` has
/// them; a fresh clone alone has not).
const ALPHAGO: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../shared/corpora/computer-go-dataset-ai/AlphaGo"
);

fn train_twice(subcommand: &str, args: &[&str]) -> (String, Vec<u8>) {
    let dir = ALPHAGO;
    let tmp = std::env::temp_dir().join(format!("tengen-{subcommand}-{}", std::process::id()));
    let run = |out: &str| {
        let o = crate::common::tengen()
            .arg(subcommand)
            .arg(dir)
            .args(args)
            .arg("--out")
            .arg(tmp.join(out))
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    std::fs::create_dir_all(&tmp).unwrap();
    let line = run("a.bin");
    run("b.bin");
    let a = std::fs::read(tmp.join("a.bin")).unwrap();
    assert_eq!(
        a,
        std::fs::read(tmp.join("b.bin")).unwrap(),
        "deterministic"
    );
    std::fs::remove_dir_all(&tmp).ok();
    (line, a)
}

/// The number after `name` in a summary line.
fn field(line: &str, name: &str) -> f64 {
    line.split_whitespace()
        .find_map(|w| w.strip_prefix(name))
        .unwrap()
        .parse()
        .unwrap()
}

#[cfg_attr(not(tengen_corpora), ignore = "needs ../shared/corpora")]
#[test]
fn train_patterns_end_to_end() {
    assert!(
        std::path::Path::new(ALPHAGO).is_dir(),
        "no game records at {ALPHAGO}"
    );
    // 3 of the 13 games held out.
    let (line, a) = train_twice(
        "train-patterns",
        &["--rounds", "2", "--min-count", "2", "--hold-out-every", "4"],
    );
    let m = Model::from_bytes(&a).expect("a model");
    assert!(!m.spatial.is_empty());
    // Chance is well under 1%; the model must do far better.
    assert!(field(&line, "top1=") > 0.15, "{line}");
}
