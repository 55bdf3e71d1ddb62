//! Finding the package's own JS/TS source files: what anchoring scans and what it skips.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

use super::grammar::Lang;

/// Folders that never hold the server's own tools: dependencies (installed or vendored into the
/// build, often multi-megabyte bundles that would dominate time and memory), tests and examples
/// (which often define decoy tools the real server does not list).
const SKIPPED_DIRS: &[&str] = &[
    "node_modules",
    "third_party",
    "vendor",
    "vendors",
    "test",
    "tests",
    "__tests__",
    "__mocks__",
    "example",
    "examples",
    // Python: compiled caches and environments.
    "__pycache__",
    "venv",
    "site-packages",
];

/// Larger files are almost certainly data or a vendored bundle of something else; parsing one
/// would dominate memory for no tools.
pub const MAX_SOURCE_BYTES: u64 = 16 * 1024 * 1024;

/// A source file to parse: its path on disk, its path relative to the root (with `/`), and grammar.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: PathBuf,
    pub rel: String,
    pub lang: Lang,
}

/// Lists the package's source files in a stable (sorted) order, with a warning for each one
/// that looks like source but is skipped.
pub fn discover(root: &Path) -> (Vec<SourceFile>, Vec<String>) {
    let mut files = Vec::new();
    let mut warnings = Vec::new();
    let walker = WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !is_skipped(e));
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                warnings.push(format!("cannot read {}: {e}", display_path(root, e.path())));
                continue;
            }
        };
        if !entry.file_type().is_file() {
            continue;
        }
        let Some(lang) = Lang::for_path(entry.path()) else {
            continue;
        };
        if is_test_file(entry.path()) {
            continue;
        }
        let rel = relative(root, entry.path());
        match entry.metadata() {
            Ok(m) if m.len() > MAX_SOURCE_BYTES => {
                warnings.push(format!(
                    "{rel}: skipped, {} bytes is larger than the {MAX_SOURCE_BYTES}-byte limit",
                    m.len()
                ));
                continue;
            }
            _ => {}
        }
        files.push(SourceFile {
            path: entry.into_path(),
            rel,
            lang,
        });
    }
    (files, warnings)
}

fn is_skipped(entry: &walkdir::DirEntry) -> bool {
    let name = entry.file_name().to_string_lossy();
    entry.file_type().is_dir() && (name.starts_with('.') || SKIPPED_DIRS.contains(&name.as_ref()))
}

fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    name.contains(".test.")
        || name.contains(".spec.")
        || (name.ends_with(".py")
            && (name.starts_with("test_") || name.ends_with("_test.py") || name == "conftest.py"))
}

/// The path relative to the root, with `/` separators, as the JSON contract requires.
pub fn relative(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

fn display_path(root: &Path, path: Option<&Path>) -> String {
    path.map(|p| relative(root, p))
        .unwrap_or_else(|| root.display().to_string())
}
