//! The search with a network (`tengen::search` with `Search::set_net`): positions with
//! one clearly right move (the capture that decides, a save, a ko threat answered, a seki
//! kept), solved at a small fixed visit count and a fixed seed, and the same moves from
//! the same seed at one thread. These skip without the network files; `tests/puct.rs`
//! checks the same search behaviour on the fake network (`search::fake::FakeNet`), which
//! never skips.

use std::sync::Arc;

use tengen::nn::Model;
use tengen::search::{Limits, Search, SearchConfig};
use tengen::{Color, Game, Move, Rules};

fn search_with(net: &str, threads: usize, seed: u64) -> Option<Search> {
    let path = super::fixture(net)?;
    let model = Arc::new(Model::load(&path).unwrap());
    let mut s = Search::new(SearchConfig {
        threads,
        seed,
        ..SearchConfig::default()
    });
    s.set_net(Some(model));
    Some(s)
}

fn game(size: usize, moves: &[&str]) -> Game {
    let mut g = Game::new(size, Rules::chinese()).unwrap();
    g.set_komi(7.5);
    let mut color = Color::Black;
    for m in moves {
        let mv = if *m == "pass" {
            Move::Pass
        } else {
            Move::Place(super::point(size, m))
        };
        g.play(color, mv).unwrap();
        color = color.opponent();
    }
    g
}

#[test]
fn search_with_a_network_is_repeatable_at_one_thread() {
    let Some(mut a) = search_with(super::G170, 1, 7) else {
        return;
    };
    let mut b = search_with(super::G170, 1, 7).unwrap();
    let g = game(9, &["E5", "C3", "G4"]);
    let ra = a.run(&g, Color::White, &Limits::playouts(40));
    let rb = b.run(&g, Color::White, &Limits::playouts(40));
    assert_eq!(ra.best(), rb.best());
    let visits = |r: &tengen::search::Analysis| {
        r.candidates
            .iter()
            .map(|c| (c.mv, c.visits))
            .collect::<Vec<_>>()
    };
    assert_eq!(visits(&ra), visits(&rb));
    assert_eq!(ra.root_visits, 40);
    // The network's values: a win rate strictly inside (0, 1) and priors summing to 1.
    assert!(ra.winrate > 0.0 && ra.winrate < 1.0);
    let prior: f64 = ra.candidates.iter().map(|c| c.prior).sum();
    assert!((prior - 1.0).abs() < 1e-3, "priors sum to {prior}");
}

/// A position from stones (`b` and `w` vertices) with `to_move` to play, komi 7.5.
fn position(size: usize, black: &[&str], white: &[&str], to_move: Color) -> Game {
    let mut g = Game::new(size, Rules::chinese()).unwrap();
    g.set_komi(7.5);
    let mut stones: Vec<(Color, tengen::Point)> = Vec::new();
    stones.extend(black.iter().map(|v| (Color::Black, super::point(size, v))));
    stones.extend(white.iter().map(|v| (Color::White, super::point(size, v))));
    g.set_position(&stones, to_move);
    g
}

/// Two chains of five side by side, each in atari: Black to move takes White's at F8
/// (White would take Black's at E8).
#[test]
fn the_capture_that_decides_is_found() {
    let Some(mut s) = search_with(super::G170, 1, 3) else {
        return;
    };
    let g = position(
        9,
        &[
            "E3", "E4", "E5", "E6", "E7", "G3", "G4", "G5", "G6", "G7", "F2",
        ],
        &[
            "F3", "F4", "F5", "F6", "F7", "D3", "D4", "D5", "D6", "D7", "E2",
        ],
        Color::Black,
    );
    let a = s.run(&g, Color::Black, &Limits::playouts(32));
    assert_eq!(
        a.best(),
        Move::Place(super::point(9, "F8")),
        "{:?}",
        a.candidates[0]
    );
}

/// The same shape with the colours swapped and Black to move: Black's three stones in
/// atari get out at G5.
#[test]
fn the_chain_in_atari_is_saved() {
    let Some(mut s) = search_with(super::G170, 1, 3) else {
        return;
    };
    let g = position(
        9,
        &["D5", "E5", "F5", "G7", "H4", "B5"],
        &["C5", "D4", "E4", "F4", "D6", "E6", "F6", "C3", "C7", "G3"],
        Color::Black,
    );
    let a = s.run(&g, Color::Black, &Limits::playouts(32));
    assert_eq!(
        a.best(),
        Move::Place(super::point(9, "G5")),
        "{:?}",
        a.candidates[0]
    );
}

/// A ko fight (the position of `tests/search.rs`'s playout test): White took the ko at E8;
/// Black, who may not retake at once, threatens with C4, putting White's three stones D4-F4
/// in atari. White answers at G4 rather than end the ko at F8: the three stones decide the
/// game (komi 25.5 makes it close), the ko is one stone.
#[test]
fn a_ko_threat_is_answered() {
    let Some(_) = super::fixture(super::G170) else {
        return;
    };
    let mut game =
        crate::common::position(&crate::common::KO_FIGHT, Color::White, Rules::chinese());
    game.set_komi(25.5);
    game.play(Color::White, Move::Place(super::point(9, "E8")))
        .unwrap();
    assert!(game
        .check(Color::Black, Move::Place(super::point(9, "F8")))
        .is_err());
    game.play(Color::Black, Move::Place(super::point(9, "C4")))
        .unwrap();
    for seed in 1..=3 {
        let mut s = search_with(super::G170, 1, seed).unwrap();
        let a = s.run(&game, Color::White, &Limits::playouts(64));
        assert_eq!(
            a.best(),
            Move::Place(super::point(9, "G4")),
            "seed {seed}: {:?}",
            &a.candidates[..3]
        );
    }
}

/// From a finished 9x9 game: White's A4-B2 chain and Black's big group share B4 and A1 and
/// nothing else, a seki (filling either gives the other side five stones or more). Neither
/// side fills a shared liberty.
#[test]
fn a_seki_is_kept() {
    let Some(_) = super::fixture(super::G170) else {
        return;
    };
    let rows = crate::common::SEKI_GAME;
    let fills = [
        Move::Place(super::point(9, "B4")),
        Move::Place(super::point(9, "A1")),
    ];
    for color in [Color::Black, Color::White] {
        let mut game = crate::common::position(&rows, color, Rules::chinese());
        game.set_komi(7.5);
        for seed in 1..=3 {
            let mut s = search_with(super::G170, 1, seed).unwrap();
            let a = s.run(&game, color, &Limits::playouts(64));
            assert!(
                !fills.contains(&a.best()),
                "{color:?} seed {seed}: {:?}",
                &a.candidates[..3]
            );
        }
        // Counted, the seki's stones are alive.
        let model = Model::load(super::fixture(super::G170).unwrap()).unwrap();
        let dead = tengen::status::net_dead_stones(&game, &model, &|| false);
        for v in ["A4", "A3", "A2", "B2", "B3", "B1", "C4"] {
            assert!(
                !dead.contains(&super::point(9, v)),
                "{v} judged dead: {dead:?}"
            );
        }
    }
}

/// The end of a 9x9 game against KataGo (`runs/katago9-1s-ftz-d6321b7`, game 37): White's
/// group of 23 stones in the upper right is dead, and White has just passed. With
/// `count_ends`, Black's pass (which ends the game in the tree) is valued by the count
/// with the network's dead stones: a certain win, by exactly GNU Go's count, B+27.5.
#[test]
fn a_pass_that_ends_the_game_is_valued_by_the_count_with_dead_stones() {
    let Some(path) = super::fixture(super::G170) else {
        return;
    };
    let mut config = SearchConfig {
        threads: 1,
        seed: 5,
        ..SearchConfig::default()
    };
    config.puct.count_ends = true;
    let mut s = Search::new(config);
    s.set_net(Some(Arc::new(Model::load(&path).unwrap())));
    let g = game(
        9,
        &[
            "E5", "F7", "G5", "D3", "F3", "C4", "D7", "G6", "H5", "D8", "C8", "E8", "B5", "F4",
            "E4", "E3", "E6", "F2", "H7", "H6", "J6", "H8", "J8", "G7", "J7", "F5", "G3", "G4",
            "H4", "F6", "G2", "H9", "C5", "B4", "H3", "C9", "B8", "E2", "E7", "F8", "G9", "J5",
            "J4", "H1", "G1", "J2", "H2", "G8", "J1", "J9", "J5", "H1", "D9", "C7", "B7", "C6",
            "B6", "F1", "J1", "D5", "J3", "D4", "D6", "A5", "A6", "A4", "B9", "C7", "C6", "pass",
            "C9", "pass", "E9", "pass", "F9", "pass",
        ],
    );
    let a = s.run(&g, Color::Black, &Limits::playouts(64));
    let pass = a
        .candidates
        .iter()
        .find(|c| c.mv == Move::Pass)
        .expect("the pass is searched");
    assert!(pass.visits > 0, "{:?}", &a.candidates[..3]);
    assert_eq!(pass.winrate, 1.0, "{pass:?}");
    assert!((pass.score_black - 27.5).abs() < 1e-6, "{pass:?}");
}

#[test]
fn a_root_kept_from_the_last_search_has_the_root_policy() {
    // A network with an optimistic policy head, whose policy inside the tree (optimism 1)
    // differs from the root's (0.2).
    let Some(mut kept) = search_with(super::TF_KV, 1, 3) else {
        return;
    };
    let g = game(9, &["E5", "C4"]);
    let first = kept.run(&g, Color::Black, &Limits::playouts(30));
    let Move::Place(_) = first.best() else {
        panic!("a pass at move 3");
    };
    let mut next = g.clone();
    next.play(Color::Black, first.best()).unwrap();
    let reused = kept.run(&next, Color::White, &Limits::playouts(1));
    let mut fresh = search_with(super::TF_KV, 1, 3).unwrap();
    let new = fresh.run(&next, Color::White, &Limits::playouts(1));
    assert!(reused.root_visits > new.root_visits, "the tree was kept");
    let priors = |a: &tengen::search::Analysis| {
        let mut p: Vec<(String, u32)> = a
            .candidates
            .iter()
            .map(|c| (format!("{:?}", c.mv), (c.prior * 1e6).round() as u32))
            .collect();
        p.sort();
        p
    };
    assert_eq!(priors(&reused), priors(&new));
}
