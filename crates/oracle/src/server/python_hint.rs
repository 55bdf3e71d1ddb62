//! Which dependency broke a Python server's start, read off its traceback: an `ImportError`,
//! `ModuleNotFoundError` or `AttributeError` naming a module, or raised from a frame inside
//! the environment's `site-packages`. A release whose dependencies were resolved later than it
//! was made (a major version of the MCP SDK it did not cap) fails this way.

use std::path::Path;

/// A sentence naming the dependency, with its installed version where the environment says,
/// or None when the traceback names none, or names a module of the package itself (found in
/// `package`, the folder it runs from: a launch that names a wrong module, not a dependency).
pub fn broken_dependency(stderr: &str, package: &Path) -> Option<String> {
    let last = stderr.lines().rev().find(|l| {
        ["ModuleNotFoundError:", "ImportError:", "AttributeError:"]
            .iter()
            .any(|k| l.starts_with(k))
    })?;
    let quoted: Vec<&str> = last.split('\'').skip(1).step_by(2).collect();
    let module = if last.starts_with("ModuleNotFoundError:") {
        quoted.first().copied()
    } else if last.starts_with("ImportError:") {
        // "cannot import name 'X' from 'pkg.mod' (/path)"
        quoted.get(1).copied()
    } else {
        // "module 'pkg.mod' has no attribute 'x'"
        last.contains("module '")
            .then(|| quoted.first().copied())
            .flatten()
    };
    // Else the deepest frame inside site-packages.
    let frame = stderr.lines().rev().find_map(|l| {
        let path = l.trim().strip_prefix("File \"")?.split('"').next()?;
        let (site, rest) = path.split_once("/site-packages/")?;
        Some((
            format!("{site}/site-packages"),
            rest.split('/').next()?.trim_end_matches(".py").to_string(),
        ))
    });
    let top = match (module, &frame) {
        (Some(m), _) => m.split('.').next()?.to_string(),
        (None, Some((_, top))) => top.clone(),
        (None, None) => return None,
    };
    if package.join(&top).exists() || package.join(format!("{top}.py")).exists() {
        return None;
    }
    let version = frame
        .as_ref()
        .and_then(|(site, _)| installed_version(Path::new(site), &top))
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    Some(format!(
        "the dependency `{top}`{version} broke the start ({}); install the release with the dependencies of its day, or pin `{top}` lower",
        last.trim()
    ))
}

/// The version of the distribution that provides module `top`, from its `.dist-info` folder.
fn installed_version(site: &Path, top: &str) -> Option<String> {
    let wanted = top.replace('_', "-").to_ascii_lowercase();
    std::fs::read_dir(site)
        .ok()?
        .filter_map(Result::ok)
        .find_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let stem = name.strip_suffix(".dist-info")?;
            let (dist, version) = stem.rsplit_once('-')?;
            (dist.replace('_', "-").to_ascii_lowercase() == wanted).then(|| version.to_string())
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_import_error_names_the_module_it_could_not_import_from() {
        let tmp = tempfile::tempdir().unwrap();
        let site = tmp.path().join("site-packages");
        std::fs::create_dir_all(site.join("mcp-2.1.0.dist-info")).unwrap();
        let sp = site.display();
        let stderr = format!(
            "Traceback (most recent call last):\n  File \"/w/srv/server.py\", line 3, in <module>\n    from mcp.server import Server\n  File \"{sp}/mcp/server/__init__.py\", line 1, in <module>\nImportError: cannot import name 'Server' from 'mcp.server' ({sp}/mcp/server/__init__.py)"
        );
        let hint = broken_dependency(&stderr, site.as_path()).unwrap();
        assert!(
            hint.starts_with("the dependency `mcp` 2.1.0 broke the start (ImportError"),
            "{hint}"
        );
    }

    #[test]
    fn a_missing_module_and_a_missing_attribute_are_named_too() {
        let package = tempfile::tempdir().unwrap();
        let p = package.path();
        let missing = "ModuleNotFoundError: No module named 'pydantic_settings'";
        let hint = broken_dependency(missing, p).unwrap();
        assert!(hint.contains("`pydantic_settings`"), "{hint}");
        let attribute = "AttributeError: module 'anyio' has no attribute 'open_process'";
        let hint = broken_dependency(attribute, p).unwrap();
        assert!(hint.contains("`anyio`"), "{hint}");
        assert_eq!(broken_dependency("ValueError: bad port", p), None);
        let not_a_module = "AttributeError: 'NoneType' object has no attribute 'x'";
        assert_eq!(broken_dependency(not_a_module, p), None);
        // A module of the package itself is a wrong launch, not a dependency.
        std::fs::create_dir(p.join("awslabs")).unwrap();
        let own = "ModuleNotFoundError: No module named 'awslabs.memcached_mcp_server.server'";
        assert_eq!(broken_dependency(own, p), None);
    }
}
