//! How the game ends: passing when the count wins, not filling settled areas, and
//! `kgs-genmove_cleanup` (and Tromp-Taylor) capturing dead stones before passing. Fixed
//! seeds and playout counts.

use tengen::engine::{Engine, Genmove, GenmoveOptions, Settings, Stop};
use tengen::search::SearchConfig;
use tengen::{Color, Move, Point, Rules};

use crate::common;

/// An engine with the position of a diagram (top row first; `X` Black, `O` White), the
/// moves `then` played after it.
fn engine(rules: Rules, rows: &[&str], to_move: Color, then: &[(Color, Move)]) -> Engine {
    seeded_engine(5, rules, rows, to_move, then)
}

/// [`engine`] with the given seed.
fn seeded_engine(
    seed: u64,
    rules: Rules,
    rows: &[&str],
    to_move: Color,
    then: &[(Color, Move)],
) -> Engine {
    let settings = Settings {
        playouts: Some(1500),
        search: SearchConfig {
            seed,
            threads: 1,
            max_memory_mib: 32,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut e = Engine::new(rules.clone(), settings);
    e.set_game(common::position(rows, to_move, rules));
    for &(c, m) in then {
        e.play(c, m).unwrap();
    }
    e
}

/// Two walls: Black owns columns A-E (45 points), White F-J (36). Black wins by 8.5 at
/// komi 0.5.
const WALLS: [&str; 9] = [
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
];

/// WALLS with a dead white stone at A1, in a corner Black has closed.
const WALLS_DEAD: [&str; 9] = [
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    ". . . . X O . . .",
    "X X X . X O . . .",
    ". . X . X O . . .",
    "O . X . X O . . .",
];

fn rules(komi: f64) -> Rules {
    Rules {
        komi,
        ..Rules::chinese()
    }
}

/// EYES with a dead white stone at B9, inside Black's top-left corner.
fn eyes_dead() -> [&'static str; 9] {
    let mut rows = EYES;
    rows[0] = ". O . X . X O . O";
    rows
}

#[test]
fn answers_a_pass_with_a_pass_when_the_count_wins() {
    for rows in [EYES, eyes_dead()] {
        let mut e = engine(
            rules(7.5),
            &rows,
            Color::White,
            &[(Color::White, Move::Pass)],
        );
        assert_eq!(
            e.genmove(Color::Black, GenmoveOptions::default()),
            Genmove::Pass
        );
        assert!(e.game().is_over());
        assert_eq!(e.final_score(Stop::never()).winner(), Some(Color::Black));
    }
}

/// WALLS: the count wins for Black, but most of the board is open. Neither side passes:
/// Black does not end a game that has hardly begun, White (losing by the count) plays on.
#[test]
fn no_pass_on_a_mostly_open_board_whoever_the_count_favours() {
    for rows in [WALLS, WALLS_DEAD] {
        for (passer, mover) in [(Color::White, Color::Black), (Color::Black, Color::White)] {
            let mut e = engine(rules(0.5), &rows, passer, &[(passer, Move::Pass)]);
            let m = e.genmove(mover, GenmoveOptions::default());
            assert!(matches!(m, Genmove::Place(_)), "{mover:?}: {m:?}");
        }
    }
}

/// EYES after Black's pass: White loses by the count and has no move that is not suicide
/// or the filling of its own eyes; the game is lost anyway, and White passes.
#[test]
fn the_losing_side_passes_when_the_game_is_lost_anyway() {
    let mut e = engine(
        rules(7.5),
        &EYES,
        Color::Black,
        &[(Color::Black, Move::Pass)],
    );
    let m = e.genmove(Color::White, GenmoveOptions::default());
    assert!(matches!(m, Genmove::Pass | Genmove::Resign), "{m:?}");
}

/// Black owns columns A-F (54 points), White G-J (27): a won game for Black. Every
/// empty point is a one-point eye, so nothing is left to invade (an open area, however
/// walled, is not settled for the search: see
/// `does_not_pass_while_an_open_area_can_be_invaded`). White's J1 is played after.
const EYES: [&str; 9] = [
    ". X . X . X O . O",
    "X X X X X X O O O",
    ". X . X . X O . O",
    "X X X X X X O O O",
    ". X . X . X O . O",
    "X X X X X X O O O",
    ". X . X . X O . O",
    "X X X X X X O O O",
    ". X . X . X O . .",
];

#[test]
fn does_not_fill_its_own_area_when_the_game_is_won() {
    // White has just played (no pass): Black's only moves are inside settled areas.
    let j1 = Move::Place(Point::from_coord(8, 0));
    let mut e = engine(rules(7.5), &EYES, Color::White, &[(Color::White, j1)]);
    assert_eq!(
        e.genmove(Color::Black, GenmoveOptions::default()),
        Genmove::Pass
    );
}

#[test]
fn cleanup_captures_dead_stones_before_passing() {
    let mut e = engine(
        rules(0.5),
        &WALLS_DEAD,
        Color::White,
        &[(Color::White, Move::Pass)],
    );
    let a1 = Point::from_coord(0, 0);
    for _ in 0..12 {
        if e.game().board().get(a1).is_none() {
            break;
        }
        let m = e.genmove(
            Color::Black,
            GenmoveOptions {
                cleanup: true,
                ..GenmoveOptions::default()
            },
        );
        assert_ne!(m, Genmove::Pass, "passed with the dead stone on the board");
        assert_ne!(m, Genmove::Resign);
        e.play(Color::White, Move::Pass).unwrap();
    }
    assert_eq!(
        e.game().board().get(a1),
        None,
        "the dead stone was not captured"
    );
}

#[test]
fn tromp_taylor_captures_dead_stones_before_passing() {
    let tt = Rules {
        komi: 0.5,
        ..Rules::tromp_taylor()
    };
    let mut e = engine(tt, &WALLS_DEAD, Color::White, &[(Color::White, Move::Pass)]);
    let a1 = Point::from_coord(0, 0);
    for _ in 0..12 {
        if e.game().board().get(a1).is_none() {
            break;
        }
        let m = e.genmove(Color::Black, GenmoveOptions::default());
        assert_ne!(m, Genmove::Pass, "passed with the dead stone on the board");
        e.play(Color::White, Move::Pass).unwrap();
    }
    assert_eq!(
        e.game().board().get(a1),
        None,
        "the dead stone was not captured"
    );
}

/// The end of a real game (`tengen match` against GNU Go, clock9-abs60 game 15, where
/// Tengen then counted W+2.5 and GNU Go B+21.5): White's bottom-left chain and Black's
/// B1-C1 share A1 and C2, which looks like a seki but is not: Black A1 gives up three
/// stones, White must take them at C2, and Black B1 in the three points left kills.
/// White's A9 stands in Black's eye, dead. With both off: Black 39 stones + A6 + A8 and
/// A9 + the 13 points of the corner = 55, White 22 stones + J2-J5 = 26: B+21.5.
const FALSE_SEKI: [&str; 9] = [
    "O X X X X X X X X",
    ". X O O O O O O X",
    "X X O X X O O X X",
    ". X O X X O O O O",
    "X X X X X X O O .",
    "X O O O X X X O .",
    "X O O O X X O O .",
    "O O . O X X X O .",
    ". X X O O X X O O",
];

#[test]
fn a_sacrifice_that_kills_is_read_in_the_dead_stone_judgement() {
    let corner = sorted_points(&[
        (0, 8), // A9
        (1, 3),
        (2, 3),
        (3, 3),
        (1, 2),
        (2, 2),
        (3, 2),
        (0, 1),
        (1, 1),
        (3, 1),
        (3, 0),
        (4, 0),
    ]);
    for seed in 1..=4 {
        let e = seeded_engine(seed, rules(7.5), &FALSE_SEKI, Color::Black, &[]);
        assert_eq!(e.dead_stones(Stop::never()), corner, "seed {seed}");
        assert_eq!(
            e.final_score(Stop::never()).result_string(),
            "B+21.5",
            "seed {seed}"
        );
    }
}

#[test]
fn a_finished_game_played_on_still_weighs_its_moves() {
    // After two passes the controller may ask for a move anyway (play resumed). The
    // search must still read below the root instead of counting every simulation there
    // as the end of the game (which left each move unvisited and the choice to priors).
    let pass = |c| (c, Move::Pass);
    let e = engine(
        rules(7.5),
        &FALSE_SEKI,
        Color::Black,
        &[pass(Color::Black), pass(Color::White)],
    );
    let mut config = e.settings().search.clone();
    config.threads = 1;
    let mut search = tengen::search::Search::new(config);
    let limits = tengen::search::Limits::playouts(500);
    let a = search.run(e.game(), Color::Black, &limits);
    let below: u32 = a.candidates.iter().map(|c| c.visits).sum();
    assert!(
        below >= 490,
        "{below} of 500 simulations went below the root"
    );
}

/// The end of clock9s4-abs60 game 15 (Tengen White counted W+0.5, GNU Go B+17.5): White's
/// G9-J4 chain and Black's J7-J9 share H9 and J6 and nothing else. Black H9 gives up
/// four stones bent round the J9 corner; White must take them at J6 and is left with
/// that bent four as its only eye space: dead (a ko at best).
const BENT_FOUR: [&str; 9] = [
    "X . X X . X O . X",
    ". . . X X X O O X",
    "X . X O X X X O X",
    "X X X O O X X O .",
    "X . X O O O X O O",
    "X X O . O O X X O",
    "X O O O O X X . X",
    "O O O O . O X X X",
    ". . . O O O O O X",
];

#[test]
fn a_group_left_a_bent_four_in_the_corner_is_dead() {
    let want = sorted_points(&[
        (6, 8),
        (6, 7),
        (7, 7),
        (7, 6),
        (7, 5),
        (7, 4),
        (8, 4),
        (8, 3),
    ]);
    let game = common::position(&BENT_FOUR, Color::White, rules(7.5));
    let killed = tengen::status::killed_by_sacrifice(game.board());
    assert_eq!(killed.len(), 1, "{killed:?}");
    let mut got = killed[0].0.clone();
    got.sort_unstable();
    assert_eq!(got, want);
    for seed in 1..=3 {
        let e = seeded_engine(seed, rules(7.5), &BENT_FOUR, Color::White, &[]);
        assert_eq!(e.dead_stones(Stop::never()), want, "seed {seed}");
        assert_eq!(
            e.final_score(Stop::never()).result_string(),
            "B+17.5",
            "seed {seed}"
        );
    }
}

#[test]
fn a_true_seki_is_not_a_sacrifice() {
    // Bottom left: White's A4-B2 chain (four stones) and Black's big group share B4 and
    // A1 and nothing else; filling either gives the other side five stones or more:
    // a seki, no one dead there.
    let game = common::position(&common::SEKI_GAME, Color::Black, rules(7.5));
    assert!(tengen::status::killed_by_sacrifice(game.board()).is_empty());
}

/// The points of (column, row) pairs, sorted as the dead-stone lists are.
fn sorted_points(coords: &[(usize, usize)]) -> Vec<Point> {
    let mut v: Vec<Point> = coords
        .iter()
        .map(|&(c, r)| Point::from_coord(c, r))
        .collect();
    v.sort_unstable();
    v
}

/// From a 9x9 game against GNU Go (move 56): no dame is left
/// and White has won, but Black's C5 has just put White's B5 in atari. Passing lets Black
/// capture it and break into White's corner; White answers at B4.
#[test]
fn answers_an_atari_in_a_won_game_with_no_dame_left() {
    let rows = [
        ". . . X O O . . .",
        ". X . X X O . . .",
        ". . . X O O O . .",
        "X X X X X X O . .",
        "X O . O O O . O O",
        "O . O O X O O X X",
        ". O X X X X X . X",
        "O . O O X . . X .",
        ". O O X X . . . X",
    ];
    let c5 = Move::Place(Point::from_coord(2, 4));
    let mut e = engine(rules(7.5), &rows, Color::Black, &[(Color::Black, c5)]);
    let b4 = Point::from_coord(1, 3);
    assert_eq!(
        e.genmove(Color::White, GenmoveOptions::default()),
        Genmove::Place(b4)
    );
}

/// From a 9x9 game against GNU Go (move 26): two walls split
/// the board, every empty point touches one colour only (no dame) and the count wins
/// for White, but the bottom is wide open and Black invades there (GNU Go did, and won
/// by 21.5 after Tengen passed). White plays on.
#[test]
fn does_not_pass_while_an_open_area_can_be_invaded() {
    let rows = [
        ". . . . . . . . .",
        ". . . . . . . . .",
        ". . . X X . . . .",
        ". . . X O X X X X",
        ". . . X O X O O O",
        ". X X O O O O . .",
        "X O O . . . . . .",
        "O . . . . . . . .",
        ". . . . . . . . .",
    ];
    let a4 = Move::Place(Point::from_coord(0, 3));
    let mut e = engine(rules(7.5), &rows, Color::Black, &[(Color::Black, a4)]);
    let m = e.genmove(Color::White, GenmoveOptions::default());
    assert!(matches!(m, Genmove::Place(_)), "{m:?}");
}

/// The finding of issue 25: `boardsize 9`, `play b E5`, `play b pass`, `genmove w`
/// answered `pass` and lost by 73.5; the 19x19 form with three black stones by 353.5.
/// Nor does the side with the lone stone end the game after the other's pass.
#[test]
fn an_early_pass_is_not_answered_with_a_pass() {
    for (size, stones) in [(9, vec![(4, 4)]), (19, vec![(3, 3), (15, 15), (9, 9)])] {
        for passer in [Color::Black, Color::White] {
            let settings = Settings {
                playouts: Some(500),
                search: SearchConfig {
                    seed: 5,
                    threads: 1,
                    max_memory_mib: 32,
                    ..SearchConfig::default()
                },
                ..Settings::default()
            };
            let mut e = Engine::new(rules(7.5), settings);
            e.set_game(tengen::Game::new(size, rules(7.5)).unwrap());
            for &(c, r) in &stones {
                e.play(Color::Black, Move::Place(Point::from_coord(c, r)))
                    .unwrap();
            }
            e.play(passer, Move::Pass).unwrap();
            let mover = passer.opponent();
            let m = e.genmove(mover, GenmoveOptions::default());
            assert!(
                matches!(m, Genmove::Place(_)),
                "{size}x{size}, {passer:?} passed: {mover:?} answered {m:?}"
            );
        }
    }
}

/// An opponent that passes at move N, the moves before it Tengen's own at a few
/// playouts: Tengen, to move after the pass, does not pass (the board is still mostly
/// open in each case below: N = 1, 2, 5, 20, 40 on 9x9, 13x13 and 19x19).
fn no_pass_after_a_pass_at_move(size: usize, n: usize) {
    let settings = |playouts| Settings {
        playouts: Some(playouts),
        search: SearchConfig {
            seed: 11 + n as u64,
            threads: 1,
            max_memory_mib: 32,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut builder = Engine::new(rules(7.5), settings(30));
    builder.set_game(tengen::Game::new(size, rules(7.5)).unwrap());
    for _ in 1..n {
        let c = builder.game().to_move();
        if let Genmove::Resign = builder.genmove(c, GenmoveOptions::default()) {
            panic!("a resignation while building the position");
        }
    }
    let passer = builder.game().to_move();
    builder.play(passer, Move::Pass).unwrap();
    let board = builder.game().board();
    let stones = board.stone_count(Color::Black) + board.stone_count(Color::White);
    assert!(
        2 * stones < size * size,
        "the board is no longer mostly open"
    );
    let mut e = Engine::new(rules(7.5), settings(400));
    e.set_game(builder.game().clone());
    let mover = passer.opponent();
    let m = e.genmove(mover, GenmoveOptions::default());
    assert!(
        matches!(m, Genmove::Place(_)),
        "{size}x{size}, pass at move {n}: {mover:?} answered {m:?}"
    );
}

macro_rules! pass_at_move {
    ($($name:ident: $size:expr, $n:expr;)*) => {
        $(
            #[test]
            fn $name() {
                no_pass_after_a_pass_at_move($size, $n);
            }
        )*
    };
}

pass_at_move! {
    pass_at_move_1_on_9x9: 9, 1;
    pass_at_move_2_on_9x9: 9, 2;
    pass_at_move_5_on_9x9: 9, 5;
    pass_at_move_20_on_9x9: 9, 20;
    pass_at_move_40_on_9x9: 9, 40;
    pass_at_move_1_on_13x13: 13, 1;
    pass_at_move_2_on_13x13: 13, 2;
    pass_at_move_5_on_13x13: 13, 5;
    pass_at_move_20_on_13x13: 13, 20;
    pass_at_move_40_on_13x13: 13, 40;
    pass_at_move_1_on_19x19: 19, 1;
    pass_at_move_2_on_19x19: 19, 2;
    pass_at_move_5_on_19x19: 19, 5;
    pass_at_move_20_on_19x19: 19, 20;
    pass_at_move_40_on_19x19: 19, 40;
}

/// Both sides alive with eyes, the E column dame (nine points), and at komi 0.5 White
/// ahead by half a point as the board stands. After White's pass Black, behind by the
/// count, plays on in the dame (the search expects to win them); after Black's pass
/// White, ahead by the count, passes and wins.
const DAME: [&str; 9] = [
    ". X . X . O . O .",
    "X X X X . O O O O",
    ". X . X . O . O .",
    "X X X X . O O O O",
    ". X . X . O . O .",
    "X X X X . O O O O",
    ". X . X . O . O .",
    "X X X X . O O O O",
    ". X . X . O . O .",
];

#[test]
fn no_pass_while_the_count_loses_and_points_are_left() {
    let mut e = engine(
        rules(0.5),
        &DAME,
        Color::White,
        &[(Color::White, Move::Pass)],
    );
    match e.genmove(Color::Black, GenmoveOptions::default()) {
        Genmove::Place(p) => assert_eq!(p.coord().0, 4, "{p:?} is not a dame"),
        m => panic!("Black answered {m:?}"),
    }
    let mut e = engine(
        rules(0.5),
        &DAME,
        Color::Black,
        &[(Color::Black, Move::Pass)],
    );
    assert_eq!(
        e.genmove(Color::White, GenmoveOptions::default()),
        Genmove::Pass
    );
    assert_eq!(e.final_score(Stop::never()).result_string(), "W+0.5");
}

/// The resign streak (three moves in a row below `--resign`) belongs to one game: a
/// command that does not continue it (`clear_board`, `boardsize`, `undo`, `komi`,
/// `loadsgf`) starts the count afresh. With the threshold at 0.99 every search counts.
#[test]
fn the_resign_streak_starts_afresh_in_a_new_game() {
    use tengen::gtp::{parse_command, Context, Executor};
    let loadsgf = format!(
        "loadsgf {}/tests/data/sgf/setup_later.sgf",
        env!("CARGO_MANIFEST_DIR")
    );
    for command in ["clear_board", "boardsize 9", "undo", "komi 6.5", &loadsgf] {
        let settings = Settings {
            playouts: Some(600),
            resign: 0.99,
            search: SearchConfig {
                seed: 3,
                threads: 1,
                max_memory_mib: 32,
                ..SearchConfig::default()
            },
            ..Settings::default()
        };
        let mut e = Engine::new(rules(7.5), settings);
        e.set_game(tengen::Game::new(9, rules(7.5)).unwrap());
        assert!(matches!(
            e.genmove(Color::Black, GenmoveOptions::default()),
            Genmove::Place(_)
        ));
        assert!(matches!(
            e.genmove(Color::Black, GenmoveOptions::default()),
            Genmove::Place(_)
        ));
        assert_eq!(
            e.genmove(Color::Black, GenmoveOptions::default()),
            Genmove::Resign
        );
        let c = parse_command(command).command.unwrap();
        e.execute(c, &Context::new()).unwrap();
        let m = e.genmove(Color::Black, GenmoveOptions::default());
        assert!(matches!(m, Genmove::Place(_)), "after {command}: {m:?}");
    }
}
