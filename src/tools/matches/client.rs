//! A GTP engine as a child process for the match runner: the command line split as a
//! shell would, then the regression runner's [`ProcessEngine`] (reader thread, deadlines,
//! stray lines skipped, stderr discarded or passed through) does the talking; this layer
//! turns its replies into [`Answer`]s and remembers a failed exchange.

use std::path::Path;
use std::time::Duration;

use crate::tools::regress::{EngineFailure, GtpChannel, ProcessEngine};

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
    engine: ProcessEngine,
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
    /// Starts `command` (a bare program name is looked for on `PATH`, then in `/usr/games`
    /// and `/usr/local/games`). Only a command that cannot be started at all (no such
    /// program) is an error here; an engine that dies at once shows as [`Failure::Died`]
    /// later.
    pub fn spawn(command: &str, inherit_stderr: bool) -> Result<GtpClient, String> {
        let words = split_command(command)?;
        let engine = ProcessEngine::spawn(&words, Path::new("."), inherit_stderr)
            .map_err(|e| e.to_string())?;
        Ok(GtpClient {
            engine,
            broken: false,
        })
    }

    /// Sends one command and waits for its answer until `timeout` has passed.
    pub fn send(&mut self, command: &str, timeout: Duration) -> Result<Answer, Failure> {
        if self.broken {
            return Err(Failure::Died);
        }
        let r = match self.engine.exchange(command, timeout) {
            Ok(lines) => Ok(answer_of(&lines)),
            Err(EngineFailure::Died(_)) => Err(Failure::Died),
            Err(EngineFailure::Timeout(_)) => Err(Failure::Timeout),
        };
        self.broken |= r.is_err();
        r
    }

    /// Says `quit` (if the engine still listens), then makes sure the process is gone.
    pub fn close(self) {
        if !self.broken {
            self.engine.finish(Duration::from_secs(2));
        }
        // Otherwise dropping the engine kills it.
    }
}

/// The answer in the reply lines (from the `=`/`?` line, without the closing empty line):
/// status mark and id removed, each line's trailing space trimmed.
fn answer_of(lines: &[String]) -> Answer {
    let first = lines.first().map_or("", String::as_str);
    let ok = first.starts_with('=');
    let rest = first.get(1..).unwrap_or("");
    let mut text = rest
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim()
        .to_string();
    for line in &lines[1.min(lines.len())..] {
        text.push('\n');
        text.push_str(line.trim_end());
    }
    Answer { ok, text }
}
