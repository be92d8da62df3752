//! GTP robustness fuzz: feeds the `tengen` binary 100,000+ random and mutated lines from a
//! seeded RNG and checks the framing of every response (GTP v2 §3) and that the engine survives.
//!
//! Expected behaviour per line (GTP v2 §3.1 preprocessing): remove control characters except
//! HT and LF, cut a `#` comment, turn HT into space, trim; an empty result gets no response,
//! anything else exactly one. A response is `=` or `?`, the id digits if the line had an id,
//! then a space or the end of the line; further non-empty lines; one empty line ends it.
//!
//! Expensive commands (`genmove`, `final_score`, `final_status_list`, `place_free_handicap`) are
//! only sent right after a valid `boardsize` of at most 9 and are never mutated; `quit`,
//! `loadsgf` and `printsgf FILE` (which writes a file) are never sent. The engine runs in a
//! fresh temporary folder.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

const SEED: u64 = 0x7e6e_9e11;
const LINES: usize = 100_000;

/// Cheap commands: any argument mix is fast on any board size.
const CHEAP: &[&str] = &[
    "protocol_version",
    "name",
    "version",
    "known_command",
    "list_commands",
    "boardsize",
    "clear_board",
    "komi",
    "play",
    "undo",
    "gg-undo",
    "showboard",
    "captures",
    "countlib",
    "list_stones",
    "is_legal",
    "all_legal",
    "fixed_handicap",
    "set_free_handicap",
    "time_settings",
    "time_left",
    "kgs-time_settings",
];

/// Names only used as words (known_command arguments, garbage), never executed as commands.
const WORDS: &[&str] = &[
    "genmove",
    "quit",
    "loadsgf",
    "printsgf",
    "final_score",
    "black",
    "white",
    "b",
    "w",
    "B",
    "WHITE",
    "pass",
    "PASS",
    "resign",
    "none",
    "absolute",
    "byoyomi",
    "canadian",
    "true",
    "false",
];

fn vertex(rng: &mut SmallRng) -> String {
    match rng.random_range(0..20) {
        0 => "pass".into(),
        1 => "PASS".into(),
        2 => "resign".into(),
        3 => format!("{}", rng.random_range(0..100)),
        4 => "I5".into(),
        5 => "A0".into(),
        6 => "Z99".into(),
        7 => "a-1".into(),
        8 => "A99999999999999999999".into(),
        _ => {
            let cols = b"ABCDEFGHJKLMNOPQRSTUVWXYZabcdefghjkl";
            let col = cols[rng.random_range(0..cols.len())] as char;
            format!("{col}{}", rng.random_range(1..27))
        }
    }
}

fn colour(rng: &mut SmallRng) -> String {
    let all = [
        "b", "w", "black", "white", "B", "W", "Black", "WHITE", "x", "bw", "empty",
    ];
    all[rng.random_range(0..all.len())].to_string()
}

fn number(rng: &mut SmallRng) -> String {
    match rng.random_range(0..12) {
        0 => "99999999999999999999999999999999".into(),
        1 => "-1".into(),
        2 => "0".into(),
        3 => "1e400".into(),
        4 => "NaN".into(),
        5 => "inf".into(),
        6 => format!("{}", rng.random::<i64>()),
        7 => "3.5".into(),
        8 => "-0".into(),
        9 => format!("{}", rng.random_range(0..30)),
        _ => format!("{}", rng.random_range(0..10)),
    }
}

fn word(rng: &mut SmallRng) -> String {
    match rng.random_range(0..4) {
        0 => WORDS[rng.random_range(0..WORDS.len())].to_string(),
        1 => CHEAP[rng.random_range(0..CHEAP.len())].to_string(),
        2 => number(rng),
        _ => vertex(rng),
    }
}

/// A plausible command line for a cheap command, with sometimes wrong argument counts.
fn cheap_command(rng: &mut SmallRng) -> String {
    let name = CHEAP[rng.random_range(0..CHEAP.len())];
    let mut args: Vec<String> = match name {
        "known_command" => vec![word(rng)],
        "boardsize" => vec![if rng.random_bool(0.8) {
            rng.random_range(1..27).to_string()
        } else {
            number(rng)
        }],
        "komi" => vec![if rng.random_bool(0.7) {
            format!("{}.5", rng.random_range(-10..10))
        } else {
            number(rng)
        }],
        "play" | "is_legal" => vec![colour(rng), vertex(rng)],
        "gg-undo" => vec![number(rng)],
        "captures" | "list_stones" | "all_legal" => vec![colour(rng)],
        "countlib" => vec![vertex(rng)],
        "fixed_handicap" => vec![number(rng)],
        "set_free_handicap" => (0..rng.random_range(0..6)).map(|_| vertex(rng)).collect(),
        "time_settings" => (0..3).map(|_| number(rng)).collect(),
        "time_left" => vec![colour(rng), number(rng), number(rng)],
        "kgs-time_settings" => {
            let kinds = ["none", "absolute", "byoyomi", "canadian", "bogus"];
            let mut v = vec![kinds[rng.random_range(0..kinds.len())].to_string()];
            v.extend((0..rng.random_range(0..4)).map(|_| number(rng)));
            v
        }
        _ => Vec::new(),
    };
    match rng.random_range(0..10) {
        0 if !args.is_empty() => {
            let at = rng.random_range(0..args.len());
            args.remove(at);
        }
        1 => args.push(word(rng)),
        _ => {}
    }
    let mut line = name.to_string();
    for a in args {
        line.push(' ');
        line.push_str(&a);
    }
    line
}

/// Random bytes, no LF.
fn random_bytes(rng: &mut SmallRng) -> Vec<u8> {
    let len = rng.random_range(0..80);
    (0..len)
        .map(|_| loop {
            let b: u8 = if rng.random_bool(0.7) {
                rng.random_range(0x20..0x7f)
            } else {
                rng.random()
            };
            if b != b'\n' {
                break b;
            }
        })
        .collect()
}

/// Insert, delete or replace characters; add ids, comments, CR, tabs.
fn mutate(rng: &mut SmallRng, line: String) -> Vec<u8> {
    let mut bytes = line.into_bytes();
    for _ in 0..rng.random_range(1..4) {
        match rng.random_range(0..10) {
            0 => bytes.insert(0, b' '),
            1 => bytes.push(b'\r'),
            2 => {
                let at = rng.random_range(0..=bytes.len());
                bytes.insert(at, b'\t');
            }
            3 => {
                let mut id = rng.random_range(0..100_000u32).to_string().into_bytes();
                id.push(if rng.random_bool(0.8) { b' ' } else { b'\t' });
                bytes.splice(0..0, id);
            }
            4 => {
                let at = rng.random_range(0..=bytes.len());
                bytes.insert(at, b'#');
            }
            5 if !bytes.is_empty() => {
                let at = rng.random_range(0..bytes.len());
                bytes.remove(at);
            }
            6 if !bytes.is_empty() => {
                let at = rng.random_range(0..bytes.len());
                bytes[at] = loop {
                    let b: u8 = rng.random();
                    if b != b'\n' {
                        break b;
                    }
                };
            }
            7 => bytes.extend_from_slice(b" 123456789012345678901234567890"),
            8 => {
                let at = rng.random_range(0..=bytes.len());
                bytes.insert(
                    at,
                    [1u8, 2, 7, 8, 11, 12, 13, 27, 31, 127][rng.random_range(0..10)],
                );
            }
            _ => bytes.extend_from_slice(b" # a comment"),
        }
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

/// A small-board block: the only place expensive commands appear.
fn small_block(rng: &mut SmallRng, lines: &mut Vec<Vec<u8>>) {
    let size = if rng.random_bool(0.8) {
        rng.random_range(2..6)
    } else {
        rng.random_range(6..10)
    };
    lines.push(format!("boardsize {size}").into_bytes());
    lines.push(b"clear_board".to_vec());
    lines.push(b"kgs-time_settings none".to_vec());
    for _ in 0..rng.random_range(0..6) {
        let col = b"ABCDEFGHJ"[rng.random_range(0..size)] as char;
        let row = rng.random_range(1..=size);
        let c = if rng.random_bool(0.5) { "b" } else { "w" };
        lines.push(format!("play {c} {col}{row}").into_bytes());
    }
    let c = if rng.random_bool(0.5) { "b" } else { "w" };
    let last = match rng.random_range(0..6) {
        0 => "final_score".to_string(),
        1 => "final_status_list dead".to_string(),
        2 if size >= 3 => format!("place_free_handicap {}", rng.random_range(0..6)),
        3 => "printsgf".to_string(),
        _ => format!("{} genmove {c}", rng.random_range(1..1000)),
    };
    lines.push(last.into_bytes());
}

fn generate(rng: &mut SmallRng) -> Vec<Vec<u8>> {
    let mut lines = Vec::with_capacity(LINES + 100);
    while lines.len() < LINES {
        match rng.random_range(0..1000) {
            0..=2 => small_block(rng, &mut lines),
            3..=199 => lines.push(random_bytes(rng)),
            200..=499 => lines.push(cheap_command(rng).into_bytes()),
            500..=549 => lines.push(b"# interrupt".to_vec()),
            550..=599 => {
                let empty: &[&[u8]] = &[b"", b" ", b"\t", b"\r", b"#", b"  # x", b"\x01\x02"];
                lines.push(empty[rng.random_range(0..empty.len())].to_vec());
            }
            _ => {
                let base = cheap_command(rng);
                lines.push(mutate(rng, base));
            }
        }
    }
    lines
}

/// GTP v2 §3.1 preprocessing of one line (bytes, no LF).
fn preprocess(line: &[u8]) -> Vec<u8> {
    let mut kept: Vec<u8> = line
        .iter()
        .copied()
        .filter(|&b| b == b'\t' || !(b < 32 || b == 127))
        .map(|b| if b == b'\t' { b' ' } else { b })
        .collect();
    if let Some(pos) = kept.iter().position(|&b| b == b'#') {
        kept.truncate(pos);
    }
    let start = kept.iter().position(|&b| b != b' ').unwrap_or(kept.len());
    let end = kept
        .iter()
        .rposition(|&b| b != b' ')
        .map_or(start, |p| p + 1);
    kept[start..end].to_vec()
}

/// The id digits of a preprocessed command line, if its first token is all digits.
fn id_of(command: &[u8]) -> Option<&[u8]> {
    let first = command.split(|&b| b == b' ').next()?;
    (!first.is_empty() && first.iter().all(u8::is_ascii_digit)).then_some(first)
}

/// Check one response against the command it answers; `Err` says what is wrong.
fn check_response(command: &[u8], response: &[Vec<u8>]) -> Result<(), String> {
    let first = response.first().ok_or("empty response")?;
    if !matches!(first.first(), Some(b'=') | Some(b'?')) {
        return Err("does not start with '=' or '?'".into());
    }
    let rest = &first[1..];
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    let (echoed, after) = rest.split_at(digits);
    match id_of(command) {
        // Ids that fit an int must be echoed (numerically); longer ones are debatable.
        Some(id) if id.len() <= 9 => {
            let want: u64 = std::str::from_utf8(id).unwrap_or("0").parse().unwrap_or(0);
            let got: Option<u64> = std::str::from_utf8(echoed)
                .ok()
                .and_then(|s| s.parse().ok());
            if got != Some(want) {
                return Err(format!("id {want} not echoed"));
            }
        }
        Some(_) => {}
        None if digits > 0 => return Err("id echoed for a line without id".into()),
        None => {}
    }
    if !(after.is_empty() || after[0] == b' ') {
        return Err("no space or end of line after '=id'".into());
    }
    if response.iter().any(|l| l.is_empty()) {
        return Err("empty line inside the response".into());
    }
    Ok(())
}

/// The engine under test: `TENGEN_ENGINE` if set, else tengen (without the network).
fn engine_path() -> String {
    std::env::var("TENGEN_ENGINE").unwrap_or_else(|_| crate::common::TENGEN.to_string())
}

#[test]
fn fuzz_gtp_lines() {
    let mut rng = SmallRng::seed_from_u64(SEED);
    let lines = generate(&mut rng);
    // Each non-empty (after preprocessing) line expects one response, in order.
    let commands: Vec<(usize, Vec<u8>)> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| (i, preprocess(l)))
        .filter(|(_, p)| !p.is_empty())
        .collect();

    let dir: PathBuf = std::env::temp_dir().join(format!("tengen-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut child = Command::new(engine_path())
        .env("TENGEN_MODEL", "none")
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start engine");
    let stdout = child.stdout.take().expect("stdout");
    let mut stdin = child.stdin.take().expect("stdin");

    // Reader thread: split the output into responses (lines up to an empty line).
    let (tx, rx) = mpsc::channel::<Result<Vec<Vec<u8>>, String>>();
    let reader = thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        let mut current: Vec<Vec<u8>> = Vec::new();
        loop {
            let mut buf = Vec::new();
            match reader.read_until(b'\n', &mut buf) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    let _ = tx.send(Err(format!("read error {e}")));
                    break;
                }
            }
            if buf.last() == Some(&b'\n') {
                buf.pop();
            } else {
                let _ = tx.send(Err("output ends without a newline".into()));
            }
            if buf.is_empty() {
                let response = std::mem::take(&mut current);
                if response.is_empty() {
                    let _ = tx.send(Err("stray empty line (response ended twice?)".into()));
                } else if tx.send(Ok(response)).is_err() {
                    break;
                }
            } else {
                current.push(buf);
            }
        }
        if !current.is_empty() {
            let _ = tx.send(Err("last response has no terminating empty line".into()));
        }
    });

    // Writer thread, so a hung engine cannot block the test; it hands stdin back at the end.
    let started = Instant::now();
    let to_send = lines.clone();
    let writer = thread::spawn(move || {
        for (i, line) in to_send.iter().enumerate() {
            let mut bytes = line.clone();
            bytes.push(b'\n');
            if let Err(e) = stdin.write_all(&bytes) {
                return (
                    stdin,
                    Some(format!("engine stopped reading at line {i}: {e}")),
                );
            }
        }
        match stdin.write_all(b"name\n").and_then(|()| stdin.flush()) {
            Ok(()) => (stdin, None),
            Err(e) => (
                stdin,
                Some(format!("engine stopped reading before the final name: {e}")),
            ),
        }
    });

    // Collect the responses; a silence of 60 s counts as a hang.
    let mut responses = Vec::new();
    let mut problems = Vec::new();
    while responses.len() < commands.len() + 1 {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(Ok(r)) => responses.push(r),
            Ok(Err(e)) => problems.push(format!("after {} responses: {e}", responses.len())),
            Err(mpsc::RecvTimeoutError::Timeout) => {
                problems.push(format!(
                    "no output for 60 s after {} responses",
                    responses.len()
                ));
                break;
            }
            Err(mpsc::RecvTimeoutError::Disconnected) => break,
        }
    }
    let missing = commands.len() + 1 - responses.len().min(commands.len() + 1);
    if missing > 0 {
        let _ = child.kill();
    }
    let (stdin, write_error) = writer.join().expect("writer thread");
    drop(stdin);
    let status = if missing > 0 {
        child.wait().ok()
    } else {
        let exit_deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match child.try_wait() {
                Ok(Some(status)) => break Some(status),
                _ if Instant::now() > exit_deadline => {
                    let _ = child.kill();
                    problems.push("engine did not exit after stdin was closed".into());
                    break child.wait().ok();
                }
                _ => thread::sleep(Duration::from_millis(20)),
            }
        }
    };
    let _ = reader.join();
    // More output after the last expected response?
    while let Ok(extra) = rx.try_recv() {
        problems.push(format!("extra output: {extra:?}"));
    }
    let _ = std::fs::remove_dir_all(&dir);

    if let Some(e) = write_error {
        problems.push(e);
    }
    if missing > 0 {
        let (index, command) = commands
            .get(responses.len())
            .map(|(i, c)| (*i, String::from_utf8_lossy(c).into_owned()))
            .unwrap_or((lines.len(), "name".into()));
        problems.push(format!(
            "{missing} responses missing; the first unanswered command is line {index}: {command:?}"
        ));
    }
    for (k, response) in responses.iter().enumerate() {
        let command: &[u8] = commands.get(k).map_or(b"name", |(_, c)| c);
        if let Err(e) = check_response(command, response) {
            let line = commands.get(k).map_or(lines.len(), |(i, _)| *i);
            problems.push(format!(
                "line {line} {:?} -> {:?}: {e}",
                String::from_utf8_lossy(command),
                response
                    .iter()
                    .map(|l| String::from_utf8_lossy(l).into_owned())
                    .collect::<Vec<_>>()
            ));
        }
        if problems.len() > 20 {
            break;
        }
    }
    if missing == 0 {
        if let Some(last) = responses.last() {
            if last.first().and_then(|l| l.first()) != Some(&b'=') {
                problems.push("final name failed".into());
            }
        }
        if !status.is_some_and(|s| s.success()) {
            problems.push(format!("exit status {status:?} after closing stdin"));
        }
    }
    assert!(
        problems.is_empty(),
        "{} lines, {} commands, {} responses in {:?}; problems:\n{}",
        lines.len(),
        commands.len(),
        responses.len(),
        started.elapsed(),
        problems.join("\n")
    );
}

#[test]
fn preprocessing_model() {
    assert_eq!(preprocess(b"  12\tplay b D4 # c\r"), b"12 play b D4");
    assert!(preprocess(b"# interrupt").is_empty());
    assert!(preprocess(b"\x01\x02 \r").is_empty());
    assert_eq!(id_of(b"12 name"), Some(&b"12"[..]));
    assert_eq!(id_of(b"12a name"), None);
    assert!(check_response(b"12 name", &[b"=12 tengen".to_vec()]).is_ok());
    assert!(check_response(b"12 name", &[b"= tengen".to_vec()]).is_err());
    assert!(check_response(b"name", &[b"=".to_vec()]).is_ok());
    assert!(check_response(b"name", &[b"=x".to_vec()]).is_err());
    assert!(check_response(b"bad", &[b"? unknown command".to_vec()]).is_ok());
}
