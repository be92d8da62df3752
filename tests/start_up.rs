//! Command-line numbers are checked at start-up (issue 25): a value out of range, NaN or
//! an infinity stops the program with a clear message and exit status 2 before any
//! search; a thread the system refuses at search time is not an abort.

use std::io::Write;
use std::process::{Command, Stdio};

fn tengen() -> Command {
    crate::common::tengen()
}

/// Runs `tengen ARGS` with `input` on stdin: exit code, stdout, stderr.
fn run(args: &[&str], input: &str) -> (Option<i32>, String, String) {
    let mut child = tengen()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("tengen starts");
    // The program may exit before reading its input: a broken pipe is expected then.
    let _ = child.stdin.take().unwrap().write_all(input.as_bytes());
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn bad_numbers_stop_the_program_at_start_up_with_status_2() {
    let cases: &[&[&str]] = &[
        &["--threads", "40000"],
        &["--threads", "0"],
        &["--max-memory", "99999999999"],
        &["--max-memory", "0"],
        &["--komi", "1e308"],
        &["--komi", "nan"],
        &["--komi=-inf"],
        &["--lag-margin", "nan"],
        &["--resign", "nan"],
        &["--set", "rave-equiv=nan"],
        &["--set", "prior-power=nan"],
        &["--set", "rave-equiv=inf"],
        &["--move-time", "nan"],
        &["bench", "--seconds", "nan"],
        &["bench", "--threads", "40000"],
        &["match", "--a", "x", "--b", "y", "--time-per-move", "0.5"],
        &["match", "--a", "x", "--b", "y", "--timeout", "nan"],
        &["match", "--a", "x", "--b", "y", "--komi", "inf"],
        &["review", "x.sgf", "--time-per-move", "nan"],
        &["selfplay", "--size", "1000"],
        &["selfplay", "--max-moves", "0"],
    ];
    for args in cases {
        let (code, stdout, stderr) = run(args, "boardsize 9\ngenmove b\nquit\n");
        assert_eq!(code, Some(2), "{args:?}: {stderr}");
        assert!(stdout.is_empty(), "{args:?} answered: {stdout}");
        assert!(
            stderr.contains("invalid value")
                && stderr.contains(args[args.len() - 1].trim_start_matches("--komi=")),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn good_numbers_start() {
    for args in [
        &["--komi", "-7.5", "--threads", "1", "--playouts", "20"][..],
        &["--komi", "0.5", "--max-memory", "64", "--playouts", "20"],
        &["--lag-margin", "0", "--resign", "0", "--playouts", "20"],
    ] {
        let (code, stdout, stderr) = run(args, "boardsize 9\ngenmove b\nquit\n");
        assert_eq!(code, Some(0), "{args:?}: {stderr}");
        assert!(stdout.starts_with("= \n\n= "), "{args:?}: {stdout}");
    }
}

/// Under a shrinking address-space limit (`ulimit -v`), the system refuses some search
/// threads before it refuses anything else: the search then runs on the threads it got,
/// says so on stderr, and answers a move (before, the refused thread aborted the process,
/// exit status 134). Limits so small that memory is refused as well (the allocator's
/// abort, or a signal when the stack may not grow) are skipped; no limit may hang the
/// engine (a thread refused its signal stack once deadlocked Rust's panic report under
/// `RUST_BACKTRACE=1`): each run is killed after 60 s and that fails the test.
#[test]
fn a_refused_search_thread_is_no_abort() {
    let exe = crate::common::TENGEN;
    let mut seen = 0;
    for kib in (12_000..=80_000).rev().step_by(2_000) {
        let script = format!(
            "ulimit -v {kib}; printf 'boardsize 9\\ngenmove b\\nquit\\n' | \\
             timeout -s KILL 60 '{exe}' --threads 8 --max-memory 16 --playouts 300 -v 1"
        );
        let out = Command::new("sh")
            .arg("-c")
            .arg(&script)
            .env("RUST_BACKTRACE", "1")
            .env("TENGEN_MODEL", "none")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let code = out.status.code();
        assert!(
            !matches!(code, Some(124 | 137)),
            "{kib} KiB: the engine hung\n{stdout}\n{stderr}"
        );
        // Near the limit the allocator fails too (Rust aborts on that, whatever the
        // threads, and so does glibc when a started thread cannot allocate its
        // thread-local destructor list), or the calling thread's stack may not grow
        // (SIGSEGV): only runs where nothing but threads was refused count.
        let memory_refused = stderr.contains("memory allocation")
            || stderr.contains("Fatal glibc error")
            || code.is_some_and(|c| c > 128);
        if stderr.contains("could start only") && !memory_refused {
            assert!(
                out.status.success() && stdout.contains("\n= ") && !stdout.contains("= pass"),
                "{kib} KiB: {:?}\n{stdout}\n{stderr}",
                out.status
            );
            seen += 1;
        }
    }
    assert!(seen > 0, "no limit made the system refuse a search thread");
}
