//! Dead stones and seki: which chains of a position are dead, alive or in seki, judged
//! from a short search's final ownership and read exactly where playouts go wrong (a
//! sacrifice that kills, a group left in open ground); the judgement of a position kept
//! until it changes. Knows the game and the search; no GTP, no text, no clock.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use crate::board::{Board, Color, Point, NUM_CELLS};
use crate::dead::{
    black_ownership, dead_from_ownership, enclosed_dead, net_dead, read_alive, without_final_passes,
};
use crate::game::Game;
use crate::nn::eval::{CacheKeys, Request};
use crate::nn::features::InputRules;
use crate::nn::Service;
use crate::playout::{self, PlayoutRng};
use crate::search::{Limits, PolicyKind, Search, SearchConfig, HAND_PRIOR_EXPAND_VISITS};

/// A group is dead when its stones end up the opponent's this much on average (ownership
/// in [-1, 1]: 0.4 means captured in about seven simulations out of ten). Tuned on
/// `scripts/score_corpus.py`: 0.3 to 0.5 do about as well, 0.7 loses exact scores.
const DEAD_THRESHOLD: f32 = 0.4;

/// Bound given to the dead-stone search, in MiB: its tree gets 64 MiB
/// ([`crate::search::tree_bytes`]), or less under a smaller `--max-memory`.
const STATUS_MEMORY_MIB: usize = 96;

/// The status of a chain at the end of a game (GTP `final_status_list`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    Alive,
    Dead,
    Seki,
}

/// A judgement of a position: its dead stones (sorted) and the network's ownership they
/// were judged from (Black's, by point index, in [-1, 1]; empty for the playout judge),
/// which the count asks of the empty points both colours reach
/// ([`crate::score::area_owned`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Judgement {
    pub dead: Vec<Point>,
    pub ownership: Vec<f32>,
}

/// What a judgement depends on: the position (hash, size, player to move, moves), the
/// komi and the playouts of the search.
pub type PositionKey = (u64, usize, Color, usize, u64, usize);

/// The key of `game`'s position for a judgement of `playouts` playouts.
pub fn position_key(game: &Game, playouts: usize) -> PositionKey {
    (
        game.board().hash(),
        game.size(),
        game.to_move(),
        game.moves().len(),
        game.komi().to_bits(),
        playouts,
    )
}

/// The dead stones of `game`, sorted, whatever its rules do with them (empty on an empty
/// board); the search cut short when `stop` answers true (an interrupt), judging from
/// the playouts run so far.
///
/// A short search from the position (the player to move, `playouts` playouts, Moggy
/// playouts, its own tree; play resumes as if the passes that ended the game had not
/// been made) gives every point's final ownership. Chains of one colour that share a
/// liberty form a group; a group is dead when its stones end up the opponent's area on
/// average beyond [`DEAD_THRESHOLD`]. Stones of a seki end up nobody's (ownership near
/// 0) and stay on the board; the count then gives their shared liberties to nobody.
/// Chains that a sacrifice kills ([`killed_by_sacrifice`]) are dead, their killers not;
/// only stones inside the opponent's area stay dead ([`enclosed_dead`]), and none that
/// the board reads alive ([`read_alive`]: a seki).
pub fn dead_stones(
    game: &Game,
    config: &SearchConfig,
    playouts: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Point> {
    judgement(game, config, playouts, stop).dead
}

/// [`dead_stones`] as a [`Judgement`], without the search's ownership (see below).
pub fn judgement(
    game: &Game,
    config: &SearchConfig,
    playouts: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Judgement {
    let board = game.board();
    if board.stone_count(Color::Black) + board.stone_count(Color::White) == 0 {
        return Judgement::default();
    }
    let own = search_ownership(game, config, playouts, stop);
    // The board's reading first (a seki stays), then the sacrifices that kill, which it
    // leaves to ko threats it does not see (a bent four in the corner).
    let mut dead = read_alive(
        board,
        &own,
        enclosed_dead(board, dead_from_ownership(board, &own, DEAD_THRESHOLD)),
    );
    let killed = killed_by_sacrifice(board);
    if !killed.is_empty() {
        // The chains that kill keep their stones; the killed ones are dead.
        let killers: Vec<Point> = killed.iter().flat_map(|k| k.1.iter().copied()).collect();
        dead.retain(|p| !killers.contains(p));
        dead.extend(killed.iter().flat_map(|k| k.0.iter().copied()));
        dead.sort_unstable();
        dead.dedup();
    }
    // No ownership for the count: Moggy playouts fill a seki's shared liberty often
    // enough to give it to one side beyond the count's threshold (tests/seki.rs), so the
    // empty points both colours reach stay nobody's under this judge.
    Judgement {
        dead: enclosed_dead(board, dead),
        ownership: Vec::new(),
    }
}

/// The dead stones of `game` by the network's ownership (the mean of its eight symmetries),
/// sorted: groups whose stones the network gives to the opponent beyond
/// [`crate::dead::NET_DEAD_THRESHOLD`] on average, Benson's pass-alive stones certainly alive and the
/// stones inside the opponent's pass-alive area certainly dead, and only stones inside the
/// opponent's area dead ([`enclosed_dead`]). The network sees the position as if the
/// passes that ended the game had not been made.
pub fn net_dead_stones(
    game: &Game,
    service: &Service,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<Point> {
    net_judgement(game, service, stop).0.dead
}

/// [`net_dead_stones`] with the ownership they were judged from, and whether the
/// judgement saw all eight symmetries.
fn net_judgement(
    game: &Game,
    service: &Service,
    stop: &(dyn Fn() -> bool + Sync),
) -> (Judgement, bool) {
    let (ownership, complete) = net_ownership(game, service, stop);
    let dead = net_dead(game.board(), &ownership);
    (Judgement { dead, ownership }, complete)
}

/// Black's ownership of every point (by point index, in [-1, 1]) by the network of `service`, the mean of
/// its eight symmetries (of those evaluated when `stop` answers true between two network
/// blocks; the flag says whether all eight were), with Benson's pass-alive areas set to
/// their owner.
pub fn net_ownership(
    game: &Game,
    service: &Service,
    stop: &(dyn Fn() -> bool + Sync),
) -> (Vec<f32>, bool) {
    let game = &without_final_passes(game);
    let board = game.board();
    let mut eval = service.evaluator(CacheKeys::PerSymmetry);
    let rules = InputRules::from_rules(game.rules());
    let mut sum = vec![0.0f32; board.size() * board.size()];
    let mut done = 0;
    for symmetry in 0..8 {
        let Some(e) = eval
            .evaluate(&[Request::new(game, rules, symmetry)], stop)
            .and_then(|mut e| e.pop())
        else {
            break;
        };
        for (s, w) in sum.iter_mut().zip(&e.white_ownership) {
            *s += w;
        }
        done += 1;
    }
    if done > 0 {
        for s in sum.iter_mut() {
            *s /= done as f32;
        }
    }
    (black_ownership(board, &sum), done == 8)
}

/// The playouts of a [`PositionKey`] that marks the network's judgement.
const NET_JUDGEMENT: usize = usize::MAX;

/// [`dead_stones`] with the last complete judgement kept, so that `final_score` and the
/// `final_status_list` calls after it agree (and do not search again).
#[derive(Debug, Default)]
pub struct Judge {
    last: Mutex<Option<(PositionKey, Judgement)>>,
}

impl Judge {
    /// The network's judgement of `game` ([`net_dead_stones`] and its ownership), the
    /// kept one when it was made for this position by the network; a judgement cut short
    /// by `stop` is not kept.
    pub fn net_judgement(
        &self,
        game: &Game,
        service: &Service,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Judgement {
        let key = position_key(game, NET_JUDGEMENT);
        if let Some(j) = self.kept(&key) {
            return j;
        }
        let (j, complete) = net_judgement(game, service, stop);
        if complete {
            self.keep(key, &j);
        }
        j
    }

    /// The judgement of `game` by a search ([`judgement`]), the kept one when it was made
    /// for this position and playouts; a judgement cut short by `stop` is not kept.
    pub fn judgement(
        &self,
        game: &Game,
        config: &SearchConfig,
        playouts: usize,
        stop: &(dyn Fn() -> bool + Sync),
    ) -> Judgement {
        let key = position_key(game, playouts);
        if let Some(j) = self.kept(&key) {
            return j;
        }
        let stopped = AtomicBool::new(false);
        let watch = || {
            let s = stop();
            if s {
                stopped.store(true, Ordering::Relaxed);
            }
            s
        };
        let j = judgement(game, config, playouts, &watch);
        if !stopped.load(Ordering::Relaxed) {
            self.keep(key, &j);
        }
        j
    }

    /// The kept judgement, when it was made for `key`.
    fn kept(&self, key: &PositionKey) -> Option<Judgement> {
        let last = self.last.lock().ok()?;
        last.as_ref()
            .filter(|(k, _)| k == key)
            .map(|(_, j)| j.clone())
    }

    fn keep(&self, key: PositionKey, j: &Judgement) {
        if let Ok(mut last) = self.last.lock() {
            *last = Some((key, j.clone()));
        }
    }
}

/// Every chain of `board` with its status, given the `dead` stones (sorted): dead as
/// judged; seki when alive with no liberty in its own area and every liberty in a small
/// region (at most two points) shared with the opponent, as the shared liberties of a
/// seki are; alive otherwise (an unsettled chain counts as alive). Chains in board order
/// of their first stone.
pub fn chain_statuses(board: &Board, dead: &[Point]) -> Vec<(Status, Vec<Point>)> {
    let (owner, region_size) = crate::score::regions(board, dead);
    let mut out = Vec::new();
    let mut seen = vec![false; NUM_CELLS];
    for p in board.points() {
        if board.get(p).is_none() || seen[p.index()] {
            continue;
        }
        let chain = board.chain(p);
        for s in &chain {
            seen[s.index()] = true;
        }
        let is_dead = dead.binary_search(&p).is_ok();
        let libs = board.liberties(p);
        let is_seki = !is_dead
            && !libs.is_empty()
            && libs
                .iter()
                .all(|l| owner[l.index()] == 3 && region_size[l.index()] <= 2);
        let status = if is_dead {
            Status::Dead
        } else if is_seki {
            Status::Seki
        } else {
            Status::Alive
        };
        out.push((status, chain));
    }
    out
}

/// How often each point ends up Black's (positive) or White's (negative) in Moggy
/// playouts (which leave a seki alone) from `game`'s position, in [-1, 1], indexed by
/// point index. Seeded from `seed` and the position, so the same position always gives
/// the same answer.
pub fn playout_ownership(game: &Game, seed: u64, playouts: usize) -> Vec<f64> {
    let board = game.board();
    let mut own = vec![0i32; NUM_CELLS];
    let mut rng = PlayoutRng::seed_from_u64(seed ^ board.hash());
    let to_move = game.to_move();
    let mut b = board.clone();
    let mut policy = crate::playout::Moggy::default();
    for _ in 0..playouts {
        b.copy_from(board);
        playout::playout(&mut b, to_move, &mut policy, &mut rng);
        for p in b.points() {
            own[p.index()] += playout::end_owner(&b, p);
        }
    }
    own.into_iter()
        .map(|v| v as f64 / playouts.max(1) as f64)
        .collect()
}

/// Final ownership of every point (+1 Black, -1 White, indexed by point index) from a
/// short search of `playouts` simulations from `game` with the player to move, in a
/// tree of its own, play resumed after any passes. `config` is the game's search
/// configuration (threads, memory, seed); the status search changes what judging needs.
pub fn search_ownership(
    game: &Game,
    config: &SearchConfig,
    playouts: usize,
    stop: &(dyn Fn() -> bool + Sync),
) -> Vec<f32> {
    let mut config = config.clone();
    config.policy = PolicyKind::Moggy;
    config.seki_moves = false;
    // Sacrifices decide the status of a finished group (a nakade, a shared liberty
    // filled to kill): no prior against self-ataris here.
    config.priors.self_atari_one = 0;
    config.priors.self_atari_many = 0;
    // The learned model would count them against as the game records do: this
    // search keeps the hand-written priors (and their expansion threshold).
    config.priors.learned = 0;
    config.expand_visits = HAND_PRIOR_EXPAND_VISITS;
    config.max_memory_mib = config.max_memory_mib.min(STATUS_MEMORY_MIB);
    let seed = config.seed;
    let mut search = Search::new(config);
    let limits = Limits {
        stop,
        ..Limits::playouts(playouts.max(1) as u64)
    };
    // The search wins or loses by the change from the count as it stands (every stone
    // alive): komi makes that count a draw. With the real komi a decided game gives
    // one side nothing to play for, and its random moves wreck a seki; balanced, each
    // side captures the other's dead stones and neither fills a seki's liberty.
    let mut balanced = game.clone();
    let as_is = crate::score::area_difference(balanced.board()) as f64;
    balanced.set_komi(as_is - balanced.compensation());
    let a = search.run_resumed(&balanced, balanced.to_move(), &limits);
    if a.playouts == 0 {
        // No search ran (nothing to choose between): the playouts' view.
        return playout_ownership(game, seed, playouts.min(1000))
            .into_iter()
            .map(|v| v as f32)
            .collect();
    }
    a.ownership
}

/// Chains that a sacrifice kills, with the chain that kills them: a chain A whose only
/// two liberties are exactly those of an opponent chain S next to them, no other stone
/// touching either point. Neither side can fill one without being taken, which looks
/// like a seki; but when S's owner fills one (S then in atari), A's owner must capture
/// and gets S's points as its whole eye space, and if that space is a nakade shape
/// (three points or fewer, or a square, T or corner-bent four) a play inside kills A.
/// Playouts and the status search rarely find that sequence (the real games
/// clock9-abs60 game 15, clock9s3-byo game 19, clock9s4-abs60 game 15), so it is read
/// here exactly.
pub fn killed_by_sacrifice(board: &Board) -> Vec<(Vec<Point>, Vec<Point>)> {
    let mut out = Vec::new();
    let mut seen = vec![false; NUM_CELLS];
    for p in board.points() {
        let Some(color) = board.get(p) else { continue };
        if seen[p.index()] {
            continue;
        }
        let chain = board.chain(p);
        for s in &chain {
            seen[s.index()] = true;
        }
        let libs = board.liberties(p);
        if libs.len() != 2 {
            continue;
        }
        let head = board.chain_id(p);
        // Every stone next to the two liberties: this chain or one opponent chain.
        let mut other: Option<Point> = None;
        let mut clean = true;
        for l in &libs {
            for n in l.neighbors() {
                match board.get(n) {
                    Some(c) if c == color => clean &= board.chain_id(n) == head,
                    Some(_) => {
                        let id = board.chain_id(n);
                        match other {
                            None => other = id,
                            Some(o) => clean &= id == Some(o),
                        }
                    }
                    None => {}
                }
            }
        }
        let Some(s) = other else { continue };
        if !clean || board.liberties(s) != libs {
            continue;
        }
        let s_stones = board.chain(s);
        let kills = libs.iter().any(|&fill| {
            // S fills `fill` (touching S alone among its colour, as checked above).
            let mut space = s_stones.clone();
            space.push(fill);
            board.nakade_shape(&space)
        });
        if kills {
            out.push((chain, s_stones));
        }
    }
    // Both small: whoever fills first wins, so neither is dead as the board stands.
    let killers: Vec<Point> = out.iter().map(|k| k.1[0]).collect();
    out.retain(|k| !k.0.iter().any(|p| killers.contains(p)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_stones_inside_the_opponents_area_are_dead() {
        // A white stone at A1 inside Black's corner (A2, B2, B1): dead. A black stone in
        // open ground at E5: stays, though judged dead.
        let mut b = Board::new(9).unwrap();
        let p = |c, r| Point::from_coord(c, r);
        for q in [p(0, 1), p(1, 1), p(1, 0), p(4, 4)] {
            b.place(Color::Black, q);
        }
        b.place(Color::White, p(0, 0));
        b.place(Color::White, p(6, 6));
        assert_eq!(enclosed_dead(&b, vec![p(0, 0), p(4, 4)]), vec![p(0, 0)]);
    }

    #[test]
    fn groups_share_liberties_and_near_zero_ownership_stays_alive() {
        // Two black chains (B1, C2) sharing the liberties C1 and B2: one group. A white
        // stone at E5.
        let mut b = Board::new(9).unwrap();
        let (b1, c2, e5) = (
            Point::from_coord(1, 0),
            Point::from_coord(2, 1),
            Point::from_coord(4, 4),
        );
        b.place(Color::Black, b1);
        b.place(Color::Black, c2);
        b.place(Color::White, e5);
        let mut own = vec![0f32; NUM_CELLS];
        // The group's mean is (-0.9 - 0.1) / 2 = -0.5: dead together, though C2 alone
        // would not be.
        own[b1.index()] = -0.9;
        own[c2.index()] = -0.1;
        // Near 0 (a seki, say): stays.
        own[e5.index()] = 0.1;
        assert_eq!(dead_from_ownership(&b, &own, 0.4), vec![b1, c2]);
        own[e5.index()] = 0.9;
        let mut want = vec![b1, c2, e5];
        want.sort_unstable();
        assert_eq!(dead_from_ownership(&b, &own, 0.4), want);
    }
}
