//! The game: a board plus rules (as data), the set-up position, the moves played, the
//! history of whole-board positions for superko, undo, passes and counting. No I/O and no
//! text forms.

use std::collections::HashMap;

use crate::board::{Board, Color, IllegalMove, Move, Point, TO_MOVE_KEYS};
use crate::rules::{KoRule, Rules};
use crate::score::{self, Score};

/// Why a set-up (handicap) request was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SetupError {
    #[error("board not empty")]
    BoardNotEmpty,
    #[error("bad vertex list")]
    BadPoints,
}

/// A game under some rules.
#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    board: Board,
    /// Stones of the position before the first move (handicap or set-up).
    setup: Vec<(Color, Point)>,
    /// Number of handicap stones (0 when the set-up is not a handicap).
    handicap: usize,
    first_to_move: Color,
    moves: Vec<(Color, Move)>,
    /// Checkpoints for undo: the board before move `i` (counted from 0) for every `i`
    /// that is a multiple of [`CHECKPOINT_MOVES`]. Undo replays from the last one, so a
    /// long game keeps one board per 16 moves instead of one per move.
    undo_stack: Vec<(usize, Board)>,
    /// Stone hash and player to move of every position so far, the starting one first.
    history: Vec<(u64, Color)>,
    /// How many times each stone hash occurs in `history`.
    positions: HashMap<u64, u32>,
    /// The same for stone hash mixed with the player to move.
    situations: HashMap<u64, u32>,
}

/// Most moves a game may hold (passes included): far above any real game (the longest
/// recorded ones stay under 1,000 moves; 3·size² is 1,875 on 25x25), and a bound on the
/// memory a hostile `gogui-play_sequence` or record can make the history take.
pub const MAX_GAME_MOVES: usize = 10_000;

/// Moves between two undo checkpoints.
const CHECKPOINT_MOVES: usize = 16;

impl Game {
    /// A new game on an empty `size` x `size` board; `None` unless `2 <= size <= 25`.
    pub fn new(size: usize, rules: Rules) -> Option<Game> {
        let board = Board::new(size)?;
        let mut g = Game {
            rules,
            board,
            setup: Vec::new(),
            handicap: 0,
            first_to_move: Color::Black,
            moves: Vec::new(),
            undo_stack: Vec::new(),
            history: Vec::new(),
            positions: HashMap::new(),
            situations: HashMap::new(),
        };
        g.reset_history();
        Some(g)
    }

    fn reset_history(&mut self) {
        self.moves.clear();
        self.undo_stack.clear();
        self.history.clear();
        self.positions.clear();
        self.situations.clear();
        self.record(self.board.hash(), self.first_to_move);
    }

    fn record(&mut self, hash: u64, to_move: Color) {
        self.history.push((hash, to_move));
        *self.positions.entry(hash).or_insert(0) += 1;
        *self
            .situations
            .entry(hash ^ TO_MOVE_KEYS[to_move.index()])
            .or_insert(0) += 1;
    }

    fn unrecord(&mut self) {
        if let Some((hash, to_move)) = self.history.pop() {
            for (map, key) in [
                (&mut self.positions, hash),
                (&mut self.situations, hash ^ TO_MOVE_KEYS[to_move.index()]),
            ] {
                if let Some(n) = map.get_mut(&key) {
                    *n -= 1;
                    if *n == 0 {
                        map.remove(&key);
                    }
                }
            }
        }
    }

    /// Empties the board and forgets the moves; size and rules (komi included) are kept.
    pub fn clear(&mut self) {
        self.board = Board::new(self.board.size()).expect("size already valid");
        self.setup.clear();
        self.handicap = 0;
        self.first_to_move = Color::Black;
        self.reset_history();
    }

    /// Changes the board size and clears; false (and nothing changed) unless
    /// `2 <= size <= 25`.
    pub fn resize(&mut self, size: usize) -> bool {
        match Board::new(size) {
            Some(b) => {
                self.board = b;
                self.clear();
                true
            }
            None => false,
        }
    }

    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn size(&self) -> usize {
        self.board.size()
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    /// Replaces the rules (komi included); the position and history stay.
    pub fn set_rules(&mut self, rules: Rules) {
        self.rules = rules;
    }

    pub fn komi(&self) -> f64 {
        self.rules.komi
    }

    pub fn set_komi(&mut self, komi: f64) {
        self.rules.komi = komi;
    }

    /// The set-up stones of the starting position.
    pub fn setup(&self) -> &[(Color, Point)] {
        &self.setup
    }

    /// Number of handicap stones (0 without handicap).
    pub fn handicap(&self) -> usize {
        self.handicap
    }

    /// The player to move at the start (White after handicap stones).
    pub fn first_to_move(&self) -> Color {
        self.first_to_move
    }

    /// The moves played since the starting position.
    pub fn moves(&self) -> &[(Color, Move)] {
        &self.moves
    }

    /// The player to move: the opponent of the last mover, or the first player.
    pub fn to_move(&self) -> Color {
        self.moves
            .last()
            .map_or(self.first_to_move, |&(c, _)| c.opponent())
    }

    /// Passes at the end of the move list.
    pub fn consecutive_passes(&self) -> usize {
        self.moves
            .iter()
            .rev()
            .take_while(|(_, m)| *m == Move::Pass)
            .count()
    }

    /// Whether the last two moves were passes: the game is over and may be counted (play
    /// may still resume, as the rules let a player who disagrees carry on).
    pub fn is_over(&self) -> bool {
        self.consecutive_passes() >= 2
    }

    /// Whether `color` may play `mv` now, and if not, why.
    pub fn check(&self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.moves.len() >= MAX_GAME_MOVES {
            return Err(IllegalMove::TooManyMoves);
        }
        let p = match mv {
            Move::Pass => return Ok(()),
            Move::Place(p) => p,
        };
        match self.board.check(color, p) {
            Ok(()) => {}
            Err(IllegalMove::Suicide) if self.rules.suicide_allowed => {}
            Err(e) => return Err(e),
        }
        let after = self.board.hash_after(color, p);
        let repeats = match self.rules.ko {
            KoRule::Simple => false,
            KoRule::Positional => self.positions.contains_key(&after),
            KoRule::Situational => self
                .situations
                .contains_key(&(after ^ TO_MOVE_KEYS[color.opponent().index()])),
        };
        if repeats {
            Err(IllegalMove::Superko)
        } else {
            Ok(())
        }
    }

    /// Plays `mv` for `color` if legal (either colour may move, even twice in a row).
    pub fn play(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        self.check(color, mv)?;
        self.apply(color, mv);
        Ok(())
    }

    /// Plays a move from a game record: captures are resolved (a suicide removes the
    /// player's own chain) but ko and superko are not enforced; the move enters the
    /// history. Fails only on a point that is off the board or occupied.
    pub fn play_record(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        if self.moves.len() >= MAX_GAME_MOVES {
            return Err(IllegalMove::TooManyMoves);
        }
        if let Move::Place(p) = mv {
            if !self.board.on_board(p) {
                return Err(IllegalMove::OffBoard);
            }
            if self.board.get(p).is_some() {
                return Err(IllegalMove::Occupied);
            }
        }
        self.apply(color, mv);
        Ok(())
    }

    fn apply(&mut self, color: Color, mv: Move) {
        if self.moves.len().is_multiple_of(CHECKPOINT_MOVES) {
            self.undo_stack.push((self.moves.len(), self.board.clone()));
        }
        Self::apply_to(&mut self.board, color, mv);
        self.moves.push((color, mv));
        self.record(self.board.hash(), color.opponent());
    }

    /// Takes back the last move; false if there is none (set-up stones are not moves).
    pub fn undo(&mut self) -> bool {
        let Some(target) = self.moves.len().checked_sub(1) else {
            return false;
        };
        while self.undo_stack.last().is_some_and(|&(i, _)| i > target) {
            self.undo_stack.pop();
        }
        // A checkpoint at move 0 exists whenever a move does.
        let Some((from, board)) = self.undo_stack.last() else {
            return false;
        };
        let mut board = board.clone();
        for &(c, m) in &self.moves[*from..target] {
            Self::apply_to(&mut board, c, m);
        }
        self.board = board;
        self.moves.pop();
        self.unrecord();
        true
    }

    /// Plays a move on `board` as the history does (captures resolved, suicide removing
    /// the player's own chain).
    fn apply_to(board: &mut Board, color: Color, mv: Move) {
        match mv {
            Move::Pass => board.pass(),
            Move::Place(p) => {
                board.place(color, p);
            }
        }
    }

    /// Places handicap stones for Black on an empty board before any move; White moves
    /// next. Repeated points or fewer than 2 stones, or a full board, are refused.
    pub fn set_handicap(&mut self, points: &[Point]) -> Result<(), SetupError> {
        if !self.moves.is_empty() || self.board.num_empty() != self.size() * self.size() {
            return Err(SetupError::BoardNotEmpty);
        }
        let mut sorted = points.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        if points.len() < 2
            || sorted.len() != points.len()
            || points.len() >= self.size() * self.size()
            || points.iter().any(|&p| !self.board.on_board(p))
        {
            return Err(SetupError::BadPoints);
        }
        let stones: Vec<(Color, Point)> = points.iter().map(|&p| (Color::Black, p)).collect();
        self.set_position(&stones, Color::White);
        self.handicap = points.len();
        Ok(())
    }

    /// Starts the game afresh from a set-up position (SGF AB/AW/PL): the stones are put on
    /// an empty board without resolving captures, the history restarts from there, and
    /// `to_move` moves first. Stones off the board or on one point twice are skipped.
    pub fn set_position(&mut self, stones: &[(Color, Point)], to_move: Color) {
        let mut board = Board::new(self.size()).expect("size already valid");
        self.setup.clear();
        for &(c, p) in stones {
            if board.set_stone(c, p) {
                self.setup.push((c, p));
            }
        }
        self.board = board;
        self.handicap = 0;
        self.first_to_move = to_move;
        self.reset_history();
    }

    /// Makes the current position the starting one (keeping prisoners), as an SGF set-up
    /// node in mid-game does; then applies the set-up changes.
    pub fn setup_here(&mut self, add: &[(Color, Point)], remove: &[Point], to_move: Option<Color>) {
        for &p in remove {
            self.board.clear_stone(p);
        }
        for &(c, p) in add {
            if self.board.get(p).is_some() {
                self.board.clear_stone(p);
            }
            self.board.set_stone(c, p);
        }
        self.setup = self
            .board
            .points()
            .filter_map(|p| self.board.get(p).map(|c| (c, p)))
            .collect();
        self.handicap = 0;
        self.first_to_move = to_move.unwrap_or_else(|| self.to_move());
        self.reset_history();
    }

    /// Changes who moves first; only before the first move (false otherwise).
    pub fn set_first_to_move(&mut self, color: Color) -> bool {
        if !self.moves.is_empty() {
            return false;
        }
        self.first_to_move = color;
        self.reset_history();
        true
    }

    /// Points where `color` may legally play now, bottom row first.
    pub fn legal_points(&self, color: Color) -> Vec<Point> {
        self.board
            .points()
            .filter(|&p| self.check(color, Move::Place(p)).is_ok())
            .collect()
    }

    /// Area count of the current position, with the stones on `dead` removed first when
    /// the rules remove dead stones; komi and handicap compensation from the rules.
    pub fn score(&self, dead: &[Point]) -> Score {
        self.score_owned(dead, &[])
    }

    /// [`Game::score`], with the empty points that both colours reach counted to the
    /// colour that `own` (Black's ownership by point index) clearly gives them
    /// ([`score::area_owned`]) when the rules remove dead stones.
    pub fn score_owned(&self, dead: &[Point], own: &[f32]) -> Score {
        let (dead, own) = if self.rules.remove_dead {
            (dead, own)
        } else {
            (&[][..], &[][..])
        };
        score::area_owned(&self.board, dead, own, self.rules.komi, self.compensation())
    }

    /// The points White gets for Black's handicap stones, as the rules give them (one a
    /// stone under Chinese rules, none under Tromp-Taylor).
    pub fn compensation(&self) -> f64 {
        if self.rules.handicap_compensation {
            self.handicap as f64
        } else {
            0.0
        }
    }

    /// Komi plus handicap compensation: what the count adds to White's area.
    pub fn total_komi(&self) -> f64 {
        self.rules.komi + self.compensation()
    }

    /// Hashes of every position so far, the starting one first (stones only).
    pub fn position_hashes(&self) -> impl Iterator<Item = u64> + '_ {
        self.history.iter().map(|&(h, _)| h)
    }
}
