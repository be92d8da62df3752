//! Prints the playout ownership map of a position given as GTP play commands on stdin.
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
    let own = e.ownership(1000);
    let n = e.game.size();
    for row in (0..n).rev() {
        for col in 0..n {
            print!("{:5.2}", own[tengen::Point::from_coord(col, row).index()]);
        }
        println!();
    }
}
