//! Small tactical questions the playout policy and the tree priors ask of the board:
//! exact liberty counts (bounded), liberties a move would leave, self-atari, the 3x3
//! neighbourhood code of a point and a simple ladder read. Read-only except the ladder,
//! which plays and undoes its moves.

use smallvec::SmallVec;

use super::{Board, Cell, Color, Point};

/// The 3x3 neighbourhood of a point: two bits per neighbour (the [`Cell`] value: Black 0,
/// White 1, Empty 2, Border 3), in the order N, S, W, E, NW, NE, SW, SE (N is the row
/// above, i.e. a larger row index).
pub type Pattern3 = u16;

/// Attacker moves a ladder read may try.
pub const LADDER_BUDGET: u32 = 64;
/// Steps a ladder read may go deep.
pub const LADDER_DEPTH: usize = 48;

/// See [`Board::breaks_seki`]: captured chains of fewer stones leave a killable space.
pub const SEKI_STONES: usize = 4;

impl Board {
    /// The next stone of the chain through stone `p` (a ring: it comes back to `p`).
    #[inline]
    pub fn next_in_chain(&self, p: Point) -> Point {
        Point(self.next[p.index()])
    }

    /// Every chain on the board in atari with at least `min_stones` stones, once each:
    /// `f(stone of the chain, its liberty, its stones)`. One pass over the points.
    pub fn for_each_atari_chain(&self, min_stones: usize, mut f: impl FnMut(Point, Point, usize)) {
        let n = self.size;
        for row in 0..n {
            for col in 0..n {
                let p = Point::from_coord(col, row);
                let i = p.index();
                if self.head[i] as usize != i || self.cells[i].color().is_none() {
                    continue;
                }
                let stones = self.stones[i] as usize;
                if stones >= min_stones && self.libs[i] > 0 && self.in_atari_head(i) {
                    f(
                        p,
                        Point((self.lib_sum[i] / self.libs[i] as u32) as u16),
                        stones,
                    );
                }
            }
        }
    }

    /// The liberty of the chain through `p` if that chain is in atari.
    #[inline]
    pub fn atari_liberty(&self, p: Point) -> Option<Point> {
        if !self.in_atari(p) {
            return None;
        }
        let h = self.head_of(p);
        Some(Point((self.lib_sum[h] / self.libs[h] as u32) as u16))
    }

    /// The number of distinct liberties of the chain through `p`, counted up to `max`
    /// (the walk stops there). 0 for an empty point.
    pub fn liberties_upto(&self, p: Point, max: usize) -> usize {
        if self.get(p).is_none() {
            return 0;
        }
        let h = self.head_of(p);
        if self.libs[h] == 0 {
            return 0;
        }
        if self.in_atari_head(h) {
            return 1;
        }
        let mut found: SmallVec<[u16; 8]> = SmallVec::new();
        self.collect_liberties(p, &mut found, max, None);
        found.len()
    }

    /// Adds the distinct liberties of the chain through `p` (other than `skip`) to
    /// `found`, stopping once it holds `max`.
    fn collect_liberties(
        &self,
        p: Point,
        found: &mut SmallVec<[u16; 8]>,
        max: usize,
        skip: Option<Point>,
    ) {
        let mut s = p.0;
        loop {
            for n in Point(s).neighbors() {
                if self.cells[n.index()] == Cell::Empty && Some(n) != skip && !found.contains(&n.0)
                {
                    found.push(n.0);
                    if found.len() >= max {
                        return;
                    }
                }
            }
            s = self.next[s as usize];
            if s == p.0 {
                return;
            }
        }
    }

    /// How many distinct liberties the chain of the stone `color` would put on empty `p`
    /// would have, counted up to `max`. Enemy chains it captures give it (at least) the
    /// liberty of each captured neighbour.
    pub fn liberties_after(&self, color: Color, p: Point, max: usize) -> usize {
        let own = Cell::from(color);
        let enemy = Cell::from(color.opponent());
        let mut found: SmallVec<[u16; 8]> = SmallVec::new();
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            if (c == Cell::Empty || (c == enemy && self.in_atari_head(self.head_of(n))))
                && !found.contains(&n.0)
            {
                found.push(n.0);
            }
        }
        if found.len() >= max {
            return max;
        }
        let mut heads: SmallVec<[u16; 4]> = SmallVec::new();
        for n in p.neighbors() {
            if self.cells[n.index()] == own {
                let h = self.head[n.index()];
                if heads.contains(&h) {
                    continue;
                }
                heads.push(h);
                self.collect_liberties(n, &mut found, max, Some(p));
                if found.len() >= max {
                    return max;
                }
            }
        }
        found.len()
    }

    /// Whether `color` playing on empty `p` leaves its chain two liberties or more:
    /// `liberties_after(color, p, 2) >= 2`, without walking the chains it joins. A
    /// chain's pseudo-liberties less the ones at `p` and at the liberty already found
    /// are liberties the new chain keeps: any left is a second one, and a remainder that
    /// is all one point (`count * sum_sq == sum * sum`) is exactly one.
    pub fn keeps_two_liberties(&self, color: Color, p: Point) -> bool {
        let own = Cell::from(color);
        let enemy = Cell::from(color.opponent());
        // The one liberty found so far, and whether it is an empty point (a captured
        // enemy stone's point is no pseudo-liberty of any chain).
        let mut found: Option<(Point, bool)> = None;
        for n in p.neighbors() {
            let c = self.cells[n.index()];
            let empty = c == Cell::Empty;
            if empty || (c == enemy && self.in_atari_head(self.head_of(n))) {
                if found.is_some() {
                    return true;
                }
                found = Some((n, empty));
            }
        }
        let mut heads: SmallVec<[u16; 4]> = SmallVec::new();
        for n in p.neighbors() {
            if self.cells[n.index()] != own {
                continue;
            }
            let h = self.head[n.index()];
            if heads.contains(&h) {
                continue;
            }
            heads.push(h);
            let hi = h as usize;
            let (mut k, mut s, mut q) = (
                self.libs[hi] as u64,
                self.lib_sum[hi] as u64,
                self.lib_sum_sq[hi],
            );
            let mut take = |x: Point| {
                let x64 = x.0 as u64;
                for m in x.neighbors() {
                    if self.cells[m.index()] == own && self.head[m.index()] == h {
                        k -= 1;
                        s -= x64;
                        q -= x64 * x64;
                    }
                }
            };
            take(p);
            if let Some((f, true)) = found {
                take(f);
            }
            if k == 0 {
                continue;
            }
            if found.is_some() || k * q != s * s {
                return true;
            }
            found = Some((Point((s / k) as u16), true));
        }
        false
    }

    /// Whether `color` playing on empty `p` leaves its chain in atari (or without
    /// liberties), with the size that chain would have.
    pub fn self_atari(&self, color: Color, p: Point) -> Option<usize> {
        if self.neighbor_count(p, Cell::Empty) >= 2 {
            return None;
        }
        if self.keeps_two_liberties(color, p) {
            return None;
        }
        let own = Cell::from(color);
        let mut size = 1;
        let mut heads: SmallVec<[u16; 4]> = SmallVec::new();
        for n in p.neighbors() {
            if self.cells[n.index()] == own {
                let h = self.head[n.index()];
                if !heads.contains(&h) {
                    heads.push(h);
                    size += self.stones[h as usize] as usize;
                }
            }
        }
        Some(size)
    }

    /// Whether `color` playing on empty `p` fills a liberty shared in a seki: the move
    /// captures nothing and leaves its chain of [`SEKI_STONES`] or more stones with one
    /// liberty that is also the last liberty of an opponent chain next to it, so the
    /// opponent takes the chain by playing there, and with it room for two eyes.
    ///
    /// A smaller chain is a sacrifice, not a seki: the one to three points it leaves
    /// make at most one eye once the sacrificer plays their middle (a nakade), so
    /// filling the liberty is how that group is killed. So are four stones in a square,
    /// a T, or bent round a corner of the board.
    pub fn breaks_seki(&self, color: Color, p: Point) -> bool {
        let own = Cell::from(color);
        let enemy = Cell::from(color.opponent());
        let mut found: SmallVec<[u16; 8]> = SmallVec::new();
        let mut heads: SmallVec<[u16; 4]> = SmallVec::new();
        for n in p.neighbors() {
            match self.cells[n.index()] {
                Cell::Empty if !found.contains(&n.0) => found.push(n.0),
                Cell::Empty => {}
                c if c == enemy && self.in_atari_head(self.head_of(n)) => return false,
                c if c == own => {
                    let h = self.head[n.index()];
                    if !heads.contains(&h) {
                        heads.push(h);
                        self.collect_liberties(n, &mut found, 2, Some(p));
                    }
                }
                _ => {}
            }
            if found.len() >= 2 {
                return false;
            }
        }
        let stones: usize = 1 + heads
            .iter()
            .map(|&h| self.stones[h as usize] as usize)
            .sum::<usize>();
        if stones < SEKI_STONES
            || found.len() != 1
            || (stones == SEKI_STONES && self.dead_four(p, &heads))
        {
            return false;
        }
        let lib = Point(found[0]);
        let p_heads: SmallVec<[u16; 4]> = p
            .neighbors()
            .into_iter()
            .filter(|n| self.cells[n.index()] == enemy)
            .map(|n| self.head[n.index()])
            .collect();
        lib.neighbors().into_iter().any(|n| {
            if self.cells[n.index()] != enemy {
                return false;
            }
            let h = self.head_of(n);
            // Its liberties after the move: L alone, or L and p (p now filled).
            self.in_atari_head(h)
                || (p_heads.contains(&(h as u16)) && self.liberties_upto(n, 3) == 2)
        })
    }

    /// The 3x3 neighbourhood code of `p` (see [`Pattern3`]).
    #[inline]
    pub fn pattern3(&self, p: Point) -> Pattern3 {
        let [s, w, e, n] = p.neighbors();
        let [sw, se, nw, ne] = p.diagonals();
        let mut code = 0u16;
        for (i, q) in [n, s, w, e, nw, ne, sw, se].into_iter().enumerate() {
            let c = self.cells.get(q.index()).copied().unwrap_or(Cell::Border);
            code |= (c as u16) << (2 * i);
        }
        code
    }

    /// Whether the chain through `p` (which must have exactly two liberties after its
    /// owner's move, the opponent `attacker` to play) is caught in a ladder: the attacker
    /// keeps it in atari with every move until it is captured. A simple read: at most
    /// [`LADDER_BUDGET`] attacker tries, two candidate ataris at each step, at most
    /// [`LADDER_DEPTH`] steps; a chain that reaches three liberties, or can capture an
    /// attacker in atari, escapes. Reads on a scratch copy of the board.
    pub fn is_ladder_capture(&self, p: Point, attacker: Color) -> bool {
        let mut b = self.clone();
        let mut budget = LADDER_BUDGET;
        b.ladder_read(p, attacker, &mut budget, LADDER_DEPTH + 1)
    }

    /// Whether `color` extending its chain through `chain` (in atari) on `lib` runs into
    /// a ladder: the extension leaves two liberties and the opponent catches it. An
    /// extension that is not legal (suicide, a ko) is no ladder. Reads on this board,
    /// playing and undoing moves: the board is left exactly as it was.
    pub fn escape_is_ladder(&mut self, color: Color, chain: Point, lib: Point) -> bool {
        if !self.is_legal(color, lib) {
            return false;
        }
        let u = self.place_undoable(color, lib);
        let caught = self.liberties_upto(chain, 3) == 2 && {
            let mut budget = LADDER_BUDGET;
            self.ladder_read(chain, color.opponent(), &mut budget, LADDER_DEPTH)
        };
        self.undo(u);
        caught
    }

    /// Whether the four stones of `p` and the chains `heads` next to it, once captured,
    /// leave a space of four that cannot make two eyes against a play inside: a square,
    /// a T (its middle is the vital point) or a bent four whose bend is a corner of the
    /// board (a ko at best). A straight or other bent four lives.
    fn dead_four(&self, p: Point, heads: &[u16]) -> bool {
        let mut pts: SmallVec<[Point; 4]> = SmallVec::new();
        pts.push(p);
        for &h in heads {
            let mut s = h;
            loop {
                pts.push(Point(s));
                s = self.next[s as usize];
                if s == h || pts.len() > 4 {
                    break;
                }
            }
        }
        pts.len() == 4 && self.nakade_shape(&pts)
    }

    /// Whether a space of these points (connected), once it is all a group has, makes
    /// at most one eye against a play inside: one to three points, or four in a square,
    /// a T, or bent round a corner of the board (a ko at best).
    pub fn nakade_shape(&self, pts: &[Point]) -> bool {
        if pts.len() <= 3 {
            return !pts.is_empty();
        }
        if pts.len() != 4 {
            return false;
        }
        let degree = |q: Point| q.neighbors().iter().filter(|n| pts.contains(n)).count();
        let degrees: SmallVec<[usize; 4]> = pts.iter().map(|&q| degree(q)).collect();
        if degrees.iter().all(|&d| d == 2) || degrees.contains(&3) {
            return true; // square, T
        }
        // A bent four: a point of degree 2 whose two neighbours in the shape are not in
        // line is the bend; dead when the bend is a corner point.
        let last = self.size - 1;
        pts.iter().any(|&q| {
            let inside: SmallVec<[Point; 2]> = q
                .neighbors()
                .into_iter()
                .filter(|n| pts.contains(n))
                .collect();
            if inside.len() != 2 {
                return false;
            }
            let (a, b) = (inside[0].coord(), inside[1].coord());
            let bent = a.0 != b.0 && a.1 != b.1;
            let (x, y) = q.coord();
            bent && (x == 0 || x == last) && (y == 0 || y == last)
        })
    }

    /// The ladder read behind [`Board::is_ladder_capture`], `depth` steps deep at most,
    /// playing each step on this board and undoing it.
    fn ladder_read(&mut self, p: Point, attacker: Color, budget: &mut u32, depth: usize) -> bool {
        let defender = attacker.opponent();
        if self.get(p) != Some(defender) {
            return true;
        }
        let mut libs: SmallVec<[u16; 8]> = SmallVec::new();
        self.collect_liberties(p, &mut libs, 3, None);
        if libs.len() != 2 {
            return libs.is_empty();
        }
        if depth == 0 {
            return false; // too deep to read: assume it escapes
        }
        for &a in &libs {
            if *budget == 0 {
                return false;
            }
            *budget -= 1;
            let a = Point(a);
            // The defender's run to the other liberty reaches three liberties at once
            // when that point has three empty neighbours besides `a`: it escapes, so
            // this atari fails without reading it (the common case).
            let other = libs.iter().map(|&l| Point(l)).find(|&l| l != a);
            if let Some(e) = other {
                let free = e
                    .neighbors()
                    .iter()
                    .filter(|&&n| n != a && self.cells[n.index()] == Cell::Empty)
                    .count();
                if free >= 3 {
                    continue;
                }
            }
            if !self.is_legal(attacker, a) {
                continue;
            }
            let u = self.place_undoable(attacker, a);
            let caught = self.ladder_step(p, a, attacker, budget, depth);
            self.undo(u);
            if caught {
                return true;
            }
        }
        false
    }

    /// After the attacker's atari on `a`: whether the defender's chain through `p` is
    /// caught (every branch read is undone before returning).
    fn ladder_step(
        &mut self,
        p: Point,
        a: Point,
        attacker: Color,
        budget: &mut u32,
        depth: usize,
    ) -> bool {
        let defender = attacker.opponent();
        // The attacker's stone must not itself be capturable at once.
        if self.get(a) != Some(attacker) || self.in_atari(a) {
            return false;
        }
        let Some(escape) = self.atari_liberty(p) else {
            return false;
        };
        // The defender may capture an attacking chain in atari instead of running.
        if self.defender_can_capture(p, defender) {
            return false;
        }
        if !self.is_legal(defender, escape) {
            return true;
        }
        let u = self.place_undoable(defender, escape);
        let caught = match self.liberties_upto(p, 3) {
            0 | 1 => true,
            2 => self.ladder_read(p, attacker, budget, depth - 1),
            _ => false,
        };
        self.undo(u);
        caught
    }

    /// Whether some chain of the attacker next to the defender's chain through `p` is in
    /// atari (so the defender could capture it).
    fn defender_can_capture(&self, p: Point, defender: Color) -> bool {
        let attacker = Cell::from(defender.opponent());
        let mut s = p.0;
        loop {
            for n in Point(s).neighbors() {
                if self.cells[n.index()] == attacker && self.in_atari_head(self.head_of(n)) {
                    return true;
                }
            }
            s = self.next[s as usize];
            if s == p.0 {
                return false;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A chain in atari whose one liberty is suicide to fill: no escape to read (the
    /// fuzzer's session target found the policy features asking, which a debug build's
    /// legality assertion in `place_undoable` refused).
    #[test]
    fn an_escape_that_is_suicide_is_no_ladder() {
        let mut b = board(&[".....", ".....", "O....", "XO...", ".O..."]);
        let a2 = b.point(0, 1).unwrap();
        let a1 = b.point(0, 0).unwrap();
        assert!(!b.is_legal(Color::Black, a1));
        let before = b.clone();
        assert!(!b.escape_is_ladder(Color::Black, a2, a1));
        assert_eq!(b.hash(), before.hash());
        assert_eq!(b.get(a1), None);
    }

    fn board(rows: &[&str]) -> Board {
        let size = rows.len();
        let mut b = Board::new(size).unwrap();
        for (r, line) in rows.iter().enumerate() {
            let row = size - 1 - r;
            for (col, ch) in line.chars().enumerate() {
                let p = b.point(col, row).unwrap();
                match ch {
                    'X' => {
                        b.set_stone(Color::Black, p);
                    }
                    'O' => {
                        b.set_stone(Color::White, p);
                    }
                    _ => {}
                }
            }
        }
        b
    }

    #[test]
    fn liberties_and_self_atari() {
        let b = board(&[
            ".....", //
            ".XX..", //
            "OOX..", //
            "OO...", //
            "X....",
        ]);
        let p = |c, r| b.point(c, r).unwrap();
        // Black B4-C4-C3: A4? no: B4 (1,3), C4 (2,3), C3 (2,2).
        assert_eq!(b.liberties_upto(p(1, 3), 10), 6);
        assert_eq!(b.liberties_upto(p(1, 3), 3), 3);
        // White A3-B3-B2-A2: liberties A4, C2, B1.
        assert_eq!(b.liberties_upto(p(0, 2), 10), 3);
        // Black A1 has one liberty (B1); black playing B1 joins it: liberty C1 only.
        assert_eq!(b.liberties_after(Color::Black, p(1, 0), 5), 1);
        assert_eq!(b.self_atari(Color::Black, p(1, 0)), Some(2));
        // White B1 captures A1: liberties A1 (captured), C1, and the chain's A4, C2.
        assert_eq!(b.liberties_after(Color::White, p(1, 0), 9), 4);
        assert_eq!(b.self_atari(Color::White, p(1, 0)), None);
        assert_eq!(b.atari_liberty(p(0, 0)), Some(p(1, 0)));
    }

    #[test]
    fn keeps_two_liberties_agrees_with_the_chain_walk() {
        use rand::{rngs::SmallRng, SeedableRng};
        let mut rng = SmallRng::seed_from_u64(3);
        let mut checked = [0usize; 2];
        for size in [5, 9, 19] {
            for _ in 0..10 {
                let mut b = Board::new(size).unwrap();
                let mut color = Color::Black;
                for _ in 0..size * size * 2 {
                    for p in b.empty_points().collect::<Vec<_>>() {
                        for c in Color::BOTH {
                            let walk = b.liberties_after(c, p, 2) >= 2;
                            assert_eq!(b.keeps_two_liberties(c, p), walk, "{b:?} {p:?} {c:?}");
                            checked[walk as usize] += 1;
                        }
                    }
                    match b.random_move(color, &mut rng) {
                        Some(p) => {
                            b.place(color, p);
                        }
                        None => break,
                    }
                    color = color.opponent();
                }
            }
        }
        assert!(checked[0] > 10_000 && checked[1] > 10_000, "{checked:?}");
    }

    #[test]
    fn filling_a_shared_liberty_of_a_seki_breaks_it() {
        // Bottom left: White's A4-B2 chain and Black's big group share B4 and A1, and
        // neither has an eye: a seki (any filling of a shared point is captured and
        // leaves the capturer room for two eyes).
        let b = board(&[
            ".O.OOXXX.",
            "OOO.OOXXX",
            "OOXOOXXX.",
            "OXXXOX.XX",
            "XXXOOXXXX",
            "O.XOOXXXX",
            "OXXXOOOXO",
            "OOXOOO.OO",
            ".XXXO.O.O",
        ]);
        let p = |c, r| b.point(c, r).unwrap();
        for c in [Color::Black, Color::White] {
            assert!(b.breaks_seki(c, p(0, 0)), "{c:?} A1");
            assert!(b.breaks_seki(c, p(1, 3)), "{c:?} B4");
        }
        // White's own eyes and Black's points inside White's area are no seki moves.
        assert!(!b.breaks_seki(Color::White, p(3, 7)));
        assert!(!b.breaks_seki(Color::White, p(6, 1)));
        assert!(!b.breaks_seki(Color::Black, p(8, 6)));
    }

    #[test]
    fn a_small_sacrifice_that_kills_is_no_seki() {
        // Black's B1-C1 and White's bottom-left chain share A1 and C2, but Black A1 and
        // White's capture at C2 leave White three points in a row and no other room:
        // Black B1 then kills. A1 (three stones) is a nakade, not a seki break.
        let b = board(&[
            "OXXXXXXXX",
            ".XOOOOOOX",
            "XXOXXOOXX",
            ".XOXXOOOO",
            "XXXXXXOO.",
            "XOOOXXXO.",
            "XOOOXXOO.",
            "OO.OXXXO.",
            ".XXOOXXOO",
        ]);
        let p = |c, r| b.point(c, r).unwrap();
        assert!(!b.breaks_seki(Color::Black, p(0, 0)), "Black A1");
        assert!(!b.breaks_seki(Color::Black, p(2, 1)), "Black C2");
        // White filling either point gives Black twelve stones to take: that is one.
        assert!(b.breaks_seki(Color::White, p(0, 0)), "White A1");
        assert!(b.breaks_seki(Color::White, p(2, 1)), "White C2");
        // Taking A9 captures.
        assert!(!b.breaks_seki(Color::Black, p(0, 7)));
    }

    #[test]
    fn a_bent_four_in_the_corner_is_a_sacrifice_a_straight_four_a_seki_break() {
        // Top right: White's G9-J4 chain and Black's J7-J9 share H9 and J6. Black H9
        // gives up four stones bent round the J9 corner (dead shape: a ko at best for
        // White); Black J6 gives up a straight four on the edge, which lives.
        let b = board(&[
            "X.XX.XO.X",
            "...XXXOOX",
            "X.XOXXXOX",
            "XXXOOXXO.",
            "X.XOOOXOO",
            "XXO.OOXXO",
            "XOOOOXX.X",
            "OOOO.OXXX",
            "...OOOOOX",
        ]);
        let p = |c, r| b.point(c, r).unwrap();
        assert!(!b.breaks_seki(Color::Black, p(7, 8)), "H9");
        assert!(b.breaks_seki(Color::Black, p(8, 5)), "J6");
    }

    #[test]
    fn pattern3_reads_the_neighbourhood() {
        let b = board(&["X..", ".O.", "..."]);
        let centre = b.point(1, 1).unwrap();
        let code = b.pattern3(centre);
        // N empty, S empty, W empty, E empty, NW black, others empty.
        let e = Cell::Empty as u16;
        let expect =
            e | e << 2 | e << 4 | e << 6 | (Cell::Black as u16) << 8 | e << 10 | e << 12 | e << 14;
        assert_eq!(code, expect);
        let corner = b.point(0, 0).unwrap();
        let c = b.pattern3(corner);
        assert_eq!((c >> 2) & 3, Cell::Border as u16); // S of A1 is border
        assert_eq!((c >> 4) & 3, Cell::Border as u16); // W of A1 is border
    }

    #[test]
    fn ladders_are_read() {
        // White D2 is in atari; running to D1 gives two liberties on the edge, caught.
        let b = board(&[
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            ".........",
            "...X.....",
            "..XOX....",
            ".........",
        ]);
        let d2 = b.point(3, 1).unwrap();
        assert_eq!(b.atari_liberty(d2), b.point(3, 0));
        let mut e = b.clone();
        e.place(Color::White, b.point(3, 0).unwrap());
        assert!(e.is_ladder_capture(d2, Color::Black));
        // A ladder across the open board towards the top right: caught...
        let b = board(&[
            ".........",
            ".........",
            ".........",
            "....X....",
            "...XO....",
            "....XX...",
            ".........",
            ".........",
            ".........",
        ]);
        let e5 = b.point(4, 4).unwrap();
        assert_eq!(b.atari_liberty(e5), b.point(5, 4));
        let mut e = b.clone();
        e.place(Color::White, b.point(5, 4).unwrap());
        assert_eq!(e.liberties_upto(e5, 5), 2);
        assert!(e.is_ladder_capture(e5, Color::Black));
        // ...unless a white ladder breaker stands in its path.
        let mut f = b.clone();
        f.set_stone(Color::White, b.point(7, 7).unwrap());
        f.place(Color::White, b.point(5, 4).unwrap());
        assert!(!f.is_ladder_capture(e5, Color::Black));
    }
}
