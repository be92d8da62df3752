//! `tengen bench`: light playouts from the empty board (playouts and moves a second), or
//! with `--search` one full search from the empty board per size (playouts a second, tree
//! nodes, peak memory).

use clap::Args;

use crate::board::Color;
use crate::engine::Settings;
use crate::game::Game;
use crate::playout::{playout, Light, PlayoutRng};
use crate::rules::Rules;
use crate::search::{Limits, Search, SearchConfig};

/// Throughput of light playouts from the empty board.
#[derive(Clone, Copy, Debug)]
pub struct BenchResult {
    pub size: usize,
    pub threads: usize,
    pub playouts: u64,
    pub moves: u64,
    pub seconds: f64,
}

impl BenchResult {
    pub fn playouts_per_second(&self) -> f64 {
        self.playouts as f64 / self.seconds
    }

    pub fn moves_per_second(&self) -> f64 {
        self.moves as f64 / self.seconds
    }
}

/// Runs light playouts from the empty `size` board on `threads` threads for about
/// `seconds`, each thread with its own RNG seeded from `seed`.
pub fn bench(size: usize, seconds: f64, threads: usize, seed: u64) -> Option<BenchResult> {
    let base = crate::board::Board::new(size)?;
    let threads = threads.max(1);
    let start = std::time::Instant::now();
    let totals: Vec<(u64, u64)> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let base = base.clone();
                s.spawn(move || {
                    let mut rng = PlayoutRng::seed_from_u64(seed.wrapping_add(t as u64));
                    let (mut n, mut moves) = (0u64, 0u64);
                    let mut b = base.clone();
                    while start.elapsed().as_secs_f64() < seconds {
                        for _ in 0..64 {
                            b.copy_from(&base);
                            let r = playout(&mut b, Color::Black, &mut Light, &mut rng);
                            moves += r.moves as u64;
                            n += 1;
                        }
                    }
                    (n, moves)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or((0, 0)))
            .collect()
    });
    Some(BenchResult {
        size,
        threads,
        playouts: totals.iter().map(|t| t.0).sum(),
        moves: totals.iter().map(|t| t.1).sum(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Peak resident memory of this process (VmHWM), in MiB, where /proc tells it.
pub fn peak_rss_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb.div_ceil(1024))
}

/// Options of `tengen bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Board size(s); repeat for several.
    #[arg(long = "size", default_values_t = [9usize, 19],
          value_parser = |s: &str| crate::cli::number_in(s, 2usize, crate::board::MAX_SIZE))]
    pub sizes: Vec<usize>,
    /// Threads (the playout threads, or the search's with --search).
    #[arg(long, default_value_t = 1, value_parser = crate::cli::parse_threads)]
    pub threads: usize,
    /// Seed of the playouts' random choices (each thread adds its index).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Seconds per size (bare playouts only).
    #[arg(long, default_value_t = 5.0, value_parser = crate::cli::parse_move_time)]
    pub seconds: f64,
    /// Run one full search from the empty board (komi 7.5, Chinese rules) per size instead
    /// of bare playouts; the options below apply to it alone.
    #[arg(long)]
    pub search: bool,
    /// Playouts of each search.
    #[arg(long, default_value_t = 10_000, value_parser = |s: &str| crate::cli::number_in(s, 1u64, 1_000_000_000_000))]
    pub playouts: u64,
    /// The search's bound on the process's memory, in MiB (the tree gets all but 32 MiB).
    #[arg(long, default_value_t = crate::search::DEFAULT_MAX_MEMORY_MIB, value_parser = |s: &str| crate::cli::number_in(s, 16usize, crate::cli::machine_mib()))]
    pub max_memory: usize,
    #[command(flatten)]
    pub tuning: crate::cli::TuningArgs,
}

/// The options of `bench` that only `--search` uses, and those it does not use: given on
/// the command line with the other mode, they would be ignored, so they are refused.
pub const SEARCH_ONLY: &[&str] = &["playouts", "max_memory", "set"];
pub const PLAYOUTS_ONLY: &[&str] = &["seconds"];

/// Runs the bench, one line per size on stdout.
pub fn run(args: &BenchArgs) -> anyhow::Result<()> {
    for &size in &args.sizes {
        if args.search {
            let mut settings = Settings {
                search: SearchConfig {
                    threads: args.threads.max(1),
                    seed: args.seed,
                    max_memory_mib: args.max_memory,
                    ..SearchConfig::default()
                },
                ..Settings::default()
            };
            args.tuning.apply(&mut settings);
            let mut game = Game::new(size, Rules::chinese())
                .ok_or_else(|| anyhow::anyhow!("size {size} is not in 2..=25"))?;
            game.set_komi(7.5);
            let mut s = Search::new(settings.search.clone());
            let a = s.run(&game, Color::Black, &Limits::playouts(args.playouts));
            println!(
                "mode=search size={} threads={} playouts={} seconds={:.2} playouts_per_s={:.0} nodes={} peak_rss_mib={}",
                size,
                settings.search.threads,
                a.playouts,
                a.seconds,
                a.playouts as f64 / a.seconds.max(1e-9),
                a.tree_nodes,
                peak_rss_mib().map_or("?".to_string(), |m| m.to_string())
            );
        } else {
            let r = bench(size, args.seconds, args.threads, args.seed)
                .ok_or_else(|| anyhow::anyhow!("size {size} is not in 2..=25"))?;
            println!(
                "size={} threads={} playouts_per_s={:.0} moves_per_s={:.0}",
                r.size,
                r.threads,
                r.playouts_per_second(),
                r.moves_per_second()
            );
        }
    }
    Ok(())
}
