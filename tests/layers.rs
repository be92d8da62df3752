//! The layering ARCHITECTURE.md promises, read from the source: no cycle between the
//! crate's top-level modules or between sibling files of one folder, no library module
//! that uses a tool, and nothing below the GTP front end that knows GTP, the command line
//! or their parsers. Reads `src/` as text: every `crate::a::b` path and `super::x` path
//! counts as a use, `mod` and `pub use` of a folder's own children do not.

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

/// The source with comments and string literals blanked, so that a path in a doc line or
/// a message is no use.
fn code_of(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.lines() {
        let mut code = String::new();
        let mut in_str = false;
        let mut prev = ' ';
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            if !in_str && c == '/' && chars.get(i + 1) == Some(&'/') {
                break;
            }
            if c == '"' && prev != '\\' && !(prev == '\'' && chars.get(i + 1) == Some(&'\'')) {
                in_str = !in_str;
                code.push(' ');
            } else if !in_str {
                code.push(c);
            }
            prev = if prev == '\\' && c == '\\' { ' ' } else { c };
            i += 1;
        }
        out.push_str(&code);
        out.push('\n');
    }
    out
}

/// Every module path the code names after `crate::` (grouped `crate::{a, b::c}` split).
fn crate_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("crate::") {
        let before = rest[..i].chars().last();
        rest = &rest[i + "crate::".len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for part in group[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    paths.push(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == ':')
                .collect();
            paths.push(name.trim_end_matches(':').to_string());
        }
    }
    paths
}

/// Sibling names a file names through `super::x` (`super::{x, y}` split).
fn super_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    let mut rest = code;
    while let Some(i) = rest.find("super::") {
        rest = &rest[i + "super::".len()..];
        let group: Vec<&str> = if let Some(g) = rest.strip_prefix('{') {
            g[..g.find('}').unwrap_or(g.len())].split(',').collect()
        } else {
            vec![rest]
        };
        for part in group {
            let name: String = part
                .trim()
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() && name != "super" {
                names.push(name);
            }
        }
    }
    names
}

/// A cycle in `graph`, if there is one (as the list of its nodes).
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        state: &mut BTreeMap<String, u8>,
        stack: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        state.insert(node.to_string(), 1);
        stack.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let at = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle = stack[at..].to_vec();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(c) = visit(next, graph, state, stack) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        stack.pop();
        state.insert(node.to_string(), 2);
        None
    }
    let mut state = BTreeMap::new();
    for node in graph.keys() {
        if state.get(node.as_str()).copied().unwrap_or(0) == 0 {
            if let Some(c) = visit(node, graph, &mut state, &mut Vec::new()) {
                return Some(c);
            }
        }
    }
    None
}

struct Source {
    /// Path below `src/`, with `/` separators.
    rel: String,
    code: String,
}

fn sources() -> Vec<Source> {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| Source {
            rel: f
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/"),
            code: code_of(&std::fs::read_to_string(&f).unwrap()),
        })
        .collect()
}

/// The top-level module a file belongs to (`search` for `search/run.rs`, `game` for
/// `game.rs`; `main` and `lib` are the crate roots).
fn top_module(rel: &str) -> String {
    rel.split('/')
        .next()
        .unwrap()
        .trim_end_matches(".rs")
        .to_string()
}

fn is_tool(module: &str) -> bool {
    TOOLS.contains(&module)
}

#[test]
fn no_cycle_between_top_level_modules() {
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for s in sources() {
        let from = top_module(&s.rel);
        if from == "main" || from == "lib" {
            continue;
        }
        let entry = graph.entry(from.clone()).or_default();
        for p in crate_paths(&s.code) {
            let to = p.split("::").next().unwrap().to_string();
            if to != from && !to.is_empty() {
                entry.insert(to);
            }
        }
    }
    assert!(graph.len() > 10, "read too few modules: {:?}", graph.keys());
    if let Some(cycle) = find_cycle(&graph) {
        panic!("import cycle between modules: {}", cycle.join(" -> "));
    }
}

#[test]
fn no_cycle_between_sibling_files() {
    // Per folder: an edge from a.rs to b.rs when a names `super::b` or `crate::folder::b`.
    // `mod.rs` is the folder itself, so its children using it (and it re-exporting them)
    // are not counted.
    let all = sources();
    let mut folders: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for s in &all {
        let Some((folder, file)) = s.rel.rsplit_once('/') else {
            continue;
        };
        let name = file.trim_end_matches(".rs").to_string();
        if name == "mod" {
            continue;
        }
        let siblings: BTreeSet<String> = all
            .iter()
            .filter_map(|o| {
                let (f, n) = o.rel.rsplit_once('/')?;
                let n = n.trim_end_matches(".rs");
                (f == folder && n != "mod").then(|| n.to_string())
            })
            .collect();
        let module_path = folder.replace('/', "::");
        let mut uses = BTreeSet::new();
        for n in super_names(&s.code) {
            if siblings.contains(&n) && n != name {
                uses.insert(n);
            }
        }
        for p in crate_paths(&s.code) {
            if let Some(rest) = p.strip_prefix(&format!("{module_path}::")) {
                let n = rest.split("::").next().unwrap().to_string();
                if siblings.contains(&n) && n != name {
                    uses.insert(n);
                }
            }
        }
        folders
            .entry(folder.to_string())
            .or_default()
            .insert(name, uses);
    }
    for (folder, graph) in &folders {
        if let Some(cycle) = find_cycle(graph) {
            panic!("import cycle in src/{folder}/: {}", cycle.join(" -> "));
        }
    }
}

#[test]
fn the_library_uses_no_tool() {
    let mut offenders = Vec::new();
    for s in sources() {
        let from = top_module(&s.rel);
        if is_tool(&from) || from == "main" || from == "lib" {
            continue;
        }
        for p in crate_paths(&s.code) {
            let to = p.split("::").next().unwrap();
            if is_tool(to) {
                offenders.push(format!("src/{} uses crate::{p}", s.rel));
            }
        }
    }
    assert!(offenders.is_empty(), "{offenders:#?}");
}

#[test]
fn nothing_below_gtp_knows_gtp_or_the_command_line() {
    let mut offenders = Vec::new();
    for s in sources() {
        let from = top_module(&s.rel);
        if !BELOW_GTP.contains(&from.as_str()) {
            continue;
        }
        for p in crate_paths(&s.code) {
            let to = p.split("::").next().unwrap();
            if to == "gtp" || to == "cli" || to == "engine" {
                offenders.push(format!("src/{} uses crate::{p}", s.rel));
            }
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
    let code = code_of("use crate::{board::X, game::Game}; // crate::gtp\nlet s = \"crate::cli\";\nuse super::{a, b::c};");
    assert_eq!(crate_paths(&code), vec!["board", "game"]);
    assert_eq!(super_names(&code), vec!["a", "b"]);
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    g.entry("a".into()).or_default().insert("b".into());
    g.entry("b".into()).or_default().insert("a".into());
    assert!(find_cycle(&g).is_some());
    g.get_mut("b").unwrap().clear();
    assert!(find_cycle(&g).is_none());
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
