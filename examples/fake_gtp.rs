//! Tiny fake GTP engine for testing the regression runner and the fuzz harness without the
//! real engine: GTP v2 §3.1 preprocessing and framing, a few canned commands, no Go rules.
//!
//! Run: `cargo run --example fake_gtp`; `TENGEN_ENGINE=target/debug/examples/fake_gtp cargo
//! test --test integration gtp_fuzz::` points the integration tests at it. The command `hang` never answers
//! and `die` exits, to exercise the runner's timeout and dead-engine handling.

use std::io::{self, BufRead, Write};

fn main() {
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
