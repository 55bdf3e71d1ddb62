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
