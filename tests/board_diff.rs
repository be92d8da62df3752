//! Differential test of `Game` (and the fast `Board` under it) against a deliberately naive
//! reference written here: a plain `Vec` of cells, captures and suicide found by flood fill,
//! every past position kept whole in a hash map for superko, and the simple-ko rule stated
//! by what it means (the immediate recapture of the single stone that just captured a
//! single stone) rather than by a stored ko point.
//!
//! Random games on every size 2..=19 under six rule variants (positional / situational /
//! simple ko, each with and without suicide) mix legal moves, refused illegal attempts,
//! passes and undos. After every step the two must agree on every stone, the prisoners,
//! the player to move, the verdict and reason for every point, and the incremental hash
//! must equal one recomputed from `STONE_KEYS`; `check_consistency` must pass.
//!
//! proptest drives each game from a fixed seed, so a failure shrinks the action script.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::atomic::{AtomicU64, Ordering};

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use tengen::board::STONE_KEYS;
use tengen::playout::{playout, Light, PlayoutRng};
use tengen::score::area_difference;
use tengen::{Color, Game, IllegalMove, KoRule, Move, Point, Rules};

const EMPTY: u8 = 0;

fn stone(c: Color) -> u8 {
    match c {
        Color::Black => 1,
        Color::White => 2,
    }
}

/// A word-at-a-time hasher for the reference's position map (361-byte keys hashed with
/// SipHash dominate the run otherwise). Quality only affects speed, never verdicts.
#[derive(Default)]
struct WordHasher(u64);

impl Hasher for WordHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut w = [0u8; 8];
            w[..chunk.len()].copy_from_slice(chunk);
            self.0 = (self.0 ^ u64::from_le_bytes(w)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            self.0 ^= self.0 >> 29;
        }
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type Fast = BuildHasherDefault<WordHasher>;

/// What a move would do on the reference board.
struct Outcome {
    cells: Vec<u8>,
    /// Opponent stones removed.
    captured: Vec<usize>,
    /// Own stones removed (suicide).
    lost: u32,
}

#[derive(Clone)]
struct Saved {
    cells: Vec<u8>,
    caps: [u32; 2],
    to_move: Color,
    last: Option<(Color, usize, Vec<usize>)>,
    /// The game's hash at that moment, to check undo restores it.
    game_hash: u64,
}

/// The naive reference game.
struct Reference {
    suicide_allowed: bool,
    ko: KoRule,
    adj: Vec<Vec<usize>>,
    cells: Vec<u8>,
    caps: [u32; 2],
    to_move: Color,
    /// The last move if it put a stone: who, where, and what it captured.
    last: Option<(Color, usize, Vec<usize>)>,
    /// Every position so far (with the player to move), the start first.
    history: Vec<(Vec<u8>, Color)>,
    /// How often each position occurred, per player to move.
    seen: HashMap<Vec<u8>, [u32; 2], Fast>,
    stack: Vec<Saved>,
    /// Moves played: `None` for a pass.
    moves: Vec<Option<usize>>,
}

impl Reference {
    fn new(n: usize, rules: &Rules) -> Reference {
        let mut adj = vec![Vec::new(); n * n];
        for row in 0..n {
            for col in 0..n {
                let a = &mut adj[row * n + col];
                if row > 0 {
                    a.push((row - 1) * n + col);
                }
                if col > 0 {
                    a.push(row * n + col - 1);
                }
                if col + 1 < n {
                    a.push(row * n + col + 1);
                }
                if row + 1 < n {
                    a.push((row + 1) * n + col);
                }
            }
        }
        let mut r = Reference {
            suicide_allowed: rules.suicide_allowed,
            ko: rules.ko,
            adj,
            cells: vec![EMPTY; n * n],
            caps: [0; 2],
            to_move: Color::Black,
            last: None,
            history: Vec::new(),
            seen: HashMap::default(),
            stack: Vec::new(),
            moves: Vec::new(),
        };
        r.record();
        r
    }

    fn record(&mut self) {
        self.history.push((self.cells.clone(), self.to_move));
        self.seen.entry(self.cells.clone()).or_insert([0; 2])[self.to_move.index()] += 1;
    }

    fn unrecord(&mut self) {
        let (cells, to_move) = self.history.pop().expect("history never empty");
        let e = self.seen.get_mut(&cells).expect("recorded");
        e[to_move.index()] -= 1;
        if *e == [0, 0] {
            self.seen.remove(&cells);
        }
    }

    /// The stones of the chain through `i` if it has no liberty; `None` as soon as one
    /// liberty is found.
    fn dead_chain(&self, cells: &[u8], i: usize) -> Option<Vec<usize>> {
        let c = cells[i];
        let mut visited = vec![false; cells.len()];
        let mut chain = vec![i];
        visited[i] = true;
        let mut k = 0;
        while k < chain.len() {
            for &nb in &self.adj[chain[k]] {
                if cells[nb] == EMPTY {
                    return None;
                }
                if cells[nb] == c && !visited[nb] {
                    visited[nb] = true;
                    chain.push(nb);
                }
            }
            k += 1;
        }
        Some(chain)
    }

    fn outcome(&self, color: Color, i: usize) -> Outcome {
        let mut cells = self.cells.clone();
        cells[i] = stone(color);
        let enemy = stone(color.opponent());
        let mut captured = Vec::new();
        for &nb in &self.adj[i] {
            if cells[nb] == enemy {
                if let Some(chain) = self.dead_chain(&cells, nb) {
                    for s in chain {
                        cells[s] = EMPTY;
                        captured.push(s);
                    }
                }
            }
        }
        let mut lost = 0;
        if let Some(chain) = self.dead_chain(&cells, i) {
            for s in chain {
                cells[s] = EMPTY;
                lost += 1;
            }
        }
        Outcome {
            cells,
            captured,
            lost,
        }
    }

    fn check(&self, color: Color, i: usize) -> Result<Outcome, IllegalMove> {
        if self.cells[i] != EMPTY {
            return Err(IllegalMove::Occupied);
        }
        let out = self.outcome(color, i);
        if let Some((c, m, cap)) = &self.last {
            if *c == color.opponent() && cap == &[i] && out.captured == [*m] {
                return Err(IllegalMove::Ko);
            }
        }
        if out.lost > 0 && !self.suicide_allowed {
            return Err(IllegalMove::Suicide);
        }
        let counts = self.seen.get(&out.cells).copied().unwrap_or([0; 2]);
        let repeats = match self.ko {
            KoRule::Simple => false,
            KoRule::Positional => counts != [0, 0],
            KoRule::Situational => counts[color.opponent().index()] > 0,
        };
        if repeats {
            return Err(IllegalMove::Superko);
        }
        Ok(out)
    }

    fn save(&mut self, game_hash: u64) {
        self.stack.push(Saved {
            cells: self.cells.clone(),
            caps: self.caps,
            to_move: self.to_move,
            last: self.last.clone(),
            game_hash,
        });
    }

    fn play(&mut self, color: Color, i: usize, out: Outcome, game_hash: u64) {
        self.save(game_hash);
        self.cells = out.cells;
        self.caps[color.index()] += out.captured.len() as u32;
        self.caps[color.opponent().index()] += out.lost;
        self.last = Some((color, i, out.captured));
        self.to_move = color.opponent();
        self.moves.push(Some(i));
        self.record();
    }

    fn pass(&mut self, game_hash: u64) {
        self.save(game_hash);
        self.last = None;
        self.to_move = self.to_move.opponent();
        self.moves.push(None);
        self.record();
    }

    /// Takes back a move; the game's hash before it, or `None` if there was none.
    fn undo(&mut self) -> Option<u64> {
        let s = self.stack.pop()?;
        self.unrecord();
        self.moves.pop();
        self.cells = s.cells;
        self.caps = s.caps;
        self.to_move = s.to_move;
        self.last = s.last;
        Some(s.game_hash)
    }
}

/// The six rule variants every size is played under.
fn variant(v: usize) -> Rules {
    let (ko, suicide_allowed) = match v {
        0 => return Rules::chinese(),
        1 => return Rules::tromp_taylor(),
        2 => (KoRule::Situational, false),
        3 => (KoRule::Situational, true),
        4 => (KoRule::Simple, false),
        _ => (KoRule::Simple, true),
    };
    Rules {
        ko,
        suicide_allowed,
        ..Rules::chinese()
    }
}

const VARIANTS: usize = 6;

/// Steps per game: long games on small boards, where a step is cheap and repetitions are
/// frequent; enough on large boards to fill them and capture a lot.
fn steps(n: usize) -> usize {
    (300_000 / (n * n)).clamp(1_000, 6_000)
}

/// `check_consistency` re-floods every chain from every stone (cubic in chain length):
/// it would cost twenty times the rest on large boards, so it runs on every step of small
/// boards and on a regular sample of steps (and at the end) of larger ones. Stones,
/// prisoners, hash and all verdicts are still compared on every step.
fn consistency_every(n: usize) -> usize {
    match n {
        0..=6 => 1,
        7..=9 => 4,
        10..=12 => 16,
        _ => 32,
    }
}

struct Ctx {
    pts: Vec<Point>,
}

fn hash_from_scratch(ctx: &Ctx, cells: &[u8]) -> u64 {
    let mut h = 0;
    for (i, &c) in cells.iter().enumerate() {
        if c != EMPTY {
            h ^= STONE_KEYS[(c - 1) as usize][ctx.pts[i].index()];
        }
    }
    h
}

/// Compares everything; returns the reference verdicts for the player to move.
fn compare(
    ctx: &Ctx,
    game: &Game,
    r: &Reference,
    both_colours: bool,
    full: bool,
) -> Result<Vec<Result<Outcome, IllegalMove>>, TestCaseError> {
    let b = game.board();
    for (i, &p) in ctx.pts.iter().enumerate() {
        let want = match r.cells[i] {
            0 => None,
            1 => Some(Color::Black),
            _ => Some(Color::White),
        };
        prop_assert_eq!(b.get(p), want, "stone at {:?}\n{:?}", p.coord(), b);
    }
    for c in Color::BOTH {
        prop_assert_eq!(b.captures(c), r.caps[c.index()], "prisoners of {:?}", c);
    }
    prop_assert_eq!(b.hash(), hash_from_scratch(ctx, &r.cells), "hash\n{:?}", b);
    if full {
        if let Err(e) = b.check_consistency() {
            return Err(TestCaseError::fail(format!(
                "inconsistent board: {e}\n{b:?}"
            )));
        }
    }
    prop_assert_eq!(game.to_move(), r.to_move);
    prop_assert_eq!(game.moves().len(), r.moves.len());
    prop_assert_eq!(game.position_hashes().count(), r.history.len());
    let last_two_passes = r.moves.len() >= 2 && r.moves[r.moves.len() - 2..] == [None, None];
    prop_assert_eq!(game.is_over(), last_two_passes);
    let colours: &[Color] = if both_colours {
        &[r.to_move, r.to_move.opponent()]
    } else {
        &[r.to_move]
    };
    let mut verdicts = Vec::new();
    for &c in colours {
        for (i, &p) in ctx.pts.iter().enumerate() {
            let want = r.check(c, i);
            let got = game.check(c, Move::Place(p));
            prop_assert_eq!(
                got,
                want.as_ref().map(|_| ()).map_err(|e| *e),
                "{:?} at {:?} (col, row) on\n{:?}last move {:?}",
                c,
                p.coord(),
                b,
                r.last
                    .as_ref()
                    .map(|(c, m, cap)| (c, ctx.pts[*m].coord(), cap.len()))
            );
            if c == r.to_move {
                verdicts.push(want);
            }
        }
    }
    Ok(verdicts)
}

#[derive(Default)]
struct Tally {
    placed: AtomicU64,
    passes: AtomicU64,
    refused: AtomicU64,
    undos: AtomicU64,
    captures: AtomicU64,
    by_reason: [AtomicU64; 4],
}

fn reason_index(e: IllegalMove) -> usize {
    match e {
        // The move limit is far beyond these games' length.
        IllegalMove::Occupied | IllegalMove::OffBoard | IllegalMove::TooManyMoves => 0,
        IllegalMove::Suicide => 1,
        IllegalMove::Ko => 2,
        IllegalMove::Superko => 3,
    }
}

/// Plays one game from an action script; `(kind, pick)` pairs.
fn run_game(n: usize, v: usize, actions: &[(u8, u32)], tally: &Tally) -> Result<(), TestCaseError> {
    let rules = variant(v);
    let mut game = Game::new(n, rules.clone()).expect("size in range");
    let mut r = Reference::new(n, &rules);
    let ctx = Ctx {
        pts: (0..n * n)
            .map(|i| game.board().point(i % n, i / n).expect("on board"))
            .collect(),
    };
    let (mut placed, mut passes, mut refused, mut undos, mut captures) = (0, 0, 0, 0, 0);
    let mut reasons = [0u64; 4];
    for (step, &(kind, pick)) in actions.iter().enumerate() {
        let full = step % consistency_every(n) == 0;
        let mut verdicts = compare(&ctx, &game, &r, step % 8 == 0, full)?;
        if step % 64 == 0 {
            let legal: Vec<Point> = verdicts
                .iter()
                .enumerate()
                .filter(|(_, v)| v.is_ok())
                .map(|(i, _)| ctx.pts[i])
                .collect();
            prop_assert_eq!(game.legal_points(r.to_move), legal);
        }
        let color = r.to_move;
        let legal: Vec<usize> = (0..n * n).filter(|&i| verdicts[i].is_ok()).collect();
        let pick = pick as usize;
        match kind {
            0..=77 if !legal.is_empty() => {
                let i = legal[pick % legal.len()];
                let out =
                    std::mem::replace(&mut verdicts[i], Err(IllegalMove::OffBoard)).expect("legal");
                captures += out.captured.len() as u64;
                let before = game.board().hash();
                prop_assert_eq!(game.play(color, Move::Place(ctx.pts[i])), Ok(()));
                r.play(color, i, out, before);
                placed += 1;
            }
            78..=86 => {
                // An illegal attempt: must be refused with the reference's reason and
                // change nothing.
                // Rarer reasons first: pick a reason present on the board, then a point.
                let mut by_reason: [Vec<usize>; 4] = Default::default();
                for (i, v) in verdicts.iter().enumerate() {
                    if let Err(e) = v {
                        by_reason[reason_index(*e)].push(i);
                    }
                }
                let present: Vec<usize> = (0..4).filter(|&k| !by_reason[k].is_empty()).collect();
                let (p, want) = if !present.is_empty() && !pick.is_multiple_of(8) {
                    let points = &by_reason[present[(pick / 8) % present.len()]];
                    let i = points[(pick / 32) % points.len()];
                    (
                        ctx.pts[i],
                        verdicts[i].as_ref().err().copied().expect("illegal"),
                    )
                } else {
                    // Just off the board: right of the last column, or above the top row.
                    let k = (pick / 8) % n;
                    let p = if pick % 16 < 8 {
                        Point::from_coord(n, k)
                    } else {
                        Point::from_coord(k, n)
                    };
                    (p, IllegalMove::OffBoard)
                };
                let before = (game.board().hash(), game.moves().len(), game.to_move());
                prop_assert_eq!(game.play(color, Move::Place(p)), Err(want));
                prop_assert_eq!(
                    (game.board().hash(), game.moves().len(), game.to_move()),
                    before
                );
                refused += 1;
                reasons[reason_index(want)] += 1;
            }
            0..=93 => {
                let before = game.board().hash();
                prop_assert_eq!(game.play(color, Move::Pass), Ok(()));
                r.pass(before);
                passes += 1;
            }
            _ => {
                for _ in 0..=(pick % 4) {
                    let want = r.undo();
                    prop_assert_eq!(game.undo(), want.is_some());
                    if let Some(h) = want {
                        prop_assert_eq!(game.board().hash(), h, "undo restores the hash");
                        undos += 1;
                    }
                }
            }
        }
    }
    compare(&ctx, &game, &r, true, true)?;
    tally.placed.fetch_add(placed, Ordering::Relaxed);
    tally.passes.fetch_add(passes, Ordering::Relaxed);
    tally.refused.fetch_add(refused, Ordering::Relaxed);
    tally.undos.fetch_add(undos, Ordering::Relaxed);
    tally.captures.fetch_add(captures, Ordering::Relaxed);
    for (t, k) in tally.by_reason.iter().zip(reasons) {
        t.fetch_add(k, Ordering::Relaxed);
    }
    Ok(())
}

#[test]
fn game_matches_naive_reference_on_every_size() {
    let tally = Tally::default();
    let start = std::time::Instant::now();
    for n in 2..=19 {
        for v in 0..VARIANTS {
            let mut seed = [0u8; 32];
            seed[0] = n as u8;
            seed[1] = v as u8;
            seed[2..10].copy_from_slice(b"tengen!!");
            let config = Config {
                cases: 1,
                failure_persistence: None,
                max_shrink_iters: 2_000,
                max_shrink_time: 30_000,
                ..Config::default()
            };
            let mut runner =
                TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
            let len = steps(n);
            let script = prop::collection::vec((0u8..100, any::<u32>()), len..=len);
            let result = runner.run(&script, |actions| run_game(n, v, &actions, &tally));
            if let Err(e) = result {
                panic!("size {n}, rules {:?}: {e}", variant(v));
            }
        }
    }
    let placed = tally.placed.load(Ordering::Relaxed);
    let passes = tally.passes.load(Ordering::Relaxed);
    let r = |i: usize| tally.by_reason[i].load(Ordering::Relaxed);
    println!(
        "{} moves ({placed} stones, {passes} passes), {} captured stones, {} refused \
         (occupied/off {}, suicide {}, ko {}, superko {}), {} undone, in {:.1?}",
        placed + passes,
        tally.captures.load(Ordering::Relaxed),
        tally.refused.load(Ordering::Relaxed),
        r(0),
        r(1),
        r(2),
        r(3),
        tally.undos.load(Ordering::Relaxed),
        start.elapsed()
    );
    assert!(placed >= 200_000, "only {placed} stones played");
    // Every reason must actually have been exercised.
    for i in 0..4 {
        assert!(r(i) > 0, "reason {i} never tried");
    }
}

/// Naive single-point eye: every on-board neighbour is `color`, and enemy stones on the
/// diagonals are fewer than two in the middle, none on the edge.
fn naive_eye(r: &Reference, n: usize, color: Color, i: usize) -> bool {
    let own = stone(color);
    if r.adj[i].iter().any(|&nb| r.cells[nb] != own) {
        return false;
    }
    let (col, row) = ((i % n) as i64, (i / n) as i64);
    let mut enemy = 0;
    let mut off_board = 0;
    for (dc, dr) in [(-1, -1), (-1, 1), (1, -1), (1, 1)] {
        let (c, r2) = (col + dc, row + dr);
        if c < 0 || r2 < 0 || c >= n as i64 || r2 >= n as i64 {
            off_board += 1;
        } else if r.cells[(r2 * n as i64 + c) as usize] == stone(color.opponent()) {
            enemy += 1;
        }
    }
    if off_board > 0 {
        enemy == 0
    } else {
        enemy < 2
    }
}

/// Naive area score: stones plus empty regions (flood filled) reaching one colour only.
fn naive_area(r: &Reference) -> i32 {
    let mut score = 0i32;
    let mut done = vec![false; r.cells.len()];
    for i in 0..r.cells.len() {
        match r.cells[i] {
            1 => score += 1,
            2 => score -= 1,
            _ if !done[i] => {
                let mut region = vec![i];
                done[i] = true;
                let (mut black, mut white) = (false, false);
                let mut k = 0;
                while k < region.len() {
                    for &nb in &r.adj[region[k]] {
                        match r.cells[nb] {
                            1 => black = true,
                            2 => white = true,
                            _ if !done[nb] => {
                                done[nb] = true;
                                region.push(nb);
                            }
                            _ => {}
                        }
                    }
                    k += 1;
                }
                match (black, white) {
                    (true, false) => score += region.len() as i32,
                    (false, true) => score -= region.len() as i32,
                    _ => {}
                }
            }
            _ => {}
        }
    }
    score
}

/// The playout layer of the board (`random_move`, `place`, `pass`, `playout`,
/// `score::area_difference`) against the reference under simple ko without suicide: every chosen move
/// is legal and not an own eye, "no move" means there really is none, stones, prisoners
/// and hash agree after every move, and the final area score matches a naive count.
#[test]
fn playouts_match_reference_on_every_size() {
    use rand::{rngs::SmallRng, SeedableRng};
    use tengen::Board;
    let mut rng = SmallRng::seed_from_u64(0x7e46_e421);
    let mut playout_rng = PlayoutRng::seed_from_u64(0x7e46_e421);
    let rules = Rules {
        ko: KoRule::Simple,
        suicide_allowed: false,
        ..Rules::chinese()
    };
    let mut moves = 0u64;
    for n in 2..=19 {
        let pts: Vec<Point> = (0..n * n)
            .map(|i| Point::from_coord(i % n, i / n))
            .collect();
        let ctx = Ctx { pts: pts.clone() };
        for game in 0..(6_000 / (n * n)).max(12) {
            let mut b = Board::new(n).unwrap();
            let mut r = Reference::new(n, &rules);
            let mut color = Color::Black;
            let mut passes = 0;
            let mut steps = 0;
            while passes < 2 && steps < 3 * n * n {
                match b.random_move(color, &mut rng) {
                    Some(p) => {
                        let i = pts.iter().position(|&q| q == p).expect("on board");
                        let out = r.check(color, i).unwrap_or_else(|e| {
                            panic!("{n}x{n} game {game}: random_move chose {e:?}\n{b:?}")
                        });
                        assert!(!naive_eye(&r, n, color, i), "own eye chosen\n{b:?}");
                        let taken = b.place(color, p);
                        assert_eq!(taken as usize, out.captured.len());
                        r.play(color, i, out, 0);
                        passes = 0;
                    }
                    None => {
                        for (i, p) in pts.iter().enumerate() {
                            assert!(
                                r.check(color, i).is_err() || naive_eye(&r, n, color, i),
                                "{n}x{n}: no move returned but {:?} is playable\n{b:?}",
                                p.coord()
                            );
                        }
                        b.pass();
                        r.pass(0);
                        passes += 1;
                    }
                }
                steps += 1;
                moves += 1;
                color = color.opponent();
                for (i, &p) in pts.iter().enumerate() {
                    assert_eq!(b.get(p).map_or(0, stone), r.cells[i], "{b:?}");
                }
                assert_eq!(b.captures(Color::Black), r.caps[0]);
                assert_eq!(b.captures(Color::White), r.caps[1]);
                assert_eq!(b.hash(), hash_from_scratch(&ctx, &r.cells));
                if n <= 9 || steps % 16 == 0 {
                    b.check_consistency().unwrap();
                }
            }
            b.check_consistency().unwrap();
            assert_eq!(area_difference(&b), naive_area(&r), "{b:?}");
            // A light playout from here ends consistent, and its quick end count is the
            // exact area count whenever it ended by two passes.
            let mut c = b.clone();
            let res = playout(&mut c, color, &mut Light, &mut playout_rng);
            assert!(res.moves <= 3 * n * n);
            c.check_consistency().unwrap();
            if res.moves < 3 * n * n {
                assert_eq!(res.score, area_difference(&c), "{c:?}");
            }
        }
    }
    println!("{moves} playout moves checked");
    assert!(moves > 100_000);
}
