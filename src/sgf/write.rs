//! A record written back as standard FF[4] SGF: the root's properties, then the main
//! line a few nodes per line, values escaped, nothing that does not fit the board. Knows
//! nothing of boards, legality or games, nor of how a text is read.

use std::fmt::Write as _;

use super::{clean_simple_text, sgf_coord, SgfMove, SgfNode, SgfPoint, SgfRecord, MAX_SIZE};
use crate::board::Color;

/// Number of nodes written per line after the root line.
const NODES_PER_LINE: usize = 16;

/// Writes `rec` as standard FF[4] SGF: root properties on the first line, then the move
/// nodes a few per line. Passes are written `[]`, never `tt`. The text contains no empty
/// line and no trailing newline, so it can be sent as a GTP response as is.
/// Points and moves that do not fit the board are left out (a record from
/// [`parse_record`](super::parse_record) has none).
pub fn write_record(rec: &SgfRecord) -> String {
    let size = rec.size;
    let mut out = String::new();
    let _ = write!(
        out,
        "(;FF[4]GM[1]CA[UTF-8]AP[Tengen:{}]SZ[{}]",
        env!("CARGO_PKG_VERSION"),
        size
    );
    if let Some(k) = rec.komi.filter(|k| k.is_finite()) {
        let _ = write!(out, "KM[{k}]");
    }
    if let Some(r) = &rec.rules {
        let r = clean_simple_text(r);
        if !r.is_empty() {
            let _ = write!(out, "RU[{}]", escape(&r));
        }
    }
    if let Some(h) = rec.handicap.filter(|&h| h >= 2) {
        let _ = write!(out, "HA[{h}]");
    }
    write_extra(&mut out, &rec.info);
    for (i, node) in rec.nodes.iter().enumerate() {
        if i > 0 {
            if i % NODES_PER_LINE == 1 {
                out.push('\n');
            }
            out.push(';');
        }
        out.push_str(&node_properties(node, size));
    }
    out.push(')');
    out
}

/// The properties of one node as [`write_record`] writes them (without the `;`), for
/// writers that build a game tree with variations.
pub fn node_properties(node: &SgfNode, size: usize) -> String {
    let mut out = String::new();
    write_points(&mut out, "AB", &node.add_black, size);
    write_points(&mut out, "AW", &node.add_white, size);
    write_points(&mut out, "AE", &node.add_empty, size);
    if let Some(c) = node.player {
        let _ = write!(out, "PL[{}]", color_letter(c));
    }
    let value = match node.mv {
        Some((c, SgfMove::Pass)) => Some((c, String::new())),
        Some((c, SgfMove::Play(p))) => to_sgf(p, size).map(|v| (c, v)),
        None => None,
    };
    if let Some((c, v)) = value {
        let _ = write!(out, "{}[{}]", color_letter(c), v);
    }
    write_extra(&mut out, &node.extra);
    out
}

/// Writes properties whose names are upper-case letters; values are escaped and kept on
/// one line (so the text stays free of empty lines), anything else is left out.
fn write_extra(out: &mut String, props: &[(String, String)]) {
    for (name, value) in props {
        if name.is_empty() || !name.bytes().all(|b| b.is_ascii_uppercase()) {
            continue;
        }
        let value = clean_simple_text(value);
        let _ = write!(out, "{name}[{}]", escape(&value));
    }
}

fn color_letter(c: Color) -> char {
    match c {
        Color::Black => 'B',
        Color::White => 'W',
    }
}

fn to_sgf(p: SgfPoint, size: usize) -> Option<String> {
    let (col, row) = (usize::from(p.col), usize::from(p.row));
    if col >= size || row >= size || size > MAX_SIZE {
        return None;
    }
    Some(sgf_coord(p.col, (size - 1 - row) as u8))
}

fn write_points(out: &mut String, prop: &str, points: &[SgfPoint], size: usize) {
    let values: Vec<String> = points.iter().filter_map(|&p| to_sgf(p, size)).collect();
    if values.is_empty() {
        return;
    }
    out.push_str(prop);
    for v in values {
        let _ = write!(out, "[{v}]");
    }
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == ']' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::parse_record;
    use crate::sgf::tests::{play, pt};

    fn sample_record() -> SgfRecord {
        SgfRecord {
            size: 13,
            komi: Some(6.5),
            handicap: Some(2),
            rules: Some("Chinese [area] \\ test".to_string()),
            nodes: vec![
                SgfNode {
                    add_black: vec![pt(3, 3), pt(9, 9)],
                    add_white: vec![pt(0, 0)],
                    add_empty: vec![],
                    player: Some(Color::White),
                    mv: None,
                    extra: vec![],
                },
                SgfNode {
                    mv: Some(play(Color::White, 0, 12)),
                    ..SgfNode::default()
                },
                SgfNode {
                    mv: Some((Color::Black, SgfMove::Pass)),
                    ..SgfNode::default()
                },
                SgfNode {
                    add_empty: vec![pt(0, 0)],
                    add_white: vec![pt(12, 12)],
                    player: Some(Color::Black),
                    ..SgfNode::default()
                },
                SgfNode {
                    mv: Some(play(Color::Black, 12, 0)),
                    ..SgfNode::default()
                },
            ],
            info: vec![],
        }
    }

    #[test]
    fn write_exact_text() {
        let text = write_record(&sample_record());
        let expected = format!(
            "(;FF[4]GM[1]CA[UTF-8]AP[Tengen:{}]SZ[13]KM[6.5]RU[Chinese [area\\] \\\\ test]HA[2]\
             AB[dj][jd]AW[am]PL[W]\n;W[aa];B[];AW[ma]AE[am]PL[B];B[mm])",
            env!("CARGO_PKG_VERSION")
        );
        assert_eq!(text, expected);
    }

    #[test]
    fn round_trip() {
        let rec = sample_record();
        assert_eq!(parse_record(&write_record(&rec)), Ok(rec));
        let minimal = SgfRecord {
            size: 9,
            komi: None,
            handicap: None,
            rules: None,
            nodes: vec![SgfNode::default()],
            info: vec![],
        };
        let text = write_record(&minimal);
        assert!(!text.contains("KM") && !text.contains("HA") && !text.contains("RU"));
        assert_eq!(parse_record(&text), Ok(minimal));
        // HA below 2 is not written.
        let mut ha1 = sample_record();
        ha1.handicap = Some(1);
        assert!(!write_record(&ha1).contains("HA["));
    }

    /// A long game spreads over several lines, none of them empty, and the text is strict,
    /// standard FF[4] that any SGF reader (sgfmill, GoGui, ...) accepts: sgf-parse in strict
    /// mode with FF[3] name conversion off, and every node passes its FF[4] validation.
    #[test]
    fn written_text_is_standard_sgf_without_empty_lines() {
        let mut rec = sample_record();
        for i in 0..200u32 {
            let c = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let mv = if i % 7 == 0 {
                SgfMove::Pass
            } else {
                SgfMove::Play(pt((i % 13) as u8, (i / 13 % 13) as u8))
            };
            rec.nodes.push(SgfNode {
                mv: Some((c, mv)),
                ..SgfNode::default()
            });
        }
        let text = write_record(&rec);
        assert!(text.lines().count() > 5);
        assert!(text.lines().all(|l| !l.trim().is_empty()));
        assert!(!text.ends_with('\n'));
        assert!(!text.contains("tt"));
        assert!(text.starts_with("(;FF[4]GM[1]"));
        let options = sgf_parse::ParseOptions {
            convert_mixed_case_identifiers: false,
            lenient: false,
        };
        let trees = sgf_parse::parse_with_options(&text, &options).unwrap();
        assert_eq!(trees.len(), 1);
        let root = trees[0].as_go_node().unwrap();
        let mut count = 0;
        for node in root.main_variation() {
            node.validate().unwrap();
            count += 1;
        }
        assert_eq!(count, rec.nodes.len());
        assert_eq!(parse_record(&text), Ok(rec));
    }

    #[test]
    fn writer_skips_what_does_not_fit_and_cleans_text() {
        let rec = SgfRecord {
            size: 9,
            komi: Some(f64::NAN),
            handicap: None,
            rules: Some("line one\n\nline two".to_string()),
            nodes: vec![
                SgfNode {
                    add_black: vec![pt(9, 0), pt(1, 1)],
                    ..SgfNode::default()
                },
                SgfNode {
                    mv: Some(play(Color::Black, 0, 20)),
                    ..SgfNode::default()
                },
            ],
            info: vec![],
        };
        let text = write_record(&rec);
        assert!(!text.contains("KM"));
        assert!(text.contains("RU[line one  line two]"), "{text}");
        assert!(
            text.contains("AB[bh]") && !text.contains("AB[bh]["),
            "{text}"
        );
        assert!(
            !text.contains("B[]"),
            "an unwritable move is left out, not made a pass"
        );
        assert!(text.lines().all(|l| !l.trim().is_empty()));
    }
}
