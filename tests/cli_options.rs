//! No option accepted and ignored (issue 26): every subcommand's `--help` is read, and
//! every option it lists must be in [`HONOURED`], the list of options known to be wired,
//! each with where it takes effect; an option added without a line here fails. A few
//! behavioural checks follow: bench reports what it was given, GTP mode's options before a
//! subcommand are refused, options of the other bench mode are refused, `-v` goes
//! anywhere.

use std::collections::BTreeSet;
use std::process::Output;

/// (subcommand, "" for GTP mode; long option; where it takes effect).
const HONOURED: &[(&str, &str, &str)] = &[
    // GTP mode: cli::EngineArgs -> Settings -> Engine.
    ("", "rules", "the game's rules"),
    ("", "komi", "the game's komi"),
    ("", "status-playouts", "final_score / final_status_list"),
    ("", "playouts", "each genmove's budget"),
    ("", "move-time", "each genmove's budget without a clock"),
    ("", "resign", "genmove's resignation"),
    ("", "lag-margin", "each genmove's budget"),
    ("", "seed", "SearchConfig::seed"),
    ("", "threads", "SearchConfig::threads"),
    ("", "max-memory", "SearchConfig::max_memory"),
    ("", "ponder", "Executor::idle"),
    ("", "lizzie", "the version answer"),
    ("", "live-gfx", "genmove's gogui-gfx lines"),
    ("", "model", "the network of kata-raw-nn"),
    // bench: tools/bench.rs (the search options refused without --search, --seconds with it).
    ("bench", "size", "one line per size"),
    (
        "bench",
        "threads",
        "playout threads, the search's, or --nn's evaluators",
    ),
    (
        "bench",
        "seed",
        "playout RNGs, SearchConfig::seed, or --nn's first symmetry",
    ),
    ("bench", "seconds", "bare playouts' or --nn's duration"),
    ("bench", "search", "the mode"),
    ("bench", "nn", "the mode and its network"),
    (
        "bench",
        "batch",
        "--nn's positions a pass, or the search's nn-batch",
    ),
    ("bench", "in-search", "--nn's mode: a search's network runs"),
    (
        "bench",
        "profile",
        "--nn's second line: a pass's time by kind of layer",
    ),
    ("bench", "precision", "--nn's dense layers in fp32 or bf16"),
    ("bench", "playouts", "Limits::playouts of the search"),
    ("bench", "max-memory", "SearchConfig::max_memory"),
    // regress: tools/regress.rs.
    ("regress", "timeout", "Options::timeout"),
    ("regress", "cwd", "Options::cwd"),
    ("regress", "engine-stderr", "the client's Stderr"),
    ("regress", "strict", "judge's strict rules"),
    // match: tools/matches/.
    ("match", "a", "engine A"),
    ("match", "b", "engine B"),
    ("match", "games", "the games played"),
    ("match", "size", "boardsize"),
    ("match", "komi", "komi and the count"),
    ("match", "rules", "the runner's Game"),
    ("match", "time-per-move", "time_settings and the clock"),
    ("match", "time", "time settings and the clock"),
    ("match", "grace", "the clock's flag"),
    ("match", "openings", "the opening moves"),
    ("match", "referee", "disputed counts"),
    ("match", "max-moves", "the move limit"),
    ("match", "parallel", "the worker threads"),
    ("match", "engine-threads", "the oversubscription warning"),
    ("match", "timeout", "every exchange's deadline"),
    ("match", "a-genmove", "A's move command"),
    ("match", "b-genmove", "B's move command"),
    ("match", "engine-stderr", "the client's Stderr"),
    ("match", "out", "the output folder"),
    ("match", "shard", "the games played"),
    // selfplay: tools/selfplay.rs, cli::PlayArgs -> Engine.
    ("selfplay", "size", "the board"),
    ("selfplay", "max-moves", "the move limit"),
    ("selfplay", "sgf", "where the record goes"),
    ("selfplay", "quiet", "no board diagrams"),
    ("selfplay", "rules", "the game's rules"),
    ("selfplay", "komi", "the game's komi"),
    ("selfplay", "status-playouts", "final_score"),
    ("selfplay", "playouts", "each genmove's budget"),
    ("selfplay", "move-time", "each genmove's budget"),
    ("selfplay", "resign", "genmove's resignation"),
    ("selfplay", "lag-margin", "each genmove's budget"),
    ("selfplay", "seed", "SearchConfig::seed"),
    ("selfplay", "threads", "SearchConfig::threads"),
    ("selfplay", "max-memory", "SearchConfig::max_memory"),
    // review: tools/review.rs, cli::SearchArgs -> Search (the record's KM is kept).
    ("review", "visits", "each position's Limits"),
    ("review", "time-per-move", "each position's Limits"),
    ("review", "out", "the reviewed record"),
    ("review", "plot", "the graph, SVG or PNG (tools/plot.rs)"),
    ("review", "threshold", "which moves are mistakes"),
    ("review", "top", "mistakes listed"),
    ("review", "rules", "the record's game"),
    (
        "review",
        "model",
        "the review's search plays with the network (Search::set_net)",
    ),
    ("review", "seed", "SearchConfig::seed"),
    ("review", "threads", "SearchConfig::threads"),
    ("review", "max-memory", "SearchConfig::max_memory"),
    // train-patterns: tools/train.rs.
    ("train-patterns", "out", "the weights file"),
    ("train-patterns", "hold-out-every", "the held-out games"),
    ("train-patterns", "min-count", "the patterns kept"),
    ("train-patterns", "rounds", "MM rounds"),
    ("train-patterns", "size", "the games read"),
    ("train-patterns", "prior-games", "the MM prior"),
    ("train-patterns", "threads", "worker threads"),
];

/// The research knobs (`--set KEY=VALUE`, cli::TuningArgs -> Settings), taken by GTP mode,
/// selfplay, review and bench (with --search; review and bench refuse `player`).
const TUNING: &[&str] = &["set"];

const SUBCOMMANDS: &[&str] = &[
    "bench",
    "regress",
    "match",
    "match-merge",
    "selfplay",
    "review",
    "train-patterns",
];

/// Options every command has: the log level (global: `tengen::log`), help and version.
const EVERYWHERE: &[&str] = &["verbose", "help", "version"];

fn tengen(args: &[&str]) -> Output {
    crate::common::tengen()
        .args(args)
        .output()
        .expect("run tengen")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The long options a `--help` text lists: clap indents an option by 2 (with a short
/// form) or 6 spaces, a description on its own line by 10.
fn listed_options(help: &str) -> BTreeSet<String> {
    help.lines()
        .filter(|l| l.len() - l.trim_start().len() <= 6)
        .filter_map(|l| {
            let l = l.trim_start();
            let l = match l.strip_prefix('-') {
                Some(rest) if !rest.starts_with('-') => rest.split_once(", ")?.1,
                _ => l,
            };
            let name = l.strip_prefix("--")?;
            let end = name
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
                .unwrap_or(name.len());
            Some(name[..end].to_string())
        })
        .filter(|n| !n.is_empty())
        .collect()
}

#[test]
fn every_option_listed_is_honoured() {
    let top = stdout(&tengen(&["--help"]));
    let commands: BTreeSet<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert_eq!(
        commands,
        SUBCOMMANDS.iter().copied().collect(),
        "a subcommand without a line in this test"
    );
    let tuned = ["", "bench", "selfplay", "review"];
    for sub in std::iter::once("").chain(SUBCOMMANDS.iter().copied()) {
        let help = if sub.is_empty() {
            top.clone()
        } else {
            stdout(&tengen(&[sub, "--help"]))
        };
        let listed = listed_options(&help);
        let mut known: BTreeSet<String> = HONOURED
            .iter()
            .filter(|(s, _, _)| *s == sub)
            .map(|(_, o, _)| o.to_string())
            .collect();
        if tuned.contains(&sub) {
            known.extend(TUNING.iter().map(|o| o.to_string()));
        }
        let listed: BTreeSet<String> = listed
            .into_iter()
            .filter(|o| !EVERYWHERE.contains(&o.as_str()))
            .collect();
        let unknown: Vec<&String> = listed.difference(&known).collect();
        assert!(
            unknown.is_empty(),
            "`tengen {sub} --help` lists {unknown:?}, not known to be honoured: wire it and add it to HONOURED, or do not accept it"
        );
        let stale: Vec<&String> = known.difference(&listed).collect();
        assert!(stale.is_empty(), "`tengen {sub}` no longer takes {stale:?}");
        assert!(help.contains("--verbose"), "{sub}: -v goes anywhere");
    }
}

#[test]
fn bench_reports_what_it_was_given() {
    let out = tengen(&[
        "bench",
        "--search",
        "--playouts",
        "100",
        "--size",
        "9",
        "--threads",
        "1",
    ]);
    assert!(out.status.success());
    let line = stdout(&out);
    assert!(
        line.contains("mode=search size=9 threads=1 playouts=100 "),
        "{line}"
    );
    let nodes = |extra: &[&str]| -> String {
        let mut args = vec!["bench", "--search", "--playouts", "300", "--size", "9"];
        args.extend_from_slice(extra);
        let text = stdout(&tengen(&args));
        let at = text.find("nodes=").expect("nodes=");
        text[at..].split_whitespace().next().unwrap().to_string()
    };
    // The search's constants reach the search: the hand-written priors expand otherwise.
    assert_ne!(nodes(&[]), nodes(&["--set", "prior-learned=0"]));
    let out = tengen(&[
        "bench",
        "--size",
        "9",
        "--seconds",
        "0.05",
        "--threads",
        "2",
    ]);
    assert!(
        stdout(&out).starts_with("size=9 threads=2 "),
        "{}",
        stdout(&out)
    );
}

/// `TENGEN_CPU` caps the kernels `bench --nn` runs, and its line says so: under `avx2` and
/// `scalar` on a CPU with more, the products run on Tengen's own loops for that level
/// (`nn::cpu`); fp32 only (bf16 needs AVX-512).
#[test]
fn tengen_cpu_changes_the_kernels_bench_reports() {
    use tengen::nn::cpu::Features;
    let net = crate::common::tiny_net::TinyNet::write(crate::common::tiny_net::Spec {
        wide: true,
        ..crate::common::tiny_net::Spec::new(82)
    });
    let cpu = Features::detected();
    let line = |cap: &str| {
        let out = crate::common::tengen()
            .env("TENGEN_CPU", cap)
            .args([
                "bench",
                "--nn",
                &net.arg(),
                "--size",
                "9",
                "--seconds",
                "0.1",
            ])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout(&out)
    };
    let field = |line: &str, key: &str| {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(key))
            .unwrap_or_else(|| panic!("{key} in {line}"))
            .to_string()
    };
    let native = line("native");
    assert_eq!(field(&native, "cpu="), cpu.describe(), "{native}");
    for (cap, capped, kernels) in [
        ("avx2", cpu.avx512, "avx2-loops"),
        ("scalar", cpu.avx2, "scalar-loops"),
    ] {
        let l = line(cap);
        assert_eq!(field(&l, "precision="), "fp32", "{l}");
        if capped {
            assert_eq!(field(&l, "kernels="), kernels, "{l}");
            assert_eq!(field(&l, "cpu="), format!("{cap}(TENGEN_CPU={cap})"), "{l}");
            assert_ne!(
                field(&l, "kernels="),
                field(&native, "kernels="),
                "{l}\n{native}"
            );
        }
    }
}

#[test]
fn bench_nn_reports_what_it_was_given() {
    // Any network: a tiny one written for the test.
    let net = crate::common::tiny_net::TinyNet::new(81);
    let model = &net.arg();
    let out = tengen(&[
        "bench",
        "--nn",
        model,
        "--size",
        "9",
        "--size",
        "7",
        "--threads",
        "2",
        "--seconds",
        "0.2",
        "--seed",
        "3",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 2, "{text}");
    // The default, auto, is bf16 where the CPU has AVX512-BF16; the line says which ran.
    let auto = tengen::nn::Plan::resolve(tengen::nn::Precision::Auto).kind;
    for (line, size) in lines.iter().zip([9, 7]) {
        assert!(
            line.starts_with(&format!(
                "mode=nn model={} precision={} kernels={} cpu={} size={size} threads=2 ",
                net.name(),
                auto.name(),
                tengen::nn::kernels(auto, size * size),
                tengen::nn::cpu::features().word()
            )),
            "{line}"
        );
        let evals: usize = line
            .split_whitespace()
            .find_map(|f| f.strip_prefix("evals="))
            .and_then(|v| v.parse().ok())
            .expect("evals=");
        assert!(evals >= 2, "{line}");
    }
    let out = tengen(&["bench", "--nn", "/nonexistent.bin.gz", "--size", "9"]);
    assert!(!out.status.success());
    assert!(out.stdout.is_empty());

    // Batches of 3 positions a pass, and a search gathering 3 leaves a thread.
    let field = |line: &str, name: &str| -> f64 {
        line.split_whitespace()
            .find_map(|f| f.strip_prefix(name))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("{name} in {line}"))
    };
    let bench = |extra: &[&str]| {
        let args = ["bench", "--nn", model, "--size", "9", "--seconds", "0.2"];
        tengen(&[&args[..], extra].concat())
    };
    let line = stdout(&bench(&["--batch", "3"]));
    assert!(line.contains(" batch=3 "), "{line}");
    assert_eq!(field(&line, "evals=") as usize % 3, 0, "{line}");
    let line = stdout(&bench(&["--in-search", "--batch", "3"]));
    assert!(line.starts_with("mode=nn-search "), "{line}");
    assert!(field(&line, "mean_batch=") > 1.5, "{line}");
    assert!(
        field(&line, "visits=") >= field(&line, "evals=") - 1.0,
        "{line}"
    );
    // The profile's line: every kind of layer, shares of the pass that add up to one.
    let text = stdout(&bench(&["--profile"]));
    let profile = text.lines().nth(1).unwrap_or_else(|| panic!("{text}"));
    assert!(
        profile.starts_with(&format!("mode=nn-profile model={} size=9 ", net.name())),
        "{profile}"
    );
    assert!(field(profile, "passes=") >= 1.0, "{profile}");
    let shares: f64 = profile
        .split_whitespace()
        .filter_map(|f| f.split_once("ms/"))
        .map(|(_, share)| share.parse::<f64>().expect("a share"))
        .sum();
    assert!((shares - 1.0).abs() < 0.01, "{profile}");
    assert_eq!(profile.matches("ms/").count(), 7, "{profile}");
    let line = stdout(&bench(&["--precision", "fp32"]));
    assert!(line.contains(" precision=fp32 "), "{line}");
    // bf16 where the CPU has it; refused, saying why, where it does not.
    let out = bench(&["--precision", "bf16"]);
    if tengen::nn::bf16::available() {
        assert!(
            stdout(&out).contains(" precision=bf16 "),
            "{}",
            stdout(&out)
        );
    } else {
        assert!(!out.status.success());
        assert!(String::from_utf8_lossy(&out.stderr).contains("AVX-512"));
    }
}

#[test]
fn options_that_would_be_ignored_are_refused() {
    for args in [
        &["--threads", "2", "bench"][..],
        &[
            "--set",
            "prior-learned=0",
            "bench",
            "--search",
            "--size",
            "9",
        ],
        &["--komi", "6.5", "selfplay"],
        &["--seed", "3", "review", "x.sgf"],
        &[
            "--ponder",
            "match",
            "--a",
            "x",
            "--b",
            "y",
            "--out",
            "/nonexistent",
        ],
        &["bench", "--playouts", "100"],
        &["bench", "--set", "prior-learned=0"],
        &["bench", "--search", "--set", "player=random"],
        &["review", "x.sgf", "--set", "player=random"],
        &["bench", "--search", "--seconds", "1"],
        &["bench", "--nn", "x.bin.gz", "--search"],
        &["bench", "--nn", "x.bin.gz", "--playouts", "100"],
        &["bench", "--nn", "x.bin.gz", "--set", "prior-learned=0"],
        &["review", "x.sgf", "--komi", "6.5"],
        &["review", "x.sgf", "--playouts", "100"],
        &["review", "x.sgf", "--ponder"],
        &["selfplay", "--ponder"],
        &["selfplay", "--lizzie"],
        &["selfplay", "--live-gfx"],
    ] {
        let out = tengen(args);
        assert_eq!(out.status.code(), Some(2), "{args:?} accepted");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn verbose_goes_before_or_after_a_subcommand() {
    for args in [
        &["-v", "0", "bench", "--size", "5", "--seconds", "0.01"][..],
        &["bench", "--size", "5", "--seconds", "0.01", "-v", "0"],
        &["bench", "-v", "2", "--size", "5", "--seconds", "0.01"],
    ] {
        assert!(tengen(args).status.success(), "{args:?}");
    }
}

#[test]
fn selfplay_honours_its_game_options() {
    let out = tengen(&[
        "selfplay",
        "--size",
        "5",
        "--komi",
        "3.5",
        "--rules",
        "tromp-taylor",
        "--playouts",
        "30",
        "--threads",
        "1",
        "--max-moves",
        "2",
        "--quiet",
    ]);
    assert!(out.status.success());
    let log = String::from_utf8_lossy(&out.stderr);
    assert!(log.contains("5x5, komi 3.5, tromp-taylor rules"), "{log}");
    assert!(stdout(&out).contains("KM[3.5]"), "{}", stdout(&out));
}
