//! `tengen train-local`: fits the playouts' local softmax ([`crate::playout::local`]) to
//! game records. A position counts where the opponent's last move was a stone and the
//! playout's capture and escape rules have nothing to say (so the softmax would be asked):
//! its competitors are the empty points around the last move that the playout may take,
//! each a team of one feature (its canonical mover-view 3x3 code), and "elsewhere"; the
//! move played wins (elsewhere when it is not one of them). Coulom's minorization-
//! maximization with one feature a competitor is the plain Bradley-Terry update
//! `gamma = (wins + 1) / (sum over positions of n / E + 2 / (gamma + 1))` (`n` how many of
//! the position's competitors carry the code, `E` the position's total strength; one
//! virtual win and loss against a strength of 1 as the prior).
//!
//! Every tenth game is held out; on it the log-likelihood a position of the fitted
//! softmax is printed beside that of the same softmax without shapes (every local point
//! 1, elsewhere fitted alone) and that of the hand-written shapes' choice
//! (`--playout-local 0`: a uniform choice among the matching shapes nine times in ten,
//! else a uniform random move), each as the probability of the local point played or of
//! elsewhere.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Instant;

use clap::Args;

use crate::board::Move;
use crate::game::Game;
use crate::playout::local::{canonical, mover_code, LocalTable};
use crate::playout::patterns;
use crate::playout::{local_points, Moggy, MoggyConfig, PlayoutRng};
use crate::record::{game_from_record, move_of_sgf};
use crate::rules::Rules;
use crate::sgf;

use super::train::{read_split, Split};

/// Options of `tengen train-local`.
#[derive(Args, Debug, Clone)]
pub struct LocalTrainArgs {
    /// Game records: SGF files, or folders searched for them.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// Where to write the strengths.
    #[arg(long, default_value = "weights/local3x3.bin")]
    pub out: PathBuf,
    /// Every n-th game is held out for measuring.
    #[arg(long, default_value_t = 10)]
    pub hold_out_every: usize,
    /// Only games on this board size (0: every size).
    #[arg(long, default_value_t = 0)]
    pub size: usize,
    /// Rounds of the update.
    #[arg(long, default_value_t = 30)]
    pub rounds: usize,
    /// Worker threads for reading the records.
    #[arg(long, default_value_t = 2)]
    pub threads: usize,
}

/// One position: the codes of its local points, the index of the one played (`None`:
/// elsewhere), how many of them match a hand-written shape and the empty points.
struct Position {
    codes: Vec<u16>,
    matches: Vec<bool>,
    played: Option<usize>,
    empties: usize,
}

fn positions_of(text: &str, size: usize) -> Vec<Position> {
    let Ok(rec) = sgf::parse_record(text) else {
        return Vec::new();
    };
    if size != 0 && rec.size != size {
        return Vec::new();
    }
    let Some(template) = Game::new(rec.size, Rules::chinese()) else {
        return Vec::new();
    };
    let Ok(mut game) = game_from_record(&rec, &template, Some(1)) else {
        return Vec::new();
    };
    let moggy = Moggy::new(MoggyConfig {
        capture_rate: 1.0,
        atari_escape_rate: 1.0,
        ..MoggyConfig::default()
    });
    let shapes = patterns::table();
    let mut rng = PlayoutRng::seed_from_u64(1);
    let mut out = Vec::new();
    let mut last: Option<Move> = None;
    for node in rec.nodes.iter().skip(1) {
        let Some((color, m)) = node.mv else {
            continue;
        };
        let mv = move_of_sgf(m);
        if let Some(Move::Place(l)) = last {
            let mut board = game.board().clone();
            if moggy.tactical(&mut board, color, l, &mut rng).is_empty() {
                let points = local_points(&board, color, l);
                if !points.is_empty() {
                    out.push(Position {
                        codes: points
                            .iter()
                            .map(|&p| canonical(mover_code(board.pattern3(p), color)))
                            .collect(),
                        matches: points
                            .iter()
                            .map(|&p| shapes.matches_at(&board, p))
                            .collect(),
                        played: points.iter().position(|&p| Move::Place(p) == mv),
                        empties: board.num_empty(),
                    });
                }
            }
        }
        if game.play_record(color, mv).is_err() {
            break;
        }
        last = Some(mv);
    }
    out
}

/// Log-likelihood a position of the table `gam` (index 0 elsewhere, codes through
/// `index`; unknown codes 1).
fn log_likelihood(positions: &[Position], gam: &[f64], index: &HashMap<u16, usize>) -> f64 {
    let g = |c: &u16| index.get(c).map_or(1.0, |&i| gam[i]);
    let ll: f64 = positions
        .iter()
        .map(|p| {
            let total: f64 = gam[0] + p.codes.iter().map(g).sum::<f64>();
            let won = p.played.map_or(gam[0], |i| g(&p.codes[i]));
            (won / total).ln()
        })
        .sum();
    ll / positions.len().max(1) as f64
}

/// The same for the hand-written shapes (pattern rate 0.9).
fn hand_log_likelihood(positions: &[Position]) -> f64 {
    let ll: f64 = positions
        .iter()
        .map(|p| {
            let n_match = p.matches.iter().filter(|&&m| m).count();
            let shape_rate = if n_match > 0 { 0.9 } else { 0.0 };
            let random = (1.0 - shape_rate) / p.empties.max(1) as f64;
            let prob = |i: usize| {
                random
                    + if p.matches[i] {
                        shape_rate / n_match as f64
                    } else {
                        0.0
                    }
            };
            let local: f64 = (0..p.codes.len()).map(prob).sum();
            match p.played {
                Some(i) => prob(i).ln(),
                None => (1.0 - local).max(1e-9).ln(),
            }
        })
        .sum();
    ll / positions.len().max(1) as f64
}

/// Runs `tengen train-local`.
pub fn run(args: &LocalTrainArgs) -> anyhow::Result<()> {
    let t0 = Instant::now();
    let Split {
        files, train, test, ..
    } = read_split(&args.paths, args.hold_out_every, args.threads, |text| {
        positions_of(text, args.size)
    })?;
    anyhow::ensure!(!train.is_empty(), "no training positions");
    // Index 0 is elsewhere; codes in order of first appearance.
    let mut index: HashMap<u16, usize> = HashMap::new();
    let mut codes: Vec<u16> = Vec::new();
    for p in &train {
        for &c in &p.codes {
            index.entry(c).or_insert_with(|| {
                codes.push(c);
                codes.len()
            });
        }
    }
    let n = codes.len() + 1;
    let mut wins = vec![0f64; n];
    for p in &train {
        wins[p.played.map_or(0, |i| index[&p.codes[i]])] += 1.0;
    }
    let elsewhere_share = wins[0] / train.len() as f64;
    eprintln!(
        "{files} records: {} training positions ({:.1}% played elsewhere), {} held out, {} shapes ({:.1} s)",
        train.len(),
        100.0 * elsewhere_share,
        test.len(),
        codes.len(),
        t0.elapsed().as_secs_f64()
    );
    let mut gam = vec![1.0f64; n];
    for round in 0..args.rounds {
        let mut den = vec![0f64; n];
        for p in &train {
            let idx = p.codes.iter().map(|c| index[c]);
            let total: f64 = gam[0] + idx.clone().map(|i| gam[i]).sum::<f64>();
            den[0] += 1.0 / total;
            for i in idx {
                den[i] += 1.0 / total;
            }
        }
        gam[0] = wins[0] / den[0];
        for i in 1..n {
            gam[i] = (wins[i] + 1.0) / (den[i] + 2.0 / (gam[i] + 1.0));
        }
        if round + 1 == args.rounds || (round + 1) % 10 == 0 {
            eprintln!(
                "round {:2}: log-likelihood a position: training {:.4}, held out {:.4}",
                round + 1,
                log_likelihood(&train, &gam, &index),
                log_likelihood(&test, &gam, &index)
            );
        }
    }
    let learned = log_likelihood(&test, &gam, &index);
    let hand = hand_log_likelihood(&test);
    // The baseline with no shapes: every local point 1, elsewhere fitted alone.
    let mut flat = vec![1.0f64; n];
    for _ in 0..args.rounds {
        let den: f64 = train
            .iter()
            .map(|p| 1.0 / (flat[0] + p.codes.len() as f64))
            .sum();
        flat[0] = wins[0] / den;
    }
    let uniform = log_likelihood(&test, &flat, &index);
    let pairs: Vec<(u16, f32)> = codes
        .iter()
        .enumerate()
        .map(|(i, &c)| (c, gam[i + 1] as f32))
        .collect();
    let bytes = LocalTable::to_bytes(gam[0] as f32, &pairs);
    std::fs::write(&args.out, &bytes)?;
    println!(
        "positions_train={} positions_test={} shapes={} elsewhere={:.3} heldout_ll={learned:.4} uniform_ll={uniform:.4} hand_ll={hand:.4} bytes={} out={}",
        train.len(),
        test.len(),
        codes.len(),
        gam[0],
        bytes.len(),
        args.out.display()
    );
    Ok(())
}
