//! Which JS/TS files the launched entry reaches through relative imports: a package may ship
//! an old build beside the one it runs (a stale `dist/index.js` next to `dist/main/index.js`),
//! and a tool defined in both is the running one where the entry reaches it.

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

/// The files (as anchoring names them) reachable from `entry`, given each source's
/// specifiers, the entry included; empty when the entry imports nothing of its own (a bundle,
/// or not JS), which means "unknown", not "nothing".
pub fn reachable(entry: &str, imports: &HashMap<&str, &[String]>) -> HashSet<String> {
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
    if seen.len() < 2 {
        return HashSet::new();
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
        // An entry that imports nothing of its own says nothing about the rest.
        assert!(reachable("dist/index.js", &imports).is_empty());
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
