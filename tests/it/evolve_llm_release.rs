//! Releases planned by a model (`--shape release` with an LLM backend): every test talks to a
//! local OpenAI-compatible STUB server (no LLM service is reachable here) whose scripted
//! replies plan a release of three changes on two tools of a real node server, write each
//! change, and state what the changes do. The oracle holds the model's claims as it holds the
//! rules' own: a claim the code does not keep drops its change from the release.

use crate::common;

use std::path::Path;
use std::time::Duration;

use crate::common::rounds::*;
use crate::common::stub::{Scripted, StubServer};
use mcpevol::evolve::{self, Backend};
use mcpevol::hunks::Hunk;
use mcpevol::release::Shape;
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

const PLAN: &str = r#"```json
{"changes": [
  {"operator": "O1", "targets": ["list_cities"], "rationale": "Clients want every city in one call."},
  {"operator": "O9", "targets": ["get_forecast"], "rationale": "Say what the forecast holds."},
  {"operator": "O10", "targets": ["get_forecast"], "rationale": "Say that city names match in any case."}
]}
```"#;

/// O1 on `fixtures/switch-esm`: a new tool `list_all_cities` whose handler answers `answer`.
fn new_tool(answer: &str) -> Vec<Hunk> {
    vec![
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
    ]
}

/// O9 on `get_forecast`: a description that says what the handler does.
fn described() -> Vec<Hunk> {
    vec![Hunk {
        file: "server.js".into(),
        search: "      description: \"Get today's forecast for a city\",\n".into(),
        replace: "      description: \"Get today's forecast for a city: its sky and temperature, in Celsius unless `unit` asks for another\",\n".into(),
    }]
}

/// O10 on `get_forecast`'s `city`: the handler lower-cases the name before looking it up.
fn city_described() -> Vec<Hunk> {
    vec![Hunk {
        file: "server.js".into(),
        search: "description: \"City name, e.g. paris\"".into(),
        replace: "description: \"City name in any case, e.g. paris or Paris\"".into(),
    }]
}

fn tests_reply(tools: &[&str], claims: &str) -> String {
    let calls: Vec<serde_json::Value> = tools
        .iter()
        .map(|t| match *t {
            "get_forecast" => serde_json::json!({"tool": t, "arguments": {"city": "Paris"}, "expect": "success", "contains": "cloudy"}),
            _ => serde_json::json!({"tool": t, "arguments": {}, "expect": "success"}),
        })
        .collect();
    format!(
        "```json\n{{\"tests\": {}, \"claims\": {claims}}}\n```",
        serde_json::Value::Array(calls)
    )
}

const COPY_CLAIM: &str = r#"[{"kind": "variant", "tool": "list_all_cities", "source": "list_cities", "max_chars": null}]"#;

fn release_run(backend: Backend) -> Run {
    let mut run = options(backend, 1, &[]);
    run.opts.shape = Shape::Release;
    run
}

/// One release on a fresh copy of `fixtures/switch-esm`, through the stub with `script`; the
/// outcome and the bodies of the requests the stub got.
fn release(
    dir: &Path,
    name: &str,
    script: Vec<Scripted>,
) -> (Vec<evolve::RoundOutcome>, Vec<String>) {
    let source = common::repo().join("fixtures/switch-esm");
    let stub = StubServer::start(script);
    let work = dir.join(name);
    init_at(&source, &work, None);
    let rounds = evolve_with(&work, &release_run(llm(&stub, Duration::from_secs(30))));
    let bodies = stub
        .requests()
        .iter()
        .map(|q| q.json().to_string())
        .collect();
    (rounds, bodies)
}

#[test]
fn a_release_the_model_plans_commits_every_change_with_its_claims_kept_and_replay_reproduces_it() {
    let dir = tempfile::tempdir().unwrap();
    let script = vec![
        // A plan that is no plan goes back to the model, then a good one.
        Scripted::reply("I would add a tool."),
        Scripted::reply(PLAN),
        Scripted::reply(blocks(&new_tool("Object.keys(CITIES).join(\", \")"))),
        Scripted::reply(blocks(&described())),
        Scripted::reply(blocks(&city_described())),
        Scripted::reply(tests_reply(
            &["list_all_cities", "get_forecast"],
            COPY_CLAIM,
        )),
    ];
    let (rounds, bodies) = release(dir.path(), "model", script);
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
    // The plan prompt carries the drawn size and the target mix; a plan that is none is told.
    assert!(bodies[0].contains("This release concerns"), "{}", bodies[0]);
    assert!(bodies[0].contains("P2, a new tool"), "{}", bodies[0]);
    assert!(bodies[1].contains("I would add a tool."), "{}", bodies[1]);
    // Each change is written with its own operator's prompt, on the tree the one before left.
    assert!(
        bodies[4].contains("its sky and temperature"),
        "{}",
        bodies[4]
    );

    let work = dir.path().join("model");
    let ws = Workspace::open(&work).unwrap();
    let r = version_record::read_round(&ws, "v1").unwrap().unwrap();
    let ops: Vec<String> = r
        .changes
        .iter()
        .map(|c| c.proposal.operator.to_string())
        .collect();
    assert_eq!(ops, ["O1", "O9", "O10"], "{r:?}");
    assert!(r.proof.is_proven(), "{:?}", r.proof);
    assert!(
        r.changes.iter().all(|c| c.proof.is_proven()),
        "{:?}",
        r.changes
    );
    let release = r.release.as_ref().expect("a release record");
    assert_eq!(release.drafted, 3);
    assert!(release.planned_tools >= 1);
    // The claim was checked, and passed: the new tool answers every call as the old one.
    assert!(
        r.tests.iter().any(|t| t.tool == "list_all_cities"
            && t.passed
            && matches!(t.check, mcpevol::validate::Check::Claim { .. })),
        "no passed check of the claimed copy: {:?}",
        r.tests
    );
    let log = mcpevol::history::log(&ws).unwrap();
    assert_eq!(log.len(), 2);

    // Replay: no endpoint, the same plan, the same commit tree.
    let again = dir.path().join("replay");
    let source = common::repo().join("fixtures/switch-esm");
    init_at(&source, &again, None);
    let replayed = evolve_with(
        &again,
        &release_run(Backend::Replay {
            from: evolve::ReplaySource::Workspace(work.clone()),
        }),
    );
    assert_eq!(
        replayed[0].status,
        evolve::RoundStatus::Committed,
        "{replayed:?}"
    );
    assert_eq!(trees(&again), trees(&work));
}

#[test]
fn a_change_whose_claim_the_code_does_not_keep_is_dropped_and_the_rest_of_the_release_commits() {
    let dir = tempfile::tempdir().unwrap();
    let script = vec![
        Scripted::reply(PLAN),
        // The new tool claims to answer as `list_cities`, but answers one city.
        Scripted::reply(blocks(&new_tool("\"paris\""))),
        Scripted::reply(blocks(&described())),
        Scripted::reply(blocks(&city_described())),
        Scripted::reply(tests_reply(
            &["list_all_cities", "get_forecast"],
            COPY_CLAIM,
        )),
        // Without the dropped change, the tests of the two description changes.
        Scripted::reply(tests_reply(&["get_forecast"], "[]")),
    ];
    let (rounds, _) = release(dir.path(), "model", script);
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
    let ws = Workspace::open(&dir.path().join("model")).unwrap();
    let r = version_record::read_round(&ws, "v1").unwrap().unwrap();
    let ops: Vec<String> = r
        .changes
        .iter()
        .map(|c| c.proposal.operator.to_string())
        .collect();
    assert_eq!(ops, ["O9", "O10"], "{r:?}");
    let dropped = r
        .rejected
        .iter()
        .find(|x| x.reason.starts_with("dropped from the release"))
        .unwrap_or_else(|| panic!("the dropped change is recorded: {:?}", r.rejected));
    assert_eq!(dropped.operator.as_ref().unwrap().as_str(), "O1");
    assert!(
        dropped.reason.contains("list_all_cities")
            && dropped.reason.contains("`list_cities`'s answer"),
        "the reason is the claim that failed: {}",
        dropped.reason
    );
    assert!(
        !r.schema_changes.iter().any(|c| c.tool == "list_all_cities"),
        "{:?}",
        r.schema_changes
    );
    assert_eq!(r.release.as_ref().unwrap().drafted, 3);
}

#[test]
fn a_plan_naming_tools_the_server_lacks_goes_back_to_the_model_and_an_edit_that_never_applies_is_left_out()
 {
    let dir = tempfile::tempdir().unwrap();
    let bad_plan =
        r#"{"changes": [{"operator": "O9", "targets": ["get_weather"], "rationale": "x"}]}"#;
    let plan = r#"{"changes": [
      {"operator": "O9", "targets": ["get_forecast"], "rationale": "Say what it holds."},
      {"operator": "O10", "targets": ["get_forecast"], "rationale": "Say names match in any case."}
    ]}"#;
    let stale = vec![Hunk {
        file: "server.js".into(),
        search: "description: \"no such line\"".into(),
        replace: "description: \"x\"".into(),
    }];
    let script = vec![
        Scripted::reply(bad_plan),
        Scripted::reply(plan),
        Scripted::reply(blocks(&described())),
        // O10's edits match nothing, twice: it is left out, O9 goes on alone.
        Scripted::reply(blocks(&stale)),
        Scripted::reply(blocks(&stale)),
        Scripted::reply(tests_reply(&["get_forecast"], "[]")),
    ];
    let (rounds, bodies) = release(dir.path(), "model", script);
    assert!(
        bodies[1].contains("get_weather") && bodies[1].contains("not tools of this server"),
        "{}",
        bodies[1]
    );
    assert_eq!(
        rounds[0].status,
        evolve::RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
    let ws = Workspace::open(&dir.path().join("model")).unwrap();
    let r = version_record::read_round(&ws, "v1").unwrap().unwrap();
    assert_eq!(r.changes.len(), 1, "{r:?}");
    assert_eq!(r.changes[0].proposal.operator.as_str(), "O9");
    assert!(
        r.rejected
            .iter()
            .any(|x| x.reason.starts_with("left out of the release")
                && x.operator.as_ref().is_some_and(|o| o.as_str() == "O10")),
        "{:?}",
        r.rejected
    );
}
