//! Dead stones from an ownership map: groups given to the opponent, kept only inside the
//! opponent's area, and the count with them taken off. Below `status` and `search`, which
//! both judge with it.

use crate::board::{Board, Color, Point, NUM_CELLS};
use crate::game::Game;
use crate::nn::features::{self, Features};
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
    let certain = features::pass_alive(board, false);
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
/// given to the opponent beyond [`NET_DEAD_THRESHOLD`], only inside the opponent's area.
pub fn net_dead(board: &Board, own: &[f32]) -> Vec<Point> {
    enclosed_dead(board, dead_from_ownership(board, own, NET_DEAD_THRESHOLD))
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
    let mut sum = vec![0f32; NUM_CELLS];
    let mut count = vec![0u32; NUM_CELLS];
    let mut group = vec![usize::MAX; NUM_CELLS];
    for p in board.points() {
        let Some(c) = board.get(p) else { continue };
        let Some(head) = board.chain_id(p) else {
            continue;
        };
        let g = find(&mut parent, head.index());
        group[p.index()] = g;
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
