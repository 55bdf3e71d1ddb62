//! Rules on the layout of the sources that keep them easy to carry on.
//!
//! Over 500 lines: the layering, length and crate checks share one file walk and one reader
//! of code, and each check's own test of a planted failure sits beside it.
//!
//! The library is a workspace of crates along the pipeline (core, anchor, oracle, engine, and
//! this crate with the command line on top), and each depends only on the crates below it:
//! [`PIPELINE`] is their order, and every crate's `Cargo.toml` names only earlier ones.
//!
//! Their modules form layers: no module imports one that imports it back, at the top level
//! (`anchor`, `evolve`, ...) or between the files of one folder (`report/html.rs` and
//! `report/svg.rs`). The crates are read as one tree, the one `mcpevol::` re-exports: the
//! anchor crate is the module `anchor`, the others' modules sit at the top. Every `crate::`,
//! `super::`, `self::` and `mcpevol_*::` path outside comments and test code (`*_tests.rs`,
//! `#[cfg(test)] mod tests`) counts as an import.
//!
//! A file over 500 lines says why at its top.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The crates from the bottom of the pipeline up: each crate's name, its folder, and where its
/// modules sit in the tree `mcpevol::` re-exports.
const PIPELINE: [(&str, &str, &[&str]); 5] = [
    ("mcpevol_core", "crates/core", &[]),
    ("mcpevol_anchor", "crates/anchor", &["anchor"]),
    ("mcpevol_oracle", "crates/oracle", &[]),
    ("mcpevol_engine", "crates/engine", &[]),
    ("mcpevol", ".", &[]),
];

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

/// The module path of a library file under `mount`: `crates/engine/src/mutate/python/wrap.rs` is
/// `mutate::python::wrap`, `crates/engine/src/mutate/python/mod.rs` is `mutate::python`, and the anchor
/// crate's `src/lib.rs` is `anchor`.
fn module_path(src: &Path, file: &Path, mount: &[&str]) -> Vec<String> {
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut parts: Vec<String> = mount.iter().map(|m| m.to_string()).collect();
    parts.extend(rel.iter().map(|p| p.to_string_lossy().into_owned()));
    if parts.last().is_some_and(|n| n == "mod" || n == "lib") {
        parts.pop();
    }
    parts
}

/// The paths a file's code names in the tree: `crate::a::b` (under the file's own crate's
/// `mount`), `mcpevol_anchor::a` (under that crate's), and `super::` and `self::` paths resolved
/// against the file's own module (`super::super::x` in `mutate::python::wrap` is `mutate::x`).
/// Brace groups are opened one level.
fn resolved_paths(code: &str, module: &[String], mount: &[&str]) -> Vec<Vec<String>> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices(['c', 's', 'm']) {
        let before = code[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let mut rest = &code[at..];
        let crate_mount = PIPELINE.iter().find_map(|(name, _, mount)| {
            let r = rest.strip_prefix(name)?;
            let r = r.strip_prefix("::").or_else(|| {
                r.starts_with(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .then_some("")
            })?;
            Some((r, *mount))
        });
        let mut base: Vec<String> = if let Some((r, other)) = crate_mount {
            rest = r;
            other.iter().map(|m| m.to_string()).collect()
        } else if let Some(r) = rest.strip_prefix("crate::") {
            rest = r;
            mount.iter().map(|m| m.to_string()).collect()
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

/// One library file: its crate's place in [`PIPELINE`], its module path, its code.
struct SourceFile {
    layer: usize,
    module: Vec<String>,
    code: String,
}

/// Every library file of every crate. The binary (`main.rs`, `cli/`) sits above the library;
/// tests import what they test.
fn library_files(root: &Path) -> Vec<SourceFile> {
    let mut out = Vec::new();
    for (layer, (_, dir, mount)) in PIPELINE.iter().enumerate() {
        let src = root.join(dir).join("src");
        let mut files = Vec::new();
        sources(&src, &mut files);
        for file in files {
            let rel = file.strip_prefix(&src).unwrap();
            let first = rel.iter().next().unwrap().to_string_lossy();
            if ["main.rs", "cli"].contains(&first.as_ref())
                || (layer == PIPELINE.len() - 1 && first == "lib.rs")
                || file.to_string_lossy().ends_with("_tests.rs")
            {
                continue;
            }
            let code = code(&std::fs::read_to_string(&file).unwrap());
            let module = module_path(&src, &file, mount);
            out.push(SourceFile {
                layer,
                module,
                code,
            });
        }
    }
    out
}

/// The import graphs of the library: between top-level modules, and between all its modules
/// (every file, keyed by its module path: `mutate::python::wrap`). A module's use of what an
/// ancestor of it defines (a folder's error type in its `mod.rs`) is not counted: a child
/// builds on its parent's shared definitions. Also every import of a module that belongs to a
/// crate above the importing file's own (`upward`: the file and the module it names).
fn graphs(files: &[SourceFile]) -> (Graph, Graph, Vec<(String, String)>) {
    let modules: BTreeMap<&[String], usize> = files
        .iter()
        .map(|f| (f.module.as_slice(), f.layer))
        .collect();
    let (mut top, mut within, mut upward) = (Graph::new(), Graph::new(), Vec::new());
    for file in files {
        let module = &file.module;
        let mount = PIPELINE[file.layer].2;
        for path in resolved_paths(&file.code, module, mount) {
            // The module that defines what the path names: its longest prefix that is a file.
            let Some((target, layer)) = (1..=path.len())
                .rev()
                .find_map(|n| Some((path[..n].to_vec(), *modules.get(&path[..n])?)))
            else {
                continue;
            };
            if layer > file.layer {
                upward.push((module.join("::"), target.join("::")));
            }
            if module.is_empty() || target[0] != module[0] {
                if let Some(from) = module.first() {
                    top.entry(from.clone())
                        .or_default()
                        .insert(target[0].clone());
                }
                continue;
            }
            if !module.starts_with(&target) {
                within
                    .entry(module.join("::"))
                    .or_default()
                    .insert(target.join("::"));
            }
        }
    }
    (top, within, upward)
}

#[test]
fn no_module_imports_one_that_imports_it_back_and_no_crate_imports_one_above_it() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let files = library_files(root);
    assert!(files.len() > 100, "the crates' files are found");
    let (top, within, upward) = graphs(&files);
    assert!(
        top.get("evolve").is_some_and(|d| d.contains("anchor")),
        "the graph is read, across crates: evolve imports anchor ({top:?})"
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
    assert_eq!(upward, vec![], "modules importing a crate above their own");
}

/// The `mcpevol-*` crates a crate's `Cargo.toml` depends on, by their [`PIPELINE`] names.
fn declared_crates(manifest: &str) -> Vec<String> {
    let deps = manifest
        .split("\n[")
        .find(|section| section.starts_with("dependencies]"))
        .unwrap_or("");
    deps.lines()
        .filter_map(|l| l.strip_prefix("mcpevol-")?.split([' ', '.', '=']).next())
        .map(|name| format!("mcpevol_{name}"))
        .collect()
}

#[test]
fn every_crate_depends_only_on_crates_below_it_in_the_pipeline() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let members: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|e| format!("crates/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    let listed: BTreeSet<String> = PIPELINE[..PIPELINE.len() - 1]
        .iter()
        .map(|(_, dir, _)| dir.to_string())
        .collect();
    assert_eq!(members, listed, "PIPELINE lists every crate of crates/");
    for (layer, (name, dir, _)) in PIPELINE.iter().enumerate() {
        let manifest = std::fs::read_to_string(root.join(dir).join("Cargo.toml")).unwrap();
        let below: Vec<&str> = PIPELINE[..layer].iter().map(|(n, _, _)| *n).collect();
        for dep in declared_crates(&manifest) {
            assert!(
                below.contains(&dep.as_str()),
                "{name} depends on {dep}, which is not below it in the pipeline"
            );
        }
    }
    let engine = std::fs::read_to_string(root.join("crates/engine/Cargo.toml")).unwrap();
    assert_eq!(
        declared_crates(&engine),
        ["mcpevol_core", "mcpevol_anchor", "mcpevol_oracle"],
        "the manifests are read"
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
        names(resolved_paths(&code, &module, &[])),
        ["anchor", "evolve::Options", "schema::diff"]
    );
    assert_eq!(
        names(resolved_paths(
            "use super::super::wrap::Around;\nuse super::string;",
            &module,
            &[]
        )),
        ["mutate::wrap::Around", "mutate::python::string"],
        "super:: climbs one module a time"
    );
    assert_eq!(
        names(resolved_paths(
            "use mcpevol_anchor::grammar::Lang;\nuse mcpevol_anchor as anchor;\nuse mcpevol_core::schema;\nfn g() { crate::trees::parse(); }",
            &module,
            &["anchor"]
        )),
        [
            "anchor::grammar::Lang",
            "anchor",
            "schema",
            "anchor::trees::parse"
        ],
        "other crates' paths and `crate::` resolve under their mounts"
    );
    let mut graph = Graph::new();
    graph.entry("a".into()).or_default().insert("b".into());
    graph.entry("b".into()).or_default().insert("c".into());
    assert_eq!(cycles(&graph), vec![]);
    graph.entry("c".into()).or_default().insert("a".into());
    assert_eq!(cycles(&graph).len(), 3, "a, b and c all reach each other");
}

#[test]
fn the_check_finds_an_import_of_a_crate_above_and_a_circle_through_a_folder_module() {
    let file = |layer: usize, module: &str, code: &str| SourceFile {
        layer,
        module: module.split("::").map(String::from).collect(),
        code: code.into(),
    };
    // Today's layout, with one import planted against the grain: the core's schema naming the
    // engine's evolve.
    let files = [
        file(0, "schema", "use crate::inventory::Tool;"),
        file(0, "inventory", ""),
        file(3, "evolve", "use mcpevol_core::schema;"),
    ];
    let (_, _, upward) = graphs(&files);
    assert_eq!(upward, vec![]);
    let planted = [
        file(0, "schema", "use mcpevol_engine::evolve::Round;"),
        file(0, "inventory", ""),
        file(3, "evolve", "use mcpevol_core::schema;"),
    ];
    let (top, _, upward) = graphs(&planted);
    assert_eq!(upward, [("schema".to_string(), "evolve".to_string())]);
    assert_eq!(cycles(&top), [("evolve".to_string(), "schema".to_string())]);
    // The issue-37 circle: a folder's mod.rs importing a file that imports the folder back.
    let circle = [
        file(3, "mutate::wrap", "use super::python::wrap;"),
        file(3, "mutate::python", "use super::wrap::Around;"),
        file(3, "mutate::python::wrap", "use super::super::wrap::Around;"),
    ];
    let (_, within, _) = graphs(&circle);
    assert_eq!(
        cycles(&within),
        [(
            "mutate::python::wrap".to_string(),
            "mutate::wrap".to_string()
        )]
    );
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
    for (_, dir, _) in &PIPELINE[..PIPELINE.len() - 1] {
        sources(&root.join(dir).join("src"), &mut files);
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
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    for (_, dir, _) in &PIPELINE {
        sources(&root.join(dir).join("src"), &mut files);
    }
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
