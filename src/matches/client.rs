//! A GTP engine as a child process: the command line split as a shell would, commands
//! written to its stdin, answers read from its stdout by a thread (so a silent engine
//! cannot block the runner past a deadline), stderr discarded or passed through (never a
//! full pipe, so never a deadlock).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// A GTP answer: `=` (ok) or `?`, and its text with the status mark and id removed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    pub ok: bool,
    pub text: String,
}

/// Why no answer came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The engine closed its output or could not be written to: it died.
    Died,
    /// No answer before the deadline.
    Timeout,
}

/// One running engine.
pub struct GtpClient {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Set once an exchange failed: the engine's state is unknown, do not use it again.
    pub broken: bool,
}

/// Splits a command line as a POSIX shell would (quotes, backslashes), with no expansion.
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command).map_err(|e| format!("{command:?}: {e}"))?;
    if words.is_empty() {
        return Err("empty engine command".into());
    }
    Ok(words)
}

impl GtpClient {
    /// Starts `command`. Only a command that cannot be started at all (no such program) is
    /// an error here; an engine that dies at once shows as [`Failure::Died`] later.
    pub fn spawn(command: &str, inherit_stderr: bool) -> Result<GtpClient, String> {
        let words = split_command(command)?;
        let mut child = Command::new(&words[0])
            .args(&words[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if inherit_stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|e| format!("cannot start {:?}: {e}", words[0]))?;
        let stdout = child.stdout.take().expect("piped stdout");
        let stdin = child.stdin.take();
        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut buf = Vec::new();
            loop {
                buf.clear();
                match reader.read_until(b'\n', &mut buf) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        let line = String::from_utf8_lossy(&buf);
                        let line = line.trim_end_matches(['\n', '\r']).to_string();
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        Ok(GtpClient {
            child,
            stdin,
            lines: rx,
            broken: false,
        })
    }

    /// Sends one command and waits for its answer until `timeout` has passed.
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<Answer, Failure> {
        let r = self.exchange(command, timeout);
        if r.is_err() {
            self.broken = true;
        }
        r
    }

    fn exchange(&mut self, command: &str, timeout: Duration) -> Result<Answer, Failure> {
        if self.broken {
            return Err(Failure::Died);
        }
        let deadline = Instant::now() + timeout;
        let stdin = self.stdin.as_mut().ok_or(Failure::Died)?;
        if writeln!(stdin, "{command}").is_err() || stdin.flush().is_err() {
            return Err(Failure::Died);
        }
        let mut answer: Option<Answer> = None;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(line) => line,
                Err(RecvTimeoutError::Timeout) => return Err(Failure::Timeout),
                Err(RecvTimeoutError::Disconnected) => return Err(Failure::Died),
            };
            match answer.as_mut() {
                None => {
                    // Anything before the status mark (stray output) is skipped.
                    let Some(first) = line.chars().next() else {
                        continue;
                    };
                    if first != '=' && first != '?' {
                        continue;
                    }
                    let rest = line[1..].trim_start_matches(|c: char| c.is_ascii_digit());
                    answer = Some(Answer {
                        ok: first == '=',
                        text: rest.trim().to_string(),
                    });
                }
                Some(a) if line.trim().is_empty() => {
                    return Ok(std::mem::replace(
                        a,
                        Answer {
                            ok: false,
                            text: String::new(),
                        },
                    ))
                }
                Some(a) => {
                    if !a.text.is_empty() || !line.is_empty() {
                        a.text.push('\n');
                    }
                    a.text.push_str(line.trim_end());
                }
            }
        }
    }

    /// Says `quit` (if the engine still listens), then makes sure the process is gone.
    pub fn close(mut self) {
        if !self.broken {
            let _ = self.exchange("quit", Duration::from_secs(2));
        }
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(20));
        }
        // Drop kills it.
    }
}

impl Drop for GtpClient {
    fn drop(&mut self) {
        self.stdin = None;
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}
