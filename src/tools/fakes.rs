//! Fake GTP engines for testing the tools that drive engines, built into the `tengen`
//! binary as hidden subcommands so that the tests always have them (they were examples,
//! which a kernel commit deleted while the tests that needed them skipped in silence):
//!
//! - `tengen fake-gtp`: GTP v2 §3.1 preprocessing and framing, a few canned commands and no
//!   Go rules (`hang` never answers, `die` exits): the regression runner's process handling
//!   and `scripts/regress_diff.py`.
//! - `tengen scripted-gtp [OPTIONS]`: plays legal moves with Tengen's own rules (the first
//!   legal point, not its own eye, in a seeded order) and misbehaves on request: `tengen
//!   match`'s end-to-end tests. Options (N counts this engine's genmoves from 1): `--name S`,
//!   `--pass-after N` (pass from the Nth genmove on), `--illegal-at N` (answer an occupied
//!   point), `--crash-at N` (exit), `--hang-at N` (never answer), `--garbage-at N` (answer
//!   `= banana`), `--resign-at N`, `--sleep S` (every genmove), `--sleep-at N:S`,
//!   `--startup S` (sleep before reading anything), `--stderr-lines N` (written to stderr
//!   at every command), `--refuse-time` (`?` to time_settings, kgs-time_settings and
//!   time_left), `--score TEXT` (final_score answer; default Tengen's count with every
//!   stone alive), `--seed N`, `--log FILE` (every command received).
//!
//! Neither is listed by `tengen --help`: they are test doubles, not tools.

use std::io::{self, BufRead, Write};
use std::time::Duration;

use crate::gtp::GtpMove;
use crate::notation::move_text;
use crate::{Color, Game, Move, Rules};

/// `tengen fake-gtp`: answers until `quit`, `die` or the end of its input.
pub fn fake_gtp() {
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    let mut input = stdin.lock();
    loop {
        let mut raw = Vec::new();
        match input.read_until(b'\n', &mut raw) {
            Ok(0) | Err(_) => return,
            Ok(_) => {}
        }
        let mut line: Vec<u8> = raw
            .iter()
            .copied()
            .filter(|&b| b == b'\t' || !(b < 32 || b == 127))
            .map(|b| if b == b'\t' { b' ' } else { b })
            .collect();
        if let Some(pos) = line.iter().position(|&b| b == b'#') {
            line.truncate(pos);
        }
        let line = String::from_utf8_lossy(&line).trim().to_string();
        if line.is_empty() {
            continue;
        }
        let mut words = line.split_whitespace();
        let mut first = words.next().unwrap_or("");
        let mut id = String::new();
        if first.bytes().all(|b| b.is_ascii_digit()) {
            id = first.to_string();
            first = words.next().unwrap_or("");
        }
        let (ok, text) = match first {
            "name" => (true, "Fake".to_string()),
            "protocol_version" => (true, "2".to_string()),
            "version" => (true, "0.1".to_string()),
            "showboard" => (true, "\n  A B\n2 . . 2\n1 . . 1\n  A B".to_string()),
            "echo" => (true, words.collect::<Vec<_>>().join(" ")),
            "fail" => (false, words.collect::<Vec<_>>().join(" ")),
            "quit" => {
                let _ = write!(out, "={id}\n\n");
                let _ = out.flush();
                return;
            }
            "die" => return,
            "hang" => loop {
                std::thread::sleep(std::time::Duration::from_secs(3600));
            },
            _ => (false, "unknown command".to_string()),
        };
        let mark = if ok { '=' } else { '?' };
        let sep = if text.is_empty() { "" } else { " " };
        if write!(out, "{mark}{id}{sep}{text}\n\n").is_err() || out.flush().is_err() {
            return;
        }
    }
}

#[derive(Default)]
struct Script {
    name: String,
    pass_after: Option<u32>,
    illegal_at: Option<u32>,
    crash_at: Option<u32>,
    hang_at: Option<u32>,
    garbage_at: Option<u32>,
    resign_at: Option<u32>,
    sleep: f64,
    sleep_at: Option<(u32, f64)>,
    startup: f64,
    stderr_lines: usize,
    refuse_time: bool,
    score: Option<String>,
    seed: u64,
    log: Option<std::fs::File>,
}

fn parse_args(args: &[String]) -> Result<Script, String> {
    let mut s = Script {
        name: "Scripted".into(),
        ..Script::default()
    };
    let mut i = 0;
    while i < args.len() {
        let key = args[i].as_str();
        let val = args.get(i + 1).cloned().unwrap_or_default();
        let n = || val.parse::<u32>().ok();
        let f = || val.parse::<f64>().unwrap_or(0.0);
        match key {
            "--name" => s.name = val.clone(),
            "--pass-after" => s.pass_after = n(),
            "--illegal-at" => s.illegal_at = n(),
            "--crash-at" => s.crash_at = n(),
            "--hang-at" => s.hang_at = n(),
            "--garbage-at" => s.garbage_at = n(),
            "--resign-at" => s.resign_at = n(),
            "--sleep" => s.sleep = f(),
            "--sleep-at" => {
                s.sleep_at = val
                    .split_once(':')
                    .and_then(|(a, b)| Some((a.parse().ok()?, b.parse().ok()?)))
            }
            "--startup" => s.startup = f(),
            "--stderr-lines" => s.stderr_lines = n().unwrap_or(0) as usize,
            "--refuse-time" => {
                s.refuse_time = true;
                i += 1;
                continue;
            }
            "--score" => s.score = Some(val.clone()),
            "--seed" => s.seed = val.parse().unwrap_or(0),
            "--log" => s.log = std::fs::File::create(&val).ok(),
            other => return Err(format!("scripted-gtp: unknown option {other}")),
        }
        i += 2;
    }
    Ok(s)
}

fn color_of(word: &str) -> Option<Color> {
    match word.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

/// `tengen scripted-gtp ARGS`: plays until `quit` or the end of its input; an unknown
/// option is an error (exit status 2).
pub fn scripted_gtp(args: &[String]) -> Result<(), String> {
    let mut s = parse_args(args)?;
    if s.startup > 0.0 {
        std::thread::sleep(Duration::from_secs_f64(s.startup));
    }
    let mut game = Game::new(19, Rules::chinese()).unwrap();
    let mut genmoves = 0u32;
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return Ok(()) };
        let line = line.trim().to_string();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(log) = s.log.as_mut() {
            let _ = writeln!(log, "{line}");
        }
        for k in 0..s.stderr_lines {
            eprintln!("scripted_gtp noise {k}: {}", "x".repeat(100));
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let arg = |i: usize| words.get(i).copied().unwrap_or("");
        let reply: Result<String, String> = match words[0] {
            "name" => Ok(s.name.clone()),
            "version" => Ok("1.0".into()),
            "protocol_version" => Ok("2".into()),
            "known_command" => Ok(if arg(1) == "kgs-time_settings" && !s.refuse_time {
                "true"
            } else {
                "false"
            }
            .into()),
            "boardsize" => match arg(1).parse::<usize>() {
                Ok(n) if game.resize(n) => Ok(String::new()),
                _ => Err("unacceptable size".into()),
            },
            "clear_board" => {
                game.clear();
                Ok(String::new())
            }
            "komi" => {
                game.set_komi(arg(1).parse().unwrap_or(7.5));
                Ok(String::new())
            }
            "time_settings" | "kgs-time_settings" | "time_left" if s.refuse_time => {
                Err("unknown command".into())
            }
            "time_settings" | "kgs-time_settings" | "time_left" => Ok(String::new()),
            "play" => {
                let color = color_of(arg(1));
                let mv = arg(2).to_ascii_lowercase().parse::<GtpMove>().ok();
                let mv = match mv {
                    Some(GtpMove::Pass) => Some(Move::Pass),
                    Some(GtpMove::Vertex(v)) => game
                        .board()
                        .point(v.col as usize, v.row as usize)
                        .map(Move::Place),
                    None => None,
                };
                match (color, mv) {
                    (Some(c), Some(m)) if game.play(c, m).is_ok() => Ok(String::new()),
                    _ => Err("illegal move".into()),
                }
            }
            "genmove" => {
                genmoves += 1;
                let at = |o: Option<u32>| o == Some(genmoves);
                let mut pause = s.sleep;
                if let Some((n, secs)) = s.sleep_at {
                    if n == genmoves {
                        pause = secs;
                    }
                }
                if pause > 0.0 {
                    std::thread::sleep(Duration::from_secs_f64(pause));
                }
                let color = color_of(arg(1)).unwrap_or(Color::Black);
                if at(s.crash_at) {
                    return Ok(());
                }
                if at(s.hang_at) {
                    loop {
                        std::thread::sleep(Duration::from_secs(3600));
                    }
                }
                if at(s.garbage_at) {
                    Ok("banana".into())
                } else if at(s.resign_at) {
                    Ok("resign".into())
                } else if at(s.illegal_at) {
                    let b = game.board();
                    let occupied = b.points().find(|&p| b.get(p).is_some());
                    Ok(occupied.map_or("pass".into(), |p| move_text(Move::Place(p))))
                } else {
                    let passing = s.pass_after.is_some_and(|n| genmoves >= n);
                    let b = game.board();
                    let mut pts = if passing {
                        Vec::new()
                    } else {
                        game.legal_points(color)
                    };
                    pts.retain(|&p| !b.is_eye(color, p));
                    let mv = if pts.is_empty() {
                        Move::Pass
                    } else {
                        let k = (s
                            .seed
                            .wrapping_mul(2_654_435_761)
                            .wrapping_add(genmoves as u64 * 7919))
                            as usize
                            % pts.len();
                        Move::Place(pts[k])
                    };
                    let _ = game.play(color, mv);
                    Ok(move_text(mv))
                }
            }
            "final_score" => Ok(s
                .score
                .clone()
                .unwrap_or_else(|| game.score(&[]).result_string())),
            "quit" => {
                let _ = write!(out, "=\n\n");
                let _ = out.flush();
                return Ok(());
            }
            _ => Err("unknown command".into()),
        };
        let text = match reply {
            Ok(t) if t.is_empty() => "=".to_string(),
            Ok(t) => format!("= {t}"),
            Err(t) => format!("? {t}"),
        };
        if write!(out, "{text}\n\n").is_err() || out.flush().is_err() {
            return Ok(());
        }
    }
    Ok(())
}
