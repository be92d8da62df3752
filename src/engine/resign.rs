//! When the engine resigns: a streak of its own moves below the resign win rate, kept
//! per game. Knows the game and the search's analysis; no clock, no GTP.

use crate::board::{Color, Move};
use crate::game::Game;
use crate::search::Analysis;

/// Moves in a row below the resign threshold before resigning.
const RESIGN_MOVES: u32 = 3;

/// Root visits a win rate needs before it counts: the playouts' win rate is noisy below
/// a few hundred; a network's is its value from the first evaluation on, and a move at
/// 2 s on 19x19 holds 20-40 visits on one thread.
const PLAYOUT_VISITS: u32 = 500;
const NET_VISITS: u32 = 16;

/// With a network, also this far behind in its score lead, in points per board point
/// (9x9: 4 points; 19x19: 18): on 9x9 at komi 7.5 the network gives Black 5-10% in an even
/// game that White wins by half a point, which is no reason to resign.
const NET_LEAD_PER_POINT: f64 = 0.05;

/// With a network, a win rate this low is lost whatever the margin: a game the network
/// gives away by a point and a half, every point settled, is lost as surely as by forty
/// (its "5-10% in an even game" is never this low).
const NET_CERTAIN_LOSS: f64 = 0.01;

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
    /// rate, from 500 root visits; with a network from 16, and only when its score lead is
    /// also [`NET_LEAD_PER_POINT`] a board point behind); whether `color` resigns.
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
        if lost(game, color, a, threshold) {
            *low += 1;
        } else {
            *low = 0;
        }
        *low >= RESIGN_MOVES
    }
}

/// Whether the search `a` of `color`'s move says the game is lost beyond `threshold`.
fn lost(game: &Game, color: Color, a: &Analysis, threshold: f64) -> bool {
    if a.winrate >= threshold {
        return false;
    }
    if !a.net {
        return a.root_visits >= PLAYOUT_VISITS;
    }
    a.root_visits >= NET_VISITS && beyond_hope(game, color, a)
}

/// With a network: far behind in points ([`far_behind`]), or so sure a loss that the
/// margin does not matter ([`NET_CERTAIN_LOSS`]).
pub(super) fn beyond_hope(game: &Game, color: Color, a: &Analysis) -> bool {
    a.winrate < NET_CERTAIN_LOSS || far_behind(game, color, a)
}

/// Whether the network's score lead (the search's, `a`) puts `color` at least
/// [`NET_LEAD_PER_POINT`] a board point behind.
pub(super) fn far_behind(game: &Game, color: Color, a: &Analysis) -> bool {
    let behind = match color {
        Color::Black => -a.score_black,
        Color::White => a.score_black,
    };
    behind >= NET_LEAD_PER_POINT * (game.size() * game.size()) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Rules;

    fn analysis(winrate: f64, score_black: f64, root_visits: u32, net: bool) -> Analysis {
        Analysis {
            color: Color::Black,
            candidates: Vec::new(),
            root_visits,
            winrate,
            score_black,
            score_stdev: 0.0,
            playouts: root_visits as u64,
            seconds: 1.0,
            tree_nodes: 0,
            ownership: Vec::new(),
            owned: Vec::new(),
            net,
        }
    }

    #[test]
    fn a_network_resigns_only_far_behind_in_points() {
        let g9 = Game::new(9, Rules::chinese()).unwrap();
        let g19 = Game::new(19, Rules::chinese()).unwrap();
        use Color::{Black, White};
        // (game, colour, win rate, Black's lead, root visits, network, lost at 0.1)
        let cases = [
            // 9x9, komi 7.5: 5% for Black half a point behind is an even game, not a loss.
            (&g9, Black, 0.05, -0.5, 200, true, false),
            (&g9, Black, 0.005, -1.5, 200, true, true),
            (&g9, White, 0.005, 1.5, 10, true, false),
            (&g9, Black, 0.05, -6.0, 200, true, true),
            (&g9, White, 0.05, 6.0, 200, true, true),
            (&g9, White, 0.05, -6.0, 200, true, false),
            // Too few visits, or a win rate above the threshold.
            (&g9, Black, 0.05, -6.0, 10, true, false),
            (&g9, Black, 0.05, -6.0, 16, true, true),
            (&g9, Black, 0.2, -20.0, 200, true, false),
            // The playouts: the win rate from 500 visits, whatever the score says.
            (&g9, Black, 0.05, -0.5, 600, false, true),
            (&g9, Black, 0.05, -6.0, 200, false, false),
            // 19x19: 18 points behind.
            (&g19, Black, 0.02, -10.0, 200, true, false),
            (&g19, Black, 0.02, -20.0, 200, true, true),
        ];
        for (g, color, winrate, lead, visits, net, want) in cases {
            let a = analysis(winrate, lead, visits, net);
            assert_eq!(
                lost(g, color, &a, 0.1),
                want,
                "{}x{} {color:?} {winrate} {lead} {visits} {net}",
                g.size(),
                g.size()
            );
        }
    }
}
