//! Named positions with known answers, played through `Game`: ko, snapback, captures that
//! look like suicide, suicide under both rule sets, eternal life, triple ko, sending two
//! and returning one, seki and handicap counting, draws, hashes and the stones form of a
//! 19x19 result.
//!
//! The eternal-life, triple-ko, send-two-return-one and area-scoring-seki diagrams are the
//! KataGo test positions in `/work/shared/corpora/derived/katago_positions/`, copied here
//! as diagrams (files are not read at run time); the move sequences were worked out for
//! these tests.

use tengen::board::STONE_KEYS;
use tengen::{Color, Game, IllegalMove, KoRule, Move, Point, Rules};

use Color::{Black, White};

const COLUMNS: &str = "ABCDEFGHJKLMNOPQRSTUVWXYZ";

/// The point of a GTP vertex such as `D4` (no `I` column).
fn pt(g: &Game, v: &str) -> Point {
    let col = COLUMNS
        .find(v[..1].to_ascii_uppercase().as_str())
        .expect("column letter");
    let row: usize = v[1..].parse().expect("row number");
    g.board().point(col, row - 1).expect("vertex on the board")
}

/// A game set up from a diagram, top row first: `X` Black, `O` White, `.` empty.
fn from_diagram(rules: Rules, rows: &[&str], to_move: Color) -> Game {
    let n = rows.len();
    let mut g = Game::new(n, rules).expect("size in range");
    let mut stones = Vec::new();
    for (i, line) in rows.iter().enumerate() {
        assert_eq!(line.len(), n, "row {line:?} of a {n}x{n} diagram");
        let row = n - 1 - i;
        for (col, ch) in line.chars().enumerate() {
            let p = g.board().point(col, row).expect("on board");
            match ch {
                'X' => stones.push((Black, p)),
                'O' => stones.push((White, p)),
                '.' => {}
                _ => panic!("bad diagram character {ch:?}"),
            }
        }
    }
    g.set_position(&stones, to_move);
    assert_eq!(g.setup().len(), stones.len());
    g
}

/// The board as a diagram, top row first.
fn diagram(g: &Game) -> Vec<String> {
    let n = g.size();
    (0..n)
        .rev()
        .map(|row| {
            (0..n)
                .map(
                    |col| match g.board().get(g.board().point(col, row).unwrap()) {
                        Some(Black) => 'X',
                        Some(White) => 'O',
                        None => '.',
                    },
                )
                .collect()
        })
        .collect()
}

fn play(g: &mut Game, c: Color, v: &str) {
    let p = pt(g, v);
    if let Err(e) = g.play(c, Move::Place(p)) {
        panic!("{c:?} {v} refused: {e:?}\n{:?}", g.board());
    }
    g.board().check_consistency().unwrap();
}

fn check(g: &Game, c: Color, v: &str) -> Result<(), IllegalMove> {
    g.check(c, Move::Place(pt(g, v)))
}

fn pass(g: &mut Game, c: Color) {
    g.play(c, Move::Pass).unwrap();
}

fn situational() -> Rules {
    Rules {
        ko: KoRule::Situational,
        ..Rules::chinese()
    }
}

fn simple_ko(rules: Rules) -> Rules {
    Rules {
        ko: KoRule::Simple,
        ..rules
    }
}

// ---------------------------------------------------------------------------------------
// Ko, snapback, capture vs suicide.

#[test]
fn ko_recapture_refused_until_a_threat_is_exchanged() {
    let rows = [
        "....X", //
        ".XO..", //
        "XO.O.", //
        ".XO..", //
        ".....",
    ];
    for rules in [Rules::chinese(), situational(), simple_ko(Rules::chinese())] {
        let mut g = from_diagram(rules.clone(), &rows, Black);
        // Black takes the ko: C3 captures B3 and is left with one liberty, B3.
        play(&mut g, Black, "C3");
        assert_eq!(g.board().get(pt(&g, "B3")), None);
        assert_eq!(g.board().captures(Black), 1);
        assert_eq!(g.board().ko(), Some((pt(&g, "B3"), White)));
        // The immediate recapture is refused as ko, whatever the superko rule.
        assert_eq!(check(&g, White, "B3"), Err(IllegalMove::Ko), "{rules:?}");
        assert!(!g.legal_points(White).contains(&pt(&g, "B3")));
        assert_eq!(
            g.play(White, Move::Place(pt(&g, "B3"))),
            Err(IllegalMove::Ko)
        );
        assert_eq!(g.moves().len(), 1);
        // A ko threat (atari on E5) and its answer (D5 connects out).
        play(&mut g, White, "E4");
        assert!(g.board().in_atari(pt(&g, "E5")));
        play(&mut g, Black, "D5");
        assert!(!g.board().in_atari(pt(&g, "E5")));
        // Now White may take back, and then Black may not at once.
        assert_eq!(check(&g, White, "B3"), Ok(()));
        play(&mut g, White, "B3");
        assert_eq!(g.board().get(pt(&g, "C3")), None);
        assert_eq!(g.board().captures(White), 1);
        assert_eq!(check(&g, Black, "C3"), Err(IllegalMove::Ko));
        // Undo brings back the earlier verdicts.
        assert!(g.undo());
        assert_eq!(check(&g, White, "B3"), Ok(()));
        assert_eq!(g.board().captures(White), 0);
    }
}

#[test]
fn ko_after_passes_is_superko_not_ko() {
    // After a ko capture and two passes the retake would repeat the position before the
    // capture: forbidden by positional superko (not as simple ko: the ko point is
    // cleared by the pass), allowed under simple ko.
    let rows = [
        ".....", //
        ".XO..", //
        "XO.O.", //
        ".XO..", //
        ".....",
    ];
    let mut g = from_diagram(Rules::chinese(), &rows, Black);
    play(&mut g, Black, "C3");
    pass(&mut g, White);
    pass(&mut g, Black);
    assert!(g.is_over());
    assert_eq!(g.board().ko(), None);
    assert_eq!(check(&g, White, "B3"), Err(IllegalMove::Superko));

    let mut g = from_diagram(simple_ko(Rules::chinese()), &rows, Black);
    play(&mut g, Black, "C3");
    pass(&mut g, White);
    pass(&mut g, Black);
    assert_eq!(check(&g, White, "B3"), Ok(()));
}

#[test]
fn snapback() {
    let rows = [
        ".....", //
        ".....", //
        "XXXX.", //
        "OOOX.", //
        "..OX.",
    ];
    let mut g = from_diagram(Rules::chinese(), &rows, Black);
    // The white chain A2 B2 C2 C1 has two liberties, A1 and B1. Black throws in at B1:
    // a stone in atari, capturing nothing.
    play(&mut g, Black, "B1");
    assert_eq!(g.board().captures(Black), 0);
    assert!(g.board().in_atari(pt(&g, "B1")));
    assert!(g.board().in_atari(pt(&g, "A2")));
    // White captures the one stone...
    play(&mut g, White, "A1");
    assert_eq!(g.board().captures(White), 1);
    assert_eq!(g.board().get(pt(&g, "B1")), None);
    // ...and that is no ko: the capturing stone joined a chain now in atari at B1.
    assert_eq!(g.board().ko(), None);
    assert_eq!(g.board().liberties(pt(&g, "A1")), vec![pt(&g, "B1")]);
    // Black recaptures at once on the same point, taking five stones.
    assert_eq!(check(&g, Black, "B1"), Ok(()));
    play(&mut g, Black, "B1");
    assert_eq!(g.board().captures(Black), 5);
    assert_eq!(diagram(&g), [".....", ".....", "XXXX.", "...X.", ".X.X."]);
}

#[test]
fn capture_that_looks_like_suicide_is_legal() {
    let rows = [
        "...", //
        "OX.", //
        ".OX",
    ];
    for rules in [Rules::chinese(), Rules::tromp_taylor()] {
        let mut g = from_diagram(rules, &rows, Black);
        // A1 has no empty neighbour, but B1 has only the liberty A1.
        assert_eq!(
            g.board().neighbor_count(pt(&g, "A1"), tengen::Cell::Empty),
            0
        );
        assert!(!g.board().is_suicide(Black, pt(&g, "A1")));
        play(&mut g, Black, "A1");
        assert_eq!(diagram(&g), ["...", "OX.", "X.X"]);
        assert_eq!(g.board().captures(Black), 1);
        assert_eq!(g.board().captures(White), 0);
    }
}

#[test]
fn single_stone_suicide() {
    let rows = [
        "...", //
        "O..", //
        ".O.",
    ];
    let g = from_diagram(Rules::chinese(), &rows, Black);
    assert_eq!(check(&g, Black, "A1"), Err(IllegalMove::Suicide));
    assert!(!g.legal_points(Black).contains(&pt(&g, "A1")));

    // Tromp-Taylor allows suicide, but a lone stone that removes itself repeats the
    // position, which positional superko forbids.
    let g = from_diagram(Rules::tromp_taylor(), &rows, Black);
    assert_eq!(check(&g, Black, "A1"), Err(IllegalMove::Superko));

    // With only simple ko it is a legal (pointless) move: the stone is White's prisoner.
    let mut g = from_diagram(simple_ko(Rules::tromp_taylor()), &rows, Black);
    let before = g.board().hash();
    play(&mut g, Black, "A1");
    assert_eq!(g.board().hash(), before);
    assert_eq!(diagram(&g), ["...", "O..", ".O."]);
    assert_eq!(g.board().captures(White), 1);
    assert_eq!(g.to_move(), White);
}

#[test]
fn multi_stone_suicide() {
    let rows = [
        "....", //
        "OO..", //
        "XXO.", //
        ".O..",
    ];
    let g = from_diagram(Rules::chinese(), &rows, Black);
    // A1 would take the last liberty of A2-B2 and capture nothing (B1 keeps C1).
    assert_eq!(check(&g, Black, "A1"), Err(IllegalMove::Suicide));

    let mut g = from_diagram(Rules::tromp_taylor(), &rows, Black);
    assert_eq!(check(&g, Black, "A1"), Ok(()));
    let before = g.board().hash();
    play(&mut g, Black, "A1");
    assert_eq!(diagram(&g), ["....", "OO..", "..O.", ".O.."]);
    assert_eq!(g.board().captures(White), 3);
    assert_eq!(g.board().captures(Black), 0);
    assert!(g.undo());
    assert_eq!(g.board().hash(), before);
    assert_eq!(g.board().captures(White), 0);
}

// ---------------------------------------------------------------------------------------
// Long cycles: eternal life, triple ko, sending two returning one.

const ETERNAL_LIFE: [&str; 8] = [
    "........", //
    "........", //
    "........", //
    "........", //
    "OOOOOO..", //
    "XXXXXO..", //
    "XOOOXXOO", //
    ".O.X.OX.",
];

#[test]
fn eternal_life() {
    // Four moves bring the position back: Black C1, White E1 takes C1-D1, Black D1
    // takes E1-F1, White F1. None of them is a simple ko recapture.
    let cycle = [
        (Black, "C1", 0),
        (White, "E1", 2),
        (Black, "D1", 2),
        (White, "F1", 0),
    ];
    // Simple ko: the cycle can go on for ever.
    let mut g = from_diagram(simple_ko(Rules::chinese()), &ETERNAL_LIFE, Black);
    let start = g.board().hash();
    for round in 1..=3 {
        for (c, v, taken) in cycle {
            let before = g.board().captures(c);
            play(&mut g, c, v);
            assert_eq!(g.board().captures(c) - before, taken, "{c:?} {v}");
        }
        assert_eq!(g.board().hash(), start, "round {round}");
        assert_eq!(diagram(&g), ETERNAL_LIFE);
    }

    // Positional and situational superko forbid the fourth move (same position, same
    // player to move); it is not a simple ko.
    for rules in [Rules::chinese(), situational()] {
        let mut g = from_diagram(rules, &ETERNAL_LIFE, Black);
        for (c, v, _) in &cycle[..3] {
            play(&mut g, *c, v);
        }
        assert_eq!(check(&g, White, "F1"), Err(IllegalMove::Superko));
        assert!(g
            .position_hashes()
            .any(|h| h == g.board().hash_after(White, pt(&g, "F1"))));
    }
}

const TRIPLE_KO: [&str; 7] = [
    "OOOOOOO", //
    "OXO.O.O", //
    "X.XOXOX", //
    "XXXXXXX", //
    "OOOOOOO", //
    ".......", //
    ".......",
];

#[test]
fn triple_ko() {
    // Three kos at B5/B6, D5/D6 and F5/F6. Each move takes one ko stone; after six the
    // position is back where it started with Black to move.
    let cycle = [
        (Black, "D6"),
        (White, "B5"),
        (Black, "F6"),
        (White, "D5"),
        (Black, "B6"),
        (White, "F5"),
    ];
    let mut g = from_diagram(Rules::chinese(), &TRIPLE_KO, Black);
    // Black's big chain is in atari at B5 to start with.
    assert_eq!(g.board().liberties(pt(&g, "A4")), vec![pt(&g, "B5")]);
    for (i, &(c, v)) in cycle[..5].iter().enumerate() {
        play(&mut g, c, v);
        assert_eq!(g.board().captures(c), (i / 2 + 1) as u32, "{c:?} {v}");
        // Each capture is a ko: the immediate retake is refused as such.
        let (ko, forbidden) = g.board().ko().expect("a ko after every capture");
        assert_eq!(forbidden, c.opponent());
        assert_eq!(g.check(forbidden, Move::Place(ko)), Err(IllegalMove::Ko));
    }
    // The sixth move recreates the starting position: superko, not ko.
    assert_eq!(check(&g, White, "F5"), Err(IllegalMove::Superko));
    // Under situational superko too (Black to move, as at the start).
    let mut s = from_diagram(situational(), &TRIPLE_KO, Black);
    for &(c, v) in &cycle[..5] {
        play(&mut s, c, v);
    }
    assert_eq!(check(&s, White, "F5"), Err(IllegalMove::Superko));
    // Simple ko lets the cycle repeat.
    let mut s = from_diagram(simple_ko(Rules::chinese()), &TRIPLE_KO, Black);
    for _ in 0..2 {
        for &(c, v) in &cycle {
            play(&mut s, c, v);
        }
        assert_eq!(diagram(&s), TRIPLE_KO);
    }
}

const SEND_TWO: [&str; 6] = [
    ".O.XXO", //
    "OXXXO.", //
    "O.X.OO", //
    "XX.OO.", //
    "OOOO.O", //
    "OOOOOO",
];

#[test]
fn send_two_return_one() {
    // Black D4 (any quiet move), White C6 sends two stones (B6-C6 in atari at A6), Black
    // A6 takes both, White B6 takes one back: the stones are as after D4, but now Black
    // is to move where White was.
    let moves = [(Black, "D4"), (White, "C6"), (Black, "A6")];
    let after_d4 = {
        let mut rows = SEND_TWO.map(String::from);
        rows[2].replace_range(3..4, "X");
        rows
    };

    let mut g = from_diagram(Rules::chinese(), &SEND_TWO, Black);
    for (c, v) in moves {
        play(&mut g, c, v);
    }
    assert_eq!(g.board().captures(Black), 2);
    // Not a simple ko: two stones were taken, and one would be retaken.
    assert_eq!(g.board().ko(), None);
    assert_eq!(check(&g, White, "B6"), Err(IllegalMove::Superko));

    let mut g = from_diagram(situational(), &SEND_TWO, Black);
    for (c, v) in moves {
        play(&mut g, c, v);
    }
    assert_eq!(check(&g, White, "B6"), Ok(()));
    play(&mut g, White, "B6");
    assert_eq!(diagram(&g), after_d4);
    assert_eq!(g.board().captures(White), 1);
    assert_eq!(g.to_move(), Black);
    // Black passes; White sending two again at C6 would recreate the position after the
    // first C6 with Black to move, as it was then: refused.
    pass(&mut g, Black);
    assert_eq!(check(&g, White, "C6"), Err(IllegalMove::Superko));
}

// ---------------------------------------------------------------------------------------
// Counting.

#[test]
fn seki_shared_liberties_are_neutral() {
    // White's chain (A4-D4, D3, A2-D2) and Black's B3 share the liberties A3 and C3 and
    // have no eyes: whoever fills one is captured. Black's outside wall owns the rest.
    let rows = [
        ".......", //
        ".......", //
        "XXXXX..", //
        "OOOOX..", //
        ".X.OX..", //
        "OOOOX..", //
        "XXXXX..",
    ];
    let g = from_diagram(Rules::chinese(), &rows, Black);
    assert_eq!(
        g.board().liberties(pt(&g, "A4")),
        vec![pt(&g, "A3"), pt(&g, "C3")]
    );
    assert_eq!(
        g.board().liberties(pt(&g, "B3")),
        vec![pt(&g, "A3"), pt(&g, "C3")]
    );
    let s = g.score(&[]);
    // Black: 14 stones + 24 points; White: 9 stones; A3 and C3 neutral.
    assert_eq!((s.black_area, s.white_area, s.neutral), (38, 9, 2));
    assert_eq!(s.result_string(), "B+21.5");
    // It is a seki: a side that fills a shared liberty gets captured.
    for (c, v, other) in [
        (Black, "A3", "C3"),
        (White, "C3", "A3"),
        (Black, "C3", "A3"),
    ] {
        let mut t = g.clone();
        play(&mut t, c, v);
        let before = t.board().captures(c.opponent());
        play(&mut t, c.opponent(), other);
        assert!(
            t.board().captures(c.opponent()) > before,
            "{c:?} {v} then {other}"
        );
    }
}

#[test]
fn katago_area_scoring_seki() {
    let rows = [
        "OX.OOO.", //
        "OXXXXXX", //
        "OOOOOOO", //
        ".XOXX..", //
        "OOOX...", //
        "X.OXXXX", //
        ".XOX...",
    ];
    let mut g = from_diagram(Rules::chinese(), &rows, Black);
    g.set_komi(0.5);
    let s = g.score(&[]);
    // Black 18 stones + A1 and E1-G1; White 18 stones; C7, G7, A4, B2 and the five
    // points F4 G4 E3 F3 G3 touch both colours.
    assert_eq!((s.black_area, s.white_area, s.neutral), (22, 18, 9));
    assert_eq!(s.result_string(), "B+3.5");
}

#[test]
fn handicap_compensation() {
    for (rules, want) in [
        (Rules::chinese(), "B+78.5"),
        (Rules::tromp_taylor(), "B+80.5"),
    ] {
        let mut g = Game::new(9, rules).unwrap();
        g.set_komi(0.5);
        let stones = [pt(&g, "C3"), pt(&g, "G7")];
        g.set_handicap(&stones).unwrap();
        assert_eq!(g.handicap(), 2);
        assert_eq!(g.to_move(), White);
        let s = g.score(&[]);
        assert_eq!((s.black_area, s.white_area), (81, 0));
        assert_eq!(s.result_string(), want);
    }
}

#[test]
fn draw_with_integral_komi() {
    // Black wall on B, White wall on C: 8 points each.
    let mut g = from_diagram(Rules::chinese(), &[".XO.", ".XO.", ".XO.", ".XO."], Black);
    g.set_komi(0.0);
    let s = g.score(&[]);
    assert_eq!((s.black_area, s.white_area), (8, 8));
    assert_eq!(s.winner(), None);
    assert_eq!(s.result_string(), "0");
    assert_eq!(s.in_stones(), "Draw");
    // 15 against 10 with komi 5.
    let mut g = from_diagram(
        Rules::chinese(),
        &["..XO.", "..XO.", "..XO.", "..XO.", "..XO."],
        Black,
    );
    g.set_komi(5.0);
    assert_eq!(g.score(&[]).result_string(), "0");
    g.set_komi(4.5);
    assert_eq!(g.score(&[]).result_string(), "B+0.5");
}

#[test]
fn dead_stones_are_removed_only_when_the_rules_say_so() {
    // A lone white stone inside Black's area.
    let rows = ["..X..", ".O.X.", "..X..", "XX...", "....."];
    let g = from_diagram(Rules::chinese(), &rows, Black);
    let dead = [pt(&g, "B4")];
    let s = g.score(&dead);
    assert_eq!((s.black_area, s.white_area, s.neutral), (25, 0, 0));
    let mut g = from_diagram(Rules::tromp_taylor(), &rows, Black);
    g.set_komi(0.0);
    let s = g.score(&dead);
    // Every stone counts: B4 is White's, and C4 and the top-left region touch it.
    assert_eq!((s.black_area, s.white_area, s.neutral), (18, 1, 6));
}

#[test]
fn in_stones_for_a_19x19_result() {
    // Black wall on column K (cols A-K, 10 points a row) in the lowest `m` rows and on
    // column J above; White's wall right next to it. Black gets 171 + m points.
    for (m, margin, result, stones) in [
        (14, 1.5, "B+1.5", "Black wins by 3/4 stone"),
        (13, -0.5, "W+0.5", "White wins by 1/4 stone"),
        (18, 9.5, "B+9.5", "Black wins by 4 3/4 stones"),
        (5, -16.5, "W+16.5", "White wins by 8 1/4 stones"),
    ] {
        let mut g = Game::new(19, Rules::chinese()).unwrap();
        let mut setup = Vec::new();
        for row in 0..19 {
            let wall = if row < m { 9 } else { 8 };
            setup.push((Black, g.board().point(wall, row).unwrap()));
            setup.push((White, g.board().point(wall + 1, row).unwrap()));
        }
        g.set_position(&setup, Black);
        let s = g.score(&[]);
        assert_eq!(s.black_area, 171 + m);
        assert_eq!(s.white_area + s.black_area, 361);
        assert_eq!(s.margin(), margin);
        assert_eq!(s.result_string(), result);
        assert_eq!(s.black_target(), 184.25);
        assert_eq!(s.in_stones(), stones);
    }
}

// ---------------------------------------------------------------------------------------
// Hashes.

fn stones_hash(g: &Game) -> u64 {
    g.board()
        .points()
        .filter_map(|p| g.board().get(p).map(|c| STONE_KEYS[c.index()][p.index()]))
        .fold(0, |h, k| h ^ k)
}

#[test]
fn transpositions_hash_equal() {
    let orders = [
        ["D4", "E5", "C3", "F6"],
        ["C3", "F6", "D4", "E5"],
        ["C3", "E5", "D4", "F6"],
    ];
    let mut hashes = Vec::new();
    for order in orders {
        let mut g = Game::new(9, Rules::chinese()).unwrap();
        for (i, v) in order.iter().enumerate() {
            play(&mut g, if i % 2 == 0 { Black } else { White }, v);
        }
        assert_eq!(g.board().hash(), stones_hash(&g));
        hashes.push(g.board().hash());
    }
    assert!(hashes.windows(2).all(|w| w[0] == w[1]));
    // The same stones put by set-up have the same hash too.
    let mut g = Game::new(9, Rules::chinese()).unwrap();
    let stones = [
        (Black, pt(&g, "D4")),
        (Black, pt(&g, "C3")),
        (White, pt(&g, "E5")),
        (White, pt(&g, "F6")),
    ];
    g.set_position(&stones, Black);
    assert_eq!(g.board().hash(), hashes[0]);
    // A capture that removes a stone gives the hash of the stones that are left.
    let mut a = from_diagram(Rules::chinese(), &[".X.", "XOX", "..."], Black);
    play(&mut a, Black, "B1");
    assert_eq!(a.board().captures(Black), 1);
    let b = from_diagram(Rules::chinese(), &[".X.", "X.X", ".X."], White);
    assert_eq!(a.board().hash(), b.board().hash());
    // Colour matters.
    let x = from_diagram(Rules::chinese(), &["X..", "...", "..."], Black);
    let o = from_diagram(Rules::chinese(), &["O..", "...", "..."], Black);
    assert_ne!(x.board().hash(), o.board().hash());
}

#[test]
fn undo_restores_hash_and_prisoners() {
    let mut g = from_diagram(
        Rules::chinese(),
        &[".....", ".XO..", "XO.O.", ".XO..", "....."],
        Black,
    );
    let mut seen = vec![(g.board().hash(), g.board().captures(Black), diagram(&g))];
    for (c, v) in [(Black, "C3"), (White, "E4"), (Black, "D5"), (White, "B3")] {
        play(&mut g, c, v);
        seen.push((g.board().hash(), g.board().captures(Black), diagram(&g)));
    }
    pass(&mut g, Black);
    assert_eq!(g.board().hash(), seen.last().unwrap().0);
    assert!(g.undo());
    while let Some((hash, caps, rows)) = seen.pop() {
        assert_eq!(g.board().hash(), hash);
        assert_eq!(g.board().captures(Black), caps);
        assert_eq!(diagram(&g), rows);
        g.board().check_consistency().unwrap();
        assert_eq!(g.undo(), !seen.is_empty());
    }
    assert!(!g.undo());
    assert_eq!(g.position_hashes().count(), 1);
}

#[test]
fn pinned_hash_values() {
    // Pinned: any change to the Zobrist keys (seed, generator, point layout) shows here.
    let g = Game::new(9, Rules::chinese()).unwrap();
    assert_eq!(g.board().hash(), 0);
    let mut g = Game::new(9, Rules::chinese()).unwrap();
    play(&mut g, Black, "D4");
    play(&mut g, White, "E5");
    play(&mut g, Black, "A1");
    assert_eq!(g.board().hash(), stones_hash(&g));
    assert_eq!(g.board().hash(), PINNED_9X9);
    assert_eq!(
        STONE_KEYS[0][g.board().point(0, 0).unwrap().index()],
        PINNED_BLACK_A1
    );
    assert_eq!(
        STONE_KEYS[1][Point::from_coord(18, 18).index()],
        PINNED_WHITE_T19
    );
}

// Computed independently (splitmix64 from the seed "tengen!!", Black's keys then White's,
// over the padded cells) and equal to what the board gives.
/// Black D4, White E5, Black A1 on 9x9.
const PINNED_9X9: u64 = 0x5433_8264_df06_4a56;
const PINNED_BLACK_A1: u64 = 0x3242_f60e_08b4_b94a;
const PINNED_WHITE_T19: u64 = 0x2184_fe99_19ac_54ef;
