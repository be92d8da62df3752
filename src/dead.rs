//! Dead stones from an ownership map: groups given to the opponent, kept only inside the
//! opponent's area, none that the board reads alive (a seki, read by `life`), and the
//! count with them taken off. Below `status`, which judges with it.

use crate::board::{Board, Color, Point, NUM_CELLS};
use crate::game::Game;
use crate::nn::features::Features;
use crate::score::Score;

/// A group is dead by the network's ownership when its stones are the opponent's this much
/// on average.
pub const NET_DEAD_THRESHOLD: f32 = 0.4;

/// `game` with the passes that ended it taken back: a network shown two passes judges the
/// stones as they stand, every one alive, as a game counted without removing dead stones.
pub fn without_final_passes(game: &Game) -> Game {
    let mut game = game.clone();
    while matches!(game.moves().last(), Some((_, crate::board::Move::Pass))) {
        if !game.undo() {
            break;
        }
    }
    game
}

/// Black's ownership of every point (by point index) from a network's `white_ownership`
/// (in its own layout), with Benson's pass-alive areas set to their owner.
pub fn black_ownership(board: &Board, white_ownership: &[f32]) -> Vec<f32> {
    let mut own = vec![0.0f32; NUM_CELLS];
    let certain = crate::board::benson::pass_alive(board, false);
    for p in board.points() {
        own[p.index()] = match certain[p.index()] {
            Some(Color::Black) => 1.0,
            Some(Color::White) => -1.0,
            None => -white_ownership[Features::pos(board.size(), p)],
        };
    }
    own
}

/// The dead stones by a network's ownership for Black `own` (by point index): groups
/// given to the opponent beyond [`NET_DEAD_THRESHOLD`], only inside the opponent's area,
/// none that the board reads alive ([`read_alive`]).
pub fn net_dead(board: &Board, own: &[f32]) -> Vec<Point> {
    let dead = enclosed_dead(board, dead_from_ownership(board, own, NET_DEAD_THRESHOLD));
    read_alive(board, own, dead)
}

/// `dead` without the stones that the board reads alive: each group of them (chains of
/// one colour joined by shared liberties) whose fight is small enough is played out
/// exactly ([`crate::life::read`]) with the opponent moving first, the chains around it
/// vouched for when Benson's pass-alive, or believed alive by `own` (Black's ownership by
/// point index) with liberties to spare outside the fight. A seki survives that reading,
/// whatever the belief: the board wins, and the log says so at `-v 2`.
pub fn read_alive(board: &Board, own: &[f32], mut dead: Vec<Point>) -> Vec<Point> {
    if dead.is_empty() {
        return dead;
    }
    let certain = crate::board::benson::pass_alive(board, false);
    let group = groups(board);
    let mut done = vec![false; NUM_CELLS];
    let mut alive: Vec<Point> = Vec::new();
    for &p in &dead {
        let g = group[p.index()];
        if g == usize::MAX || done[g] {
            continue;
        }
        done[g] = true;
        let Some(color) = board.get(p) else { continue };
        let members: Vec<Point> = dead
            .iter()
            .copied()
            .filter(|q| group[q.index()] == g)
            .collect();
        let vouched = |b: &Board, head: Point, outside: usize| {
            let Some(c) = b.get(head) else { return false };
            if certain[head.index()] == Some(c) {
                return true;
            }
            let chain = b.chain(head);
            let sign = if c == Color::Black { 1.0 } else { -1.0 };
            let belief = chain
                .iter()
                .map(|q| own.get(q.index()).copied().unwrap_or(0.0) * sign)
                .sum::<f32>()
                / chain.len().max(1) as f32;
            if c == color {
                outside >= 4 && belief >= 0.8
            } else {
                outside >= 3 && belief >= 0.5
            }
        };
        if let Some(reading) = crate::life::read(board, &members, &vouched) {
            if !reading.alive.is_empty() {
                crate::log!(
                    2,
                    "dead stones: the board reads {} alive (a seki or eyes) where the ownership gave {} dead",
                    vertices(&reading.alive),
                    if reading.alive.len() == members.len() { "them" } else { "the group" }
                );
                alive.extend(reading.alive);
            }
        }
    }
    dead.retain(|p| !alive.contains(p));
    dead
}

/// `points` as GTP vertices, for the log.
fn vertices(points: &[Point]) -> String {
    points
        .iter()
        .map(|&p| crate::notation::move_text(crate::board::Move::Place(p)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The count of `game` as it stands, with the dead stones [`net_dead`] finds in one
/// evaluation's `white_ownership` (of `game` without the passes that ended it).
pub fn net_count(game: &Game, white_ownership: &[f32]) -> Score {
    let board = game.board();
    game.score(&net_dead(board, &black_ownership(board, white_ownership)))
}

/// The stones of the groups whose mean ownership (from their own colour's side) is below
/// `-threshold`, sorted. A group: chains of one colour joined when they share a liberty.
pub fn dead_from_ownership(board: &Board, own: &[f32], threshold: f32) -> Vec<Point> {
    let group = groups(board);
    let mut sum = vec![0f32; NUM_CELLS];
    let mut count = vec![0u32; NUM_CELLS];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        let g = group[p.index()];
        if g == usize::MAX {
            continue;
        }
        let sign = if c == Color::Black { 1.0 } else { -1.0 };
        sum[g] += own.get(p.index()).copied().unwrap_or(0.0) * sign;
        count[g] += 1;
    }
    let mut dead: Vec<Point> = board
        .points()
        .filter(|p| {
            let g = group[p.index()];
            g != usize::MAX && sum[g] / (count[g].max(1) as f32) < -threshold
        })
        .collect();
    dead.sort_unstable();
    dead
}

/// The group of every stone (by point index; `usize::MAX` off the stones): chains of one
/// colour joined when they share a liberty.
pub fn groups(board: &Board) -> Vec<usize> {
    // Union-find over chain heads.
    let mut parent: Vec<usize> = (0..NUM_CELLS).collect();
    fn find(parent: &mut [usize], mut i: usize) -> usize {
        while parent[i] != i {
            parent[i] = parent[parent[i]];
            i = parent[i];
        }
        i
    }
    for p in board.points() {
        if board.get(p).is_some() {
            continue;
        }
        for c in [Color::Black, Color::White] {
            let mut first: Option<usize> = None;
            for n in p.neighbors() {
                if board.get(n) != Some(c) {
                    continue;
                }
                let Some(head) = board.chain_id(n) else {
                    continue;
                };
                let h = find(&mut parent, head.index());
                match first {
                    None => first = Some(h),
                    Some(f) if f != h => parent[h] = f,
                    Some(_) => {}
                }
            }
        }
    }
    let mut group = vec![usize::MAX; NUM_CELLS];
    for p in board.points() {
        if board.get(p).is_none() {
            continue;
        }
        if let Some(head) = board.chain_id(p) {
            group[p.index()] = find(&mut parent, head.index());
        }
    }
    group
}

/// Of the stones judged `dead`, those that stand inside the opponent's area: once they
/// are taken off, their region reaches the opponent's stones only, and it is not most of
/// the board. A group the playouts lose in open ground (a position far from finished)
/// stays on the board.
pub fn enclosed_dead(board: &Board, mut dead: Vec<Point>) -> Vec<Point> {
    let (reach, size) = crate::score::regions(board, &dead);
    let half = board.size() * board.size() / 2;
    dead.retain(|&p| {
        let opponent_bit = match board.get(p) {
            Some(Color::Black) => 2,
            _ => 1,
        };
        reach[p.index()] == opponent_bit && size[p.index()] <= half
    });
    dead.sort_unstable();
    dead
}
