//! KataGo's V7 network inputs (`fillRowV7` in KataGo's `nninputs.cpp`) from a [`Game`]:
//! 22 planes of `size * size` values, channel-major, each plane row-major with KataGo's
//! orientation (row 0 at the top, as GTP's highest row), and 19 global values, all for
//! the side to move. Area scoring only (no territory scoring, no encore, no button, no
//! group tax), as Tengen plays.
//!
//! Planes: 0 on board; 1, 2 own / opponent stones; 3, 4, 5 stones of chains with 1, 2, 3
//! liberties; 6 the simple-ko point and superko-banned points; 7, 8 encore only (zero);
//! 9-13 the last five moves (most recent first, while they alternate); 14 stones that a
//! ladder captures; 15, 16 the same on the boards one and two moves ago; 17 the moves that
//! start a working ladder against an opponent chain of two liberties; 18, 19 own /
//! opponent area (pass-alive by Benson's algorithm, then every stone and every empty
//! region bordered by one colour); 20, 21 encore only (zero).
//!
//! Globals: 0-4 which of the last five moves were passes; 5 own komi / 20; 6, 7 the ko
//! rule; 8 multi-stone suicide; 9-13 territory, tax and encore (zero); 14 whether a pass
//! would end the game; 15-17 playout doubling and button (zero); 18 the komi parity wave.

use std::collections::HashMap;

use crate::board::{Board, Cell, Color, Move, Point, NUM_CELLS, STRIDE};
use crate::game::Game;
use crate::rules::{KoRule, Rules};

pub const SPATIAL: usize = 22;
pub const GLOBAL: usize = 19;

/// What the inputs need of the rules beyond the game: KataGo's rule flags.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InputRules {
    pub ko: KoRule,
    pub multi_stone_suicide: bool,
    /// KataGo's `friendlyPassOk`: a pass that would end the game by two passes in a row
    /// is not taken as ending it, and the history is hidden from the network then.
    pub friendly_pass_ok: bool,
    /// Compute pass-alive area as if multi-stone suicide were legal (a model's
    /// `preferPassAliveUnderSuicideRules`).
    pub pass_alive_with_suicide: bool,
    /// KataGo's GTP reading of handicap (`assumeMultipleStartingBlackMovesAreHandicap`
    /// with a point per stone): Black's set-up stones and opening moves, interleaved
    /// only with White passes, are handicap stones when there are two or more, and White
    /// gets a point for each. Off: the game's own handicap and compensation.
    pub handicap_from_opening_moves: bool,
}

impl InputRules {
    /// Tengen's rules as KataGo's flags: the ko rule and suicide as the rules say; a
    /// friendly pass where dead stones are removed by agreement (Chinese, as KataGo's
    /// `chinese` and `chinese-ogs`), not under Tromp-Taylor.
    pub fn from_rules(rules: &Rules) -> InputRules {
        InputRules {
            ko: rules.ko,
            multi_stone_suicide: rules.suicide_allowed,
            friendly_pass_ok: rules.remove_dead,
            pass_alive_with_suicide: false,
            handicap_from_opening_moves: false,
        }
    }

    /// What KataGo's GTP engine, configured with the rules of the same name, shows the
    /// network for a game under `rules`: KataGo's `chinese` for Tengen's Chinese rules
    /// ([`katago_chinese`](Self::katago_chinese): simple ko where Tengen keeps positional
    /// superko, and the handicap read from the opening moves); Tromp-Taylor as
    /// [`from_rules`](Self::from_rules) says (KataGo's `tromp-taylor` gives no handicap
    /// points, so its reading of the opening moves changes nothing).
    pub fn katago_gtp(rules: &Rules) -> InputRules {
        if rules.name == Rules::chinese().name {
            InputRules::katago_chinese()
        } else {
            InputRules::from_rules(rules)
        }
    }

    /// KataGo's own `rules = chinese` (simple ko, no suicide, friendly passes): what the
    /// reference outputs in `../shared/nn/golden` were computed with.
    pub fn katago_chinese() -> InputRules {
        InputRules {
            ko: KoRule::Simple,
            multi_stone_suicide: false,
            friendly_pass_ok: true,
            pass_alive_with_suicide: false,
            handicap_from_opening_moves: true,
        }
    }
}

/// The inputs of one position.
#[derive(Clone, Debug, PartialEq)]
pub struct Features {
    pub size: usize,
    /// `SPATIAL` planes of `size * size`.
    pub spatial: Vec<f32>,
    pub global: [f32; GLOBAL],
}

impl Features {
    /// The index of `p` within a plane (KataGo's: row 0 at the top).
    pub fn pos(size: usize, p: Point) -> usize {
        let (col, row) = p.coord();
        (size - 1 - row) * size + col
    }

    /// The value of plane `plane` at `p`.
    pub fn at(&self, plane: usize, p: Point) -> f32 {
        let n = self.size;
        self.spatial[plane * n * n + Features::pos(n, p)]
    }

    fn set(&mut self, plane: usize, p: Point) {
        let n = self.size;
        self.spatial[plane * n * n + Features::pos(n, p)] = 1.0;
    }
}

/// The V7 inputs of the game's current position for the player to move.
pub fn features(game: &Game, rules: InputRules) -> Features {
    let board = game.board();
    let n = board.size();
    let pla = game.to_move();
    let opp = pla.opponent();
    let mut f = Features {
        size: n,
        spatial: vec![0.0; SPATIAL * n * n],
        global: [0.0; GLOBAL],
    };

    // 0-5: the board, stones, liberties.
    let mut libs_of_head: HashMap<Point, usize> = HashMap::new();
    for p in board.points() {
        f.set(0, p);
        if let Some(c) = board.get(p) {
            f.set(if c == pla { 1 } else { 2 }, p);
            let head = board.chain_id(p).expect("a stone");
            let libs = *libs_of_head
                .entry(head)
                .or_insert_with(|| board.liberties(p).len());
            if (1..=3).contains(&libs) {
                f.set(2 + libs, p);
            }
        }
    }

    // 6: the simple-ko point (whoever it binds, as KataGo) and superko bans.
    if let Some((ko, _)) = board.ko() {
        f.set(6, ko);
    }
    if rules.ko != KoRule::Simple {
        for p in board.points() {
            // A single-stone suicide (legal under Tromp-Taylor) repeats the position but
            // is no superko ban for KataGo: it is an illegal suicide there.
            let lone_suicide = board.is_suicide(pla, p)
                && p.neighbors().iter().all(|&q| board.get(q) != Some(pla));
            if board.get(p).is_none()
                && !lone_suicide
                && board.ko().map(|k| k.0) != Some(p)
                && game.check(pla, Move::Place(p)) == Err(crate::IllegalMove::Superko)
            {
                f.set(6, p);
            }
        }
    }

    // 18, 19: area.
    let area = area(
        board,
        rules.multi_stone_suicide || rules.pass_alive_with_suicide,
    );
    for p in board.points() {
        match area[p.index()] {
            Some(c) if c == pla => f.set(18, p),
            Some(_) => f.set(19, p),
            None => {}
        }
    }

    // 9-13 and globals 0-4: history, as KataGo's BoardHistory would hide or show it.
    let h = pass_state(game, rules);
    let max_turns = if h.pass_would_end_phase && h.friendly_pass_suppresses {
        0
    } else if h.finished {
        1
    } else {
        5
    };
    let amount = max_turns.min(h.valid_turns);
    let moves = game.moves();
    let mut included = 0;
    for k in 0..amount {
        let Some(&(c, mv)) = moves.len().checked_sub(k + 1).map(|i| &moves[i]) else {
            break;
        };
        let expected = if k % 2 == 0 { opp } else { pla };
        if c != expected {
            break;
        }
        included = k + 1;
        match mv {
            Move::Pass => f.global[k] = 1.0,
            Move::Place(p) => f.set(9 + k, p),
        }
    }

    // 14-17: ladders now, one and two moves ago.
    let now = LadderBoard::from_board(board);
    let mut ladder_now = Vec::new();
    let mut starts = Vec::new();
    now.clone().iter_ladders(|stone, libs, working| {
        ladder_now.push(stone);
        if now.color(stone) == Some(opp) && libs > 1 {
            starts.extend_from_slice(working);
        }
    });
    for p in ladder_now {
        f.set(14, Point(p as u16));
    }
    for p in starts {
        f.set(17, Point(p as u16));
    }
    let (prev1, prev2) = recent_boards(game, included);
    for (plane, b) in [(15, &prev1), (16, &prev2)] {
        let mut marked = Vec::new();
        b.clone().iter_ladders(|stone, _, _| marked.push(stone));
        for p in marked {
            f.set(plane, Point(p as u16));
        }
    }

    // Globals.
    let area_points = (n * n) as f32;
    let white_komi = if rules.handicap_from_opening_moves {
        (game.komi() + opening_handicap(game) as f64) as f32
    } else {
        game.total_komi() as f32
    };
    let mut self_komi = if pla == Color::White {
        white_komi
    } else {
        -white_komi
    };
    self_komi = self_komi.clamp(-area_points - 20.0, area_points + 20.0);
    f.global[5] = self_komi / 20.0;
    match rules.ko {
        KoRule::Simple => {}
        KoRule::Positional => {
            f.global[6] = 1.0;
            f.global[7] = 0.5;
        }
        KoRule::Situational => {
            f.global[6] = 1.0;
            f.global[7] = -0.5;
        }
    }
    if rules.multi_stone_suicide {
        f.global[8] = 1.0;
    }
    let suppressed = h.pass_would_end_phase && h.friendly_pass_suppresses;
    if h.pass_would_end_phase && !suppressed {
        f.global[14] = 1.0;
    }
    f.global[18] = komi_wave(self_komi, n * n);
    f
}

/// Handicap stones as KataGo's GTP infers them: Black's set-up stones (none if White
/// has any) plus Black's opening moves, up to White's first move that is not a lone
/// pass (two White moves in a row: none at all); fewer than two is no handicap.
fn opening_handicap(game: &Game) -> usize {
    if game.setup().iter().any(|&(c, _)| c == Color::White) {
        return 0;
    }
    let moves = game.moves();
    let mut opening = 0;
    for (i, &(color, mv)) in moves.iter().enumerate() {
        if color != Color::Black {
            if moves.get(i + 1).is_some_and(|&(c, _)| c != Color::Black) {
                opening = 0;
                break;
            }
            if mv == Move::Pass {
                continue;
            }
            break;
        }
        if mv != Move::Pass {
            opening += 1;
        }
    }
    let total = game.setup().len() + opening;
    if total <= 1 {
        0
    } else {
        total
    }
}

/// KataGo's triangle wave of the komi against the nearest komi that allows a draw.
fn komi_wave(self_komi: f32, area: usize) -> f32 {
    let floor = if area.is_multiple_of(2) {
        (self_komi / 2.0).floor() * 2.0
    } else {
        ((self_komi - 1.0) / 2.0).floor() * 2.0 + 1.0
    };
    let delta = (self_komi - floor).clamp(0.0, 2.0);
    if delta < 0.5 {
        delta
    } else if delta < 1.5 {
        1.0 - delta
    } else {
        delta - 2.0
    }
}

/// What KataGo's BoardHistory knows about passes and the end of the game.
struct PassState {
    /// Moves of this phase KataGo would show (capped at 1 after a finished game).
    valid_turns: usize,
    /// The game ended (two passes, a repeated pass under simple ko, or a no-result cycle)
    /// with the last move.
    finished: bool,
    /// A pass now would end the game.
    pass_would_end_phase: bool,
    /// ... but it is a friendly pass that KataGo does not let end the game.
    friendly_pass_suppresses: bool,
}

fn pass_state(game: &Game, rules: InputRules) -> PassState {
    let hashes: Vec<u64> = game.position_hashes().collect();
    // Simple ko: a pass in a position where the same player passed before ends the game,
    // and passes clear the repetition history (KataGo's spight-like ending).
    let spight = rules.ko == KoRule::Simple;
    let mut passes_before: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
    let mut ko_history: HashMap<(u64, Color), u32> = HashMap::new();
    ko_history.insert((hashes[0], game.first_to_move()), 1);
    let mut ending_passes = 0;
    let mut valid = 0usize;
    let mut finished = false;
    for (i, &(c, mv)) in game.moves().iter().enumerate() {
        if finished {
            valid = valid.min(1);
        }
        finished = false;
        let before = hashes[i];
        let mut spight_end = false;
        if mv == Move::Pass {
            if spight {
                ko_history.clear();
            }
            ending_passes += 1;
            spight_end = spight && passes_before[c.index()].contains(&before);
            passes_before[c.index()].push(before);
        } else {
            ending_passes = 0;
        }
        let after = (hashes[i + 1], c.opponent());
        let seen = ko_history.entry(after).or_insert(0);
        *seen += 1;
        let seen = *seen;
        valid += 1;
        if ending_passes >= 2 || spight_end {
            finished = true;
        }
        // Long cycles under simple ko end the game without a result.
        if mv != Move::Pass && spight && seen >= 3 {
            finished = true;
        }
    }
    let pla = game.to_move();
    let now = *hashes.last().expect("the starting position");
    let spight_now = spight && passes_before[pla.index()].contains(&now);
    let pass_would_end_phase = ending_passes + 1 >= 2 || spight_now;
    PassState {
        valid_turns: valid,
        finished,
        pass_would_end_phase,
        friendly_pass_suppresses: rules.friendly_pass_ok && ending_passes + 1 == 2 && !spight_now,
    }
}

/// The boards one and two moves ago as far as the history shown reaches (the current
/// board otherwise), rebuilt from the set-up and the moves.
fn recent_boards(game: &Game, included: usize) -> (LadderBoard, LadderBoard) {
    let now = LadderBoard::from_board(game.board());
    if included == 0 {
        return (now.clone(), now);
    }
    let moves = game.moves();
    let mut b = Board::new(game.size()).expect("a valid size");
    for &(c, p) in game.setup() {
        b.set_stone(c, p);
    }
    let mut one = None;
    let mut two = None;
    for (i, &(c, mv)) in moves.iter().enumerate() {
        if i + 2 == moves.len() {
            two = Some(LadderBoard::from_board(&b));
        }
        if i + 1 == moves.len() {
            one = Some(LadderBoard::from_board(&b));
        }
        match mv {
            Move::Pass => b.pass(),
            Move::Place(p) => {
                b.place(c, p);
            }
        }
    }
    let one = one.unwrap_or_else(|| now.clone());
    let two = if included >= 2 {
        two.unwrap_or_else(|| one.clone())
    } else {
        one.clone()
    };
    (one, two)
}

// ---------------------------------------------------------------------------------------
// Area: KataGo's `calculateArea` (Benson's pass-alive chains and territory, then every
// other stone and every empty region bordered by one colour only).

/// The owner of each point (indexed by padded point), `None` for dame.
pub fn area(board: &Board, multi_stone_suicide: bool) -> Vec<Option<Color>> {
    let mut result = pass_alive(board, multi_stone_suicide);
    for p in board.points() {
        if result[p.index()].is_none() {
            result[p.index()] = board.get(p);
        }
    }
    result
}

/// Benson's pass-alive chains and the territory they make, by colour (indexed by padded
/// point), `None` elsewhere: what no sequence of moves can take away.
pub fn pass_alive(board: &Board, multi_stone_suicide: bool) -> Vec<Option<Color>> {
    let cells: Vec<Cell> = (0..NUM_CELLS)
        .map(|i| board.cell(Point(i as u16)))
        .collect();
    let mut result = vec![None; NUM_CELLS];
    for pla in Color::BOTH {
        area_for(board, &cells, pla, multi_stone_suicide, &mut result);
    }
    result
}

fn area_for(
    board: &Board,
    cells: &[Cell],
    pla: Color,
    multi_stone_suicide: bool,
    result: &mut [Option<Color>],
) {
    let me = Cell::from(pla);
    let them = Cell::from(pla.opponent());
    let head = |p: usize| board.chain_id(Point(p as u16)).expect("a stone").index();
    let adjacent_to_head = |p: usize, h: usize| {
        Point(p as u16)
            .neighbors()
            .iter()
            .any(|n| cells[n.index()] == me && head(n.index()) == h)
    };

    // Regions: maximal connected sets of empty or opponent points holding an empty point,
    // seeded in KataGo's scan order (top row first).
    let mut region_of = vec![usize::MAX; NUM_CELLS];
    struct Region {
        points: Vec<usize>,
        vital_for: Vec<usize>,
        internal: u8,
        contains_opp: bool,
        borders_dead: bool,
    }
    let mut regions: Vec<Region> = Vec::new();
    let n = board.size();
    let mut at_least_one = false;
    for row in (0..n).rev() {
        for col in 0..n {
            let p = Point::from_coord(col, row).index();
            if region_of[p] != usize::MAX {
                continue;
            }
            if cells[p] != Cell::Empty {
                at_least_one |= cells[p] == me;
                continue;
            }
            let idx = regions.len();
            let mut vital: Vec<usize> = Vec::new();
            for q in Point(p as u16).neighbors() {
                if cells[q.index()] == me {
                    let h = head(q.index());
                    if !vital.contains(&h) {
                        vital.push(h);
                    }
                }
            }
            let mut region = Region {
                points: Vec::new(),
                vital_for: vital,
                internal: 0,
                contains_opp: false,
                borders_dead: false,
            };
            let mut queue = vec![p];
            region_of[p] = idx;
            let mut qi = 0;
            while qi < queue.len() {
                let q = queue[qi];
                qi += 1;
                if multi_stone_suicide || cells[q] == Cell::Empty {
                    region.vital_for.retain(|&h| adjacent_to_head(q, h));
                }
                let touches_me = Point(q as u16)
                    .neighbors()
                    .iter()
                    .any(|m| cells[m.index()] == me);
                if region.internal < 2 && !touches_me {
                    region.internal += 1;
                }
                if cells[q] == them {
                    region.contains_opp = true;
                }
                region.points.push(q);
                for m in Point(q as u16).neighbors() {
                    let m = m.index();
                    if (cells[m] == Cell::Empty || cells[m] == them) && region_of[m] == usize::MAX {
                        region_of[m] = idx;
                        queue.push(m);
                    }
                }
            }
            regions.push(region);
        }
    }

    // Benson: chains with fewer than two vital regions die, and the regions they border
    // stop counting as vital for anyone, until nothing more dies.
    let mut heads: Vec<usize> = Vec::new();
    for p in board.points() {
        if cells[p.index()] == me && head(p.index()) == p.index() {
            heads.push(p.index());
        }
    }
    let mut vital_count: HashMap<usize, i32> = heads.iter().map(|&h| (h, 0)).collect();
    for r in &regions {
        for h in &r.vital_for {
            *vital_count.get_mut(h).expect("a chain head") += 1;
        }
    }
    let mut killed = vec![false; heads.len()];
    loop {
        let mut any = false;
        for (i, &h) in heads.iter().enumerate() {
            if killed[i] || vital_count[&h] >= 2 {
                continue;
            }
            killed[i] = true;
            any = true;
            for s in board.chain(Point(h as u16)) {
                for m in s.neighbors() {
                    let m = m.index();
                    let r = region_of[m];
                    if r != usize::MAX
                        && !regions[r].borders_dead
                        && (cells[m] == Cell::Empty || cells[m] == them)
                    {
                        regions[r].borders_dead = true;
                        for v in regions[r].vital_for.clone() {
                            *vital_count.get_mut(&v).expect("a chain head") -= 1;
                        }
                    }
                }
            }
        }
        if !any {
            break;
        }
    }
    for (i, &h) in heads.iter().enumerate() {
        if !killed[i] {
            for s in board.chain(Point(h as u16)) {
                result[s.index()] = Some(pla);
            }
        }
    }
    for r in &regions {
        let alive_border = !r.borders_dead && at_least_one;
        // Pass-alive territory (at most one point away from the chains), or a big region
        // without opponent stones, both bordered by pass-alive chains only.
        if alive_border && (r.internal <= 1 || !r.contains_opp) {
            for &p in &r.points {
                result[p] = Some(pla);
            }
        } else if !r.contains_opp && at_least_one {
            for &p in &r.points {
                if result[p].is_none() {
                    result[p] = Some(pla);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Ladders: KataGo's `iterLadders`, `searchIsLadderCaptured` and
// `searchIsLadderCapturedAttackerFirst2Libs`, on a small board of its own (cells and
// KataGo's simple-ko point, chains found by flood fill).

const EMPTY: u8 = 0;
const BORDER: u8 = 3;
/// KataGo's bound on the nodes of one ladder search; past it the ladder is taken as failing.
const LADDER_BUDGET: usize = 25_000;
const DIRS: [isize; 4] = [-(STRIDE as isize), -1, 1, STRIDE as isize];

#[derive(Clone)]
struct LadderBoard {
    cells: Vec<u8>,
    size: usize,
    /// KataGo's `ko_loc`: the point no one may play next (0 for none).
    ko: usize,
}

impl LadderBoard {
    fn from_board(board: &Board) -> LadderBoard {
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

    fn color(&self, p: usize) -> Option<Color> {
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
    fn iter_ladders(&mut self, mut found: impl FnMut(usize, usize, &[usize])) {
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
