//! Timing manners over real pipes: a pondering engine answers the next command at once
//! and keeps what it thought; `# interrupt` stops a long `genmove`.

use std::time::{Duration, Instant};

use crate::common::gtp::Gtp;

/// Root visits from the search log lines (`... (N root visits) ...`), in order.
fn root_visits(log: &str, prefix: &str) -> Vec<u64> {
    log.lines()
        .filter(|l| l.contains(prefix))
        .filter_map(|l| {
            let i = l.find(" root visits")?;
            let head = &l[..i];
            let start = head.rfind(|c: char| !c.is_ascii_digit())? + 1;
            head[start..].parse().ok()
        })
        .collect()
}

#[test]
fn pondering_answers_at_once_and_keeps_the_tree() {
    let mut g = Gtp::start(&[
        "--ponder",
        "--threads",
        "1",
        "--playouts",
        "2000",
        "-v",
        "2",
    ]);
    g.ask("boardsize 9");
    g.ask("clear_board");
    g.ask("genmove b");
    std::thread::sleep(Duration::from_millis(700));
    // Any input stops the pondering at once; `reg_genmove` then searches on from the
    // pondered tree and names White's best reply (the most visited move, so the one
    // whose subtree the pondering searched most).
    let (reply, took) = g.ask("reg_genmove w");
    assert!(
        took < Duration::from_millis(1500),
        "reg_genmove took {took:?} after pondering"
    );
    let (_, took) = g.ask(&format!("play w {reply}"));
    assert!(
        took < Duration::from_millis(200),
        "play took {took:?} while pondering"
    );
    g.ask("genmove b");
    let log = g.finish();
    let ponder = root_visits(&log, "ponder:");
    let search = root_visits(&log, "search:");
    assert!(!ponder.is_empty(), "no pondering in the log:\n{log}");
    assert_eq!(search.len(), 3, "{log}");
    // reg_genmove's 2000 playouts went into the pondered tree.
    assert!(
        search[1] >= 2000 + ponder[0] / 2,
        "reg_genmove's root visits {search:?}, pondered {ponder:?}"
    );
    // The last search started from the kept subtree of White's reply: far more than its
    // own 2000 playouts.
    assert!(
        search[2] >= 3000,
        "last search's root visits {search:?}, pondered {ponder:?}"
    );
}

#[test]
fn interrupt_stops_a_long_genmove() {
    let mut g = Gtp::start(&["--threads", "1"]);
    g.ask("boardsize 9");
    g.ask("time_settings 0 60 1");
    g.send("genmove b");
    std::thread::sleep(Duration::from_millis(500));
    g.send("# interrupt");
    let t0 = Instant::now();
    let (mv, _) = g.answer();
    let took = t0.elapsed();
    assert!(!mv.is_empty());
    assert!(
        took < Duration::from_millis(200),
        "answered {took:?} after the interrupt"
    );
    g.finish();
}
