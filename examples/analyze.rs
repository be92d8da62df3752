//! Prints a search's root candidates for a position given as GTP commands on stdin:
//! `analyze [PLAYOUTS] [resumed]` (one thread, seed 1). For looking into a move choice.
use std::io::Read;
use tengen::engine::{Engine, Settings};
use tengen::gtp::{parse_command, Context, Executor};
use tengen::search::{Limits, Search};
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
