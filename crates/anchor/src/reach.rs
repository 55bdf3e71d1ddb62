//! Which JS/TS files the launched entry reaches through relative imports. A package may ship
//! more than it runs: an old build beside the one it runs (a stale `dist/index.js` next to
//! `dist/main/index.js`), a second server behind another `bin`, its TypeScript sources beside
//! the build, examples. A tool defined only there is not the launched server's.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::{Component, Path, PathBuf};
use std::sync::LazyLock;

use regex::Regex;

/// `from "./x"`, `import "./x"`, `import("./x")`, `require("./x")`: relative specifiers only
/// (a package's own files; bare names are dependencies).
static SPECIFIER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?:\bfrom|\bimport|\brequire)\s*\(?\s*["'](\.{1,2}/[^"'\n]+)["']"#)
        .expect("the import pattern compiles")
});

/// An `import(...)` or `require(...)` of a path computed at run time (a template, or a path
/// joined from `__dirname` or `import.meta`): the files it loads cannot be known statically.
static COMPUTED_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?:\bimport|\brequire)\s*\(\s*(?:`(?:\.{1,2}/|\$\{)|[^)]*(?:__dirname|import\.meta|\bjoin\(|\bresolve\(|\bpathToFileURL\())"#,
    )
    .expect("the computed import pattern compiles")
});

/// `import * as ns from "./x"`, `export * from "./x"` and `import("./x")`: a module taken whole,
/// whose exports may be used without being named.
static WHOLE_IMPORT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?:\b(?:import|export)\s*\*\s*(?:as\s+[\w$]+\s+)?from\s*|\bimport\s*\(\s*)["'](\.{1,2}/[^"'\n]+)["']"#,
    )
    .expect("the whole-import pattern compiles")
});

/// Whether the source `importer` (its `text`) takes the module `target` whole (see
/// [`WHOLE_IMPORT`]); `sources` are the files a specifier may name.
pub fn takes_whole(importer: &str, text: &str, target: &str, sources: &HashSet<String>) -> bool {
    let dir = Path::new(importer).parent().unwrap_or(Path::new(""));
    WHOLE_IMPORT
        .captures_iter(text)
        .any(|c| resolve(dir, &c[1], sources).is_some_and(|f| f == target))
}

/// The extensions of a JavaScript or TypeScript entry.
const SOURCE_EXTENSIONS: &[&str] = &[".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".tsx"];

/// Files tried for a specifier, in order: as written, then with the extensions and index files
/// Node and TypeScript resolve.
const SUFFIXES: &[&str] = &[
    "",
    ".js",
    ".mjs",
    ".cjs",
    ".ts",
    ".mts",
    ".tsx",
    "/index.js",
    "/index.mjs",
    "/index.ts",
];

/// The relative specifiers a JS/TS source imports (read once per file, with its facts).
pub fn specifiers(text: &str) -> Vec<String> {
    SPECIFIER
        .captures_iter(text)
        .map(|c| c[1].to_string())
        .collect()
}

/// Whether a source loads files whose paths it computes (see [`COMPUTED_IMPORT`]).
pub fn computes_imports(text: &str) -> bool {
    COMPUTED_IMPORT.is_match(text)
}

/// What one file tells the reach: its relative specifiers, whether it also loads computed
/// paths, and whether it defines or routes tools.
pub struct Reaching<'a> {
    pub imports: &'a [String],
    pub computes_imports: bool,
    pub defines_tools: bool,
}

/// The files the launch runs, when that is known: those `entry` reaches, provided the entry
/// is JavaScript or TypeScript, none of them loads a computed path, and some of them defines
/// or routes a tool (an entry that only hands over to a dependency, or to a path it computes,
/// says nothing about the rest). `None` means unknown: every file may run.
pub fn launched(entry: &str, files: &HashMap<&str, Reaching>) -> Option<HashSet<String>> {
    if !SOURCE_EXTENSIONS.iter().any(|ext| entry.ends_with(ext)) {
        return None;
    }
    let imports: HashMap<&str, &[String]> = files.iter().map(|(f, r)| (*f, r.imports)).collect();
    let reached = reachable(entry, &imports);
    let facts = |f: &String| files.get(f.as_str());
    let open = reached
        .iter()
        .any(|f| facts(f).is_some_and(|r| r.computes_imports));
    let defines = reached
        .iter()
        .any(|f| facts(f).is_some_and(|r| r.defines_tools));
    (!open && defines).then_some(reached)
}

/// The files (as anchoring names them) reachable from `entry`, given each source's
/// specifiers, the entry included; empty when the entry is not one of the sources.
pub fn reachable(entry: &str, imports: &HashMap<&str, &[String]>) -> HashSet<String> {
    if !imports.contains_key(entry) {
        return HashSet::new();
    }
    let sources: HashSet<String> = imports.keys().map(|k| k.to_string()).collect();
    let mut seen: HashSet<String> = HashSet::new();
    let mut queue = VecDeque::from([entry.to_string()]);
    while let Some(file) = queue.pop_front() {
        if !seen.insert(file.clone()) {
            continue;
        }
        let dir = Path::new(&file).parent().unwrap_or(Path::new(""));
        for spec in imports.get(file.as_str()).copied().unwrap_or_default() {
            if let Some(target) = resolve(dir, spec, &sources) {
                queue.push_back(target);
            }
        }
    }
    seen
}

/// The source a specifier names from `dir`, when it is one of `sources`.
fn resolve(dir: &Path, spec: &str, sources: &HashSet<String>) -> Option<String> {
    let base = normalize(&dir.join(spec));
    // TypeScript imports name the compiled file (`./x.js` for `x.ts`).
    let stem = spec
        .strip_suffix(".js")
        .map(|s| normalize(&dir.join(s)))
        .unwrap_or_else(|| base.clone());
    SUFFIXES
        .iter()
        .map(|s| format!("{base}{s}"))
        .chain([".ts", ".tsx", ".mts"].iter().map(|s| format!("{stem}{s}")))
        .find(|candidate| sources.contains(candidate))
}

/// `a/./b/../c` as `a/c`, with `/` separators.
fn normalize(path: &Path) -> String {
    let mut out = PathBuf::new();
    for part in path.components() {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out.to_string_lossy().replace('\\', "/")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_reaches_what_it_imports_and_not_a_stale_build_beside_it() {
        let files = [
            (
                "dist/main/index.js",
                "import app from './app.js';\nconst r = require(\"../routes\");\n",
            ),
            (
                "dist/main/app.js",
                "export default () => import('./lazy.js');\n",
            ),
            ("dist/main/lazy.js", "import x from 'some-dependency';\n"),
            ("dist/routes/index.js", ""),
            ("dist/index.js", "// an old build\n"),
        ];
        let specs: Vec<(&str, Vec<String>)> =
            files.iter().map(|(f, t)| (*f, specifiers(t))).collect();
        let imports: HashMap<&str, &[String]> =
            specs.iter().map(|(f, s)| (*f, s.as_slice())).collect();
        let reached = reachable("dist/main/index.js", &imports);
        let mut reached: Vec<&str> = reached.iter().map(String::as_str).collect();
        reached.sort();
        assert_eq!(
            reached,
            [
                "dist/main/app.js",
                "dist/main/index.js",
                "dist/main/lazy.js",
                "dist/routes/index.js"
            ]
        );
        // A bundle reaches itself only.
        assert_eq!(reachable("dist/index.js", &imports).len(), 1);
        assert!(reachable("dist/gone.js", &imports).is_empty());
    }

    fn reaching<'a>(imports: &'a [String], text: &str, defines_tools: bool) -> Reaching<'a> {
        Reaching {
            imports,
            computes_imports: computes_imports(text),
            defines_tools,
        }
    }

    #[test]
    fn the_launch_is_known_only_where_the_entry_reaches_a_tool_and_loads_no_computed_path() {
        let none: Vec<String> = Vec::new();
        let server = vec!["./server.js".to_string()];
        let shim = "import(\"./server.js\");";
        // A bundle that registers its own tools: it alone runs.
        let files = HashMap::from([
            ("dist/a.js", reaching(&none, "", true)),
            ("dist/b.js", reaching(&none, "", true)),
        ]);
        let launched_a = launched("dist/a.js", &files).expect("known");
        assert_eq!(launched_a, HashSet::from(["dist/a.js".to_string()]));
        // A shim that reaches no tool says nothing.
        let files = HashMap::from([
            ("bin/cli.js", reaching(&none, "require('some-dep')", false)),
            ("dist/a.js", reaching(&none, "", true)),
        ]);
        assert_eq!(launched("bin/cli.js", &files), None);
        // A computed path may load anything.
        for computed in [
            "await import(`./tools/${name}.js`)",
            "require(path.join(__dirname, 'tools', f))",
            "await import(new URL('./x.js', import.meta.url))",
        ] {
            let files = HashMap::from([
                ("dist/index.js", reaching(&server, computed, false)),
                ("dist/server.js", reaching(&none, "", true)),
            ]);
            assert_eq!(launched("dist/index.js", &files), None, "{computed}");
        }
        let files = HashMap::from([
            ("dist/index.js", reaching(&server, shim, false)),
            ("dist/server.js", reaching(&none, "", true)),
        ]);
        assert_eq!(launched("dist/index.js", &files).map(|r| r.len()), Some(2));
        // Python entries are followed elsewhere.
        assert_eq!(launched("pkg/server.py", &files), None);
    }

    #[test]
    fn a_typescript_import_of_a_js_name_reaches_the_ts_source() {
        let sources: HashSet<String> = ["src/tools.ts".to_string()].into_iter().collect();
        assert_eq!(
            resolve(Path::new("src"), "./tools.js", &sources).as_deref(),
            Some("src/tools.ts")
        );
    }
}
