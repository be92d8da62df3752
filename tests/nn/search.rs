//! The search with a network (`tengen::search` with `Search::set_net`): positions with
//! one clearly right move, solved at a small fixed visit count and a fixed seed, and the
//! same moves from the same seed at one thread.

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
