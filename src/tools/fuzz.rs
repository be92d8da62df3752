//! Fuzz targets: the GTP line parser, the SGF loader and whole GTP sessions through the
//! executor. Each takes arbitrary bytes and panics when an invariant breaks, so the same
//! functions serve the coverage-guided fuzzer (`fuzz/`, AFL++ through `cargo afl`) and the
//! replay of its corpus in `cargo test` (`tests/fuzz_corpus.rs`).

use std::time::{Duration, Instant};

use crate::engine::{Engine, Settings};
use crate::gtp::{parse_command, preprocess};
use crate::rules::Rules;
use crate::search::SearchConfig;
use crate::{record, sgf, Game};

/// Longest response a session may give to one command. The largest real ones (a 25x25
/// `showboard`, `list_commands`, a long `printsgf`, analysis with ownership) stay far
/// below; a number printed in hundreds of digits or a runaway list does not.
pub const MAX_RESPONSE_BYTES: usize = 256 << 10;

/// Bytes of a session input that are used (the rest is ignored), so that one input
/// stays cheap: a few dozen commands.
pub const SESSION_BYTES: usize = 2048;

/// Longest a session may take: far above any input of [`SESSION_BYTES`] (searches are
/// held to a few playouts); past it the fuzzer calls the input a hang.
pub const SESSION_TIME: Duration = Duration::from_secs(5);

/// Bytes of the SGF record a session input may carry after a NUL byte (see [`session`]).
pub const SESSION_SGF_BYTES: usize = 64 << 10;

/// The most resident memory one session may reach (the process's peak, reset before the
/// session where the system allows it), with the engine's `--max-memory` at 64 MiB: the
/// bound issue 25 sets for SGF loads.
pub const SESSION_PEAK_MIB: u64 = 256;

/// Resets the process's peak resident memory (VmHWM) where Linux allows it.
fn reset_peak_memory() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The process's peak resident memory (VmHWM) in MiB, where /proc tells it.
pub fn peak_memory_mib() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024)
}

/// Writes the record a session input carries to a file of this process's own, for
/// `loadsgf` to read; the path.
fn session_record(record: &[u8]) -> Option<String> {
    // One file per thread: the unit tests run sessions side by side in one process.
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(|c| c.is_ascii_digit()).collect();
    let path =
        std::env::temp_dir().join(format!("tengen-fuzz-{}-{thread}.sgf", std::process::id()));
    std::fs::write(&path, record).ok()?;
    Some(path.to_string_lossy().into_owned())
}

/// One GTP line: preprocessing and parsing never panic, and a parsed command printed
/// back parses to the same command.
pub fn gtp_line(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for raw in text.split('\n') {
        let line = preprocess(raw);
        if line.is_empty() {
            continue;
        }
        let parsed = parse_command(&line);
        if let Ok(command) = parsed.command {
            let again = command.to_string();
            match parse_command(&again).command {
                Ok(c) => assert_eq!(c, command, "{line:?} printed as {again:?}"),
                Err(e) => panic!("{line:?} printed as {again:?}, which fails: {e}"),
            }
        }
    }
}

/// One SGF file: loading never panics; a loaded record replays onto a game or is
/// refused; the replayed game written back as SGF loads again to the same moves.
pub fn sgf_file(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(rec) = sgf::parse_record(&text) else {
        return;
    };
    let template = Game::new(19, Rules::chinese()).expect("19x19");
    let Ok(game) = record::game_from_record(&rec, &template, None) else {
        return;
    };
    let written = sgf::write_record(&record::record_of(&game));
    let back = sgf::parse_record(&written)
        .unwrap_or_else(|e| panic!("written record does not load: {e}\n{written}"));
    let again = record::game_from_record(&back, &template, None)
        .unwrap_or_else(|e| panic!("written record does not replay: {e}\n{written}"));
    assert_eq!(again.moves(), game.moves(), "{written}");
    assert_eq!(again.board().hash(), game.board().hash(), "{written}");
}

/// A GTP session of the input's lines, run by the real executor on this thread (no
/// reader thread, so that one input takes microseconds, not scheduler slices), with
/// searches held to 16 playouts on one thread and analysis stopped after its first
/// round. Lines that would write files (`printsgf FILE`) are dropped. An input may carry
/// an SGF record after a NUL byte (up to [`SESSION_SGF_BYTES`]): it is written to a file,
/// and every `loadsgf` line reads that file (its own file name replaced), so the fuzzer
/// builds records and sessions together. Checks: every non-empty line until `quit` gets
/// a well-framed response (`=` or `?`, then the line's id), none an internal error (a
/// caught panic), none longer than [`MAX_RESPONSE_BYTES`], the whole within
/// [`SESSION_TIME`], and the process's peak memory within [`SESSION_PEAK_MIB`]. (`serve`
/// itself, with its reader thread, is fuzzed through the binary by `tests/gtp_fuzz.rs`.)
pub fn session(data: &[u8]) {
    session_responses(data, true);
}

/// [`session`], returning every response in order; `check_peak`: whether the process's
/// peak memory is checked (only where the process runs nothing else: the fuzzer, the
/// corpus replay).
pub fn session_responses(data: &[u8], check_peak: bool) -> Vec<String> {
    use crate::gtp::serve::{builtin_reply, format_response};
    use crate::gtp::{Command, Context, Executor};
    let (data, record) = match data.iter().position(|&b| b == 0) {
        Some(i) => (&data[..i], Some(&data[i + 1..])),
        None => (data, None),
    };
    let record_path = record
        .map(|r| &r[..r.len().min(SESSION_SGF_BYTES)])
        .and_then(session_record);
    let peak_known = check_peak && reset_peak_memory();
    let data = &data[..data.len().min(SESSION_BYTES)];
    let text = String::from_utf8_lossy(data);
    let settings = Settings {
        status_playouts: 16,
        playouts: Some(16),
        search: SearchConfig {
            seed: 1,
            threads: 1,
            max_memory_mib: 64,
            ..SearchConfig::default()
        },
        ..Settings::default()
    };
    let mut engine = Engine::new(Rules::chinese(), settings);
    let mut responses = Vec::new();
    let start = Instant::now();
    for raw in text.split('\n') {
        let line = preprocess(raw);
        if line.is_empty() {
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        if words.iter().take(2).any(|w| *w == "printsgf") && words.last() != Some(&"printsgf") {
            continue;
        }
        let line = match (&record_path, words.iter().position(|w| *w == "loadsgf")) {
            (Some(path), Some(i)) if i + 1 < words.len() => {
                let mut w: Vec<&str> = words.clone();
                w[i + 1] = path;
                w.join(" ")
            }
            _ => line,
        };
        let parsed = parse_command(&line);
        let mut streamed = String::new();
        let (result, quit) = match parsed.command {
            Err(e) => (Err(e.into()), false),
            Ok(command) => {
                let quit = command == Command::Quit;
                let ctx = Context::new();
                if matches!(command, Command::Analyze(..)) {
                    // Live analysis runs until input arrives: here, one round.
                    ctx.interrupt();
                }
                let result = match builtin_reply(&command) {
                    Some(reply) => Ok(reply),
                    None => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        engine.execute_streamed(command, &ctx, &mut |l: &str| {
                            streamed.push_str(l);
                            streamed.push('\n');
                        })
                    }))
                    .unwrap_or_else(|_| panic!("executor panicked on {line:?}")),
                };
                (result, quit)
            }
        };
        let response = format_response(parsed.id.as_deref(), &result);
        assert!(
            response.len() + streamed.len() <= MAX_RESPONSE_BYTES,
            "{} bytes for {line:?}",
            response.len() + streamed.len()
        );
        assert!(
            response.starts_with(['=', '?']),
            "{response:?} for {line:?}"
        );
        assert!(
            !response.starts_with("? internal error"),
            "{line:?}: {response}"
        );
        assert!(response.ends_with("\n\n"), "{response:?} for {line:?}");
        if let Some(id) = crate::gtp::command::line_id(&line) {
            assert!(response[1..].starts_with(id), "id {id} lost: {response:?}");
        }
        responses.push(response);
        if peak_known {
            let peak = peak_memory_mib().unwrap_or(0);
            assert!(
                peak <= SESSION_PEAK_MIB,
                "peak memory {peak} MiB after {line:?}"
            );
        }
        if quit {
            break;
        }
    }
    let took = start.elapsed();
    assert!(took <= SESSION_TIME, "session took {took:?}");
    responses
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_take_plain_inputs() {
        gtp_line(b"1 play b D4\nkomi 6.5\n  \n");
        sgf_file(b"(;SZ[9];B[ee];W[cc])");
        // The unit tests share a process: no peak-memory check here.
        session_responses(
            b"boardsize 9\n3 play b e5\ngenmove w\nfinal_score\nquit\nname\n",
            false,
        );
        session_responses(
            b"loadsgf x 3\nkata-analyze b 10 ownership true\nshowboard\n\0(;SZ[9];B[ee];W[cc];B[gg])",
            false,
        );
    }

    /// A record carried after the NUL byte is what `loadsgf` reads, whatever file name
    /// the line gives.
    #[test]
    fn a_session_loads_the_record_it_carries() {
        let record = b"(;SZ[9];B[ee];W[cc];B[gg])";
        let path = session_record(record).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), record);
        let mut input = b"boardsize 9\nloadsgf anything.sgf 3\nlist_stones white\n\0".to_vec();
        input.extend_from_slice(record);
        let responses = session_responses(&input, false);
        assert_eq!(responses, ["= \n\n", "= \n\n", "= C7\n\n"]);
    }
}
