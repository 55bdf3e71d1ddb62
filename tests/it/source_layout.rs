//! Rules on the layout of the sources that keep them easy to carry on.
//!
//! The library's modules form layers: no module imports one that imports it back, at the top
//! level (`anchor`, `evolve`, ...) or between the files of one folder (`report/html.rs` and
//! `report/svg.rs`). Read from the sources: every `crate::name` and `super::name` path outside
//! comments and test code (`*_tests.rs`, `#[cfg(test)] mod tests`) counts as an import.
//!
//! A file over 500 lines says why at its top.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a file without its comments and its test module.
fn code(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The names that follow `prefix` (`crate::`, `super::`) in `code`, braces opened:
/// `crate::{a, b::c}` names `a` and `b`.
fn names_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let group = &group[..group.find('}').unwrap_or(group.len())];
            out.extend(group.split(',').map(|p| ident(p.trim())));
        } else {
            out.insert(ident(rest));
        }
    }
    out.remove("");
    out
}

/// Pairs of nodes that reach each other, each pair once.
fn cycles(graph: &Graph) -> Vec<(String, String)> {
    let reach = |from: &str| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.to_string()];
        while let Some(n) = stack.pop() {
            for next in graph.get(&n).into_iter().flatten() {
                if seen.insert(next.clone()) {
                    stack.push(next.clone());
                }
            }
        }
        seen
    };
    let mut out = Vec::new();
    for a in graph.keys() {
        for b in reach(a) {
            if *a < b && reach(&b).contains(a) {
                out.push((a.clone(), b));
            }
        }
    }
    out
}

/// The import graphs of the library: between top-level modules, and between the files of
/// each folder (keyed `folder/file`).
fn graphs(src: &Path) -> (Graph, Graph) {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let top_modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    assert!(top_modules.len() > 10, "lib.rs lists the modules");
    let (mut top, mut within) = (Graph::new(), Graph::new());
    let mut files = Vec::new();
    sources(src, &mut files);
    for file in files {
        let rel = file.strip_prefix(src).unwrap().with_extension("");
        let parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into()).collect();
        let name = parts.last().unwrap();
        // The binary (main.rs, cli/) sits above the library; tests import what they test.
        if ["main", "lib", "cli"].contains(&parts[0].as_str()) || name.ends_with("_tests") {
            continue;
        }
        let code = code(&std::fs::read_to_string(&file).unwrap());
        let module = &parts[0];
        for used in names_after(&code, "crate::") {
            if top_modules.contains(&used) && used != *module {
                top.entry(module.clone()).or_default().insert(used);
            }
        }
        if parts.len() >= 2 && name != "mod" {
            let folder = src.join(module);
            let sibling = |n: &String| {
                n != &parts[1]
                    && (folder.join(format!("{n}.rs")).is_file() || folder.join(n).is_dir())
            };
            let nested = names_after(&code, &format!("crate::{module}::"));
            for used in names_after(&code, "super::").union(&nested) {
                if sibling(used) {
                    within
                        .entry(format!("{module}/{}", parts[1]))
                        .or_default()
                        .insert(format!("{module}/{used}"));
                }
            }
        }
    }
    (top, within)
}

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (top, within) = graphs(&src);
    assert!(
        top.get("evolve").is_some_and(|d| d.contains("anchor")),
        "the graph is read: evolve imports anchor ({top:?})"
    );
    assert!(
        within
            .get("report/html")
            .is_some_and(|d| d.contains("report/svg")),
        "the graph within folders is read ({within:?})"
    );
    assert_eq!(
        cycles(&top),
        vec![],
        "top-level modules importing each other"
    );
    assert_eq!(
        cycles(&within),
        vec![],
        "files of one folder importing each other"
    );
}

#[test]
fn the_check_finds_a_cycle_through_a_third_module_and_reads_brace_groups() {
    let code = code(
        "use crate::{anchor, evolve::Options};\n// crate::commented\nfn f() { crate::schema::diff(); }\n#[cfg(test)]\nmod tests { use crate::report; }\n",
    );
    assert_eq!(
        names_after(&code, "crate::"),
        ["anchor", "evolve", "schema"]
            .map(String::from)
            .into_iter()
            .collect()
    );
    let mut graph = Graph::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    assert_eq!(cycles(&graph), vec![]);
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycles(&graph).len(), 3, "a, b and c all reach each other");
}

/// Lines over which a file must say, in its first lines, why it is that long.
const LONG_FILE: usize = 500;

#[test]
fn every_file_over_500_lines_says_why_at_its_top() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for dir in ["src", "tests", "benches", "examples"] {
        sources(&root.join(dir), &mut files);
    }
    assert!(files.len() > 50, "the sources are found");
    let unexplained: Vec<String> = files
        .iter()
        .filter_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            let long = text.lines().count() > LONG_FILE;
            let head: String = text.lines().take(12).collect::<Vec<_>>().join("\n");
            (long && !head.contains("Over 500 lines")).then(|| f.display().to_string())
        })
        .collect();
    assert_eq!(unexplained, Vec::<String>::new());
}

/// The functions of `text` longer than `limit` lines whose comments do not say why: the
/// comment lines right above a function (its doc comment) or its first line inside must hold
/// the word "long". A function is a line opening `fn` and running to the first line at its own
/// indentation that starts with `}`.
fn long_functions_unexplained(text: &str, limit: usize) -> Vec<(usize, String, usize)> {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(at) => &text[..at],
        None => text,
    };
    let lines: Vec<&str> = code.lines().collect();
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let trimmed = line.trim_start();
        let opens = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "async fn ",
            "pub async fn ",
        ]
        .iter()
        .any(|p| trimmed.starts_with(p));
        if !opens || trimmed.ends_with(';') {
            continue;
        }
        let indent = &line[..line.len() - trimmed.len()];
        let Some(end) = (i + 1..lines.len())
            .find(|&j| lines[j].starts_with(indent) && lines[j][indent.len()..].starts_with('}'))
        else {
            continue;
        };
        let length = end - i + 1;
        if length <= limit {
            continue;
        }
        let above = lines[..i]
            .iter()
            .rev()
            .take_while(|l| {
                let t = l.trim_start();
                t.starts_with("//") || t.starts_with("#[")
            })
            .any(|l| l.to_lowercase().contains("long"));
        let inside = lines[i + 1..end]
            .iter()
            .take(3)
            .any(|l| l.trim_start().starts_with("//") && l.to_lowercase().contains("long"));
        if !above && !inside {
            let name: String = trimmed
                .split("fn ")
                .nth(1)
                .unwrap_or("")
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            out.push((i + 1, name, length));
        }
    }
    out
}

#[test]
fn every_function_over_80_lines_says_why_it_is_long() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    let mut long = Vec::new();
    for file in files {
        let name = file.to_string_lossy();
        if name.ends_with("_tests.rs") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (line, function, length) in long_functions_unexplained(&text, 80) {
            long.push(format!("{name}:{line} `{function}` has {length} lines"));
        }
    }
    assert!(
        long.is_empty(),
        "split these, or say at their top why they are long:\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_finds_a_long_function_and_accepts_one_that_says_why() {
    let body = "    let x = 1;\n".repeat(90);
    let bare = format!("fn big() {{\n{body}}}\n");
    assert_eq!(
        long_functions_unexplained(&bare, 80),
        [(1, "big".to_string(), 92)]
    );
    let said = format!("/// Long: one table of cases reads better whole.\nfn big() {{\n{body}}}\n");
    assert!(long_functions_unexplained(&said, 80).is_empty());
    let short = "fn small() {\n    let x = 1;\n}\n";
    assert!(long_functions_unexplained(short, 80).is_empty());
}
