//! `tengen match-merge`: the finished games of several folders of one match (its shards)
//! summed into one summary, after checking that the folders hold the same match and share
//! no game. Plays nothing.

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

use anyhow::{bail, Context as _};

use super::args::MergeArgs;
use super::result::GameResult;
use super::summary::{Summary, Title};

/// The finished games in a match folder's `results.tsv` (well-formed rows only).
fn read_results(dir: &Path) -> anyhow::Result<Vec<GameResult>> {
    let path = dir.join("results.tsv");
    let text = fs::read_to_string(&path).with_context(|| format!("{}", path.display()))?;
    Ok(text
        .lines()
        .skip(1)
        .filter_map(GameResult::from_tsv)
        .collect())
}

/// `tengen match-merge`: the summary of the games of several folders of one match (the
/// shards of `--shard`, or runs that each played some of its games), as `tengen match`
/// prints it, its last line the machine-readable one. The folders' `match.txt` must agree
/// but for the shard, and no game may be in two folders.
pub fn merge(args: &MergeArgs) -> anyhow::Result<(Summary, String)> {
    let mut identity: Option<(String, &Path)> = None;
    let mut games: BTreeMap<usize, (GameResult, &Path)> = BTreeMap::new();
    for dir in &args.dirs {
        let id_path = dir.join("match.txt");
        let id = fs::read_to_string(&id_path)
            .with_context(|| format!("{} (not a tengen match folder?)", id_path.display()))?;
        let id: String = id
            .lines()
            .filter(|l| !l.starts_with("shard="))
            .map(|l| format!("{l}\n"))
            .collect();
        match &identity {
            Some((first, first_dir)) if *first != id => bail!(
                "{} and {} hold different matches (their match.txt differ)",
                first_dir.display(),
                dir.display()
            ),
            Some(_) => {}
            None => identity = Some((id, dir)),
        }
        let results = read_results(dir)?;
        eprintln!("{}: {} games", dir.display(), results.len());
        for r in results {
            if let Some((_, other)) = games.get(&r.game) {
                bail!(
                    "game {} is in both {} and {}",
                    r.game,
                    other.display(),
                    dir.display()
                );
            }
            games.insert(r.game, (r, dir));
        }
    }
    let (id, _) = identity.expect("clap requires a folder");
    let title = Title::from_identity(&id).context("match.txt lacks a=, b=, size= or komi=")?;
    let results: Vec<GameResult> = games.into_values().map(|(r, _)| r).collect();
    let summary = Summary::of(&results);
    let text = summary.text(&title) + &summary.machine_line() + "\n";
    Ok((summary, text))
}
