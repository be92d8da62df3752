//! A GoGui-style session over real pipes: upper-case moves, `time_left` before `genmove`,
//! `# interrupt` during a long `genmove`, `final_status_list dead`, live graphics on
//! stderr, the set-up and sequence commands, and every command `gogui-analyze_commands`
//! offers run once, its output in the form its type requires.

use std::time::{Duration, Instant};

use crate::common::gtp::Gtp;

fn is_vertex(t: &str, size: usize) -> bool {
    let cols = "ABCDEFGHJKLMNOPQRST";
    let mut ch = t.chars();
    let Some(c) = ch.next() else { return false };
    let row: usize = ch.as_str().parse().unwrap_or(0);
    cols[..size].contains(c) && (1..=size).contains(&row)
}

/// Checks `text` against GoGui's rules for the analyze type `kind`.
fn check_type(kind: &str, text: &str, size: usize) {
    match kind {
        "dboard" => {
            let rows: Vec<&str> = text.lines().collect();
            assert_eq!(rows.len(), size, "{text}");
            for r in rows {
                let v: Vec<f64> = r.split_whitespace().map(|x| x.parse().unwrap()).collect();
                assert_eq!(v.len(), size);
                assert!(v.iter().all(|x| (-1.0..=1.0).contains(x)));
            }
        }
        "pspairs" => {
            let t: Vec<&str> = text.split_whitespace().collect();
            assert!(!t.is_empty() && t.len().is_multiple_of(2), "{text}");
            for pair in t.chunks(2) {
                assert!(is_vertex(pair[0], size), "{text}");
            }
        }
        "gfx" => {
            for line in text.lines() {
                let mut w = line.split_whitespace();
                let cmd = w.next().unwrap();
                let rest: Vec<&str> = w.collect();
                match cmd {
                    "LABEL" => {
                        assert!(rest.len().is_multiple_of(2));
                        assert!(rest.chunks(2).all(|p| is_vertex(p[0], size)), "{line}");
                    }
                    "VAR" => {
                        assert!(rest.len().is_multiple_of(2));
                        for p in rest.chunks(2) {
                            assert!(p[0] == "b" || p[0] == "w", "{line}");
                            assert!(is_vertex(p[1], size) || p[1].eq_ignore_ascii_case("pass"));
                        }
                    }
                    "TEXT" => {}
                    other => panic!("unexpected gfx command {other}"),
                }
            }
        }
        "var" => {
            assert!(!text.is_empty());
            assert!(text
                .split_whitespace()
                .all(|t| is_vertex(t, size) || t == "pass"));
        }
        "plist" => assert!(text.split_whitespace().all(|t| is_vertex(t, size))),
        "string" => assert!(!text.is_empty()),
        other => panic!("type {other} not checked"),
    }
}

#[test]
fn a_gogui_session() {
    let mut g = Gtp::start(&["--threads", "2", "--live-gfx"]);
    for c in [
        "boardsize 9",
        "clear_board",
        "komi 7.5",
        "time_settings 0 2 1",
    ] {
        g.ask(c);
    }
    g.ask("play B E5");
    g.ask("play W C3");
    g.ask("time_left b 2 1");
    let (mv, took) = g.ask("genmove b");
    assert!(is_vertex(&mv, 9), "{mv}");
    assert!(took < Duration::from_millis(2500), "{took:?}");
    // Set-up and sequences.
    g.ask("clear_board");
    g.ask("gogui-setup b D4 w E5 b C3");
    g.ask("gogui-setup_player w");
    assert_eq!(g.ask("list_stones black").0, "D4 C3");
    g.send("gogui-play_sequence w F5 b F6 w Z1");
    assert!(g.answer_failure().starts_with("illegal move"));
    assert_eq!(g.ask("list_stones white").0, "E5");
    g.ask("gogui-play_sequence w F5 b F6");
    assert_eq!(g.ask("list_stones white").0, "E5 F5");
    // Every analyze command once, in its type's form.
    let list = g.ask("gogui-analyze_commands").0;
    let mut kinds = Vec::new();
    for line in list.lines() {
        let parts: Vec<&str> = line.splitn(3, '/').collect();
        assert_eq!(parts.len(), 3, "{line}");
        let (kind, command) = (parts[0], parts[2]);
        let (text, _) = g.ask(command);
        check_type(kind, &text, 9);
        kinds.push(kind.to_string());
    }
    for k in ["dboard", "pspairs", "gfx", "var", "string"] {
        assert!(kinds.iter().any(|x| x == k), "no {k} command");
    }
    // `# interrupt` stops a genmove that has a minute.
    g.ask("time_settings 60 0 0");
    g.send("genmove w");
    std::thread::sleep(Duration::from_millis(500));
    let t0 = Instant::now();
    g.send("# interrupt");
    let (mv, _) = g.answer();
    assert!(is_vertex(&mv, 9), "{mv}");
    assert!(
        t0.elapsed() < Duration::from_millis(300),
        "{:?}",
        t0.elapsed()
    );
    let (dead, _) = g.ask("final_status_list dead");
    check_type("plist", &dead, 9);
    let log = g.finish();
    assert!(
        log.contains("gogui-gfx:\nLABEL "),
        "no live graphics on stderr"
    );
    assert!(log.contains("gogui-gfx: CLEAR"));
    // A block of draw commands after a bare `gogui-gfx:` ends at an empty line.
    let block = &log[log.find("gogui-gfx:\nLABEL ").unwrap()..];
    let end = block.find("\n\n").expect("an empty line ends the block");
    assert!(block[..end]
        .lines()
        .skip(1)
        .all(|l| ["LABEL ", "VAR ", "TEXT "].iter().any(|k| l.starts_with(k))));
}
