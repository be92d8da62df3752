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
//!
//! The area planes come from Benson's pass-alive area (`board::benson`), the ladder planes
//! from KataGo's ladder search (`ladder`).

use std::collections::HashMap;

use super::ladder::LadderBoard;
use crate::board::{Board, Color, Move, Point};
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
    let area = crate::board::benson::area(
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
