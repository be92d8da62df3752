//! From sgf-parse's tree to a record: the root's size, komi, handicap, rules and game
//! information, then the main line's nodes (moves, set-up stones, player to move), every
//! point checked against the board size, with the leniency real files need (FF[3] passes,
//! GTP-style moves, comma komi, two moves in one node). Knows nothing of boards, legality
//! or games, and nothing of the text's scanning or limits (`scan.rs`).

use std::collections::HashSet;

use sgf_parse::go::{Move as GoMove, Point as GoPoint, Prop};
use sgf_parse::SgfNode as ParsedNode;

use super::{
    clean_simple_text, sgf_coord, SgfError, SgfMove, SgfNode, SgfPoint, SgfRecord, DEFAULT_SIZE,
    MAX_SIZE, MIN_SIZE,
};
use crate::board::Color;

/// `keep`: read the main line only until this many moves (see [`parse_record_before`](super::parse_record_before)).
pub(super) fn convert(root: &ParsedNode<Prop>, keep: Option<usize>) -> Result<SgfRecord, SgfError> {
    // sgf-parse decides the game type from an upper-case "GM" only; "GaMe[2]" slips through.
    if root
        .properties()
        .any(|p| matches!(p, Prop::GM(n) if *n != 1))
    {
        return Err(SgfError::NotGo);
    }
    let size = read_size(root)?;
    let mut rec = SgfRecord {
        size,
        komi: None,
        handicap: None,
        rules: None,
        nodes: Vec::new(),
        info: Vec::new(),
    };
    for prop in root.properties() {
        match prop {
            // A komi outside the range GTP's `komi` accepts (1e308, nan, inf, -1e5) is
            // refused, as `komi` refuses it, rather than put into the game.
            Prop::KM(k) => rec.komi = Some(komi(*k, &format!("{k:e}"))?),
            // FF[3]-era or locale-damaged komi such as "6,5" or " 6.5 ". A value that is
            // no number at all ("six") is ignored, as for other unused properties.
            Prop::Invalid(id, values) if id == "KM" => {
                let text = values.first().map(|v| v.trim()).unwrap_or_default();
                rec.komi = match text.replace(',', ".").parse::<f64>() {
                    Ok(k) => Some(komi(k, text)?),
                    Err(_) => None,
                };
            }
            Prop::HA(h) => rec.handicap = u32::try_from(*h).ok().filter(|&h| h >= 2),
            Prop::RU(r) => {
                let r = clean_simple_text(&r.text);
                rec.rules = (!r.is_empty()).then_some(r);
            }
            // Game information, kept so that a record written back (a review) still
            // says who played, when and with what result.
            Prop::PB(t)
            | Prop::PW(t)
            | Prop::BR(t)
            | Prop::WR(t)
            | Prop::DT(t)
            | Prop::EV(t)
            | Prop::RO(t)
            | Prop::PC(t)
            | Prop::GN(t)
            | Prop::RE(t) => {
                let name = sgf_parse::SgfProp::identifier(prop);
                let value = clean_simple_text(&t.text);
                if !value.is_empty() {
                    rec.info.push((name, value));
                }
            }
            _ => {}
        }
    }
    let mut moves = 0;
    for node in root.main_variation() {
        if keep.is_some_and(|k| moves >= k) && has_move(node) {
            break;
        }
        let before = rec.nodes.len();
        convert_node(node, size, &mut rec.nodes)?;
        moves += rec.nodes[before..]
            .iter()
            .filter(|n| n.mv.is_some())
            .count();
    }
    Ok(rec)
}

/// A komi read from `KM[text]`, if [`crate::limits::komi_ok`] accepts it.
fn komi(k: f64, text: &str) -> Result<f64, SgfError> {
    if crate::limits::komi_ok(k) {
        Ok(k)
    } else {
        let mut value: String = text.chars().take(24).collect();
        if value.len() < text.len() {
            value.push_str("...");
        }
        Err(SgfError::BadProperty {
            prop: "KM".to_string(),
            value,
        })
    }
}

fn read_size(root: &ParsedNode<Prop>) -> Result<usize, SgfError> {
    let mut size = None;
    for prop in root.properties() {
        match prop {
            Prop::SZ((w, h)) => {
                if w != h {
                    return Err(SgfError::BadSize(format!("{w}:{h}")));
                }
                size = Some(usize::from(*w));
            }
            Prop::Invalid(id, values) if id == "SZ" => {
                let value = values.join("][");
                // Tolerate padding such as "SZ[ 19 ]"; anything else is unusable.
                match values.as_slice() {
                    [v] => match v.trim().parse::<usize>() {
                        Ok(n) => size = Some(n),
                        Err(_) => return Err(SgfError::BadSize(value)),
                    },
                    _ => return Err(SgfError::BadSize(value)),
                }
            }
            _ => {}
        }
    }
    let size = size.unwrap_or(DEFAULT_SIZE);
    if (MIN_SIZE..=MAX_SIZE).contains(&size) {
        Ok(size)
    } else {
        Err(SgfError::BadSize(size.to_string()))
    }
}

/// Whether a parsed node holds a move (`B` or `W`, well-formed or not).
fn has_move(node: &ParsedNode<Prop>) -> bool {
    node.properties().any(|p| match p {
        Prop::B(_) | Prop::W(_) => true,
        Prop::Invalid(id, _) => id == "B" || id == "W",
        _ => false,
    })
}

/// Converts one parsed node and appends it to `nodes`. A node holding both a black and a
/// white move (GNU Go's games/buzco1.sgf ends in "B[tt]W[tt]") is not FF[4], but its
/// meaning is plain: it becomes two nodes, moves in the order written.
fn convert_node(
    node: &ParsedNode<Prop>,
    size: usize,
    nodes: &mut Vec<SgfNode>,
) -> Result<(), SgfError> {
    let mut out = SgfNode::default();
    let mut moves: Vec<(Color, SgfMove)> = Vec::new();
    let (mut black, mut white, mut empty) = (HashSet::new(), HashSet::new(), HashSet::new());
    for prop in node.properties() {
        match prop {
            Prop::B(m) => moves.push((Color::Black, sgf_move("B", m, size)?)),
            Prop::W(m) => moves.push((Color::White, sgf_move("W", m, size)?)),
            Prop::AB(points) => add_points(&mut black, "AB", points, size)?,
            Prop::AW(points) => add_points(&mut white, "AW", points, size)?,
            Prop::AE(points) => add_points(&mut empty, "AE", points, size)?,
            Prop::PL(c) => out.player = Some(color(*c)),
            Prop::Invalid(id, values) => match id.as_str() {
                "B" | "W" => {
                    let c = if id == "B" {
                        Color::Black
                    } else {
                        Color::White
                    };
                    let mv = human_move(values, size).ok_or_else(|| SgfError::BadProperty {
                        prop: id.clone(),
                        value: values.join("]["),
                    })?;
                    moves.push((c, mv));
                }
                // An empty list ("AB[]") is not FF[4] but means "no stones".
                "AB" | "AW" | "AE" if values.iter().all(|v| v.trim().is_empty()) => {}
                "AB" | "AW" | "AE" => {
                    return Err(SgfError::BadProperty {
                        prop: id.clone(),
                        value: values.join("]["),
                    })
                }
                // Lenient PL: "b", "black", "White"...
                "PL" => {
                    out.player = match values.first().and_then(|v| v.trim().chars().next()) {
                        Some('b' | 'B') => Some(Color::Black),
                        Some('w' | 'W') => Some(Color::White),
                        _ => None,
                    }
                }
                _ => {}
            },
            _ => {}
        }
    }
    out.add_black = sorted(black);
    out.add_white = sorted(white);
    out.add_empty = sorted(empty);
    // A property repeated verbatim ("B[dd]B[dd]") is one move.
    moves.dedup();
    let mut moves = moves.into_iter();
    out.mv = moves.next();
    nodes.push(out);
    for mv in moves {
        nodes.push(SgfNode {
            mv: Some(mv),
            ..SgfNode::default()
        });
    }
    Ok(())
}

fn color(c: sgf_parse::Color) -> Color {
    match c {
        sgf_parse::Color::Black => Color::Black,
        sgf_parse::Color::White => Color::White,
    }
}

fn sorted(set: HashSet<SgfPoint>) -> Vec<SgfPoint> {
    let mut v: Vec<SgfPoint> = set.into_iter().collect();
    v.sort_unstable();
    v
}

fn sgf_move(prop: &str, m: &GoMove, size: usize) -> Result<SgfMove, SgfError> {
    match m {
        GoMove::Pass => Ok(SgfMove::Pass),
        // FF[3] wrote passes as "tt"; on boards up to 19x19 that is not a point.
        GoMove::Move(GoPoint { x: 19, y: 19 }) if size <= 19 => Ok(SgfMove::Pass),
        GoMove::Move(p) => Ok(SgfMove::Play(point(prop, p, size)?)),
    }
}

fn point(prop: &str, p: &GoPoint, size: usize) -> Result<SgfPoint, SgfError> {
    let (x, y) = (usize::from(p.x), usize::from(p.y));
    if x >= size || y >= size {
        return Err(SgfError::OffBoard {
            prop: prop.to_string(),
            value: sgf_coord(p.x, p.y),
            size,
        });
    }
    // Both < size <= 25, so the casts are lossless.
    Ok(SgfPoint {
        col: x as u8,
        row: (size - 1 - y) as u8,
    })
}

fn add_points(
    into: &mut HashSet<SgfPoint>,
    prop: &str,
    points: &HashSet<GoPoint>,
    size: usize,
) -> Result<(), SgfError> {
    for p in points {
        into.insert(point(prop, p, size)?);
    }
    Ok(())
}

/// GoGui and some other tools write moves in GTP form: `B[R16]`, `W[Pass]`. Such a value
/// can never be mistaken for an SGF point (those are two letters), so accept it.
fn human_move(values: &[String], size: usize) -> Option<SgfMove> {
    let [value] = values else { return None };
    let value = value.trim();
    if value.eq_ignore_ascii_case("pass") {
        return Some(SgfMove::Pass);
    }
    let mut chars = value.chars();
    let letter = chars.next()?.to_ascii_uppercase();
    if !letter.is_ascii_uppercase() || letter == 'I' {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut col = usize::from(letter as u8 - b'A');
    if letter > 'I' {
        col -= 1;
    }
    let row: usize = digits.parse().ok()?;
    if col >= size || row == 0 || row > size {
        return None;
    }
    Some(SgfMove::Play(SgfPoint {
        col: col as u8,
        row: (row - 1) as u8,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::tests::{moves, play, pt};
    use crate::sgf::{parse_record, write_record};

    #[test]
    fn game_information_is_kept() {
        let rec =
            parse_record("(;GM[1]SZ[9]PB[Black Player]PW[White\nPlayer]RE[B+R]C[root]XX[1];B[ee])")
                .unwrap();
        assert_eq!(
            rec.info,
            vec![
                ("PB".to_string(), "Black Player".to_string()),
                ("PW".to_string(), "White Player".to_string()),
                ("RE".to_string(), "B+R".to_string()),
            ]
        );
        // Written back as read.
        let text = write_record(&rec);
        assert!(
            text.contains("PB[Black Player]PW[White Player]RE[B+R]"),
            "{text}"
        );
    }

    #[test]
    fn coordinates_flip_rows() {
        let rec = parse_record("(;SZ[19];B[aa];W[sa];B[as];W[ss];B[dp])").unwrap();
        assert_eq!(rec.size, 19);
        assert_eq!(
            moves(&rec),
            vec![
                play(Color::Black, 0, 18),  // A19
                play(Color::White, 18, 18), // T19
                play(Color::Black, 0, 0),   // A1
                play(Color::White, 18, 0),  // T1
                play(Color::Black, 3, 3),   // D4
            ]
        );
        let rec = parse_record("(;SZ[9];B[ai];W[ia])").unwrap();
        assert_eq!(
            moves(&rec),
            vec![play(Color::Black, 0, 0), play(Color::White, 8, 8)]
        );
        assert_eq!(rec.nodes.len(), 3, "root plus two move nodes");
        assert_eq!(rec.nodes[0].mv, None);
    }

    #[test]
    fn size_defaults_to_19() {
        let rec = parse_record("(;B[ss])").unwrap();
        assert_eq!(rec.size, 19);
        assert_eq!(moves(&rec), vec![play(Color::Black, 18, 0)]);
        assert_eq!(rec.komi, None);
        assert_eq!(rec.handicap, None);
        assert_eq!(rec.rules, None);
    }

    #[test]
    fn passes() {
        let rec = parse_record("(;SZ[9];B[];W[tt])").unwrap();
        assert_eq!(moves(&rec)[0], (Color::Black, SgfMove::Pass));
        assert_eq!(moves(&rec)[1], (Color::White, SgfMove::Pass));
        // tt is a pass on 19x19 too ...
        let rec = parse_record("(;SZ[19];B[tt])").unwrap();
        assert_eq!(moves(&rec), vec![(Color::Black, SgfMove::Pass)]);
        // ... but a real point on boards larger than 19 (t = column 20, row 20 from top).
        let rec = parse_record("(;SZ[21];B[tt])").unwrap();
        assert_eq!(moves(&rec), vec![play(Color::Black, 19, 1)]);
    }

    #[test]
    fn blank_move_value_is_an_error_not_a_guess() {
        // "B[ ]" is neither a pass nor a point in FF[4]; we do not guess.
        assert!(parse_record("(;SZ[9];B[ ])").is_err());
    }

    #[test]
    fn compressed_point_lists_expand() {
        let rec = parse_record("(;SZ[9]AB[aa:cc]AW[ee][gg:gh]AE[ii])").unwrap();
        let root = &rec.nodes[0];
        let mut expected = Vec::new();
        for col in 0..3 {
            for row in 6..9 {
                expected.push(pt(col, row));
            }
        }
        assert_eq!(root.add_black, expected);
        assert_eq!(root.add_white, vec![pt(4, 4), pt(6, 1), pt(6, 2)]);
        assert_eq!(root.add_empty, vec![pt(8, 0)]);
        // Repeated points collapse.
        let rec = parse_record("(;SZ[9]AB[aa:bb][aa][ab])").unwrap();
        assert_eq!(rec.nodes[0].add_black.len(), 4);
        // A rectangle reaching off the board is refused.
        assert!(matches!(
            parse_record("(;SZ[9]AB[hh:jj])"),
            Err(SgfError::OffBoard { .. })
        ));
    }

    #[test]
    fn handicap_file() {
        let rec = parse_record(include_str!("../../tests/data/sgf/handicap4.sgf")).unwrap();
        assert_eq!(rec.size, 19);
        assert_eq!(rec.handicap, Some(4));
        assert_eq!(rec.komi, Some(0.5));
        assert_eq!(rec.rules.as_deref(), Some("Chinese"));
        let root = &rec.nodes[0];
        assert_eq!(
            root.add_black,
            vec![pt(3, 3), pt(3, 15), pt(15, 3), pt(15, 15)]
        );
        assert!(root.add_white.is_empty());
        assert_eq!(root.player, Some(Color::White));
        assert_eq!(
            moves(&rec),
            vec![
                play(Color::White, 16, 13),
                play(Color::Black, 13, 16),
                (Color::White, SgfMove::Pass),
                (Color::Black, SgfMove::Pass),
            ]
        );
    }

    #[test]
    fn handicap_below_two_means_none() {
        for ha in ["0", "1", "-3", "x"] {
            let rec = parse_record(&format!("(;HA[{ha}])")).unwrap();
            assert_eq!(rec.handicap, None, "HA[{ha}]");
        }
        assert_eq!(parse_record("(;HA[9])").unwrap().handicap, Some(9));
    }

    #[test]
    fn setup_in_a_later_node_and_main_variation() {
        let rec = parse_record(include_str!("../../tests/data/sgf/setup_later.sgf")).unwrap();
        assert_eq!(rec.size, 9);
        assert_eq!(rec.komi, Some(7.0));
        assert_eq!(rec.nodes.len(), 5);
        assert_eq!(rec.nodes[1].mv, Some(play(Color::Black, 4, 4)));
        let setup = &rec.nodes[2];
        assert_eq!(setup.mv, None);
        assert_eq!(
            setup.add_white,
            vec![pt(0, 7), pt(0, 8), pt(1, 7), pt(1, 8)]
        );
        assert_eq!(setup.add_empty, vec![pt(4, 4)]);
        assert_eq!(setup.player, Some(Color::Black));
        // First variation is the main line: B[ff] W[gg], not B[cc].
        assert_eq!(rec.nodes[3].mv, Some(play(Color::Black, 5, 3)));
        assert_eq!(rec.nodes[4].mv, Some(play(Color::White, 6, 2)));
    }

    #[test]
    fn ff3_verbose_names_and_comma_komi() {
        let rec = parse_record(include_str!("../../tests/data/sgf/ff3_verbose.sgf")).unwrap();
        assert_eq!(rec.size, 13);
        assert_eq!(rec.komi, Some(6.5));
        assert_eq!(rec.handicap, None);
        assert_eq!(
            moves(&rec),
            vec![
                play(Color::Black, 0, 12),
                (Color::White, SgfMove::Pass),
                play(Color::Black, 12, 0),
            ]
        );
    }

    #[test]
    fn komi_forms() {
        let km = |v: &str| parse_record(&format!("(;KM[{v}])")).unwrap().komi;
        assert_eq!(km("6.5"), Some(6.5));
        assert_eq!(km("0"), Some(0.0));
        assert_eq!(km("-7.5"), Some(-7.5));
        assert_eq!(km(" 7.5 "), Some(7.5));
        assert_eq!(km("6,5"), Some(6.5));
        assert_eq!(km("six"), None);
        assert_eq!(km(""), None);
        assert_eq!(km("1000"), Some(1000.0));
        assert_eq!(km("-1000,0"), Some(-1000.0));
        assert_eq!(parse_record("(;SZ[9])").unwrap().komi, None);
    }

    /// A komi GTP's `komi` would refuse is refused here too, whatever its form: the
    /// record is an error rather than a game with a 309-digit komi.
    #[test]
    fn komi_out_of_range_refuses_the_record() {
        for v in [
            "1e308", "nan", "NaN", "inf", "-inf", "-1e5", "1000.5", " 1e308 ", "1000,5", "-2000,25",
        ] {
            let r = parse_record(&format!("(;SZ[9]KM[{v}];B[ee])"));
            assert!(
                matches!(&r, Err(SgfError::BadProperty { prop, .. }) if prop == "KM"),
                "KM[{v}]: {r:?}"
            );
        }
        let e = parse_record("(;KM[1e308])").unwrap_err().to_string();
        assert!(e.len() < 80, "{e}");
    }

    #[test]
    fn gtp_style_moves_and_two_moves_in_a_node() {
        let rec = parse_record("(;GM[1]SZ[19];B[R16];W[D4];B[j10];W[Pass])").unwrap();
        assert_eq!(
            moves(&rec),
            vec![
                play(Color::Black, 16, 15),
                play(Color::White, 3, 3),
                play(Color::Black, 8, 9),
                (Color::White, SgfMove::Pass),
            ]
        );
        assert!(parse_record("(;SZ[9];B[I5])").is_err(), "no column I");
        assert!(parse_record("(;SZ[9];B[K5])").is_err(), "K is column 10");
        assert!(parse_record("(;SZ[9];B[A10])").is_err());
        // B and W in one node become two nodes, in written order.
        let rec = parse_record("(;SZ[9];B[aa];B[tt]W[tt])").unwrap();
        assert_eq!(rec.nodes.len(), 4);
        assert_eq!(rec.nodes[2].mv, Some((Color::Black, SgfMove::Pass)));
        assert_eq!(rec.nodes[3].mv, Some((Color::White, SgfMove::Pass)));
    }

    #[test]
    fn damaged_but_readable_files() {
        // BOM and prose before the game, junk after it.
        let rec = parse_record("\u{feff}Game record:\n(;SZ[9];B[ee])\n---\n").unwrap();
        assert_eq!(moves(&rec), vec![play(Color::Black, 4, 4)]);
        // Missing final parenthesis.
        let rec = parse_record("(;SZ[9]AW[aa]PL[B]").unwrap();
        assert_eq!(rec.nodes[0].add_white, vec![pt(0, 8)]);
        // GM twice in the root.
        let rec = parse_record("(;FF[4]GM[1]GM[1]SZ[9];B[ee])").unwrap();
        assert_eq!(rec.size, 9);
        // Empty point list, lenient PL.
        let rec = parse_record("(;SZ[9]AB[]PL[white])").unwrap();
        assert!(rec.nodes[0].add_black.is_empty());
        assert_eq!(rec.nodes[0].player, Some(Color::White));
        // Collections: only the first game counts.
        let rec = parse_record("(;SZ[9];B[aa])(;SZ[13];B[bb])").unwrap();
        assert_eq!(rec.size, 9);
    }

    #[test]
    fn invalid_files() {
        let bad = [
            "",
            "garbage",
            "this is not (an sgf file)",
            "(;",
            "(;\u{1}\u{2}\u{3}",
            "(;SZ[9];B[jj])",       // off-board move
            "(;SZ[9];W[ab];B[zz])", // off-board move later on
            "(;SZ[9]AB[aa][jj])",   // off-board setup
            "(;SZ[9];AE[kk])",      // off-board setup in a later node
            "(;SZ[1])",             // too small
            "(;SZ[0])",
            "(;SZ[30])",    // too large
            "(;SZ[300])",   // too large even for sgf-parse's u8
            "(;SZ[19:13])", // not square
            "(;SZ[nine])",
            "(;GM[2]SZ[8])",      // chess
            "(;GaMe[6])",         // backgammon, verbose name
            "(;SZ[9];B[aa][bb])", // two values for a move
            "(;SZ[9]AB[cc:aa])",  // rectangle corners swapped
        ];
        for text in bad {
            let err = parse_record(text);
            assert!(err.is_err(), "{text:?} parsed as {err:?}");
            assert!(!err.unwrap_err().to_string().is_empty());
        }
        assert_eq!(parse_record("(;GM[2])"), Err(SgfError::NotGo));
        assert!(matches!(
            parse_record("(;SZ[19:13])"),
            Err(SgfError::BadSize(s)) if s == "19:13"
        ));
        assert!(matches!(
            parse_record("(;SZ[9];B[jj])"),
            Err(SgfError::OffBoard { size: 9, .. })
        ));
        // Extremes of the accepted sizes.
        assert_eq!(parse_record("(;SZ[2];B[bb])").unwrap().size, 2);
        let rec = parse_record("(;SZ[25];B[yy])").unwrap();
        assert_eq!(moves(&rec), vec![play(Color::Black, 24, 0)]);
        assert_eq!(parse_record("(;SZ[ 13 ])").unwrap().size, 13);
    }

    #[test]
    fn error_messages_are_readable() {
        let e = parse_record("(;SZ[9];B[jj])").unwrap_err().to_string();
        assert_eq!(e, "B[jj] is off the 9x9 board");
        let e = parse_record("(;SZ[30])").unwrap_err().to_string();
        assert!(e.contains("SZ[30]"), "{e}");
    }
}
