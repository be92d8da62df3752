//! Replays the fuzzer's corpus (`fuzz/corpus/<target>/`: the inputs AFL++ kept for the
//! coverage they reach, and the ones that once broke an invariant) through the same
//! targets the fuzzer runs, so every input it found stays checked by `cargo test`.

use std::path::Path;
use std::time::Instant;

fn replay(target: &str, run: fn(&[u8])) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fuzz/corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{} is empty", dir.display());
    let start = Instant::now();
    for f in &files {
        let data = std::fs::read(f).unwrap();
        let result = std::panic::catch_unwind(|| run(&data));
        assert!(result.is_ok(), "{} fails", f.display());
    }
    eprintln!("{target}: {} inputs in {:?}", files.len(), start.elapsed());
}

#[test]
fn gtp_line_corpus() {
    replay("gtp_line", tengen::tools::fuzz::gtp_line);
}

#[test]
fn sgf_file_corpus() {
    replay("sgf_file", tengen::tools::fuzz::sgf_file);
}

/// Set in the process [`session_corpus`] starts to replay the corpus itself.
const SESSION_CHILD: &str = "TENGEN_SESSION_CORPUS_CHILD";

/// `session` checks the peak memory of the whole process, and this test binary runs every
/// integration test on threads of one process: the replay runs in a process of its own (this
/// test binary again, running only this test), so that no other test's memory counts.
#[test]
fn session_corpus() {
    if std::env::var_os(SESSION_CHILD).is_some() {
        replay("session", tengen::tools::fuzz::session);
        return;
    }
    // The test's name without the crate's: `fuzz_corpus::session_corpus`.
    let name = match module_path!().split_once("::") {
        Some((_, module)) => format!("{module}::session_corpus"),
        None => "session_corpus".to_string(),
    };
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            name.as_str(),
            "--exact",
            "--test-threads",
            "1",
            "--nocapture",
        ])
        .env(SESSION_CHILD, "1")
        .output()
        .expect("run the test binary again");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprint!("{stderr}");
    assert!(out.status.success(), "{stdout}\n{stderr}");
    // The filter matched this one test (a renamed module would match none).
    assert!(stdout.contains("1 passed"), "{stdout}");
}
