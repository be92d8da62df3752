//! State safety as a property: in random command sequences (good and bad arguments,
//! legal and illegal moves, set-up, clocks, files, hostile SGF records, live analysis),
//! the engine's peak memory stays under [`PEAK_MIB`] with `--max-memory 64`, and every
//! command answered with `?`
//! leaves every observable as it was: the position (`showboard`), the history, komi and
//! set-up (`printsgf`), the rules, clocks and time system (`tengen-state`). And the
//! engine that ran the whole sequence plays the same next move (fixed seed, fixed
//! playouts, one thread) as one that ran only the commands that succeeded.

use std::io::{Read, Write};
use std::process::Stdio;
use std::sync::OnceLock;

use proptest::prelude::*;

/// The most resident memory a session may reach, with `--max-memory 64`.
const PEAK_MIB: u64 = 256;

/// Hostile SGF records, written once to a folder of their own: cheap to write, and each
/// took far more memory to parse than its size once (issue 25).
fn hostile_sgf() -> &'static [String] {
    static FILES: OnceLock<Vec<String>> = OnceLock::new();
    FILES.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("tengen-state-safety-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records: Vec<(&str, String)> = vec![
            // 4,000,000 empty nodes (4 MB): 1.3 GB to parse whole.
            ("nodes.sgf", format!("(;SZ[9]{})", ";".repeat(4_000_000))),
            // A short main line, then 300,000 variations.
            (
                "variations.sgf",
                format!("(;SZ[9];B[ee]{})", "(;W[aa])".repeat(300_000)),
            ),
            // 500,000 unknown properties in one node.
            (
                "properties.sgf",
                format!("(;SZ[9];B[ee]{})", "XX[]".repeat(500_000)),
            ),
            // Komi far out of range.
            ("komi.sgf", "(;SZ[9]KM[1e308];B[ee])".to_string()),
            ("komi-nan.sgf", "(;SZ[9]KM[nan];B[ee])".to_string()),
            ("fine.sgf", "(;SZ[9]KM[6.5];B[ee];W[cc];B[gg])".to_string()),
        ];
        records
            .into_iter()
            .map(|(name, text)| {
                let path = dir.join(name);
                std::fs::write(&path, text).unwrap();
                path.to_string_lossy().into_owned()
            })
            .collect()
    })
}

const OBSERVE: &[&str] = &["showboard", "printsgf", "tengen-state"];

fn vertex(a: u16, b: u16) -> String {
    // Mostly on small boards, sometimes off any board, now and then a pass.
    if a.is_multiple_of(23) {
        return "pass".into();
    }
    let cols = "ABCDEFGHJKLMNOPQRSTUVWXYZ";
    let c = cols.as_bytes()[(a as usize) % if a.is_multiple_of(7) { 25 } else { 9 }] as char;
    let r = 1 + (b as usize) % if b.is_multiple_of(11) { 26 } else { 9 };
    format!("{c}{r}")
}

fn colour(a: u16) -> &'static str {
    ["b", "w", "black", "WHITE", "x"][(a % 5) as usize]
}

/// One command from three numbers: the kind, then argument material.
fn command(kind: u8, a: u16, b: u16) -> String {
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
    let gogui = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/corpora/gogui-sgf");
    match kind % 32 {
        0..=7 => format!("play {} {}", colour(a), vertex(a / 5, b)),
        8 => [
            "boardsize 9",
            "boardsize 7",
            "boardsize 0",
            "boardsize 30",
            "boardsize 9 13",
            "boardsize x",
        ][(a % 6) as usize]
            .into(),
        9 => "clear_board".into(),
        10 => [
            "komi 6.5",
            "komi 1e308",
            "komi -3",
            "komi nan",
            "komi 0.5 2",
            "komi",
        ][(a % 6) as usize]
            .into(),
        11 | 12 => "undo".into(),
        13 => format!("gg-undo {}", a % 4),
        14 => format!("fixed_handicap {}", a % 11),
        15 => format!("set_free_handicap {} {}", vertex(a, b), vertex(b, a)),
        16 => format!("place_free_handicap {}", a % 11),
        17 => format!(
            "time_settings {} {} {}",
            a % 400,
            b % 40,
            (a % 7) as i32 - 2
        ),
        18 => format!(
            "time_left {} {} {}",
            colour(a),
            (b % 300) as i32 - 20,
            a % 4
        ),
        19 => [
            "kgs-time_settings byoyomi 60 10 3",
            "kgs-time_settings canadian 60 30 -1",
            "kgs-time_settings none",
            "kgs-time_settings absolute 1e9",
        ][(a % 4) as usize]
            .into(),
        20 => match a % 5 {
            0 => format!("loadsgf {data}/review-blunder.sgf {}", b % 60),
            1 => format!("loadsgf {gogui}/invalidmove.sgf {}", b % 5),
            2 => "loadsgf /dev/zero".into(),
            3 => "loadsgf /nonexistent/file.sgf".into(),
            _ => format!("loadsgf {data}"),
        },
        21 => format!(
            "gogui-play_sequence b {} w {} b {}",
            vertex(a, b),
            vertex(b, a),
            vertex(a ^ b, b)
        ),
        22 => format!("gogui-setup b {} w {}", vertex(a, b), vertex(b, a)),
        23 => format!("gogui-setup_player {}", colour(a)),
        24 => format!("is_legal {} {}", colour(a), vertex(a, b)),
        25 => {
            ["final_score", "final_status_list dead", "showboard", "name"][(a % 4) as usize].into()
        }
        26 => format!("play {}", colour(a)),
        27 => ["foo", "play b D4 D5", "genmove", "undo 2", "quit_not"][(a % 5) as usize].into(),
        28 => format!("printsgf {data}"),
        29 => {
            let files = hostile_sgf();
            let file = &files[(a as usize) % files.len()];
            match b % 3 {
                0 => format!("loadsgf {file}"),
                _ => format!("loadsgf {file} {}", b % 7),
            }
        }
        30 => [
            "lz-analyze 10",
            "kata-analyze b 10 ownership true",
            "lz-analyze w 10 minmoves 2",
            "kata-analyze 1e99",
            "lz-genmove_analyze b 10",
            "kata-genmove_analyze w 10 ownership true",
        ][(a % 6) as usize]
            .into(),
        _ => format!("genmove {}", colour(a)),
    }
}

/// Runs the lines through a fresh engine and returns each line's response, in order;
/// fails when the engine's peak resident memory (VmHWM, read once every line is answered
/// and before `quit`) passes [`PEAK_MIB`].
fn run(lines: &[String]) -> Vec<String> {
    let args = [
        "-v",
        "0",
        "--threads",
        "1",
        "--seed",
        "7",
        "--playouts",
        "20",
        "--status-playouts",
        "20",
        "--max-memory",
        "64",
    ];
    let mut child = crate::common::tengen()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen");
    let mut stdin = child.stdin.take().unwrap();
    let mut input = lines.join("\n");
    input.push('\n');
    let (go_on, quit) = std::sync::mpsc::channel::<()>();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
        let _ = quit.recv();
        let _ = stdin.write_all(b"quit\n");
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut text = String::new();
    let mut buf = [0u8; 1 << 16];
    while text.matches("\n\n").count() < lines.len() {
        let n = stdout.read(&mut buf).unwrap();
        assert!(n > 0, "the engine stopped after {text}");
        text.push_str(std::str::from_utf8(&buf[..n]).unwrap());
    }
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap();
    go_on.send(()).unwrap();
    stdout.read_to_string(&mut text).unwrap();
    writer.join().unwrap();
    child.wait().unwrap();
    assert!(
        peak_kib < PEAK_MIB * 1024,
        "peak {} MiB after {lines:?}",
        peak_kib / 1024
    );
    let mut responses: Vec<String> = text.split("\n\n").map(str::to_string).collect();
    responses.pop();
    assert_eq!(responses.len(), lines.len() + 1, "one response per line");
    responses.truncate(lines.len());
    responses
}

fn observe_block(lines: &mut Vec<String>) {
    lines.extend(OBSERVE.iter().map(|s| s.to_string()));
}

/// Checks one sequence; returns how many of its commands failed.
fn check(commands: &[String]) -> Result<usize, TestCaseError> {
    // The whole sequence, observed before the first command and after each one.
    let mut lines = Vec::new();
    observe_block(&mut lines);
    for c in commands {
        lines.push(c.clone());
        observe_block(&mut lines);
    }
    lines.push("genmove b".into());
    let responses = run(&lines);
    let k = OBSERVE.len() + 1;
    let mut succeeded = Vec::new();
    for (i, c) in commands.iter().enumerate() {
        let before = &responses[i * k..i * k + OBSERVE.len()];
        let answer = &responses[i * k + OBSERVE.len()];
        let after = &responses[(i + 1) * k..(i + 1) * k + OBSERVE.len()];
        if answer.starts_with('?') {
            prop_assert_eq!(
                before,
                after,
                "`{}` answered {:?} and changed the state",
                c,
                answer
            );
        } else {
            prop_assert!(answer.starts_with('='), "`{}`: {:?}", c, answer);
            succeeded.push(c.clone());
        }
    }
    // Only the commands that succeeded: the same state and the same next move.
    let mut lines = succeeded.clone();
    observe_block(&mut lines);
    lines.push("genmove b".into());
    let replay = run(&lines);
    let n = succeeded.len();
    let full_end = &responses[responses.len() - 1 - OBSERVE.len()..];
    prop_assert_eq!(
        &replay[n..],
        full_end,
        "state or next move differ after the failed commands"
    );
    Ok(commands.len() - n)
}

#[test]
fn a_fixed_sequence_with_failures() {
    let commands: Vec<String> = [
        "boardsize 9",
        "play b E5",
        "play w E5",
        "komi 1e308",
        "genmove w",
        "undo",
        "undo",
        "undo",
        "time_settings 300 30 -5",
        "fixed_handicap 4",
        "loadsgf /dev/zero",
        "gogui-play_sequence b C3 w C3",
        "set_free_handicap A1",
        "play b E5",
        "genmove w",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let failed = check(&commands).unwrap();
    // play w E5, komi, the third undo, time_settings, loadsgf, the sequence onto a
    // handicap stone, set_free_handicap on a board with stones.
    assert_eq!(failed, 7);
}

/// Every hostile record, whole and up to move 2, then analysis: within the memory bound,
/// and each refusal changes nothing.
#[test]
fn hostile_records_stay_within_memory() {
    let mut commands = vec!["boardsize 9".to_string(), "play b C3".to_string()];
    for f in hostile_sgf() {
        commands.push(format!("loadsgf {f}"));
        commands.push(format!("loadsgf {f} 2"));
        commands.push("kata-analyze b 10 ownership true".to_string());
    }
    let failed = check(&commands).unwrap();
    // At least the two komi records are refused, whole and at move 2.
    assert!(failed >= 4, "{failed}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]
    #[test]
    fn failed_commands_change_nothing(
        cmds in prop::collection::vec((any::<u8>(), any::<u16>(), any::<u16>()), 1..60)
    ) {
        let commands: Vec<String> = cmds.iter().map(|&(k, a, b)| command(k, a, b)).collect();
        let _failed = check(&commands)?;
    }
}
