//! Shared helpers for the integration tests: where the fixtures and real servers are.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub mod chat;
pub mod drift;
pub mod given;
pub mod mutants;
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

/// A package in a fresh folder, made of `(path, text)` files.
pub fn package_of(files: &[(impl AsRef<str>, impl AsRef<str>)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (path, text) in files {
        let path = dir.path().join(path.as_ref());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text.as_ref()).unwrap();
    }
    dir
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

/// A digest of everything under `dir` (paths, kinds, file bytes, link targets), links not
/// followed: equal digests mean the folder is byte-for-byte unchanged.
pub fn tree_digest(dir: &Path) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    let walk = walkdir::WalkDir::new(dir)
        .follow_links(false)
        .sort_by_file_name();
    for entry in walk {
        let entry = entry.expect("the folder can be walked");
        entry.path().hash(&mut hasher);
        let kind = entry.file_type();
        if kind.is_symlink() {
            std::fs::read_link(entry.path()).unwrap().hash(&mut hasher);
        } else if kind.is_file() {
            std::fs::read(entry.path()).unwrap().hash(&mut hasher);
        } else {
            "dir".hash(&mut hasher);
        }
    }
    hasher.finish()
}

/// Live processes (not zombies) whose environment holds `var=marker`: a server and everything
/// it started, whatever their process group.
pub fn marked_processes(var: &str, marker: &str) -> Vec<String> {
    let needle = format!("{var}={marker}");
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let pid = entry.file_name().to_string_lossy().into_owned();
        if !pid.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let zombie =
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|s| s.contains(") Z "));
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        if !zombie && environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// `git ARGS` in `dir`, which must succeed.
pub fn git(dir: &Path, args: &[&str]) -> std::process::Output {
    let out = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "git {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs the mcpevol binary.
pub fn mcpevol(args: &[&str]) -> std::process::Output {
    std::process::Command::new(bin())
        .args(args)
        .output()
        .unwrap()
}

/// `output`, after checking that it succeeded (its stdout and stderr shown if not).
pub fn ok(output: std::process::Output) -> std::process::Output {
    assert!(
        output.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// A batch of the named fixture servers evolved into `tmp/batch` (manifest `tmp/m.toml`),
/// `mcpevol batch` given `args` besides the manifest and `--out`.
pub fn fixture_batch(tmp: &Path, servers: &[&str], args: &[&str]) -> PathBuf {
    let fixtures = repo().join("fixtures");
    require_npm_install(&fixtures);
    let manifest = tmp.join("m.toml");
    let text: String = servers
        .iter()
        .map(|f| {
            format!(
                "[[server]]\nid = \"{f}\"\nsource = \"{}/{f}\"\n\n",
                fixtures.display()
            )
        })
        .collect();
    std::fs::write(&manifest, text).unwrap();
    let out = tmp.join("batch");
    let mut all = vec![
        "batch",
        manifest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    all.extend_from_slice(args);
    ok(mcpevol(&all));
    out
}

/// The hand-written Python fixture servers (`fixtures/python/*`), whose `.venv` links to the
/// environment scripts/install-servers.sh makes.
pub fn python_fixtures() -> Vec<PathBuf> {
    let dir = repo().join("fixtures").join("python");
    assert!(
        dir.join(".venv/bin/python").exists(),
        "the Python fixtures' environment is missing: run scripts/install-servers.sh"
    );
    let mut out: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("fixtures/python/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.join(".mcpevol/server.toml").is_file())
        .collect();
    out.sort();
    assert!(
        out.len() >= 5,
        "expected the Python fixtures under {}",
        dir.display()
    );
    out
}

/// A workspace at `work` made from `fixtures/oracle/NAME` (servers built for one oracle test).
pub fn oracle_fixture(rt: &tokio::runtime::Runtime, name: &str, work: &Path) -> PathBuf {
    require_npm_install(&repo().join("fixtures"));
    let fixture = repo().join("fixtures/oracle").join(name);
    let opts = mcpevol::init::InitOptions::new(None);
    rt.block_on(mcpevol::init::init(&fixture.to_string_lossy(), work, &opts))
        .unwrap();
    work.to_path_buf()
}

/// Whether the long sweeps run whole: every operator on every style, every real server for five
/// rounds. `MCPEVOL_TEST_SWEEP=1` (`scripts/test.sh --sweep`) asks for it, before an issue is
/// closed; otherwise each sweep runs a sample that still spawns real servers of several kinds,
/// so that the suite CI runs stays within its time.
pub fn whole_sweep() -> bool {
    std::env::var_os("MCPEVOL_TEST_SWEEP").is_some()
}

/// The items a sweep covers: all of them in a whole sweep, every `step`-th from the first
/// otherwise.
pub fn sample<T>(items: Vec<T>, step: usize) -> Vec<T> {
    if whole_sweep() {
        items
    } else {
        items.into_iter().step_by(step).collect()
    }
}

/// Rounds a sweep evolves each server: five in a whole sweep, three in the sample.
pub fn sweep_rounds() -> u32 {
    if whole_sweep() { 5 } else { 3 }
}

/// The anchored tool `name` of `inventory`; a test that needs it fails naming those anchored.
pub fn anchored_tool<'i>(
    inventory: &'i mcpevol::inventory::Inventory,
    name: &str,
) -> &'i mcpevol::inventory::Tool {
    (inventory.tools.iter())
        .find(|t| t.name == name)
        .unwrap_or_else(|| panic!("`{name}` not anchored: {:?}", tool_names(inventory)))
}

/// The names of the anchored tools, in the inventory's order.
pub fn tool_names(inventory: &mcpevol::inventory::Inventory) -> Vec<&str> {
    inventory.tools.iter().map(|t| t.name.as_str()).collect()
}
