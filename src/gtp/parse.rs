//! nom parsers for the GTP v2 argument types (int, float, colour, vertex, move, boolean,
//! string) and their inverse text forms. Knows nothing of commands or board size.
//!
//! Every parser reads one whole word: it fails unless the token ends at a space or at the
//! end of input, so `blackx` is not a colour and `D4x` is not a vertex.

use std::fmt;
use std::str::FromStr;

use nom::branch::alt;
use nom::bytes::complete::{tag, tag_no_case, take_while1};
use nom::character::complete::{char, digit1, one_of, satisfy};
use nom::combinator::{all_consuming, map, map_res, not, opt, recognize, value, verify};
use nom::sequence::terminated;
use nom::{IResult, Parser};

use crate::board::Color;

/// Largest GTP `int`: 2^31 - 1 (GTP v2 §2.8).
pub const MAX_INT: u32 = i32::MAX as u32;

/// Number of GTP columns: `A` to `Z` without `I`, which is the board's largest size.
pub const NUM_COLUMNS: u8 = 25;
const _: () = assert!(NUM_COLUMNS as usize == crate::board::MAX_SIZE);

/// Largest GTP row number.
pub const MAX_ROW: u8 = crate::board::MAX_SIZE as u8;

/// A board point as GTP writes it, 0-based: `col` 0 is `A`, `row` 0 is GTP row `1` (the
/// bottom). Not checked against a board size; the executor does that.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Vertex {
    pub col: u8,
    pub row: u8,
}

impl Vertex {
    /// The vertex at 0-based `col` and `row`, if both are below 25.
    pub fn new(col: u8, row: u8) -> Option<Vertex> {
        (col < NUM_COLUMNS && row < MAX_ROW).then_some(Vertex { col, row })
    }

    /// The column letter, upper case, skipping `I`; `?` for a column past `Z`.
    pub fn column_letter(self) -> char {
        crate::notation::column_letter(self.col as usize)
    }
}

/// `D4`: upper-case column letter, then the 1-based row.
impl fmt::Display for Vertex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.column_letter(), u16::from(self.row) + 1)
    }
}

impl FromStr for Vertex {
    type Err = nom::Err<nom::error::Error<String>>;
    fn from_str(s: &str) -> Result<Vertex, Self::Err> {
        whole(vertex, s)
    }
}

/// A GTP `move` argument: a vertex or `pass`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GtpMove {
    Vertex(Vertex),
    Pass,
}

/// `D4` or `pass` (lower case).
impl fmt::Display for GtpMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpMove::Vertex(v) => v.fmt(f),
            GtpMove::Pass => f.write_str("pass"),
        }
    }
}

impl FromStr for GtpMove {
    type Err = nom::Err<nom::error::Error<String>>;
    fn from_str(s: &str) -> Result<GtpMove, Self::Err> {
        whole(gtp_move, s)
    }
}

/// Runs `parser` on all of `s`, failing on trailing text; the error owns its input so it
/// can outlive `s`.
fn whole<'a, O, P>(parser: P, s: &'a str) -> Result<O, nom::Err<nom::error::Error<String>>>
where
    P: Parser<&'a str, Output = O, Error = nom::error::Error<&'a str>>,
{
    all_consuming(parser)
        .parse(s)
        .map(|(_, out)| out)
        .map_err(|e| e.map_input(str::to_string))
}

/// True for a character that belongs to a word (anything but GTP white space).
pub fn is_word_char(c: char) -> bool {
    !matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// Succeeds, consuming nothing, at the end of a word: before a space or the end of input.
pub(super) fn word_end(input: &str) -> IResult<&str, ()> {
    not(satisfy(is_word_char)).parse(input)
}

/// GTP `int`: an unsigned decimal from 0 to 2^31 - 1. Overflow is an error, not a wrap.
pub fn int(input: &str) -> IResult<&str, u32> {
    terminated(
        verify(map_res(digit1, str::parse::<u32>), |n: &u32| *n <= MAX_INT),
        word_end,
    )
    .parse(input)
}

/// GTP `float`: optional sign, digits with an optional fraction, optional exponent
/// (`7.5`, `-3`, `.5`, `1e2`). `nan`, `inf` and values that overflow to infinity fail.
pub fn float(input: &str) -> IResult<&str, f64> {
    // Not `digit0`: in nom 8.0.0 the `*0` parsers on `&str` return a remainder that
    // points at the start of the input when they reach its end, which breaks
    // `recognize`. `opt(digit1)` has no such problem.
    let mantissa = alt((
        recognize((digit1, opt((char('.'), opt(digit1))))),
        recognize((char('.'), digit1)),
    ));
    let exponent = (one_of("eE"), opt(one_of("+-")), digit1);
    let number = recognize((opt(one_of("+-")), mantissa, opt(exponent)));
    terminated(
        verify(map_res(number, str::parse::<f64>), |x: &f64| x.is_finite()),
        word_end,
    )
    .parse(input)
}

/// GTP `color`: `b`, `w`, `black` or `white`, in any case.
pub fn color(input: &str) -> IResult<&str, Color> {
    terminated(
        alt((
            value(Color::Black, tag_no_case("black")),
            value(Color::White, tag_no_case("white")),
            value(Color::Black, tag_no_case("b")),
            value(Color::White, tag_no_case("w")),
        )),
        word_end,
    )
    .parse(input)
}

/// The 0-based column of a GTP column letter (any case, `I` excluded).
fn column_index(c: char) -> Option<u8> {
    let lower = c.to_ascii_lowercase();
    match lower {
        'a'..='h' => Some(lower as u8 - b'a'),
        'j'..='z' => Some(lower as u8 - b'a' - 1),
        _ => None,
    }
}

/// GTP `vertex`: a column letter `A`..`Z` without `I` (any case) and a row 1..=25.
pub fn vertex(input: &str) -> IResult<&str, Vertex> {
    let column = map(satisfy(|c| column_index(c).is_some()), |c| {
        column_index(c).unwrap_or(0)
    });
    let row = verify(map_res(digit1, str::parse::<u8>), |r: &u8| {
        (1..=MAX_ROW).contains(r)
    });
    terminated(
        map((column, row), |(col, row)| Vertex { col, row: row - 1 }),
        word_end,
    )
    .parse(input)
}

/// GTP `move` argument (the vertex part of a `move`): a vertex or `pass` in any case.
pub fn gtp_move(input: &str) -> IResult<&str, GtpMove> {
    alt((
        value(GtpMove::Pass, terminated(tag_no_case("pass"), word_end)),
        map(vertex, GtpMove::Vertex),
    ))
    .parse(input)
}

/// GTP `boolean`: `true`/`false`, also `1`/`0`.
pub fn boolean(input: &str) -> IResult<&str, bool> {
    terminated(
        alt((
            value(true, tag("true")),
            value(false, tag("false")),
            value(true, tag("1")),
            value(false, tag("0")),
        )),
        word_end,
    )
    .parse(input)
}

/// GTP `string`: a run of characters up to the next space.
pub fn string(input: &str) -> IResult<&str, &str> {
    take_while1(is_word_char).parse(input)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn full<'a, O>(p: fn(&'a str) -> IResult<&'a str, O>, s: &'a str) -> Option<O> {
        all_consuming(p).parse(s).ok().map(|(_, o)| o)
    }

    #[test]
    fn ints() {
        assert_eq!(full(int, "0"), Some(0));
        assert_eq!(full(int, "19"), Some(19));
        assert_eq!(full(int, "007"), Some(7));
        assert_eq!(full(int, "2147483647"), Some(MAX_INT));
        assert_eq!(full(int, "2147483648"), None);
        assert_eq!(full(int, "99999999999999999999999"), None);
        assert_eq!(full(int, "-1"), None);
        assert_eq!(full(int, "+1"), None);
        assert_eq!(full(int, "1.5"), None);
        assert_eq!(full(int, "19x"), None);
        assert_eq!(full(int, ""), None);
        // Stops at a space, leaving the rest.
        assert_eq!(int("19 7"), Ok((" 7", 19)));
    }

    #[test]
    fn floats() {
        assert_eq!(full(float, "7.5"), Some(7.5));
        assert_eq!(full(float, "-3"), Some(-3.0));
        assert_eq!(full(float, "+0.5"), Some(0.5));
        assert_eq!(full(float, ".5"), Some(0.5));
        assert_eq!(full(float, "6."), Some(6.0));
        assert_eq!(full(float, "1e2"), Some(100.0));
        assert_eq!(full(float, "1E-1"), Some(0.1));
        for bad in [
            "nan", "NaN", "inf", "-inf", "infinity", "1e999", "", "-", ".", "7.5x", "e5", "1e",
        ] {
            assert_eq!(full(float, bad), None, "{bad:?} must be rejected");
        }
    }

    #[test]
    fn colours() {
        for (s, c) in [
            ("b", Color::Black),
            ("B", Color::Black),
            ("black", Color::Black),
            ("BLACK", Color::Black),
            ("Black", Color::Black),
            ("w", Color::White),
            ("W", Color::White),
            ("white", Color::White),
            ("wHiTe", Color::White),
        ] {
            assert_eq!(full(color, s), Some(c), "{s}");
        }
        for bad in ["", "x", "bl", "blackx", "bw", "white2", "empty"] {
            assert_eq!(full(color, bad), None, "{bad:?}");
        }
        assert_eq!(color("black D4"), Ok((" D4", Color::Black)));
        for c in [Color::Black, Color::White] {
            assert_eq!(full(color, crate::notation::color_name(c)), Some(c));
        }
    }

    #[test]
    fn vertices() {
        assert_eq!(full(vertex, "A1"), Some(Vertex { col: 0, row: 0 }));
        assert_eq!(full(vertex, "d4"), Some(Vertex { col: 3, row: 3 }));
        assert_eq!(full(vertex, "H8"), Some(Vertex { col: 7, row: 7 }));
        assert_eq!(full(vertex, "J9"), Some(Vertex { col: 8, row: 8 }));
        assert_eq!(full(vertex, "t19"), Some(Vertex { col: 18, row: 18 }));
        assert_eq!(full(vertex, "Z25"), Some(Vertex { col: 24, row: 24 }));
        for bad in [
            "I5", "i5", "A0", "A26", "A", "4", "AA1", "D4x", "", "Ä4", "A999",
        ] {
            assert_eq!(full(vertex, bad), None, "{bad:?}");
        }
    }

    #[test]
    fn vertex_display_round_trips_every_column_and_row() {
        for col in 0..NUM_COLUMNS {
            for row in 0..MAX_ROW {
                let v = Vertex::new(col, row).expect("in range");
                let text = v.to_string();
                assert!(!text.contains('I'));
                assert_eq!(text.parse::<Vertex>().ok(), Some(v));
                assert_eq!(text.to_lowercase().parse::<Vertex>().ok(), Some(v));
            }
        }
        assert_eq!(Vertex { col: 3, row: 3 }.to_string(), "D4");
        assert_eq!(Vertex { col: 8, row: 18 }.to_string(), "J19");
        assert_eq!(Vertex::new(25, 0), None);
        // Out-of-range fields still display without panicking.
        assert_eq!(Vertex { col: 200, row: 255 }.to_string(), "?256");
    }

    #[test]
    fn moves() {
        assert_eq!(full(gtp_move, "pass"), Some(GtpMove::Pass));
        assert_eq!(full(gtp_move, "PASS"), Some(GtpMove::Pass));
        assert_eq!(
            full(gtp_move, "c3"),
            Some(GtpMove::Vertex(Vertex { col: 2, row: 2 }))
        );
        assert_eq!(full(gtp_move, "passx"), None);
        assert_eq!(full(gtp_move, "resign"), None);
        assert_eq!(GtpMove::Pass.to_string(), "pass");
        assert_eq!("Pass".parse::<GtpMove>().ok(), Some(GtpMove::Pass));
        assert_eq!(
            GtpMove::Vertex(Vertex { col: 16, row: 15 }).to_string(),
            "R16"
        );
    }

    #[test]
    fn booleans() {
        assert_eq!(full(boolean, "true"), Some(true));
        assert_eq!(full(boolean, "false"), Some(false));
        assert_eq!(full(boolean, "1"), Some(true));
        assert_eq!(full(boolean, "0"), Some(false));
        assert_eq!(full(boolean, "10"), None);
        assert_eq!(full(boolean, "truex"), None);
    }

    #[test]
    fn strings() {
        assert_eq!(string("game.sgf 12"), Ok((" 12", "game.sgf")));
        assert_eq!(full(string, "é/ü.sgf"), Some("é/ü.sgf"));
        assert!(string("").is_err());
        assert!(string(" x").is_err());
    }
}
