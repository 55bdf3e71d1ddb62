use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use super::*;

/// A scratch folder laid out as the sandbox lays it out: `work/` (the copy), `home/`, `tmp/`.
struct Scratch {
    dir: tempfile::TempDir,
    writable: Vec<PathBuf>,
}

impl Scratch {
    fn new() -> Scratch {
        let dir = tempfile::tempdir().unwrap();
        let writable: Vec<PathBuf> = ["work", "home", "tmp"]
            .iter()
            .map(|d| dir.path().join(d))
            .collect();
        for d in &writable {
            std::fs::create_dir_all(d).unwrap();
        }
        Scratch { dir, writable }
    }

    fn cwd(&self) -> PathBuf {
        self.dir.path().join("work")
    }

    fn grants(&self, program: &str, settings: Vec<String>) -> Vec<Grant> {
        grants(&Layout {
            scratch: self.dir.path(),
            writable: &self.writable,
            cwd: &self.cwd(),
            program,
            settings,
            path: std::env::var_os("PATH"),
        })
    }
}

fn access_of(grants: &[Grant], path: &Path) -> Option<Access> {
    let path = path.canonicalize().ok()?;
    grants.iter().find(|g| g.path == path).map(|g| g.access)
}

/// Whether anything granted lies at or above `path` (so that it could be opened).
fn reachable(grants: &[Grant], path: &Path) -> bool {
    grants.iter().any(|g| path.starts_with(&g.path))
}

#[test]
fn a_node_server_may_run_the_system_programs_write_its_scratch_folders_and_nothing_of_the_home() {
    let scratch = Scratch::new();
    let grants = scratch.grants("node", vec![]);
    assert_eq!(
        access_of(&grants, Path::new("/usr")),
        Some(Access::ReadExec)
    );
    for dir in &scratch.writable {
        assert_eq!(
            access_of(&grants, dir),
            Some(Access::Full),
            "{}",
            dir.display()
        );
    }
    assert_eq!(
        access_of(&grants, scratch.dir.path()),
        Some(Access::ReadExec)
    );
    for secret in ["/etc/shadow", "/etc/ssh", "/root", "/home", "/tmp", "/"] {
        assert!(
            !reachable(&grants, Path::new(secret)),
            "{secret} is granted: {grants:?}"
        );
    }
    if let Some(home) = std::env::var_os("HOME") {
        assert!(!reachable(
            &grants,
            &PathBuf::from(home).join(".ssh/id_rsa")
        ));
    }
    assert_eq!(
        access_of(&grants, Path::new("/etc/passwd")),
        Some(Access::Read)
    );
}

#[test]
fn a_python_environment_grants_itself_and_its_base_interpreter_from_pyvenv_cfg() {
    let scratch = Scratch::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let base = elsewhere.path().join("pythons/3.11/bin");
    std::fs::create_dir_all(&base).unwrap();
    std::fs::write(base.join("python3.11"), "").unwrap();
    let env = elsewhere.path().join("envs/one");
    std::fs::create_dir_all(env.join("bin")).unwrap();
    symlink(base.join("python3.11"), env.join("bin/python")).unwrap();
    std::fs::write(
        env.join("pyvenv.cfg"),
        format!("home = {}\nversion = 3.11\n", base.display()),
    )
    .unwrap();
    symlink(&env, scratch.cwd().join(".venv")).unwrap();
    let grants = scratch.grants(".venv/bin/python", vec![]);
    assert_eq!(access_of(&grants, &env), Some(Access::ReadExec));
    let prefix = elsewhere.path().join("pythons/3.11");
    assert_eq!(access_of(&grants, &prefix), Some(Access::ReadExec));
    assert!(!reachable(&grants, &elsewhere.path().join("envs/two")));
}

#[test]
fn an_install_whose_entries_link_into_a_shared_one_grants_the_shared_one_too() {
    let scratch = Scratch::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let shared = elsewhere.path().join("shared/node_modules");
    std::fs::create_dir_all(shared.join("@scope/sdk")).unwrap();
    let own = elsewhere.path().join("workspace/node_modules");
    std::fs::create_dir_all(own.join("@scope")).unwrap();
    symlink(shared.join("@scope/sdk"), own.join("@scope/sdk")).unwrap();
    std::fs::write(elsewhere.path().join("workspace/secret.txt"), "x").unwrap();
    symlink(&own, scratch.cwd().join("node_modules")).unwrap();
    let grants = scratch.grants("node", vec![]);
    assert_eq!(access_of(&grants, &own), Some(Access::ReadExec));
    assert_eq!(access_of(&grants, &shared), Some(Access::ReadExec));
    assert!(
        !reachable(&grants, &elsewhere.path().join("workspace/secret.txt")),
        "only the install of the workspace, not the workspace"
    );
}

#[test]
fn a_path_in_the_launch_settings_is_read_only_and_never_the_home_or_the_root() {
    let scratch = Scratch::new();
    let data = tempfile::tempdir().unwrap();
    let file = data.path().join("db.sqlite");
    std::fs::write(&file, "").unwrap();
    let mut settings = vec![file.display().to_string(), "/".into(), "/tmp".into()];
    settings.extend(std::env::var("HOME").ok());
    let grants = scratch.grants("node", settings);
    assert_eq!(access_of(&grants, &file), Some(Access::Read));
    assert!(!reachable(&grants, Path::new("/tmp/other")));
    assert!(!grants.iter().any(|g| g.path == Path::new("/")));
}
