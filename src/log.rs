//! Logging to stderr with a global verbosity: 0 quiet; 1 refusals and problems; 2 also
//! the GTP traffic (each command and the first line of its response, with the time
//! taken) and a line per search; 3 also the time budget and the top candidates of each
//! search with their visits, win rates, priors and variations.
//! Write errors are ignored: a closed stderr must never stop the engine.

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
