//! GTP failure responses: one error type whose `Display` is exactly the text sent on
//! the wire after `? `.

use thiserror::Error;

/// Why a command failed. The `Display` form is the GTP v2 wire text (the standard
/// texts of §6.3 where one exists), so `serve` writes `?[id] {error}`.
///
/// New variants may be added as the executor grows; match with a `_` arm.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GtpError {
    /// The command is known but its arguments are missing, extra or of the wrong type.
    #[error("syntax error")]
    Syntax,
    /// The command name is not in the command table.
    #[error("unknown command")]
    UnknownCommand,
    /// `boardsize` with a size the engine cannot play.
    #[error("unacceptable size")]
    UnacceptableSize,
    /// `play` (or `is_legal`-like checks) with a move that breaks the rules or is off the
    /// board.
    #[error("illegal move")]
    IllegalMove,
    /// `undo` with no move to take back.
    #[error("cannot undo")]
    CannotUndo,
    /// `fixed_handicap`/`place_free_handicap` with a stone count out of range.
    #[error("invalid number of stones")]
    InvalidNumberOfStones,
    /// A handicap command on a board that already holds stones.
    #[error("board not empty")]
    BoardNotEmpty,
    /// `set_free_handicap` with a bad list: empty, a repeated or off-board vertex, `pass`.
    #[error("bad vertex list")]
    BadVertexList,
    /// `loadsgf` with a file that cannot be read or understood.
    #[error("cannot load file")]
    CannotLoadFile,
    /// `final_score`/`final_status_list` when the position cannot be scored.
    #[error("cannot score")]
    CannotScore,
    /// The executor failed unexpectedly (for instance it panicked); the engine keeps
    /// running.
    #[error("internal error")]
    Internal,
    /// Any other failure, with free text. Must be a single line.
    #[error("{0}")]
    Other(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_is_the_wire_text() {
        let cases = [
            (GtpError::Syntax, "syntax error"),
            (GtpError::UnknownCommand, "unknown command"),
            (GtpError::UnacceptableSize, "unacceptable size"),
            (GtpError::IllegalMove, "illegal move"),
            (GtpError::CannotUndo, "cannot undo"),
            (GtpError::InvalidNumberOfStones, "invalid number of stones"),
            (GtpError::BoardNotEmpty, "board not empty"),
            (GtpError::BadVertexList, "bad vertex list"),
            (GtpError::CannotLoadFile, "cannot load file"),
            (GtpError::CannotScore, "cannot score"),
            (GtpError::Internal, "internal error"),
            (GtpError::Other("no moves left".into()), "no moves left"),
        ];
        for (err, text) in cases {
            assert_eq!(err.to_string(), text);
        }
    }
}
