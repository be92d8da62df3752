//! The layering ARCHITECTURE.md promises, read from the source: no cycle between the
//! crate's top-level modules or between the sibling modules of one folder (its `.rs`
//! files beside `mod.rs` and its subfolders, each subfolder one module however many files
//! it holds), no library module that uses a tool, and nothing below the GTP front end that
//! knows GTP, the command line or their parsers. Reads `src/` as text, comments and
//! literals blanked: every path from `crate::`, `super::` or `self::`, in a `use` or in
//! code, counts as a use of the module it resolves to (`super::` inside an inline `mod`
//! block, as `mod tests`, means that block's parent); a folder's `mod.rs` naming its own
//! children, and any module naming its parent's items, do not (not even an item the
//! parent re-exports from a sibling: `pub use` is not followed).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The top-level modules that are tools: they may use the library, the library never
/// uses them.
const TOOLS: &[&str] = &["tools", "cli"];

/// Modules below the GTP front end: none of them may name `gtp`, `cli`, `clap` or `nom`.
const BELOW_GTP: &[&str] = &[
    "board", "rules", "game", "score", "dead", "life", "sgf", "record", "notation", "limits",
    "log", "handicap", "time", "status", "playout", "policy", "nn", "search",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source with comments (line, doc and `/* */` ones), string and char literals
/// blanked to spaces, lines and columns kept: a path in a doc line or a message is no
/// use, and a `'{'` opens no block.
fn code_of(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let blank = |c: char| if c == '\n' { '\n' } else { ' ' };
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let at = |k: usize| chars.get(i + k).copied();
        // The literal or comment starting here ends before `end`.
        let end = if c == '/' && at(1) == Some('/') {
            (i..chars.len())
                .find(|&k| chars[k] == '\n')
                .unwrap_or(chars.len())
        } else if c == '/' && at(1) == Some('*') {
            let (mut k, mut depth) = (i + 2, 1);
            while k < chars.len() && depth > 0 {
                if chars[k] == '/' && chars.get(k + 1) == Some(&'*') {
                    depth += 1;
                    k += 1;
                } else if chars[k] == '*' && chars.get(k + 1) == Some(&'/') {
                    depth -= 1;
                    k += 1;
                }
                k += 1;
            }
            k
        } else if c == 'r'
            && (i == 0
                || !word(chars[i - 1])
                || (chars[i - 1] == 'b' && (i < 2 || !word(chars[i - 2]))))
            && chars[i + 1..].iter().find(|&&h| h != '#') == Some(&'"')
        {
            // A raw string: `r"…"`, `r#"…"#`.
            let hashes = chars[i + 1..].iter().take_while(|&&h| h == '#').count();
            let mut k = i + hashes + 2;
            while k < chars.len()
                && !(chars[k] == '"' && chars[k + 1..].iter().take(hashes).all(|&h| h == '#'))
            {
                k += 1;
            }
            (k + 1 + hashes).min(chars.len())
        } else if c == '"' {
            let mut k = i + 1;
            while k < chars.len() && chars[k] != '"' {
                k += if chars[k] == '\\' { 2 } else { 1 };
            }
            (k + 1).min(chars.len())
        } else if c == '\'' && at(1) == Some('\\') {
            (i + 3..chars.len())
                .find(|&k| chars[k] == '\'')
                .map_or(chars.len(), |k| k + 1)
        } else if c == '\'' && at(2) == Some('\'') {
            i + 3
        } else {
            out.push(c);
            i += 1;
            continue;
        };
        out.extend(chars[i..end].iter().map(|&c| blank(c)));
        i = end;
    }
    out
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    /// `::`
    Sep,
    Open,
    Close,
    Other(char),
}

/// The code's tokens, each with its line (from 1).
fn tokens(code: &str) -> Vec<(Tok, usize)> {
    let chars: Vec<char> = code.chars().collect();
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' {
            line += 1;
        }
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        if word(c) || (c == '$' && chars.get(i + 1).is_some_and(|&n| word(n))) {
            let start = i;
            i += 1;
            while i < chars.len() && word(chars[i]) {
                i += 1;
            }
            out.push((Tok::Word(chars[start..i].iter().collect()), line));
            continue;
        }
        let tok = match c {
            ':' if chars.get(i + 1) == Some(&':') => {
                i += 1;
                Tok::Sep
            }
            '{' => Tok::Open,
            '}' => Tok::Close,
            _ => Tok::Other(c),
        };
        out.push((tok, line));
        i += 1;
    }
    out
}

fn is_word(tok: Option<&(Tok, usize)>, w: &str) -> bool {
    matches!(tok, Some((Tok::Word(x), _)) if x == w)
}

/// Reads the path at `toks[i]` (words joined by `::`, maybe ending in a `{…}` group),
/// adding each whole path it names, after `prefix`, to `leaves` with the line of its last
/// word; returns the index after it.
fn read_path(
    toks: &[(Tok, usize)],
    mut i: usize,
    prefix: &[String],
    leaves: &mut Vec<(Vec<String>, usize)>,
) -> usize {
    let mut segs = prefix.to_vec();
    let mut line = toks[i].1;
    loop {
        match toks.get(i) {
            Some((Tok::Word(w), l)) => {
                segs.push(w.clone());
                line = *l;
                i += 1;
            }
            Some((Tok::Open, _)) => {
                i += 1;
                loop {
                    match toks.get(i) {
                        None => return i,
                        Some((Tok::Close, _)) => return i + 1,
                        Some((Tok::Word(_) | Tok::Open, _)) if !is_word(toks.get(i), "as") => {
                            i = read_path(toks, i, &segs, leaves)
                        }
                        // `,`, `*`, or `as` and the name after it.
                        Some(_) => i += if is_word(toks.get(i), "as") { 2 } else { 1 },
                    }
                }
            }
            _ => break,
        }
        if !matches!(toks.get(i), Some((Tok::Sep, _))) {
            break;
        }
        i += 1;
    }
    leaves.push((segs, line));
    i
}

/// Where a path written in module `base` points: the module path below the crate root,
/// then the item names after it.
fn resolve(base: &[String], segs: &[String]) -> Vec<String> {
    let mut to = if segs[0] == "crate" || segs[0] == "$crate" {
        Vec::new()
    } else {
        base.to_vec()
    };
    for s in segs {
        match s.as_str() {
            "super" => {
                to.pop();
            }
            "crate" | "$crate" | "self" => {}
            _ => to.push(s.clone()),
        }
    }
    to
}

/// A path the code names from `crate::`, `super::` or `self::`.
#[derive(Debug, PartialEq)]
struct Named {
    /// Where it points from the crate root: module names, then item names.
    to: Vec<String>,
    /// As written, a group's part joined to what is before the group.
    text: String,
    line: usize,
}

/// Every path from `crate::`, `super::` or `self::` in the code of module `module`
/// (`["nn", "ops"]`), in a `use` or anywhere else, groups split (`super::{a, b::c}` is
/// two); inside an inline `mod x { … }` block a path starts from that block.
fn named_paths(module: &[String], code: &str) -> Vec<Named> {
    let toks = tokens(code);
    let mut out = Vec::new();
    let mut depth = 0;
    // The inline modules around this token, each with the depth of its body.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        match &toks[i].0 {
            Tok::Open => {
                depth += 1;
                if let (true, Some((Tok::Word(name), _))) =
                    (i >= 2 && is_word(toks.get(i - 2), "mod"), toks.get(i - 1))
                {
                    inline.push((name.clone(), depth));
                }
            }
            Tok::Close => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            Tok::Word(w)
                if ["crate", "$crate", "super", "self"].contains(&w.as_str())
                    && matches!(toks.get(i + 1), Some((Tok::Sep, _)))
                    && !(i > 0 && toks[i - 1].0 == Tok::Sep) =>
            {
                let mut base = module.to_vec();
                base.extend(inline.iter().map(|(name, _)| name.clone()));
                let mut leaves = Vec::new();
                i = read_path(&toks, i, &[], &mut leaves);
                out.extend(leaves.into_iter().map(|(segs, line)| Named {
                    to: resolve(&base, &segs),
                    text: segs.join("::"),
                    line,
                }));
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    out
}

struct Source {
    /// Path below `src/`, with `/` separators.
    rel: String,
    code: String,
}

fn source(rel: &str, text: &str) -> Source {
    Source {
        rel: rel.to_string(),
        code: code_of(text),
    }
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .iter()
        .map(|f| {
            let rel = f.strip_prefix(&src).unwrap().to_string_lossy();
            source(
                &rel.replace('\\', "/"),
                &std::fs::read_to_string(f).unwrap(),
            )
        })
        .collect()
}

/// The module a file is (`["nn", "model"]` for `nn/model/mod.rs`, `["engine"]` for
/// `engine.rs`; none for the crate roots `lib.rs` and `main.rs`).
fn module_of(rel: &str) -> Vec<String> {
    let mut m: Vec<String> = rel
        .trim_end_matches(".rs")
        .split('/')
        .map(String::from)
        .collect();
    if m.last().is_some_and(|n| n == "mod") || m == ["lib"] || m == ["main"] {
        m.pop();
    }
    m
}

/// The top-level module a file belongs to (`search` for `search/run.rs`, `game` for
/// `game.rs`; empty for the crate roots).
fn top_module(rel: &str) -> String {
    module_of(rel).into_iter().next().unwrap_or_default()
}

fn is_tool(module: &str) -> bool {
    TOOLS.contains(&module)
}

/// One folder's child modules, each with the siblings it names and where: for each, the
/// `src/file.rs:line path` of every place.
type Graph = BTreeMap<String, BTreeMap<String, Vec<String>>>;

/// The graph of each folder (`nn`, `nn/model`; `` for `src/` itself): its children are
/// its files but `mod.rs` and its subfolders (a folder's module file beside it, as
/// `engine.rs` beside `engine/`, is the same child). A file names sibling `b` of the
/// child it is in (itself, or a folder holding it at any depth) when one of its paths
/// resolves into `b`; the files of a folder's own module name no sibling.
fn sibling_graphs(all: &[Source]) -> BTreeMap<String, Graph> {
    let modules: BTreeSet<Vec<String>> = all
        .iter()
        .flat_map(|s| {
            let m = module_of(&s.rel);
            (1..=m.len()).map(move |k| m[..k].to_vec())
        })
        .collect();
    let mut graphs: BTreeMap<String, Graph> = BTreeMap::new();
    for m in &modules {
        let (name, folder) = m.split_last().unwrap();
        graphs
            .entry(folder.join("/"))
            .or_default()
            .insert(name.clone(), BTreeMap::new());
    }
    for s in all {
        let from = module_of(&s.rel);
        for n in named_paths(&from, &s.code) {
            let k = from.iter().zip(&n.to).take_while(|(a, b)| a == b).count();
            if k < from.len() && k < n.to.len() && modules.contains(&n.to[..=k]) {
                let graph = graphs.get_mut(&from[..k].join("/")).unwrap();
                let edges = graph.get_mut(&from[k]).unwrap();
                let sites = edges.entry(n.to[k].clone()).or_default();
                sites.push(format!("src/{}:{} {}", s.rel, n.line, n.text));
            }
        }
    }
    graphs
}

/// The nodes of `graph` on a cycle, grouped into the sets that reach each other (a
/// group is one cycle, or several through shared nodes); none when it has no cycle.
fn cycles<E>(graph: &BTreeMap<String, BTreeMap<String, E>>) -> Vec<BTreeSet<String>> {
    let reach = |from: &String| {
        let mut seen = BTreeSet::new();
        let mut todo = vec![from];
        while let Some(n) = todo.pop() {
            for next in graph.get(n).into_iter().flat_map(|edges| edges.keys()) {
                if seen.insert(next.clone()) {
                    todo.push(next);
                }
            }
        }
        seen
    };
    let reaches: BTreeMap<&String, BTreeSet<String>> =
        graph.keys().map(|n| (n, reach(n))).collect();
    let mut groups: Vec<BTreeSet<String>> = Vec::new();
    for (n, r) in &reaches {
        if r.contains(*n) && !groups.iter().any(|g| g.contains(*n)) {
            let back = |m: &&String| reaches.get(*m).is_some_and(|rm| rm.contains(*n));
            groups.push(r.iter().filter(back).cloned().collect());
        }
    }
    groups
}

/// Every cycle in the folders' graphs, as `nn/model <-> nn/ops` and under it each of its
/// edges with the places that make it (the first three).
fn cycle_report(graphs: &BTreeMap<String, Graph>) -> Vec<String> {
    let mut report = Vec::new();
    for (folder, graph) in graphs {
        let name = |n: &str| {
            if folder.is_empty() {
                n.to_string()
            } else {
                format!("{folder}/{n}")
            }
        };
        for group in cycles(graph) {
            let mut lines = vec![group
                .iter()
                .map(|n| name(n))
                .collect::<Vec<_>>()
                .join(" <-> ")];
            for from in &group {
                for (to, sites) in graph[from].iter().filter(|(to, _)| group.contains(*to)) {
                    let more = match sites.len() {
                        0..=3 => String::new(),
                        n => format!(" (and {} more)", n - 3),
                    };
                    let first = sites[..sites.len().min(3)].join(", ");
                    lines.push(format!("  {} -> {}: {first}{more}", name(from), name(to)));
                }
            }
            report.push(lines.join("\n"));
        }
    }
    report
}

#[test]
fn no_cycle_between_top_level_modules() {
    let graphs = sibling_graphs(&sources());
    let top = &graphs[""];
    assert!(top.len() > 10, "read too few modules: {:?}", top.keys());
    let cycles = cycle_report(&BTreeMap::from([(String::new(), top.clone())]));
    assert!(
        cycles.is_empty(),
        "import cycle between modules:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn no_cycle_between_sibling_modules() {
    let mut graphs = sibling_graphs(&sources());
    graphs.remove("");
    assert!(graphs.contains_key("nn/model"), "{:?}", graphs.keys());
    let cycles = cycle_report(&graphs);
    assert!(
        cycles.is_empty(),
        "import cycle between sibling modules:\n{}",
        cycles.join("\n")
    );
}

/// The paths of the library's files that point into a top-level module `bad` says is out
/// of bounds for them, as `src/file.rs:line path`.
fn uses_across(skip: impl Fn(&str) -> bool, bad: impl Fn(&str) -> bool) -> Vec<String> {
    let mut offenders = Vec::new();
    for s in sources() {
        let from = top_module(&s.rel);
        if from.is_empty() || skip(&from) {
            continue;
        }
        for n in named_paths(&module_of(&s.rel), &s.code) {
            if n.to.first().is_some_and(|to| bad(to)) {
                offenders.push(format!("src/{}:{} uses {}", s.rel, n.line, n.text));
            }
        }
    }
    offenders
}

#[test]
fn the_library_uses_no_tool() {
    let offenders = uses_across(is_tool, is_tool);
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn nothing_below_gtp_knows_gtp_or_the_command_line() {
    let below = |m: &str| BELOW_GTP.contains(&m);
    let mut offenders = uses_across(|m| !below(m), |to| ["gtp", "cli", "engine"].contains(&to));
    for s in sources() {
        if !below(&top_module(&s.rel)) {
            continue;
        }
        for external in ["clap::", "nom::", "use clap", "use nom"] {
            if s.code.contains(external) {
                offenders.push(format!("src/{} uses {external}", s.rel));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn the_readers_see_what_they_should() {
    let code = code_of(
        "use crate::{board::X, game::Game}; // crate::gtp\nlet s = \"crate::cli\";\n\
         /* crate::tools /* nested */ super::z */ let c = '{';\nuse super::{a, b::{c, self}};\n\
         let r = r#\"crate::cli\"#; let t: super::ops::Kind<'a> = super::super::search::f::<T>();",
    );
    assert_eq!(code.lines().count(), 5);
    assert!(!code.contains("gtp") && !code.contains("cli") && !code.contains("tools"));
    let module = ["nn".to_string(), "forward".to_string()];
    let named: Vec<(String, usize)> = named_paths(&module, &code)
        .into_iter()
        .map(|n| (n.to.join("::"), n.line))
        .collect();
    let want = [
        ("board::X", 1),
        ("game::Game", 1),
        ("nn::a", 4),
        ("nn::b::c", 4),
        ("nn::b", 4),
        ("nn::ops::Kind", 5),
        ("search::f", 5),
    ];
    let want: Vec<(String, usize)> = want.iter().map(|(p, l)| (p.to_string(), *l)).collect();
    assert_eq!(named, want);
    // Inside an inline module `super::` is the file's own module; after it, the folder.
    let code =
        code_of("mod tests {\n use super::*;\n fn f() { super::ops(); }\n}\nuse super::ops;");
    let named: Vec<String> = named_paths(&module, &code)
        .into_iter()
        .map(|n| n.to.join("::"))
        .collect();
    assert_eq!(named, ["nn::forward", "nn::forward::ops", "nn::ops"]);
    assert_eq!(module_of("nn/model/mod.rs"), ["nn", "model"]);
    assert_eq!(module_of("engine.rs"), ["engine"]);
    assert!(module_of("lib.rs").is_empty());
}

/// A small tree: `x/` holds `o.rs` and the folder `m/`, and `m`'s `mod.rs` names `o` in a
/// field's type while `o` imports from `m`: a cycle through a `mod.rs`.
fn tree_with_a_cycle() -> Vec<Source> {
    vec![
        source("lib.rs", "pub mod x;"),
        source("x/mod.rs", "mod m;\nmod o;\npub use o::Kind;\n"),
        source(
            "x/m/mod.rs",
            "//! The model.\nmod read;\npub struct Model {\n    pub kind: super::o::Kind,\n}\n",
        ),
        source(
            "x/m/read.rs",
            "fn f() {\n    let _ = crate::x::o::Kind::A;\n}\n",
        ),
        source(
            "x/o.rs",
            "mod kernel {\n    fn k() -> char { '{' }\n}\nuse super::m::{read, Model};\n",
        ),
    ]
}

/// The same tree without the cycle: `o` names `m` only where that is no use of `m` (in
/// comments and literals, and a `super::m` inside its own test module), `m`'s files name
/// `o` and their parent's items, and `x/mod.rs` names both its children.
fn tree_without_a_cycle() -> Vec<Source> {
    vec![
        source("lib.rs", "pub mod x;"),
        source("x/mod.rs", "mod m;\nmod o;\npub struct Thing;\nfn f() -> o::Kind { self::o::make(super::x::m::Model) }\n"),
        source("x/m/mod.rs", "mod read;\npub struct Model {\n    pub kind: super::o::Kind,\n}\n"),
        source("x/m/read.rs", "use super::super::o::Kind;\nuse super::Model;\n"),
        source(
            "x/o.rs",
            "//! Not [`super::m::Model`].\nuse super::Thing;\n/* crate::x::m */\n\
             const S: &str = \"super::m::Model\";\npub enum Kind { A }\nfn m() {}\n\
             #[cfg(test)]\nmod tests {\n    use super::*;\n    fn t() { super::m(); }\n}\n",
        ),
    ]
}

#[test]
fn the_cycle_finder_sees_a_cycle_through_a_folder() {
    let graphs = sibling_graphs(&tree_with_a_cycle());
    assert_eq!(
        cycle_report(&graphs),
        [
            "x/m <-> x/o\n  x/m -> x/o: src/x/m/mod.rs:4 super::o::Kind, src/x/m/read.rs:2 \
             crate::x::o::Kind::A\n  x/o -> x/m: src/x/o.rs:4 super::m::read, src/x/o.rs:4 \
             super::m::Model"
        ]
    );
    let graphs = sibling_graphs(&tree_without_a_cycle());
    assert!(cycle_report(&graphs).is_empty(), "{graphs:#?}");
    let x = &graphs["x"];
    assert_eq!(x["m"]["o"].len(), 2, "{x:#?}");
    assert!(x["o"].is_empty(), "{x:#?}");
    assert_eq!(graphs[""]["x"].len(), 0);
    let mut g: BTreeMap<String, BTreeMap<String, ()>> = BTreeMap::new();
    for (a, b) in [
        ("a", "b"),
        ("b", "c"),
        ("c", "a"),
        ("c", "d"),
        ("d", "e"),
        ("e", "d"),
    ] {
        g.entry(a.into()).or_default().insert(b.into(), ());
    }
    let groups: Vec<Vec<String>> = cycles(&g)
        .into_iter()
        .map(|g| g.into_iter().collect())
        .collect();
    assert_eq!(groups, [vec!["a", "b", "c"], vec!["d", "e"]]);
}

/// The files ARCHITECTURE.md's map ("Which file owns what") names, as paths under `src/`:
/// each row is a name at the start of a line (`main.rs`, `board/`, `engine/player.rs`)
/// indented two spaces a level under the folder rows above it; the rows' continuation
/// lines are indented past the names' column.
fn architecture_map() -> BTreeSet<String> {
    let text =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("ARCHITECTURE.md"))
            .unwrap();
    let section = text
        .split("## Which file owns what")
        .nth(1)
        .expect("the map's heading");
    let block = section.split("```").nth(1).expect("the map's code block");
    let mut folders: Vec<(usize, String)> = Vec::new();
    let mut files = BTreeSet::new();
    for line in block.lines() {
        let indent = line.len() - line.trim_start().len();
        let Some(name) = line.split_whitespace().next() else {
            continue;
        };
        if indent >= 20 || !(name.ends_with(".rs") || name.ends_with('/')) {
            continue;
        }
        while folders.last().is_some_and(|(i, _)| *i >= indent) {
            folders.pop();
        }
        let parent = folders.last().map_or("", |(_, p)| p.as_str());
        let path = format!("{parent}{name}");
        if name.ends_with('/') {
            folders.push((indent, if path == "src/" { String::new() } else { path }));
        } else {
            files.insert(path);
        }
    }
    files
}

/// Every file under `src/` has its row in ARCHITECTURE.md's map, and every row names a
/// file that exists: a new file is placed in the house's plan, a deleted one leaves it.
#[test]
fn every_source_file_has_its_row_in_architecture_md() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&root, &mut paths);
    let have: BTreeSet<String> = paths
        .iter()
        .map(|p| {
            p.strip_prefix(&root)
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    let map = architecture_map();
    assert!(map.len() > 50, "the map read {} rows: {map:?}", map.len());
    let missing: Vec<&String> = have.difference(&map).collect();
    let stale: Vec<&String> = map.difference(&have).collect();
    assert!(
        missing.is_empty() && stale.is_empty(),
        "without a row in ARCHITECTURE.md: {missing:?}; rows of no file: {stale:?}"
    );
}
