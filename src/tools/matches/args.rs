//! The options of `tengen match` and `tengen match-merge` (clap), and a shard of a
//! match's games. Knows nothing of how games are played or counted.

use std::path::PathBuf;

use clap::Args;

use crate::rules::Rules;
use crate::time::TimeSystem;

/// Options of `tengen match`.
#[derive(Args, Debug, Clone)]
pub struct MatchArgs {
    /// Engine A's command line, split as a shell would (quote it as one argument).
    #[arg(long)]
    pub a: String,
    /// Engine B's command line.
    #[arg(long)]
    pub b: String,
    /// Number of games; A is Black in the even-numbered ones (numbered from 0).
    #[arg(long, default_value_t = 10, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 1_000_000))]
    pub games: usize,
    /// Board size.
    #[arg(long, default_value_t = 19, value_parser = |s: &str| crate::cli::number_in(s, 2usize, crate::board::MAX_SIZE))]
    pub size: usize,
    /// Komi.
    #[arg(long, default_value_t = 7.5, value_parser = crate::cli::parse_komi, allow_negative_numbers = true)]
    pub komi: f64,
    /// Rules the runner checks moves with and counts by: chinese or tromp-taylor.
    #[arg(long, default_value = "chinese", value_parser = crate::cli::parse_rules)]
    pub rules: Rules,
    /// Seconds a move: sends `time_settings 0 S 1` (Canadian, one stone a period) and
    /// keeps that clock.
    #[arg(long, conflicts_with = "time", value_parser = crate::cli::parse_whole_seconds)]
    pub time_per_move: Option<f64>,
    /// Time system the runner keeps for both players: 'absolute M', 'byoyomi M P N'
    /// (N periods of P s) or 'canadian M T S' (S stones in T s). `time_left` goes to the
    /// engine before every genmove; a flag fall loses the game.
    #[arg(long, value_parser = TimeSystem::parse)]
    pub time: Option<TimeSystem>,
    /// Seconds forgiven on every move, for process and pipe lag.
    #[arg(long, default_value_t = 1.0, value_parser = crate::cli::parse_wait)]
    pub grace: f64,
    /// Folder of SGF openings: game i first plays the moves of file i (sorted by name,
    /// cycling) on both engines.
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// A third engine that counts a game when A and B name different winners (else
    /// Tengen counts).
    #[arg(long)]
    pub referee: Option<String>,
    /// Moves after which a game is stopped and counted as it stands (default 3·size²).
    #[arg(long, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 10_000))]
    pub max_moves: Option<usize>,
    /// Games played at once.
    #[arg(long, default_value_t = 1, value_parser = |s: &str| crate::cli::number_in(s, 1usize, 64))]
    pub parallel: usize,
    /// Threads each engine uses while thinking (only for the oversubscription warning).
    #[arg(long, default_value_t = 1)]
    pub engine_threads: usize,
    /// Seconds an engine may take to answer any command (start-up included), and genmove
    /// when no clock is kept; silence past it loses the game ("timeout").
    #[arg(long, default_value_t = 60.0, value_parser = |s: &str| crate::cli::number_in(s, 0.01, 86_400.0))]
    pub timeout: f64,
    /// The command engine A's moves are asked with (e.g. `kgs-genmove_cleanup`, to play
    /// out a game under Tromp-Taylor scoring).
    #[arg(long, default_value = "genmove")]
    pub a_genmove: String,
    /// The command engine B's moves are asked with.
    #[arg(long, default_value = "genmove")]
    pub b_genmove: String,
    /// Let the engines' stderr through (default: discarded).
    #[arg(long)]
    pub engine_stderr: bool,
    /// Output folder: game-NNN.sgf, results.tsv, summary.txt. Rerunning with the same
    /// folder resumes: finished games are kept.
    #[arg(long)]
    pub out: PathBuf,
    /// Play only shard K of N (K counted from 0, below N): the games numbered K, K+N,
    /// K+2N, ... of the --games, with the game numbers and colours of the whole match, to
    /// spread one match over machines (each with its own --out); `tengen match-merge`
    /// sums their folders.
    #[arg(long, value_name = "K/N", value_parser = Shard::parse)]
    pub shard: Option<Shard>,
}

/// A share of a match's games: those whose number is `index` modulo `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// `K/N` with `0 <= K < N`.
    pub fn parse(s: &str) -> Result<Shard, String> {
        let (k, n) = s
            .split_once('/')
            .ok_or_else(|| format!("'{s}' is not K/N (shard K of N, K from 0)"))?;
        let count = crate::cli::number_in(n, 1usize, 1_000_000)?;
        let index = crate::cli::number_in(k, 0usize, count - 1)?;
        Ok(Shard { index, count })
    }

    /// Whether game number `game` is in this shard.
    pub fn has(&self, game: usize) -> bool {
        game % self.count == self.index
    }
}

/// Options of `tengen match-merge`.
#[derive(Args, Debug, Clone)]
pub struct MergeArgs {
    /// Output folders of `tengen match` runs of one match (its shards, say), each with its
    /// match.txt and results.tsv.
    #[arg(required = true, value_name = "DIR")]
    pub dirs: Vec<PathBuf>,
}
