//! A Tengen process driven over real pipes, for the tests that need timing or streamed
//! responses.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

/// A Tengen process with `args` and all three standard streams piped.
fn spawn(args: &[&str]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_tengen"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start tengen")
}

/// Runs `input` through a fresh engine with `args` (stdin written on its own thread, so
/// a long input cannot block on a full stdout pipe): its stdout and stderr.
pub fn run_once(args: &[&str], input: &str) -> (String, String) {
    let mut child = spawn(args);
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

pub struct Gtp {
    child: Child,
    stdin: ChildStdin,
    pub lines: Receiver<String>,
    stderr: Receiver<String>,
}

impl Gtp {
    pub fn start(args: &[&str]) -> Gtp {
        let mut child = spawn(args);
        let stdin = child.stdin.take().unwrap();
        let (tx, lines) = mpsc::channel();
        let out = child.stdout.take().unwrap();
        std::thread::spawn(move || {
            for l in BufReader::new(out).lines() {
                let Ok(l) = l else { break };
                if tx.send(l).is_err() {
                    break;
                }
            }
        });
        let (etx, stderr) = mpsc::channel();
        let mut err = child.stderr.take().unwrap();
        std::thread::spawn(move || {
            let mut s = String::new();
            let _ = err.read_to_string(&mut s);
            let _ = etx.send(s);
        });
        Gtp {
            child,
            stdin,
            lines,
            stderr,
        }
    }

    pub fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The next response's text (after `= `), and how long it took to come.
    pub fn answer(&mut self) -> (String, Duration) {
        let t0 = Instant::now();
        let first = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a response");
        let mut text = first.clone();
        loop {
            let l = self.lines.recv_timeout(Duration::from_secs(5)).unwrap();
            if l.is_empty() {
                break;
            }
            text.push('\n');
            text.push_str(&l);
        }
        assert!(text.starts_with('='), "failure: {text}");
        (text[1..].trim().to_string(), t0.elapsed())
    }

    /// The next response, which must be a failure: its text (after `? `).
    pub fn answer_failure(&mut self) -> String {
        let first = self
            .lines
            .recv_timeout(Duration::from_secs(60))
            .expect("a response");
        while !self
            .lines
            .recv_timeout(Duration::from_secs(5))
            .unwrap()
            .is_empty()
        {}
        assert!(first.starts_with('?'), "success: {first}");
        first[1..].trim().to_string()
    }

    pub fn ask(&mut self, line: &str) -> (String, Duration) {
        self.send(line);
        self.answer()
    }

    pub fn finish(mut self) -> String {
        self.send("quit");
        let _ = self.answer();
        let _ = self.child.wait();
        self.stderr
            .recv_timeout(Duration::from_secs(10))
            .unwrap_or_default()
    }
}
