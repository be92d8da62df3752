//! A scripted GTP player for testing `tengen match`: it plays legal moves (the first legal
//! point, not its own eye, in a seeded order) with Tengen's own rules, and misbehaves on
//! request. Options (N counts this engine's genmoves from 1):
//!
//! `--name S`, `--pass-after N` (pass from the Nth genmove on), `--illegal-at N` (answer
//! an occupied point), `--crash-at N` (exit), `--hang-at N` (never answer),
//! `--garbage-at N` (answer `= banana`), `--resign-at N`, `--sleep S` (every genmove),
//! `--sleep-at N:S`, `--startup S` (sleep before reading anything), `--stderr-lines N`
//! (written to stderr at every command), `--refuse-time` (`?` to time_settings,
//! kgs-time_settings and time_left), `--score TEXT` (final_score answer; default Tengen's
//! count with every stone alive), `--seed N`, `--log FILE` (every command received).

use std::io::{self, BufRead, Write};
use std::time::Duration;

use tengen::gtp::GtpMove;
use tengen::notation::move_text;
use tengen::{Color, Game, Move, Rules};

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

fn parse_args() -> Script {
    let mut s = Script {
        name: "Scripted".into(),
        ..Script::default()
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
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
            other => panic!("scripted_gtp: unknown option {other}"),
        }
        i += 2;
    }
    s
}

fn color_of(word: &str) -> Option<Color> {
    match word.to_ascii_lowercase().as_str() {
        "b" | "black" => Some(Color::Black),
        "w" | "white" => Some(Color::White),
        _ => None,
    }
}

fn main() {
    let mut s = parse_args();
    if s.startup > 0.0 {
        std::thread::sleep(Duration::from_secs_f64(s.startup));
    }
    let mut game = Game::new(19, Rules::chinese()).unwrap();
    let mut genmoves = 0u32;
    let stdin = io::stdin();
    let mut out = io::stdout().lock();
    for line in stdin.lock().lines() {
        let Ok(line) = line else { return };
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
                    return;
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
                return;
            }
            _ => Err("unknown command".into()),
        };
        let text = match reply {
            Ok(t) if t.is_empty() => "=".to_string(),
            Ok(t) => format!("= {t}"),
            Err(t) => format!("? {t}"),
        };
        if write!(out, "{text}\n\n").is_err() || out.flush().is_err() {
            return;
        }
    }
}
