//! Hostile servers (fixtures/hostile: one in JavaScript, one in Python) through the CLI, as a
//! user runs them: `init`, then a round with the model backend against the stub endpoint. At
//! start each tries to read the user's SSH key, another workspace, the mcpevol checkout,
//! `/etc/shadow`, `/proc/1/environ` and the environment of every process above it; leaves a
//! detached process behind; and echoes the token its launch settings gave it. Every attempt
//! fails, and no secret reaches the workspace, its history, mcpevol's output or the model's
//! requests. With the guards left off (`MCPEVOL_SANDBOX_WITHOUT`) the same runs leak, so each
//! check here can fail.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::stub::{Scripted, StubServer};
use serde_json::Value;

/// A credential-looking token the launch settings give the server, which it echoes.
const TOKEN: &str = "ghp_hostileTestToken0123456789abcdefABCD";

/// The secrets planted for one run, each a string found nowhere else.
struct Planted {
    dir: tempfile::TempDir,
    home_key: String,
    workspace_secret: String,
    env_secret: String,
    tag: String,
}

impl Planted {
    fn new(lang: &str) -> Planted {
        let dir = tempfile::tempdir().unwrap();
        // Unique per test, not only per process: the guarded and the unguarded test of one
        // language run at once, and each counts (and kills) the processes with its own tag.
        let unique = dir.path().file_name().unwrap().to_string_lossy();
        let id = format!("{lang}-{}-{unique}", std::process::id());
        let planted = Planted {
            home_key: format!("HOSTILE-TEST-SSH-KEY-{id}"),
            workspace_secret: format!("HOSTILE-TEST-OTHER-WORKSPACE-{id}"),
            env_secret: format!("HOSTILE-TEST-ENV-{id}"),
            tag: format!("hostile-detached-{id}"),
            dir,
        };
        let ssh = planted.home().join(".ssh");
        std::fs::create_dir_all(&ssh).unwrap();
        std::fs::write(ssh.join("id_rsa"), &planted.home_key).unwrap();
        let other = planted.dir.path().join("other-workspace/.mcpevol");
        std::fs::create_dir_all(&other).unwrap();
        std::fs::write(other.join("round.json"), &planted.workspace_secret).unwrap();
        planted
    }

    fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }

    /// The paths the hostile package knows: the user's key, the other workspace's record, the
    /// mcpevol checkout.
    fn targets(&self) -> Vec<PathBuf> {
        vec![
            self.home().join(".ssh/id_rsa"),
            self.dir.path().join("other-workspace/.mcpevol/round.json"),
            common::repo().join("Cargo.toml"),
        ]
    }

    /// A copy of the fixture with `targets.json`, laid out so that `init` resolves its
    /// dependencies as it would for the fixture itself.
    fn package(&self, lang: &str) -> PathBuf {
        let fixtures = common::repo().join("fixtures");
        let plan = serde_json::json!({ "targets": self.targets(), "tag": self.tag });
        let package = match lang {
            "js" => {
                let above = self.dir.path().join("packages");
                std::fs::create_dir_all(&above).unwrap();
                std::os::unix::fs::symlink(
                    fixtures.join("node_modules"),
                    above.join("node_modules"),
                )
                .unwrap();
                let package = above.join("snoop");
                copy_files(&fixtures.join("hostile/snoop-js"), &package);
                package
            }
            _ => {
                let package = self.dir.path().join("snoop-py");
                copy_files(&fixtures.join("hostile/snoop-py"), &package);
                std::os::unix::fs::symlink(fixtures.join("python/.venv"), package.join(".venv"))
                    .unwrap();
                package
            }
        };
        std::fs::write(package.join("targets.json"), plan.to_string()).unwrap();
        package
    }

    /// mcpevol with this run's HOME and a secret in its own environment.
    fn mcpevol(&self, without: &str) -> Command {
        let mut cmd = Command::new(common::bin());
        cmd.env("HOME", self.home())
            .env("OPENAI_API_KEY", &self.env_secret)
            .env(mcpevol::server::sandbox::WITHOUT_VAR, without);
        cmd
    }
}

/// The package's files (its `.venv` link left for the caller to make).
fn copy_files(from: &Path, to: &Path) {
    for entry in walkdir::WalkDir::new(from).into_iter().flatten() {
        let relative = entry.path().strip_prefix(from).unwrap();
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target).unwrap();
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// What one run left where a secret could land.
struct Seen {
    /// The server's own report, as its tool description was recorded at `v0`.
    report: Value,
    /// The round record of `v0`.
    round: Value,
    /// Everything: outputs, the workspace's files and history, the model's requests.
    everything: String,
    /// What carries what the server said: outputs, the records, the model's requests (not the
    /// launch settings, where the user put the token for the server).
    said: String,
    /// The processes carrying the tag after mcpevol ended, killed once counted.
    survivors: usize,
}

fn run(lang: &str, planted: &Planted, without: &str) -> Seen {
    let package = planted.package(lang);
    let work = planted.dir.path().join("work");
    let init = planted
        .mcpevol(without)
        .args(["init", package.to_str().unwrap(), work.to_str().unwrap()])
        .args(["--env", &format!("NAMED_TOKEN={TOKEN}")])
        .output()
        .unwrap();
    assert!(init.status.success(), "init: {}", text(&init));
    // The model answers nothing useful: the round fails, after its first request was sent.
    let stub = StubServer::start(vec![Scripted::forever(Scripted::status(400))]);
    let evolve = planted
        .mcpevol(without)
        .args([
            "evolve",
            work.to_str().unwrap(),
            "--rounds",
            "1",
            "--backend",
            "openai",
        ])
        .env("OPENAI_BASE_URL", &stub.base_url)
        .output()
        .unwrap();
    let requests: Vec<String> = stub.requests().into_iter().map(|r| r.body).collect();
    assert!(
        !requests.is_empty(),
        "the model was asked: {}",
        text(&evolve)
    );
    let mut said = text(&init) + &text(&evolve) + &requests.join("\n");
    for record in [
        ".mcpevol/tools.json",
        ".mcpevol/round.json",
        ".mcpevol/exchanges.jsonl",
    ] {
        said += &std::fs::read_to_string(work.join(record)).unwrap_or_default();
    }
    let mut everything = said.clone();
    let history = common::git(&work, &["log", "-p", "--all"]);
    everything += &String::from_utf8_lossy(&history.stdout);
    for entry in walkdir::WalkDir::new(&work)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules" && e.file_name() != ".venv")
        .flatten()
    {
        if entry.file_type().is_file() {
            everything += &String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap());
        }
    }
    let read = |path: &str| -> Value {
        serde_json::from_str(&std::fs::read_to_string(work.join(path)).unwrap()).unwrap()
    };
    let tools = read(".mcpevol/tools.json");
    let description = tools["tools"][0]["description"].as_str().unwrap();
    let report: Value = serde_json::from_str(description).unwrap();
    let survivors = tagged_processes(&planted.tag);
    for pid in &survivors {
        let _ = Command::new("kill").args(["-9", pid]).status();
    }
    Seen {
        report,
        round: read(".mcpevol/round.json"),
        everything,
        said,
        survivors: survivors.len(),
    }
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

/// Live processes whose command line holds `tag` (a moment given for a dying one to go).
fn tagged_processes(tag: &str) -> Vec<String> {
    let find = || -> Vec<String> {
        std::fs::read_dir("/proc")
            .unwrap()
            .flatten()
            .filter_map(|e| {
                let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
                let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
                (String::from_utf8_lossy(&cmdline).contains(tag) && !stat.contains(") Z "))
                    .then(|| e.file_name().to_string_lossy().into_owned())
            })
            .collect()
    };
    for _ in 0..20 {
        if find().is_empty() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    find()
}

/// The first line of /etc/shadow as this test reads it (root here), if it can.
fn shadow_line() -> Option<String> {
    let text = std::fs::read_to_string("/etc/shadow").ok()?;
    text.lines().next().map(str::to_string)
}

fn assert_contained(lang: &str) {
    let planted = Planted::new(lang);
    let seen = run(lang, &planted, "");
    let reads = &seen.report["reads"];
    for target in planted
        .targets()
        .iter()
        .map(|p| p.display().to_string())
        .chain(["/etc/shadow".into(), "/proc/1/environ".into()])
    {
        let answer = reads[&target].as_str().unwrap_or_default();
        assert!(
            answer.contains("EACCES") || answer.contains("PermissionError"),
            "{lang}: reading {target} gave {answer:?}"
        );
    }
    for (pid, environ) in seen.report["ancestors"].as_object().unwrap() {
        let environ = environ.as_str().unwrap();
        assert!(
            !environ.contains('='),
            "{lang}: the environment of ancestor {pid} was read: {environ}"
        );
    }
    if lang == "py" {
        assert_eq!(seen.report["keyctl"], "Operation not permitted", "{lang}");
    }
    let mut secrets = vec![
        planted.home_key.clone(),
        planted.workspace_secret.clone(),
        planted.env_secret.clone(),
        "rust-version".to_string(), // from the checkout's Cargo.toml
    ];
    secrets.extend(shadow_line());
    for secret in &secrets {
        assert!(
            !seen.everything.contains(secret.as_str()),
            "{lang}: {secret} leaked"
        );
    }
    assert!(
        !seen.said.contains(TOKEN),
        "{lang}: the echoed token reached a record or a prompt"
    );
    assert!(
        seen.said.contains("[redacted:github-token]"),
        "{lang}: the echoed token was replaced where it went"
    );
    let redacted = seen.round["redacted"]
        .as_array()
        .expect("v0 says what it redacted");
    assert!(
        redacted
            .iter()
            .any(|r| r["kind"] == "github-token" && r["place"] == "records"),
        "{lang}: {redacted:?}"
    );
    assert_eq!(
        seen.survivors, 0,
        "{lang}: the detached process outlived its server"
    );
}

/// With Landlock, the PID namespace and seccomp left off, the same server reads the key and the
/// other workspace, calls the keyring, and its detached process lives on: what the checks above
/// would see if a guard failed. (mcpevol's own environment stays out of reach here even so: run
/// as root, it holds capabilities the server lacks, which the kernel's ptrace check requires;
/// run as an ordinary user, only Landlock's scope and the PID namespace keep it.)
fn assert_leaks_without_the_guards(lang: &str) {
    let planted = Planted::new(lang);
    let seen = run(lang, &planted, "landlock,pid,seccomp");
    for secret in [&planted.home_key, &planted.workspace_secret] {
        assert!(
            seen.everything.contains(secret.as_str()),
            "{lang}: {secret} did not leak"
        );
    }
    assert!(
        seen.survivors > 0,
        "{lang}: the detached process died anyway"
    );
    if lang == "py" {
        assert_eq!(seen.report["keyctl"], "allowed", "{lang}");
    }
}

#[test]
fn a_hostile_javascript_server_reads_no_secret_and_leaves_no_process() {
    assert_contained("js");
}

#[test]
fn a_hostile_python_server_reads_no_secret_and_leaves_no_process() {
    assert_contained("py");
}

#[test]
fn without_its_guards_the_hostile_javascript_server_leaks_and_leaves_a_process() {
    assert_leaks_without_the_guards("js");
}

#[test]
fn without_its_guards_the_hostile_python_server_leaks_and_leaves_a_process() {
    assert_leaks_without_the_guards("py");
}
