//! When the engine resigns: a streak of its own moves below the resign win rate, kept
//! per game. Knows the game and the search's analysis; no clock, no GTP.

use crate::board::{Color, Move};
use crate::game::Game;
use crate::search::Analysis;

/// Moves in a row below the resign threshold before resigning.
const RESIGN_MOVES: u32 = 3;

/// Consecutive own moves (per colour) with a win rate below the resign threshold, in
/// one game: a game that does not continue the one counted in (`clear_board`,
/// `boardsize`, `loadsgf`, `undo`, set-up, another komi) starts the count afresh. Kept
/// by comparing games rather than reset by each change, so no change can forget it.
#[derive(Debug, Default)]
pub(super) struct ResignStreak {
    low: [u32; 2],
    /// The game counted in: start, size and komi, and its moves.
    game: Option<(StreakKey, Vec<(Color, Move)>)>,
}

/// What a resign streak belongs to: the game's starting position, size and komi.
type StreakKey = (Option<u64>, usize, u64);

impl ResignStreak {
    /// Counts the search `a` of `color`'s move in `game` against `threshold` (a win
    /// rate, from 500 root visits); whether `color` resigns.
    pub(super) fn count(
        &mut self,
        game: &Game,
        color: Color,
        a: &Analysis,
        threshold: f64,
    ) -> bool {
        let key = (
            game.position_hashes().next(),
            game.size(),
            game.komi().to_bits(),
        );
        let continues = self
            .game
            .as_ref()
            .is_some_and(|(k, moves)| *k == key && game.moves().starts_with(moves));
        if !continues {
            self.low = [0; 2];
        }
        self.game = Some((key, game.moves().to_vec()));
        let low = &mut self.low[color.index()];
        if a.winrate < threshold && a.root_visits >= 500 {
            *low += 1;
        } else {
            *low = 0;
        }
        *low >= RESIGN_MOVES
    }
}
