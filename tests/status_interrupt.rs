//! `final_score` and `final_status_list` judge dead stones with a search; `# interrupt`
//! must cut that search short and get an answer at once. The engine runs as a process with
//! a budget it could never finish (`--status-playouts 100000000`).

use std::io::{BufRead, BufReader, Write};
use std::process::Stdio;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// Sends `command`, waits `wait`, sends `# interrupt`; the response and the time from the
/// interrupt to the response.
fn interrupted(command: &str, wait: Duration) -> (String, Duration) {
    let mut child = crate::common::tengen()
        .args(["--status-playouts", "100000000", "--threads", "1"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start engine");
    let mut stdin = child.stdin.take().expect("stdin");
    let stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel::<String>();
    let reader = thread::spawn(move || {
        let mut current = String::new();
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if line.is_empty() {
                if tx.send(std::mem::take(&mut current)).is_err() {
                    break;
                }
            } else {
                current.push_str(&line);
                current.push('\n');
            }
        }
    });
    // A 9x9 position with a dead white stone in Black's corner.
    let setup = "boardsize 9\nclear_board\nplay b c3\nplay w d4\nplay b e5\nplay w c7\n\
                 play b g3\nplay w b2\n";
    stdin.write_all(setup.as_bytes()).expect("write");
    for _ in 0..setup.lines().count() {
        let r = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("setup reply");
        assert!(r.starts_with('='), "setup failed: {r}");
    }
    writeln!(stdin, "{command}").expect("write");
    stdin.flush().expect("flush");
    thread::sleep(wait);
    assert!(
        rx.try_recv().is_err(),
        "{command} answered before the interrupt (the budget should be out of reach)"
    );
    let sent = Instant::now();
    stdin.write_all(b"# interrupt\n").expect("write");
    stdin.flush().expect("flush");
    let reply = rx
        .recv_timeout(Duration::from_secs(20))
        .expect("an answer after the interrupt");
    let took = sent.elapsed();
    stdin.write_all(b"quit\n").expect("write");
    let _ = rx.recv_timeout(Duration::from_secs(10));
    drop(stdin);
    let _ = child.wait();
    let _ = reader.join();
    (reply, took)
}

#[test]
fn final_score_stops_on_interrupt() {
    let (reply, took) = interrupted("final_score", Duration::from_millis(300));
    assert!(
        reply.starts_with("= B+") || reply.starts_with("= W+"),
        "reply {reply:?}"
    );
    // 200 ms is the aim (scripts/status_interrupt.py measures it); the bound here leaves
    // room for a loaded test machine.
    assert!(
        took < Duration::from_secs(2),
        "answered {took:?} after the interrupt"
    );
}

#[test]
fn final_status_list_stops_on_interrupt() {
    let (reply, took) = interrupted("final_status_list dead", Duration::from_millis(300));
    assert!(reply.starts_with('='), "reply {reply:?}");
    assert!(
        took < Duration::from_secs(2),
        "answered {took:?} after the interrupt"
    );
}
