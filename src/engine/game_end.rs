//! How Tengen ends a game (Chinese rules, area counting): when it passes, and what it plays
//! instead of a pass. The search proposes a move; these rules, applied in this order, may
//! change it. Each is a function of its own with a test on a position built by moves.
//!
//! 1. [`cleanup_before_passing`]: under `kgs-genmove_cleanup` or rules that count every
//!    stone (Tromp-Taylor), no pass while a stone judged dead stands for the opponent.
//! 2. [`no_pass_on_an_open_board`]: while more than half the board is empty, never pass.
//!    An opponent's early pass does not end a game that has hardly begun (a lone stone
//!    "reaches" the whole board, and the count says it owns it).
//! 3. [`save_before_passing`]: a pass while a chain of ours is in atari and one move saves
//!    it becomes that move.
//! 4. [`pass_only_when_the_count_wins`]: a pass (ours after the opponent's, or ours first)
//!    is made only when our own count, the dead stones judged, wins, or when the game is
//!    lost anyway (the search's win rate below [`LOST`], or after the opponent's pass
//!    nothing left to play but moves inside settled areas). Otherwise Tengen plays on,
//!    outside the settled areas where the search rates such a move nearly as well.
//! 5. [`stay_out_of_settled_areas`]: after the opponent's pass, a move inside a settled area
//!    gives way to one outside that the search rates nearly as well.
//! 6. [`pass_when_the_game_is_decided`]: before the opponent passes, Tengen passes instead of
//!    filling its own area only when the count wins, every empty point lies in a region one
//!    colour reaches with living stones and that the search expects to end up that colour's,
//!    and the opponent's last stone needs no answer.
//!
//! A region (empty points, and the points of the dead stones, that touch each other) is
//! **settled** for a colour when only that colour's stones reach it, each of those stones is
//! alive (the search expects it to stay, ownership at least [`OWNED`]), and it holds at most
//! half of the open points: a lone stone's whole board, or one wall's half of an empty
//! board, is still open to the opponent.

use crate::board::{Board, Color, Move, Point, NUM_CELLS};
use crate::game::Game;
use crate::search::Analysis;

/// The search's win rate from which the game counts as won for the end-of-game manners.
pub(super) const WON: f64 = 0.85;

/// The search's win rate below which the game counts as lost anyway: then a pass that
/// ends it is no worse than playing on.
pub(super) const LOST: f64 = 0.05;

/// How surely the search must expect a point to end up a colour's (ownership in [-1, 1];
/// 0.8: in nine simulations out of ten) for a stone there to count as alive, or an empty
/// point as that colour's area.
pub(super) const OWNED: f32 = 0.8;

/// What the rules see: the game, the colour to play, the search's analysis, and the dead
/// stones (judged at most once, only when a rule needs them).
pub(super) struct EndView<'a> {
    pub game: &'a Game,
    pub color: Color,
    pub analysis: &'a Analysis,
    /// Judges the dead stones (a short search): called at most once.
    pub judge_dead: &'a dyn Fn() -> Vec<Point>,
    /// Whether dead stones are removed before counting (Chinese) rather than counted as
    /// they stand (Tromp-Taylor); `kgs-genmove_cleanup` sets this false.
    pub remove_dead: bool,
    dead: std::cell::OnceCell<Vec<Point>>,
}

impl<'a> EndView<'a> {
    pub fn new(
        game: &'a Game,
        color: Color,
        analysis: &'a Analysis,
        judge_dead: &'a dyn Fn() -> Vec<Point>,
        remove_dead: bool,
    ) -> EndView<'a> {
        EndView {
            game,
            color,
            analysis,
            judge_dead,
            remove_dead,
            dead: std::cell::OnceCell::new(),
        }
    }

    fn board(&self) -> &Board {
        self.game.board()
    }

    fn dead(&self) -> &[Point] {
        self.dead.get_or_init(|| (self.judge_dead)())
    }

    fn legal(&self, m: Move) -> bool {
        self.game.check(self.color, m).is_ok()
    }

    fn opponent_passed(&self) -> bool {
        matches!(
            self.game.moves().last(),
            Some(&(c, Move::Pass)) if c == self.color.opponent()
        )
    }

    /// Our own count, the dead stones taken off, wins.
    fn count_wins(&self) -> bool {
        self.game.score(self.dead()).winner() == Some(self.color)
    }

    /// The search's ownership of `p` from our side (+1: ours).
    fn own(&self, p: Point) -> f32 {
        let sign = if self.color == Color::Black {
            1.0
        } else {
            -1.0
        };
        sign * self
            .analysis
            .ownership
            .get(p.index())
            .copied()
            .unwrap_or(0.0)
    }

    /// The best legal move other than a pass among the search's candidates, most visited
    /// first.
    fn best_non_pass(&self) -> Option<Move> {
        self.analysis
            .candidates
            .iter()
            .map(|c| c.mv)
            .find(|&m| m != Move::Pass && self.legal(m))
    }

    /// With a network, also far behind in its score lead or surely lost
    /// ([`super::resign::beyond_hope`]): its win rate for Black on 9x9 at komi 7.5 is
    /// under 10% in an even game.
    fn lost_anyway(&self) -> bool {
        self.analysis.winrate < LOST
            && (!self.analysis.net
                || super::resign::beyond_hope(self.game, self.color, self.analysis))
    }
}

/// The rules in order (see the module documentation): the move to play instead of the
/// search's `mv`.
pub(super) fn decide(view: &EndView, mv: Move) -> Move {
    if !view.remove_dead {
        return cleanup_before_passing(view, mv);
    }
    if let Some(m) = no_pass_on_an_open_board(view, mv) {
        return m;
    }
    if let Some(m) = save_before_passing(view, mv) {
        return m;
    }
    if let Some(m) = pass_only_when_the_count_wins(view, mv) {
        return m;
    }
    if view.opponent_passed() {
        return stay_out_of_settled_areas(view, mv);
    }
    pass_when_the_game_is_decided(view, mv)
}

/// Rule 1: where every stone left standing counts (`kgs-genmove_cleanup`, Tromp-Taylor), a
/// pass while a stone judged dead stands for the opponent becomes the search's best other
/// move.
pub(super) fn cleanup_before_passing(view: &EndView, mv: Move) -> Move {
    let board = view.board();
    let opponent = view.color.opponent();
    if mv == Move::Pass && view.dead().iter().any(|&p| board.get(p) == Some(opponent)) {
        if let Some(m) = view.best_non_pass() {
            return m;
        }
    }
    mv
}

/// Whether more than half of the board's points are empty.
pub(super) fn mostly_open(board: &Board) -> bool {
    let points = board.size() * board.size();
    let stones = board.stone_count(Color::Black) + board.stone_count(Color::White);
    (points - stones) * 2 > points
}

/// Rule 2: while the board is mostly open, a pass becomes the search's best other move.
pub(super) fn no_pass_on_an_open_board(view: &EndView, mv: Move) -> Option<Move> {
    if mv != Move::Pass || !mostly_open(view.board()) {
        return None;
    }
    let m = view.best_non_pass()?;
    crate::log!(
        2,
        "game end: {} instead of a pass (the board is mostly open)",
        crate::notation::move_text(m)
    );
    Some(m)
}

/// Rule 3: a pass the search chose (a lost position, say) while a chain of ours is in
/// atari hands the opponent the capture: save it instead where one move does, the
/// search's favourite save first. Chains the search already gives the opponent are not
/// saved. Not after the opponent's pass: then rule 4 decides.
pub(super) fn save_before_passing(view: &EndView, mv: Move) -> Option<Move> {
    if mv != Move::Pass || view.opponent_passed() {
        return None;
    }
    let alive = |p: Point| view.own(p) > -OWNED;
    let saves = atari_saves(view.board(), view.color, &alive);
    let rank = |p: Point| {
        view.analysis
            .candidates
            .iter()
            .position(|c| c.mv == Move::Place(p))
            .unwrap_or(usize::MAX)
    };
    let p = saves
        .iter()
        .copied()
        .filter(|&p| view.legal(Move::Place(p)))
        .min_by_key(|&p| rank(p))?;
    crate::log!(
        2,
        "game end: {} instead of a pass (a chain in atari)",
        crate::notation::move_text(Move::Place(p))
    );
    Some(Move::Place(p))
}

/// Rule 4: a pass stands only when the count wins or the game is lost anyway. After the
/// opponent's pass, a count that wins ends the game with our pass whatever the search
/// proposed (the board not mostly open: rule 2 comes first). The game is lost anyway when
/// the search's win rate is under [`LOST`], or, after the opponent's pass, when the
/// search's move and every move it rates nearly as well lie inside settled areas (filling
/// our own, or a stone that dies in theirs): then such a move becomes a pass. A pass that does not stand becomes a move outside the settled areas the search
/// rates nearly as well as its best, or else its best other move.
pub(super) fn pass_only_when_the_count_wins(view: &EndView, mv: Move) -> Option<Move> {
    let opponent_passed = view.opponent_passed();
    if mv != Move::Pass && !opponent_passed {
        return None;
    }
    if mostly_open(view.board()) {
        // Rule 2 has turned a pass into a move already; a move stands.
        return None;
    }
    if view.count_wins() {
        if opponent_passed {
            crate::log!(
                2,
                "game end: pass after the opponent's pass ({} dead stones; the count wins)",
                view.dead().len()
            );
            return Some(Move::Pass);
        }
        return None;
    }
    let areas = Areas::new(view);
    if view.lost_anyway() && (mv == Move::Pass || areas.settled_move(mv)) {
        return Some(Move::Pass);
    }
    if opponent_passed && areas.settled_move(mv) && unsettled_alternative(view, &areas).is_none() {
        // Nothing unsettled is left to play for: the search's move and every move it
        // rates nearly as well lie in settled areas, where a stone neither gains nor saves
        // a point.
        crate::log!(
            2,
            "game end: pass after the opponent's pass (the count loses; only settled areas left)"
        );
        return Some(Move::Pass);
    }
    if mv != Move::Pass {
        // Playing on, as the search wants: rule 5 picks the point.
        return None;
    }
    let m = unsettled_alternative(view, &areas).or_else(|| view.best_non_pass())?;
    crate::log!(
        2,
        "game end: {} instead of a pass (the count loses)",
        crate::notation::move_text(m)
    );
    Some(m)
}

/// Rule 5: after the opponent's pass, a move inside a settled area (ours: filling it;
/// theirs: a stone that dies there) gives way to one outside that the search rates nearly
/// as well (a tenth of the best's visits, a win rate within 3%).
pub(super) fn stay_out_of_settled_areas(view: &EndView, mv: Move) -> Move {
    let areas = Areas::new(view);
    if !areas.settled_move(mv) {
        return mv;
    }
    unsettled_alternative(view, &areas).unwrap_or(mv)
}

/// Rule 6: before the opponent passes, a move inside a settled area becomes a pass only
/// when the game is decided and won: the board not mostly open, the count winning, every
/// empty point in a region one colour reaches with living stones and expected to end up
/// that colour's, and no answer owed to the opponent's last stone (one judged dead inside
/// our area, or one that puts a chain of ours in atari). Otherwise a move outside the
/// settled areas that the search rates nearly as well, or the search's move.
pub(super) fn pass_when_the_game_is_decided(view: &EndView, mv: Move) -> Move {
    let board = view.board();
    // Cheap first look: a point whose region (no stone taken off) both colours reach is
    // not settled, and judging the dead stones can wait.
    let Move::Place(p) = mv else {
        return mv;
    };
    if !matches!(crate::score::regions(board, &[]).0[p.index()], 1 | 2) {
        return mv;
    }
    // While one colour has no stone on the board every point looks settled (White's
    // first move, a handicap game's start): not an ended game.
    let one_coloured = Color::BOTH.iter().any(|&c| board.stone_count(c) == 0);
    if mostly_open(board) || (one_coloured && view.analysis.winrate < WON) {
        return mv;
    }
    let areas = Areas::new(view);
    if !areas.decided() || !areas.settled_move(mv) {
        return mv;
    }
    if let Some(m) = unsettled_alternative(view, &areas) {
        return m;
    }
    let opponent = view.color.opponent();
    let answer = match view.game.moves().last() {
        Some(&(c, Move::Place(q))) if c == opponent => {
            view.dead().contains(&q)
                || q.neighbors()
                    .iter()
                    .any(|&n| board.get(n) == Some(view.color) && board.in_atari(n))
        }
        _ => false,
    };
    if !answer && view.count_wins() {
        crate::log!(
            2,
            "game end: pass instead of {} (the game is decided; {} dead stones)",
            crate::notation::move_text(mv),
            view.dead().len()
        );
        return Move::Pass;
    }
    mv
}

/// A move outside the settled areas that the search rates nearly as well as its best (a
/// tenth of the visits, a win rate within 3%).
fn unsettled_alternative(view: &EndView, areas: &Areas) -> Option<Move> {
    let best = view.analysis.candidates.first()?;
    view.analysis
        .candidates
        .iter()
        .find(|c| {
            c.mv != Move::Pass
                && !areas.settled_move(c.mv)
                && c.visits * 10 >= best.visits
                && c.winrate >= best.winrate - 0.03
                && view.legal(c.mv)
        })
        .map(|c| c.mv)
}

/// The regions of the board, the dead stones taken off.
struct Areas {
    /// Region number of each point (by point index); `usize::MAX` for a living stone.
    region_of: Vec<usize>,
    regions: Vec<Region>,
}

struct Region {
    /// Bit 1: Black reaches it; bit 2: White.
    reach: u8,
    size: usize,
    /// Every stone that reaches it is alive by the search's ownership.
    alive: bool,
    /// Every point of it is expected to end up the reaching colour's.
    expected: bool,
}

impl Areas {
    fn new(view: &EndView) -> Areas {
        let board = view.board();
        let own = &view.analysis.ownership;
        let black_own = |p: Point| own.get(p.index()).copied().unwrap_or(0.0);
        let mut open = [false; NUM_CELLS];
        for p in board.points() {
            open[p.index()] = board.get(p).is_none();
        }
        for &p in view.dead() {
            if board.on_board(p) {
                open[p.index()] = true;
            }
        }
        let mut region_of = vec![usize::MAX; NUM_CELLS];
        let mut regions = Vec::new();
        let mut stack = Vec::new();
        for start in board.points() {
            if !open[start.index()] || region_of[start.index()] != usize::MAX {
                continue;
            }
            let id = regions.len();
            let mut r = Region {
                reach: 0,
                size: 0,
                alive: true,
                expected: true,
            };
            let mut members = Vec::new();
            region_of[start.index()] = id;
            stack.push(start);
            while let Some(p) = stack.pop() {
                r.size += 1;
                members.push(p);
                for n in p.neighbors() {
                    if !board.on_board(n) {
                        continue;
                    }
                    if open[n.index()] {
                        if region_of[n.index()] == usize::MAX {
                            region_of[n.index()] = id;
                            stack.push(n);
                        }
                        continue;
                    }
                    let (bit, sign) = match board.get(n) {
                        Some(Color::Black) => (1, 1.0),
                        Some(Color::White) => (2, -1.0),
                        None => continue,
                    };
                    r.reach |= bit;
                    if sign * black_own(n) < OWNED {
                        r.alive = false;
                    }
                }
            }
            let sign = match r.reach {
                1 => 1.0,
                2 => -1.0,
                _ => 0.0,
            };
            r.expected = sign != 0.0 && members.iter().all(|&p| sign * black_own(p) >= OWNED);
            regions.push(r);
        }
        Areas { region_of, regions }
    }

    fn open_points(&self) -> usize {
        self.regions.iter().map(|r| r.size).sum()
    }

    fn region(&self, p: Point) -> Option<&Region> {
        self.regions.get(*self.region_of.get(p.index())?)
    }

    /// Whether `mv` lies in a settled region (see the module documentation).
    fn settled_move(&self, mv: Move) -> bool {
        let Move::Place(p) = mv else {
            return false;
        };
        let open = self.open_points();
        self.region(p)
            .is_some_and(|r| matches!(r.reach, 1 | 2) && r.alive && r.size * 2 <= open)
    }

    /// No dame: every region is reached by one colour, with living stones, and expected
    /// to end up that colour's.
    fn decided(&self) -> bool {
        self.regions
            .iter()
            .all(|r| matches!(r.reach, 1 | 2) && r.alive && r.expected)
    }
}

/// The moves that save a chain of `color` in atari: extending it to two liberties or
/// more, or capturing an enemy chain in atari next to it (the playouts' escapes, without
/// their ladder read); only chains whose stones `keep` accepts. Not checked against
/// superko.
pub(super) fn atari_saves(board: &Board, color: Color, keep: &dyn Fn(Point) -> bool) -> Vec<Point> {
    let mut chains = Vec::new();
    board.for_each_atari_chain(1, |p, lib, _| {
        if board.get(p) == Some(color) && keep(p) {
            chains.push((p, lib));
        }
    });
    let mut scratch = board.clone();
    let mut out = Default::default();
    for (p, lib) in chains {
        crate::playout::escapes(&mut scratch, color, p, lib, false, &mut out);
    }
    out.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn saves_a_chain_in_atari_by_capturing_where_extending_fails() {
        // From a 9x9 game against Pachi: White's C8 has put Black's C9 in
        // atari. B9 leaves it in atari; E9 captures D9 and saves it. Black's G3 is in
        // atari too, and G4 saves it.
        let rows = [
            "O.XO.....",
            "O.OX.....",
            ".XO......",
            "OOOXXX...",
            ".OOXO.X..",
            "OXXOO....",
            ".XO.OOXO.",
            "XXOOXXOO.",
            ".O.O.....",
        ];
        let b = Board::from_rows(&rows).unwrap();
        assert_eq!(
            atari_saves(&b, Color::Black, &|_| true),
            vec![Point::from_coord(6, 3), Point::from_coord(4, 8)]
        );
        assert_eq!(atari_saves(&b, Color::Black, &|_| false), vec![]);
    }
}
