//! The move generators behind the engine: the [`Player`] trait, the search as one, the
//! random mover as the other. Knows the game and the search's limits; no clock, no GTP.

use std::sync::Arc;

use crate::board::{Color, Move, Point};
use crate::game::Game;
use crate::nn::Service;
use crate::playout::PlayoutRng;
use crate::search::{Analysis, Limits, Reporter, Search};

/// Which move generator plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum PlayerKind {
    /// A uniformly random legal move that does not fill an own eye.
    Random,
    /// Monte-Carlo tree search.
    #[default]
    Mcts,
}

/// A move generator: given the game and the colour to move, a move. The search is one,
/// the random mover another.
pub trait Player: Send {
    /// Chooses a move for `color` in `game` within `limits`, handing live analysis to
    /// `report` as the search goes (a player without a search reports nothing); the
    /// analysis if it has one.
    fn choose(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        report: Option<Reporter<'_>>,
    ) -> (Move, Option<Analysis>);

    /// Plays with this network from now on (or without one). Only the search uses one.
    fn set_net(&mut self, _net: Option<Arc<Service>>) {}
}

/// The random mover: a uniformly random legal move (superko included) that does not fill
/// one of its own single-point eyes, else pass.
#[derive(Clone, Debug)]
pub struct RandomPlayer {
    rng: PlayoutRng,
}

impl RandomPlayer {
    pub fn new(seed: u64) -> RandomPlayer {
        RandomPlayer {
            rng: PlayoutRng::seed_from_u64(seed),
        }
    }
}

impl Player for RandomPlayer {
    fn choose(
        &mut self,
        game: &Game,
        color: Color,
        _: &Limits,
        _: Option<Reporter<'_>>,
    ) -> (Move, Option<Analysis>) {
        let board = game.board();
        let candidates: Vec<Point> = game
            .legal_points(color)
            .into_iter()
            .filter(|&p| !board.is_eye(color, p))
            .collect();
        if candidates.is_empty() {
            return (Move::Pass, None);
        }
        let i = (self.rng.next_u64() % candidates.len() as u64) as usize;
        (Move::Place(candidates[i]), None)
    }
}

impl Player for Search {
    fn choose(
        &mut self,
        game: &Game,
        color: Color,
        limits: &Limits,
        report: Option<Reporter<'_>>,
    ) -> (Move, Option<Analysis>) {
        let a = self.run_reporting(game, color, limits, report);
        (a.best(), Some(a))
    }

    fn set_net(&mut self, net: Option<Arc<Service>>) {
        Search::set_net(self, net);
    }
}
