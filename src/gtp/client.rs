//! The one GTP client: another engine as a child process, driven over its stdin and stdout
//! (`tengen match` for its players and its referee, `tengen regress`, the integration
//! tests). A reader thread turns the engine's stdout into lines, so every wait has a
//! deadline; its stderr is discarded, passed through or captured; the process is killed
//! when the client is dropped. It knows GTP's framing (a response is a `=` or `?` line,
//! the lines after it, and an empty line) and nothing of Go.

use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// Folders searched for an engine named without a `/` when it is not on `PATH`: Debian and
/// Ubuntu install GNU Go as `/usr/games/gnugo`, and `/usr/games` is not on a user's `PATH`
/// in every shell (never for root).
pub const FALLBACK_DIRS: [&str; 2] = ["/usr/games", "/usr/local/games"];

/// Where the engine program is: `program` itself when it has a `/`, else the first
/// executable of that name on `PATH`, then in [`FALLBACK_DIRS`]; `program` unchanged when
/// none is found (the spawn error then names it).
pub fn resolve_program(program: &str) -> PathBuf {
    if program.contains('/') {
        return PathBuf::from(program);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(FALLBACK_DIRS.iter().map(PathBuf::from))
        .map(|dir| dir.join(program))
        .find(|candidate| is_executable(candidate))
        .unwrap_or_else(|| PathBuf::from(program))
}

fn is_executable(path: &Path) -> bool {
    let Ok(meta) = fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        meta.is_file() && meta.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    {
        meta.is_file()
    }
}

/// Splits a command line as a POSIX shell would (quotes, backslashes), with no expansion.
pub fn split_command(command: &str) -> Result<Vec<String>, String> {
    let words = shell_words::split(command).map_err(|e| format!("{command:?}: {e}"))?;
    if words.is_empty() {
        return Err("empty engine command".into());
    }
    Ok(words)
}

/// What becomes of the engine's stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stderr {
    Discard,
    /// Through to this process's stderr.
    Inherit,
    /// Kept whole, for [`Client::stderr_text`].
    Capture,
}

/// Why an exchange with the engine did not produce a response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Failure {
    /// End of output, a broken pipe, or a read error: the engine died.
    Died(String),
    /// Nothing complete within the deadline.
    Timeout(Duration),
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Died(why) => write!(f, "engine died ({why})"),
            Failure::Timeout(t) => write!(f, "no reply within {} s", t.as_secs_f64()),
        }
    }
}

/// A response: success (`=`) or failure (`?`), the id echoed after the mark, and the text
/// (the first line after the mark and id, trimmed, then each further line after a
/// newline, its trailing space trimmed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Response {
    pub ok: bool,
    pub id: Option<i64>,
    pub text: String,
}

impl Response {
    /// The response in `lines` (from its `=`/`?` line, without the closing empty line);
    /// `None` unless the first line starts with `=` or `?`.
    pub fn parse(lines: &[String]) -> Option<Response> {
        let first = lines.first()?;
        let ok = match first.as_bytes().first()? {
            b'=' => true,
            b'?' => false,
            _ => return None,
        };
        let after = &first[1..];
        let rest = after.trim_start_matches(|c: char| c.is_ascii_digit());
        let id = after[..after.len() - rest.len()].parse().ok();
        let mut text = rest.trim().to_string();
        for line in &lines[1..] {
            text.push('\n');
            text.push_str(line.trim_end());
        }
        Some(Response { ok, id, text })
    }
}

/// A running engine.
pub struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<io::Result<String>>,
    stderr: Option<Receiver<String>>,
}

impl Client {
    /// Starts `command[0]` (see [`resolve_program`]) with the other words as arguments, in
    /// `cwd`. Only a program that cannot be started is an error here; an engine that dies
    /// at once shows as [`Failure::Died`] at the first exchange.
    pub fn spawn(command: &[String], cwd: &Path, stderr: Stderr) -> io::Result<Client> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no engine command"))?;
        let mut child = Command::new(resolve_program(program))
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(match stderr {
                Stderr::Discard => Stdio::null(),
                Stderr::Inherit => Stdio::inherit(),
                Stderr::Capture => Stdio::piped(),
            })
            .spawn()?;
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        if let Some(stdout) = child.stdout.take() {
            thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                loop {
                    let mut buf = Vec::new();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => break,
                        Ok(_) => {
                            let text = String::from_utf8_lossy(&buf);
                            let text = text.trim_end_matches('\n');
                            let text = text.strip_suffix('\r').unwrap_or(text).to_string();
                            if sender.send(Ok(text)).is_err() {
                                break;
                            }
                        }
                        Err(e) => {
                            let _ = sender.send(Err(e));
                            break;
                        }
                    }
                }
            });
        }
        let stderr = child.stderr.take().map(|mut err| {
            let (sender, text) = mpsc::channel();
            thread::spawn(move || {
                let mut bytes = Vec::new();
                let _ = err.read_to_end(&mut bytes);
                let _ = sender.send(String::from_utf8_lossy(&bytes).into_owned());
            });
            text
        });
        Ok(Client {
            child,
            stdin,
            lines,
            stderr,
        })
    }

    /// [`Client::spawn`] of a command line split as a shell would ([`split_command`]), in
    /// the current folder.
    pub fn spawn_command_line(command: &str, stderr: Stderr) -> Result<Client, String> {
        let words = split_command(command)?;
        Client::spawn(&words, Path::new("."), stderr)
            .map_err(|e| format!("cannot start engine {:?}: {e}", words[0]))
    }

    /// Writes one line (a newline added) and flushes it.
    pub fn send_line(&mut self, line: &str) -> Result<(), Failure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Failure::Died("stdin closed".into()))?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| Failure::Died(format!("write failed: {e}")))
    }

    /// The next line of the engine's output, whatever it is, within `timeout`.
    pub fn next_line(&mut self, timeout: Duration) -> Result<String, Failure> {
        match self.lines.recv_timeout(timeout) {
            Ok(Ok(text)) => Ok(text),
            Ok(Err(e)) => Err(Failure::Died(format!("read failed: {e}"))),
            Err(RecvTimeoutError::Timeout) => Err(Failure::Timeout(timeout)),
            Err(RecvTimeoutError::Disconnected) => Err(Failure::Died("end of output".into())),
        }
    }

    /// The lines of the next response, from its `=`/`?` line up to (without) the closing
    /// empty line, all within `timeout`. Lines before it that do not start a response are
    /// skipped.
    pub fn read_response(&mut self, timeout: Duration) -> Result<Vec<String>, Failure> {
        let deadline = Instant::now() + timeout;
        let mut response = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let text = self.next_line(left).map_err(|f| match f {
                Failure::Timeout(_) => Failure::Timeout(timeout),
                died => died,
            })?;
            if response.is_empty() {
                if text.starts_with(['=', '?']) {
                    response.push(text);
                }
            } else if text.is_empty() {
                return Ok(response);
            } else {
                response.push(text);
            }
        }
    }

    /// Sends one line and returns the lines of its response ([`Client::read_response`]).
    pub fn exchange(&mut self, line: &str, timeout: Duration) -> Result<Vec<String>, Failure> {
        self.send_line(line)?;
        self.read_response(timeout)
    }

    /// Sends one command and returns its parsed response.
    pub fn ask(&mut self, command: &str, timeout: Duration) -> Result<Response, Failure> {
        let lines = self.exchange(command, timeout)?;
        // `read_response` starts a response only at a `=` or `?` line, so this always parses.
        Response::parse(&lines).ok_or_else(|| Failure::Died("malformed response".into()))
    }

    /// Sends `quit` (if the engine still listens), closes its stdin and waits briefly for
    /// the exit; kills the process if it lingers. An engine already gone is fine.
    pub fn finish(mut self, timeout: Duration) {
        let _ = self.exchange("quit", timeout.min(Duration::from_secs(5)));
        self.stdin = None;
        self.wait_or_kill(Duration::from_secs(5));
    }

    /// Waits up to `timeout` for the process to exit, then kills it.
    pub fn wait_or_kill(&mut self, timeout: Duration) {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }

    /// Kills the process (a hung or misbehaving engine).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Everything the engine wrote to stderr, once it has closed it (under
    /// [`Stderr::Capture`]; empty otherwise or if it does not close it within `timeout`).
    pub fn stderr_text(&mut self, timeout: Duration) -> String {
        self.stderr
            .as_ref()
            .and_then(|r| r.recv_timeout(timeout).ok())
            .unwrap_or_default()
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(s: &str) -> Vec<String> {
        s.lines().map(String::from).collect()
    }

    #[test]
    fn responses_parse() {
        let r = Response::parse(&lines("=12 D4")).unwrap();
        assert_eq!((r.ok, r.id, r.text.as_str()), (true, Some(12), "D4"));
        let r = Response::parse(&lines("? illegal move")).unwrap();
        assert_eq!((r.ok, r.id, r.text.as_str()), (false, None, "illegal move"));
        let r = Response::parse(&lines("= \n A B  \n1 . .")).unwrap();
        assert_eq!(r.text, "\n A B\n1 . .");
        assert_eq!(Response::parse(&lines("hello")), None);
        assert_eq!(Response::parse(&[]), None);
    }

    #[test]
    fn program_resolution_falls_back_to_games_folders() {
        assert_eq!(resolve_program("./x"), PathBuf::from("./x"));
        assert_eq!(resolve_program("/a/b"), PathBuf::from("/a/b"));
        assert_eq!(
            resolve_program("no-such-engine-xyz"),
            PathBuf::from("no-such-engine-xyz")
        );
        if Path::new("/usr/games/gnugo").exists() {
            let found = resolve_program("gnugo");
            assert!(found.ends_with("gnugo") && found.is_absolute(), "{found:?}");
        }
        assert!(resolve_program("sh").is_absolute());
    }

    #[test]
    fn a_shell_engine_answers_dies_and_is_timed_out() {
        let script = "read a; printf '=1 x\\n\\n'; read b; printf 'noise\\n?2 no\\nmore\\n\\n'; \
                      read c; echo oops >&2; read d; exec sleep 5";
        let cmd = vec!["sh".to_string(), "-c".to_string(), script.to_string()];
        let mut c = Client::spawn(&cmd, Path::new("."), Stderr::Capture).unwrap();
        let t = Duration::from_secs(5);
        let r = c.ask("1 a", t).unwrap();
        assert_eq!((r.ok, r.id, r.text.as_str()), (true, Some(1), "x"));
        let r = c.ask("2 b", t).unwrap();
        assert_eq!((r.ok, r.text.as_str()), (false, "no\nmore"));
        c.send_line("c").unwrap();
        assert_eq!(
            c.ask("d", Duration::from_millis(100)),
            Err(Failure::Timeout(Duration::from_millis(100)))
        );
        c.kill();
        assert_eq!(c.stderr_text(t), "oops\n");
        assert!(matches!(c.ask("e", t), Err(Failure::Died(_))));
    }
}
