//! The search on positions with one clearly right answer, at small fixed playout counts
//! and fixed seeds; determinism with one thread; tree reuse after a move.

use tengen::engine::{Engine, Genmove, GenmoveOptions, Settings, Stop};
use tengen::search::{Limits, Search, SearchConfig};
use tengen::{Color, Game, Move, Point, Rules};

use crate::common;

/// A game set up from a diagram (top row first; `X` Black, `O` White), Chinese rules.
fn position(rows: &[&str], to_move: Color) -> Game {
    common::position(rows, to_move, Rules::chinese())
}

fn search(seed: u64) -> Search {
    Search::new(SearchConfig {
        threads: 1,
        seed,
        max_memory_mib: 96,
        ..SearchConfig::default()
    })
}

/// A mutual atari: the white ring and the black stones inside share their last liberty
/// E4. Whoever plays there captures.
const SEMEAI: [&str; 9] = [
    ". . . . . . . . .",
    ". . . . . . . . .",
    ". . X X X X . . .",
    ". X O O O O X . .",
    ". X O X X O X . .",
    ". X O X . O X . .",
    ". X X O O O X . .",
    ". . X X X X . . .",
    ". . . . . . . . .",
];

#[test]
fn captures_the_chain_that_decides_the_game() {
    let game = position(&SEMEAI, Color::Black);
    let e4 = Move::Place(Point::from_coord(4, 3));
    for seed in 1..=3 {
        let a = search(seed).run(&game, Color::Black, &Limits::playouts(2000));
        assert_eq!(a.best(), e4, "seed {seed}: {:?}", &a.candidates[..3]);
        assert!(a.winrate > 0.8, "seed {seed}: win rate {}", a.winrate);
    }
}

#[test]
fn saves_its_own_chain_by_capturing() {
    let game = position(&SEMEAI, Color::White);
    let e4 = Move::Place(Point::from_coord(4, 3));
    for seed in 1..=3 {
        let a = search(seed).run(&game, Color::White, &Limits::playouts(2000));
        assert_eq!(a.best(), e4, "seed {seed}: {:?}", &a.candidates[..3]);
    }
}

/// Black's chain B5 is in atari at C5 (from the white stones around it); running out to
/// C5 reaches open space and connects. Not saving it loses the left side.
#[test]
fn escapes_from_atari() {
    let game = position(
        &[
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            "O O . . . . . . .",
            "X X . . . . . . .",
            "O O . . . . . X .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
        ],
        Color::Black,
    );
    let c5 = Move::Place(Point::from_coord(2, 4));
    for seed in 1..=3 {
        let a = search(seed).run(&game, Color::Black, &Limits::playouts(3000));
        assert_eq!(a.best(), c5, "seed {seed}: {:?}", &a.candidates[..3]);
    }
}

/// A capturing race of two liberties each in the bottom left (Fuego's
/// `playout_semeai.1.sgf`, as a diagram): Black's A2-D2 has A1 and C1, White's big chain
/// A5 and C1. White to move wins it by taking the shared outside point C1 (then Black's
/// chain has only A1, where Black may not play); A1 instead lets Black take C1 first.
#[test]
fn takes_the_liberty_that_wins_the_semeai() {
    let game = position(
        &[
            ". . . . O . O . O",
            ". . . X O . O . O",
            ". . X . O O O O O",
            ". X . X . . . . .",
            ". X . . X . X X .",
            "O O X X X . . . .",
            "O O O O O X . . .",
            "X X X X O X . X .",
            ". O . O O X . . .",
        ],
        Color::White,
    );
    // At 1000 playouts the search finds C1 for 27 or 28 seeds of 30 (with the urgent-
    // tactics prior or without it); the tenuki D9, which loses to Black's A5, is the usual
    // miss. Twenty seeds, at most four misses: any seed may be unlucky, the rate may not
    // drop.
    let c1 = Move::Place(Point::from_coord(2, 0));
    let mut misses = Vec::new();
    for seed in 1..=20 {
        let a = search(seed).run(&game, Color::White, &Limits::playouts(1000));
        if a.best() != c1 {
            misses.push((seed, a.candidates[0].mv));
        }
    }
    assert!(
        misses.len() <= 4,
        "seeds and moves that missed C1: {misses:?}"
    );
}

/// A ko fight: White takes the ko at E8 (capturing F8); Black, who may not retake at once,
/// threatens with C4, putting White's three stones D4-F4 in atari. White must answer at
/// G4 (connecting out towards G6 and H3) rather than end the ko at F8: the three stones
/// decide the game (komi 25.5 makes it close), the ko is one stone. GNU Go 3.8 agrees
/// (`top_moves_white`: G4 24.9 points, F8 1.4).
#[test]
fn answers_a_ko_threat_instead_of_ending_the_ko() {
    let mut game = position(&common::KO_FIGHT, Color::White);
    game.set_komi(25.5);
    let at = |c, r| Move::Place(Point::from_coord(c, r));
    game.play(Color::White, at(4, 7)).unwrap(); // E8 takes the ko
    assert_eq!(
        game.check(Color::Black, at(5, 7)),
        Err(tengen::IllegalMove::Ko),
        "F8 is a ko retake"
    );
    game.play(Color::Black, at(2, 3)).unwrap(); // C4, the threat
    for seed in 1..=3 {
        let a = search(seed).run(&game, Color::White, &Limits::playouts(2000));
        assert_eq!(a.best(), at(6, 3), "seed {seed}: {:?}", &a.candidates[..3]);
    }
}

/// Black has two eyes and nothing else to do: it must not fill them, and passes.
#[test]
fn does_not_fill_its_own_eyes() {
    let game = position(
        &[
            ". X . X O . . . .",
            "X X X X O . . . .",
            "O O O O O . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
            ". . . . . . . . .",
        ],
        Color::Black,
    );
    let a1 = Point::from_coord(0, 8);
    let c1 = Point::from_coord(2, 8);
    for seed in 1..=3 {
        let a = search(seed).run(&game, Color::Black, &Limits::playouts(500));
        for c in &a.candidates {
            assert!(c.mv != Move::Place(a1) && c.mv != Move::Place(c1));
        }
    }
}

#[test]
fn one_thread_is_deterministic_and_seeds_vary() {
    let run = |seed| {
        let mut settings = Settings {
            playouts: Some(300),
            search: SearchConfig {
                seed,
                threads: 1,
                ..SearchConfig::default()
            },
            ..Settings::default()
        };
        settings.search.max_memory_mib = 32;
        let mut e = Engine::new(Rules::chinese(), settings);
        e.resize(9);
        (0..8)
            .map(|i| {
                e.genmove(
                    if i % 2 == 0 {
                        Color::Black
                    } else {
                        Color::White
                    },
                    GenmoveOptions::default(),
                )
            })
            .collect::<Vec<Genmove>>()
    };
    assert_eq!(run(7), run(7));
    let games: std::collections::HashSet<Vec<Genmove>> = (1..=4).map(run).collect();
    assert!(games.len() > 1, "four seeds gave the same game");
}

#[test]
fn tree_reuse_keeps_the_visits_of_the_move_played() {
    let mut game = Game::new(9, Rules::chinese()).unwrap();
    let mut s = search(3);
    let a = s.run(&game, Color::Black, &Limits::playouts(3000));
    let best = &a.candidates[0];
    // White's reply most visited under Black's best move.
    let reply = best.pv.get(1).copied().unwrap_or(Move::Pass);
    game.play(Color::Black, best.mv).unwrap();
    let kept = s.reusable_visits(&game, Color::White);
    assert_eq!(kept, best.visits, "the subtree of the move played is kept");
    game.play(Color::White, reply).unwrap();
    assert!(s.reusable_visits(&game, Color::Black) > 0);
    // Undo: the tree no longer matches and is dropped.
    game.undo();
    game.undo();
    assert_eq!(s.reusable_visits(&game, Color::Black), 0);
}

#[test]
fn ownership_is_deterministic_with_one_thread_and_in_range() {
    let game = position(&SEMEAI, Color::Black);
    let a = search(5).run(&game, Color::Black, &Limits::playouts(500));
    let b = search(5).run(&game, Color::Black, &Limits::playouts(500));
    assert_eq!(a.ownership, b.ownership);
    assert!(a.ownership.iter().all(|o| (-1.0..=1.0).contains(o)));
    // The outer black wall is Black's at the end of nearly every simulation.
    let c7 = Point::from_coord(2, 6);
    assert!(a.ownership[c7.index()] > 0.8, "{}", a.ownership[c7.index()]);
}

/// A finished 9x9 game, the areas filled as under area counting: Black owns columns A-D,
/// White F-J, E is dame. A white stone (A7) is dead in a square-four hole of Black's area,
/// a black stone (J3) in one of White's.
const FINISHED: [&str; 9] = [
    ". X X X . O O O .",
    "X X X X . O O O O",
    "O . X X . O O O O",
    ". . X X . O O O O",
    ". X X X . O O O .",
    "X X X X . O O O O",
    "X X X X . O O . X",
    "X X X X . O O . .",
    ". X X X . O O O .",
];

#[test]
fn dead_stones_come_from_the_search_and_count_for_the_owner() {
    let settings = Settings {
        search: SearchConfig {
            threads: 1,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut engine = Engine::new(Rules::chinese(), settings);
    engine.set_game(position(&FINISHED, Color::White));
    engine.set_komi(0.5);
    let a7 = Point::from_coord(0, 6);
    let j3 = Point::from_coord(8, 2);
    let mut want = vec![a7, j3];
    want.sort_unstable();
    assert_eq!(engine.dead_stones(Stop::never()), want);
    // 36 points each; the dame column E counts to nobody.
    assert_eq!(engine.final_score(Stop::never()).result_string(), "W+0.5");
    assert_eq!(engine.final_score(Stop::never()).neutral, 9);
    // Interrupted at once, on an engine with nothing cached (the one above would answer
    // from its cache and never run the interrupted search): still an answer at once, and
    // not cached: the full judgement after it runs its 20,000 playouts (tens of
    // milliseconds at least) instead of answering from the cache (microseconds).
    let settings = Settings {
        status_playouts: 20_000,
        search: SearchConfig {
            threads: 1,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut fresh = Engine::new(Rules::chinese(), settings);
    fresh.set_game(engine.game().clone());
    let start = std::time::Instant::now();
    assert!(fresh.dead_stones(Stop::when(&|| true)).len() <= 2);
    let interrupted = start.elapsed();
    let start = std::time::Instant::now();
    assert_eq!(fresh.dead_stones(Stop::never()), want);
    let full = start.elapsed();
    assert!(
        full > std::time::Duration::from_millis(20) && full > interrupted,
        "the full judgement took {full:?} (the interrupted one {interrupted:?}): answered from a cache"
    );
}

#[test]
fn dead_stones_ignore_the_passes_that_ended_the_game() {
    let settings = Settings {
        search: SearchConfig {
            threads: 1,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut engine = Engine::new(Rules::chinese(), settings);
    let mut game = position(&FINISHED, Color::White);
    game.play(Color::White, Move::Pass).unwrap();
    game.play(Color::Black, Move::Pass).unwrap();
    engine.set_game(game);
    let a7 = Point::from_coord(0, 6);
    let j3 = Point::from_coord(8, 2);
    let mut want = vec![a7, j3];
    want.sort_unstable();
    assert_eq!(engine.dead_stones(Stop::never()), want);
}

/// Seki on 4x4: Black (7 stones) and White (7 stones) share the liberties B3 and C2.
const SEKI: [&str; 4] = ["X X X X", "X . X X", "O O . O", "O O O O"];

#[test]
fn seki_stones_stay_and_their_liberties_count_to_nobody() {
    for seed in 1..=3 {
        let settings = Settings {
            search: SearchConfig {
                threads: 1,
                seed,
                ..SearchConfig::default()
            },
            ..Settings::default()
        };
        let mut engine = Engine::new(Rules::chinese(), settings);
        engine.set_game(position(&SEKI, Color::Black));
        engine.set_komi(0.5);
        assert_eq!(engine.dead_stones(Stop::never()), vec![], "seed {seed}");
        let s = engine.final_score(Stop::never());
        assert_eq!(
            (s.black_area, s.white_area, s.neutral),
            (7, 7, 2),
            "seed {seed}"
        );
    }
}
