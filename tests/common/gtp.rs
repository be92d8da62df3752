//! A Tengen process driven over real pipes, for the tests that need timing or streamed
//! responses.

use std::io::Write;
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use tengen::gtp::client::{Client, Response, Stderr};

/// A Tengen process with `args` and all three standard streams piped.
fn spawn(args: &[&str]) -> Child {
    super::tengen()
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

/// A Tengen process with stderr captured, driven through the one GTP client
/// ([`tengen::gtp::client::Client`]): the tests' own asserting helpers on top of it.
pub struct Gtp {
    client: Client,
}

impl Gtp {
    pub fn start(args: &[&str]) -> Gtp {
        let command = super::engine_command(args);
        let client =
            Client::spawn(&command, Path::new("."), Stderr::Capture).expect("start tengen");
        Gtp { client }
    }

    pub fn send(&mut self, line: &str) {
        self.client.send_line(line).unwrap();
    }

    /// The next raw output line, within `timeout`.
    pub fn line(&mut self, timeout: Duration) -> String {
        self.client.next_line(timeout).expect("an output line")
    }

    /// The next response's text (after `= `), and how long it took to come.
    pub fn answer(&mut self) -> (String, Duration) {
        let t0 = Instant::now();
        let r = self.response();
        assert!(r.ok, "failure: ?{}", r.text);
        (r.text, t0.elapsed())
    }

    /// The next response, which must be a failure: its text (after `? `).
    pub fn answer_failure(&mut self) -> String {
        let r = self.response();
        assert!(!r.ok, "success: ={}", r.text);
        r.text
    }

    fn response(&mut self) -> Response {
        let lines = self
            .client
            .read_response(Duration::from_secs(60))
            .expect("a response");
        Response::parse(&lines).expect("a response line")
    }

    pub fn ask(&mut self, line: &str) -> (String, Duration) {
        self.send(line);
        self.answer()
    }

    /// Says `quit`, waits for the exit: everything the engine wrote on stderr.
    pub fn finish(mut self) -> String {
        self.send("quit");
        let _ = self.answer();
        self.client.wait_or_kill(Duration::from_secs(10));
        self.client.stderr_text(Duration::from_secs(10))
    }
}
