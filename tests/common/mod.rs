//! Shared helpers for the integration tests: where the fixtures and real servers are.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod chat;
pub mod rounds;
pub mod stub;

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every fixture server package: the folders of `fixtures/` except the bad servers and sources.
pub fn fixtures() -> Vec<PathBuf> {
    let dir = repo().join("fixtures");
    require_npm_install(&dir);
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("package.json").is_file())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            !name.starts_with(['.', '_']) && name != "bad" && name != "node_modules"
        })
        .collect();
    out.sort();
    assert!(
        out.len() >= 12,
        "expected the fixture servers under {}",
        dir.display()
    );
    out
}

/// Fixture paths as the tests give them to `anchor`, relative to the repository root, so that
/// the `root` field of snapshots is the same on every machine.
pub fn relative_to_repo(path: &Path) -> PathBuf {
    path.strip_prefix(repo()).unwrap_or(path).to_path_buf()
}

pub fn require_npm_install(dir: &Path) {
    assert!(
        dir.join("node_modules").is_dir(),
        "{}/node_modules is missing: run `npm ci --ignore-scripts` there (the README's test command does)",
        dir.display()
    );
}

pub fn bin() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_mcpevol"))
}

pub fn name_of(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}
