//! Prints the ownership map of a position given as GTP commands on stdin: from light
//! playouts, or with `search [N]` as the first argument from an N-playout search (the one
//! that judges dead stones).
use std::io::Read;
use tengen::engine::{Engine, Settings};
use tengen::gtp::{parse_command, Context, Executor};
fn main() {
    let mut e = Engine::new(tengen::Rules::chinese(), Settings::default());
    let mut s = String::new();
    std::io::stdin().read_to_string(&mut s).unwrap();
    for l in s.lines() {
        if let Ok(c) = parse_command(l).command {
            let _ = e.execute(c, &Context::new());
        }
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
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
