//! KataGo's V7 inputs (`tengen::nn::features`) plane by plane, on positions built by moves
//! or set up, with the values KataGo's `fillRowV7` gives them (reasoned from its code:
//! `nninputs.cpp`, `boardhistory.cpp`, `board.cpp`).

use tengen::nn::features::{features, Features, InputRules, GLOBAL, SPATIAL};
use tengen::{Color, Game, Move, Point, Rules};

use super::point as pt;

/// A game from "b E5 w pass ..." on an empty board under Tengen's Chinese rules.
fn game(size: usize, moves: &str) -> Game {
    let mut g = Game::new(size, Rules::chinese()).unwrap();
    let toks: Vec<&str> = moves.split_whitespace().collect();
    for pair in toks.chunks(2) {
        let color = if pair[0] == "b" {
            Color::Black
        } else {
            Color::White
        };
        let mv = if pair[1] == "pass" {
            Move::Pass
        } else {
            Move::Place(pt(size, pair[1]))
        };
        g.play(color, mv)
            .unwrap_or_else(|e| panic!("{pair:?}: {e}"));
    }
    g
}

fn setup(size: usize, black: &str, white: &str, to_move: Color) -> Game {
    let mut g = Game::new(size, Rules::chinese()).unwrap();
    let mut stones = Vec::new();
    for (c, list) in [(Color::Black, black), (Color::White, white)] {
        for v in list.split_whitespace() {
            stones.push((c, pt(size, v)));
        }
    }
    g.set_position(&stones, to_move);
    g
}

/// The points of `plane` that are set, as vertices, sorted.
fn plane(f: &Features, plane: usize) -> Vec<String> {
    let n = f.size;
    let mut out = Vec::new();
    for row in 0..n {
        for col in 0..n {
            let p = Point::from_coord(col, row);
            let v = f.at(plane, p);
            assert!(v == 0.0 || v == 1.0, "plane {plane} holds {v}");
            if v == 1.0 {
                out.push(format!(
                    "{}{}",
                    &"ABCDEFGHJKLMNOPQRST"[col..col + 1],
                    row + 1
                ));
            }
        }
    }
    out.sort();
    out
}

fn set(list: &str) -> Vec<String> {
    let mut v: Vec<String> = list.split_whitespace().map(String::from).collect();
    v.sort();
    v
}

#[test]
fn shape_and_orientation() {
    let g = game(9, "b A9");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(f.spatial.len(), SPATIAL * 81);
    assert_eq!(f.global.len(), GLOBAL);
    // Plane 0 is all ones; A9 (top left) is the first value of a plane, as KataGo's y = 0.
    assert!(f.spatial[..81].iter().all(|&v| v == 1.0));
    assert_eq!(Features::pos(9, pt(9, "A9")), 0);
    assert_eq!(Features::pos(9, pt(9, "J1")), 80);
    assert_eq!(
        f.spatial[2 * 81],
        1.0,
        "A9 is the opponent's stone for White"
    );
    // Planes KataGo leaves empty under area scoring without encore.
    for p in [7, 8, 20, 21] {
        assert!(plane(&f, p).is_empty(), "plane {p}");
    }
}

#[test]
fn stones_and_liberties() {
    // White E6 in atari (E7 its last liberty); A1 with two; the black stones with three.
    let g = game(9, "b E5 w E6 b D6 w A1 b F6");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(g.to_move(), Color::White);
    assert_eq!(plane(&f, 1), set("A1 E6"), "own (White's) stones");
    assert_eq!(plane(&f, 2), set("D6 E5 F6"), "the opponent's");
    assert_eq!(plane(&f, 3), set("E6"));
    assert_eq!(plane(&f, 4), set("A1"));
    assert_eq!(plane(&f, 5), set("D6 E5 F6"));
    // A chain of four liberties or more is on none of the liberty planes.
    let g = game(9, "b E5 w A1 b E4");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 4), set("A1"));
    assert!(plane(&f, 5).is_empty() && plane(&f, 3).is_empty());
}

#[test]
fn ko_ban() {
    // KataGo's "ko just taken" golden position: White retakes at E5, so F5 is banned.
    let g = game(9, "b D5 w E5 b E4 w F4 b E6 w F6 b F5 w G5 b pass w E5");
    for rules in [
        InputRules::from_rules(g.rules()),
        InputRules::katago_chinese(),
    ] {
        let f = features(&g, rules);
        assert_eq!(plane(&f, 6), set("F5"), "{rules:?}");
    }
    // Under KataGo's chinese (simple ko) the ko-rule globals are zero; positional
    // superko (Tengen's Chinese) is 1 and 0.5.
    let f = features(&g, InputRules::katago_chinese());
    assert_eq!((f.global[6], f.global[7]), (0.0, 0.0));
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!((f.global[6], f.global[7]), (1.0, 0.5));
    // Once Black plays elsewhere the ban is lifted.
    let g = game(
        9,
        "b D5 w E5 b E4 w F4 b E6 w F6 b F5 w G5 b pass w E5 b A1",
    );
    assert!(plane(&features(&g, InputRules::katago_chinese()), 6).is_empty());
}

#[test]
fn history_planes() {
    let g = game(9, "b C3 w G7 b C7 w G3 b E5 w E3");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(g.to_move(), Color::Black);
    for (p, v) in [(9, "E3"), (10, "E5"), (11, "G3"), (12, "C7"), (13, "G7")] {
        assert_eq!(plane(&f, p), set(v), "plane {p}");
    }
    assert_eq!(&f.global[..5], &[0.0; 5]);
    // Fewer moves than five: the planes beyond are empty.
    let g = game(9, "b C3 w G7");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!((plane(&f, 9), plane(&f, 10)), (set("G7"), set("C3")));
    assert!((11..14).all(|p| plane(&f, p).is_empty()));
}

#[test]
fn history_after_passes() {
    // The golden "passes" position: a pass by Black now would end the game by two passes,
    // which KataGo's chinese (friendly passes) does not allow: it hides the whole history
    // and says a pass does not end the game.
    let g = game(9, "b E5 w pass b C3 w pass");
    let f = features(&g, InputRules::katago_chinese());
    assert!((9..14).all(|p| plane(&f, p).is_empty()));
    assert_eq!(&f.global[..5], &[0.0; 5]);
    assert_eq!(f.global[14], 0.0);
    // Without friendly passes the history shows, passes as globals, and a pass ends it.
    let rules = InputRules {
        friendly_pass_ok: false,
        ..InputRules::katago_chinese()
    };
    let f = features(&g, rules);
    assert_eq!(&f.global[..5], &[1.0, 0.0, 1.0, 0.0, 0.0]);
    assert_eq!((plane(&f, 10), plane(&f, 12)), (set("C3"), set("E5")));
    assert!(plane(&f, 9).is_empty() && plane(&f, 11).is_empty());
    assert_eq!(f.global[14], 1.0);
    // After two passes the game is over: one move of history (the last pass) is shown,
    // and a third pass would end it again.
    let g = game(9, "b E5 w C3 b pass w pass");
    let f = features(&g, InputRules::katago_chinese());
    assert_eq!(&f.global[..5], &[1.0, 0.0, 0.0, 0.0, 0.0]);
    assert!((9..14).all(|p| plane(&f, p).is_empty()));
    assert_eq!(f.global[14], 1.0);
    // A single pass in mid-game: White's pass would end the game, so KataGo's chinese
    // hides the history again; without friendly passes the pass shows as the last move.
    let g = game(9, "b E5 w C3 b pass");
    let f = features(&g, InputRules::katago_chinese());
    assert_eq!(&f.global[..2], &[0.0, 0.0]);
    assert!((9..14).all(|p| plane(&f, p).is_empty()));
    let f = features(&g, rules);
    assert_eq!(&f.global[..2], &[1.0, 0.0]);
    assert_eq!((plane(&f, 10), plane(&f, 11)), (set("C3"), set("E5")));
}

#[test]
fn ladder_in_atari() {
    // White D4 in atari (D3 its liberty); running down-left it is captured at the edge.
    let g = setup(9, "C4 D5 E3 E4", "D4", Color::White);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 14), set("D4"));
    // A white stone on the ladder's path breaks it.
    let g = setup(9, "C4 D5 E3 E4", "D4 B2", Color::White);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert!(plane(&f, 14).is_empty(), "{:?}", plane(&f, 14));
}

#[test]
fn ladder_starting_moves() {
    // White D4 with two liberties (D3, E4), Black to move: E4 starts a ladder down-left;
    // D3 would chase White up-right into the breaker on G7.
    let g = setup(9, "C4 D5 E3", "D4 G7", Color::Black);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 14), set("D4"));
    assert_eq!(plane(&f, 17), set("E4"));
    // With White to move, the laddered chain is White's own: no starting moves.
    let g = setup(9, "C4 D5 E3", "D4 G7", Color::White);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 14), set("D4"));
    assert!(plane(&f, 17).is_empty());
}

#[test]
fn ladders_on_earlier_boards() {
    // Black's last move E4 put D4 in atari (a ladder now); before it, D4 had two
    // liberties and was already ladder-captured by attacker-first reading.
    let mut g = setup(9, "C4 D5 E3", "D4", Color::White);
    g.play(Color::White, Move::Place(pt(9, "G7"))).unwrap();
    g.play(Color::Black, Move::Place(pt(9, "E4"))).unwrap();
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 14), set("D4"));
    assert_eq!(plane(&f, 15), set("D4"));
    assert_eq!(plane(&f, 16), set("D4"));
    // The breaker played last: on the board before it D4 was laddered, not now.
    let mut g = setup(9, "C4 D5 E3 E4", "D4", Color::Black);
    g.play(Color::Black, Move::Place(pt(9, "G7"))).unwrap();
    g.play(Color::White, Move::Place(pt(9, "B2"))).unwrap();
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert!(
        plane(&f, 14).is_empty(),
        "{:?} {:?}",
        plane(&f, 14),
        tengen::notation::diagram(&g)
    );
    assert_eq!(plane(&f, 15), set("D4"));
    assert_eq!(plane(&f, 16), set("D4"));
}

#[test]
fn pass_alive_area() {
    // A black chain with two one-point eyes (A1, C1) is pass-alive; the lone white stone
    // is not; the rest of the board touches both colours and is no one's.
    let g = setup(9, "B1 A2 B2 C2 D2 D1", "E5", Color::Black);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 18), set("A1 B1 C1 D1 A2 B2 C2 D2"));
    assert_eq!(plane(&f, 19), set("E5"));
    // With no white stone, the pass-alive chain owns the whole board (safe big territory).
    let g = setup(9, "B1 A2 B2 C2 D2 D1", "", Color::White);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 19).len(), 81);
    assert!(plane(&f, 18).is_empty());
    // One eye only: not pass-alive; a region bordered by black alone is still Black's
    // area, but not one holding a white stone.
    let g = setup(9, "B1 A2 B2 C2 C1", "E5", Color::Black);
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(plane(&f, 18), set("A1 B1 C1 A2 B2 C2"));
    assert_eq!(plane(&f, 19), set("E5"));
}

/// KataGo's GTP takes Black's opening moves between lone White passes as handicap
/// stones (two or more) and gives White a point each: `b E5 w pass b C3 w pass` at komi 7
/// is komi 9 for the network under `katago_chinese`, 7 under Tengen's own reading (no
/// handicap was set). One Black move, or a real White move after the first, is no handicap.
#[test]
fn handicap_read_from_opening_moves() {
    let mut g = game(9, "b E5 w pass b C3 w pass");
    g.set_komi(7.0);
    assert_eq!(
        features(&g, InputRules::katago_chinese()).global[5],
        -9.0 / 20.0
    );
    assert_eq!(
        features(&g, InputRules::from_rules(g.rules())).global[5],
        -7.0 / 20.0
    );
    for moves in [
        "b E5 w pass",
        "b E5 w C3 b D4 w pass",
        "b E5 w pass w pass b C3 w pass",
    ] {
        let mut g = game(9, moves);
        g.set_komi(7.0);
        let f = features(&g, InputRules::katago_chinese());
        let own = if g.to_move() == Color::Black {
            -7.0
        } else {
            7.0
        };
        assert_eq!(f.global[5], own / 20.0, "{moves}");
    }
}

#[test]
fn komi_and_rule_globals() {
    // 9x9, komi 7.5: Black sees -7.5 (global 5 = -0.375); the parity wave of an odd board
    // puts the drawable komis at odd values: -7.5 is 1.5 above -9, wave -0.5.
    let g = game(9, "");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!(f.global[5], -0.375);
    assert_eq!(f.global[18], -0.5);
    assert_eq!(f.global[8], 0.0);
    let g = game(9, "b E5");
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!((f.global[5], f.global[18]), (0.375, 0.5));
    // Komi 7 for White on 9x9: drawable, wave 0; on 8x8 (even) 7 is 1 above 6: wave 0.
    let mut g = game(9, "b E5");
    g.set_komi(7.0);
    assert_eq!(features(&g, InputRules::katago_chinese()).global[18], 0.0);
    let mut g = game(8, "b E5");
    g.set_komi(7.0);
    assert_eq!(features(&g, InputRules::katago_chinese()).global[18], 0.0);
    g.set_komi(6.5);
    assert_eq!(features(&g, InputRules::katago_chinese()).global[18], 0.5);
    // Komi far beyond the board is clipped to area + 20.
    g.set_komi(500.0);
    assert_eq!(
        features(&g, InputRules::katago_chinese()).global[5],
        (64.0 + 20.0) / 20.0
    );
    // Tromp-Taylor: multi-stone suicide.
    let mut g = game(9, "");
    g.set_rules(Rules::tromp_taylor());
    let f = features(&g, InputRules::from_rules(g.rules()));
    assert_eq!((f.global[6], f.global[7], f.global[8]), (1.0, 0.5, 1.0));
    // Nothing of territory, tax, encore, playout doubling or button.
    for i in [9, 10, 11, 12, 13, 15, 16, 17] {
        assert_eq!(f.global[i], 0.0, "global {i}");
    }
}
