//! The GTP session loop: the only code that reads the command stream and writes
//! responses. A reader thread splits raw input into preprocessed lines; the main loop
//! parses them, runs them strictly in order through an [`Executor`] and frames the
//! responses. Logs go to stderr.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;

use super::command::{is_known_command, line_id, list_commands, parse_command, Command};
use super::error::GtpError;
use super::preprocess::preprocess;

/// Longest line, in bytes, that is buffered. A longer line is answered `? syntax error`
/// (unless what follows the limit is only a comment or white space); its tail is read
/// and thrown away, never stored.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// The protocol version answered to `protocol_version`.
pub const PROTOCOL_VERSION: &str = "2";

/// A successful answer from the executor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reply {
    /// The response text, without `=`, id or final empty line. May span several lines;
    /// empty lines inside are made non-empty when framed.
    pub text: String,
    /// End the session after sending this response (`quit` always ends it anyway).
    pub quit: bool,
}

impl Reply {
    /// A response with this text.
    pub fn new(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            quit: false,
        }
    }

    /// The empty success response, `= `.
    pub fn empty() -> Reply {
        Reply::default()
    }

    /// The same response, then end the session.
    pub fn and_quit(self) -> Reply {
        Reply { quit: true, ..self }
    }
}

impl From<String> for Reply {
    fn from(text: String) -> Reply {
        Reply::new(text)
    }
}

impl From<&str> for Reply {
    fn from(text: &str) -> Reply {
        Reply::new(text)
    }
}

/// What runs the commands: owns the game and the engine, does no I/O on stdin/stdout.
///
/// `serve` answers `protocol_version`, `list_commands` and `known_command` itself (from
/// the command table); every other command, `quit` included, comes here. After `quit`
/// the session ends whatever the result.
pub trait Executor {
    /// Runs one command. `ctx` tells a long command (`genmove`) whether it should stop
    /// early. A panic is caught and answered `? internal error`, but should not happen.
    fn execute(&mut self, command: Command, ctx: &Context) -> Result<Reply, GtpError>;
}

/// State shared by the reader thread and every [`Context`].
#[derive(Debug, Default)]
struct Shared {
    /// Command lines handed to the main loop so far; line `n` (from 1) runs with seq `n`.
    queued: AtomicU64,
    /// Commands with a seq up to this one are interrupted (0: none).
    interrupted_upto: AtomicU64,
    /// The input has ended (or failed).
    closed: AtomicBool,
}

/// What a running command may ask about the input while it runs. Cheap to clone, so a
/// search thread can keep its own copy; `Send + Sync`.
#[derive(Clone, Debug)]
pub struct Context {
    shared: Arc<Shared>,
    /// The position of this command in the input (from 1).
    seq: u64,
}

impl Context {
    /// A context attached to no input: never interrupted (until [`Context::interrupt`]),
    /// nothing pending. For tests and for running an executor without `serve`.
    pub fn new() -> Context {
        Context {
            shared: Arc::default(),
            seq: 1,
        }
    }

    /// True once `# interrupt` has arrived while this command was queued or running. A
    /// new command starts uninterrupted.
    pub fn interrupted(&self) -> bool {
        self.shared.interrupted_upto.load(Ordering::Acquire) >= self.seq
    }

    /// True when another command line is already waiting behind this one.
    pub fn input_pending(&self) -> bool {
        self.shared.queued.load(Ordering::Acquire) > self.seq
    }

    /// True when the input has ended: no more commands will come.
    pub fn input_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// Marks this command interrupted, as `# interrupt` would (for tests, or a time
    /// keeper that wants to stop a search).
    pub fn interrupt(&self) {
        self.shared
            .interrupted_upto
            .fetch_max(self.seq, Ordering::AcqRel);
    }
}

impl Default for Context {
    fn default() -> Context {
        Context::new()
    }
}

/// What the reader thread sends to the main loop.
#[derive(Debug)]
enum Input {
    /// A preprocessed, non-empty line and its position.
    Line { seq: u64, text: String },
    /// A line over [`MAX_LINE_BYTES`]: answered `? syntax error`, with the id if its
    /// beginning had one.
    TooLong { id: Option<String> },
    /// End of input (or a read error).
    Eof,
}

/// Writes one line to stderr, ignoring failure (stderr may be closed too).
fn log(args: fmt::Arguments<'_>) {
    let _ = writeln!(io::stderr().lock(), "tengen: {args}");
}

/// A byte that survives preprocessing as something visible (not control, not space).
fn is_content(b: u8) -> bool {
    !(b.is_ascii_control() || b == b' ')
}

/// Turns one raw line (without LF) into the message for the main loop, or `None` when
/// it gets no response. `truncated`: bytes beyond [`MAX_LINE_BYTES`] were dropped;
/// `tail_has_content`: some of them were visible.
fn classify(raw: &[u8], truncated: bool, tail_has_content: bool, shared: &Shared) -> Option<Input> {
    let text = String::from_utf8_lossy(raw);
    if !truncated && text.trim() == "# interrupt" {
        // Interrupts every command received so far; later ones start afresh.
        let upto = shared.queued.load(Ordering::Acquire);
        shared.interrupted_upto.fetch_max(upto, Ordering::AcqRel);
        return None;
    }
    let clean = preprocess(&text);
    // A `#` in the kept part makes the dropped tail a comment: the line is complete.
    let too_long = truncated && tail_has_content && !raw.contains(&b'#');
    if clean.is_empty() && !too_long {
        return None;
    }
    let seq = shared.queued.fetch_add(1, Ordering::AcqRel) + 1;
    Some(if too_long {
        Input::TooLong {
            id: line_id(&clean).map(str::to_string),
        }
    } else {
        Input::Line { seq, text: clean }
    })
}

/// The reader thread: splits `input` into lines, keeping at most [`MAX_LINE_BYTES`] of
/// each, and sends them on until the input ends or the main loop has gone.
fn read_lines<R: Read>(input: R, tx: &Sender<Input>, shared: &Shared) {
    let mut reader = BufReader::with_capacity(64 * 1024, input);
    let mut line: Vec<u8> = Vec::new();
    let mut truncated = false;
    let mut tail_has_content = false;
    loop {
        let buf = match reader.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                log(format_args!("input error, treated as end of input: {e}"));
                break;
            }
        };
        if buf.is_empty() {
            // End of input: a last line without LF still counts.
            if !line.is_empty() || truncated {
                if let Some(msg) = classify(&line, truncated, tail_has_content, shared) {
                    if tx.send(msg).is_err() {
                        return;
                    }
                }
            }
            break;
        }
        let newline = buf.iter().position(|&b| b == b'\n');
        let chunk = &buf[..newline.unwrap_or(buf.len())];
        let room = MAX_LINE_BYTES.saturating_sub(line.len());
        if chunk.len() <= room {
            line.extend_from_slice(chunk);
        } else {
            line.extend_from_slice(&chunk[..room]);
            truncated = true;
            tail_has_content |= chunk[room..].iter().any(|&b| is_content(b));
        }
        let used = chunk.len() + usize::from(newline.is_some());
        reader.consume(used);
        if newline.is_some() {
            if let Some(msg) = classify(&line, truncated, tail_has_content, shared) {
                if tx.send(msg).is_err() {
                    return;
                }
            }
            line.clear();
            if line.capacity() > 64 * 1024 {
                line.shrink_to(4096);
            }
            truncated = false;
            tail_has_content = false;
        }
    }
    shared.closed.store(true, Ordering::Release);
    let _ = tx.send(Input::Eof);
}

/// Frames one response: `=` or `?`, the id, a space, the text, an empty line. Trailing
/// white space and control characters are dropped from every line, and an empty line
/// inside the text becomes a single space, so the only empty line is the final one.
pub fn format_response(id: Option<&str>, result: &Result<Reply, GtpError>) -> String {
    let (mark, text) = match result {
        Ok(reply) => ('=', reply.text.clone()),
        Err(err) => ('?', err.to_string()),
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push(mark);
    if let Some(id) = id {
        out.push_str(id);
    }
    out.push(' ');
    for (i, line) in text.trim_end().split('\n').enumerate() {
        let line: String = line
            .chars()
            .filter(|&c| c == '\t' || !c.is_control())
            .collect();
        let line = line.trim_end();
        if i > 0 {
            out.push('\n');
            if line.is_empty() {
                out.push(' ');
            }
        }
        out.push_str(line);
    }
    out.push_str("\n\n");
    out
}

/// Runs one parsed command: built-ins here, the rest through the executor. Returns the
/// result and whether the session ends.
fn run_command<E: Executor + ?Sized>(
    exec: &mut E,
    command: Command,
    ctx: &Context,
) -> (Result<Reply, GtpError>, bool) {
    match command {
        Command::ProtocolVersion => (Ok(Reply::new(PROTOCOL_VERSION)), false),
        Command::ListCommands => (Ok(Reply::new(list_commands())), false),
        Command::KnownCommand(name) => (Ok(Reply::new(is_known_command(&name).to_string())), false),
        command => {
            let quit = command == Command::Quit;
            let name = command.name();
            match panic::catch_unwind(AssertUnwindSafe(|| exec.execute(command, ctx))) {
                Ok(Ok(reply)) => {
                    let quit = quit || reply.quit;
                    (Ok(reply), quit)
                }
                Ok(Err(err)) => (Err(err), quit),
                Err(_) => {
                    log(format_args!("executor panicked on `{name}`"));
                    (Err(GtpError::Internal), quit)
                }
            }
        }
    }
}

/// Sends one response and flushes. `Ok(false)`: the output has closed (broken pipe).
fn send<W: Write>(output: &mut W, response: &str) -> io::Result<bool> {
    match output
        .write_all(response.as_bytes())
        .and_then(|()| output.flush())
    {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => {
            log(format_args!("output error: {e}"));
            Err(e)
        }
    }
}

/// The main loop: answers every message in order until `quit`, end of input or a closed
/// output.
fn main_loop<E: Executor + ?Sized, W: Write>(
    exec: &mut E,
    rx: &Receiver<Input>,
    shared: &Arc<Shared>,
    output: &mut W,
) -> io::Result<()> {
    while let Ok(msg) = rx.recv() {
        let (response, quit) = match msg {
            Input::Eof => break,
            Input::TooLong { id } => {
                log(format_args!("line over {MAX_LINE_BYTES} bytes"));
                (
                    format_response(id.as_deref(), &Err(GtpError::Syntax)),
                    false,
                )
            }
            Input::Line { seq, text } => {
                let parsed = parse_command(&text);
                let ctx = Context {
                    shared: Arc::clone(shared),
                    seq,
                };
                let (result, quit) = match parsed.command {
                    Ok(command) => run_command(exec, command, &ctx),
                    Err(err) => (Err(err.into()), false),
                };
                (format_response(parsed.id.as_deref(), &result), quit)
            }
        };
        if !send(output, &response)? || quit {
            break;
        }
    }
    Ok(())
}

/// Runs a GTP session: reads commands from `input` (on a reader thread), runs them in
/// order through `exec` and writes the responses to `output`, flushing after each.
///
/// Returns `Ok(())` after `quit`, at the end of input, or when `output` is a broken pipe;
/// an error only for another output failure. Never panics on any input. The reader
/// thread is left behind if it is still blocked on `input` (as after `quit` on stdin).
pub fn serve<E, R, W>(exec: &mut E, input: R, mut output: W) -> io::Result<()>
where
    E: Executor + ?Sized,
    R: Read + Send + 'static,
    W: Write,
{
    let shared = Arc::new(Shared::default());
    let (tx, rx) = mpsc::channel();
    let reader_shared = Arc::clone(&shared);
    thread::Builder::new()
        .name("gtp-reader".to_string())
        .spawn(move || read_lines(input, &tx, &reader_shared))?;
    main_loop(exec, &rx, &shared, &mut output)
}

/// [`serve`] on the process's stdin and stdout.
pub fn serve_stdio<E: Executor + ?Sized>(exec: &mut E) -> io::Result<()> {
    serve(exec, io::stdin(), io::stdout().lock())
}
