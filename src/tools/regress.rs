//! `tengen regress`: a regression runner that gives the same verdicts as the real
//! gogui-regress 1.6.0 (learned by running it; `scripts/regress_diff.py` checks the agreement).
//! It knows nothing about Go: the engine is any GTP command.
//!
//! # Test file format, as gogui-regress reads it
//!
//! * The engine is started afresh for every file, in the file's folder (`--cwd` overrides).
//! * Lines are trimmed. Blank lines and `#` comment lines are skipped; every other line is a
//!   command and is sent as it stands (trailing comment included).
//! * A command whose first word is an integer and that has a second word (`12 play b D4`) is
//!   a numbered *test*. Any other command is set-up; its failure is not reported.
//! * A `#?` line must come right after a command (no blank or comment line between): it is that
//!   command's expected reply. A `#?` line anywhere else stops the run with an error. A set-up
//!   command followed by a `#?` line is a test too, with id `-1`. An empty `#?` line means no
//!   expectation.
//! * `#? [regex]`, `#? [!regex]` (negated), either followed by `*`: an expected failure.
//!   The text between the brackets is trimmed; the regex (Java syntax, here fancy-regex) must
//!   match the *whole* reply text with `^`/`$` matching at line ends and `.` matching newlines.
//!   It is compiled only when a success reply has to be matched: a bad regex stops the run
//!   then, and never otherwise.
//! * The reply text: the first line after its first space (`=12 D4` gives `D4`), the other lines
//!   after a newline, all trimmed. Lines before a reply that start with neither `=` nor `?` are
//!   skipped. The id in the reply is not checked.
//!
//! # Verdicts
//!
//! For a test with a pattern: a `?` reply is `FAILED` (unexpected failure), or `failed` when
//! the test is marked `*`, whatever its text. A `=` reply whose text meets the check (match, or
//! no match under `!`) is `passed`, or `PASSED` (unexpected pass) when marked `*`; one that does
//! not is `FAILED`, or `failed` when marked `*`. A numbered test without a pattern passes
//! silently on `=` and is an `unexpected FAIL` on `?`.
//!
//! Output follows `gogui-regress -long`: one line per test except silent passes (prefixed by
//! the file name when several files are run), then per file
//! `Summary: P/T passes. U unexpected passes, F unexpected failures`, where `P` counts `passed`
//! and `PASSED`, `T` every test, `F` both kinds of unexpected failure.
//!
//! Exit status: 0 when no test with a pattern is `FAILED`, 1 when one is (an `unexpected FAIL`
//! of a test without a pattern shows in the summary but, as in gogui-regress, not in the
//! status), 2 on an error, which stops the whole run: a missing file (checked before anything
//! runs), a malformed or stray `#?` line, a regex that does not compile, an engine that cannot
//! be started, dies or (extension) does not answer within `--timeout`.
//!
//! # Extension: `--strict`
//!
//! gogui-regress cannot tell one failure text from another, so the GTP spec's failure texts
//! (`illegal move`, `cannot undo`, ...) are written as expected failures, `#? [illegal move]*`,
//! and pinned by `--strict`: there a test marked `*` must get a `?` reply whose text meets the
//! check (`failed`); any other reply is `FAILED`. `--strict` also fails a numbered test with a
//! pattern whose reply does not echo its id. Without `--strict` the verdicts are gogui-exact.

use std::fs;
use std::io::{self, Write};
use std::path::PathBuf;
use std::time::Duration;

use fancy_regex::Regex;

use crate::gtp::client::{Client, Failure, Response, Stderr};

/// Default time an engine gets for one reply.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

/// Arguments of `tengen regress` (parsed by clap in `main.rs`).
#[derive(clap::Args, Debug, Clone)]
#[command(
    after_help = "Verdicts and exit status (0 ok, 1 some test FAILED, 2 error) follow \
gogui-regress 1.6.0; see src/tools/regress.rs. Example:\n  \
tengen regress --strict gtp-tests/*.tst\n  \
tengen regress my.tst -- gnugo --mode gtp   (found in /usr/games when not on PATH)"
)]
pub struct RegressArgs {
    /// Regression files (gogui-regress format), run in order, each with a fresh engine.
    #[arg(required = true, value_name = "FILE.tst")]
    pub files: Vec<PathBuf>,
    /// The engine command and its arguments, after `--` (default: this tengen). A name
    /// without `/` is looked up on PATH, then in /usr/games and /usr/local/games.
    #[arg(last = true, value_name = "ENGINE ARGS")]
    pub engine: Vec<String>,
    /// Longest wait in seconds for one reply; a silent engine stops the run (exit 2).
    #[arg(long, value_name = "SECS", default_value_t = DEFAULT_TIMEOUT.as_secs_f64(),
          value_parser = parse_timeout)]
    pub timeout: f64,
    /// Working directory of the engine (default: the test file's folder, as in
    /// gogui-regress).
    #[arg(long, value_name = "DIR")]
    pub cwd: Option<PathBuf>,
    /// Let the engine's stderr through (default: discarded).
    #[arg(long)]
    pub engine_stderr: bool,
    /// Extension: a test marked `*` must get a `?` reply matching its pattern, and numbered
    /// replies must echo their id (pins the spec's failure texts).
    #[arg(long)]
    pub strict: bool,
}

fn parse_timeout(value: &str) -> Result<f64, String> {
    match value.parse::<f64>() {
        Ok(secs) if secs.is_finite() && secs > 0.0 && secs < 1e9 => Ok(secs),
        _ => Err(format!("bad timeout {value:?} (seconds, > 0)")),
    }
}

/// Errors that stop the run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum RegressError {
    #[error("cannot read {path}: {source}")]
    Read { path: PathBuf, source: io::Error },
    #[error("{path}:{line}: {message}")]
    Parse {
        path: String,
        line: usize,
        message: String,
    },
    #[error("{path}:{line}: bad regex [{pattern}]: {message}")]
    Regex {
        path: String,
        line: usize,
        pattern: String,
        message: String,
    },
    #[error("cannot start engine {program:?}: {source}")]
    Spawn { program: String, source: io::Error },
    #[error("{path}:{line}: {failure} on {command:?}")]
    Engine {
        path: String,
        line: usize,
        command: String,
        failure: Failure,
    },
    #[error("no engine command given")]
    NoEngine,
    #[error("cannot write output: {0}")]
    Output(#[from] io::Error),
}

/// Run settings.
#[derive(Debug, Clone)]
pub struct Options {
    /// Longest wait for one reply (extension; gogui-regress waits forever).
    pub timeout: Duration,
    /// Working directory of the engine; `None` = the test file's folder (gogui-regress).
    pub cwd: Option<PathBuf>,
    /// Let the engine's stderr through (default: discarded).
    pub engine_stderr: bool,
    /// The `--strict` extension (see the module docs).
    pub strict: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            timeout: DEFAULT_TIMEOUT,
            cwd: None,
            engine_stderr: false,
            strict: false,
        }
    }
}

/// Java's `String.trim`: every char up to U+0020 goes, at both ends.
fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// The expected reply of a test, from its `#? [...]` line.
#[derive(Debug, Clone)]
pub struct Expectation {
    /// The text between the brackets, trimmed (with its `!`), as gogui-regress shows it.
    pub pattern: String,
    /// `!`: the check is negated.
    pub negate: bool,
    /// Trailing `*`: the test is known to fail.
    pub expected_failure: bool,
    /// The compiled whole-reply regex, or why it does not compile.
    regex: Result<Regex, String>,
}

impl Expectation {
    /// Parse the text of a `#?` line (starting with `#?`); `Ok(None)` for an empty one.
    pub fn parse(line: &str) -> Result<Option<Expectation>, String> {
        let mut rest = java_trim(
            java_trim(line)
                .strip_prefix("#?")
                .ok_or("expectation line must start with '#?'")?,
        );
        if rest.is_empty() {
            return Ok(None);
        }
        let expected_failure = rest.ends_with('*');
        if expected_failure {
            rest = &rest[..rest.len() - 1];
        }
        if !rest.starts_with('[') {
            return Err(format!("Pattern has no opening bracket: {rest}"));
        }
        if rest.len() < 2 || !rest.ends_with(']') {
            return Err(format!("Pattern has no closing bracket: {rest}"));
        }
        let pattern = java_trim(&rest[1..rest.len() - 1]);
        let (negate, body) = match pattern.strip_prefix('!') {
            Some(body) => (true, body),
            None => (false, pattern),
        };
        // Compiled alone first, so that the body cannot break out of the anchoring group.
        let regex = Regex::new(body)
            .and_then(|_| Regex::new(&format!(r"(?ms)\A(?:{body})\z")))
            .map_err(|e| e.to_string());
        Ok(Some(Expectation {
            pattern: pattern.to_string(),
            negate,
            expected_failure,
            regex,
        }))
    }

    /// Does the reply text meet the check (regex match, flipped by `!`)? `Err` when the regex
    /// does not compile. A regex that gives up (backtracking limit) counts as no match.
    pub fn check(&self, text: &str) -> Result<bool, String> {
        let regex = self.regex.as_ref().map_err(Clone::clone)?;
        Ok(regex.is_match(text).unwrap_or(false) != self.negate)
    }
}

/// One command line of a test file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: usize,
    /// The number of a numbered command.
    pub id: Option<i32>,
    /// The trimmed line, sent as it stands.
    pub wire: String,
    /// The `#?` line right after it, if any and not empty.
    pub expect: Option<Expectation>,
}

impl Entry {
    /// The id of the test this command is: its number, `-1` for a set-up command with an
    /// expectation, `None` for plain set-up.
    pub fn test_id(&self) -> Option<i64> {
        match (self.id, &self.expect) {
            (Some(id), _) => Some(id.into()),
            (None, Some(_)) => Some(-1),
            (None, None) => None,
        }
    }
}

/// One item of a parsed file: a command, or a malformed line that stops the run when reached
/// (gogui-regress reads as it runs, so the tests before it still get their verdicts).
#[derive(Debug, Clone)]
pub enum Item {
    Command(Entry),
    Error { line: usize, message: String },
}

/// A parsed `.tst` file.
#[derive(Debug, Clone, Default)]
pub struct TestFile {
    pub items: Vec<Item>,
}

/// Parse the text of a `.tst` file. Never fails: malformed lines become [`Item::Error`], and
/// nothing after the first one is kept.
pub fn parse_test_file(text: &str) -> TestFile {
    let mut items: Vec<Item> = Vec::new();
    // The previous line was a command still free to take a `#?` line.
    let mut open = false;
    for (index, raw) in text.lines().enumerate() {
        let line_no = index + 1;
        let line = java_trim(raw);
        if line.starts_with("#?") {
            let result = if open {
                Expectation::parse(line)
            } else {
                Err(format!(
                    "Response pattern without preceding test command: {line}"
                ))
            };
            open = false;
            match result {
                Ok(expect) => {
                    if let Some(Item::Command(entry)) = items.last_mut() {
                        entry.expect = expect;
                    }
                }
                Err(message) => {
                    items.push(Item::Error {
                        line: line_no,
                        message,
                    });
                    break;
                }
            }
            continue;
        }
        if line.is_empty() || line.starts_with('#') {
            open = false;
            continue;
        }
        open = true;
        items.push(Item::Command(Entry {
            line: line_no,
            id: test_number(line),
            wire: line.to_string(),
            expect: None,
        }));
    }
    TestFile { items }
}

/// The number of a numbered command: a first word that Java's `Integer.parseInt` takes
/// (optional sign, 32 bits), followed by at least one more word.
fn test_number(line: &str) -> Option<i32> {
    let mut words = line.split_whitespace();
    let first = words.next()?;
    words.next()?;
    // Rust's i32 parse takes exactly what parseInt does: one optional sign, ASCII digits.
    first.parse().ok()
}

/// A GTP response as gogui-regress reads it: the client's [`Response`] for the status
/// and the id, its own reading of the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// `=` (true) or `?` (false).
    pub success: bool,
    /// The id echoed right after `=`/`?`, if any (checked only under `--strict`).
    pub id: Option<i64>,
    /// As gogui-regress sees it: the first line after its first space, then the other
    /// lines, trimmed (so `=2x y` gives `y`, where [`Response`] gives `x y`).
    pub text: String,
}

impl Reply {
    /// Parse the lines of one response (without the terminating empty line); `None` unless
    /// the first line starts with `=` or `?`.
    pub fn parse(lines: &[String]) -> Option<Reply> {
        let Response { ok, id, .. } = Response::parse(lines)?;
        let first = &lines[0];
        let mut text = match first.find(' ') {
            Some(pos) => first[pos + 1..].to_string(),
            None => String::new(),
        };
        for line in &lines[1..] {
            text.push('\n');
            text.push_str(line);
        }
        Some(Reply {
            success: ok,
            id,
            text: java_trim(&text).to_string(),
        })
    }
}

/// Something that answers GTP command lines: a real process or an in-process fake.
pub trait GtpChannel {
    /// Send one line (no newline in it) and return the lines of the reply, from its `=`/`?`
    /// line up to (without) the terminating empty line.
    fn exchange(&mut self, line: &str, timeout: Duration) -> Result<Vec<String>, Failure>;
}

impl GtpChannel for Client {
    fn exchange(&mut self, line: &str, timeout: Duration) -> Result<Vec<String>, Failure> {
        Client::exchange(self, line, timeout)
    }
}

/// The verdict on one test.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// `passed`: as expected.
    Passed,
    /// `FAILED`: a test with a pattern failed unexpectedly.
    Failed,
    /// `failed`: an expected failure, still failing.
    ExpectedFailure,
    /// `PASSED`: an expected failure that now passes.
    UnexpectedPass,
    /// `unexpected FAIL`: a numbered test without a pattern got a `?` reply.
    FailedWithoutPattern,
}

impl Verdict {
    /// The gogui-regress word.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Failed => "FAILED",
            Verdict::ExpectedFailure => "failed",
            Verdict::UnexpectedPass => "PASSED",
            Verdict::FailedWithoutPattern => "unexpected FAIL",
        }
    }
}

/// Judge one reply. `id` is the test number (for the `--strict` echo check). `Err` carries
/// the message of a regex that does not compile.
pub fn judge(
    expect: Option<&Expectation>,
    reply: &Reply,
    id: Option<i32>,
    strict: bool,
) -> Result<Verdict, String> {
    judge_noted(expect, reply, id, strict).map(|(verdict, _)| verdict)
}

/// [`judge`], with the note a `--strict` failure carries in the output ("" otherwise).
fn judge_noted(
    expect: Option<&Expectation>,
    reply: &Reply,
    id: Option<i32>,
    strict: bool,
) -> Result<(Verdict, &'static str), String> {
    let Some(e) = expect else {
        return Ok((
            if reply.success {
                Verdict::Passed
            } else {
                Verdict::FailedWithoutPattern
            },
            "",
        ));
    };
    if strict && id.is_some_and(|id| reply.id != Some(id.into())) {
        return Ok((Verdict::Failed, " (strict: id not echoed)"));
    }
    if strict && e.expected_failure {
        return Ok(if !reply.success && e.check(&reply.text)? {
            (Verdict::ExpectedFailure, "")
        } else {
            (
                Verdict::Failed,
                " (strict: expected a failure reply matching the pattern)",
            )
        });
    }
    if !reply.success {
        return Ok((
            if e.expected_failure {
                Verdict::ExpectedFailure
            } else {
                Verdict::Failed
            },
            "",
        ));
    }
    let verdict = match (e.check(&reply.text)?, e.expected_failure) {
        (true, false) => Verdict::Passed,
        (true, true) => Verdict::UnexpectedPass,
        (false, true) => Verdict::ExpectedFailure,
        (false, false) => Verdict::Failed,
    };
    Ok((verdict, ""))
}

/// Counts for one file (or, summed, for a run).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Summary {
    /// Every test (numbered, or set-up with a pattern).
    pub tests: usize,
    pub passed: usize,
    /// `FAILED`: the failures that set exit status 1.
    pub failed: usize,
    /// `failed`: expected failures.
    pub expected_failures: usize,
    /// `PASSED`.
    pub unexpected_passes: usize,
    /// `unexpected FAIL`.
    pub failed_without_pattern: usize,
}

impl Summary {
    fn count(&mut self, verdict: Verdict) {
        self.tests += 1;
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::ExpectedFailure => self.expected_failures += 1,
            Verdict::UnexpectedPass => self.unexpected_passes += 1,
            Verdict::FailedWithoutPattern => self.failed_without_pattern += 1,
        }
    }

    fn add(&mut self, other: &Summary) {
        self.tests += other.tests;
        self.passed += other.passed;
        self.failed += other.failed;
        self.expected_failures += other.expected_failures;
        self.unexpected_passes += other.unexpected_passes;
        self.failed_without_pattern += other.failed_without_pattern;
    }

    /// gogui-regress's "passes": `passed` and `PASSED`.
    pub fn passes(&self) -> usize {
        self.passed + self.unexpected_passes
    }

    /// gogui-regress's "unexpected failures": `FAILED` and `unexpected FAIL`.
    pub fn unexpected_failures(&self) -> usize {
        self.failed + self.failed_without_pattern
    }

    /// `P/T passes. U unexpected passes, F unexpected failures`
    fn line(&self) -> String {
        format!(
            "{}/{} passes. {} unexpected passes, {} unexpected failures",
            self.passes(),
            self.tests,
            self.unexpected_passes,
            self.unexpected_failures()
        )
    }
}

/// Run a parsed file over any channel: one line per test (`prefix` before each), then the
/// `Summary:` line. `name` names the file in errors. Stops at the first error, returned next
/// to the counts so far.
pub fn run_tests(
    name: &str,
    prefix: &str,
    file: &TestFile,
    engine: &mut dyn GtpChannel,
    opts: &Options,
    out: &mut dyn Write,
) -> (Summary, Result<(), RegressError>) {
    let mut summary = Summary::default();
    for item in &file.items {
        let entry = match item {
            Item::Command(entry) => entry,
            Item::Error { line, message } => {
                let error = RegressError::Parse {
                    path: name.to_string(),
                    line: *line,
                    message: message.clone(),
                };
                return (summary, Err(error));
            }
        };
        let engine_error = |failure| RegressError::Engine {
            path: name.to_string(),
            line: entry.line,
            command: entry.wire.clone(),
            failure,
        };
        let lines = match engine.exchange(&entry.wire, opts.timeout) {
            Ok(lines) => lines,
            Err(failure) => return (summary, Err(engine_error(failure))),
        };
        let Some(reply) = Reply::parse(&lines) else {
            let why = format!("malformed reply {:?}", lines.join("\\n"));
            return (summary, Err(engine_error(Failure::Died(why))));
        };
        let Some(test_id) = entry.test_id() else {
            continue;
        };
        let (verdict, note) =
            match judge_noted(entry.expect.as_ref(), &reply, entry.id, opts.strict) {
                Ok(judged) => judged,
                Err(message) => {
                    let error = RegressError::Regex {
                        path: name.to_string(),
                        line: entry.line + 1,
                        pattern: entry.expect.as_ref().map_or("", |e| &e.pattern).to_string(),
                        message,
                    };
                    return (summary, Err(error));
                }
            };
        summary.count(verdict);
        if let Err(e) = write_verdict(out, prefix, test_id, verdict, entry, &reply, note) {
            return (summary, Err(e.into()));
        }
    }
    let result = writeln!(out, "Summary: {}", summary.line()).map_err(RegressError::from);
    (summary, result)
}

fn write_verdict(
    out: &mut dyn Write,
    prefix: &str,
    id: i64,
    verdict: Verdict,
    entry: &Entry,
    reply: &Reply,
    note: &str,
) -> io::Result<()> {
    let word = verdict.word();
    let pattern = entry.expect.as_ref().map_or("", |e| &e.pattern);
    let text = &reply.text;
    match verdict {
        // gogui-regress prints nothing for a test without a pattern that passes.
        Verdict::Passed if entry.expect.is_none() => Ok(()),
        Verdict::Passed | Verdict::UnexpectedPass => writeln!(out, "{prefix}{id} {word}"),
        Verdict::FailedWithoutPattern => writeln!(out, "{prefix}{id} {word}: '{text}'"),
        Verdict::Failed | Verdict::ExpectedFailure => {
            writeln!(
                out,
                "{prefix}{id} {word}: Correct '{pattern}', got '{text}'{note}"
            )
        }
    }
}

/// The result of [`run_files`].
#[derive(Debug, Default)]
pub struct RunSummary {
    pub total: Summary,
    /// The error that stopped the run, if any.
    pub error: Option<RegressError>,
}

impl RunSummary {
    /// 0 = no test FAILED, 1 = some test FAILED, 2 = the run stopped on an error.
    pub fn exit_code(&self) -> i32 {
        if self.error.is_some() {
            2
        } else if self.total.failed > 0 {
            1
        } else {
            0
        }
    }
}

/// Run several files, each with a fresh engine, stopping at the first error (reported on
/// stderr and in the result). `Err` only when the output cannot be written.
pub fn run_files(
    paths: &[PathBuf],
    engine: &[String],
    opts: &Options,
    out: &mut dyn Write,
) -> Result<RunSummary, RegressError> {
    let mut run = RunSummary::default();
    let fail = |mut run: RunSummary, error: RegressError| {
        eprintln!("{error}");
        run.error = Some(error);
        Ok(run)
    };
    // Every file is read before anything runs, as gogui-regress checks them all first.
    let mut texts = Vec::new();
    for path in paths {
        match fs::read(path) {
            Ok(bytes) => texts.push(String::from_utf8_lossy(&bytes).into_owned()),
            Err(source) => {
                let path = path.to_path_buf();
                return fail(run, RegressError::Read { path, source });
            }
        }
    }
    for (path, text) in paths.iter().zip(&texts) {
        let cwd = match (&opts.cwd, path.parent()) {
            (Some(dir), _) => dir.clone(),
            (None, Some(dir)) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
            (None, _) => PathBuf::from("."),
        };
        let name = path.display().to_string();
        let prefix = if paths.len() > 1 {
            format!("{name} ")
        } else {
            String::new()
        };
        let file = parse_test_file(text);
        let Some(program) = engine.first() else {
            return fail(run, RegressError::NoEngine);
        };
        let stderr = if opts.engine_stderr {
            Stderr::Inherit
        } else {
            Stderr::Discard
        };
        let mut process = match Client::spawn(engine, &cwd, stderr) {
            Ok(process) => process,
            Err(source) => {
                let program = program.clone();
                return fail(run, RegressError::Spawn { program, source });
            }
        };
        let (summary, result) = run_tests(&name, &prefix, &file, &mut process, opts, out);
        run.total.add(&summary);
        match result {
            Ok(()) => process.finish(opts.timeout),
            Err(RegressError::Output(e)) => return Err(RegressError::Output(e)),
            Err(e) => {
                process.kill();
                return fail(run, e);
            }
        }
    }
    if paths.len() > 1 {
        writeln!(out, "Total: {} files, {}", paths.len(), run.total.line())?;
    }
    Ok(run)
}

/// Entry for `tengen regress ...`: prints to stdout, returns the exit status.
pub fn main(args: RegressArgs) -> i32 {
    let mut engine = args.engine;
    if engine.is_empty() {
        match std::env::current_exe() {
            Ok(exe) => engine.push(exe.to_string_lossy().into_owned()),
            Err(e) => {
                eprintln!("error: cannot find own executable: {e}");
                return 2;
            }
        }
    }
    let opts = Options {
        timeout: Duration::from_secs_f64(args.timeout),
        cwd: args.cwd,
        engine_stderr: args.engine_stderr,
        strict: args.strict,
    };
    let stdout = io::stdout();
    let mut out = stdout.lock();
    match run_files(&args.files, &engine, &opts, &mut out) {
        Ok(run) => run.exit_code(),
        Err(e) => {
            eprintln!("error: {e}");
            2
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(line: &str) -> Expectation {
        Expectation::parse(line)
            .expect("valid expectation")
            .expect("not empty")
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

    fn verdict(line: &str, reply: &Reply) -> Verdict {
        judge(Some(&expect(line)), reply, None, false).expect("regex compiles")
    }

    /// In-process fake engine: answers from a function of the command.
    struct Fake<F: FnMut(&str) -> Result<String, Failure>>(F);

    impl<F: FnMut(&str) -> Result<String, Failure>> GtpChannel for Fake<F> {
        fn exchange(&mut self, line: &str, _: Duration) -> Result<Vec<String>, Failure> {
            let (id, command) = match test_number(line) {
                Some(id) => (id.to_string(), line.split_once(' ').unwrap().1.trim()),
                None => (String::new(), line),
            };
            let raw = (self.0)(command)?;
            let (mark, text) = raw.split_at(1);
            let framed = format!("{mark}{id}{text}");
            Ok(framed.lines().map(String::from).collect())
        }
    }

    fn fake_gtp(command: &str) -> Result<String, Failure> {
        Ok(match command {
            "name" => "= Fake".into(),
            "play b D4" => "= ".into(),
            "play w D4" => "? illegal move".into(),
            "showboard" => "= \n A B\n2 . .\n1 . .".into(),
            "die" => return Err(Failure::Died("end of output".into())),
            "hang" => return Err(Failure::Timeout(Duration::from_secs(1))),
            _ => "? unknown command".into(),
        })
    }

    fn run_with(text: &str, opts: &Options) -> (Result<Summary, String>, String) {
        let file = parse_test_file(text);
        let mut out = Vec::new();
        let (summary, result) = run_tests("t.tst", "", &file, &mut Fake(fake_gtp), opts, &mut out);
        let result = result.map(|()| summary).map_err(|e| e.to_string());
        (result, String::from_utf8(out).expect("utf8"))
    }

    fn run(text: &str) -> (Result<Summary, String>, String) {
        run_with(text, &Options::default())
    }

    fn commands(file: &TestFile) -> Vec<&Entry> {
        file.items
            .iter()
            .filter_map(|item| match item {
                Item::Command(entry) => Some(entry),
                Item::Error { .. } => None,
            })
            .collect()
    }

    #[test]
    fn parses_tests_setup_comments_and_expectations() {
        let text = "# comment\n\nboardsize 9\n  12 play b D4  # trailing\n#? [] \n\
                    13 name\n14 play w D4\n#? [ illegal move ]*\nname\n#? [Fake]\n5\n";
        let file = parse_test_file(text);
        let entries = commands(&file);
        assert_eq!(entries.len(), 6);
        assert_eq!((entries[0].id, entries[0].test_id()), (None, None));
        assert_eq!(entries[1].id, Some(12));
        assert_eq!(entries[1].wire, "12 play b D4  # trailing");
        assert_eq!(entries[1].line, 4);
        assert_eq!(entries[1].expect.as_ref().unwrap().pattern, "");
        assert!(entries[2].expect.is_none());
        let e = entries[3].expect.as_ref().unwrap();
        assert!(e.expected_failure && !e.negate);
        assert_eq!(e.pattern, "illegal move");
        // A set-up command with a pattern is test -1; a lone number is a set-up command.
        assert_eq!(entries[4].test_id(), Some(-1));
        assert_eq!((entries[5].id, entries[5].test_id()), (None, None));
    }

    #[test]
    fn test_numbers_are_java_ints_followed_by_a_word() {
        assert_eq!(test_number("12 name"), Some(12));
        assert_eq!(test_number("01\tname"), Some(1));
        assert_eq!(test_number("-3 name"), Some(-3));
        assert_eq!(test_number("+3 name"), Some(3));
        assert_eq!(test_number("5"), None);
        assert_eq!(test_number("12abc name"), None);
        assert_eq!(test_number("99999999999 name"), None);
    }

    #[test]
    fn stray_and_malformed_patterns_are_errors_in_place() {
        for text in [
            "1 name\n\n#? [Fake]\n",
            "1 name\n# c\n#? [Fake]\n",
            "1 name\n#? [Fake]\n#? [Fake]\n",
            "1 name\n#?\n#? [Fake]\n",
            "#? [x]\n",
            "1 name\n#? Fake\n",
            "1 name\n#? [Fake\n",
            "1 name\n#? [Fake] *\n",
            "1 name\n#? [Fake]**\n",
            "1 name\n#? *\n",
        ] {
            let file = parse_test_file(text);
            assert!(
                matches!(file.items.last(), Some(Item::Error { .. })),
                "{text:?}"
            );
        }
        // An empty pattern line is no pattern; `[]]` is the pattern `]`.
        let file = parse_test_file("1 name\n#?  \n2 name\n#? []]\n");
        let entries = commands(&file);
        assert!(entries[0].expect.is_none());
        assert_eq!(entries[1].expect.as_ref().unwrap().pattern, "]");
    }

    #[test]
    fn crlf_files_parse() {
        let file = parse_test_file("1 name\r\n#? [Fake]\r\n");
        let entries = commands(&file);
        assert_eq!(entries[0].wire, "1 name");
        assert!(entries[0].expect.is_some());
    }

    #[test]
    fn whole_reply_is_matched_with_line_anchors_and_dotall() {
        let e = expect("#? [D4]");
        assert_eq!(e.check("D4"), Ok(true));
        assert_eq!(e.check("D45"), Ok(false));
        assert_eq!(e.check("AD4"), Ok(false));
        assert_eq!(expect("#? []").check(""), Ok(true));
        assert_eq!(expect("#? [A1|B2]").check("A1 B2"), Ok(false));
        assert_eq!(expect("#? [a.b]").check("a\nb"), Ok(true));
        assert_eq!(expect("#? [a$\\n^b]").check("a\nb"), Ok(true));
        assert_eq!(
            expect("#? [line one]").check("line one\nline two"),
            Ok(false)
        );
        // The pattern is trimmed, what follows `!` is not.
        assert_eq!(expect("#? [ D4 ]").check("D4"), Ok(true));
        assert_eq!(expect("#? [! D4]").check("D4"), Ok(true));
    }

    #[test]
    fn verdicts_follow_gogui_regress() {
        assert_eq!(verdict("#? [Fake]", &ok("Fake")), Verdict::Passed);
        assert_eq!(verdict("#? [x]", &ok("Fake")), Verdict::Failed);
        assert_eq!(verdict("#? [!x]", &ok("Fake")), Verdict::Passed);
        assert_eq!(verdict("#? [!Fake]", &ok("Fake")), Verdict::Failed);
        assert_eq!(verdict("#? [Fake]*", &ok("Fake")), Verdict::UnexpectedPass);
        assert_eq!(verdict("#? [x]*", &ok("Fake")), Verdict::ExpectedFailure);
        // A failure reply fails whatever its text and the pattern.
        assert_eq!(
            verdict("#? [illegal move]", &err("illegal move")),
            Verdict::Failed
        );
        assert_eq!(verdict("#? [!x]", &err("illegal move")), Verdict::Failed);
        assert_eq!(
            verdict("#? [illegal move]*", &err("syntax error")),
            Verdict::ExpectedFailure
        );
        // A bad regex is an error only when a success reply is matched against it.
        assert_eq!(verdict("#? [*]", &err("x")), Verdict::Failed);
        assert!(judge(Some(&expect("#? [*]")), &ok("x"), None, false).is_err());
        assert_eq!(judge(None, &ok(""), Some(1), false), Ok(Verdict::Passed));
        assert_eq!(
            judge(None, &err("x"), Some(1), false),
            Ok(Verdict::FailedWithoutPattern)
        );
    }

    #[test]
    fn strict_pins_failure_texts_and_ids() {
        let strict = |line: &str, reply: &Reply, id| judge(Some(&expect(line)), reply, id, true);
        let mut reply = err("illegal move");
        assert_eq!(
            strict("#? [illegal move]*", &reply, None),
            Ok(Verdict::ExpectedFailure)
        );
        assert_eq!(
            strict("#? [illegal move]*", &err("syntax error"), None),
            Ok(Verdict::Failed)
        );
        assert_eq!(strict("#? []*", &ok(""), None), Ok(Verdict::Failed));
        assert_eq!(
            strict("#? [illegal move]*", &reply, Some(7)),
            Ok(Verdict::Failed)
        );
        reply.id = Some(7);
        assert_eq!(
            strict("#? [illegal move]*", &reply, Some(7)),
            Ok(Verdict::ExpectedFailure)
        );
    }

    #[test]
    fn reply_parsing_follows_gogui_regress() {
        let lines = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
        let reply = Reply::parse(&lines("=12 D4")).unwrap();
        assert_eq!(
            (reply.success, reply.id, reply.text.as_str()),
            (true, Some(12), "D4")
        );
        assert_eq!(Reply::parse(&lines("?")), Some(err("")));
        assert_eq!(Reply::parse(&lines("= a\nb")).unwrap().text, "a\nb");
        assert_eq!(
            Reply::parse(&lines("= \n  A B\n1 . .")).unwrap().text,
            "A B\n1 . ."
        );
        // The text starts after the first space: none, none.
        assert_eq!(Reply::parse(&lines("=x")).unwrap().text, "");
        assert_eq!(Reply::parse(&lines("=3\tx")).unwrap().text, "");
        assert_eq!(Reply::parse(&lines("=2x y")).unwrap().text, "y");
        assert_eq!(Reply::parse(&lines("hello")), None);
        assert_eq!(Reply::parse(&[]), None);
    }

    #[test]
    fn report_lines_and_summary() {
        let (s, out) = run(
            "1 name\n#? [Fake]\n2 play w D4\n#? []\n3 play w D4\n#? [illegal move]*\n\
             4 play b D4\n#? [x]*\n5 name\n#? [Fake]*\n6 name\n7 bogus\nbogus\nname\n#? [x]\n",
        );
        let s = s.unwrap();
        assert_eq!(
            (
                s.tests,
                s.passed,
                s.failed,
                s.expected_failures,
                s.unexpected_passes
            ),
            (8, 2, 2, 2, 1)
        );
        assert_eq!(s.failed_without_pattern, 1);
        let want = "1 passed\n\
                    2 FAILED: Correct '', got 'illegal move'\n\
                    3 failed: Correct 'illegal move', got 'illegal move'\n\
                    4 failed: Correct 'x', got ''\n\
                    5 PASSED\n\
                    7 unexpected FAIL: 'unknown command'\n\
                    -1 FAILED: Correct 'x', got 'Fake'\n\
                    Summary: 3/8 passes. 1 unexpected passes, 3 unexpected failures\n";
        assert_eq!(out, want);
    }

    #[test]
    fn multi_line_reply_through_the_channel() {
        let (s, _) = run("1 showboard\n#? [A B\\n2 \\. \\..*1 \\. \\.]\n");
        assert_eq!(s.unwrap().passed, 1);
    }

    #[test]
    fn errors_stop_after_the_verdicts_before_them() {
        for text in [
            "1 name\n#? [Fake]\n2 die\n#? []\n3 name\n#? [Fake]\n",
            "1 name\n#? [Fake]\n2 hang\n#? []\n3 name\n#? [Fake]\n",
            "1 name\n#? [Fake]\n2 name\n#? [*]\n3 name\n#? [Fake]\n",
            "1 name\n#? [Fake]\n\n#? [Fake]\n3 name\n#? [Fake]\n",
        ] {
            let (result, out) = run(text);
            assert!(result.is_err(), "{text:?}");
            assert_eq!(out, "1 passed\n", "{text:?}");
        }
    }

    #[test]
    fn exit_codes() {
        let mut run = RunSummary::default();
        assert_eq!(run.exit_code(), 0);
        run.total.expected_failures = 3;
        run.total.unexpected_passes = 1;
        run.total.failed_without_pattern = 1;
        assert_eq!(run.exit_code(), 0);
        run.total.failed = 1;
        assert_eq!(run.exit_code(), 1);
        run.error = Some(RegressError::NoEngine);
        assert_eq!(run.exit_code(), 2);
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
        assert!(out.is_empty());
        let dir = std::env::temp_dir().join(format!("tengen-regress-unit-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let file = dir.join("a.tst");
        fs::write(&file, "1 name\n#? [x]\n").unwrap();
        let run = run_files(&[file], &engine, &Options::default(), &mut out).unwrap();
        assert!(matches!(run.error, Some(RegressError::Spawn { .. })));
        let _ = fs::remove_dir_all(&dir);
    }
}
