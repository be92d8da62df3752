//! Logging to stderr with a global verbosity: 0 quiet; 1 refusals and problems; 2 also
//! the GTP traffic (each command and the first line of its response, with the time
//! taken) and a line per search; 3 also the time budget and the top candidates of each
//! search with their visits, win rates, priors and variations.
//! Write errors are ignored: a closed stderr must never stop the engine. Also the panic
//! report, which must not hang when memory is short.

use std::io::Write;
use std::sync::atomic::{AtomicU8, Ordering};

static LEVEL: AtomicU8 = AtomicU8::new(1);

/// Sets the verbosity.
pub fn set_level(level: u8) {
    LEVEL.store(level, Ordering::Relaxed);
}

/// The verbosity.
pub fn level() -> u8 {
    LEVEL.load(Ordering::Relaxed)
}

/// Writes one line `tengen: ...` to stderr if `level` is within the verbosity.
pub fn write(level: u8, args: std::fmt::Arguments<'_>) {
    if level <= self::level() {
        let _ = writeln!(std::io::stderr().lock(), "tengen: {args}");
    }
}

/// `log!(level, "format", args...)`: a line on stderr at that verbosity.
#[macro_export]
macro_rules! log {
    ($level:expr, $($arg:tt)*) => {
        $crate::log::write($level, format_args!($($arg)*))
    };
}

/// Writes `text` to stderr as it is, whatever the verbosity (GoGui's `gogui-gfx:` live
/// graphics, which the user asked for with `--live-gfx`).
pub fn raw(text: &str) {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes());
    let _ = err.flush();
}

/// Address space a backtrace may need (symbols are read from the executable's debug
/// information): below this, a panic is reported without one.
const BACKTRACE_ROOM: usize = 64 << 20;

/// Installs a panic report that cannot hang the process: Rust's own, backtrace and all,
/// when memory allows; otherwise the thread, place and message alone. (The standard
/// library's report holds a lock while it reads symbols for the backtrace; an allocation
/// refused there reports itself under the same lock and waits for ever, which a search
/// thread refused its signal stack under `ulimit -v` met.)
pub fn install_panic_report() {
    let full = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let wants_backtrace = std::env::var_os("RUST_BACKTRACE").is_some_and(|v| v != "0");
        let mut room: Vec<u8> = Vec::new();
        if !wants_backtrace || room.try_reserve_exact(BACKTRACE_ROOM).is_ok() {
            drop(room);
            return full(info);
        }
        let thread = std::thread::current();
        let name = thread.name().unwrap_or("<unnamed>");
        let message = info.payload_as_str().unwrap_or("Box<dyn Any>");
        let place = info.location();
        let _ = match place {
            Some(p) => writeln!(
                std::io::stderr().lock(),
                "thread '{name}' panicked at {p}:\n{message}\n(no backtrace: too little memory left)"
            ),
            None => writeln!(
                std::io::stderr().lock(),
                "thread '{name}' panicked:\n{message}\n(no backtrace: too little memory left)"
            ),
        };
    }));
}
