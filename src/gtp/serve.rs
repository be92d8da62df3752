//! The GTP session loop: the only code that reads the command stream and writes
//! responses. A reader thread splits raw input into preprocessed lines; the main loop
//! parses them, runs them strictly in order through an [`Executor`] and frames the
//! responses. Logs go to stderr.
//!
//! The reader hands lines over through a bounded queue: at most [`MAX_QUEUED_BYTES`]
//! of line text and [`MAX_QUEUED_LINES`] lines wait for the main loop (one line is
//! always let in, however long). While a long command runs and the queue is full, the
//! reader stops reading, the pipe fills and the client's writes block, as with an
//! engine that reads its input synchronously; memory stays bounded whatever the client
//! sends. `# interrupt` and the signals a running command polls (input pending, a line
//! arrived, end of input) work as long as the queue has room; an interrupt written
//! behind a full queue is read once the queue drains, as GNU Go would read it.

use std::collections::VecDeque;
use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread;

use super::command::{is_known_command, line_id, list_commands, parse_command, Command};
use super::error::GtpError;
use super::preprocess::preprocess;

/// Longest line, in bytes, that is buffered. A longer line is answered `? syntax error`
/// (unless what follows the limit is only a comment or white space); its tail is read
/// and thrown away, never stored.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Most bytes of preprocessed line text waiting for the main loop; the reader waits
/// while the next line would pass it (a line into an empty queue always goes in).
pub const MAX_QUEUED_BYTES: usize = 4 << 20;

/// Most lines waiting for the main loop, whatever their length.
pub const MAX_QUEUED_LINES: usize = 4096;

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

    /// Runs one command whose response may stream (live analysis): each call of `out`
    /// sends one line at once, the first one after the `=` line, which `serve` writes
    /// before it (`out("")` sends just the `=` line); the returned reply's text then ends the response (`play D4`, say). A
    /// command that calls `out` must return `Ok`; before its first call it may still
    /// fail with an ordinary `?` response. By default, [`Executor::execute`].
    fn execute_streamed(
        &mut self,
        command: Command,
        ctx: &Context,
        out: &mut dyn FnMut(&str),
    ) -> Result<Reply, GtpError> {
        let _ = out;
        self.execute(command, ctx)
    }

    /// Called after a response is sent while no input waits: the time to think on the
    /// opponent's clock (pondering). Must return soon after `ctx.idle_over()` turns
    /// true (another line arrived, `# interrupt`, or the input ended). Does nothing by
    /// default.
    fn idle(&mut self, ctx: &Context) {
        let _ = ctx;
    }
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
    /// Raw lines read so far, empty lines and comments included (any line stops a
    /// streaming analysis, an empty one too).
    raw_lines: AtomicU64,
}

/// What a running command may ask about the input while it runs. Cheap to clone, so a
/// search thread can keep its own copy; `Send + Sync`.
#[derive(Clone, Debug)]
pub struct Context {
    shared: Arc<Shared>,
    /// The position of this command in the input (from 1).
    seq: u64,
    /// Raw lines read when this command's line was (its own included).
    raw_at: u64,
}

impl Context {
    /// A context attached to no input: never interrupted (until [`Context::interrupt`]),
    /// nothing pending. For tests and for running an executor without `serve`.
    pub fn new() -> Context {
        Context {
            shared: Arc::default(),
            seq: 1,
            raw_at: 0,
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

    /// True once any input line has arrived after this command's own, even an empty
    /// line or a comment: what ends `lz-analyze` and `kata-analyze`.
    pub fn line_arrived(&self) -> bool {
        self.shared.raw_lines.load(Ordering::Acquire) > self.raw_at
    }

    /// True when the input has ended: no more commands will come.
    pub fn input_closed(&self) -> bool {
        self.shared.closed.load(Ordering::Acquire)
    }

    /// True when a command that runs while nothing else is asked (pondering, see
    /// [`Executor::idle`]) should stop: a line has arrived, an interrupt, or the end of
    /// input.
    pub fn idle_over(&self) -> bool {
        self.input_pending() || self.interrupted() || self.input_closed()
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
    /// A preprocessed, non-empty line, its position, and the raw lines read with it.
    Line { seq: u64, raw: u64, text: String },
    /// A line over [`MAX_LINE_BYTES`]: answered `? syntax error`, with the id if its
    /// beginning had one.
    TooLong { id: Option<String> },
    /// End of input (or a read error).
    Eof,
}

impl Input {
    /// The bytes of text this message holds, counted against [`MAX_QUEUED_BYTES`].
    fn text_len(&self) -> usize {
        match self {
            Input::Line { text, .. } => text.len(),
            Input::TooLong { id } => id.as_ref().map_or(0, String::len),
            Input::Eof => 0,
        }
    }
}

/// The queue between the reader thread and the main loop, bounded by
/// [`MAX_QUEUED_BYTES`] and [`MAX_QUEUED_LINES`].
#[derive(Default)]
struct Queue {
    state: Mutex<QueueState>,
    /// Signalled when a message is added or the reader has gone.
    filled: Condvar,
    /// Signalled when a message is taken or the main loop has gone.
    drained: Condvar,
}

#[derive(Default)]
struct QueueState {
    items: VecDeque<Input>,
    /// The sum of `text_len` over `items`.
    bytes: usize,
    /// The reader has finished (its [`LineSender`] is dropped).
    reader_gone: bool,
    /// The main loop has finished (its [`LineReceiver`] is dropped).
    loop_gone: bool,
}

impl Queue {
    /// The state; a panic elsewhere while it was held leaves it consistent.
    fn lock(&self) -> MutexGuard<'_, QueueState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// The reader's end of the queue. Dropping it tells the main loop no more will come.
struct LineSender(Arc<Queue>);

/// The main loop's end of the queue. Dropping it releases a reader waiting for room.
struct LineReceiver(Arc<Queue>);

/// A new queue's two ends.
fn line_queue() -> (LineSender, LineReceiver) {
    let queue = Arc::new(Queue::default());
    (LineSender(Arc::clone(&queue)), LineReceiver(queue))
}

impl LineSender {
    /// Adds `msg`, first waiting while the queue is full. `Err` once the main loop has
    /// gone (the message is dropped).
    fn send(&self, msg: Input) -> Result<(), ()> {
        let len = msg.text_len();
        let mut state = self.0.lock();
        while !state.loop_gone
            && !state.items.is_empty()
            && (state.bytes + len > MAX_QUEUED_BYTES || state.items.len() >= MAX_QUEUED_LINES)
        {
            state = self
                .0
                .drained
                .wait(state)
                .unwrap_or_else(|e| e.into_inner());
        }
        if state.loop_gone {
            return Err(());
        }
        state.bytes += len;
        state.items.push_back(msg);
        self.0.filled.notify_one();
        Ok(())
    }
}

impl Drop for LineSender {
    fn drop(&mut self) {
        self.0.lock().reader_gone = true;
        self.0.filled.notify_all();
    }
}

impl LineReceiver {
    /// The next message, waiting for one; `None` once the queue is empty and the reader
    /// has gone.
    fn recv(&self) -> Option<Input> {
        let mut state = self.0.lock();
        loop {
            if let Some(msg) = state.items.pop_front() {
                state.bytes -= msg.text_len();
                self.0.drained.notify_one();
                return Some(msg);
            }
            if state.reader_gone {
                return None;
            }
            state = self.0.filled.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for LineReceiver {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.loop_gone = true;
        // Nobody will take them: free the queued lines now.
        state.items.clear();
        state.bytes = 0;
        drop(state);
        self.0.drained.notify_all();
    }
}

/// Writes one line to stderr, ignoring failure (stderr may be closed too).
/// `text` cut to its first 200 characters, for the traffic log of `-v 2`.
fn shortened(text: &str) -> String {
    const KEEP: usize = 200;
    match text.char_indices().nth(KEEP) {
        Some((i, _)) => format!("{}...", &text[..i]),
        None => text.to_string(),
    }
}

fn log(args: fmt::Arguments<'_>) {
    crate::log::write(1, args);
}

/// A byte that survives preprocessing as something visible (not control, not space).
fn is_content(b: u8) -> bool {
    !(b.is_ascii_control() || b == b' ')
}

/// Turns one raw line (without LF) into the message for the main loop, or `None` when
/// it gets no response. `truncated`: bytes beyond [`MAX_LINE_BYTES`] were dropped;
/// `tail_has_content`: some of them were visible.
fn classify(raw: &[u8], truncated: bool, tail_has_content: bool, shared: &Shared) -> Option<Input> {
    let raw_count = shared.raw_lines.fetch_add(1, Ordering::AcqRel) + 1;
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
        Input::Line {
            seq,
            raw: raw_count,
            text: clean,
        }
    })
}

/// The reader thread: splits `input` into lines, keeping at most [`MAX_LINE_BYTES`] of
/// each, and sends them on until the input ends or the main loop has gone. Waits (and
/// so stops reading) while the queue is full.
fn read_lines<R: Read>(input: R, tx: &LineSender, shared: &Shared) {
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

/// One line of a response with control characters (tabs kept) and trailing white space
/// dropped.
fn clean(line: &str) -> String {
    let line: String = line
        .chars()
        .filter(|&c| c == '\t' || !c.is_control())
        .collect();
    line.trim_end().to_string()
}

/// A line inside a response: [`clean`], and never empty (an empty line would end the
/// response), so an empty one becomes a single space.
fn clean_line(line: &str) -> String {
    let line = clean(line);
    if line.is_empty() {
        " ".into()
    } else {
        line
    }
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
        // The first line follows `= `: it may stay empty.
        if i == 0 {
            out.push_str(&clean(line));
        } else {
            out.push('\n');
            out.push_str(&clean_line(line));
        }
    }
    out.push_str("\n\n");
    out
}

/// The answer to a command that the protocol and the command table alone decide
/// (`protocol_version`, `list_commands`, `known_command`); `None` for the others.
pub fn builtin_reply(command: &Command) -> Option<Reply> {
    match command {
        Command::ProtocolVersion => Some(Reply::new(PROTOCOL_VERSION)),
        Command::ListCommands => Some(Reply::new(list_commands())),
        Command::KnownCommand(name) => Some(Reply::new(is_known_command(name).to_string())),
        _ => None,
    }
}

/// Runs one parsed command: built-ins here, the rest through the executor. Returns the
/// result and whether the session ends.
fn run_command<E: Executor + ?Sized>(
    exec: &mut E,
    command: Command,
    ctx: &Context,
    out: &mut dyn FnMut(&str),
) -> (Result<Reply, GtpError>, bool) {
    if let Some(reply) = builtin_reply(&command) {
        return (Ok(reply), false);
    }
    let quit = command == Command::Quit;
    let name = command.name();
    match panic::catch_unwind(AssertUnwindSafe(|| {
        exec.execute_streamed(command, ctx, out)
    })) {
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
    rx: &LineReceiver,
    shared: &Arc<Shared>,
    output: &mut W,
) -> io::Result<()> {
    while let Some(msg) = rx.recv() {
        let (response, quit) = match msg {
            Input::Eof => break,
            Input::TooLong { id } => {
                log(format_args!("line over {MAX_LINE_BYTES} bytes"));
                (
                    format_response(id.as_deref(), &Err(GtpError::Syntax)),
                    false,
                )
            }
            Input::Line { seq, raw, text } => {
                crate::log!(2, "< {}", shortened(&text));
                let started_at = std::time::Instant::now();
                let parsed = parse_command(&text);
                let ctx = Context {
                    shared: Arc::clone(shared),
                    seq,
                    raw_at: raw,
                };
                // A streamed response: the `=` line first, then each line as it comes.
                let mut started = false;
                let mut open = true;
                let mut write_error = None;
                let (result, quit) = {
                    let id = parsed.id.as_deref();
                    let mut out = |line: &str| {
                        if !open {
                            return;
                        }
                        let mut text = String::new();
                        if !started {
                            text.push('=');
                            text.push_str(id.unwrap_or(""));
                            text.push('\n');
                            started = true;
                        }
                        if !line.is_empty() {
                            text.push_str(&clean_line(line));
                            text.push('\n');
                        }
                        match send(output, &text) {
                            Ok(true) => {}
                            Ok(false) => open = false,
                            Err(e) => {
                                open = false;
                                write_error = Some(e);
                            }
                        }
                    };
                    match parsed.command {
                        Ok(command) => run_command(exec, command, &ctx, &mut out),
                        Err(err) => (Err(err.into()), false),
                    }
                };
                if let Some(e) = write_error {
                    return Err(e);
                }
                if !open {
                    break;
                }
                let response = if started {
                    // The rest of the reply, then the closing empty line.
                    let mut tail = String::new();
                    if let Ok(reply) = &result {
                        for line in reply.text.split('\n') {
                            if !line.trim().is_empty() {
                                tail.push_str(&clean_line(line));
                                tail.push('\n');
                            }
                        }
                    }
                    tail.push('\n');
                    tail
                } else {
                    format_response(parsed.id.as_deref(), &result)
                };
                if crate::log::level() >= 2 {
                    let first = if started {
                        "= (streamed)"
                    } else {
                        response.lines().next().unwrap_or("")
                    };
                    crate::log!(
                        2,
                        "> {} ({} ms)",
                        shortened(first),
                        started_at.elapsed().as_millis()
                    );
                }
                if !send(output, &response)? || quit {
                    break;
                }
                if !ctx.idle_over() {
                    let _ = panic::catch_unwind(AssertUnwindSafe(|| exec.idle(&ctx)));
                }
                continue;
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
/// thread is left behind if it is still blocked on `input` (as after `quit` on stdin);
/// one waiting for room in the full queue is released when `serve` returns.
pub fn serve<E, R, W>(exec: &mut E, input: R, mut output: W) -> io::Result<()>
where
    E: Executor + ?Sized,
    R: Read + Send + 'static,
    W: Write,
{
    let shared = Arc::new(Shared::default());
    let (tx, rx) = line_queue();
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Color;
    use crate::gtp::parse::{GtpMove, Vertex};
    use std::io::Cursor;
    use std::time::{Duration, Instant};

    /// How long a test command waits for a condition before giving up.
    const PATIENCE: Duration = Duration::from_secs(10);

    /// A stand-in executor: fixed answers, plus commands that wait on the context.
    #[derive(Default)]
    struct Dummy {
        seen: Vec<Command>,
    }

    fn wait_for(cond: impl Fn() -> bool) -> bool {
        let start = Instant::now();
        while start.elapsed() < PATIENCE {
            if cond() {
                return true;
            }
            thread::sleep(Duration::from_millis(1));
        }
        false
    }

    impl Executor for Dummy {
        fn execute(&mut self, command: Command, ctx: &Context) -> Result<Reply, GtpError> {
            self.seen.push(command.clone());
            match command {
                Command::Name => Ok("Dummy".into()),
                Command::Version => Ok(Reply::new(ctx.interrupted().to_string())),
                Command::Quit | Command::ClearBoard => Ok(Reply::empty()),
                Command::Play(_, GtpMove::Vertex(Vertex { col, .. })) if col > 18 => {
                    Err(GtpError::IllegalMove)
                }
                Command::Play(..) => Ok(Reply::empty()),
                // Thinks until interrupted.
                Command::Genmove(Color::Black) => Ok(if wait_for(|| ctx.interrupted()) {
                    "pass".into()
                } else {
                    "timeout".into()
                }),
                // Thinks until another command is queued.
                Command::Genmove(Color::White) => Ok(if wait_for(|| ctx.input_pending()) {
                    "D4".into()
                } else {
                    "timeout".into()
                }),
                Command::Showboard => Ok("\n A B\n\n2 . .\r\n1 . .  \n\n\n".into()),
                Command::FinalScore => Ok(Reply::new("B+0.5").and_quit()),
                Command::Cputime => panic!("dummy executor blows up"),
                _ => Err(GtpError::Other("not implemented".into())),
            }
        }
    }

    fn session(input: impl Into<Vec<u8>>) -> (String, Vec<Command>) {
        let mut exec = Dummy::default();
        let mut out = Vec::new();
        let result = serve(&mut exec, Cursor::new(input.into()), &mut out);
        assert!(result.is_ok(), "serve failed: {result:?}");
        (
            String::from_utf8(out).expect("responses are UTF-8"),
            exec.seen,
        )
    }

    fn run(input: impl Into<Vec<u8>>) -> String {
        session(input).0
    }

    #[test]
    fn ids_are_echoed_on_success_and_failure() {
        assert_eq!(
            run("12 name\n13 play b Z1\n14 play b d4\nname\n"),
            "=12 Dummy\n\n?13 illegal move\n\n=14 \n\n= Dummy\n\n"
        );
    }

    #[test]
    fn unknown_command_and_syntax_error() {
        assert_eq!(
            run("7 foo\nbar 1 2\n8 play b\nboardsize x\n9\n"),
            "?7 unknown command\n\n? unknown command\n\n?8 syntax error\n\n\
             ? syntax error\n\n?9 syntax error\n\n"
        );
    }

    #[test]
    fn builtins_come_from_the_table() {
        let out = run(
            "1 protocol_version\n2 known_command play\n3 known_command foo\n\
                       4 known_command Play\n5 list_commands\n",
        );
        let expected = format!(
            "=1 2\n\n=2 true\n\n=3 false\n\n=4 false\n\n=5 {}\n\n",
            list_commands()
        );
        assert_eq!(out, expected);
        assert!(out.contains("\nquit\n"));
    }

    #[test]
    fn builtins_do_not_reach_the_executor() {
        let (_, seen) = session("protocol_version\nlist_commands\nknown_command x\nname\n");
        assert_eq!(seen, vec![Command::Name]);
    }

    #[test]
    fn comments_cr_and_tabs_are_handled() {
        assert_eq!(
            run("name # who are you\r\n\t3\tplay\tb\td4\t\r\n# only a comment\n"),
            "= Dummy\n\n=3 \n\n"
        );
    }

    #[test]
    fn empty_and_blank_lines_are_ignored() {
        assert_eq!(run("\n\n   \n\t\r\n\x01\nname\n\n"), "= Dummy\n\n");
        assert_eq!(run(""), "");
    }

    #[test]
    fn interrupt_line_gets_no_response_and_stops_a_running_command() {
        assert_eq!(
            run("1 genmove b\n  # interrupt \r\n2 name\n"),
            "=1 pass\n\n=2 Dummy\n\n"
        );
    }

    #[test]
    fn interrupt_does_not_carry_over_to_later_commands() {
        // An interrupt before any command touches nothing.
        assert_eq!(run("# interrupt\nversion\n"), "= false\n\n");
        // An interrupt applies to the commands read before it (the first `version` sees
        // it or not, depending on whether it already ran), never to those after it.
        let out = run("version\nname\n# interrupt\nversion\n");
        assert!(
            out == "= false\n\n= Dummy\n\n= false\n\n" || out == "= true\n\n= Dummy\n\n= false\n\n",
            "{out:?}"
        );
    }

    #[test]
    fn running_command_sees_pending_input() {
        assert_eq!(run("genmove w\nname\n"), "= D4\n\n= Dummy\n\n");
    }

    #[test]
    fn context_without_input() {
        let ctx = Context::new();
        assert!(!ctx.interrupted());
        assert!(!ctx.input_pending());
        assert!(!ctx.input_closed());
        let copy = ctx.clone();
        ctx.interrupt();
        assert!(copy.interrupted());
    }

    #[test]
    fn huge_line_is_a_syntax_error_and_the_next_command_works() {
        let mut input = b"5 play b ".to_vec();
        input.extend(std::iter::repeat_n(b'x', 2 << 20));
        input.extend_from_slice(b"\n6 name\n");
        assert_eq!(run(input), "?5 syntax error\n\n=6 Dummy\n\n");
    }

    #[test]
    fn huge_line_without_newline_at_end_of_input() {
        let input = vec![b'y'; MAX_LINE_BYTES + 10];
        assert_eq!(run(input), "? syntax error\n\n");
    }

    #[test]
    fn line_just_under_the_limit_is_parsed() {
        let mut input = b"name".to_vec();
        input.extend(std::iter::repeat_n(b' ', MAX_LINE_BYTES - 4));
        input.push(b'\n');
        assert_eq!(run(input), "= Dummy\n\n");
    }

    #[test]
    fn huge_comment_or_white_space_tail_is_not_an_error() {
        let mut input = b"1 name # ".to_vec();
        input.extend(std::iter::repeat_n(b'z', 2 << 20));
        input.extend_from_slice(b"\n2 name");
        input.extend(std::iter::repeat_n(b' ', 2 << 20));
        input.extend_from_slice(b"\r\n");
        input.extend(std::iter::repeat_n(b'\t', 2 << 20));
        input.extend_from_slice(b"\n3 name\n");
        assert_eq!(run(input), "=1 Dummy\n\n=2 Dummy\n\n=3 Dummy\n\n");
    }

    #[test]
    fn invalid_utf8_does_not_panic() {
        assert_eq!(
            run(b"name\xff\n4 play b d4\xc3\n\xfe\xff\n5 name\n".to_vec()),
            "? unknown command\n\n?4 syntax error\n\n? unknown command\n\n=5 Dummy\n\n"
        );
    }

    #[test]
    fn quit_stops_reading() {
        let (out, seen) = session("3 quit\nname\nclear_board\n");
        assert_eq!(out, "=3 \n\n");
        assert_eq!(seen, vec![Command::Quit]);
    }

    #[test]
    fn reply_can_end_the_session() {
        assert_eq!(run("final_score\nname\n"), "= B+0.5\n\n");
    }

    #[test]
    fn eof_finishes_the_last_command_cleanly() {
        assert_eq!(run("name\nplay w pass"), "= Dummy\n\n= \n\n");
    }

    #[test]
    fn executor_panic_is_an_internal_error() {
        assert_eq!(
            run("1 cputime\n2 name\n"),
            "?1 internal error\n\n=2 Dummy\n\n"
        );
    }

    #[test]
    fn multi_line_responses_have_no_inner_empty_line() {
        let out = run("showboard\nname\n");
        assert_eq!(out, "= \n A B\n \n2 . .\n1 . .\n\n= Dummy\n\n");
    }

    #[test]
    fn format_response_framing() {
        assert_eq!(format_response(None, &Ok(Reply::empty())), "= \n\n");
        assert_eq!(format_response(Some("0"), &Ok("D4".into())), "=0 D4\n\n");
        assert_eq!(
            format_response(Some("9"), &Err(GtpError::CannotUndo)),
            "?9 cannot undo\n\n"
        );
        assert_eq!(
            format_response(None, &Err(GtpError::Other("a\n\nb\n".into()))),
            "? a\n \nb\n\n"
        );
        assert_eq!(format_response(None, &Ok("x\n\n\n".into())), "= x\n\n");
    }

    /// An output that always fails with the given error kind.
    struct FailingOutput(io::ErrorKind);

    impl Write for FailingOutput {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(self.0))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(self.0))
        }
    }

    #[test]
    fn broken_pipe_ends_quietly() {
        let mut exec = Dummy::default();
        let output = FailingOutput(io::ErrorKind::BrokenPipe);
        let result = serve(
            &mut exec,
            Cursor::new(b"name\nclear_board\n".to_vec()),
            output,
        );
        assert!(result.is_ok());
        assert_eq!(exec.seen, vec![Command::Name]);
    }

    #[test]
    fn other_output_errors_are_returned() {
        let mut exec = Dummy::default();
        let output = FailingOutput(io::ErrorKind::Other);
        let result = serve(&mut exec, Cursor::new(b"name\n".to_vec()), output);
        assert!(result.is_err());
    }

    /// An input that yields some bytes, then fails.
    struct FailingInput(Option<Vec<u8>>);

    impl Read for FailingInput {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            match self.0.take() {
                Some(data) => {
                    let n = data.len().min(buf.len());
                    buf[..n].copy_from_slice(&data[..n]);
                    Ok(n)
                }
                None => Err(io::Error::other("disk on fire")),
            }
        }
    }

    /// An input of `lines` lines of `name x...` (extra words, ignored) of 1 MB, counting
    /// the bytes read and telling when it is dropped (when the reader thread ends).
    struct Flood {
        lines: usize,
        pos: usize,
        read: Arc<AtomicU64>,
        dropped: Arc<AtomicBool>,
    }

    const FLOOD_LINE: usize = 1_000_000;

    impl Flood {
        fn new(lines: usize) -> (Flood, Arc<AtomicU64>, Arc<AtomicBool>) {
            let read = Arc::new(AtomicU64::new(0));
            let dropped = Arc::new(AtomicBool::new(false));
            let flood = Flood {
                lines,
                pos: 0,
                read: Arc::clone(&read),
                dropped: Arc::clone(&dropped),
            };
            (flood, read, dropped)
        }
    }

    impl Read for Flood {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            let mut n = 0;
            while n < buf.len() && self.pos < self.lines * FLOOD_LINE {
                let at = self.pos % FLOOD_LINE;
                buf[n] = match at {
                    0..5 => b"name "[at],
                    _ if at == FLOOD_LINE - 1 => b'\n',
                    _ => b'x',
                };
                n += 1;
                self.pos += 1;
            }
            self.read.fetch_add(n as u64, Ordering::AcqRel);
            Ok(n)
        }
    }

    impl Drop for Flood {
        fn drop(&mut self) {
            self.dropped.store(true, Ordering::Release);
        }
    }

    /// Answers `name` once `go` is set (a long command), then at once.
    struct Busy {
        go: Arc<AtomicBool>,
        answered: usize,
    }

    impl Executor for Busy {
        fn execute(&mut self, command: Command, _: &Context) -> Result<Reply, GtpError> {
            assert!(wait_for(|| self.go.load(Ordering::Acquire)));
            self.answered += 1;
            match command {
                Command::Quit => Ok(Reply::empty()),
                _ => Ok("Busy".into()),
            }
        }
    }

    #[test]
    fn reader_stops_reading_while_the_main_loop_is_busy() {
        let (flood, read, dropped) = Flood::new(100);
        let go = Arc::new(AtomicBool::new(false));
        let mut exec = Busy {
            go: Arc::clone(&go),
            answered: 0,
        };
        let release = {
            let (go, read) = (Arc::clone(&go), Arc::clone(&read));
            thread::spawn(move || {
                // Until the reader has stopped for a while: it waits for room.
                let mut last = u64::MAX;
                while read.load(Ordering::Acquire) != last {
                    last = read.load(Ordering::Acquire);
                    thread::sleep(Duration::from_millis(200));
                }
                go.store(true, Ordering::Release);
                last
            })
        };
        let mut out = Vec::new();
        serve(&mut exec, flood, &mut out).unwrap();
        let read_while_busy = release.join().unwrap();
        // The queue's text, a line held by the reader, the one running, the buffer.
        let bound = (MAX_QUEUED_BYTES + 2 * MAX_LINE_BYTES + (64 << 10)) as u64;
        assert!(read_while_busy <= bound, "{read_while_busy} bytes read");
        // Far short of the whole input (100 lines), whatever the constants say.
        assert!(
            read_while_busy < 20 * FLOOD_LINE as u64,
            "{read_while_busy}"
        );
        assert!(read_while_busy >= FLOOD_LINE as u64, "{read_while_busy}");
        // Nothing lost: every line answered once the loop drains.
        assert_eq!(exec.answered, 100);
        assert_eq!(out, "= Busy\n\n".repeat(100).into_bytes());
        assert!(wait_for(|| dropped.load(Ordering::Acquire)));
    }

    #[test]
    fn quit_releases_a_reader_waiting_on_a_full_queue() {
        let (flood, read, dropped) = Flood::new(1_000_000);
        let go = Arc::new(AtomicBool::new(true));
        let mut exec = Busy {
            go: Arc::clone(&go),
            answered: 0,
        };
        // `quit` first, then an endless flood of 1 MB lines: the loop ends after the
        // first answer while the reader may be waiting for room; it must end too.
        let input = Cursor::new(b"quit\n".to_vec()).chain(flood);
        let mut out = Vec::new();
        serve(&mut exec, input, &mut out).unwrap();
        assert_eq!(out, b"= \n\n");
        assert!(wait_for(|| dropped.load(Ordering::Acquire)));
        assert!(read.load(Ordering::Acquire) < 1 << 30);
    }

    #[test]
    fn input_error_is_end_of_input() {
        let mut exec = Dummy::default();
        let mut out = Vec::new();
        let input = FailingInput(Some(b"name\n".to_vec()));
        assert!(serve(&mut exec, input, &mut out).is_ok());
        assert_eq!(out, b"= Dummy\n\n");
    }
}
