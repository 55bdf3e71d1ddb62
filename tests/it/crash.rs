//! `kill -9` of mcpevol in the middle of a round and in the middle of a commit: a re-run finds
//! the workspace at its last good version, loses nothing (leftovers are in the stash), and goes
//! on to exactly the versions an uninterrupted run makes with the same seed.

use crate::common;

use std::collections::BTreeMap;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use mcpevol::init::{InitOptions, init};
use mcpevol::workspace::Workspace;

const FIXTURE: &str = "switch-esm";
const SEED: &str = "3";
const MARK_VAR: &str = "MCPEVOL_CRASH_TEST_MARK";
/// How long the work tree may take to show a round's edits.
const ROUND_START: Duration = Duration::from_secs(60);

/// A fresh workspace of the fixture at v0; `marker` goes into its servers' environment.
fn workspace(dir: &Path, name: &str, marker: &str) -> std::path::PathBuf {
    let work = dir.join(name);
    let opts = InitOptions {
        env: BTreeMap::from([(MARK_VAR.to_string(), marker.to_string())]),
        ..InitOptions::new(None)
    };
    let source = common::repo().join("fixtures").join(FIXTURE);
    tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(init(&source.to_string_lossy(), &work, &opts))
        .unwrap();
    work
}

fn evolve_command(work: &Path, rounds: u32) -> Command {
    let mut cmd = Command::new(common::bin());
    cmd.args(["evolve", work.to_str().unwrap(), "--rounds"])
        .arg(rounds.to_string())
        .args(["--seed", SEED]);
    cmd
}

fn run(mut cmd: Command) -> Output {
    cmd.output().unwrap()
}

fn versions(work: &Path) -> Vec<(String, String)> {
    let ws = Workspace::open(work).unwrap();
    ws.versions()
        .unwrap()
        .into_iter()
        .map(|v| (v.tag.to_string(), v.commit))
        .collect()
}

fn assert_killed(out: &Output) {
    assert_eq!(
        out.status.signal(),
        Some(9),
        "expected death by SIGKILL: {:?} {}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// After the kill: no server of the dead run is left (they die with it).
fn assert_no_server_left(marker: &str) {
    let until = Instant::now() + Duration::from_secs(5);
    let mut left = common::marked_processes(MARK_VAR, marker);
    while !left.is_empty() && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(50));
        left = common::marked_processes(MARK_VAR, marker);
    }
    assert!(left.is_empty(), "servers outlived the killed run: {left:?}");
}

/// The re-run: it recovers, says so, goes on one round, and the history is the uninterrupted
/// one. Returns its stderr.
fn rerun_matches_the_uninterrupted_run(work: &Path, reference: &[(String, String)]) -> String {
    let out = run(evolve_command(work, 1));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("recovered: an evolve (pid "),
        "the re-run says what it recovered: {stderr}"
    );
    let now = versions(work);
    assert!(now.len() >= 2, "{now:?}");
    assert_eq!(now, reference[..now.len()], "the history differs");
    let ws = Workspace::open(work).unwrap();
    assert_eq!(
        ws.head().unwrap(),
        now.last().unwrap().1,
        "HEAD is the last version"
    );
    assert!(ws.dirty_paths().unwrap().is_empty());
    common::git(work, &["fsck", "--no-progress"]); // must pass
    stderr
}

/// The stash holds what the killed run left: round 1's record, not lost.
fn assert_round_one_is_in_the_stash(work: &Path, stderr: &str) {
    assert!(stderr.contains("saved in the stash"), "{stderr}");
    let round = common::git(work, &["show", "stash@{0}:.mcpevol/round.json"]);
    let text = String::from_utf8_lossy(&round.stdout);
    assert!(text.contains("\"version\": \"v1\""), "{text}");
}

/// The history of an uninterrupted run of `rounds` rounds with the same seed and settings.
fn reference(dir: &Path, marker: &str, rounds: u32) -> Vec<(String, String)> {
    let work = workspace(dir, "reference", marker);
    let out = run(evolve_command(&work, rounds));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    versions(&work)
}

fn killed_at(
    point: &str,
) -> (
    tempfile::TempDir,
    std::path::PathBuf,
    Vec<(String, String)>,
    String,
) {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("{point}-{}", std::process::id());
    let reference = reference(dir.path(), &marker, 2);
    let work = workspace(dir.path(), "w", &marker);
    let mut cmd = evolve_command(&work, 2);
    cmd.env(mcpevol::crashpoint::VARIABLE, point);
    assert_killed(&run(cmd));
    assert!(work.join(".git/mcpevol-evolve.lock").is_file());
    assert_no_server_left(&marker);
    (dir, work, reference, marker)
}

#[test]
fn killed_after_writing_the_records_a_rerun_stashes_them_and_redoes_the_round() {
    let (_dir, work, reference, _) = killed_at("records-written");
    assert!(
        !Workspace::open(&work)
            .unwrap()
            .dirty_paths()
            .unwrap()
            .is_empty()
    );
    let stderr = rerun_matches_the_uninterrupted_run(&work, &reference);
    assert_round_one_is_in_the_stash(&work, &stderr);
}

#[test]
fn killed_after_staging_the_commit_a_rerun_stashes_it_and_redoes_the_round() {
    let (_dir, work, reference, _) = killed_at("index-written");
    let staged = common::git(&work, &["diff", "--cached", "--name-only"]);
    assert!(!staged.stdout.is_empty(), "the index was written");
    let stderr = rerun_matches_the_uninterrupted_run(&work, &reference);
    assert_round_one_is_in_the_stash(&work, &stderr);
}

#[test]
fn killed_between_the_commit_and_its_tag_a_rerun_tags_the_version_and_goes_on() {
    let (_dir, work, reference, _) = killed_at("committed");
    assert_eq!(versions(&work).len(), 1, "v1 was committed but not tagged");
    let stderr = rerun_matches_the_uninterrupted_run(&work, &reference);
    assert!(stderr.contains("now tagged v1"), "{stderr}");
    assert_eq!(versions(&work).len(), 3, "v1 recovered, v2 made");
}

#[test]
fn killed_mid_round_while_its_edits_are_in_the_work_tree_a_rerun_goes_back_and_on() {
    let dir = tempfile::tempdir().unwrap();
    let marker = format!("mid-round-{}", std::process::id());
    let reference = reference(dir.path(), &marker, 2);
    let work = workspace(dir.path(), "w", &marker);
    let mut child = evolve_command(&work, 2)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let ws = Workspace::open(&work).unwrap();
    let until = Instant::now() + ROUND_START;
    while ws.dirty_paths().unwrap().is_empty() {
        assert!(Instant::now() < until, "no round started");
        assert!(
            child.try_wait().unwrap().is_none(),
            "evolve ended before a round started"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    let status = child.wait().unwrap();
    assert_eq!(status.signal(), Some(9));
    assert_no_server_left(&marker);
    let stderr = rerun_matches_the_uninterrupted_run(&work, &reference);
    assert!(stderr.contains("saved in the stash"), "{stderr}");
}

#[test]
fn a_second_evolve_on_a_workspace_being_evolved_is_refused_naming_the_first() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "w", "busy");
    let ws = Workspace::open(&work).unwrap();
    let (lock, recovered) = ws.lock_for_evolve().unwrap();
    assert_eq!(recovered, None);
    let out = run(evolve_command(&work, 1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains(&format!(
            "another mcpevol (pid {}) is evolving",
            std::process::id()
        )),
        "{stderr}"
    );
    drop(lock);
    assert!(run(evolve_command(&work, 1)).status.success());
}

/// Starts `mcpevol tools` on a copy of the hang fixture (a server with two grandchildren, one
/// detached), with `without` as the sandbox layers left off; kills mcpevol with SIGKILL once all
/// three run; returns the marker they carry and the private temp folder of the run.
fn kill_mcpevol_under_a_hung_server(dir: &Path, without: &str) -> (String, std::path::PathBuf) {
    let package = dir.join("hang");
    std::fs::create_dir_all(package.join(".mcpevol")).unwrap();
    for file in ["index.js", "package.json"] {
        let from = common::repo().join("fixtures/bad/hang").join(file);
        std::fs::copy(from, package.join(file)).unwrap();
    }
    let marker = format!("grandchild-{}-{without}", std::process::id());
    std::fs::write(
        package.join(".mcpevol/server.toml"),
        format!("command = \"node\"\nargs = [\"index.js\"]\n[env]\n{MARK_VAR} = \"{marker}\"\n"),
    )
    .unwrap();
    // Scratch folders live in mcpevol's temp folder, and every run cleans up the leftovers of
    // killed runs found there: a private one keeps the other tests' runs from cleaning up
    // this one's before the assertion.
    let private_tmp = dir.join("tmp");
    std::fs::create_dir_all(&private_tmp).unwrap();
    let mut child = Command::new(common::bin())
        .env("TMPDIR", &private_tmp)
        .env(mcpevol::server::sandbox::WITHOUT_VAR, without)
        .args(["tools", package.to_str().unwrap(), "--timeout", "60"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let until = Instant::now() + ROUND_START;
    // The server and its two grandchildren (one in the server's process group, one detached).
    while common::marked_processes(MARK_VAR, &marker).len() < 3 {
        assert!(
            Instant::now() < until,
            "the server and its grandchildren never ran"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    (marker, private_tmp)
}

/// How many processes carry `marker` once they have had 5 s to die.
fn left_after_settling(marker: &str, expected: usize) -> usize {
    let settled = Instant::now() + Duration::from_secs(5);
    while common::marked_processes(MARK_VAR, marker).len() > expected && Instant::now() < settled {
        std::thread::sleep(Duration::from_millis(50));
    }
    common::marked_processes(MARK_VAR, marker).len()
}

#[test]
fn what_a_server_started_dies_with_a_killed_mcpevol_even_a_detached_grandchild() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, _) = kill_mcpevol_under_a_hung_server(dir.path(), "");
    // The relay dies with mcpevol, the PID namespace's init with the relay, and every process
    // inside with the init.
    assert_eq!(left_after_settling(&marker, 0), 0);
}

#[test]
fn without_the_pid_namespace_a_detached_grandchild_outlives_a_killed_mcpevol_until_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let (marker, private_tmp) = kill_mcpevol_under_a_hung_server(dir.path(), "pid");
    // The server dies with mcpevol; what it started cannot be reached that way.
    assert_eq!(left_after_settling(&marker, 2), 2);
    let next = Command::new(common::bin())
        .env("TMPDIR", &private_tmp)
        .args([
            "tools",
            common::repo().join("fixtures/switch-esm").to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(next.status.success());
    assert_no_server_left(&marker);
}
