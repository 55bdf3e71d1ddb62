//! Evolution end to end: real workspaces, real git, real node servers, the rules backend.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::{Command, Output};
use std::time::Duration;

use mcpevol::evolve::{self, Backend, EvolveOptions};
use mcpevol::init::{InitOptions, init};
use mcpevol::inventory::Style;
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

fn init_options() -> InitOptions {
    InitOptions::new(None)
}

fn options(rounds: u32, seed: u64, operators: &[&str]) -> EvolveOptions {
    EvolveOptions {
        operators: operators
            .iter()
            .map(|s| mcpevol::operators::OperatorId::parse(s))
            .collect(),
        ..EvolveOptions::new(rounds, seed)
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

fn fixture(name: &str) -> String {
    common::repo()
        .join("fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

fn mcpevol(args: &[&str]) -> Output {
    Command::new(common::bin()).args(args).output().unwrap()
}

#[test]
fn five_rounds_on_a_fixture_give_tagged_validated_versions_and_a_clean_tree() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let rt = runtime();
    rt.block_on(init(&fixture("switch-esm"), &work, &init_options()))
        .unwrap();
    let rounds = rt
        .block_on(evolve::evolve(
            &work,
            &Backend::Rules,
            &options(5, 11, &[]),
            |_| {},
        ))
        .unwrap();
    assert_eq!(rounds.len(), 5);
    assert!(
        rounds
            .iter()
            .all(|r| r.status == evolve::RoundStatus::Committed),
        "{rounds:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    let tags: Vec<String> = ws
        .versions()
        .unwrap()
        .into_iter()
        .map(|v| v.tag.to_string())
        .collect();
    assert_eq!(tags, ["v0", "v1", "v2", "v3", "v4", "v5"]);
    assert_eq!(ws.resolve("early").unwrap(), ws.resolve("v0").unwrap());
    assert_eq!(ws.resolve("middle").unwrap(), ws.resolve("v3").unwrap());
    assert_eq!(ws.resolve("late").unwrap(), ws.resolve("v5").unwrap());
    assert!(ws.dirty_paths().unwrap().is_empty());
    for v in 1..=5 {
        let tag = format!("v{v}");
        let round = version_record::read_round(&ws, &tag).unwrap().unwrap();
        assert!(!round.schema_changes.is_empty(), "{tag} changed the schema");
        assert!(
            round
                .tests
                .iter()
                .all(|t| t.verdict != mcpevol::validate::Verdict::Failed),
            "{tag}: {:?}",
            round.tests
        );
        assert!(
            round
                .tests
                .iter()
                .any(|t| t.compared == Some(mcpevol::validate::Compared::Output)),
            "{tag} compared some output with the previous version's: {:?}",
            round.tests
        );
        let message = ws.message(&tag).unwrap();
        let trailers = mcpevol::workspace::trailers(&message);
        assert!(
            trailers.contains(&(
                "Mcpevol-Operator".into(),
                round.operator.clone().unwrap().to_string()
            )),
            "{message}"
        );
        assert!(
            trailers.contains(&("Mcpevol-Seed".into(), "11".into())),
            "{message}"
        );
    }
    // log and diff tell the same story as the records.
    let log = mcpevol(&["log", work.to_str().unwrap(), "--json"]);
    let log: serde_json::Value = serde_json::from_slice(&log.stdout).unwrap();
    assert_eq!(log["versions"].as_array().unwrap().len(), 6);
    assert_eq!(
        log["versions"][3]["operator"],
        version_record::read_round(&ws, "v3")
            .unwrap()
            .unwrap()
            .operator
            .unwrap()
            .as_str()
    );
    let diff = mcpevol(&["diff", work.to_str().unwrap(), "v0", "v5", "--json"]);
    let diff: serde_json::Value = serde_json::from_slice(&diff.stdout).unwrap();
    assert!(!diff["changes"].as_array().unwrap().is_empty());
    assert!(diff["changes"][0]["breaking"].is_boolean());
}

/// Each operator, forced, committed on one server of each registration style (a whole sweep);
/// the suite's sample gives each operator one style, in turn, so every operator and every
/// style still commit.
#[test]
fn every_operator_is_applied_validated_and_committed_on_servers_of_all_four_styles() {
    let servers = [
        ("register-esm", Style::Register),
        ("switch-esm", Style::Switch),
        ("if-cjs", Style::If),
        ("cross-file-ts", Style::CrossFile),
    ];
    let ops = [
        "O1", "O2", "O3", "O4", "O5", "O6", "O7", "O8", "O9", "O10", "O11",
    ];
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let mut committed: BTreeMap<&str, BTreeSet<Style>> = BTreeMap::new();
    let mut failures = Vec::new();
    for (s, (server, style)) in servers.into_iter().enumerate() {
        // Each operator on the server as published: applied in turn, the description
        // operators before the last left a small server's descriptions nothing to add.
        let sampled = ops.iter().enumerate();
        let sampled = sampled.filter(|(o, _)| common::whole_sweep() || o % servers.len() == s);
        for (_, &op) in sampled {
            let work = dir.path().join(server).join(op);
            rt.block_on(init(&fixture(server), &work, &init_options()))
                .unwrap();
            let before = mcpevol::anchor::anchor(&work).unwrap();
            assert!(
                before.tools.iter().all(|t| t.style == style),
                "{server} is all {style:?}"
            );
            let rounds = rt
                .block_on(evolve::evolve(
                    &work,
                    &Backend::Rules,
                    &options(1, 3, &[op]),
                    |_| {},
                ))
                .unwrap();
            match rounds.first() {
                Some(r) if r.status == evolve::RoundStatus::Committed => {
                    let ws = Workspace::open(&work).unwrap();
                    let round = version_record::read_round(&ws, r.version).unwrap().unwrap();
                    assert_eq!(round.operator.as_ref().map(|o| o.as_str()), Some(op));
                    committed.entry(op).or_default().insert(style);
                }
                other => failures.push(format!("{server} {op}: {other:?}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "rounds that failed:\n{}",
        failures.join("\n")
    );
    let seen: BTreeSet<&Style> = committed.values().flatten().collect();
    assert_eq!(seen.len(), 4, "styles that committed: {seen:?}");
    let styles = if common::whole_sweep() { 4 } else { 1 };
    for op in ops {
        assert_eq!(
            committed[op].len(),
            styles,
            "{op} committed on styles {:?}",
            committed[op]
        );
    }
}

#[test]
fn the_same_seed_on_a_fresh_init_gives_identical_commits() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let mut heads = Vec::new();
    for run in ["a", "b"] {
        let work = dir.path().join(run);
        rt.block_on(init(&fixture("if-cjs"), &work, &init_options()))
            .unwrap();
        rt.block_on(evolve::evolve(
            &work,
            &Backend::Rules,
            &options(4, 99, &[]),
            |_| {},
        ))
        .unwrap();
        let ws = Workspace::open(&work).unwrap();
        heads.push(
            ws.versions()
                .unwrap()
                .into_iter()
                .map(|v| (ws.tree_id(&v.tag.to_string()).unwrap(), v.tag, v.commit))
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(heads[0].len(), 5);
    assert_eq!(heads[0], heads[1]);
}

#[test]
fn a_different_seed_evolves_differently() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let mut trees = Vec::new();
    for seed in [1, 2] {
        let work = dir.path().join(seed.to_string());
        rt.block_on(init(&fixture("register-esm"), &work, &init_options()))
            .unwrap();
        rt.block_on(evolve::evolve(
            &work,
            &Backend::Rules,
            &options(3, seed, &[]),
            |_| {},
        ))
        .unwrap();
        trees.push(Workspace::open(&work).unwrap().tree_id("v3").unwrap());
    }
    assert_ne!(trees[0], trees[1]);
}

fn git_status_is_clean_at_a_version(work: &Path) -> String {
    let ws = Workspace::open(work).unwrap();
    let dirty = ws.dirty_paths().unwrap();
    if !dirty.is_empty() {
        let git = |args: &[&str]| {
            let out = Command::new("git")
                .args(args)
                .current_dir(work)
                .output()
                .unwrap();
            String::from_utf8_lossy(&out.stdout).into_owned()
        };
        panic!(
            "dirty: {dirty:?}\ngit status: {}\ngit diff: {}",
            git(&["status", "--short"]),
            git(&["diff", "--stat"])
        );
    }
    let head = ws.head().unwrap();
    ws.versions()
        .unwrap()
        .into_iter()
        .find(|v| v.commit == head)
        .expect("HEAD is a version")
        .tag
        .to_string()
}

#[test]
fn sigint_mid_round_leaves_the_workspace_at_its_last_committed_version() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("bundle-min"), &work, &init_options()))
        .unwrap();
    let child = Command::new(common::bin())
        .args([
            "evolve",
            work.to_str().unwrap(),
            "--rounds",
            "20",
            "--seed",
            "5",
        ])
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Long enough to be past the pre-flight start, inside some round.
    std::thread::sleep(Duration::from_millis(2500));
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(130),
        "the exit code for interrupted"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    eprintln!("evolve status: {:?} stderr: {stderr}", out.status);
    let version = git_status_is_clean_at_a_version(&work);
    assert!(
        stderr.contains(&format!("interrupted; the workspace is back at {version}")),
        "{stderr}"
    );
}

#[test]
fn evolve_refuses_a_folder_that_is_not_a_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let out = mcpevol(&["evolve", dir.path().to_str().unwrap(), "--rounds", "1"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("is not an mcpevol workspace"));
}

#[test]
fn evolve_refuses_a_dirty_workspace_and_changes_nothing() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("if-cjs"), &work, &init_options()))
        .unwrap();
    std::fs::write(work.join("index.js"), "// edited by hand\n").unwrap();
    let out = mcpevol(&["evolve", work.to_str().unwrap(), "--rounds", "1"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("has uncommitted changes (index.js)"), "{err}");
    assert_eq!(
        std::fs::read_to_string(work.join("index.js")).unwrap(),
        "// edited by hand\n"
    );
    assert_eq!(Workspace::open(&work).unwrap().versions().unwrap().len(), 1);
}

#[test]
fn evolve_on_a_server_that_no_longer_starts_names_the_cause_and_changes_nothing() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("if-cjs"), &work, &init_options()))
        .unwrap();
    std::fs::write(
        work.join("index.js"),
        "process.stderr.write('config missing\\n'); process.exit(2);\n",
    )
    .unwrap();
    let ws = Workspace::open(&work).unwrap();
    let broken = ws
        .commit_version(mcpevol::workspace::VersionTag::new(1), "broken by hand")
        .unwrap();
    let out = mcpevol(&[
        "evolve",
        work.to_str().unwrap(),
        "--rounds",
        "1",
        "--timeout",
        "5",
    ]);
    assert_eq!(
        out.status.code(),
        Some(4),
        "the exit code for a broken server"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("does not start at v1") && err.contains("config missing"),
        "{err}"
    );
    assert_eq!(ws.head().unwrap(), broken.commit);
    assert!(ws.dirty_paths().unwrap().is_empty());
}

#[test]
fn a_forced_operator_that_fits_no_tool_fails_the_round_cleanly_with_the_reason() {
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("bundle-min"), &work, &init_options()))
        .unwrap();
    // Prune optional parameters until none is left, then once more.
    let mut last = None;
    for _ in 0..6 {
        let rounds = rt
            .block_on(evolve::evolve(
                &work,
                &Backend::Rules,
                &options(1, 1, &["O7"]),
                |_| {},
            ))
            .unwrap();
        last = rounds.into_iter().next();
        if last
            .as_ref()
            .is_some_and(|r| r.status == evolve::RoundStatus::Failed)
        {
            break;
        }
    }
    let last = last.unwrap();
    assert_eq!(last.status, evolve::RoundStatus::Failed);
    assert!(
        last.reason.as_deref().unwrap().contains("does not apply"),
        "{last:?}"
    );
    git_status_is_clean_at_a_version(&work);
}

/// Exit codes a script can tell apart: a usage error, a round that failed, an unknown flag.
#[test]
fn the_command_line_exits_with_distinct_codes_for_usage_errors_and_failed_rounds() {
    let out = mcpevol(&["evolve", "--rounds", "x", "somewhere"]);
    assert_eq!(out.status.code(), Some(2), "a bad number is a usage error");
    let out = mcpevol(&["evolve", "somewhere", "--rounds", "1", "--backend", "gpt"]);
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown backend is a usage error"
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("possible values: rules, openai, replay")
    );
    let out = mcpevol(&["--version"]);
    assert_eq!(out.status.code(), Some(0));

    // A user's operator (a prompt for a model) forced on the rules backend: no version is made.
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("bundle-min"), &work, &init_options()))
        .unwrap();
    let ops = dir.path().join("ops");
    std::fs::create_dir(&ops).unwrap();
    let template = mcpevol(&["operators", "new", "X1", "Rename Everything"]);
    std::fs::write(ops.join("X1-rename.md"), &template.stdout).unwrap();
    let out = mcpevol(&[
        "evolve",
        work.to_str().unwrap(),
        "--rounds",
        "1",
        "--operators",
        ops.to_str().unwrap(),
        "--operator",
        "X1",
    ]);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
