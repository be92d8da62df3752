//! Last good reply with forgetting (Baier & Drake 2010, "The power of forgetting"):
//! the playouts remember, for each colour, the reply that won after a move (LGRF-1) and
//! after a pair of moves (LGRF-2), learned from whole simulations (tree moves and
//! playout moves). After each simulation the winner's replies are stored and the loser's
//! forgotten where they are the stored ones, so the tables follow what works now in this
//! search. A worker's tables live for one search and are not shared.

use crate::board::{Board, Color, Point, NUM_CELLS};

/// No reply stored, and the marker of a pass in a simulation's move list.
const NONE: u16 = 0;

/// The longest move list kept: longer than any simulation (a playout stops at three
/// times the board's points).
const MAX_MOVES: usize = 8192;

/// The reply tables of one worker and the moves of the current simulation.
#[derive(Clone, Debug)]
pub struct LastGoodReply {
    /// `reply1[color][prev]`: `color`'s reply to the opponent's move `prev`.
    reply1: Box<[u16]>,
    /// `reply2[color][before][prev]`: `color`'s reply to its own `before` and the
    /// opponent's `prev` just after it.
    reply2: Box<[u16]>,
    /// The simulation's moves in order (colour, point or [`NONE`] for a pass).
    moves: Vec<(Color, u16)>,
}

impl Default for LastGoodReply {
    fn default() -> LastGoodReply {
        LastGoodReply::new()
    }
}

impl LastGoodReply {
    pub fn new() -> LastGoodReply {
        LastGoodReply {
            reply1: vec![NONE; 2 * NUM_CELLS].into_boxed_slice(),
            reply2: vec![NONE; 2 * NUM_CELLS * NUM_CELLS].into_boxed_slice(),
            moves: Vec::with_capacity(256),
        }
    }

    /// Starts a simulation's move list.
    #[inline]
    pub fn clear_moves(&mut self) {
        self.moves.clear();
    }

    /// `color` played `p` (`None`: passed) in the current simulation.
    #[inline]
    pub fn record(&mut self, color: Color, p: Option<Point>) {
        // A user that never starts a new list (plain playouts, not the search) does not
        // grow it without end.
        if self.moves.len() >= MAX_MOVES {
            self.moves.clear();
        }
        self.moves.push((color, p.map_or(NONE, |p| p.0)));
    }

    /// `color`'s own move just before the opponent's last one, when the simulation's
    /// moves end that way.
    #[inline]
    pub fn own_before(&self, color: Color) -> Option<Point> {
        match self.moves.len().checked_sub(2).map(|i| self.moves[i]) {
            Some((c, p)) if c == color && p != NONE => Some(Point(p)),
            _ => None,
        }
    }

    #[inline]
    fn index1(color: Color, prev: u16) -> usize {
        color.index() * NUM_CELLS + prev as usize
    }

    #[inline]
    fn index2(color: Color, before: u16, prev: u16) -> usize {
        (color.index() * NUM_CELLS + before as usize) * NUM_CELLS + prev as usize
    }

    /// The stored replies of `color` to the opponent's `prev` (after `color`'s own
    /// `before`), two-move context first; candidates only, not checked for legality.
    #[inline]
    pub fn replies(&self, color: Color, before: Option<Point>, prev: Point) -> [Option<Point>; 2] {
        let r2 = before.map_or(NONE, |b| self.reply2[Self::index2(color, b.0, prev.0)]);
        let r1 = self.reply1[Self::index1(color, prev.0)];
        let some = |r: u16| (r != NONE).then_some(Point(r));
        [some(r2), some(r1)]
    }

    /// Learns from the finished simulation: `winner`'s replies stored, the loser's
    /// forgotten where they are the stored ones.
    pub fn learn(&mut self, winner: Color) {
        for i in 1..self.moves.len() {
            let (color, p) = self.moves[i];
            let (prev_color, prev) = self.moves[i - 1];
            if p == NONE || prev == NONE || prev_color == color {
                continue;
            }
            let before = if i >= 2 && self.moves[i - 2].0 == color {
                self.moves[i - 2].1
            } else {
                NONE
            };
            let i1 = Self::index1(color, prev);
            let i2 = (before != NONE).then(|| Self::index2(color, before, prev));
            if color == winner {
                self.reply1[i1] = p;
                if let Some(i2) = i2 {
                    self.reply2[i2] = p;
                }
            } else {
                if self.reply1[i1] == p {
                    self.reply1[i1] = NONE;
                }
                if let Some(i2) = i2 {
                    if self.reply2[i2] == p {
                        self.reply2[i2] = NONE;
                    }
                }
            }
        }
    }

    /// Whether a stored reply `p` may be played by `color` now: empty, legal, not the
    /// filling of its own eye, and (when `self_atari_stones` > 0) not a self-atari of
    /// that many stones or more.
    #[inline]
    pub fn playable(board: &Board, color: Color, p: Point, self_atari_stones: usize) -> bool {
        board.is_legal(color, p)
            && !board.is_eye(color, p)
            && (self_atari_stones == 0
                || board
                    .self_atari(color, p)
                    .is_none_or(|n| n < self_atari_stones))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_winners_replies_and_forgets_the_losers() {
        let p = |c, r| Point::from_coord(c, r);
        let (c3, d4, e5, f6) = (p(2, 2), p(3, 3), p(4, 4), p(5, 5));
        let mut l = LastGoodReply::new();
        // Black C3, White D4, Black E5: Black wins.
        l.clear_moves();
        l.record(Color::Black, Some(c3));
        l.record(Color::White, Some(d4));
        l.record(Color::Black, Some(e5));
        l.learn(Color::Black);
        assert_eq!(l.replies(Color::Black, Some(c3), d4), [Some(e5), Some(e5)]);
        assert_eq!(l.replies(Color::White, None, c3), [None, None]);
        // White wins the same start: Black's replies to D4 after C3 are forgotten,
        // White's D4 answer to C3 is learned.
        l.learn(Color::White);
        assert_eq!(l.replies(Color::Black, Some(c3), d4), [None, None]);
        assert_eq!(l.replies(Color::White, None, c3), [None, Some(d4)]);
        // A pass breaks the context: nothing learned across it.
        l.clear_moves();
        l.record(Color::Black, Some(f6));
        l.record(Color::White, None);
        l.record(Color::Black, Some(e5));
        l.learn(Color::Black);
        assert_eq!(l.replies(Color::Black, None, f6), [None, None]);
    }
}
