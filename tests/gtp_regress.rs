//! Runs every `gtp-tests/*.tst` regression file against the built `tengen` binary with the
//! gogui-regress runner in `tengen::tools::regress`, under `--strict` (the spec's failure texts and
//! the id echo are checked too); any FAILED test (or a dead engine, a bad file) fails.

use std::path::PathBuf;
use std::time::Duration;

use tengen::tools::regress::{run_files, Options};

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

    let engine = match std::env::var("TENGEN_ENGINE") {
        Ok(e) => vec![e],
        Err(_) => crate::common::engine_command(&[]),
    };
    // Paths in the files (loadsgf) are relative to gtp-tests/, where gogui-regress (and by
    // default the runner) starts the engine.
    let opts = Options {
        timeout: Duration::from_secs(60),
        cwd: Some(dir.clone()),
        strict: true,
        ..Options::default()
    };
    let mut out = Vec::new();
    let run = run_files(&files, &engine, &opts, &mut out).expect("runner output");
    let text = String::from_utf8_lossy(&out);
    let problems: Vec<&str> = text
        .lines()
        .filter(|l| l.contains(" FAILED:") || l.contains(" unexpected FAIL:"))
        .collect();
    assert_eq!(
        (run.exit_code(), run.total.unexpected_failures()),
        (0, 0),
        "regression failures ({:?}):\n{}\n\nfull output:\n{text}",
        run.error,
        problems.join("\n")
    );
    println!("{text}");
}

/// The runner's process handling (ids, multi-line replies, timeout, dead engine) against the
/// fake engine built into the binary (`tengen fake-gtp`, src/tools/fakes.rs).
#[test]
fn runner_handles_real_processes() {
    let dir = std::env::temp_dir().join(format!("tengen-regress-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).expect("write tst");
        path
    };
    let good = write(
        "good.tst",
        "# set-up\nname\n1 name\n#? [Fake]\n2 showboard\n#? [.*2 \\. \\. 2.*]\n\
         3 fail illegal move\n#? [illegal move]*\n4 echo x\n#? [y]*\n",
    );
    let bad = write("bad.tst", "1 echo x\n#? [y]\n");
    let hang = write(
        "hang.tst",
        "1 name\n#? [Fake]\n2 hang\n#? []\n3 name\n#? [Fake]\n",
    );
    let die = write("die.tst", "1 die\n#? []\n");
    let engine = vec![crate::common::TENGEN.to_string(), "fake-gtp".to_string()];
    let opts = Options {
        timeout: Duration::from_millis(500),
        ..Options::default()
    };
    let cases = [
        (
            &good,
            0,
            "Summary: 2/4 passes. 0 unexpected passes, 0 unexpected failures",
        ),
        (
            &bad,
            1,
            "Summary: 0/1 passes. 0 unexpected passes, 1 unexpected failures",
        ),
        (&hang, 2, "1 passed"),
        (&die, 2, ""),
    ];
    for (path, code, last) in cases {
        let mut out = Vec::new();
        let run = run_files(std::slice::from_ref(path), &engine, &opts, &mut out).expect("runs");
        let text = String::from_utf8_lossy(&out);
        assert_eq!(run.exit_code(), code, "{}:\n{text}", path.display());
        assert_eq!(text.lines().last().unwrap_or(""), last, "{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
