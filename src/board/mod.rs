//! The fast board used by playouts and by the game: a padded 1-D array, chains kept
//! incrementally as rings, pseudo-liberties, the simple-ko point, a Zobrist hash of the
//! stones and a list of empty points. It knows only simple ko: no turn order, no history,
//! no superko, no I/O and no text forms (KataGo's contract).
//!
//! Pseudo-liberties: a chain counts one liberty per (stone, empty neighbour) pair, with the
//! sum and the sum of squares of those neighbour indices. The chain is captured when the
//! count is 0 and is in atari exactly when all its pseudo-liberties are one point, i.e.
//! `count * sum_sq == sum * sum`; that point is `sum / count`.

pub mod benson;
mod color;
mod point;
mod tactics;
mod zobrist;

pub use color::{Cell, Color};
pub use point::{Move, Point, MAX_SIZE, NUM_CELLS, STRIDE};
pub use zobrist::{splitmix64, KO_KEY, STONE_KEYS, TO_MOVE_KEYS};

use smallvec::SmallVec;
use thiserror::Error;

/// Why a move is illegal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Error)]
pub enum IllegalMove {
    /// The point is not on the board.
    #[error("the point is off the board")]
    OffBoard,
    /// The point already holds a stone.
    #[error("the point is occupied")]
    Occupied,
    /// The move would leave its own chain without liberties and captures nothing.
    #[error("suicide")]
    Suicide,
    /// Immediate recapture of a simple ko.
    #[error("ko recapture")]
    Ko,
    /// The move would repeat an earlier whole-board position (game layer only).
    #[error("superko: the position would repeat")]
    Superko,
    /// The game already holds [`crate::game::MAX_GAME_MOVES`] moves (game layer only).
    #[error("the game has reached its limit of moves")]
    TooManyMoves,
}

/// A smallest random source for playouts: anything that gives a uniform index below `n`.
pub trait PointSampler {
    /// A uniformly random integer in `0..n` (`n > 0`).
    fn below(&mut self, n: usize) -> usize;
}

impl<R: rand::Rng> PointSampler for R {
    #[inline]
    fn below(&mut self, n: usize) -> usize {
        self.random_range(0..n)
    }
}

/// One move played with [`Board::place_undoable`], for [`Board::undo`].
#[derive(Clone, Debug)]
pub struct Undo {
    p: u16,
    color: Color,
    /// The point's chain entries before the move (head, next, stones, libs, sums).
    saved: (u16, u16, u16, u16, u32, u64),
    empty_idx: u16,
    ko_point: u16,
    ko_color: Color,
    /// Captured chains: head and stones, in the order taken.
    captured: SmallVec<[(u16, u32); 4]>,
    /// Merges in the order made: (kept head, absorbed head).
    merges: SmallVec<[(u16, u16); 4]>,
}

/// The fast board. Cloning copies a fixed-size block (no heap).
#[derive(Clone)]
pub struct Board {
    size: usize,
    cells: [Cell; NUM_CELLS],
    /// Next stone in the chain's ring.
    next: [u16; NUM_CELLS],
    /// Head (representative point) of the chain a stone belongs to.
    head: [u16; NUM_CELLS],
    /// Per chain head: number of stones.
    stones: [u16; NUM_CELLS],
    /// Per chain head: pseudo-liberty count, sum and sum of squares.
    libs: [u16; NUM_CELLS],
    lib_sum: [u32; NUM_CELLS],
    lib_sum_sq: [u64; NUM_CELLS],
    /// Per point: how many neighbours are Black, White, Empty, Border, one byte each
    /// (byte `Cell as usize`), packed so that a change is one addition.
    neighbor_counts: [u32; NUM_CELLS],
    /// Empty points, and each empty point's index in that list.
    empties: [u16; NUM_CELLS],
    empty_index: [u16; NUM_CELLS],
    num_empty: usize,
    /// The simple-ko point (0 for none) and the colour that may not play there.
    ko_point: u16,
    ko_color: Color,
    hash: u64,
    captures: [u32; 2],
    /// Stones on the board per colour.
    stone_counts: [u16; 2],
}

impl std::fmt::Debug for Board {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Board {}x{} hash {:016x}",
            self.size, self.size, self.hash
        )?;
        for row in (0..self.size).rev() {
            for col in 0..self.size {
                let c = match self.cells[Point::from_coord(col, row).index()] {
                    Cell::Black => 'X',
                    Cell::White => 'O',
                    _ => '.',
                };
                write!(f, "{c}")?;
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

impl PartialEq for Board {
    /// Boards are equal when they have the same size, stones, ko point and prisoners.
    fn eq(&self, other: &Board) -> bool {
        self.size == other.size
            && self.cells == other.cells
            && self.ko() == other.ko()
            && self.captures == other.captures
    }
}

impl Board {
    /// An empty board of `size` x `size`. Returns `None` unless `2 <= size <= 25`.
    pub fn new(size: usize) -> Option<Board> {
        if !(2..=MAX_SIZE).contains(&size) {
            return None;
        }
        let mut b = Board {
            size,
            cells: [Cell::Border; NUM_CELLS],
            next: [0; NUM_CELLS],
            head: [0; NUM_CELLS],
            stones: [0; NUM_CELLS],
            libs: [0; NUM_CELLS],
            lib_sum: [0; NUM_CELLS],
            lib_sum_sq: [0; NUM_CELLS],
            neighbor_counts: [0; NUM_CELLS],
            empties: [0; NUM_CELLS],
            empty_index: [0; NUM_CELLS],
            num_empty: 0,
            ko_point: 0,
            ko_color: Color::Black,
            hash: 0,
            captures: [0; 2],
            stone_counts: [0; 2],
        };
        for row in 0..size {
            for col in 0..size {
                let p = Point::from_coord(col, row);
                b.cells[p.index()] = Cell::Empty;
                b.empty_index[p.index()] = b.num_empty as u16;
                b.empties[b.num_empty] = p.0;
                b.num_empty += 1;
            }
        }
        for row in 0..size {
            for col in 0..size {
                let p = Point::from_coord(col, row);
                for n in p.neighbors() {
                    b.neighbor_counts[p.index()] += 1 << (8 * b.cells[n.index()] as u32);
                }
            }
        }
        Some(b)
    }

    /// Makes `self` a copy of `other`. When both have the same size only the part of the
    /// arrays that the board uses is copied (a 9x9 board uses 40% of them), which makes
    /// resetting a playout board cheaper than a clone.
    pub fn copy_from(&mut self, other: &Board) {
        if self.size != other.size {
            *self = other.clone();
            return;
        }
        let used = (self.size + 1) * STRIDE + self.size + 2;
        self.cells[..used].copy_from_slice(&other.cells[..used]);
        self.next[..used].copy_from_slice(&other.next[..used]);
        self.head[..used].copy_from_slice(&other.head[..used]);
        self.stones[..used].copy_from_slice(&other.stones[..used]);
        self.libs[..used].copy_from_slice(&other.libs[..used]);
        self.lib_sum[..used].copy_from_slice(&other.lib_sum[..used]);
        self.lib_sum_sq[..used].copy_from_slice(&other.lib_sum_sq[..used]);
        self.neighbor_counts[..used].copy_from_slice(&other.neighbor_counts[..used]);
        let n = other.num_empty;
        self.empties[..n].copy_from_slice(&other.empties[..n]);
        self.empty_index[..used].copy_from_slice(&other.empty_index[..used]);
        self.num_empty = n;
        self.ko_point = other.ko_point;
        self.ko_color = other.ko_color;
        self.hash = other.hash;
        self.captures = other.captures;
        self.stone_counts = other.stone_counts;
    }

    /// The side length.
    #[inline]
    pub fn size(&self) -> usize {
        self.size
    }

    /// The point at 0-based (col, row), row 0 at the bottom, if it is on this board.
    #[inline]
    pub fn point(&self, col: usize, row: usize) -> Option<Point> {
        (col < self.size && row < self.size).then(|| Point::from_coord(col, row))
    }

    /// Whether `p` is a point of this board.
    #[inline]
    pub fn on_board(&self, p: Point) -> bool {
        p.index() < NUM_CELLS && self.cells[p.index()] != Cell::Border
    }

    /// All points of the board, bottom row first, left to right.
    pub fn points(&self) -> impl Iterator<Item = Point> + '_ {
        let n = self.size;
        (0..n).flat_map(move |row| (0..n).map(move |col| Point::from_coord(col, row)))
    }

    /// What the cell holds.
    #[inline]
    pub fn cell(&self, p: Point) -> Cell {
        self.cells[p.index()]
    }

    /// The colour of the stone on `p`, if any.
    #[inline]
    pub fn get(&self, p: Point) -> Option<Color> {
        self.cells[p.index()].color()
    }

    /// The Zobrist hash of the stones (not of the ko point or side to move).
    #[inline]
    pub fn hash(&self) -> u64 {
        self.hash
    }

    /// Stones captured so far by `color` (prisoners it holds).
    #[inline]
    pub fn captures(&self, color: Color) -> u32 {
        self.captures[color.index()]
    }

    /// The simple-ko point and the colour forbidden to play there right now.
    #[inline]
    pub fn ko(&self) -> Option<(Point, Color)> {
        (self.ko_point != 0).then_some((Point(self.ko_point), self.ko_color))
    }

    /// Number of empty points.
    #[inline]
    pub fn num_empty(&self) -> usize {
        self.num_empty
    }

    /// The empty points, in no particular order.
    #[inline]
    pub fn empty_points(&self) -> impl Iterator<Item = Point> + '_ {
        self.empties[..self.num_empty].iter().map(|&i| Point(i))
    }

    /// Number of stones on the board of `color`.
    #[inline]
    pub fn stone_count(&self, color: Color) -> usize {
        self.stone_counts[color.index()] as usize
    }

    /// Neighbours of `p` holding `cell` (Black, White, Empty or Border).
    #[inline]
    pub fn neighbor_count(&self, p: Point, cell: Cell) -> u8 {
        (self.neighbor_counts[p.index()] >> (8 * cell as u32)) as u8
    }

    #[inline]
    fn head_of(&self, p: Point) -> usize {
        self.head[p.index()] as usize
    }

    #[inline]
    fn in_atari_head(&self, h: usize) -> bool {
        let n = self.libs[h] as u64;
        let s = self.lib_sum[h] as u64;
        n * self.lib_sum_sq[h] == s * s
    }

    /// Number of stones in the chain through `p` (0 for an empty point).
    pub fn chain_len(&self, p: Point) -> usize {
        if self.get(p).is_none() {
            return 0;
        }
        self.stones[self.head_of(p)] as usize
    }

    /// The stones of the chain through `p` (empty for an empty point).
    pub fn chain(&self, p: Point) -> Vec<Point> {
        let mut out = Vec::new();
        if self.get(p).is_none() {
            return out;
        }
        let mut s = p.0;
        loop {
            out.push(Point(s));
            s = self.next[s as usize];
            if s == p.0 {
                break;
            }
        }
        out
    }

    /// A stable identifier of the chain through `p` (its head point); two stones are in
    /// the same chain exactly when their ids are equal.
    pub fn chain_id(&self, p: Point) -> Option<Point> {
        self.get(p).map(|_| Point(self.head[p.index()]))
    }

    /// The distinct liberties of the chain through `p`, sorted (empty for an empty point).
    pub fn liberties(&self, p: Point) -> Vec<Point> {
        let mut libs: Vec<Point> = self
            .chain(p)
            .into_iter()
            .flat_map(|s| s.neighbors())
            .filter(|&n| self.cells[n.index()] == Cell::Empty)
            .collect();
        libs.sort_unstable();
        libs.dedup();
        libs
    }

    /// Whether the chain through `p` has exactly one liberty.
    #[inline]
    pub fn in_atari(&self, p: Point) -> bool {
        // A set-up chain may have no liberty at all: that is not atari.
        self.get(p).is_some() && {
            let h = self.head_of(p);
            self.libs[h] > 0 && self.in_atari_head(h)
        }
    }

    /// Whether `color` playing on empty `p` would capture something.
    #[inline]
    pub fn captures_any(&self, color: Color, p: Point) -> bool {
        let enemy = Cell::from(color.opponent());
        p.neighbors()
            .iter()
            .any(|&n| self.cells[n.index()] == enemy && self.in_atari_head(self.head_of(n)))
    }

    /// Whether `color` playing on empty `p` would leave its own chain without liberties
    /// while capturing nothing.
    #[inline]
    pub fn is_suicide(&self, color: Color, p: Point) -> bool {
        if self.neighbor_count(p, Cell::Empty) > 0 {
            return false;
        }
        let own = Cell::from(color);
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            if c == Cell::Border {
                continue;
            }
            let atari = self.in_atari_head(self.head_of(n));
            if (c == own) != atari {
                // Own chain with another liberty, or enemy chain captured.
                return false;
            }
        }
        true
    }

    /// Why `color` may not play on `p` under the board's rules (simple ko, suicide
    /// forbidden), or `Ok` if it may.
    pub fn check(&self, color: Color, p: Point) -> Result<(), IllegalMove> {
        if !self.on_board(p) {
            return Err(IllegalMove::OffBoard);
        }
        if self.cells[p.index()] != Cell::Empty {
            return Err(IllegalMove::Occupied);
        }
        if self.ko_point == p.0 && self.ko_color == color {
            return Err(IllegalMove::Ko);
        }
        if self.is_suicide(color, p) {
            return Err(IllegalMove::Suicide);
        }
        Ok(())
    }

    /// Whether `color` may play on `p` (simple ko, no suicide).
    #[inline]
    pub fn is_legal(&self, color: Color, p: Point) -> bool {
        self.check(color, p).is_ok()
    }

    /// Plays `color` on `p` if legal under the board's rules.
    pub fn play(&mut self, color: Color, p: Point) -> Result<(), IllegalMove> {
        self.check(color, p)?;
        self.place(color, p);
        Ok(())
    }

    /// A pass: clears the ko point.
    #[inline]
    pub fn pass(&mut self) {
        self.ko_point = 0;
    }

    /// Sets the ko point as [`Board::ko`] gave it (to take back a [`Board::pass`]).
    #[inline]
    pub fn set_ko(&mut self, ko: Option<(Point, Color)>) {
        match ko {
            Some((p, c)) => {
                self.ko_point = p.0;
                self.ko_color = c;
            }
            None => self.ko_point = 0,
        }
    }

    /// Plays a [`Move`] if legal.
    pub fn play_move(&mut self, color: Color, mv: Move) -> Result<(), IllegalMove> {
        match mv {
            Move::Pass => {
                self.pass();
                Ok(())
            }
            Move::Place(p) => self.play(color, p),
        }
    }

    /// Whether `color`'s single-point eye is at `p`: every neighbour is `color` or border,
    /// and the diagonals don't make it false (two enemy diagonals in the middle, one on
    /// the edge).
    #[inline]
    pub fn is_eye(&self, color: Color, p: Point) -> bool {
        let border = self.neighbor_count(p, Cell::Border);
        if self.neighbor_count(p, Cell::from(color)) + border != 4 {
            return false;
        }
        let enemy = Cell::from(color.opponent());
        let mut bad = 0;
        for d in p.diagonals() {
            if self.cells[d.index()] == enemy {
                bad += 1;
            }
        }
        if border > 0 {
            bad == 0
        } else {
            bad < 2
        }
    }

    /// The hash the stones would have after `color` plays on `p` (which must be empty and
    /// on the board), without playing. A suicide removes the player's own chain.
    pub fn hash_after(&self, color: Color, p: Point) -> u64 {
        let mut h = self.hash ^ STONE_KEYS[color.index()][p.index()];
        let enemy = Cell::from(color.opponent());
        let captured = self.neighbor_heads(p, enemy, |head| self.in_atari_head(head as usize));
        for &head in &captured {
            h ^= self.chain_key(head);
        }
        if captured.is_empty() && self.is_suicide(color, p) {
            // Suicide (where the rules allow it): the new stone and its friends vanish.
            h ^= STONE_KEYS[color.index()][p.index()];
            for head in self.neighbor_heads(p, Cell::from(color), |_| true) {
                h ^= self.chain_key(head);
            }
        }
        h
    }

    /// The distinct heads of the chains of `cell` colour next to `p` that pass `keep`.
    fn neighbor_heads(
        &self,
        p: Point,
        cell: Cell,
        keep: impl Fn(u16) -> bool,
    ) -> SmallVec<[u16; 4]> {
        let mut heads = SmallVec::new();
        for n in p.neighbors() {
            if self.cells[n.index()] == cell {
                let head = self.head[n.index()];
                if !heads.contains(&head) && keep(head) {
                    heads.push(head);
                }
            }
        }
        heads
    }

    fn chain_key(&self, head: u16) -> u64 {
        let color = self.cells[head as usize].color().map_or(0, Color::index);
        let mut k = 0;
        let mut s = head;
        loop {
            k ^= STONE_KEYS[color][s as usize];
            s = self.next[s as usize];
            if s == head {
                break;
            }
        }
        k
    }

    /// Puts a stone on empty `p` and resolves captures, without checking ko or suicide.
    /// A suicide removes the player's own chain (and counts it as captured by the
    /// opponent), as game records replayed with self-capture expect. Returns the number
    /// of stones captured from the opponent.
    pub fn place(&mut self, color: Color, p: Point) -> u32 {
        self.place_with(color, p, |_, _| {}, |_, _| {})
    }

    /// [`Board::place`], telling `captured(head, stones)` of each chain it takes off and
    /// `merged(kept head, absorbed head)` of each merge, in order (what an undo needs).
    #[inline(always)]
    fn place_with(
        &mut self,
        color: Color,
        p: Point,
        mut captured_chain: impl FnMut(u16, u32),
        merged: impl FnMut(usize, usize),
    ) -> u32 {
        debug_assert_eq!(self.cells[p.index()], Cell::Empty);
        self.add_stone(color, p);
        // Captures only after every liberty update: a removed stone gives the new stone
        // its liberty through `remove_chain`, never twice.
        let enemy = Cell::from(color.opponent());
        let mut captured = 0u32;
        let mut last_captured = 0u16;
        for n in p.neighbors() {
            if self.cells[n.index()] == enemy {
                let h = self.head_of(n);
                if self.libs[h] == 0 {
                    last_captured = h as u16;
                    let k = self.remove_chain(h);
                    captured += k;
                    captured_chain(h as u16, k);
                }
            }
        }
        self.merge_with_neighbors(color, p, merged);
        self.captures[color.index()] += captured;
        self.ko_point = 0;
        let h = self.head_of(p);
        if captured == 1 && self.stones[h] == 1 && self.libs[h] == 1 {
            self.ko_point = last_captured;
            self.ko_color = color.opponent();
        } else if self.libs[h] == 0 {
            let lost = self.remove_chain(h);
            self.captures[color.opponent().index()] += lost;
        }
        captured
    }

    /// Plays a legal move of `color` on `p` like [`Board::place`] and returns what
    /// [`Board::undo`] needs to take it back exactly (every array, the order of the empty
    /// list included). For reading ahead without copying the board: moves must be undone
    /// last first. Suicide is not supported (the move must be legal).
    pub fn place_undoable(&mut self, color: Color, p: Point) -> Undo {
        debug_assert!(self.is_legal(color, p));
        let pi = p.index();
        let mut u = Undo {
            p: p.0,
            color,
            saved: (
                self.head[pi],
                self.next[pi],
                self.stones[pi],
                self.libs[pi],
                self.lib_sum[pi],
                self.lib_sum_sq[pi],
            ),
            empty_idx: self.empty_index[pi],
            ko_point: self.ko_point,
            ko_color: self.ko_color,
            captured: SmallVec::new(),
            merges: SmallVec::new(),
        };
        let (captured, merges) = (&mut u.captured, &mut u.merges);
        self.place_with(
            color,
            p,
            |h, k| captured.push((h, k)),
            |big, small| merges.push((big as u16, small as u16)),
        );
        let h = self.head_of(p);
        debug_assert!(self.libs[h] > 0, "place_undoable: suicide");
        u
    }

    /// Takes back the move `u` recorded, which must be the last one not yet undone.
    pub fn undo(&mut self, u: Undo) {
        let p = Point(u.p);
        let pi = p.index();
        let color = u.color;
        self.ko_point = u.ko_point;
        self.ko_color = u.ko_color;
        for &(big, small) in u.merges.iter().rev() {
            let (big, small) = (big as usize, small as usize);
            self.next.swap(big, small);
            let mut s = small as u16;
            loop {
                self.head[s as usize] = small as u16;
                s = self.next[s as usize];
                if s as usize == small {
                    break;
                }
            }
            self.stones[big] -= self.stones[small];
            self.libs[big] -= self.libs[small];
            self.lib_sum[big] -= self.lib_sum[small];
            self.lib_sum_sq[big] -= self.lib_sum_sq[small];
        }
        let mut captured = 0;
        for &(h, k) in u.captured.iter().rev() {
            self.restore_chain(h as usize, color.opponent());
            captured += k;
        }
        self.captures[color.index()] -= captured;
        // Take back `add_stone`.
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            if c != Cell::Empty && c != Cell::Border && n != p {
                let h = self.head_of(n);
                self.add_lib(h, p.0);
            }
        }
        let (head, next, stones, libs, lib_sum, lib_sum_sq) = u.saved;
        self.head[pi] = head;
        self.next[pi] = next;
        self.stones[pi] = stones;
        self.libs[pi] = libs;
        self.lib_sum[pi] = lib_sum;
        self.lib_sum_sq[pi] = lib_sum_sq;
        self.hash ^= STONE_KEYS[color.index()][pi];
        // Take back `remove_empty`: the point that filled p's slot goes back to the end.
        let idx = u.empty_idx as usize;
        let moved = self.empties[idx];
        self.empties[self.num_empty] = moved;
        self.empty_index[moved as usize] = self.num_empty as u16;
        self.empties[idx] = p.0;
        self.empty_index[pi] = idx as u16;
        self.num_empty += 1;
        self.stone_counts[color.index()] -= 1;
        self.set_cell(p, Cell::Empty);
    }

    /// Puts back the chain with head `h` that [`Board::remove_chain`] took off (its ring
    /// and head entries are still in place), undoing that function step by step, last
    /// stone first.
    fn restore_chain(&mut self, h: usize, color: Color) {
        let mut ring: SmallVec<[u16; 32]> = SmallVec::new();
        let mut s = h as u16;
        loop {
            ring.push(s);
            s = self.next[s as usize];
            if s as usize == h {
                break;
            }
        }
        for &s in ring.iter().rev() {
            let p = Point(s);
            for n in p.neighbors() {
                let c = self.cells[n.index()];
                if c != Cell::Empty && c != Cell::Border {
                    let nh = self.head_of(n);
                    if nh != h {
                        self.remove_lib(nh, s);
                    }
                }
            }
            self.hash ^= STONE_KEYS[color.index()][s as usize];
            self.num_empty -= 1;
            self.set_cell(p, Cell::from(color));
        }
        self.stone_counts[color.index()] += ring.len() as u16;
    }

    /// Puts a stone on empty `p` as a new one-stone chain: cell, counts, empty list, hash,
    /// its pseudo-liberties, and the pseudo-liberty `p` taken from each neighbouring chain.
    /// Captures and merges are the caller's.
    #[inline]
    fn add_stone(&mut self, color: Color, p: Point) {
        let pi = p.index();
        self.set_cell(p, Cell::from(color));
        self.stone_counts[color.index()] += 1;
        self.remove_empty(pi);
        self.hash ^= STONE_KEYS[color.index()][pi];
        self.head[pi] = p.0;
        self.next[pi] = p.0;
        self.stones[pi] = 1;
        self.libs[pi] = 0;
        self.lib_sum[pi] = 0;
        self.lib_sum_sq[pi] = 0;
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            if c == Cell::Empty {
                self.add_lib(pi, n.0);
            } else if c != Cell::Border {
                let h = self.head_of(n);
                self.remove_lib(h, p.0);
            }
        }
    }

    /// Merges the chain through `p` with every neighbouring chain of `color`, telling
    /// `merged(kept head, absorbed head)` of each merge.
    #[inline]
    fn merge_with_neighbors(
        &mut self,
        color: Color,
        p: Point,
        mut merged: impl FnMut(usize, usize),
    ) {
        let own = Cell::from(color);
        for n in p.neighbors() {
            if self.cells[n.index()] == own {
                let a = self.head_of(n);
                let b = self.head_of(p);
                if a != b {
                    let (big, small) = self.merge(a, b);
                    merged(big, small);
                }
            }
        }
    }

    /// A square board from a diagram, top row first: `X` Black, `O` White, anything else
    /// empty (set-up stones, no captures). `None` unless the rows are all as long as there
    /// are rows and the size is supported.
    pub fn from_rows(rows: &[&str]) -> Option<Board> {
        let n = rows.len();
        let mut b = Board::new(n)?;
        for (r, line) in rows.iter().enumerate() {
            if line.chars().count() != n {
                return None;
            }
            for (c, ch) in line.chars().enumerate() {
                let p = Point::from_coord(c, n - 1 - r);
                match ch {
                    'X' => b.set_stone(Color::Black, p),
                    'O' => b.set_stone(Color::White, p),
                    _ => true,
                };
            }
        }
        Some(b)
    }

    /// Puts a set-up stone on empty `p` (no captures are resolved: set-up positions may
    /// even hold chains without liberties, as SGF AB/AW allows). Clears the ko point.
    /// Returns false if `p` is not an empty point of the board.
    pub fn set_stone(&mut self, color: Color, p: Point) -> bool {
        if !self.on_board(p) || self.cells[p.index()] != Cell::Empty {
            return false;
        }
        self.place_no_capture(color, p);
        self.ko_point = 0;
        true
    }

    /// Removes the stone on `p` (set-up `AE`). Returns false if there is none.
    pub fn clear_stone(&mut self, p: Point) -> bool {
        if !self.on_board(p) || self.get(p).is_none() {
            return false;
        }
        // Rebuild: simplest exact way to split a chain.
        let mut stones: Vec<(Color, Point)> = self
            .points()
            .filter(|&q| q != p)
            .filter_map(|q| self.get(q).map(|c| (c, q)))
            .collect();
        stones.sort_by_key(|&(_, q)| q);
        let captures = self.captures;
        let mut b = Board::new(self.size).expect("size already valid");
        for (c, q) in stones {
            b.place_no_capture(c, q);
        }
        b.captures = captures;
        *self = b;
        true
    }

    fn place_no_capture(&mut self, color: Color, p: Point) {
        self.add_stone(color, p);
        self.merge_with_neighbors(color, p, |_, _| {});
    }

    #[inline]
    fn set_cell(&mut self, p: Point, to: Cell) {
        let from = self.cells[p.index()];
        self.cells[p.index()] = to;
        let delta = (1u32 << (8 * to as u32)).wrapping_sub(1u32 << (8 * from as u32));
        for n in p.neighbors() {
            // Border cells' own counts are never read: wrapping keeps them harmless.
            let nc = &mut self.neighbor_counts[n.index()];
            *nc = nc.wrapping_add(delta);
        }
    }

    #[inline]
    fn remove_empty(&mut self, pi: usize) {
        let idx = self.empty_index[pi] as usize;
        self.num_empty -= 1;
        let last = self.empties[self.num_empty];
        self.empties[idx] = last;
        self.empty_index[last as usize] = idx as u16;
    }

    #[inline]
    fn add_empty(&mut self, pi: usize) {
        self.empties[self.num_empty] = pi as u16;
        self.empty_index[pi] = self.num_empty as u16;
        self.num_empty += 1;
    }

    #[inline]
    fn add_lib(&mut self, h: usize, lib: u16) {
        self.libs[h] += 1;
        self.lib_sum[h] += lib as u32;
        self.lib_sum_sq[h] += (lib as u64) * (lib as u64);
    }

    #[inline]
    fn remove_lib(&mut self, h: usize, lib: u16) {
        self.libs[h] -= 1;
        self.lib_sum[h] -= lib as u32;
        self.lib_sum_sq[h] -= (lib as u64) * (lib as u64);
    }

    /// Merges the chains with heads `a` and `b`, the smaller into the larger.
    fn merge(&mut self, a: usize, b: usize) -> (usize, usize) {
        let (big, small) = if self.stones[a] >= self.stones[b] {
            (a, b)
        } else {
            (b, a)
        };
        let mut s = small as u16;
        loop {
            self.head[s as usize] = big as u16;
            s = self.next[s as usize];
            if s as usize == small {
                break;
            }
        }
        self.next.swap(big, small);
        self.stones[big] += self.stones[small];
        self.libs[big] += self.libs[small];
        self.lib_sum[big] += self.lib_sum[small];
        self.lib_sum_sq[big] += self.lib_sum_sq[small];
        (big, small)
    }

    /// Removes the chain with head `h`; returns its size.
    fn remove_chain(&mut self, h: usize) -> u32 {
        let color = self.cells[h].color().expect("chain head holds a stone");
        let mut count = 0;
        let mut s = h as u16;
        loop {
            let next = self.next[s as usize];
            let p = Point(s);
            self.set_cell(p, Cell::Empty);
            self.add_empty(s as usize);
            self.hash ^= STONE_KEYS[color.index()][s as usize];
            count += 1;
            for n in p.neighbors() {
                let c = self.cells[n.index()];
                if c != Cell::Empty && c != Cell::Border {
                    let nh = self.head_of(n);
                    if nh != h {
                        self.add_lib(nh, s);
                    }
                }
            }
            s = next;
            if s as usize == h {
                break;
            }
        }
        self.stone_counts[color.index()] -= count as u16;
        count
    }

    /// Picks a uniformly random move among the points where `color` may legally play and
    /// that are not its own single-point eyes; `None` if there is none (then pass). This is
    /// the light playout policy. The empty list is reordered but stays the same set.
    #[inline]
    pub fn random_move<R: PointSampler>(&mut self, color: Color, rng: &mut R) -> Option<Point> {
        self.random_move_where(color, rng, |_, _| true)
    }

    /// Like [`Board::random_move`], but a point must also pass `accept` (called only for
    /// legal non-eye points); rejected points are drawn no more this call, so the choice
    /// is uniform among the accepted ones.
    #[inline]
    pub fn random_move_where<R: PointSampler>(
        &mut self,
        color: Color,
        rng: &mut R,
        mut accept: impl FnMut(&Board, Point) -> bool,
    ) -> Option<Point> {
        let mut live = self.num_empty;
        while live > 0 {
            let i = rng.below(live);
            let p = Point(self.empties[i]);
            // A point with an empty neighbour is neither an eye, nor suicide, nor the ko
            // point (which is surrounded): the common case, decided by one load.
            let ok = if self.neighbor_count(p, Cell::Empty) > 0 {
                true
            } else {
                let ko = self.ko_point == p.0 && self.ko_color == color;
                !(ko || self.is_eye(color, p) || self.is_suicide(color, p))
            };
            if ok && accept(self, p) {
                return Some(p);
            }
            live -= 1;
            // Move the rejected point out of the live window.
            let q = self.empties[live];
            self.empties[i] = q;
            self.empties[live] = p.0;
            self.empty_index[q as usize] = i as u16;
            self.empty_index[p.index()] = live as u16;
        }
        None
    }

    /// Rebuilds chains, liberties, neighbour counts, empties and hash from the stones and
    /// compares them with the incremental state. For tests and debugging.
    pub fn check_consistency(&self) -> Result<(), String> {
        let mut hash = 0;
        let mut empties = 0;
        for p in self.points() {
            let i = p.index();
            let mut counts = 0u32;
            for n in p.neighbors() {
                counts += 1 << (8 * self.cells[n.index()] as u32);
            }
            if counts != self.neighbor_counts[i] {
                return Err(format!("neighbour counts differ at {p:?}"));
            }
            match self.cells[i].color() {
                None => {
                    empties += 1;
                    let idx = self.empty_index[i] as usize;
                    if idx >= self.num_empty || self.empties[idx] != p.0 {
                        return Err(format!("empty list wrong at {p:?}"));
                    }
                }
                Some(c) => {
                    hash ^= STONE_KEYS[c.index()][i];
                    let h = self.head_of(p);
                    if self.get(Point(h as u16)) != Some(c) {
                        return Err(format!("head of {p:?} is not a stone of its colour"));
                    }
                    if h != i {
                        // The chain as a whole is checked once, from its head.
                        continue;
                    }
                    let chain = self.chain(p);
                    if chain
                        .iter()
                        .any(|&s| self.head_of(s) != h || self.get(s) != Some(c))
                    {
                        return Err(format!("ring of {p:?} mixes chains"));
                    }
                    if chain.len() != self.stones[h] as usize {
                        return Err(format!("stone count wrong at {p:?}"));
                    }
                    // Flood fill the chain independently.
                    let mut seen = vec![p];
                    let mut mark = [false; NUM_CELLS];
                    mark[i] = true;
                    let mut k = 0;
                    while k < seen.len() {
                        for n in seen[k].neighbors() {
                            if self.get(n) == Some(c) && !mark[n.index()] {
                                mark[n.index()] = true;
                                seen.push(n);
                            }
                        }
                        k += 1;
                    }
                    if seen.len() != chain.len() || chain.iter().any(|s| !mark[s.index()]) {
                        return Err(format!("chain at {p:?} is not its connected component"));
                    }
                    let (mut n, mut s, mut sq) = (0u16, 0u32, 0u64);
                    for &st in &chain {
                        for nb in st.neighbors() {
                            if self.cells[nb.index()] == Cell::Empty {
                                n += 1;
                                s += nb.0 as u32;
                                sq += (nb.0 as u64) * (nb.0 as u64);
                            }
                        }
                    }
                    if (n, s, sq) != (self.libs[h], self.lib_sum[h], self.lib_sum_sq[h]) {
                        return Err(format!("pseudo-liberties wrong at {p:?}"));
                    }
                }
            }
        }
        for c in Color::BOTH {
            let n = self.points().filter(|&p| self.get(p) == Some(c)).count();
            if n != self.stone_count(c) {
                return Err(format!("stone count of {c:?} wrong"));
            }
        }
        if empties != self.num_empty {
            return Err("empty count wrong".into());
        }
        if hash != self.hash {
            return Err("hash differs from the one recomputed".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pt(b: &Board, s: &str) -> Point {
        let cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
        let col = cols.find(&s[..1]).unwrap();
        let row: usize = s[1..].parse().unwrap();
        b.point(col, row - 1).unwrap()
    }

    #[test]
    fn sizes() {
        assert!(Board::new(1).is_none());
        assert!(Board::new(26).is_none());
        for n in 2..=25 {
            let b = Board::new(n).unwrap();
            assert_eq!(b.num_empty(), n * n);
            assert_eq!(b.points().count(), n * n);
            b.check_consistency().unwrap();
        }
    }

    /// Every part of the state that anything reads: stones, chains of stones, per-head
    /// counts, neighbour counts, the empty list in order, ko, hash, prisoners.
    fn same_state(a: &Board, b: &Board) -> bool {
        let mut ok = a.size == b.size
            && a.cells == b.cells
            && a.neighbor_counts == b.neighbor_counts
            && a.num_empty == b.num_empty
            && a.empties[..a.num_empty] == b.empties[..b.num_empty]
            && a.ko_point == b.ko_point
            && (a.ko_point == 0 || a.ko_color == b.ko_color)
            && a.hash == b.hash
            && a.captures == b.captures
            && a.stone_counts == b.stone_counts;
        for p in a.points() {
            let i = p.index();
            if a.get(p).is_some() {
                let h = a.head[i] as usize;
                ok &= a.head[i] == b.head[i] && a.next[i] == b.next[i];
                ok &= (a.stones[h], a.libs[h], a.lib_sum[h], a.lib_sum_sq[h])
                    == (b.stones[h], b.libs[h], b.lib_sum[h], b.lib_sum_sq[h]);
            } else {
                ok &= a.empty_index[i] == b.empty_index[i];
            }
        }
        ok
    }

    #[test]
    fn undo_takes_back_every_move_exactly() {
        use rand::{rngs::SmallRng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(11);
        let (mut captures, mut merges, mut kos) = (0, 0, 0);
        for size in [5, 9, 19] {
            for _ in 0..20 {
                let mut b = Board::new(size).unwrap();
                let mut color = Color::Black;
                for _ in 0..size * size * 3 {
                    let Some(p) = b.clone().random_move(color, &mut rng) else {
                        break;
                    };
                    let before = b.clone();
                    let mut placed = b.clone();
                    placed.place(color, p);
                    let u = b.place_undoable(color, p);
                    captures += !u.captured.is_empty() as usize;
                    merges += !u.merges.is_empty() as usize;
                    kos += (b.ko_point != 0) as usize;
                    assert!(same_state(&b, &placed), "place_undoable differs from place");
                    b.check_consistency().unwrap();
                    // A second move on top, undone first.
                    if let Some(q) = b.clone().random_move(color.opponent(), &mut rng) {
                        let mid = b.clone();
                        let v = b.place_undoable(color.opponent(), q);
                        b.undo(v);
                        assert!(same_state(&b, &mid), "nested undo");
                    }
                    b.undo(u);
                    assert!(same_state(&b, &before), "undo differs");
                    b.check_consistency().unwrap();
                    b.place(color, p);
                    color = color.opponent();
                }
            }
        }
        // The games exercised the interesting cases.
        assert!(
            captures > 100 && merges > 1000 && kos > 5,
            "{captures} {merges} {kos}"
        );
    }

    #[test]
    fn capture_and_ko() {
        let mut b = Board::new(9).unwrap();
        use Color::*;
        for (c, v) in [
            (Black, "D4"),
            (White, "E4"),
            (Black, "E5"),
            (White, "F5"),
            (Black, "E3"),
            (White, "D5"),
            (Black, "F4"),
        ] {
            b.play(c, pt(&b, v)).unwrap();
            b.check_consistency().unwrap();
        }
        // Black F4 captured E4: white may not retake at E4 at once.
        assert_eq!(b.get(pt(&b, "E4")), None);
        assert_eq!(b.captures(Black), 1);
        // White E6 then retake is...; first, ko point for White at E4? E4 is surrounded by
        // D4 E5 E3 F4 black: no, that's an eye, White playing there is suicide.
        assert_eq!(b.check(White, pt(&b, "E4")), Err(IllegalMove::Suicide));
    }

    #[test]
    fn atari_detection() {
        let mut b = Board::new(5).unwrap();
        b.play(Color::Black, pt(&b, "A1")).unwrap();
        assert!(!b.in_atari(pt(&b, "A1")));
        b.play(Color::White, pt(&b, "B1")).unwrap();
        assert!(b.in_atari(pt(&b, "A1")));
        assert_eq!(b.liberties(pt(&b, "A1")), vec![pt(&b, "A2")]);
        b.play(Color::White, pt(&b, "A2")).unwrap();
        assert_eq!(b.get(pt(&b, "A1")), None);
        assert_eq!(b.captures(Color::White), 1);
        // A1 is now a white eye: black there is suicide.
        assert_eq!(
            b.check(Color::Black, pt(&b, "A1")),
            Err(IllegalMove::Suicide)
        );
        b.check_consistency().unwrap();
    }

    #[test]
    fn copy_from_equals_clone() {
        use rand::{rngs::SmallRng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(5);
        for size in [2, 9, 19, 25] {
            let random_game = |color: Color, rng: &mut SmallRng| {
                let mut b = Board::new(size).unwrap();
                let mut c = color;
                for _ in 0..size * size {
                    match b.random_move(c, rng) {
                        Some(p) => {
                            b.place(c, p);
                        }
                        None => b.pass(),
                    }
                    c = c.opponent();
                }
                b
            };
            let a = random_game(Color::Black, &mut rng);
            let mut b = random_game(Color::White, &mut rng);
            b.copy_from(&a);
            assert_eq!(a, b);
            assert_eq!(a.hash(), b.hash());
            b.check_consistency().unwrap();
            // And across sizes it falls back to a clone.
            let mut c = Board::new(5).unwrap();
            c.copy_from(&a);
            assert_eq!(a, c);
            c.check_consistency().unwrap();
        }
    }

    #[test]
    fn hash_after_matches_play() {
        use rand::{rngs::SmallRng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(7);
        for size in [2, 3, 5, 9] {
            for _ in 0..50 {
                let mut b = Board::new(size).unwrap();
                let mut c = Color::Black;
                for _ in 0..(3 * size * size) {
                    for p in b.empty_points().collect::<Vec<_>>() {
                        if b.check(c, p).is_ok() {
                            let mut b2 = b.clone();
                            b2.place(c, p);
                            assert_eq!(b.hash_after(c, p), b2.hash());
                        }
                    }
                    match b.random_move(c, &mut rng) {
                        Some(p) => {
                            b.place(c, p);
                        }
                        None => b.pass(),
                    }
                    b.check_consistency().unwrap();
                    c = c.opponent();
                }
            }
        }
    }
}
