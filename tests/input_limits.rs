//! The cases found when the project was tried as a new user would (issue "Reliability"),
//! each answered as docs/gtp.md's "Lenient or strict" table decides.

use std::process::Command;
use std::thread;
use std::time::{Duration, Instant};

use crate::common::gtp;

/// Runs `input` through a fresh engine with `args`: the responses and stderr.
fn session(args: &[&str], input: &str) -> (Vec<String>, String) {
    let (text, stderr) = gtp::run_once(args, input);
    // Trailing spaces dropped: an empty success reads "=".
    let mut responses: Vec<String> = text
        .split("\n\n")
        .map(|r| r.trim_end().to_string())
        .collect();
    responses.pop();
    (responses, stderr)
}

fn answers(input: &str) -> Vec<String> {
    session(&["-v", "0", "--playouts", "50", "--threads", "1"], input).0
}

fn state_line(state: &str, key: &str) -> String {
    state
        .lines()
        .find_map(|l| l.trim_start_matches("= ").strip_prefix(&format!("{key} ")))
        .unwrap_or_else(|| panic!("no {key} in {state}"))
        .to_string()
}

#[test]
fn loadsgf_refuses_devices_folders_and_huge_files_quickly() {
    let big = std::env::temp_dir().join(format!("tengen-big-{}.sgf", std::process::id()));
    // Sparse: 33 MiB long, nothing written.
    std::fs::File::create(&big)
        .unwrap()
        .set_len(33 << 20)
        .unwrap();
    let t0 = Instant::now();
    let r = answers(&format!(
        "play b D4\nloadsgf /dev/zero\nloadsgf /tmp\nloadsgf {}\nlist_stones b\n",
        big.display()
    ));
    std::fs::remove_file(&big).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(10));
    assert_eq!(r[1..4], ["? cannot load file"; 3]);
    assert_eq!(r[4], "= D4", "state unchanged");
}

#[test]
fn loadsgf_refuses_named_pipes_without_blocking() {
    let fifo = std::env::temp_dir().join(format!("tengen-fifo-{}", std::process::id()));
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    let r = answers(&format!("loadsgf {}\nname\n", fifo.display()));
    std::fs::remove_file(&fifo).unwrap();
    assert_eq!(r, ["? cannot load file", "= Tengen"]);
}

#[test]
fn loadsgf_at_a_move_before_a_bad_one_loads_that_position() {
    // B[cg] W[ee] B[rs] (off the 9x9 board) W[cb]
    let file = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/sgf/off_board_move.sgf"
    );
    let r = answers(&format!(
        "loadsgf {file} 2\nlist_stones b\nlist_stones w\nloadsgf {file} 3\nlist_stones w\nloadsgf {file}\nloadsgf {file} 4\nlist_stones w\n"
    ));
    assert_eq!(r[..3], ["=", "= C3", "="]);
    assert_eq!(r[3..5], ["=", "= E5"]);
    // The whole record, or a position after the bad move: refused, state kept.
    assert_eq!(r[5..], ["? cannot load file", "? cannot load file", "= E5"]);
}

#[test]
fn komi_is_bounded() {
    let r = answers(
        "komi 1e308\nkomi nan\nkomi 1000.5\ntengen-state\nkomi -1000\nfinal_score\nprintsgf\n",
    );
    assert_eq!(r[..3], ["? syntax error"; 3]);
    assert_eq!(state_line(&r[3], "komi"), "7.5");
    assert_eq!(r[4], "=");
    assert_eq!(r[5], "= B+1000");
    assert!(r[6].contains("KM[-1000]"), "{}", r[6]);
}

#[test]
fn quit_with_extra_words_exits() {
    let r = answers("quit extra\nname\n");
    assert_eq!(r, ["="]);
}

#[test]
fn argument_free_queries_ignore_extra_words() {
    let r = answers("protocol_version extra\nname x\nversion 2\nlist_commands all\n");
    assert_eq!(r[0], "= 2");
    assert_eq!(r[1], "= Tengen");
    assert!(r[2].starts_with("= 0."), "{}", r[2]);
    assert!(r[3].contains("\nquit"), "{}", r[3]);
}

#[test]
fn boardsize_takes_a_square_written_twice() {
    let r = answers("boardsize 9 9\ntengen-state\nboardsize 9 13\ntengen-state\nboardsize 19 x\n");
    assert_eq!(r[0], "=");
    assert_eq!(state_line(&r[1], "size"), "9");
    assert_eq!(r[2], "? unacceptable size");
    assert_eq!(state_line(&r[3], "size"), "9");
    assert_eq!(r[4], "? syntax error");
}

#[test]
fn time_left_may_be_negative_and_time_settings_may_not() {
    let r = answers(
        "time_settings 300 30 5\ntime_left w -5 0\ntengen-state\ntime_settings 300 30 -5\nkgs-time_settings canadian 60 30 -1\ntime_settings 100000001 0 0\ntengen-state\n",
    );
    assert_eq!(r[..2], ["=", "="]);
    assert_eq!(
        state_line(&r[2], "clock_white"),
        "Some(Clock { seconds: 0.0, stones: 0 })"
    );
    assert_eq!(r[3..6], ["? syntax error"; 3]);
    assert_eq!(
        state_line(&r[6], "time_control"),
        state_line(&r[2], "time_control")
    );
    assert!(state_line(&r[6], "time_control").contains("period_time: 30.0, stones: 5"));
}

#[test]
fn verbosity_levels_add_detail() {
    let input = "boardsize 9\nplay b E5\ngenmove w\n";
    let args = |v: &'static str| ["-v", v, "--playouts", "200", "--threads", "1"];
    let logs: Vec<String> = ["1", "2", "3"]
        .iter()
        .map(|v| session(&args(v), input).1)
        .collect();
    assert!(!logs[0].contains("< play b E5"), "{}", logs[0]);
    assert!(logs[1].contains("tengen: < play b E5"), "{}", logs[1]);
    assert!(logs[1].contains("tengen: > = "), "{}", logs[1]);
    assert!(logs[1].contains("search: 200 playouts"), "{}", logs[1]);
    assert!(!logs[1].contains(" visits  win "), "{}", logs[1]);
    assert!(logs[2].contains(" visits  win "), "{}", logs[2]);
    assert!(logs[2].len() > logs[1].len() && logs[1].len() > logs[0].len());
}

/// A fresh engine with `--max-memory 64` driven one command at a time, so that its peak
/// RSS can be read from /proc before `quit`.
struct Engine {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: std::io::BufReader<std::process::ChildStdout>,
}

impl Engine {
    fn start() -> Engine {
        use std::process::Stdio;
        let mut child = crate::common::tengen()
            .args(["-v", "0", "--max-memory", "64", "--playouts", "50"])
            .args(["--threads", "1"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start tengen");
        let stdin = child.stdin.take().unwrap();
        let stdout = std::io::BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            stdin,
            stdout,
        }
    }

    /// Sends one command and returns its response (trailing blank line dropped).
    fn ask(&mut self, command: &str) -> String {
        use std::io::{BufRead, Write};
        writeln!(self.stdin, "{command}").unwrap();
        self.stdin.flush().unwrap();
        let mut response = String::new();
        loop {
            let mut line = String::new();
            assert!(self.stdout.read_line(&mut line).unwrap() > 0, "engine died");
            if line.trim().is_empty() {
                break;
            }
            response.push_str(&line);
        }
        response.trim_end().to_string()
    }

    /// Peak resident memory so far, in KiB (`VmHWM`), if /proc tells.
    fn peak_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    fn quit(mut self) {
        assert_eq!(self.ask("quit"), "=");
        self.child.wait().unwrap();
    }
}

/// A fresh temporary folder for one test's files.
fn temp_dir(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("tengen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Hostile records: each is answered (refused, or its main line loaded), the engine
/// answers afterwards, and its peak RSS stays far below what the files would cost if
/// parsed whole (4,000,000 nodes cost 1.3 GiB before the limits).
#[test]
fn hostile_sgf_records_are_answered_in_bounded_memory() {
    let dir = temp_dir("hostile");
    let write = |name: &str, text: String| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let nodes = write("nodes.sgf", format!("(;SZ[9]{})", ";".repeat(4_000_000)));
    let max_file = 32 << 20;
    let full = write("full.sgf", format!("(;SZ[9]{})", ";".repeat(max_file - 8)));
    let variations = write(
        "variations.sgf",
        format!("(;SZ[9];B[ee];W[cc]{})", "(;B[aa])".repeat(1_000_000)),
    );
    let props = write("props.sgf", format!("(;SZ[9]{})", "XX[]".repeat(1_000_000)));
    let lists = write(
        "lists.sgf",
        format!("(;SZ[19]{})", "AB[aa:ss]".repeat(100_000)),
    );
    let komi = write("komi.sgf", "(;SZ[9]KM[1e308];B[ee])".to_string());
    let t0 = Instant::now();
    let mut e = Engine::start();
    assert_eq!(e.ask("play b D4"), "=");
    let refused = "? cannot load file";
    for file in [&nodes, &full, &props, &lists, &komi] {
        assert_eq!(e.ask(&format!("loadsgf {file}")), refused, "{file}");
        assert_eq!(e.ask("list_stones b"), "= D4", "state kept after {file}");
    }
    assert_eq!(e.ask(&format!("loadsgf {nodes} 2")), refused);
    assert_eq!(e.ask(&format!("loadsgf {full} 2")), refused);
    // The main line of the variations file: B E5, W C7, then the first variation's A9.
    assert_eq!(e.ask(&format!("loadsgf {variations}")), "=");
    assert_eq!(e.ask("list_stones b"), "= A9 E5");
    assert_eq!(e.ask("name"), "= Tengen");
    let peak = e.peak_kib();
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
    assert!(t0.elapsed() < Duration::from_secs(20), "{:?}", t0.elapsed());
    if let Some(peak) = peak {
        assert!(peak < 256 << 10, "peak RSS {peak} KiB");
    }
}

/// `printsgf FILE` writes only a regular file that is not standard output: a named pipe
/// without a reader is refused at once (it used to block the engine for good), as are a
/// pipe with a reader, a device, a socket and a folder.
#[test]
fn printsgf_writes_only_regular_files() {
    use std::os::unix::fs::OpenOptionsExt;
    let dir = temp_dir("printsgf");
    let fifo = dir.join("fifo");
    let made = Command::new("mkfifo").arg(&fifo).status();
    let mut e = Engine::start();
    let refused = "? cannot write file";
    assert!(made.is_ok_and(|s| s.success()), "mkfifo failed");
    {
        let t0 = Instant::now();
        assert_eq!(e.ask(&format!("printsgf {}", fifo.display())), refused);
        assert!(t0.elapsed() < Duration::from_secs(1), "{:?}", t0.elapsed());
        // With a reader the open succeeds; the file is still refused.
        let reader = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK)
            .open(&fifo)
            .unwrap();
        assert_eq!(e.ask(&format!("printsgf {}", fifo.display())), refused);
        let mut got = Vec::new();
        let _ = std::io::Read::read_to_end(&mut &reader, &mut got);
        assert!(got.is_empty(), "nothing written into the pipe");
    }
    let socket = dir.join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for target in [
        "/dev/null".to_string(),
        dir.display().to_string(),
        socket.display().to_string(),
        dir.join("no/such/dir/x.sgf").display().to_string(),
    ] {
        assert_eq!(e.ask(&format!("printsgf {target}")), refused, "{target}");
    }
    // A regular file, new or existing (replaced), is written.
    let file = dir.join("game.sgf");
    assert_eq!(e.ask("play b E5"), "=");
    for _ in 0..2 {
        assert_eq!(e.ask(&format!("printsgf {}", file.display())), "=");
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(
            text.starts_with("(;FF[4]") && text.ends_with(")\n"),
            "{text}"
        );
        assert_eq!(text.matches("(;").count(), 1, "{text}");
    }
    e.quit();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// With standard output redirected to a regular file, `printsgf` to that same file (by
/// any name) is refused rather than written into the GTP stream.
#[test]
fn printsgf_never_writes_into_the_gtp_stream() {
    let dir = temp_dir("stdout");
    let out = dir.join("gtp.out");
    let other = dir.join("other.sgf");
    let input = format!(
        "printsgf /dev/stdout\nprintsgf /proc/self/fd/1\nprintsgf {}\nprintsgf {}\nquit\n",
        out.display(),
        other.display()
    );
    let status = crate::common::tengen()
        .args(["-v", "0"])
        .stdin(
            std::fs::File::open({
                let input_file = dir.join("in.gtp");
                std::fs::write(&input_file, input).unwrap();
                input_file
            })
            .unwrap(),
        )
        .stdout(std::fs::File::create(&out).unwrap())
        .stderr(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success());
    let text = std::fs::read_to_string(&out).unwrap();
    let responses: Vec<&str> = text.split("\n\n").map(str::trim_end).collect();
    assert_eq!(
        responses[..5],
        [
            "? cannot write file",
            "? cannot write file",
            "? cannot write file",
            "=",
            "="
        ],
        "{text}"
    );
    assert!(!text.contains("(;"), "{text}");
    assert!(std::fs::read_to_string(&other)
        .unwrap()
        .starts_with("(;FF[4]"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `VmHWM` (peak resident memory) of process `pid`, in KiB, from `/proc`.
fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

#[test]
fn flood_during_genmove_is_held_back_by_the_pipe() {
    use std::io::{BufRead, BufReader, Write};
    use std::process::Stdio;
    assert!(peak_rss_kib(std::process::id()).is_some(), "no /proc here");
    // A 4 s search (not a playout count) so that `genmove` ends by itself and every
    // queued line can be checked to be answered.
    let mut child = crate::common::tengen()
        .args([
            "--threads",
            "1",
            "--max-memory",
            "64",
            "--move-time",
            "4",
            "-v",
            "0",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start tengen");
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut answer = || {
        let mut text = String::new();
        loop {
            let mut l = String::new();
            assert!(out.read_line(&mut l).unwrap() > 0, "output ended");
            if l.trim().is_empty() {
                return text;
            }
            text.push_str(l.trim_end());
        }
    };
    stdin.write_all(b"boardsize 19\n").unwrap();
    assert_eq!(answer(), "=");
    stdin.write_all(b"genmove b\n").unwrap();
    // 1 MB lines as fast as the pipe takes them, for 3 s (the search runs meanwhile).
    let flood = thread::spawn(move || {
        let mut line = b"known_command ".to_vec();
        line.resize(999_999, b'x');
        line.push(b'\n');
        let t0 = Instant::now();
        let mut sent = 0;
        while t0.elapsed() < Duration::from_secs(3) {
            stdin.write_all(&line).unwrap();
            sent += 1;
        }
        (stdin, sent)
    });
    let (mut stdin, sent) = flood.join().unwrap();
    let peak_mib = peak_rss_kib(pid).unwrap() / 1024;
    let mv = answer();
    assert!(mv.starts_with("= ") && mv.len() > 2, "{mv}");
    for i in 0..sent {
        assert_eq!(answer(), "= false", "flood line {i} of {sent}");
    }
    let peak_mib = peak_mib.max(peak_rss_kib(pid).unwrap() / 1024);
    stdin.write_all(b"quit\n").unwrap();
    assert_eq!(answer(), "=");
    assert!(child.wait().unwrap().success());
    eprintln!("{sent} lines of 1 MB, peak RSS {peak_mib} MiB");
    assert!(
        peak_mib < 200,
        "peak RSS {peak_mib} MiB with {sent} lines sent"
    );
}
