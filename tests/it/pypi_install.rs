//! Without uv, pip installs a PyPI release, still with the dependencies of the release's day
//! (pip's `--uploaded-prior-to`, after upgrading the venv's pip when it is older than that).
//! Needs the package index, as `scripts/install-servers.sh` does.

use std::path::Path;
use std::process::Command;

/// The dist-info folders of `name` in a venv's site-packages (`mcp-1.15.0.dist-info`).
fn dist_infos(venv: &Path, name: &str) -> Vec<String> {
    let lib = venv.join("lib");
    let mut found = Vec::new();
    for python in std::fs::read_dir(&lib).unwrap().flatten() {
        let site = python.path().join("site-packages");
        for entry in std::fs::read_dir(&site).into_iter().flatten().flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            if file.starts_with(&format!("{name}-")) && file.ends_with(".dist-info") {
                found.push(file);
            }
        }
    }
    found
}

/// The major version in a dist-info folder's name.
fn major(dist_info: &str, name: &str) -> u32 {
    let version = &dist_info[name.len() + 1..];
    version.split('.').next().unwrap().parse().unwrap()
}

#[test]
fn without_uv_pip_installs_a_release_with_the_dependencies_of_its_day() {
    let cache = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let workdir = work.path().join("time");
    // mcp-server-time 2025.9.25 asks for `mcp>=1.0.0`; today that is the SDK 2, which it cannot
    // import (`McpError` moved), so only a resolution as of its upload date starts.
    let out = Command::new(env!("CARGO_BIN_EXE_mcpevol"))
        .args(["init", "pypi:mcp-server-time==2025.9.25"])
        .arg(&workdir)
        .env("MCPEVOL_INSTALLER", "pip")
        .env("MCPEVOL_CACHE", cache.path())
        .env("RUST_LOG", "warn")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "init with pip failed (this test needs the package index):\n{stderr}"
    );
    let venv = cache.path().join("pypi/mcp-server-time-2025.9.25/venv");
    let config = std::fs::read_to_string(venv.join("pyvenv.cfg")).unwrap();
    assert!(
        config.contains("-m venv") && !config.contains("uv ="),
        "the venv was not made by python -m venv:\n{config}"
    );
    let pips = dist_infos(&venv, "pip");
    assert!(
        pips.iter().any(|p| major(p, "pip") >= 26),
        "pip was not upgraded to one that resolves by date: {pips:?}"
    );
    let sdk = dist_infos(&venv, "mcp");
    assert_eq!(sdk.len(), 1, "{sdk:?}");
    assert!(
        sdk[0].starts_with("mcp-1."),
        "the SDK is not the one of the release's day: {sdk:?}"
    );
    let tools = std::fs::read_to_string(workdir.join(".mcpevol/tools.json")).unwrap();
    let tools: serde_json::Value = serde_json::from_str(&tools).unwrap();
    assert!(
        !tools["tools"].as_array().unwrap().is_empty(),
        "the server started but listed no tools"
    );
}

/// A package whose dependency came out after the day it is resolved at: the installer's error
/// names the dependency, whose cut-off moves a step at a time until it resolves, and the
/// install records what was relaxed and what it resolved to.
#[test]
fn a_dependency_newer_than_the_cutoff_is_relaxed_step_by_step_and_recorded() {
    let cache = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let write = |rel: &str, text: &str| {
        let path = folder.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write(
        "pyproject.toml",
        "[project]\nname = \"relaxdemo\"\nversion = \"0.1.0\"\ndependencies = [\"certifi>=2025.1.31\"]\n\n[build-system]\nrequires = [\"setuptools>=61\"]\nbuild-backend = \"setuptools.build_meta\"\n",
    );
    write("relaxdemo/__init__.py", "import certifi\n");
    // certifi 2025.1.31 came out two months after this day.
    let installed = mcpevol::workspace::pypi::install_folder_as_of(
        folder.path(),
        cache.path(),
        Some("2024-12-01T00:00:00Z"),
    )
    .unwrap_or_else(|e| panic!("the install failed (this test needs the package index): {e}"));
    let r = &installed.resolution;
    assert_eq!(r.cutoff.as_deref(), Some("2024-12-01T00:00:00Z"));
    let relaxed: Vec<(&str, Option<&str>)> = r
        .relaxed
        .iter()
        .map(|x| (x.package.as_str(), x.cutoff.as_deref()))
        .collect();
    // A month later is not enough (certifi 2024.12.14 is the latest then); six months is.
    assert_eq!(relaxed, [("certifi", Some("2025-05-30T00:00:00Z"))]);
    assert!(
        r.frozen.iter().any(|l| l.starts_with("certifi==2025.")),
        "{:?}",
        r.frozen
    );
    // The record is what a later read of the install finds.
    let again = mcpevol::workspace::pypi::read_resolution(installed.venv.parent().unwrap());
    assert_eq!(again.as_ref(), Some(r));
    assert!(r.summary().unwrap().contains("certifi as of 2025-05-30"));
}

/// A catalog whose first release does not exist still installs the next, then fails naming
/// the one it could not install.
#[test]
fn one_failed_install_in_a_catalog_does_not_stop_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("servers.toml");
    let entries = "[[server]]\nid = \"gone\"\npackage = \"pypi:mcp-server-time==1999.1.1\"\n\n[[server]]\nid = \"time\"\npackage = \"pypi:mcp-server-time==2025.9.25\"\n";
    std::fs::write(&catalog, entries).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mcpevol"))
        .args(["install", catalog.to_str().unwrap()])
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(!out.status.success(), "{stdout}");
    assert!(
        stderr.contains("pypi:mcp-server-time==1999.1.1: not installed")
            && stderr.contains("1 of 2 failed"),
        "{stderr}"
    );
    assert!(
        stdout.contains("pypi:mcp-server-time==2025.9.25: installed"),
        "(this test needs the package index)\n{stdout}\n{stderr}"
    );
    assert!(
        dir.path()
            .join("installed/pypi/mcp-server-time-2025.9.25/launch.toml")
            .is_file()
    );
}
