//! Exact reading of a small enclosed fight at the end of a game: a group, and every chain
//! around it that is not vouched for, played out move by move on the few empty points
//! they have between them (every legal move there and the pass, both sides counting the
//! area of those points), to say which stones survive whoever moves first. A seki is the
//! case it is for: chains that share liberties and that neither side can approach are
//! read alive, whatever an ownership belief says. Knows the board only; which chains
//! cannot be captured (pass-alive, or believed alive with liberties to spare) is the
//! caller's to say.

use std::collections::HashMap;

use crate::board::{Board, Cell, Color, IllegalMove, Point, NUM_CELLS};
use crate::playout::end_owner;

/// Most empty points a fight may have between its chains: beyond, nothing is read.
pub const MAX_EMPTY: usize = 12;
/// Most stones of the chains read (a big group is no small fight).
pub const MAX_STONES: usize = 48;
/// Most positions read for one side to move first.
pub const MAX_NODES: usize = 40_000;

/// What the reading found for the stones of the group asked about.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    /// The group's stones when none is lost with its opponent moving first and both
    /// playing their best: alive (in seki or with eyes) as the board stands.
    pub alive: Vec<Point>,
    /// The group's stones when all are taken off even with its owner moving first: dead.
    pub dead: Vec<Point>,
}

/// Reads the fight of `group` (stones of one colour; chains joined by shared liberties).
/// `vouched(board, chain, outside)` says whether a chain next to the fight cannot be
/// captured, given how many of its liberties lie outside the empty points read so far;
/// the chains it does not vouch for join the fight with all their liberties. `None` when
/// the fight is too big to read, or a ko or a repeated position came up (then the
/// outcome may hang on threats elsewhere).
pub fn read(
    board: &Board,
    group: &[Point],
    vouched: &dyn Fn(&Board, Point, usize) -> bool,
) -> Option<Reading> {
    let color = board.get(*group.first()?)?;
    let mut fight = Fight {
        in_region: vec![false; NUM_CELLS],
        region: Vec::new(),
        is_weak: vec![false; NUM_CELLS],
        weak: Vec::new(),
        stones: 0,
    };
    for &p in group {
        let head = board.chain_id(p)?;
        if board.get(p) != Some(color) {
            return None;
        }
        if !fight.is_weak[head.index()] {
            fight.join(board, head);
        }
    }
    // Chains touching the empty points join until every one left out is vouched for
    // (its count of outside liberties shrinks as the region grows: ask again each round).
    loop {
        if fight.region.len() > MAX_EMPTY || fight.stones > MAX_STONES {
            return None;
        }
        let mut joined = false;
        let mut i = 0;
        while i < fight.region.len() {
            let e = fight.region[i];
            i += 1;
            for n in e.neighbors() {
                if board.get(n).is_none() {
                    continue;
                }
                let Some(head) = board.chain_id(n) else {
                    continue;
                };
                if fight.is_weak[head.index()] {
                    continue;
                }
                let outside = board
                    .liberties(head)
                    .iter()
                    .filter(|l| !fight.in_region[l.index()])
                    .count();
                if !vouched(board, head, outside) {
                    fight.join(board, head);
                    joined = true;
                }
            }
        }
        if !joined {
            break;
        }
    }
    let Fight { region, weak, .. } = fight;
    // The points play can change: the empty ones and the stones of the chains read.
    let mut points = region.clone();
    for &h in &weak {
        points.extend(board.chain(h));
    }
    points.sort_unstable();
    let group_stones: Vec<Point> = {
        let mut s: Vec<Point> = group.iter().flat_map(|&p| board.chain(p)).collect();
        s.sort_unstable();
        s.dedup();
        s
    };
    // The group's stones left whoever moves first: all of them with the opponent first
    // (alive), none with the owner first (dead); anything between says neither.
    let read_first = |first: Color| -> Option<Outcome> {
        Reader::new(board, &points, &group_stones, color)
            .outcome(first)
            .filter(|o| !o.ko)
    };
    let total = group_stones.len() as u16;
    let opponent_first = read_first(color.opponent())?;
    let owner_first = read_first(color)?;
    Some(Reading {
        alive: if opponent_first.left == total {
            group_stones.clone()
        } else {
            Vec::new()
        },
        dead: if owner_first.left == 0 {
            group_stones
        } else {
            Vec::new()
        },
    })
}

/// The chains read and the empty points between them.
struct Fight {
    in_region: Vec<bool>,
    region: Vec<Point>,
    is_weak: Vec<bool>,
    weak: Vec<Point>,
    stones: usize,
}

impl Fight {
    /// `head`'s chain joins the fight, and the region the whole empty areas its
    /// liberties lie in (a stone played there must not find liberties nobody may fill).
    fn join(&mut self, board: &Board, head: Point) {
        self.is_weak[head.index()] = true;
        self.weak.push(head);
        self.stones += board.chain_len(head);
        let mut stack = board.liberties(head);
        while let Some(l) = stack.pop() {
            if self.in_region[l.index()] || board.get(l).is_some() || !board.on_board(l) {
                continue;
            }
            if self.region.len() > MAX_EMPTY {
                return;
            }
            self.in_region[l.index()] = true;
            self.region.push(l);
            stack.extend(l.neighbors());
        }
    }
}

/// Longest line read.
const MAX_DEPTH: usize = 3 * MAX_EMPTY;

/// A capture this big ends the reading: the capturer's new space is too big to kill
/// (the sacrifices that kill leave three or four points, a nakade).
const DECISIVE_CAPTURE: u32 = 5;

/// What the best play from a position leads to: the area of the fight's points for the
/// reader's colour minus its opponent's, how many stones of the group are left at the
/// end, and whether a ko came up on the way (then threats elsewhere may change it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Outcome {
    value: i32,
    left: u16,
    ko: bool,
}

/// What a kept outcome is: exact, or a bound from a cut-off search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// Minimax over the points of one fight, both sides scoring the area of those points
/// (a stone its colour's, an empty point the colour of all its stone neighbours).
struct Reader<'a> {
    board: Board,
    points: &'a [Point],
    group: &'a [Point],
    color: Color,
    memo: HashMap<(u64, bool, u8), (Outcome, Bound)>,
    path: Vec<u64>,
    nodes: usize,
}

impl<'a> Reader<'a> {
    fn new(board: &Board, points: &'a [Point], group: &'a [Point], color: Color) -> Reader<'a> {
        Reader {
            board: board.clone(),
            points,
            group,
            color,
            memo: HashMap::new(),
            path: vec![board.hash()],
            nodes: 0,
        }
    }

    /// The best play's outcome with `first` to move, both passing at the end; `None`
    /// when the reading was cut short.
    fn outcome(&mut self, first: Color) -> Option<Outcome> {
        let bound = (4 * MAX_STONES + 4 * MAX_EMPTY) as i32;
        self.search(first, 0, 0, -bound, bound)
    }

    /// Alpha-beta over the fight: the outcome is exact inside (`alpha`, `beta`), a bound
    /// outside it.
    fn search(
        &mut self,
        to_move: Color,
        passes: u8,
        depth: usize,
        mut alpha: i32,
        mut beta: i32,
    ) -> Option<Outcome> {
        if passes >= 2 {
            return Some(self.end());
        }
        let key = (self.board.hash(), to_move == self.color, passes);
        if let Some(&(o, bound)) = self.memo.get(&key) {
            match bound {
                Bound::Exact => return Some(o),
                Bound::Lower if o.value >= beta => return Some(o),
                Bound::Upper if o.value <= alpha => return Some(o),
                _ => {}
            }
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return None;
        }
        if depth > MAX_DEPTH {
            // A line this long goes round in captures: unsure if the best play gets here.
            return Some(Outcome {
                ko: true,
                ..self.end()
            });
        }
        let (alpha0, beta0) = (alpha, beta);
        let maximise = to_move == self.color;
        let next = to_move.opponent();
        let ko = self.board.ko();
        self.board.pass();
        let after_pass = self.search(next, passes + 1, depth + 1, alpha, beta);
        self.board.set_ko(ko);
        let mut best = after_pass?;
        let mut refused = ko.is_some_and(|(_, c)| c == to_move);
        for i in 0..self.points.len() {
            if maximise {
                alpha = alpha.max(best.value);
            } else {
                beta = beta.min(best.value);
            }
            if alpha >= beta {
                break;
            }
            let p = self.points[i];
            if self.own_eye(to_move, p) {
                continue;
            }
            match self.board.check(to_move, p) {
                Ok(()) => {}
                Err(IllegalMove::Ko) => {
                    refused = true;
                    continue;
                }
                Err(_) => continue,
            }
            let hash = self.board.hash_after(to_move, p);
            if self.path.contains(&hash) {
                refused = true;
                continue;
            }
            let before = self.board.captures(to_move);
            let undo = self.board.place_undoable(to_move, p);
            let taken = self.board.captures(to_move) - before;
            let o = if taken >= DECISIVE_CAPTURE {
                Some(self.end())
            } else {
                self.path.push(hash);
                let o = self.search(next, 0, depth + 1, alpha, beta);
                self.path.pop();
                o.map(|o| Outcome {
                    ko: o.ko || self.board.ko().is_some(),
                    ..o
                })
            };
            self.board.undo(undo);
            let o = o?;
            if (maximise && o.value > best.value) || (!maximise && o.value < best.value) {
                best = o;
            }
        }
        best.ko |= refused;
        let bound = if best.value <= alpha0 {
            Bound::Upper
        } else if best.value >= beta0 {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.memo.insert(key, (best, bound));
        Some(best)
    }

    /// Whether `p` is empty with only `color`'s stones (or the edge) around it: filling
    /// one's own eye takes a liberty from oneself and nothing from the opponent.
    fn own_eye(&self, color: Color, p: Point) -> bool {
        self.board.get(p).is_none()
            && self.board.neighbor_count(p, Cell::from(color))
                + self.board.neighbor_count(p, Cell::Border)
                == 4
    }

    /// The outcome of the position as it stands, play over.
    fn end(&self) -> Outcome {
        Outcome {
            value: self.score(),
            left: self
                .group
                .iter()
                .filter(|&&p| self.board.get(p) == Some(self.color))
                .count() as u16,
            ko: false,
        }
    }

    /// The area of the fight's points, counted as a playout's end counts a point.
    fn score(&self) -> i32 {
        let sign = if self.color == Color::Black { 1 } else { -1 };
        self.points
            .iter()
            .map(|&p| sign * end_owner(&self.board, p))
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(board: &Board, v: &str) -> Point {
        let col = "ABCDEFGHJKLMNOPQRST".find(&v[..1]).unwrap();
        let row: usize = v[1..].parse().unwrap();
        board.point(col, row - 1).unwrap()
    }

    #[test]
    fn one_eye_each_and_a_shared_liberty_is_seki() {
        let b = Board::from_rows(&[
            "XXXX.....",
            "XOOX.XXXX",
            "OOXXXX...",
            "O.OXOX...",
            "O.OOOOXXX",
            "OOO.O.OOX",
            "XXXOOOO.O",
            "O.XXXXOOO",
            ".OX.XXO..",
        ])
        .unwrap();
        let spare = |_: &Board, _: Point, outside: usize| outside >= 3;
        let r = read(&b, &[at(&b, "A2"), at(&b, "B1")], &spare);
        assert_eq!(
            r,
            Some(Reading {
                alive: vec![at(&b, "B1"), at(&b, "A2")],
                dead: vec![]
            })
        );
    }

    /// KataGo's 7x7 rules probe (derived/katago_positions/area_scoring_seki_7x7.sgf).
    fn katago_7x7() -> Board {
        Board::from_rows(&[
            "OX.OOO.", "OXXXXXX", "OOOOOOO", ".XOXX..", "OOOX...", "X.OXXXX", ".XOX...",
        ])
        .unwrap()
    }

    #[test]
    fn chains_with_two_shared_liberties_and_no_eye_are_seki() {
        // The top: White D7-F7 and Black's B7-G6 share C7 and G7; who fills one is taken.
        let b = katago_7x7();
        let spare = |_: &Board, _: Point, outside: usize| outside >= 3;
        for group in [vec![at(&b, "D7")], vec![at(&b, "B6")]] {
            let r = read(&b, &group, &spare).unwrap();
            assert!(!r.alive.is_empty() && r.dead.is_empty(), "{r:?}");
        }
    }

    #[test]
    fn stones_that_the_opponent_takes_whoever_moves_first_are_dead() {
        // The same probe's lower left: B4 is in atari, and A2 and B1 die to White B2 then
        // A1 (White's big chain has liberties to spare), as KataGo's own continuation
        // of the probe and its final_status_list say: no seki there.
        let b = katago_7x7();
        let spare = |_: &Board, _: Point, outside: usize| outside >= 3;
        let r = read(&b, &[at(&b, "B4")], &spare).unwrap();
        assert_eq!((r.alive, r.dead), (vec![], vec![at(&b, "B4")]));
        let r = read(&b, &[at(&b, "A2"), at(&b, "B1")], &spare).unwrap();
        assert!(r.alive.is_empty());
        assert_eq!(r.dead.len(), 2);
    }

    #[test]
    fn a_fight_too_big_to_read_says_nothing() {
        let b = Board::from_rows(&[
            ".........",
            ".........",
            ".........",
            ".........",
            "....O....",
            ".........",
            ".........",
            ".........",
            ".........",
        ])
        .unwrap();
        let never = |_: &Board, _: Point, _: usize| false;
        assert_eq!(read(&b, &[at(&b, "E5")], &never), None);
    }

    #[test]
    fn two_stones_in_seki_with_two_groups_one_eye_each() {
        // GNU Go's seki14.sgf played out by KataGo: White's A1 and B2 share A2 and B1 with
        // Black's A3 group (eye A4) and C2 group (eye D1); KataGo counts nobody dead.
        let b = Board::from_rows(&[
            "XXXX.....",
            "XOOX.XXXX",
            "O.OXXX...",
            "OOOXOX...",
            "XXOOOXXXX",
            ".XO.OOOOO",
            "XXOOO.O..",
            ".OXXXOOOO",
            "O.X.XOO..",
        ])
        .unwrap();
        let spare = |_: &Board, _: Point, outside: usize| outside >= 3;
        let r = read(&b, &[at(&b, "A1"), at(&b, "B2")], &spare).unwrap();
        assert_eq!(r.alive, vec![at(&b, "A1"), at(&b, "B2")]);
        assert!(r.dead.is_empty());
    }
}
