//! gogui-regress style regression runner: parses `.tst` files, drives a GTP engine process and
//! judges its replies; knows nothing about Go itself (the engine is any command).
//!
//! # Test file format (GNU Go `regress.pl` / `gogui-regress`)
//!
//! * Blank lines and `#` comment lines are skipped.
//! * A command line starting with a number (`12 play b D4`) is a *test*; every other command
//!   line is set-up and is sent too (a failing set-up command is reported, not counted).
//! * The `#? [regex]` line after a test (only comments may come between) is the expected reply
//!   text: without `=`/`?`, the id and the following space, trimmed. The regex must match the
//!   *whole* reply; `.` also matches newlines (multi-line replies). Look-ahead and
//!   look-behind work (fancy-regex), as in the Java regexes of gogui-regress.
//!   * `#? [!regex]`: negation, the reply must NOT match.
//!   * `#? [regex]*`: expected failure (a test known to fail).
//!   * `#? [?regex]` (extension): the reply must be a failure response (`? ...`) whose text
//!     matches `regex`. Without it a failure's text is matched like a success's text.
//!     With both, `[!?regex]`, the negation applies to the whole check.
//! * A numbered reply must echo the id (`=12 ...`); a missing or wrong id fails the test.
//! * A test without a `#?` line is sent but not checked.
//!
//! # Results and exit status
//!
//! One line per test: `passed`, `FAILED` (unexpected failure), `failed` (expected failure,
//! still failing), `PASSED` (expected failure that now passes). Then a summary per file and
//! overall, ending with a line `N passed, N failed` where `N failed` counts `FAILED` only and
//! `N passed` counts `passed` only; expected failures and unexpected passes are counted on the
//! line before it.
//!
//! Exit status ([`main_with_args`]): 0 when every test is `passed`, `failed` or `PASSED`
//! (an unexpected pass is good news and does not break the build; it is listed so that the `*`
//! can be removed); 1 when some test `FAILED`; 2 on a usage error, an unreadable or malformed
//! test file, an engine that could not be started, died, or did not answer within the timeout.

use std::fmt;
use std::fs;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use fancy_regex::Regex;

/// Default time an engine gets for one reply.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Errors that stop a whole file (or the run) rather than one test.
#[derive(Debug, thiserror::Error)]
pub enum RegressError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("cannot start engine {program:?}: {source}")]
    Spawn { program: String, source: io::Error },
    #[error("no engine command given")]
    NoEngine,
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
    #[error("usage: {0}")]
    Usage(String),
}

/// Run settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Longest wait for one reply; a hung engine aborts the file.
    pub timeout: Duration,
    /// Working directory of the engine; `None` = the test file's folder.
    pub cwd: Option<PathBuf>,
    /// Let the engine's stderr through (default: discarded).
    pub engine_stderr: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: DEFAULT_TIMEOUT,
            cwd: None,
            engine_stderr: false,
        }
    }
}

/// The expected reply of a test, from its `#? [...]` line.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// The pattern as written between the brackets (with `!`/`?` prefixes).
    pub pattern: String,
    /// `!`: the check is negated.
    pub negate: bool,
    /// `?` extension: the reply must be a failure response.
    pub want_failure: bool,
    /// Trailing `*`: the test is known to fail.
    pub expected_failure: bool,
    regex: Regex,
}

impl Expectation {
    /// Parse the text of a `#?` line (starting with `#?`).
    pub fn parse(line: &str) -> Result<Expectation, String> {
        let rest = line
            .trim()
            .strip_prefix("#?")
            .ok_or_else(|| "expectation line must start with '#?'".to_string())?
            .trim();
        let inner_start = rest
            .strip_prefix('[')
            .ok_or_else(|| format!("expected '[' in expectation {line:?}"))?;
        let close = inner_start
            .rfind(']')
            .ok_or_else(|| format!("missing ']' in expectation {line:?}"))?;
        let pattern = &inner_start[..close];
        let after = inner_start[close + 1..].trim();
        let expected_failure = after.starts_with('*');
        let mut body = pattern;
        let negate = body.starts_with('!');
        if negate {
            body = &body[1..];
        }
        let want_failure = body.starts_with('?');
        if want_failure {
            body = &body[1..];
        }
        let regex = Regex::new(&format!(r"(?s)\A(?:{body})\z"))
            .map_err(|e| format!("bad regex [{body}]: {e}"))?;
        Ok(Expectation {
            pattern: pattern.to_string(),
            negate,
            want_failure,
            expected_failure,
            regex,
        })
    }

    /// Does the reply meet the expectation (id not considered)?
    pub fn matches(&self, reply: &Reply) -> bool {
        // A regex that gives up (backtracking limit) counts as no match.
        let text_ok = self.regex.is_match(reply.text.trim()).unwrap_or(false);
        let ok = text_ok && (!self.want_failure || !reply.success);
        ok != self.negate
    }
}

/// One command line of a test file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The test number, for numbered commands.
    pub id: Option<u64>,
    /// The command without id and comment.
    pub command: String,
    /// The `#?` line that follows, if any.
    pub expect: Option<Expectation>,
}

impl Entry {
    /// The line sent to the engine.
    pub fn wire(&self) -> String {
        match self.id {
            Some(id) => format!("{id} {}", self.command),
            None => self.command.clone(),
        }
    }
}

/// A parsed `.tst` file.
#[derive(Debug, Clone, Default)]
pub struct TestFile {
    pub entries: Vec<Entry>,
}

/// Parse the text of a `.tst` file; errors carry the 1-based line number.
pub fn parse_test_file(text: &str) -> Result<TestFile, (usize, String)> {
    let mut entries: Vec<Entry> = Vec::new();
    // Index of the last numbered command still waiting for its `#?` line.
    let mut pending: Option<usize> = None;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = raw.trim();
        if line.starts_with("#?") {
            let expect = Expectation::parse(line).map_err(|e| (line_no, e))?;
            // A stray `#?` (no numbered command before it) is ignored, like a comment.
            if let Some(i) = pending.take() {
                entries[i].expect = Some(expect);
            }
            continue;
        }
        let command = match line.find('#') {
            Some(pos) => line[..pos].trim(),
            None => line,
        };
        if command.is_empty() {
            continue;
        }
        let (id, command) = split_id(command);
        pending = id.map(|_| entries.len());
        entries.push(Entry {
            line: line_no,
            id,
            command: command.to_string(),
            expect: None,
        });
    }
    Ok(TestFile { entries })
}

/// Split a leading numeric id off a command line.
fn split_id(command: &str) -> (Option<u64>, &str) {
    let first = command.split_whitespace().next().unwrap_or("");
    if !first.is_empty() && first.bytes().all(|b| b.is_ascii_digit()) {
        if let Ok(id) = first.parse::<u64>() {
            return (Some(id), command[first.len()..].trim());
        }
    }
    (None, command)
}

/// A parsed GTP response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// `=` (true) or `?` (false).
    pub success: bool,
    /// The id echoed after `=`/`?`, if any.
    pub id: Option<u64>,
    /// The text after the id and one space; later lines joined with `\n`.
    pub text: String,
}

impl Reply {
    /// Parse the lines of one response (without the terminating empty line).
    pub fn parse(lines: &[String]) -> Option<Reply> {
        let first = lines.first()?;
        let success = match first.as_bytes().first()? {
            b'=' => true,
            b'?' => false,
            _ => return None,
        };
        let after = &first[1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let id = if digits == 0 {
            None
        } else {
            after[..digits].parse().ok()
        };
        let rest = &after[digits..];
        let rest = rest
            .strip_prefix(' ')
            .or_else(|| rest.strip_prefix('\t'))
            .unwrap_or(rest);
        let mut text = rest.to_string();
        for line in &lines[1..] {
            text.push('\n');
            text.push_str(line);
        }
        Some(Reply { success, id, text })
    }
}

impl fmt::Display for Reply {
    /// `= text` / `? text` on one line (newlines shown as `\n`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mark = if self.success { '=' } else { '?' };
        let text = self.text.trim().replace('\n', "\\n");
        if text.is_empty() {
            write!(f, "{mark}")
        } else {
            write!(f, "{mark} {text}")
        }
    }
}

/// Why an exchange with the engine did not produce a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EngineFailure {
    /// End of output, a broken pipe, or a read error.
    Died(String),
    /// No complete reply within the timeout.
    Timeout(Duration),
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineFailure::Died(why) => write!(f, "engine died ({why})"),
            EngineFailure::Timeout(t) => write!(f, "no reply within {} s", t.as_secs_f64()),
        }
    }
}

/// Something that answers GTP command lines: a real process or an in-process fake.
pub trait GtpChannel {
    /// Send one line (no newline in it) and return the raw lines of the reply, without the
    /// terminating empty line.
    fn exchange(&mut self, line: &str, timeout: Duration) -> Result<Vec<String>, EngineFailure>;
}

/// An engine child process with a reader thread, so replies can be awaited with a timeout.
pub struct ProcessEngine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<io::Result<String>>,
}

impl ProcessEngine {
    /// Start `engine[0]` with the other elements as arguments, in `cwd`.
    pub fn spawn(engine: &[String], cwd: &Path, stderr: bool) -> Result<Self, RegressError> {
        let (program, args) = engine.split_first().ok_or(RegressError::NoEngine)?;
        let mut child = Command::new(program)
            .args(args)
            .current_dir(cwd)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(if stderr {
                Stdio::inherit()
            } else {
                Stdio::null()
            })
            .spawn()
            .map_err(|source| RegressError::Spawn {
                program: program.clone(),
                source,
            })?;
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        let (sender, lines) = mpsc::channel();
        if let Some(stdout) = stdout {
            thread::spawn(move || {
                let mut reader = BufReader::new(stdout);
                loop {
                    let mut buf = Vec::new();
                    match reader.read_until(b'\n', &mut buf) {
                        Ok(0) => break,
                        Ok(_) => {
                            let text = String::from_utf8_lossy(&buf);
                            let text = text.trim_end_matches(['\n', '\r']).to_string();
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
        Ok(ProcessEngine {
            child,
            stdin,
            lines,
        })
    }

    /// Send `quit`, close stdin and wait briefly for the exit; kill the process if it lingers.
    pub fn finish(mut self, timeout: Duration) {
        let _ = self.exchange("quit", timeout.min(Duration::from_secs(5)));
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_secs(5);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.kill();
    }

    /// Kill the process (a hung or misbehaving engine).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl GtpChannel for ProcessEngine {
    fn exchange(&mut self, line: &str, timeout: Duration) -> Result<Vec<String>, EngineFailure> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| EngineFailure::Died("stdin closed".into()))?;
        stdin
            .write_all(format!("{line}\n").as_bytes())
            .and_then(|()| stdin.flush())
            .map_err(|e| EngineFailure::Died(format!("write failed: {e}")))?;
        let deadline = Instant::now() + timeout;
        let mut reply = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(Ok(text)) => {
                    if text.trim().is_empty() {
                        if !reply.is_empty() {
                            return Ok(reply);
                        }
                        // Stray empty lines before a reply are tolerated.
                    } else {
                        reply.push(text);
                    }
                }
                Ok(Err(e)) => return Err(EngineFailure::Died(format!("read failed: {e}"))),
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout(timeout)),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(EngineFailure::Died("end of output".into()))
                }
            }
        }
    }
}

impl Drop for ProcessEngine {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}

/// The verdict on one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// As expected.
    Passed,
    /// Unexpected failure.
    Failed,
    /// Expected failure, still failing.
    ExpectedFailure,
    /// Expected failure that now passes.
    UnexpectedPass,
}

impl Outcome {
    /// Judge: did the check hold, and was the test marked as an expected failure?
    pub fn judge(ok: bool, expected_failure: bool) -> Outcome {
        match (ok, expected_failure) {
            (true, false) => Outcome::Passed,
            (false, false) => Outcome::Failed,
            (false, true) => Outcome::ExpectedFailure,
            (true, true) => Outcome::UnexpectedPass,
        }
    }

    /// The gogui-regress word.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "FAILED",
            Outcome::ExpectedFailure => "failed",
            Outcome::UnexpectedPass => "PASSED",
        }
    }
}

/// Counts for one file (or, summed, for a run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileSummary {
    pub name: String,
    pub passed: usize,
    /// Unexpected failures (`FAILED`).
    pub failed: usize,
    /// Expected failures still failing (`failed`).
    pub expected_failures: usize,
    /// Expected failures now passing (`PASSED`).
    pub unexpected_passes: usize,
    /// Numbered commands without a `#?` line.
    pub unchecked: usize,
    /// Set when the engine died or timed out and the rest of the file was skipped.
    pub aborted: Option<String>,
}

impl FileSummary {
    fn count(&mut self, outcome: Outcome) {
        match outcome {
            Outcome::Passed => self.passed += 1,
            Outcome::Failed => self.failed += 1,
            Outcome::ExpectedFailure => self.expected_failures += 1,
            Outcome::UnexpectedPass => self.unexpected_passes += 1,
        }
    }

    fn add(&mut self, other: &FileSummary) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.expected_failures += other.expected_failures;
        self.unexpected_passes += other.unexpected_passes;
        self.unchecked += other.unchecked;
    }
}

/// Run a parsed test file over any channel, writing one line per test and a file summary.
pub fn run_tests(
    name: &str,
    file: &TestFile,
    engine: &mut dyn GtpChannel,
    opts: &Options,
    out: &mut dyn Write,
) -> io::Result<FileSummary> {
    let mut summary = FileSummary {
        name: name.to_string(),
        ..FileSummary::default()
    };
    for entry in &file.entries {
        let result = engine.exchange(&entry.wire(), opts.timeout);
        let lines = match result {
            Ok(lines) => lines,
            Err(failure) => {
                if let (Some(id), Some(_)) = (entry.id, &entry.expect) {
                    summary.failed += 1;
                    writeln!(
                        out,
                        "{id} FAILED: {} -> <{failure}>",
                        entry.command.as_str()
                    )?;
                }
                writeln!(
                    out,
                    "{name}:{}: {failure} on {:?}; rest of the file skipped",
                    entry.line,
                    entry.wire()
                )?;
                summary.aborted = Some(failure.to_string());
                break;
            }
        };
        let reply = Reply::parse(&lines);
        let shown = match &reply {
            Some(r) => r.to_string(),
            None => format!("<malformed: {}>", lines.join("\\n")),
        };
        match (entry.id, &entry.expect) {
            (Some(id), Some(expect)) => {
                let id_ok = reply.as_ref().is_some_and(|r| r.id == Some(id));
                let ok = reply.as_ref().is_some_and(|r| expect.matches(r));
                let outcome = Outcome::judge(ok && id_ok, expect.expected_failure);
                summary.count(outcome);
                let star = if expect.expected_failure { "*" } else { "" };
                let id_note = if id_ok || reply.is_none() {
                    ""
                } else {
                    " (id not echoed)"
                };
                writeln!(
                    out,
                    "{id} {}: {} -> '{shown}' (expected [{}]{star}){id_note}",
                    outcome.word(),
                    entry.command,
                    expect.pattern
                )?;
            }
            (Some(_), None) => summary.unchecked += 1,
            (None, _) => {
                if !reply.as_ref().is_some_and(|r| r.success) {
                    writeln!(
                        out,
                        "{name}:{}: set-up command failed: {} -> '{shown}'",
                        entry.line, entry.command
                    )?;
                }
            }
        }
    }
    write_counts(out, name, &summary)?;
    Ok(summary)
}

fn write_counts(out: &mut dyn Write, name: &str, s: &FileSummary) -> io::Result<()> {
    let aborted = match &s.aborted {
        Some(why) => format!(", ABORTED: {why}"),
        None => String::new(),
    };
    writeln!(
        out,
        "{name}: {} passed, {} FAILED, {} failed (expected), {} PASSED (unexpected){aborted}",
        s.passed, s.failed, s.expected_failures, s.unexpected_passes
    )
}

/// Run one `.tst` file with a fresh engine started in the file's folder (or `opts.cwd`).
pub fn run_file(
    path: &Path,
    engine: &[String],
    opts: &Options,
    out: &mut dyn Write,
) -> Result<FileSummary, RegressError> {
    let bytes = fs::read(path).map_err(|source| RegressError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8_lossy(&bytes);
    let file = parse_test_file(&text).map_err(|(line, message)| RegressError::Parse {
        path: path.to_path_buf(),
        line,
        message,
    })?;
    let cwd = match &opts.cwd {
        Some(dir) => dir.clone(),
        None => match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        },
    };
    let mut process = ProcessEngine::spawn(engine, &cwd, opts.engine_stderr)?;
    let name = path.display().to_string();
    writeln!(out, "== {name}")?;
    let summary = run_tests(&name, &file, &mut process, opts, out)?;
    if summary.aborted.is_none() {
        process.finish(opts.timeout);
    } else {
        process.kill();
    }
    Ok(summary)
}

/// The result of [`run_files`].
#[derive(Debug, Clone, Default)]
pub struct RunSummary {
    pub files: Vec<FileSummary>,
    /// Files that could not be run at all (unreadable, malformed, engine not started).
    pub errors: usize,
    pub total: FileSummary,
}

impl RunSummary {
    /// 0 = all good, 1 = some test FAILED, 2 = a file could not be run or the engine died.
    pub fn exit_code(&self) -> i32 {
        if self.errors > 0 || self.files.iter().any(|f| f.aborted.is_some()) {
            2
        } else if self.total.failed > 0 {
            1
        } else {
            0
        }
    }
}

/// Run several files, each with its own engine, then print the overall summary whose last
/// line is `N passed, N failed`.
pub fn run_files(
    paths: &[PathBuf],
    engine: &[String],
    opts: &Options,
    out: &mut dyn Write,
) -> Result<RunSummary, RegressError> {
    let mut run = RunSummary {
        total: FileSummary {
            name: "total".into(),
            ..FileSummary::default()
        },
        ..RunSummary::default()
    };
    for path in paths {
        match run_file(path, engine, opts, out) {
            Ok(summary) => {
                run.total.add(&summary);
                run.files.push(summary);
            }
            Err(RegressError::Output(e)) => return Err(RegressError::Output(e)),
            Err(e) => {
                run.errors += 1;
                writeln!(out, "ERROR: {e}")?;
            }
        }
    }
    let aborted = run.files.iter().filter(|f| f.aborted.is_some()).count();
    writeln!(
        out,
        "{} files, {} could not be run, {} aborted",
        paths.len(),
        run.errors,
        aborted
    )?;
    writeln!(
        out,
        "{} expected failures still failing, {} expected failures now PASSED",
        run.total.expected_failures, run.total.unexpected_passes
    )?;
    writeln!(
        out,
        "{} passed, {} failed",
        run.total.passed, run.total.failed
    )?;
    Ok(run)
}

const USAGE: &str = "tengen regress [--timeout SECS] [--cwd DIR] [--engine-stderr] FILE.tst... \
[-- ENGINE ARGS...]  (default engine: this executable)";

/// Entry for `tengen regress ...`: `args` are the arguments after `regress`. Prints to stdout
/// and returns the exit status (see the module docs).
pub fn main_with_args(args: &[String]) -> i32 {
    let (files, engine, opts) = match parse_args(args) {
        Ok(Some(parsed)) => parsed,
        Ok(None) => {
            println!("usage: {USAGE}");
            return 0;
        }
        Err(message) => {
            eprintln!("error: {message}\nusage: {USAGE}");
            return 2;
        }
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run_files(&files, &engine, &opts, &mut out) {
        Ok(run) => run.exit_code(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

type ParsedArgs = (Vec<PathBuf>, Vec<String>, Options);

/// `Ok(None)` = help requested.
fn parse_args(args: &[String]) -> Result<Option<ParsedArgs>, String> {
    let mut opts = Options::default();
    let mut files = Vec::new();
    let mut engine = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--" => {
                engine = iter.by_ref().cloned().collect();
                break;
            }
            "-h" | "--help" => return Ok(None),
            "--timeout" => {
                let value = iter.next().ok_or("--timeout needs a value")?;
                let secs: f64 = value
                    .parse()
                    .map_err(|_| format!("bad --timeout value {value:?}"))?;
                if !(secs.is_finite() && secs > 0.0 && secs < 1e9) {
                    return Err(format!("bad --timeout value {value:?}"));
                }
                opts.timeout = Duration::from_secs_f64(secs);
            }
            "--cwd" => {
                let dir = iter.next().ok_or("--cwd needs a folder")?;
                opts.cwd = Some(PathBuf::from(dir));
            }
            "--engine-stderr" => opts.engine_stderr = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option {flag}")),
            file => files.push(PathBuf::from(file)),
        }
    }
    if files.is_empty() {
        return Err("no test file given".into());
    }
    if engine.is_empty() {
        let exe =
            std::env::current_exe().map_err(|e| format!("cannot find own executable: {e}"))?;
        engine.push(exe.to_string_lossy().into_owned());
    }
    Ok(Some((files, engine, opts)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(line: &str) -> Expectation {
        Expectation::parse(line).expect("valid expectation")
    }

    fn ok(text: &str) -> Reply {
        Reply {
            success: true,
            id: None,
            text: text.into(),
        }
    }

    fn err(text: &str) -> Reply {
        Reply {
            success: false,
            id: None,
            text: text.into(),
        }
    }

    /// In-process fake engine: answers from a function of the command; `None` = died.
    struct Fake<F: FnMut(&str) -> Result<String, EngineFailure>>(F);

    impl<F: FnMut(&str) -> Result<String, EngineFailure>> GtpChannel for Fake<F> {
        fn exchange(&mut self, line: &str, _: Duration) -> Result<Vec<String>, EngineFailure> {
            let (id, command) = split_id(line);
            let raw = (self.0)(command)?;
            let id = id.map(|n| n.to_string()).unwrap_or_default();
            let (mark, text) = raw.split_at(1);
            let framed = format!("{mark}{id}{text}");
            Ok(framed.lines().map(String::from).collect())
        }
    }

    fn fake_gtp(command: &str) -> Result<String, EngineFailure> {
        Ok(match command {
            "name" => "= Fake".into(),
            "play b D4" => "= ".into(),
            "play w D4" => "? illegal move".into(),
            "showboard" => "= \n A B\n2 . .\n1 . .".into(),
            "die" => return Err(EngineFailure::Died("end of output".into())),
            "hang" => return Err(EngineFailure::Timeout(Duration::from_secs(1))),
            _ => "? unknown command".into(),
        })
    }

    fn run(text: &str) -> (FileSummary, String) {
        let file = parse_test_file(text).expect("parses");
        let mut out = Vec::new();
        let summary = run_tests(
            "t.tst",
            &file,
            &mut Fake(fake_gtp),
            &Options::default(),
            &mut out,
        )
        .expect("writes");
        (summary, String::from_utf8(out).expect("utf8"))
    }

    #[test]
    fn parses_tests_setup_comments_and_expectations() {
        let text = "# comment\n\nboardsize 9\n12 play b D4  # trailing\n# between\n#? [] \n\
                    13 name\n14 play w D4\n#? [?illegal move]*\n#? [stray]\n";
        let file = parse_test_file(text).unwrap();
        assert_eq!(file.entries.len(), 4);
        assert_eq!(file.entries[0].id, None);
        assert_eq!(file.entries[0].command, "boardsize 9");
        assert_eq!(file.entries[1].id, Some(12));
        assert_eq!(file.entries[1].command, "play b D4");
        assert_eq!(file.entries[1].line, 4);
        assert_eq!(file.entries[1].expect.as_ref().unwrap().pattern, "");
        assert!(file.entries[2].expect.is_none());
        let e = file.entries[3].expect.as_ref().unwrap();
        assert!(e.want_failure && e.expected_failure && !e.negate);
        assert_eq!(file.entries[3].wire(), "14 play w D4");
    }

    #[test]
    fn crlf_files_parse() {
        let file = parse_test_file("1 name\r\n#? [Fake]\r\n").unwrap();
        assert_eq!(file.entries[0].command, "name");
        assert!(file.entries[0]
            .expect
            .as_ref()
            .unwrap()
            .matches(&ok("Fake")));
    }

    #[test]
    fn bad_expectations_are_errors_with_line_numbers() {
        assert_eq!(parse_test_file("1 name\n#? [(]\n").unwrap_err().0, 2);
        assert_eq!(parse_test_file("1 name\n#? Fake\n").unwrap_err().0, 2);
        assert_eq!(parse_test_file("1 name\n#? [Fake\n").unwrap_err().0, 2);
    }

    #[test]
    fn whole_reply_is_anchored() {
        let e = expect("#? [D4]");
        assert!(e.matches(&ok("D4")));
        assert!(!e.matches(&ok("D45")));
        assert!(!e.matches(&ok("AD4")));
        assert!(expect("#? []").matches(&ok("")));
        assert!(!expect("#? []").matches(&ok("x")));
        // Alternatives stay inside the anchors.
        let alt = expect("#? [A1|B2]");
        assert!(alt.matches(&ok("B2")));
        assert!(!alt.matches(&ok("A1 B2")));
    }

    #[test]
    fn multi_line_replies() {
        let e = expect("#? [.*X.*]");
        assert!(e.matches(&ok("line one\nX\nline three")));
        assert!(!expect("#? [line one]").matches(&ok("line one\nline two")));
    }

    #[test]
    fn negation() {
        let e = expect("#? [!pass]");
        assert!(e.matches(&ok("D4")));
        assert!(!e.matches(&ok("pass")));
        let both = expect("#? [!?illegal move]");
        assert!(both.matches(&ok("illegal move")));
        assert!(!both.matches(&err("illegal move")));
    }

    #[test]
    fn failure_extension() {
        let e = expect("#? [?illegal move]");
        assert!(e.matches(&err("illegal move")));
        assert!(!e.matches(&ok("illegal move")));
        assert!(!e.matches(&err("syntax error")));
        // Without the extension a failure's text is matched like a success's.
        assert!(expect("#? [illegal move]").matches(&err("illegal move")));
        assert!(expect("#? []").matches(&err("")));
    }

    #[test]
    fn reply_parsing() {
        let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
        assert_eq!(
            Reply::parse(&lines("=12 D4")),
            Some(Reply {
                success: true,
                id: Some(12),
                text: "D4".into()
            })
        );
        assert_eq!(Reply::parse(&lines("?")), Some(err("")));
        assert_eq!(Reply::parse(&lines("= a\nb")).unwrap().text, "a\nb");
        assert_eq!(Reply::parse(&lines("hello")), None);
        assert_eq!(Reply::parse(&[]), None);
        assert_eq!(Reply::parse(&lines("=")).unwrap().to_string(), "=");
    }

    #[test]
    fn outcomes_and_report_lines() {
        let (s, out) = run(
            "1 name\n#? [Fake]\n2 play w D4\n#? []\n3 play w D4\n#? [?illegal move]\n\
             4 play w D4\n#? [x]*\n5 name\n#? [Fake]*\n6 name\n",
        );
        assert_eq!(
            (s.passed, s.failed, s.expected_failures, s.unexpected_passes),
            (2, 1, 1, 1)
        );
        assert_eq!(s.unchecked, 1);
        assert!(out.contains("1 passed: name -> '= Fake' (expected [Fake])"));
        assert!(out.contains("2 FAILED: play w D4 -> '? illegal move' (expected [])"));
        assert!(out.contains("4 failed: play w D4"));
        assert!(out.contains("5 PASSED: name"));
        assert!(out.contains("t.tst: 2 passed, 1 FAILED, 1 failed (expected), 1 PASSED"));
    }

    #[test]
    fn multi_line_reply_through_the_channel() {
        let (s, _) = run("1 showboard\n#? [.*2 \\. \\..*1 \\. \\.]\n");
        assert_eq!(s.passed, 1);
    }

    #[test]
    fn missing_id_fails_the_test() {
        let file = parse_test_file("7 name\n#? [Fake]\n").unwrap();
        let mut no_id = Fake(|_: &str| Ok("= Fake".to_string()));
        // The fake frames the id itself; bypass it with a channel that drops the id.
        struct NoId<'a, F: FnMut(&str) -> Result<String, EngineFailure>>(&'a mut Fake<F>);
        impl<F: FnMut(&str) -> Result<String, EngineFailure>> GtpChannel for NoId<'_, F> {
            fn exchange(&mut self, line: &str, t: Duration) -> Result<Vec<String>, EngineFailure> {
                let (_, command) = split_id(line);
                self.0.exchange(command, t)
            }
        }
        let mut out = Vec::new();
        let s = run_tests(
            "t",
            &file,
            &mut NoId(&mut no_id),
            &Options::default(),
            &mut out,
        )
        .unwrap();
        assert_eq!(s.failed, 1);
        assert!(String::from_utf8(out).unwrap().contains("id not echoed"));
    }

    #[test]
    fn dead_or_hung_engine_aborts_the_file() {
        for cmd in ["die", "hang"] {
            let (s, out) = run(&format!(
                "1 name\n#? [Fake]\n2 {cmd}\n#? []\n3 name\n#? [Fake]\n"
            ));
            assert_eq!((s.passed, s.failed), (1, 1), "{out}");
            assert!(s.aborted.is_some());
            assert!(out.contains("rest of the file skipped"));
        }
        let run = RunSummary {
            files: vec![FileSummary {
                aborted: Some("x".into()),
                ..FileSummary::default()
            }],
            ..RunSummary::default()
        };
        assert_eq!(run.exit_code(), 2);
    }

    #[test]
    fn setup_failures_are_reported_not_counted() {
        let (s, out) = run("bogus\n1 name\n#? [Fake]\n");
        assert_eq!((s.passed, s.failed), (1, 0));
        assert!(out.contains("set-up command failed: bogus"));
    }

    #[test]
    fn exit_codes() {
        let mut run = RunSummary::default();
        assert_eq!(run.exit_code(), 0);
        run.total.expected_failures = 3;
        run.total.unexpected_passes = 1;
        assert_eq!(run.exit_code(), 0);
        run.total.failed = 1;
        assert_eq!(run.exit_code(), 1);
        run.errors = 1;
        assert_eq!(run.exit_code(), 2);
    }

    #[test]
    fn argument_parsing() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let (files, engine, opts) = parse_args(&args("--timeout 2.5 a.tst b.tst -- eng -x"))
            .unwrap()
            .unwrap();
        assert_eq!(files.len(), 2);
        assert_eq!(engine, vec!["eng", "-x"]);
        assert_eq!(opts.timeout, Duration::from_millis(2500));
        assert!(parse_args(&args("")).is_err());
        assert!(parse_args(&args("--timeout")).is_err());
        assert!(parse_args(&args("--timeout -1 a.tst")).is_err());
        assert!(parse_args(&args("--bogus a.tst")).is_err());
        assert!(parse_args(&args("--help")).unwrap().is_none());
        let (_, engine, _) = parse_args(&args("a.tst")).unwrap().unwrap();
        assert_eq!(engine.len(), 1);
        assert_eq!(main_with_args(&args("--nope")), 2);
    }

    #[test]
    fn missing_file_and_missing_engine_are_errors() {
        let mut out = Vec::new();
        let engine = vec!["/nonexistent/engine/xyz".to_string()];
        let run = run_files(
            &[PathBuf::from("/nonexistent/file.tst")],
            &engine,
            &Options::default(),
            &mut out,
        )
        .unwrap();
        assert_eq!(run.exit_code(), 2);
        let text = String::from_utf8(out).unwrap();
        assert!(text.ends_with("0 passed, 0 failed\n"), "{text}");
    }
}
