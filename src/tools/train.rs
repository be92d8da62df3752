//! `tengen train-patterns`: fits the move model's strengths to the moves of game records
//! with Coulom's (2007) minorization-maximization for the generalized Bradley-Terry model.
//! Each position is a competition among its legal moves; a move is a team of its feature
//! values; the move played wins. One group at a time, each strength becomes
//! `(wins + 1) / (sum over positions of C / E + 2 / (gamma + 1))` (`C` the strength of
//! the teams with the feature, less the feature itself; `E` the position's total; a
//! virtual win and loss against a strength of 1 as the prior).
//!
//! Spatial patterns are harvested first: every pattern size around the moves played in
//! the training games, kept when seen at least `--min-count` times. A candidate's
//! spatial feature is its largest kept pattern.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;

use crate::board::Move;
use crate::game::Game;
use crate::record::{game_from_record, move_of_sgf};
use crate::rules::Rules;
use crate::sgf;

use crate::policy::features::{all_features, Context, Features, GROUP_SIZES, NONE, NUM_GROUPS};
use crate::policy::model::Model;
use crate::policy::spatial::NUM_SIZES;

/// Options of `tengen train-patterns`.
#[derive(Args, Debug, Clone)]
pub struct TrainArgs {
    /// Game records: SGF files, or folders searched for them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Where to write the weights.
    #[arg(long, default_value = "weights/patterns.bin")]
    pub out: PathBuf,
    /// Every n-th game (the n-th, 2n-th, ... in path order) is held out for measuring.
    #[arg(long, default_value_t = 10)]
    pub hold_out_every: usize,
    /// Keep a spatial pattern seen around at least this many played moves.
    #[arg(long, default_value_t = 3)]
    pub min_count: u32,
    /// Rounds of minorization-maximization (each updates every group once).
    #[arg(long, default_value_t = 4)]
    pub rounds: usize,
    /// Only games on this board size.
    #[arg(long, default_value_t = 19)]
    pub size: usize,
    /// The prior: this many virtual wins and as many losses of every feature against a
    /// strength of 1 (more pulls rare patterns toward 1).
    #[arg(long, default_value_t = 3.0)]
    pub prior_games: f64,
    /// Worker threads for feature extraction and fitting.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
}

/// One position: its candidates' features and which of them was played.
struct Position {
    candidates: Vec<Features>,
    played: usize,
}

/// The positions of one record, every move of its main line.
fn positions_of(text: &str, size: usize) -> Vec<Position> {
    let Ok(rec) = sgf::parse_record(text) else {
        return Vec::new();
    };
    if rec.size != size {
        return Vec::new();
    }
    let Some(template) = Game::new(size, Rules::chinese()) else {
        return Vec::new();
    };
    let Ok(mut game) = game_from_record(&rec, &template, Some(1)) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut history: Vec<Move> = Vec::new();
    for node in rec.nodes.iter().skip(1) {
        let Some((color, m)) = node.mv else {
            continue;
        };
        let mv = move_of_sgf(m);
        let ctx = Context {
            color,
            last: history.last().copied(),
            before: history.len().checked_sub(2).map(|i| history[i]),
            third: history.len().checked_sub(3).map(|i| history[i]),
        };
        let cands = all_features(game.board(), &ctx, &|_| true, None);
        if let Some(played) = cands.iter().position(|(c, _)| *c == mv) {
            out.push(Position {
                candidates: cands.into_iter().map(|(_, f)| f).collect(),
                played,
            });
        }
        if game.play_record(color, mv).is_err() {
            break;
        }
        history.push(mv);
    }
    out
}

/// Records under `paths` (folders searched recursively), sorted.
fn record_files(paths: &[PathBuf]) -> Vec<PathBuf> {
    fn walk(p: &Path, out: &mut Vec<PathBuf>) {
        if p.is_dir() {
            if let Ok(rd) = std::fs::read_dir(p) {
                for e in rd.flatten() {
                    walk(&e.path(), out);
                }
            }
        } else if p.extension().is_some_and(|e| e.eq_ignore_ascii_case("sgf")) {
            out.push(p.to_path_buf());
        }
    }
    let mut out = Vec::new();
    for p in paths {
        walk(p, &mut out);
    }
    out.sort();
    out
}

/// Splits `items` into `threads` chunks and maps them in parallel, keeping order.
fn par_map<T: Sync, R: Send>(items: &[T], threads: usize, f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let chunk = items.len().div_ceil(threads.max(1)).max(1);
    std::thread::scope(|s| {
        let handles: Vec<_> = items
            .chunks(chunk)
            .map(|c| s.spawn(|| c.iter().map(&f).collect::<Vec<R>>()))
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("worker"))
            .collect()
    })
}

/// Move-prediction rates of `model` on `positions`: the share where the move played is
/// the model's first choice, and among its first five (ties count against the model).
fn prediction_rates(model: &Model, positions: &[Position]) -> (f64, f64) {
    let (mut top1, mut top5) = (0usize, 0usize);
    for p in positions {
        let s: Vec<f64> = p.candidates.iter().map(|f| model.strength(f)).collect();
        let mine = s[p.played];
        let rank = s
            .iter()
            .enumerate()
            .filter(|&(i, &v)| i != p.played && v >= mine)
            .count();
        top1 += usize::from(rank < 1);
        top5 += usize::from(rank < 5);
    }
    let n = positions.len().max(1) as f64;
    (top1 as f64 / n, top5 as f64 / n)
}

/// The training set in compact form: per candidate, its global feature indices.
struct Matrix {
    /// `NUM_GROUPS + 2` indices per candidate (the spatial pattern, then the shape) (`u32::MAX` for none).
    feats: Vec<[u32; NUM_GROUPS + 2]>,
    /// Position `j`'s candidates are `starts[j]..starts[j + 1]`.
    starts: Vec<usize>,
    /// Where each group's indices begin (the spatial group last); the total at the end.
    bases: Vec<u32>,
    /// Wins of each feature.
    wins: Vec<f64>,
}

const ABSENT: u32 = u32::MAX;

fn build_matrix(
    train: &[Position],
    dict: &HashMap<u64, u32>,
    shapes: &HashMap<u64, u32>,
) -> Matrix {
    let mut bases = Vec::with_capacity(NUM_GROUPS + 2);
    let mut b = 0u32;
    for &n in GROUP_SIZES.iter() {
        bases.push(b);
        b += n as u32;
    }
    bases.push(b);
    bases.push(b + dict.len() as u32);
    bases.push(b + (dict.len() + shapes.len()) as u32);
    let total = *bases.last().expect("bases") as usize;
    let mut feats = Vec::new();
    let mut starts = vec![0];
    let mut wins = vec![0.0; total];
    for p in train {
        for (i, f) in p.candidates.iter().enumerate() {
            let mut row = [ABSENT; NUM_GROUPS + 2];
            for g in 0..NUM_GROUPS {
                if f.values[g] != NONE {
                    row[g] = bases[g] + f.values[g] as u32;
                }
            }
            if let Some(&k) = (0..NUM_SIZES)
                .rev()
                .find_map(|k| dict.get(&f.spatial[k]).filter(|_| f.spatial[k] != 0))
            {
                row[NUM_GROUPS] = bases[NUM_GROUPS] + k;
            }
            if let Some(&k) = shapes.get(&f.shape) {
                row[NUM_GROUPS + 1] = bases[NUM_GROUPS + 1] + k;
            }
            if i == p.played {
                for &x in row.iter().filter(|&&x| x != ABSENT) {
                    wins[x as usize] += 1.0;
                }
            }
            feats.push(row);
        }
        starts.push(feats.len());
    }
    Matrix {
        feats,
        starts,
        bases,
        wins,
    }
}

/// One minorization-maximization update of the features of group `g`; returns the
/// training log-likelihood per position before the update.
fn mm_update(m: &Matrix, gammas: &mut [f64], g: usize, threads: usize, prior: f64) -> f64 {
    let positions: Vec<usize> = (0..m.starts.len() - 1).collect();
    let chunk = positions.len().div_ceil(threads.max(1)).max(1);
    let (lo, hi) = (m.bases[g] as usize, m.bases[g + 1] as usize);
    let gam: &[f64] = gammas;
    let chunks: Vec<&[usize]> = positions.chunks(chunk).collect();
    let parts: Vec<(Vec<f64>, f64)> = par_map(&chunks, threads, |c| {
        let mut den = vec![0.0f64; hi - lo];
        let mut ll = 0.0;
        let mut strengths = Vec::new();
        for &j in c.iter() {
            let rows = &m.feats[m.starts[j]..m.starts[j + 1]];
            strengths.clear();
            let mut e = 0.0;
            for row in rows {
                let mut st = 1.0;
                for &x in row.iter().filter(|&&x| x != ABSENT) {
                    st *= gam[x as usize];
                }
                strengths.push(st);
                e += st;
            }
            for (row, &st) in rows.iter().zip(&strengths) {
                let x = row[g];
                if x != ABSENT {
                    den[x as usize - lo] += st / gam[x as usize] / e;
                }
            }
            // The winners' part is added from `wins` below.
            ll -= e.ln();
        }
        (den, ll)
    });
    let mut den = vec![0.0f64; hi - lo];
    let mut ll = 0.0;
    for (d, l) in parts {
        for (a, b) in den.iter_mut().zip(d) {
            *a += b;
        }
        ll += l;
    }
    // The winners' part of the log-likelihood: sum over wins of ln gamma.
    ll += m
        .wins
        .iter()
        .zip(gam.iter())
        .map(|(w, g)| w * g.ln())
        .sum::<f64>();
    for (i, d) in den.iter().enumerate() {
        let x = lo + i;
        let prior_den = 2.0 * prior / (gammas[x] + 1.0);
        gammas[x] = (m.wins[x] + prior) / (d + prior_den);
    }
    ll / (m.starts.len() - 1).max(1) as f64
}

/// The keys (0 skipped) seen at least `min_count` times, sorted, with their indices, and
/// how many distinct keys there were.
fn harvest(
    keys: impl Iterator<Item = u64>,
    min_count: u32,
) -> (Vec<u64>, HashMap<u64, u32>, usize) {
    let mut counts: HashMap<u64, u32> = HashMap::new();
    for k in keys.filter(|&k| k != 0) {
        *counts.entry(k).or_insert(0) += 1;
    }
    let mut kept: Vec<u64> = counts
        .iter()
        .filter(|(_, &c)| c >= min_count)
        .map(|(&k, _)| k)
        .collect();
    kept.sort_unstable();
    let index = kept
        .iter()
        .enumerate()
        .map(|(i, &k)| (k, i as u32))
        .collect();
    (kept, index, counts.len())
}

/// The positions of the records under `paths`, split into training and held out.
pub(crate) struct Split<P> {
    /// Records read.
    pub files: usize,
    pub train: Vec<P>,
    pub test: Vec<P>,
    /// Records that gave positions, and those of them held out.
    pub games: usize,
    pub test_games: usize,
}

/// Reads the records under `paths` on `threads` threads, each through `positions`, and
/// holds out every `every`-th (at least every second) in path order.
pub(crate) fn read_split<P: Send>(
    paths: &[PathBuf],
    every: usize,
    threads: usize,
    positions: impl Fn(&str) -> Vec<P> + Sync,
) -> anyhow::Result<Split<P>> {
    let files = record_files(paths);
    anyhow::ensure!(!files.is_empty(), "no SGF files under {paths:?}");
    let every = every.max(2);
    let per_game: Vec<(bool, Vec<P>)> = par_map(
        &files.iter().enumerate().collect::<Vec<_>>(),
        threads,
        |(i, path)| {
            let text = crate::sgf::read_file_text(path).unwrap_or_default();
            ((i + 1) % every == 0, positions(&text))
        },
    );
    let games = per_game.iter().filter(|(_, p)| !p.is_empty()).count();
    let test_games = per_game.iter().filter(|(t, p)| *t && !p.is_empty()).count();
    let (mut train, mut test) = (Vec::new(), Vec::new());
    for (t, ps) in per_game {
        if t {
            test.extend(ps);
        } else {
            train.extend(ps);
        }
    }
    Ok(Split {
        files: files.len(),
        train,
        test,
        games,
        test_games,
    })
}

/// Runs `tengen train-patterns`.
pub fn run(args: &TrainArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let Split {
        files,
        train,
        test,
        games,
        test_games,
    } = read_split(&args.paths, args.hold_out_every, args.threads, |text| {
        positions_of(text, args.size)
    })?;
    let candidates: usize = train.iter().map(|p| p.candidates.len()).sum();
    eprintln!(
        "{files} records, {games} games of {}x{}: {} training positions ({candidates} candidates) from {} games, {} test positions from {test_games} games ({:.1} s)",
        args.size,
        args.size,
        train.len(),
        games - test_games,
        test.len(),
        t0.elapsed().as_secs_f64()
    );

    // Harvest the spatial patterns and the 3x3 shapes around the moves played.
    let played = || train.iter().map(|p| &p.candidates[p.played]);
    let (kept, dict, seen) = harvest(played().flat_map(|f| f.spatial), args.min_count);
    eprintln!(
        "{seen} distinct patterns around played moves, {} seen at least {} times",
        kept.len(),
        args.min_count
    );
    let (shapes, shape_dict, seen) = harvest(played().map(|f| f.shape), args.min_count);
    eprintln!(
        "{seen} distinct 3x3 shapes with liberties around played moves, {} kept",
        shapes.len()
    );
    let m = build_matrix(&train, &dict, &shape_dict);
    drop(train);
    let mut gammas = vec![1.0f64; *m.bases.last().expect("bases") as usize];
    let to_model = |gammas: &[f64]| Model {
        groups: (0..NUM_GROUPS)
            .map(|g| {
                gammas[m.bases[g] as usize..m.bases[g + 1] as usize]
                    .iter()
                    .map(|&x| x as f32)
                    .collect()
            })
            .collect(),
        spatial: kept
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, gammas[m.bases[NUM_GROUPS] as usize + i] as f32))
            .collect(),
        shapes: shapes
            .iter()
            .enumerate()
            .map(|(i, &k)| (k, gammas[m.bases[NUM_GROUPS + 1] as usize + i] as f32))
            .collect(),
    };
    for round in 0..args.rounds {
        let mut ll = 0.0;
        for g in 0..NUM_GROUPS + 2 {
            ll = mm_update(&m, &mut gammas, g, args.threads, args.prior_games);
        }
        let model = to_model(&gammas);
        let (t1, t5) = prediction_rates(&model, &test);
        eprintln!(
            "round {:2}: training log-likelihood {ll:.4} a move; held out: top-1 {:.2}%, top-5 {:.2}% ({:.0} s)",
            round + 1,
            100.0 * t1,
            100.0 * t5,
            t0.elapsed().as_secs_f64()
        );
    }
    let model = to_model(&gammas);
    let (t1, t5) = prediction_rates(&model, &test);
    let bytes = model.to_bytes();
    std::fs::write(&args.out, &bytes)?;
    println!(
        "positions_train={} positions_test={} patterns={} top1={:.4} top5={:.4} bytes={} out={}",
        m.starts.len() - 1,
        test.len(),
        kept.len(),
        t1,
        t5,
        bytes.len(),
        args.out.display()
    );
    Ok(())
}
