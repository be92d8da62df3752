//! KataGo's ladder inputs (`iterLadders`, `searchIsLadderCaptured` and
//! `searchIsLadderCapturedAttackerFirst2Libs`), on a small board of its own (cells and
//! KataGo's simple-ko point, chains found by flood fill): which stones a ladder captures
//! and which moves start a working ladder. Read by `features`; knows the board only.

use crate::board::{Board, Cell, Color, Point, NUM_CELLS, STRIDE};

const EMPTY: u8 = 0;
const BORDER: u8 = 3;
/// KataGo's bound on the nodes of one ladder search; past it the ladder is taken as failing.
const LADDER_BUDGET: usize = 25_000;
const DIRS: [isize; 4] = [-(STRIDE as isize), -1, 1, STRIDE as isize];

#[derive(Clone)]
pub(super) struct LadderBoard {
    cells: Vec<u8>,
    size: usize,
    /// KataGo's `ko_loc`: the point no one may play next (0 for none).
    ko: usize,
}

impl LadderBoard {
    pub(super) fn from_board(board: &Board) -> LadderBoard {
        let cells = (0..NUM_CELLS)
            .map(|i| match board.cell(Point(i as u16)) {
                Cell::Empty => EMPTY,
                Cell::Black => 1,
                Cell::White => 2,
                Cell::Border => BORDER,
            })
            .collect();
        LadderBoard {
            cells,
            size: board.size(),
            ko: board.ko().map_or(0, |(p, _)| p.index()),
        }
    }

    pub(super) fn color(&self, p: usize) -> Option<Color> {
        match self.cells[p] {
            1 => Some(Color::Black),
            2 => Some(Color::White),
            _ => None,
        }
    }

    fn adj(p: usize) -> [usize; 4] {
        DIRS.map(|d| (p as isize + d) as usize)
    }

    /// The stones of the chain through `p`, `p` first.
    fn chain(&self, p: usize) -> Vec<usize> {
        let c = self.cells[p];
        let mut out = vec![p];
        let mut i = 0;
        while i < out.len() {
            for q in Self::adj(out[i]) {
                if self.cells[q] == c && !out.contains(&q) {
                    out.push(q);
                }
            }
            i += 1;
        }
        out
    }

    /// The liberties of the chain through `p`, in the order the chain's stones and their
    /// neighbours are walked, appended to `buf` unless already among `buf[start..]`.
    fn find_liberties(&self, p: usize, buf: &mut Vec<usize>, start: usize) -> usize {
        let before = buf.len();
        for s in self.chain(p) {
            for q in Self::adj(s) {
                if self.cells[q] == EMPTY && !buf[start..].contains(&q) {
                    buf.push(q);
                }
            }
        }
        buf.len() - before
    }

    fn liberties(&self, p: usize) -> usize {
        let mut buf = Vec::new();
        self.find_liberties(p, &mut buf, 0)
    }

    fn immediate_liberties(&self, p: usize) -> usize {
        Self::adj(p)
            .iter()
            .filter(|&&q| self.cells[q] == EMPTY)
            .count()
    }

    /// Captures of adjacent opponent chains in atari: their liberties.
    fn find_liberty_gaining_captures(&self, p: usize, buf: &mut Vec<usize>, start: usize) -> usize {
        let opp = 3 - self.cells[p];
        let before = buf.len();
        let mut checked: Vec<usize> = Vec::new();
        for s in self.chain(p) {
            for q in Self::adj(s) {
                if self.cells[q] == opp {
                    let chain = self.chain(q);
                    let h = *chain.iter().min().expect("a stone");
                    if checked.contains(&h) {
                        continue;
                    }
                    if self.liberties(q) == 1 {
                        self.find_liberties(q, buf, start);
                        checked.push(h);
                    }
                }
            }
        }
        buf.len() - before
    }

    fn has_liberty_gaining_captures(&self, p: usize) -> bool {
        let opp = 3 - self.cells[p];
        self.chain(p).into_iter().any(|s| {
            Self::adj(s)
                .iter()
                .any(|&q| self.cells[q] == opp && self.liberties(q) == 1)
        })
    }

    fn is_suicide(&self, p: usize, c: u8) -> bool {
        let opp = 3 - c;
        for q in Self::adj(p) {
            let v = self.cells[q];
            if v == EMPTY
                || (v == c && self.liberties(q) > 1)
                || (v == opp && self.liberties(q) == 1)
            {
                return false;
            }
        }
        true
    }

    /// KataGo's `isLegal` with multi-stone suicide illegal: empty, not the ko point, not
    /// suicide.
    fn is_legal(&self, p: usize, c: u8) -> bool {
        self.cells[p] == EMPTY && p != self.ko && !self.is_suicide(p, c)
    }

    /// Plays a legal move; captures; sets the ko point as KataGo does.
    fn play(&mut self, p: usize, c: u8) {
        let opp = 3 - c;
        self.cells[p] = c;
        let mut captured = 0;
        let mut last = 0;
        for q in Self::adj(p) {
            if self.cells[q] == opp && self.liberties(q) == 0 {
                let chain = self.chain(q);
                captured += chain.len();
                for s in chain {
                    self.cells[s] = EMPTY;
                }
                last = q;
            }
        }
        let own = self.chain(p);
        self.ko = if captured == 1 && own.len() == 1 && self.liberties(p) == 1 {
            last
        } else {
            0
        };
    }

    fn bound_liberties_after_play(&self, p: usize, c: u8) -> (usize, usize) {
        let opp = 3 - c;
        let (mut immediate, mut caps, mut cap_stones, mut conn, mut max_conn) = (0, 0, 0, 0, 0);
        for q in Self::adj(p) {
            let v = self.cells[q];
            if v == EMPTY {
                immediate += 1;
            } else if v == opp {
                if self.liberties(q) == 1 {
                    caps += 1;
                    cap_stones += self.chain(q).len();
                }
            } else if v == c {
                let l = self.liberties(q) - 1;
                conn += l;
                max_conn = max_conn.max(l);
            }
        }
        (
            caps + max_conn.max(immediate),
            immediate + cap_stones + conn,
        )
    }

    /// Liberties a stone of `c` on `p` would have (capped at `max`).
    fn liberties_after_play(&self, p: usize, c: u8, max: usize) -> usize {
        let mut trial = self.clone();
        let opp = 3 - c;
        trial.cells[p] = c;
        for q in Self::adj(p) {
            if trial.cells[q] == opp && trial.liberties(q) == 0 {
                for s in trial.chain(q) {
                    trial.cells[s] = EMPTY;
                }
            }
        }
        trial.liberties(p).min(max)
    }

    fn would_be_ko_capture(&self, p: usize, c: u8) -> bool {
        if self.cells[p] != EMPTY {
            return false;
        }
        let opp = 3 - c;
        let mut capturable = None;
        for q in Self::adj(p) {
            if self.cells[q] != BORDER && self.cells[q] != opp {
                return false;
            }
            if self.cells[q] == opp && self.liberties(q) == 1 {
                if capturable.is_some() {
                    return false;
                }
                capturable = Some(q);
            }
        }
        capturable.is_some_and(|q| self.chain(q).len() == 1)
    }

    fn connection_liberties_x2(&self, p: usize, c: u8) -> isize {
        Self::adj(p)
            .iter()
            .filter(|&&q| self.cells[q] == c)
            .map(|&q| self.liberties(q) as isize)
            .filter(|&l| l > 1)
            .map(|l| 2 * l - 3)
            .sum()
    }

    /// Calls `found(stone, liberties, working moves)` for every stone of a chain with one
    /// or two liberties that a ladder captures (defender to move with one liberty,
    /// attacker with two; the working first moves only for the latter, and only on the
    /// chain's first stone).
    pub(super) fn iter_ladders(&mut self, mut found: impl FnMut(usize, usize, &[usize])) {
        let n = self.size;
        let mut solved: Vec<(Vec<usize>, bool)> = Vec::new();
        for row in (0..n).rev() {
            for col in 0..n {
                let p = Point::from_coord(col, row).index();
                if self.color(p).is_none() {
                    continue;
                }
                let libs = self.liberties(p);
                if libs != 1 && libs != 2 {
                    continue;
                }
                if let Some((_, v)) = solved.iter().find(|(chain, _)| chain.contains(&p)) {
                    if *v {
                        found(p, libs, &[]);
                    }
                    continue;
                }
                let mut working = Vec::new();
                let laddered = if libs == 1 {
                    self.captured(p, true)
                } else {
                    self.captured_attacker_first(p, &mut working)
                };
                solved.push((self.chain(p), laddered));
                if laddered {
                    found(p, libs, &working);
                }
            }
        }
    }

    fn captured_attacker_first(&mut self, p: usize, working: &mut Vec<usize>) -> bool {
        let mut buf = Vec::new();
        self.find_liberties(p, &mut buf, 0);
        let attacker = 3 - self.cells[p];
        for m in buf {
            if self.is_legal(m, attacker) {
                let saved = self.clone();
                self.play(m, attacker);
                let works = self.captured(p, true);
                *self = saved;
                if works {
                    working.push(m);
                }
            }
        }
        !working.is_empty()
    }

    /// Whether the chain through `p` is captured in a ladder.
    fn captured(&mut self, p: usize, defender_first: bool) -> bool {
        let libs = self.liberties(p);
        if libs > 2 || (defender_first && libs > 1) {
            return false;
        }
        let saved_ko = self.ko;
        if defender_first {
            self.ko = 0;
        }
        let stack_size = self.size * self.size * 3 / 2 + 1;
        let mut nodes = 0;
        let result = self.search(p, defender_first, 0, stack_size, &mut nodes);
        self.ko = saved_ko;
        result.unwrap_or(false)
    }

    /// One level of the ladder search; `None` when the node budget ran out.
    fn search(
        &mut self,
        p: usize,
        defender_first: bool,
        depth: usize,
        stack_size: usize,
        nodes: &mut usize,
    ) -> Option<bool> {
        if depth + 1 >= stack_size {
            return Some(true);
        }
        if *nodes >= LADDER_BUDGET {
            return None;
        }
        let pla = self.cells[p];
        let opp = 3 - pla;
        let defender = depth.is_multiple_of(2) == defender_first;
        let libs = self.liberties(p);
        if !defender && libs <= 1 {
            return Some(true);
        }
        if !defender && libs >= 3 {
            return Some(false);
        }
        if defender && libs >= 2 {
            return Some(false);
        }
        if defender && self.ko != 0 {
            return Some(false);
        }
        let mut moves = Vec::new();
        if defender {
            self.find_liberty_gaining_captures(p, &mut moves, 0);
            self.find_liberties(p, &mut moves, 0);
            let last = *moves.last().expect("a defender in atari has a liberty");
            let (lower, upper) = self.bound_liberties_after_play(last, pla);
            if lower >= 3 {
                return Some(false);
            }
            if moves.len() == 1 && upper <= 1 {
                return Some(true);
            }
        } else {
            self.find_liberties(p, &mut moves, 0);
            debug_assert_eq!(moves.len(), 2);
            let mut libs0 = self.immediate_liberties(moves[0]) as isize;
            let mut libs1 = self.immediate_liberties(moves[1]) as isize;
            if libs0 == 0
                && libs1 == 0
                && self.would_be_ko_capture(moves[0], opp)
                && self.would_be_ko_capture(moves[1], opp)
                && self.liberties_after_play(moves[0], pla, 3) <= 2
                && self.liberties_after_play(moves[1], pla, 3) <= 2
                && !self.has_liberty_gaining_captures(p)
            {
                return Some(true);
            }
            if !Self::adj(moves[0]).contains(&moves[1]) {
                if libs0 >= 3 && libs1 >= 3 {
                    return Some(false);
                } else if libs0 >= 3 {
                    moves.truncate(1);
                } else if libs1 >= 3 {
                    moves.swap_remove(0);
                }
            }
            if moves.len() > 1 {
                libs0 = libs0 * 2 + self.connection_liberties_x2(moves[0], pla);
                libs1 = libs1 * 2 + self.connection_liberties_x2(moves[1], pla);
                if libs1 > libs0 {
                    moves.swap(0, 1);
                }
            }
        }
        let mover = if defender { pla } else { opp };
        for m in moves {
            if !self.is_legal(m, mover) {
                continue;
            }
            let saved = (self.cells.clone(), self.ko);
            self.play(m, mover);
            *nodes += 1;
            let r = self.search(p, defender_first, depth + 1, stack_size, nodes);
            (self.cells, self.ko) = saved;
            let r = r?;
            if defender && !r {
                return Some(false);
            }
            if !defender && r {
                return Some(true);
            }
        }
        Some(defender)
    }
}
