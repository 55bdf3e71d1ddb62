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

/// The module path of a library file: `src/mutate/python/wrap.rs` is `mutate::python::wrap`,
/// `src/mutate/python/mod.rs` is `mutate::python`.
fn module_path(src: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into()).collect();
    if parts.last().is_some_and(|n| n == "mod") {
        parts.pop();
    }
    parts
}

/// The paths a file's code names from the crate's root: `crate::a::b`, and `super::` and
/// `self::` paths resolved against the file's own module (`super::super::x` in
/// `mutate::python::wrap` is `mutate::x`). Brace groups are opened one level.
fn resolved_paths(code: &str, module: &[String]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices(['c', 's']) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &code[at..];
        let mut base: Vec<String> = if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            Vec::new()
        } else if rest.starts_with("super::") || rest.starts_with("self::") {
            let mut base = module.to_vec();
            while let Some(r) = rest.strip_prefix("super::") {
                base.pop();
                rest = r;
            }
            if let Some(r) = rest.strip_prefix("self::") {
                rest = r;
            }
            base
        } else {
            continue;
        };
        // The named segments: `a::b::{c, d}` gives a::b::c and a::b::d.
        loop {
            if let Some(group) = rest.strip_prefix('{') {
                let group = &group[..group.find('}').unwrap_or(group.len())];
                for item in group.split(',') {
                    let mut path = base.clone();
                    path.extend(item.trim().split("::").map(ident).filter(|s| !s.is_empty()));
                    out.push(path);
                }
                break;
            }
            let seg = ident(rest);
            if seg.is_empty() {
                out.push(base);
                break;
            }
            rest = &rest[seg.len()..];
            base.push(seg);
            match rest.strip_prefix("::") {
                Some(r) => rest = r,
                None => {
                    out.push(base);
                    break;
                }
            }
        }
    }
    out
}

/// The import graphs of the library: between top-level modules, and between all its modules
/// (every file, keyed by its module path: `mutate::python::wrap`). A module's use of what an
/// ancestor of it defines (a folder's error type in its `mod.rs`) is not counted: a child
/// builds on its parent's shared definitions.
fn graphs(src: &Path) -> (Graph, Graph) {
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let top_modules: BTreeSet<String> = lib
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    assert!(top_modules.len() > 10, "lib.rs lists the modules");
    let mut files = Vec::new();
    sources(src, &mut files);
    // The binary (main.rs, cli/) sits above the library; tests import what they test.
    files.retain(|f| {
        let path = module_path(src, f);
        !["main", "lib", "cli"].contains(&path[0].as_str())
            && !path.last().unwrap().ends_with("_tests")
    });
    let modules: BTreeSet<Vec<String>> = files.iter().map(|f| module_path(src, f)).collect();
    let (mut top, mut within) = (Graph::new(), Graph::new());
    for file in &files {
        let code = code(&std::fs::read_to_string(file).unwrap());
        let module = module_path(src, file);
        for path in resolved_paths(&code, &module) {
            // The module that defines what the path names: its longest prefix that is a file.
            let Some(target) = (1..=path.len())
                .rev()
                .map(|n| path[..n].to_vec())
                .find(|p| modules.contains(p))
            else {
                continue;
            };
            if target[0] != module[0] && top_modules.contains(&target[0]) {
                top.entry(module[0].clone())
                    .or_default()
                    .insert(target[0].clone());
            }
            let ancestor_or_self = module.starts_with(&target);
            if target[0] == module[0] && !ancestor_or_self {
                within
                    .entry(module.join("::"))
                    .or_default()
                    .insert(target.join("::"));
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
            .get("report::html")
            .is_some_and(|d| d.contains("report::svg")),
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
        "modules within one top-level module importing each other"
    );
}

#[test]
fn the_check_finds_a_cycle_through_a_third_module_and_resolves_brace_groups_and_super_paths() {
    let code = code(
        "use crate::{anchor, evolve::Options};\n// crate::commented\nfn f() { crate::schema::diff(); }\n#[cfg(test)]\nmod tests { use crate::report; }\n",
    );
    let module: Vec<String> = ["mutate", "python", "wrap"].map(String::from).to_vec();
    let names = |paths: Vec<Vec<String>>| -> Vec<String> {
        paths.into_iter().map(|p| p.join("::")).collect()
    };
    assert_eq!(
        names(resolved_paths(&code, &module)),
        ["anchor", "evolve::Options", "schema::diff"]
    );
    assert_eq!(
        names(resolved_paths(
            "use super::super::wrap::Around;\nuse super::string;",
            &module
        )),
        ["mutate::wrap::Around", "mutate::python::string"],
        "super:: climbs one module a time"
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
