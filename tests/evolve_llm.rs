//! Evolution through an LLM: every test talks to a local OpenAI-compatible STUB server (no LLM
//! service is reachable here) whose scripted replies drive real rounds on real node servers.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::rounds::{KEY, evolve_with, init_at, llm, options};
use common::stub::{Scripted, StubServer};
use mcpevol::edit::Hunk;
use mcpevol::evolve::{self, Backend};
use mcpevol::record::{self, RoundRecord};
use mcpevol::server::LaunchConfig;
use mcpevol::workspace::Workspace;

/// A reply in the SEARCH/REPLACE format the prompts ask for.
fn blocks(hunks: &[Hunk]) -> String {
    let mut out = String::from("Here are the edits.\n\n");
    for h in hunks {
        let search = h.search.strip_suffix('\n').unwrap_or(&h.search);
        let replace = h.replace.strip_suffix('\n').unwrap_or(&h.replace);
        let replace = if replace.is_empty() {
            String::new()
        } else {
            format!("{replace}\n")
        };
        out += &format!(
            "{}\n```js\n<<<<<<< SEARCH\n{search}\n=======\n{replace}>>>>>>> REPLACE\n```\n\n",
            h.file
        );
    }
    out
}

fn selection(op: &str, targets: &[String]) -> String {
    format!(
        "```json\n{}\n```",
        serde_json::json!({"operator": op, "targets": targets, "rationale": "clients asked for it"})
    )
}

/// A test case that the recorded rules round shows to succeed.
fn tests_reply(record: &RoundRecord) -> String {
    let ok: Vec<serde_json::Value> = record
        .tests
        .iter()
        .filter(|t| t.status == mcpevol::server::session::Status::Ok)
        .take(1)
        .map(|t| serde_json::json!({"tool": t.tool, "arguments": t.arguments, "expect": "success"}))
        .collect();
    format!("```json\n{}\n```", serde_json::Value::Array(ok))
}

/// The replies a model would give to make these rounds: choice, edits, tests, per round.
fn script_for(planned: &[RoundRecord]) -> Vec<Scripted> {
    let mut script = Vec::new();
    for r in planned {
        script.push(Scripted::reply(selection(
            r.operator.as_deref().unwrap(),
            &r.targets,
        )));
        script.push(Scripted::reply(blocks(&r.hunks)));
        script.push(Scripted::reply(tests_reply(r)));
    }
    script
}

/// Rounds the rules backend makes on a fresh copy: the scripts replay their edits as if a
/// model had written them.
fn rules_rounds(
    source: &Path,
    launch: Option<LaunchConfig>,
    rounds: u32,
    dir: &Path,
) -> Vec<RoundRecord> {
    let work = dir.join("rules");
    init_at(source, &work, launch);
    let out = evolve_with(&work, &options(Backend::Rules, rounds, &[]));
    assert!(out.iter().all(|r| r.status == "committed"), "{out:?}");
    let ws = Workspace::open(&work).unwrap();
    (1..=rounds)
        .map(|k| record::read_round(&ws, &format!("v{k}")).unwrap().unwrap())
        .collect()
}

fn memory_server() -> (PathBuf, LaunchConfig) {
    let dir = common::repo().join("servers-npm");
    common::require_npm_install(&dir);
    let catalog = mcpevol::catalog::Catalog::load(&dir.join("servers.toml")).unwrap();
    let entry = catalog
        .servers
        .iter()
        .find(|e| e.package == "@modelcontextprotocol/server-memory")
        .unwrap();
    (entry.package_dir(&dir), entry.launch_config())
}

fn trees(work: &Path) -> Vec<String> {
    let ws = Workspace::open(work).unwrap();
    ws.versions()
        .unwrap()
        .iter()
        .map(|v| ws.tree_id(&v.tag).unwrap())
        .collect()
}

#[test]
fn five_rounds_of_a_real_server_through_the_stub_are_committed_and_replay_reproduces_them() {
    let dir = tempfile::tempdir().unwrap();
    let (source, launch) = memory_server();
    let planned = rules_rounds(&source, Some(launch.clone()), 5, dir.path());
    let script = script_for(&planned);
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, Some(launch.clone()));
    let rounds = evolve_with(&work, &options(llm(&stub, Duration::from_secs(30)), 5, &[]));
    assert_eq!(
        rounds.iter().filter(|r| r.status == "committed").count(),
        5,
        "{rounds:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    for (k, plan) in (1..=5).zip(&planned) {
        let tag = format!("v{k}");
        let r = record::read_round(&ws, &tag).unwrap().unwrap();
        assert_eq!(r.backend, "openai");
        assert_eq!(r.operator, plan.operator, "{tag}");
        assert!(
            r.usage.unwrap().total_tokens > 0,
            "{tag} records token usage"
        );
        assert_eq!(
            record::read_exchanges(&ws, &tag).unwrap().len(),
            3,
            "{tag}: selection, mutation, tests"
        );
        assert!(r.generated_tests.iter().all(|t| t.passed));
    }
    assert_eq!(stub.requests().len(), 15);
    let log = mcpevol::report::log(&ws).unwrap();
    assert!(log[1..].iter().all(|e| e.tests.failed == 0));

    // Replay: no endpoint at all, the same commit trees.
    let again = dir.path().join("replay");
    init_at(&source, &again, Some(launch));
    let replayed = evolve_with(
        &again,
        &options(
            Backend::Replay {
                from: evolve::ReplaySource::Workspace(work.clone()),
            },
            5,
            &[],
        ),
    );
    assert!(
        replayed.iter().all(|r| r.status == "committed"),
        "{replayed:?}"
    );
    assert_eq!(trees(&again), trees(&work));
}

#[test]
fn every_kind_of_bad_reply_goes_back_to_the_model_until_a_good_one_commits() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/switch-esm");
    let planned = rules_rounds(&source, None, 1, dir.path());
    let good = &planned[0];
    let hunk = &good.hunks[0];
    let broken = Hunk {
        replace: format!("{}\n  const = ;\n", hunk.replace),
        ..hunk.clone()
    };
    let missing = Hunk {
        search: "this line is not in the file\n".into(),
        ..hunk.clone()
    };
    let op = good.operator.clone().unwrap();
    let script = vec![
        Scripted::reply(format!("I would use {op} on {:?}.", good.targets)),
        Scripted::reply(selection(&op, &["no_such_tool".into()])),
        Scripted::reply(selection(&op, &good.targets)),
        Scripted::reply(blocks(&[missing])),
        Scripted::reply(blocks(&[broken])),
        Scripted::reply(blocks(&good.hunks)),
        Scripted::reply(tests_reply(good)),
    ];
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(
        &work,
        &options(llm(&stub, Duration::from_secs(30)), 1, &[&op]),
    );
    assert_eq!(rounds[0].status, "committed", "{rounds:?}");
    let ws = Workspace::open(&work).unwrap();
    let r = record::read_round(&ws, "v1").unwrap().unwrap();
    assert_eq!(r.attempts, 3);
    let reasons: Vec<&str> = r.rejected.iter().map(|x| x.reason.as_str()).collect();
    assert_eq!(reasons.len(), 4, "{reasons:?}");
    assert!(reasons[0].contains("JSON"), "{reasons:?}");
    assert!(reasons[1].contains("no_such_tool"), "{reasons:?}");
    assert!(
        reasons[2].contains("not in the file") && reasons[2].contains("closest line"),
        "{reasons:?}"
    );
    assert!(reasons[3].contains("syntax error"), "{reasons:?}");
    // Each cause reached the model as the next message.
    let bodies: Vec<String> = stub
        .requests()
        .iter()
        .map(|q| q.json().to_string())
        .collect();
    assert!(bodies[3].contains("not in the file") || bodies[4].contains("not in the file"));
    assert!(bodies[5].contains("syntax error"));
}

#[test]
fn a_reply_that_breaks_the_operator_contract_is_rejected_with_the_schema_change_found() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/if-cjs");
    // A description update (O9) that also removes a tool: the contract allows descriptions only.
    let work0 = dir.path().join("probe");
    init_at(&source, &work0, None);
    let inventory = mcpevol::anchor::anchor(&work0).unwrap();
    let ctx = mcpevol::mutate::Context {
        root: &work0,
        inventory: &inventory,
        seed: 1,
        avoid: &[],
    };
    let removal = mcpevol::mutate::rules::propose("O3", &ctx).unwrap();
    let target = removal.targets[0].clone();
    let stub = StubServer::start(vec![
        Scripted::reply(selection("O9", &[target])),
        Scripted::reply(blocks(&removal.hunks)),
        Scripted::reply("I cannot do better."),
        Scripted::reply("Still nothing."),
        Scripted::reply("No."),
    ]);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(
        &work,
        &options(llm(&stub, Duration::from_secs(30)), 1, &["O9"]),
    );
    assert_eq!(rounds[0].status, "failed");
    let reason = rounds[0].reason.clone().unwrap();
    assert!(
        reason.contains("SEARCH/REPLACE"),
        "the last reply had no blocks: {reason}"
    );
    let bodies: Vec<String> = stub
        .requests()
        .iter()
        .map(|q| q.json().to_string())
        .collect();
    assert!(
        bodies[2].contains("contract of O9") && bodies[2].contains("tool-removed"),
        "{}",
        bodies[2]
    );
    let ws = Workspace::open(&work).unwrap();
    assert!(ws.dirty_paths().unwrap().is_empty());
    assert_eq!(ws.versions().unwrap().len(), 1);
}

#[test]
fn a_rate_limited_request_is_retried_and_the_round_commits() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/register-esm");
    let planned = rules_rounds(&source, None, 1, dir.path());
    let p = &planned[0];
    let stub = StubServer::start(vec![
        Scripted::rate_limited(1),
        Scripted::reply(selection(p.operator.as_deref().unwrap(), &p.targets)),
        Scripted::reply(blocks(&p.hunks)),
        Scripted::reply(tests_reply(p)),
    ]);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &options(llm(&stub, Duration::from_secs(30)), 1, &[]));
    assert_eq!(rounds[0].status, "committed", "{rounds:?}");
    let ws = Workspace::open(&work).unwrap();
    assert_eq!(record::read_exchanges(&ws, "v1").unwrap()[0].attempts, 2);
}

fn fails_cleanly(script: Vec<Scripted>, timeout: Duration, cause: &str) {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/if-cjs");
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &options(llm(&stub, timeout), 1, &[]));
    assert_eq!(rounds[0].status, "failed", "{rounds:?}");
    let reason = rounds[0].reason.clone().unwrap();
    assert!(
        reason.to_lowercase().contains(cause),
        "{cause:?} not in: {reason}"
    );
    let ws = Workspace::open(&work).unwrap();
    assert!(ws.dirty_paths().unwrap().is_empty());
    assert_eq!(ws.versions().unwrap().len(), 1);
}

#[test]
fn an_endpoint_that_never_answers_fails_the_round_cleanly_naming_the_timeout() {
    fails_cleanly(
        vec![Scripted::Delay(Duration::from_secs(10))],
        Duration::from_secs(1),
        "did not answer within 1 s",
    );
}

#[test]
fn an_empty_reply_fails_the_round_cleanly() {
    fails_cleanly(vec![Scripted::reply("")], Duration::from_secs(10), "empty");
}

#[test]
fn a_huge_reply_fails_the_round_cleanly() {
    fails_cleanly(
        vec![Scripted::huge(300_000)],
        Duration::from_secs(10),
        "over the limit",
    );
}

#[test]
fn an_endpoint_that_answers_500_forever_fails_the_round_cleanly_after_the_retries() {
    fails_cleanly(
        vec![Scripted::forever(Scripted::status(500))],
        Duration::from_secs(10),
        "http 500 after 3 attempt(s)",
    );
}

#[test]
fn an_endpoint_that_always_cuts_its_reply_off_fails_the_round_cleanly() {
    fails_cleanly(
        vec![Scripted::forever(Scripted::CutReply("x".repeat(1000)))],
        Duration::from_secs(10),
        "cut off before its end",
    );
}

#[test]
fn an_endpoint_that_streams_forever_fails_the_round_cleanly_at_the_timeout() {
    let every = Duration::from_millis(50);
    fails_cleanly(
        vec![Scripted::forever(Scripted::Endless { status: 200, every })],
        Duration::from_secs(1),
        "did not answer within 1 s",
    );
}

#[test]
fn an_endpoint_that_floods_a_reply_forever_fails_the_round_cleanly_at_the_body_limit() {
    let every = Duration::ZERO;
    fails_cleanly(
        vec![Scripted::forever(Scripted::Endless { status: 200, every })],
        Duration::from_secs(60),
        "bytes (the limit)",
    );
}

#[test]
fn the_api_key_appears_nowhere_in_the_workspace_its_history_or_the_output() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/map-registry");
    let planned = rules_rounds(&source, None, 1, dir.path());
    let p = &planned[0];
    let stub = StubServer::start(vec![
        Scripted::reply(selection(p.operator.as_deref().unwrap(), &p.targets)),
        Scripted::reply(blocks(&p.hunks)),
        Scripted::reply(tests_reply(p)),
    ]);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let out = std::process::Command::new(common::bin())
        .args([
            "evolve",
            work.to_str().unwrap(),
            "--rounds",
            "1",
            "--backend",
            "openai",
            "--json",
        ])
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", &stub.base_url)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stub.requests()[0].header("authorization"),
        Some(format!("Bearer {KEY}").as_str())
    );
    let mut seen =
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    let history = std::process::Command::new("git")
        .args(["log", "-p", "--all"])
        .current_dir(&work)
        .output()
        .unwrap();
    seen += &String::from_utf8_lossy(&history.stdout);
    for entry in walkdir::WalkDir::new(&work)
        .into_iter()
        .filter_entry(|e| e.file_name() != "node_modules")
        .flatten()
    {
        if entry.file_type().is_file() {
            seen += &String::from_utf8_lossy(&std::fs::read(entry.path()).unwrap());
        }
    }
    assert!(
        seen.contains("exchanges") || seen.contains("openai"),
        "the search covered the records"
    );
    assert!(!seen.contains(KEY), "the key leaked");
}

#[test]
fn replay_from_a_revision_of_the_same_workspace_reproduces_its_rounds() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/switch-esm");
    let planned = rules_rounds(&source, None, 2, dir.path());
    let script = script_for(&planned);
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &options(llm(&stub, Duration::from_secs(30)), 2, &[]));
    assert!(rounds.iter().all(|r| r.status == "committed"), "{rounds:?}");
    let recorded = trees(&work);
    // Keep the evolution on a branch, then go back to v0 without its later version tags.
    let git = |args: &[&str]| {
        let out = std::process::Command::new("git")
            .args(args)
            .current_dir(&work)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "git {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    git(&["branch", "recorded"]);
    let ws = Workspace::open(&work).unwrap();
    ws.restore(&ws.resolve("v0").unwrap()).unwrap();
    git(&["tag", "-d", "v1", "v2"]);
    let replayed = evolve_with(
        &work,
        &options(
            Backend::Replay {
                from: evolve::ReplaySource::Rev("recorded".into()),
            },
            2,
            &[],
        ),
    );
    assert!(
        replayed.iter().all(|r| r.status == "committed"),
        "{replayed:?}"
    );
    assert_eq!(trees(&work), recorded);
}
