//! Game records for every front end (GTP, `match`, `selfplay`, `review`): a [`Game`]
//! built from an SGF record and back. Sits above `game` and `sgf`, below `gtp`.
use crate::board::{Color, Move, Point};
use crate::game::Game;
use crate::sgf::{SgfMove, SgfNode, SgfPoint, SgfRecord};

/// The board point of an SGF point.
pub fn point_of_sgf(p: SgfPoint) -> Point {
    Point::from_coord(p.col as usize, p.row as usize)
}

/// The board move of an SGF move.
pub fn move_of_sgf(m: SgfMove) -> Move {
    match m {
        SgfMove::Pass => Move::Pass,
        SgfMove::Play(p) => Move::Place(point_of_sgf(p)),
    }
}

/// Builds the game a record describes up to (not including) move `before` (1-based; None:
/// the whole main line). Fails on an off-board or occupied move, leaving nothing changed.
pub fn game_from_record(
    rec: &SgfRecord,
    template: &Game,
    before: Option<u32>,
) -> Result<Game, String> {
    let mut game = template.clone();
    if !game.resize(rec.size) {
        return Err(format!("bad size {}", rec.size));
    }
    if let Some(k) = rec.komi {
        game.set_komi(k);
    }
    let pt = point_of_sgf;
    let mut played = 0u32;
    for (i, node) in rec.nodes.iter().enumerate() {
        let has_setup =
            !(node.add_black.is_empty() && node.add_white.is_empty() && node.add_empty.is_empty());
        if has_setup && i == 0 && node.add_empty.is_empty() {
            let black: Vec<Point> = node.add_black.iter().map(|&p| pt(p)).collect();
            let is_handicap = node.add_white.is_empty()
                && black.len() >= 2
                && rec.handicap.is_some_and(|h| h as usize == black.len());
            if !(is_handicap && game.set_handicap(&black).is_ok()) {
                let stones: Vec<(Color, Point)> = black
                    .iter()
                    .map(|&p| (Color::Black, p))
                    .chain(node.add_white.iter().map(|&p| (Color::White, pt(p))))
                    .collect();
                game.set_position(&stones, Color::Black);
            }
        } else if has_setup {
            let add: Vec<(Color, Point)> = node
                .add_black
                .iter()
                .map(|&p| (Color::Black, pt(p)))
                .chain(node.add_white.iter().map(|&p| (Color::White, pt(p))))
                .collect();
            let remove: Vec<Point> = node.add_empty.iter().map(|&p| pt(p)).collect();
            game.setup_here(&add, &remove, node.player);
        }
        if let Some(c) = node.player {
            if game.moves().is_empty() {
                game.set_first_to_move(c);
            }
        }
        if let Some((color, mv)) = node.mv {
            played += 1;
            if before.is_some_and(|n| played >= n) {
                break;
            }
            game.play_record(color, move_of_sgf(mv))
                .map_err(|e| format!("move {played}: {e}"))?;
        }
    }
    Ok(game)
}

/// The game so far as an SGF record.
pub fn record_of(game: &Game) -> SgfRecord {
    let sp = |p: Point| {
        let (col, row) = p.coord();
        SgfPoint {
            col: col as u8,
            row: row as u8,
        }
    };
    let mut root = SgfNode::default();
    for &(c, p) in game.setup() {
        match c {
            Color::Black => root.add_black.push(sp(p)),
            Color::White => root.add_white.push(sp(p)),
        }
    }
    // White moves first after handicap stones; say so only when the game differs.
    let default_first = if game.handicap() >= 2 {
        Color::White
    } else {
        Color::Black
    };
    if game.first_to_move() != default_first {
        root.player = Some(game.first_to_move());
    }
    let mut nodes = vec![root];
    for &(c, m) in game.moves() {
        let mv = match m {
            Move::Pass => SgfMove::Pass,
            Move::Place(p) => SgfMove::Play(sp(p)),
        };
        nodes.push(SgfNode {
            mv: Some((c, mv)),
            ..SgfNode::default()
        });
    }
    SgfRecord {
        size: game.size(),
        komi: Some(game.komi()),
        handicap: (game.handicap() >= 2).then_some(game.handicap() as u32),
        rules: Some(
            match game.rules().name {
                "chinese" => "Chinese",
                other => other,
            }
            .to_string(),
        ),
        nodes,
        info: Vec::new(),
    }
}
