//! A release that is a shim: its own modules import no MCP SDK and hand over to a package of
//! another distribution (a renamed project's old name, whose one module calls
//! `from new_name.server import main`). The launch runs that package, so its files are taken
//! into the workspace as sources too; the copy shadows the installed one, since the sources
//! come first on `PYTHONPATH`.

use std::fs;
use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;

/// `import mcp`, `from fastmcp import FastMCP`, ...: a module that serves MCP itself.
static SERVES: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*(?:from|import)\s+(?:mcp|fastmcp)\b")
        .expect("the SDK import pattern compiles")
});
/// The top-level package of each `import x` / `from x... import`, indented or not.
static IMPORTS: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?m)^\s*(?:from|import)\s+([A-Za-z_]\w*)").expect("the import pattern compiles")
});

/// The files (relative to `site`) of the packages that `own`, the release's own files,
/// hand over to; empty unless no module of `own` imports an MCP SDK.
pub fn handed_over(site: &Path, own: &[String]) -> Vec<String> {
    let texts: Vec<String> = own
        .iter()
        .filter(|f| f.ends_with(".py"))
        .filter_map(|f| fs::read_to_string(site.join(f)).ok())
        .collect();
    if texts.is_empty() || texts.iter().any(|t| SERVES.is_match(t)) {
        return Vec::new();
    }
    let own_tops: Vec<&str> = own.iter().filter_map(|f| f.split('/').next()).collect();
    let mut tops: Vec<String> = texts
        .iter()
        .flat_map(|t| IMPORTS.captures_iter(t).map(|c| c[1].to_string()))
        .filter(|top| {
            !own_tops.contains(&top.as_str()) && !own_tops.contains(&format!("{top}.py").as_str())
        })
        .collect();
    tops.sort();
    tops.dedup();
    let mut files = Vec::new();
    for top in tops {
        // A package installed beside the release (the standard library is not in site-packages).
        if !site.join(&top).join("__init__.py").is_file() {
            continue;
        }
        let package = package_files(site, &top);
        let serves = package
            .iter()
            .filter(|f| f.ends_with(".py"))
            .any(|f| fs::read_to_string(site.join(f)).is_ok_and(|t| SERVES.is_match(&t)));
        if serves {
            files.extend(package);
        }
    }
    files
}

/// The source files under `site/top`, as a distribution's RECORD would list them (no
/// compiled files).
fn package_files(site: &Path, top: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![site.join(top)];
    while let Some(dir) = stack.pop() {
        for entry in fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            if path.is_dir() {
                if name != "__pycache__" {
                    stack.push(path);
                }
            } else if !name.ends_with(".pyc")
                && let Ok(rel) = path.strip_prefix(site)
            {
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(root: &Path, rel: &str, text: &str) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn a_shim_hands_over_to_the_server_package_it_imports_and_a_server_to_nothing() {
        let site = tempfile::tempdir().unwrap();
        let s = site.path();
        write(
            s,
            "shim.py",
            "import sys\n\ndef main():\n    from realsrv.server import main as real\n    return real()\n",
        );
        write(s, "realsrv/__init__.py", "");
        write(
            s,
            "realsrv/server.py",
            "from mcp.server.fastmcp import FastMCP\nmcp = FastMCP('x')\n",
        );
        write(s, "realsrv/__pycache__/server.cpython-311.pyc", "");
        write(s, "helper/__init__.py", "def f(): pass\n");
        let own = vec!["shim.py".to_string()];
        assert_eq!(
            handed_over(s, &own),
            ["realsrv/__init__.py", "realsrv/server.py"]
        );
        // A module that serves MCP itself hands over nothing, whatever it imports.
        write(
            s,
            "own/__init__.py",
            "from mcp.server import Server\nimport realsrv\n",
        );
        assert!(handed_over(s, &["own/__init__.py".to_string()]).is_empty());
    }
}
