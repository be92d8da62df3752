//! One finished game: which engine had Black, how the game ended, the move times, and its
//! row of `results.tsv` (written and read back). Knows nothing of engines, boards or
//! how a game is played.

/// Engine A or B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    A,
    B,
}

impl Side {
    pub(super) fn index(self) -> usize {
        match self {
            Side::A => 0,
            Side::B => 1,
        }
    }
    pub(super) fn letter(self) -> &'static str {
        match self {
            Side::A => "A",
            Side::B => "B",
        }
    }
    pub(super) fn other(self) -> Side {
        match self {
            Side::A => Side::B,
            Side::B => Side::A,
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    /// Two passes, counted.
    Score,
    /// `--max-moves` reached, counted as it stands.
    MaxMoves,
    Resign,
    /// The loser played a move Tengen's `Game` refuses (or off the board).
    Illegal,
    /// `genmove` answered `?` or something that is not a move.
    BadGenmove,
    /// The loser refused a legal move of its opponent (`play` answered `?`), or the
    /// position set-up (`boardsize`, `clear_board`, an opening move).
    Refused,
    /// The loser's process died.
    Crash,
    /// The loser did not answer within `--timeout`.
    Timeout,
    /// The loser's flag fell.
    Time,
}

impl Reason {
    pub fn word(self) -> &'static str {
        match self {
            Reason::Score => "score",
            Reason::MaxMoves => "max-moves",
            Reason::Resign => "resign",
            Reason::Illegal => "illegal",
            Reason::BadGenmove => "bad-genmove",
            Reason::Refused => "refused",
            Reason::Crash => "crash",
            Reason::Timeout => "timeout",
            Reason::Time => "time",
        }
    }
    pub(super) fn parse(s: &str) -> Option<Reason> {
        [
            Reason::Score,
            Reason::MaxMoves,
            Reason::Resign,
            Reason::Illegal,
            Reason::BadGenmove,
            Reason::Refused,
            Reason::Crash,
            Reason::Timeout,
            Reason::Time,
        ]
        .into_iter()
        .find(|r| r.word() == s)
    }
    /// The SGF `RE` suffix of a game lost this way (counted games have a margin instead).
    pub(super) fn re_suffix(self) -> &'static str {
        match self {
            Reason::Resign => "R",
            Reason::Time => "T",
            _ => "F",
        }
    }
}

/// Move times of one engine in one game.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MoveTimes {
    pub moves: usize,
    pub total: f64,
    pub longest: f64,
}

impl MoveTimes {
    pub(super) fn add(&mut self, t: f64) {
        self.moves += 1;
        self.total += t;
        self.longest = self.longest.max(t);
    }
}

/// One finished game, a row of `results.tsv`.
#[derive(Clone, Debug, PartialEq)]
pub struct GameResult {
    pub game: usize,
    /// Who had Black.
    pub black: Side,
    /// SGF-style result: `B+3.5`, `W+R`, `B+T`, `W+F`, `0`.
    pub result: String,
    /// The winner, `None` for a draw.
    pub winner: Option<Side>,
    pub reason: Reason,
    pub moves: usize,
    pub seconds: f64,
    /// `engines` (A and B agreed), `referee`, `tengen`, or `-` for a game not counted.
    pub scorer: String,
    pub times: [MoveTimes; 2],
    pub names: [String; 2],
}

pub(super) const TSV_HEADER: &str = "game\tblack\twhite\tresult\treason\tmoves\tseconds\ta_longest\tb_longest\tscorer\twinner\ta_moves\ta_total\tb_moves\tb_total\ta_name\tb_name";

impl GameResult {
    pub(super) fn tsv(&self) -> String {
        let winner = self.winner.map_or("draw", Side::letter);
        let clean = |s: &str| s.replace(['\t', '\n', '\r'], " ");
        format!(
            "{}\t{}\t{}\t{}\t{}\t{}\t{:.1}\t{:.3}\t{:.3}\t{}\t{}\t{}\t{:.3}\t{}\t{:.3}\t{}\t{}",
            self.game,
            self.black.letter(),
            self.black.other().letter(),
            self.result,
            self.reason.word(),
            self.moves,
            self.seconds,
            self.times[0].longest,
            self.times[1].longest,
            self.scorer,
            winner,
            self.times[0].moves,
            self.times[0].total,
            self.times[1].moves,
            self.times[1].total,
            clean(&self.names[0]),
            clean(&self.names[1]),
        )
    }

    pub(super) fn from_tsv(line: &str) -> Option<GameResult> {
        let f: Vec<&str> = line.split('\t').collect();
        if f.len() < 17 {
            return None;
        }
        let side = |s: &str| match s {
            "A" => Some(Side::A),
            "B" => Some(Side::B),
            _ => None,
        };
        let times = |m: &str, t: &str, l: &str| -> Option<MoveTimes> {
            Some(MoveTimes {
                moves: m.parse().ok()?,
                total: t.parse().ok()?,
                longest: l.parse().ok()?,
            })
        };
        Some(GameResult {
            game: f[0].parse().ok()?,
            black: side(f[1])?,
            result: f[3].to_string(),
            reason: Reason::parse(f[4])?,
            moves: f[5].parse().ok()?,
            seconds: f[6].parse().ok()?,
            scorer: f[9].to_string(),
            winner: match f[10] {
                "draw" => None,
                w => Some(side(w)?),
            },
            times: [times(f[11], f[12], f[7])?, times(f[13], f[14], f[8])?],
            names: [f[15].to_string(), f[16].to_string()],
        })
    }
}
