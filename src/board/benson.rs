//! Benson's pass-alive chains and the area they make (KataGo's `calculateArea`): what no
//! sequence of moves can take from a colour, then every other stone and every empty region
//! bordered by one colour only. The network's area inputs (`nn::features`), the dead-stone
//! judgement (`dead`) and the fake network of the tests read it. Knows the board only.

use std::collections::HashMap;

use super::{Board, Cell, Color, Point, NUM_CELLS};

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
