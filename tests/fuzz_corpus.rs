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
    replay("gtp_line", tengen::fuzzing::gtp_line);
}

#[test]
fn sgf_file_corpus() {
    replay("sgf_file", tengen::fuzzing::sgf_file);
}

#[test]
fn session_corpus() {
    replay("session", tengen::fuzzing::session);
}
