//! Runs every `gtp-tests/*.tst` regression file against the built `tengen` binary with the
//! gogui-regress runner in `tengen::regress`; any FAILED test (or a dead engine) fails.

use std::path::PathBuf;
use std::time::Duration;

use tengen::regress::{run_files, Options};

#[test]
fn gtp_regression_files_pass() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("gtp-tests");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("gtp-tests folder")
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.extension().is_some_and(|ext| ext == "tst"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .tst files in {}", dir.display());

    let engine = vec![env!("CARGO_BIN_EXE_tengen").to_string()];
    let opts = Options {
        timeout: Duration::from_secs(60),
        ..Options::default()
    };
    let mut out = Vec::new();
    let run = run_files(&files, &engine, &opts, &mut out).expect("runner output");
    let text = String::from_utf8_lossy(&out);
    let problems: Vec<&str> = text
        .lines()
        .filter(|l| {
            l.contains(" FAILED:")
                || l.contains("ABORTED")
                || l.contains("ERROR")
                || l.contains("set-up command failed")
        })
        .collect();
    assert_eq!(
        run.exit_code(),
        0,
        "regression failures:\n{}\n\nfull output:\n{text}",
        problems.join("\n")
    );
    println!("{text}");
}
