//! GTP v2 §3.1 line preprocessing: control characters, comments, tabs and trimming.
//! Plain string code, no parsing; knows nothing of commands.

/// Preprocesses one input line (without its line feed) as GTP v2 §3.1 asks:
///
/// 1. remove every control character except HT and LF (so a CR from a CRLF line ending
///    goes away);
/// 2. cut everything from the first `#` on (a comment);
/// 3. turn HT (and a stray LF) into a space;
/// 4. trim spaces at both ends.
///
/// An empty result means "ignore this line, send no response". Only ASCII control
/// characters count: other characters pass through untouched.
pub fn preprocess(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        match c {
            '#' => break,
            '\t' | '\n' => out.push(' '),
            c if c.is_ascii_control() => {}
            c => out.push(c),
        }
    }
    let trimmed = out.trim_matches(' ');
    if trimmed.len() == out.len() {
        out
    } else {
        trimmed.to_string()
    }
}

/// True when the line carries nothing but a comment or white space, so it gets no
/// response.
pub fn is_blank(line: &str) -> bool {
    preprocess(line).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_line_is_unchanged() {
        assert_eq!(preprocess("play b D4"), "play b D4");
    }

    #[test]
    fn crlf_and_control_characters_are_dropped() {
        assert_eq!(preprocess("name\r"), "name");
        assert_eq!(preprocess("na\x07me\x00"), "name");
        assert_eq!(preprocess("\x1bplay\x7f b d4"), "play b d4");
    }

    #[test]
    fn tabs_become_spaces_and_ends_are_trimmed() {
        assert_eq!(preprocess("\tplay\tb\t d4 \t"), "play b  d4");
    }

    #[test]
    fn comments_are_cut() {
        assert_eq!(preprocess("genmove w # think hard"), "genmove w");
        assert_eq!(preprocess("# interrupt"), "");
        assert_eq!(preprocess("#"), "");
        assert_eq!(preprocess("10 name#comment"), "10 name");
    }

    #[test]
    fn blank_lines_are_empty() {
        assert_eq!(preprocess(""), "");
        assert_eq!(preprocess("   \t \r"), "");
        assert!(is_blank("  # just a comment"));
        assert!(!is_blank(" quit "));
    }

    #[test]
    fn non_ascii_text_survives() {
        assert_eq!(preprocess("loadsgf été.sgf"), "loadsgf été.sgf");
        assert_eq!(preprocess("x\u{FFFD}y"), "x\u{FFFD}y");
    }
}
