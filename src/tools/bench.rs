//! `tengen bench`: light playouts from the empty board (playouts and moves a second),
//! with `--search` one full search from the empty board per size (playouts a second, tree
//! nodes, peak memory), or with `--nn MODEL` network evaluations of a mid-game position
//! (evaluations a second and the latency of one, one evaluator per thread).

use clap::Args;

use crate::board::{Color, Move, Point};
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
    /// Seconds per size (bare playouts and --nn).
    #[arg(long, default_value_t = 5.0, value_parser = crate::cli::parse_move_time)]
    pub seconds: f64,
    /// Evaluate this KataGo network (.bin.gz) on a mid-game position instead of running
    /// playouts: evaluations a second and per-evaluation latency, one evaluator per thread
    /// (batch one), the symmetry turning from one evaluation to the next (from --seed).
    #[arg(long, value_name = "MODEL", conflicts_with = "search")]
    pub nn: Option<std::path::PathBuf>,
    /// With --nn: positions a thread evaluates in one pass of the network (the position in
    /// that many successive symmetries); with --in-search, the search's `nn-batch`.
    #[arg(long, default_value_t = 1, requires = "nn", value_parser = |s: &str| crate::cli::number_in(s, 1usize, 64))]
    pub batch: usize,
    /// With --nn: time the network inside a search from the position (PUCT, --threads
    /// threads, --seconds a size) instead of isolated passes: evaluations a second (cache
    /// hits left out), the mean batch, milliseconds a pass, visits a second.
    #[arg(long, requires = "nn")]
    pub in_search: bool,
    /// With --nn (isolated passes): also a line of where a pass spends its time, by kind
    /// of layer (milliseconds a pass and shares of the pass).
    #[arg(long, requires = "nn", conflicts_with = "in_search")]
    pub profile: bool,
    /// With --nn: the dense layers in fp32 (KataGo's outputs), bf16 (on AVX-512 CPUs,
    /// emulated without AVX512-BF16) or int8; auto is the plan's choice for the CPU. The
    /// output line says which precision and kernels ran.
    #[arg(long, default_value = "auto", requires = "nn", value_parser = ["auto", "fp32", "bf16", "int8"])]
    pub precision: String,
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
    if let Some(path) = &args.nn {
        let model = std::sync::Arc::new(crate::nn::Model::load(path)?);
        let precision = crate::nn::Precision::parse(&args.precision)
            .map_err(|e| anyhow::anyhow!("--precision {}: {e}", args.precision))?;
        let entries = crate::nn::service::entries_for_bytes(crate::search::cache_bytes(
            crate::search::DEFAULT_MAX_MEMORY_MIB,
        ));
        let service = std::sync::Arc::new(crate::nn::Service::new(model, precision, entries)?);
        let model = service.model().clone();
        let kind = service.plan().kind;
        // One core's multiply-add peak, the best of a few short runs.
        let peak = (0..5)
            .map(|_| crate::nn::fma_peak_gflops(1 << 22))
            .fold(0.0, f64::max);
        for &size in &args.sizes {
            let game = nn_position(size, args.seed)
                .ok_or_else(|| anyhow::anyhow!("size {size} is not in 2..=25"))?;
            if args.in_search {
                nn_search_bench(&service, &game, args, peak)?;
                continue;
            }
            let r = nn_bench(
                &service,
                &game,
                args.seconds,
                args.threads,
                args.batch,
                args.seed,
                args.profile,
            )?;
            println!(
                "mode=nn model={} precision={} kernels={} cpu={} size={} threads={} batch={} evals={} seconds={:.2} evals_per_s={:.2} latency_ms_mean={:.2} latency_ms_median={:.2} latency_ms_max={:.2} cpu_ms={} gflops_per_s={:.1} core_peak_gflops={:.1} peak_share={:.2}",
                model.name,
                kind.name(),
                crate::nn::kernels(kind, size * size * r.batch),
                crate::nn::cpu::features().word(),
                size,
                r.threads,
                r.batch,
                r.evals(),
                r.seconds,
                r.evals_per_second(),
                r.mean_ms(),
                r.quantile_ms(0.5),
                r.quantile_ms(1.0),
                r.cpu_ms().map_or("?".to_string(), |c| format!("{c:.2}")),
                crate::nn::forward::flops(&model, size) as f64 * r.evals_per_second() / 1e9,
                peak,
                crate::nn::forward::flops(&model, size) as f64 * r.evals_per_second()
                    / 1e9
                    / (peak * r.threads as f64),
            );
            if let Some(p) = &r.profile {
                println!("{}", profile_line(&model.name, size, p));
            }
        }
        return Ok(());
    }
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

/// Throughput and latency of network evaluations.
#[derive(Clone, Debug)]
pub struct NnBenchResult {
    pub threads: usize,
    /// Positions a pass of the network.
    pub batch: usize,
    /// Seconds of each pass of the network, over all threads.
    pub latencies: Vec<f64>,
    /// CPU seconds the evaluating threads used while timed (where the system tells it):
    /// less than `threads x seconds` when other processes shared the cores.
    pub cpu_seconds: Option<f64>,
    pub seconds: f64,
    /// With profiling, the time by kind of layer over every thread's timed passes.
    pub profile: Option<crate::nn::profile::Profile>,
}

/// `bench --nn --profile`'s line: per kind of layer, milliseconds a pass and its share of
/// the pass.
fn profile_line(model: &str, size: usize, p: &crate::nn::profile::Profile) -> String {
    use crate::nn::profile::Part;
    let passes = p.passes.max(1) as f64;
    let total = p.total().max(1e-12);
    let mut line = format!(
        "mode=nn-profile model={model} size={size} passes={} ms_per_pass={:.3}",
        p.passes,
        1e3 * p.total() / passes
    );
    for part in Part::ALL {
        line += &format!(
            " {}={:.3}ms/{:.3}",
            part.name(),
            1e3 * p.seconds(part) / passes,
            p.seconds(part) / total
        );
    }
    line
}

impl NnBenchResult {
    /// Positions evaluated.
    pub fn evals(&self) -> usize {
        self.latencies.len() * self.batch
    }

    pub fn evals_per_second(&self) -> f64 {
        self.evals() as f64 / self.seconds.max(1e-9)
    }

    /// CPU milliseconds an evaluation, a measure that other load on the machine moves less
    /// than the wall clock.
    pub fn cpu_ms(&self) -> Option<f64> {
        self.cpu_seconds
            .map(|c| 1e3 * c / self.evals().max(1) as f64)
    }

    pub fn mean_ms(&self) -> f64 {
        1e3 * self.latencies.iter().sum::<f64>() / self.latencies.len().max(1) as f64
    }

    /// The `q` quantile (0 to 1) of the latencies, in milliseconds.
    pub fn quantile_ms(&self, q: f64) -> f64 {
        let mut v = self.latencies.clone();
        v.sort_by(f64::total_cmp);
        if v.is_empty() {
            return 0.0;
        }
        1e3 * v[((v.len() - 1) as f64 * q).round() as usize]
    }
}

/// 9x9: CGOS game 201395 (fuego-regression), 47 moves; 19x19: Master vs Huang Yunsong
/// (2017-01-04), 85 moves. Both positions are in the golden files of `tests/nn`.
const GAME_9: &str = "F4 E5 E4 D5 F5 F6 D4 G7 C5 C6 E6 D6 E7 B5 C4 D8 B6 H3 D7 C7 C8 B7 E8 B8 D9 A5 G6 F7 H7 H6 G8 G5 F8 G6 G4 H4 J6 H5 H8 G2 F2 F1 G3 E1 H2 G1 J2";
const GAME_19: &str = "Q16 Q4 D17 C4 C14 K17 E3 K3 D7 D5 H3 C10 D9 D10 E10 E11 C9 D12 F10 F5 C2 F7 G4 G5 H5 H6 J5 J6 K5 K6 L5 E9 B10 B11 E8 F9 F8 G9 G8 H9 B9 N3 H8 J9 J8 K8 K9 L8 J10 K10 L9 H10 M9 N7 J11 H11 E6 F4 F3 F6 J12 C15 C6 D15 N4 O3 R4 Q5 R5 R3 R7 Q6 G17 D3 D2 N17 O16 N16 O17 N15 Q13 O8 L11 R6 S6";

/// The position `bench --nn` evaluates: a real game's middle on 9x9 and 19x19; on other
/// sizes `2/5` of the board's points played by uniformly random legal moves from `seed`
/// (alternating, Black first, komi 7.5). `None` for a size beyond the board's.
pub fn nn_position(size: usize, seed: u64) -> Option<Game> {
    use rand::{rngs::SmallRng, Rng, SeedableRng};
    let mut game = Game::new(size, Rules::chinese())?;
    game.set_komi(7.5);
    let recorded = match size {
        9 => Some(GAME_9),
        19 => Some(GAME_19),
        _ => None,
    };
    if let Some(moves) = recorded {
        for (i, v) in moves.split_whitespace().enumerate() {
            let vertex: crate::gtp::parse::Vertex = v.parse().ok()?;
            let p = Point::from_coord(vertex.col as usize, vertex.row as usize);
            let color = if i % 2 == 0 {
                Color::Black
            } else {
                Color::White
            };
            game.play_record(color, Move::Place(p)).ok()?;
        }
        return Some(game);
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    for _ in 0..size * size * 2 / 5 {
        let color = game.to_move();
        let legal = game.legal_points(color);
        if legal.is_empty() {
            break;
        }
        let p = legal[rng.random_range(0..legal.len())];
        game.play(color, Move::Place(p)).ok()?;
    }
    Some(game)
}

/// `bench --nn --in-search`: one search of `args.seconds` from `game` with `model`, on
/// `args.threads` threads with `nn-batch` `args.batch`, and one line of what the network
/// did in it.
fn nn_search_bench(
    service: &std::sync::Arc<crate::nn::Service>,
    game: &Game,
    args: &BenchArgs,
    peak: f64,
) -> anyhow::Result<()> {
    use crate::search::leaf::EvaluatorSource;
    use std::sync::Arc;
    use std::time::Duration;
    let model = service.model();
    let kind = service.plan().kind;
    let before = service.runs();
    let mut config = SearchConfig {
        threads: args.threads.max(1),
        seed: args.seed,
        ..SearchConfig::default()
    };
    config.puct.batch = args.batch;
    let size = game.size();
    let batch = args.batch;
    let mut search = Search::new(config);
    search.set_evaluator(Some(service.clone() as Arc<dyn EvaluatorSource>));
    let a = search.run(
        game,
        game.to_move(),
        &Limits::time(Duration::from_secs_f64(args.seconds)),
    );
    drop(search);
    let after = service.runs();
    let r = crate::nn::eval::RunCounts {
        passes: after.passes - before.passes,
        positions: after.positions - before.positions,
        seconds: after.seconds - before.seconds,
    };
    let evals_per_s = r.positions as f64 / a.seconds.max(1e-9);
    println!(
        "mode=nn-search model={} precision={} kernels={} cpu={} size={} threads={} batch={} passes={} evals={} mean_batch={:.2} seconds={:.2} evals_per_s={:.2} ms_per_pass={:.1} visits={} visits_per_s={:.1} gflops_per_s={:.1} core_peak_gflops={:.1} peak_share={:.2}",
        model.name,
        kind.name(),
        crate::nn::kernels(kind, size * size * batch),
        crate::nn::cpu::features().word(),
        size,
        args.threads.max(1),
        batch,
        r.passes,
        r.positions,
        r.positions as f64 / r.passes.max(1) as f64,
        a.seconds,
        evals_per_s,
        1e3 * r.seconds / r.passes.max(1) as f64,
        a.playouts,
        a.playouts as f64 / a.seconds.max(1e-9),
        crate::nn::forward::flops(model, size) as f64 * evals_per_s / 1e9,
        peak,
        crate::nn::forward::flops(model, size) as f64 * evals_per_s
            / 1e9
            / (peak * args.threads.max(1) as f64),
    );
    Ok(())
}

/// Evaluates `game` with `model` on `threads` threads, one evaluator each, `batch`
/// positions a pass, for about `seconds` after one pass of warm-up per thread; thread `t`
/// starts at symmetry `seed + t` and turns to the next symmetry at every position.
pub fn nn_bench(
    service: &crate::nn::Service,
    game: &Game,
    seconds: f64,
    threads: usize,
    batch: usize,
    seed: u64,
    profile: bool,
) -> anyhow::Result<NnBenchResult> {
    use crate::nn::eval::{Evaluator, Request};
    use crate::nn::features::InputRules;
    use std::sync::Barrier;
    use std::time::Instant;
    let threads = threads.max(1);
    let rules = InputRules::from_rules(game.rules());
    let barrier = Barrier::new(threads + 1);
    let (latencies, cpu_seconds, seconds, prof) = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|t| {
                let barrier = &barrier;
                s.spawn(move || {
                    let mut eval = service.uncached();
                    let mut sym = (seed as usize).wrapping_add(t) % 8;
                    let pass = |eval: &mut Evaluator, sym: &mut usize| {
                        let requests: Vec<Request> = (0..batch)
                            .map(|_| {
                                *sym = (*sym + 1) % 8;
                                Request::new(game, rules, *sym)
                            })
                            .collect();
                        std::hint::black_box(eval.evaluate(&requests, &|| false));
                    };
                    pass(&mut eval, &mut sym);
                    eval.set_profiling(profile);
                    barrier.wait();
                    let start = Instant::now();
                    let cpu0 = thread_cpu_seconds();
                    let mut latencies = Vec::new();
                    while start.elapsed().as_secs_f64() < seconds {
                        let t0 = Instant::now();
                        pass(&mut eval, &mut sym);
                        latencies.push(t0.elapsed().as_secs_f64());
                    }
                    let cpu = thread_cpu_seconds().zip(cpu0).map(|(b, a)| b - a);
                    (latencies, cpu, eval.profile().clone())
                })
            })
            .collect();
        barrier.wait();
        let start = Instant::now();
        let mut all = Vec::new();
        let mut cpu = Some(0.0);
        let mut prof = crate::nn::profile::Profile::default();
        for h in handles {
            let (l, c, p) = h.join().unwrap_or_default();
            all.extend(l);
            cpu = cpu.zip(c).map(|(a, b)| a + b);
            prof.merge(&p);
        }
        (all, cpu, start.elapsed().as_secs_f64(), prof)
    });
    Ok(NnBenchResult {
        threads,
        batch,
        latencies,
        cpu_seconds,
        seconds,
        profile: profile.then_some(prof),
    })
}

/// The calling thread's CPU time in seconds.
fn thread_cpu_seconds() -> Option<f64> {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid timespec for the call to fill.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (r == 0).then_some(ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9)
}
