//! Tools for looking into the engine, one binary (one link for `cargo test` to build):
//!
//! - `probe analyze [PLAYOUTS] [resumed] [noseki]`: a search's root candidates for a
//!   position given as GTP commands on stdin (one thread, seed 1). For a move choice.
//! - `probe ownership [search [N]]`: the ownership map of a position given as GTP commands
//!   on stdin: from light playouts, or from an N-playout search (the one that judges dead
//!   stones).
//! - `probe playouts [N] [SIZE]`: N light playouts (default 100,000 on 9x9) and the time: a
//!   repeatable workload for `valgrind --tool=callgrind` or best-of-N timing.
use std::io::Read;
use tengen::engine::{Engine, Settings};
use tengen::gtp::{parse_command, Context, Executor};
use tengen::playout::{playout, Light, PlayoutRng};
use tengen::search::{Limits, Search};
use tengen::{Board, Color};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rest = args.get(1..).unwrap_or(&[]);
    match args.first().map(String::as_str) {
        Some("analyze") => analyze(rest),
        Some("ownership") => ownership(rest),
        Some("playouts") => playouts(rest),
        _ => eprintln!("usage: probe analyze|ownership|playouts [ARGS] (see examples/probe.rs)"),
    }
}

/// The engine after the GTP commands on stdin.
fn engine_from_stdin() -> Engine {
    let mut e = Engine::new(tengen::Rules::chinese(), Settings::default());
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    for l in s.lines() {
        if let Ok(c) = parse_command(l).command {
            let _ = e.execute(c, &Context::new());
        }
    }
    e
}

fn analyze(args: &[String]) {
    let e = engine_from_stdin();
    let n: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(1000);
    let resumed = args.iter().any(|a| a == "resumed");
    let mut config = e.settings().search.clone();
    config.threads = 1;
    config.seki_moves = !args.iter().any(|a| a == "noseki");
    let mut search = Search::new(config);
    let limits = Limits::playouts(n);
    let game = e.game().clone();
    let a = if resumed {
        search.run_resumed(&game, game.to_move(), &limits)
    } else {
        search.run(&game, game.to_move(), &limits)
    };
    println!(
        "winrate {:.3} playouts {} nodes {}",
        a.winrate, a.playouts, a.tree_nodes
    );
    for c in a.candidates.iter().take(10) {
        let pv: Vec<String> = c.pv.iter().take(12).map(|m| mv(*m)).collect();
        println!(
            "{} visits {} winrate {:.3} prior {:.2} amaf {}/{:.3} score {:.1} pv {}",
            mv(c.mv),
            c.visits,
            c.winrate,
            c.prior,
            c.amaf_visits,
            c.amaf_winrate,
            c.score_black,
            pv.join(" ")
        );
    }
}

fn mv(m: tengen::Move) -> String {
    match m {
        tengen::Move::Pass => "pass".into(),
        tengen::Move::Place(p) => {
            let (c, r) = p.coord();
            format!("{}{}", "ABCDEFGHJKLMNOPQRST".as_bytes()[c] as char, r + 1)
        }
    }
}

fn ownership(args: &[String]) {
    let e = engine_from_stdin();
    let own: Vec<f64> = if args.first().map(String::as_str) == Some("search") {
        let n = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(1000);
        let config = e.settings().search.clone();
        tengen::status::search_ownership(e.game(), &config, n, &|| false)
            .into_iter()
            .map(f64::from)
            .collect()
    } else {
        tengen::status::playout_ownership(e.game(), e.settings().search.seed, 1000)
    };
    let n = e.game().size();
    for row in (0..n).rev() {
        for col in 0..n {
            print!(
                "{:3.0}",
                own[tengen::Point::from_coord(col, row).index()] * 9.0
            );
        }
        println!();
    }
}

fn playouts(args: &[String]) {
    let n: u64 = args.first().and_then(|a| a.parse().ok()).unwrap_or(100_000);
    let size: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(9);
    let base = Board::new(size).expect("size in 2..=25");
    let mut b = base.clone();
    let mut rng = PlayoutRng::seed_from_u64(1);
    let t = std::time::Instant::now();
    let mut moves = 0;
    for _ in 0..n {
        b.copy_from(&base);
        moves += playout(&mut b, Color::Black, &mut Light, &mut rng).moves;
    }
    let s = t.elapsed().as_secs_f64();
    println!(
        "{n} playouts, {moves} moves, {s:.3} s, {:.0} playouts/s",
        n as f64 / s
    );
}
