//! Evolution through an LLM: every test talks to a local OpenAI-compatible STUB server (no LLM
//! service is reachable here) whose scripted replies drive real rounds on real node servers.
//!
//! Over 500 lines on purpose: each test is one scripted conversation, and the scripts read
//! best beside the assertions on what the model was told.

use crate::common;

use std::path::Path;
use std::time::Duration;

use crate::common::rounds::*;
use crate::common::stub::{Scripted, StubServer};
use mcpevol::evolve::{self, Backend};
use mcpevol::hunks::Hunk;
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

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
        rounds
            .iter()
            .filter(|r| r.status == evolve::RoundStatus::Committed)
            .count(),
        5,
        "{rounds:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    for (k, plan) in (1..=5).zip(&planned) {
        let tag = format!("v{k}");
        let r = version_record::read_round(&ws, &tag).unwrap().unwrap();
        // Records name the model's provider: the stub endpoint's host, not "openai".
        assert!(
            r.backend.as_str().starts_with("127.0.0.1:"),
            "{}",
            r.backend
        );
        assert_eq!(r.operator, plan.operator, "{tag}");
        assert!(
            r.usage.unwrap().total_tokens > 0,
            "{tag} records token usage"
        );
        assert_eq!(
            version_record::read_exchanges(&ws, &tag).unwrap().len(),
            3,
            "{tag}: selection, mutation, tests"
        );
        // Each round's own cases: none failed, and at least one saw the change answer (a
        // case the state left by earlier calls made fail is excused only where the previous
        // version, under the tool's old name, fails the same way).
        assert!(
            r.generated_tests
                .iter()
                .all(|t| t.verdict != mcpevol::validate::Verdict::Failed),
            "{tag}"
        );
        assert!(r.generated_tests.iter().any(|t| t.passed), "{tag}");
    }
    assert_eq!(stub.requests().len(), 15);
    let log = mcpevol::history::log(&ws).unwrap();
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
        replayed
            .iter()
            .all(|r| r.status == evolve::RoundStatus::Committed),
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
    let hunk = &good.hunks()[0];
    let broken = Hunk {
        replace: format!("{}\n  const = ;\n", hunk.replace),
        ..hunk.clone()
    };
    let missing = Hunk {
        search: "this line is not in the file\n".into(),
        ..hunk.clone()
    };
    let op = good.operator.clone().unwrap().to_string();
    let script = vec![
        Scripted::reply(format!("I would use {op} on {:?}.", good.targets)),
        Scripted::reply(selection(&op, &["no_such_tool".into()])),
        Scripted::reply(selection(&op, &good.targets)),
        Scripted::reply(blocks(&[missing])),
        Scripted::reply(blocks(&[broken])),
        Scripted::reply(blocks(&good.hunks())),
        Scripted::reply(tests_reply(good)),
    ];
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(
        &work,
        &options(llm(&stub, Duration::from_secs(30)), 1, &[&op]),
    );
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{rounds:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    let r = version_record::read_round(&ws, "v1").unwrap().unwrap();
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
        answering: &[],
        multiline: &[],
        json: &[],
        constraint: mcpevol::mutate::ConstraintKind::DescribedBound,
        aliases: mcpevol::mutate::Aliases::Allowed,
    };
    let removal =
        mcpevol::mutate::rules::propose(mcpevol::operators::Builtin::ToolRemoval, &ctx).unwrap();
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
    assert_eq!(rounds[0].status, evolve::RoundStatus::Failed);
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
        Scripted::reply(selection(
            &p.operator.as_ref().unwrap().to_string(),
            &p.targets,
        )),
        Scripted::reply(blocks(&p.hunks())),
        Scripted::reply(tests_reply(p)),
    ]);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &options(llm(&stub, Duration::from_secs(30)), 1, &[]));
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{rounds:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    assert_eq!(
        version_record::read_exchanges(&ws, "v1").unwrap()[0].attempts,
        2
    );
}

fn fails_cleanly(script: Vec<Scripted>, timeout: Duration, cause: &str) {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/if-cjs");
    let stub = StubServer::start(script);
    let work = dir.path().join("llm");
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &options(llm(&stub, timeout), 1, &[]));
    assert_eq!(rounds[0].status, evolve::RoundStatus::Failed, "{rounds:?}");
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
        Scripted::reply(selection(
            &p.operator.as_ref().unwrap().to_string(),
            &p.targets,
        )),
        Scripted::reply(blocks(&p.hunks())),
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
    assert!(
        rounds
            .iter()
            .all(|r| r.status == evolve::RoundStatus::Committed),
        "{rounds:?}"
    );
    let recorded = trees(&work);
    // Keep the evolution on a branch, then go back to v0 without its later version tags.
    common::git(&work, &["branch", "recorded"]);
    let ws = Workspace::open(&work).unwrap();
    ws.restore(&ws.resolve("v0").unwrap()).unwrap();
    common::git(&work, &["tag", "-d", "v1", "v2"]);
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
        replayed
            .iter()
            .all(|r| r.status == evolve::RoundStatus::Committed),
        "{replayed:?}"
    );
    assert_eq!(trees(&work), recorded);
}

#[test]
fn a_batch_through_the_openai_backend_reports_tokens_and_a_replay_batch_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/map-registry");
    let planned = rules_rounds(&source, None, 2, dir.path());
    let stub = StubServer::start(script_for(&planned));
    let manifest = dir.path().join("m.toml");
    std::fs::write(
        &manifest,
        format!(
            "[[server]]\nid = \"maps\"\nsource = \"{}\"\n",
            source.display()
        ),
    )
    .unwrap();
    let batch = |backend: &str, out: &Path, from: Option<&Path>| {
        let mut cmd = std::process::Command::new(common::bin());
        cmd.args([
            "batch",
            manifest.to_str().unwrap(),
            "--rounds",
            "2",
            "--json",
        ])
        .args(["--backend", backend, "--out", out.to_str().unwrap()])
        .env("OPENAI_API_KEY", KEY)
        .env("OPENAI_BASE_URL", &stub.base_url);
        if let Some(from) = from {
            cmd.arg("--from").arg(from);
        }
        let out = common::ok(cmd.output().unwrap());
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    let model_run = dir.path().join("model");
    let summary = batch("openai", &model_run, None);
    let maps = &summary["servers"][0];
    assert_eq!(maps["status"], "complete", "{summary}");
    assert_eq!(maps["version"], "v2");
    assert!(
        maps["usage"]["total_tokens"].as_u64().unwrap() > 0,
        "{summary}"
    );
    assert!(maps["model"].is_string(), "{summary}");
    assert_eq!(
        summary["totals"]["total_tokens"],
        maps["usage"]["total_tokens"]
    );
    // The report shows each round's tokens and model.
    let md = dir.path().join("r.md");
    common::ok(common::mcpevol(&[
        "report",
        model_run.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&md).unwrap();
    let model = maps["model"].as_str().unwrap();
    let rows = text
        .lines()
        .filter(|l| l.starts_with("| v") && l.ends_with(&format!(" ({model}) |")));
    assert_eq!(rows.count(), 2, "{text}");

    let replayed = dir.path().join("replayed");
    let again = batch("replay", &replayed, Some(&model_run));
    assert_eq!(again["servers"][0]["status"], "complete", "{again}");
    assert_eq!(
        trees(&replayed.join("servers/maps")),
        trees(&model_run.join("servers/maps"))
    );
}

/// A model's O1 on `fixtures/switch-esm`: a new tool `list_all_cities` whose handler answers
/// `answer`, with the claim that it answers as `list_cities` does.
fn claimed_copy(dir: &Path, name: &str, answer: &str) -> (Vec<evolve::RoundOutcome>, Vec<String>) {
    let source = common::repo().join("fixtures/switch-esm");
    let hunks = vec![
        Hunk {
            file: "server.js".into(),
            search: "    {\n      name: \"list_cities\",\n".into(),
            replace: "    {\n      name: \"list_all_cities\",\n      description: \"List every city that has a forecast\",\n      inputSchema: { type: \"object\", properties: {} },\n    },\n    {\n      name: \"list_cities\",\n".into(),
        },
        Hunk {
            file: "server.js".into(),
            search: "    case \"list_cities\":\n".into(),
            replace: format!(
                "    case \"list_all_cities\":\n      return {{ content: [{{ type: \"text\", text: {answer} }}] }};\n    case \"list_cities\":\n"
            ),
        },
    ];
    let tests = "```json\n{\"tests\": [{\"tool\": \"list_all_cities\", \"arguments\": {}, \"expect\": \"success\"}], \"claims\": [{\"kind\": \"variant\", \"tool\": \"list_all_cities\", \"source\": \"list_cities\", \"max_chars\": null}]}\n```";
    let stub = StubServer::start(vec![
        Scripted::reply(selection("O1", &["list_cities".to_string()])),
        Scripted::reply(blocks(&hunks)),
        Scripted::reply(tests),
        Scripted::reply("No."),
        Scripted::reply("No."),
        Scripted::reply("No."),
    ]);
    let work = dir.join(name);
    init_at(&source, &work, None);
    let rounds = evolve_with(
        &work,
        &options(llm(&stub, Duration::from_secs(30)), 1, &["O1"]),
    );
    let bodies = stub
        .requests()
        .iter()
        .map(|q| q.json().to_string())
        .collect();
    (rounds, bodies)
}

#[test]
fn a_model_claim_that_the_server_does_not_keep_is_rejected_and_one_it_keeps_commits() {
    let dir = tempfile::tempdir().unwrap();
    // The claimed copy answers something else: the claim is checked and fails.
    let (rounds, bodies) = claimed_copy(dir.path(), "broken", "\"paris\"");
    assert_eq!(rounds[0].status, evolve::RoundStatus::Failed);
    let told = bodies
        .iter()
        .skip(3)
        .any(|b| b.contains("list_all_cities") && b.contains("list_cities`'s answer"));
    assert!(told, "the model is told its claim failed: {bodies:?}");
    // The same copy answering as the original does commits, the claim checked and proven.
    let (rounds, _) = claimed_copy(dir.path(), "kept", "Object.keys(CITIES).join(\", \")");
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
}
