//! The main-line cut: the part of an SGF text that is handed to sgf-parse (the main line
//! of the first game tree, up to the first `)`, or only the nodes before a move asked
//! for), found in one scan in constant memory and refused when over the limits on what is
//! parsed ([`MAX_NODES`]...); sgf-parse's damage handling around it, and its tree taken
//! apart without recursion. Knows nothing of boards, of what the properties mean (that is
//! `convert.rs`) or of files.

use sgf_parse::{GameTree, SgfNode as ParsedNode};

use super::convert::convert;
use super::{SgfError, SgfRecord};

/// Most nodes in the part of a record that is parsed. A game holds at most a few hundred
/// moves (10,000 would already be absurd), so 25,000 leaves room for any setup and
/// comment nodes while bounding what sgf-parse builds (a few hundred bytes per node).
pub const MAX_NODES: usize = 25_000;
/// Most properties in the part of a record that is parsed (eight per node on average at
/// the node limit; a real move node has one to four).
pub const MAX_PROPERTIES: usize = 200_000;
/// Most property values in the part of a record that is parsed, a compressed point list
/// (`AB[aa:ss]`) counting each point it stands for, since sgf-parse expands it.
pub const MAX_VALUES: usize = 500_000;
/// Most bytes in the part of a record that is parsed: sgf-parse holds each value as a
/// list of 4-byte characters while reading it, so a single huge comment costs four times
/// its length. A commented professional game is under 100 KiB.
pub const MAX_PARSED_BYTES: usize = 8 << 20;
/// Largest SGF file read: far above any real record (the biggest joseki and problem
/// collections are a few MiB), far below what would strain memory. Only the main line of
/// the first game is parsed, within the limits above.
pub const MAX_FILE_BYTES: u64 = 32 << 20;

/// [`parse_record`](super::parse_record), keeping the main line only up to the position before move
/// `move_number` (counted from 1, as `loadsgf FILE N` counts): the nodes from the one
/// holding that move on are not read, so damage there (GoGui's `invalidmove.sgf`, an
/// off-board move 3, loaded at move 2) does not refuse the position asked for. `None`
/// or 0 reads the whole line.
///
/// Only the main line of the first game tree is handed to sgf-parse: the text is scanned
/// once and cut at the first `)` (every side variation and every later game tree comes
/// after it) or before the node holding move `move_number`, and the part kept must stay
/// within [`MAX_NODES`], [`MAX_PROPERTIES`], [`MAX_VALUES`] and [`MAX_PARSED_BYTES`]. So
/// the memory a record costs is bounded by these limits, not by the size of the text.
pub fn parse_record_before(text: &str, move_number: Option<u32>) -> Result<SgfRecord, SgfError> {
    // Text before the first "(;" is not SGF: a UTF-8 byte-order mark, or prose such as
    // "Here is the game record." (GNU Go's games/ego2.sgf). sgf-parse would read it as a
    // property name and fail.
    let start = find_game_start(text).ok_or_else(|| SgfError::Syntax("no game tree".into()))?;
    let text = &text[start..];
    let keep = move_number.filter(|&n| n > 0).map(|n| n as usize - 1);
    let cut = scan(text, keep)?;
    let text: std::borrow::Cow<str> = if cut.close == 0 {
        text[..cut.end].into()
    } else {
        format!("{}{}", &text[..cut.end], ")".repeat(cut.close)).into()
    };
    let text = &*text;
    let trees = match sgf_parse::parse(text) {
        Ok(trees) if cut.unclosed && !kept_something(&trees) => {
            drop_trees(trees);
            return Err(SgfError::Syntax(
                "no property before the end of the text".into(),
            ));
        }
        Ok(trees) => trees,
        // Real files carry damage that sgf-parse's strict mode refuses but that does not
        // touch the game: GM given twice in the root (which sgf-parse reports as
        // "Unexpected property", nngs/gnugo-3.1.18-Rufus-*.sgf), a stray character.
        // (Text after the last ')', as in gunnar/rbm-bobk-200303111815.sgf's "---", and a
        // missing final ')', as in owl42.sgf, are already taken care of by the cut.)
        // Lenient mode keeps everything up to the first damage, like GNU Go's reader.
        // Accept that only if it kept some property, so "(;" plus noise is still an error.
        // A file cut off inside a property value has lost part of a move or set-up list:
        // refuse it rather than guess.
        Err(strict) if ends_inside_value(text) => {
            return Err(SgfError::Syntax(format!(
                "{strict} (cut off inside a value)"
            )));
        }
        Err(strict) => {
            let options = sgf_parse::ParseOptions {
                lenient: true,
                ..sgf_parse::ParseOptions::default()
            };
            match sgf_parse::parse_with_options(text, &options) {
                Ok(trees) if kept_something(&trees) => trees,
                Ok(trees) => {
                    drop_trees(trees);
                    return Err(SgfError::Syntax(strict.to_string()));
                }
                Err(_) => return Err(SgfError::Syntax(strict.to_string())),
            }
        }
    };
    let mut trees = trees.into_iter();
    let first = trees.next();
    drop_trees(trees.collect());
    let root = match first {
        Some(GameTree::GoGame(node)) => node,
        Some(GameTree::Unknown(node)) => {
            drop_tree(node);
            return Err(SgfError::NotGo);
        }
        None => return Err(SgfError::Syntax("no game tree".to_string())),
    };
    let result = convert(&root, keep);
    drop_tree(root);
    result
}

/// The part of a game tree's text that is parsed: `text[..end]` followed by `close`
/// closing parentheses.
#[derive(Debug, PartialEq, Eq)]
struct Cut {
    end: usize,
    close: usize,
    /// The text ended with the game tree still open: damage, accepted only if the root
    /// kept some property (so "(;" alone is still an error).
    unclosed: bool,
}

/// Where the scanner of [`scan`] is, following sgf-parse's lexer: between tokens, in a
/// property identifier (which runs, whatever it holds, up to its first `[`), inside a
/// value, or after a value (where whitespace and further `[...]` values may follow).
#[derive(Clone, Copy, PartialEq, Eq)]
enum ScanState {
    Between,
    Ident,
    Value { escaped: bool },
    AfterValue,
}

/// Scans `text` (starting with the game tree's `(`) once, in constant memory, and finds
/// the part to parse: up to the first `)` (the end of the main line: every other
/// variation starts after it), closing what is still open; or, with `keep = Some(k)`,
/// up to the first node after the root holding a move once `k` moves came before it
/// (a node with both `B` and `W` counts two, as [`convert`] does; it counts repeated
/// moves once, so it never stops before [`convert`] would). Refuses a part over the
/// limits ([`MAX_NODES`]...). On a character sgf-parse's lexer cannot read (a non-ASCII
/// identifier), or text ending inside an identifier or a value, it keeps the whole text
/// as it is: sgf-parse never reads past the first such error, and the caller's damage
/// handling decides.
fn scan(text: &str, keep: Option<usize>) -> Result<Cut, SgfError> {
    let bytes = text.as_bytes();
    let too_big = |what: String| Err(SgfError::TooBig(what));
    let whole = Cut {
        end: text.len(),
        close: 0,
        unclosed: false,
    };
    let mut state = ScanState::Between;
    let mut depth = 0usize;
    let (mut nodes, mut props, mut values) = (0usize, 0usize, 0usize);
    // The current node: where a cut before it goes (its ';', or the '(' just before it)
    // and how many parentheses are then open; whether it holds a black or white move.
    let mut node_cut = None::<(usize, usize)>;
    let (mut has_b, mut has_w) = (false, false);
    let mut moves_before = 0usize;
    // The last '(' with nothing but whitespace after it: a node starting there is cut
    // with its '(' (sgf-parse refuses an empty variation "()").
    let mut open_at = None::<usize>;
    // The upper-case letters of the current identifier (as sgf-parse reduces FF[3] names):
    // the first one and how many (counted up to 2).
    let (mut ident_first, mut ident_upper) = (0u8, 0u8);
    // The first bytes of the current value, to count a compressed point list's points.
    let mut head = [0u8; 6];
    let mut head_len = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if i > MAX_PARSED_BYTES {
            return too_big(format!(
                "more than {MAX_PARSED_BYTES} bytes in the main line"
            ));
        }
        let c = bytes[i];
        match state {
            ScanState::Value { escaped } => {
                if !escaped && c == b']' {
                    values += value_weight(&head[..head_len]);
                    if values > MAX_VALUES {
                        return too_big(format!(
                            "more than {MAX_VALUES} property values in the main line"
                        ));
                    }
                    state = ScanState::AfterValue;
                } else {
                    if head_len < head.len() {
                        head[head_len] = c;
                        head_len += 1;
                    }
                    state = ScanState::Value {
                        escaped: !escaped && c == b'\\',
                    };
                }
            }
            ScanState::Ident => match c {
                b'[' => {
                    props += 1;
                    if props > MAX_PROPERTIES {
                        return too_big(format!(
                            "more than {MAX_PROPERTIES} properties in the main line"
                        ));
                    }
                    if ident_upper == 1 && (ident_first == b'B' || ident_first == b'W') {
                        if let (Some(k), Some((at, open))) = (keep, node_cut) {
                            if moves_before >= k {
                                return Ok(Cut {
                                    end: at,
                                    close: open,
                                    unclosed: false,
                                });
                            }
                        }
                        if ident_first == b'B' {
                            has_b = true;
                        } else {
                            has_w = true;
                        }
                    }
                    head_len = 0;
                    state = ScanState::Value { escaped: false };
                }
                c if c.is_ascii() => {
                    if c.is_ascii_uppercase() {
                        if ident_upper == 0 {
                            ident_first = c;
                        }
                        ident_upper = (ident_upper + 1).min(2);
                    }
                }
                _ => return Ok(whole),
            },
            ScanState::AfterValue if c == b'[' => {
                head_len = 0;
                state = ScanState::Value { escaped: false };
            }
            ScanState::AfterValue if c.is_ascii_whitespace() => {}
            ScanState::AfterValue | ScanState::Between => {
                state = ScanState::Between;
                match c {
                    c if c.is_ascii_whitespace() => {}
                    b'(' => {
                        depth += 1;
                        open_at = Some(i);
                    }
                    b')' => {
                        return Ok(Cut {
                            end: i + 1,
                            close: depth.saturating_sub(1),
                            unclosed: false,
                        });
                    }
                    b';' => {
                        nodes += 1;
                        if nodes > MAX_NODES {
                            return too_big(format!(
                                "more than {MAX_NODES} nodes in the main line"
                            ));
                        }
                        if nodes > 1 {
                            moves_before += usize::from(has_b) + usize::from(has_w);
                            node_cut = Some(match open_at {
                                Some(at) => (at, depth - 1),
                                None => (i, depth),
                            });
                        }
                        (has_b, has_w) = (false, false);
                    }
                    // Anything else starts a property identifier (even `[`: an empty
                    // one); the identifier state reads this byte again.
                    c if c.is_ascii() => {
                        state = ScanState::Ident;
                        ident_upper = 0;
                        open_at = None;
                        continue;
                    }
                    _ => return Ok(whole),
                }
                if c != b'(' && !c.is_ascii_whitespace() {
                    open_at = None;
                }
            }
        }
        i += 1;
    }
    match state {
        ScanState::Between | ScanState::AfterValue => Ok(Cut {
            end: text.len(),
            close: depth,
            unclosed: true,
        }),
        ScanState::Ident | ScanState::Value { .. } => Ok(whole),
    }
}

/// How many points a value stands for if it is a compressed point list (`aa:ss`, as
/// sgf-parse expands it: every point of the rectangle), else 1.
fn value_weight(head: &[u8]) -> usize {
    let coord = |b: u8| match b {
        b'a'..=b'z' => Some(usize::from(b - b'a')),
        b'A'..=b'Z' => Some(usize::from(b - b'A') + 26),
        _ => None,
    };
    match head {
        [x1, y1, b':', x2, y2] => match (coord(*x1), coord(*y1), coord(*x2), coord(*y2)) {
            (Some(x1), Some(y1), Some(x2), Some(y2)) => {
                (x1.abs_diff(x2) + 1) * (y1.abs_diff(y2) + 1)
            }
            _ => 1,
        },
        _ => 1,
    }
}

/// Whether the text ends inside an unclosed `[...]` property value.
fn ends_inside_value(text: &str) -> bool {
    let mut inside = false;
    let mut escaped = false;
    for c in text.chars() {
        if inside {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                ']' => inside = false,
                _ => {}
            }
        } else if c == '[' {
            inside = true;
        }
    }
    inside
}

/// Byte offset of the first '(' that is followed (after optional whitespace) by ';'.
fn find_game_start(text: &str) -> Option<usize> {
    text.match_indices('(')
        .map(|(i, _)| i)
        .find(|&i| text[i + 1..].trim_start().starts_with(';'))
}

fn kept_something(trees: &[GameTree]) -> bool {
    match trees.first() {
        Some(GameTree::GoGame(node)) => !node.properties.is_empty(),
        Some(GameTree::Unknown(node)) => !node.properties.is_empty(),
        None => false,
    }
}

fn drop_trees(trees: Vec<GameTree>) {
    for tree in trees {
        match tree {
            GameTree::GoGame(node) => drop_tree(node),
            GameTree::Unknown(node) => drop_tree(node),
        }
    }
}

/// sgf-parse's nodes own their children, so the default drop recurses once per node of a
/// line: a long game could overflow the stack. Take the tree apart with an explicit stack.
fn drop_tree<P: sgf_parse::SgfProp>(root: ParsedNode<P>) {
    let mut stack = vec![root];
    while let Some(mut node) = stack.pop() {
        stack.append(&mut node.children);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sgf::parse_record;
    use crate::sgf::tests::moves;

    #[test]
    fn very_long_main_line_does_not_overflow_the_stack() {
        // The longest line the node limit lets through (root included).
        const PROBE_N: usize = MAX_NODES - 1;
        let mut text = String::from("(;SZ[19]");
        for i in 0..PROBE_N {
            text.push_str(if i % 2 == 0 { ";B[]" } else { ";W[]" });
        }
        let unclosed = text.clone();
        text.push(')');
        // Run on a small stack to make a recursive drop fail loudly if it ever came back.
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || parse_record(&text).map(|r| r.nodes.len()))
            .unwrap();
        assert_eq!(handle.join().unwrap(), Ok(PROBE_N + 1));
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || parse_record(&unclosed).map(|r| r.nodes.len()))
            .unwrap();
        assert_eq!(handle.join().unwrap(), Ok(PROBE_N + 1));
    }

    fn cut(text: &str, keep: Option<usize>) -> String {
        let c = scan(text, keep).unwrap();
        format!("{}{}", &text[..c.end], ")".repeat(c.close))
    }

    #[test]
    fn scan_cuts_at_the_end_of_the_main_line() {
        // Side variations and later game trees are never handed to sgf-parse.
        let text = "(;SZ[9];B[aa](;W[bb];B[cc])(;W[dd]))(;SZ[13])";
        assert_eq!(cut(text, None), "(;SZ[9];B[aa](;W[bb];B[cc]))");
        assert_eq!(cut("(;SZ[9];B[aa])\n---\n", None), "(;SZ[9];B[aa])");
        // Brackets and parentheses inside values (escaped or not) are text.
        let text = "(;C[a ) ; ( \\] [x]B[aa];W[bb])(;B[cc])";
        assert_eq!(cut(text, None), "(;C[a ) ; ( \\] [x]B[aa];W[bb])");
        // A missing final ')' is supplied, for every tree still open.
        assert_eq!(cut("(;SZ[9](;B[aa]", None), "(;SZ[9](;B[aa]))");
        // Ending inside a value or an identifier: the text is left whole for the damage
        // rules of parse_record_before.
        assert_eq!(cut("(;SZ[9];C[abc", None), "(;SZ[9];C[abc");
        assert_eq!(cut("(;SZ[9];XY", None), "(;SZ[9];XY");
        let rec = parse_record("(;SZ[9];B[ee](;W[cc];B[gg])(;W[dd]))(;SZ[19];B[aa])").unwrap();
        assert_eq!(rec.nodes.len(), 4);
        // Damage after the main line (a later tree cut off inside a value) is not read.
        let rec = parse_record("(;SZ[9];B[ee])(;SZ[9];C[cut off").unwrap();
        assert_eq!(rec.nodes.len(), 2);
        assert!(parse_record("(;SZ[9];B[ee];C[cut off").is_err());
        assert!(parse_record("(;").is_err());
    }

    #[test]
    fn scan_stops_before_the_move_asked_for() {
        let text = "(;SZ[9]B[aa];W[bb];AB[cc]C[x];B[dd];W[ee])";
        // Move 3 is B[dd]: the setup node before it is kept, nothing from B[dd] on.
        assert_eq!(cut(text, Some(2)), "(;SZ[9]B[aa];W[bb];AB[cc]C[x])");
        // A move in the root is move 1, but the root itself is never cut.
        assert_eq!(cut(text, Some(0)), "(;SZ[9]B[aa])");
        // FF[3] names reduce to their capitals: "Black" is B, "BL" (time left) is no move.
        let text = "(;SZ[9];Black[aa]BL[30];White[bb]WL[20];B[cc])";
        assert_eq!(
            cut(text, Some(2)),
            "(;SZ[9];Black[aa]BL[30];White[bb]WL[20])"
        );
        // B and W in one node count as two moves.
        let text = "(;SZ[9];B[aa]W[bb];B[cc];W[dd])";
        assert_eq!(cut(text, Some(2)), "(;SZ[9];B[aa]W[bb])");
        // A node opening a variation is cut with its '('.
        let text = "(;SZ[9];B[aa](;W[bb])(;W[cc]))";
        assert_eq!(cut(text, Some(1)), "(;SZ[9];B[aa])");
        // The cut and convert agree: the position before move N, whatever comes after.
        let text = "(;SZ[9];B[ee];W[cc];B[zz];W[dd]";
        let rec = parse_record_before(text, Some(3)).unwrap();
        assert_eq!(rec.nodes.len(), 3);
        assert!(parse_record_before(text, Some(4)).is_err());
        // A repeated move counts once in convert; the scan, counting it once too, never
        // stops early.
        let text = "(;SZ[9];B[aa]B[aa];W[bb];B[cc])";
        let rec = parse_record_before(text, Some(3)).unwrap();
        assert_eq!(moves(&rec).len(), 2);
    }

    #[test]
    fn scan_refuses_more_than_the_limits() {
        let nodes = |n: usize| format!("(;SZ[9]{})", ";".repeat(n - 1));
        assert_eq!(
            parse_record(&nodes(MAX_NODES)).unwrap().nodes.len(),
            MAX_NODES
        );
        let e = parse_record(&nodes(MAX_NODES + 1)).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("too large: more than {MAX_NODES} nodes in the main line")
        );
        // The limit counts the main line only: variations after it cost nothing ...
        let text = format!("(;SZ[9];B[ee]{})", "(;W[aa])".repeat(MAX_NODES * 2));
        assert_eq!(parse_record(&text).unwrap().nodes.len(), 3);
        // ... and with a move number, only the part read.
        let text = format!("(;SZ[9];B[ee];W[cc]{})", ";".repeat(MAX_NODES * 2));
        assert_eq!(parse_record_before(&text, Some(2)).unwrap().nodes.len(), 2);
        assert!(matches!(
            parse_record_before(&text, Some(3)),
            Err(SgfError::TooBig(_))
        ));
        // Properties and values.
        let text = format!("(;SZ[9]{})", "XX[]".repeat(MAX_PROPERTIES + 1));
        let e = parse_record(&text).unwrap_err().to_string();
        assert!(
            e.contains(&format!("more than {MAX_PROPERTIES} properties")),
            "{e}"
        );
        let text = format!("(;SZ[9]XX{})", "[]".repeat(MAX_VALUES + 1));
        let e = parse_record(&text).unwrap_err().to_string();
        assert!(
            e.contains(&format!("more than {MAX_VALUES} property values")),
            "{e}"
        );
        // A compressed point list counts every point it stands for.
        let lists = |n: usize| format!("(;SZ[19]{})", "AB[aa:ss]".repeat(n));
        assert!(parse_record(&lists(MAX_VALUES / 361)).is_ok());
        assert!(matches!(
            parse_record(&lists(MAX_VALUES / 361 + 1)),
            Err(SgfError::TooBig(_))
        ));
        assert_eq!(value_weight(b"aa:ss"), 361);
        assert_eq!(value_weight(b"ss:aa"), 361);
        assert_eq!(value_weight(b"aa:ZZ"), 52 * 52);
        assert_eq!(value_weight(b"aa"), 1);
        assert_eq!(value_weight(b"a:bcd"), 1);
        // Bytes: one huge comment.
        let text = format!("(;SZ[9]C[{}])", "x".repeat(MAX_PARSED_BYTES));
        let e = parse_record(&text).unwrap_err().to_string();
        assert!(e.contains("bytes in the main line"), "{e}");
    }
}
