//! How the previous version is called: each fixture of `fixtures/calls/` has tools that fail
//! with the schema-built call in name order (what mcpevol made before it searched for calls that
//! answer) and answer once the observation has found inputs and an order that work; a crash or
//! a timeout does not end a tool's checks for good; the same version gives the same plan.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcpevol::listed::ListedTool;
use mcpevol::server::session::CallStatus;
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig, Session};
use mcpevol::validate::{
    Baseline, CallHints, PlannedCall, arguments_for, first_version, in_call_order,
};
use serde_json::{Value, json};

fn fixture(name: &str) -> PathBuf {
    common::require_npm_install(&common::repo().join("fixtures"));
    common::repo().join("fixtures/calls").join(name)
}

fn launch(args: &[&str], env: &[(&str, &str)]) -> LaunchConfig {
    LaunchConfig {
        command: "node".into(),
        args: args.iter().map(|a| a.to_string()).collect(),
        env: env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
    }
}

fn plain_launch() -> LaunchConfig {
    launch(&["index.js"], &[])
}

/// A fixture's listed tools, its first version's observation, and the observation of the plain
/// calls: schema-built arguments in name order, as mcpevol called tools before.
struct Observed {
    tools: Vec<ListedTool>,
    now: Baseline,
    plain: Baseline,
}

fn observe(name: &str, config: &LaunchConfig) -> Observed {
    let root = fixture(name);
    common::rounds::runtime().block_on(async {
        let mut session = Session::start(&root, config, &[], DEFAULT_TIMEOUT)
            .await
            .unwrap();
        let tools = session.list_tools().await.unwrap().tools;
        session.close().await;
        let now = Baseline::observe(
            &root,
            config,
            &tools,
            DEFAULT_TIMEOUT,
            &CallHints::default(),
            &Baseline::default(),
        )
        .await
        .unwrap();
        let planned: Vec<PlannedCall> = in_call_order(&tools)
            .into_iter()
            .map(|(n, schema)| PlannedCall::new(n, arguments_for(schema)))
            .collect();
        let plain = Baseline::observe_plan(&root, config, &planned, DEFAULT_TIMEOUT)
            .await
            .unwrap();
        Observed { tools, now, plain }
    })
}

fn statuses(b: &Baseline) -> BTreeMap<&str, CallStatus> {
    b.calls
        .iter()
        .map(|(n, s)| (n.as_str(), s.status))
        .collect()
}

fn order(b: &Baseline) -> Vec<&str> {
    b.calls.keys().map(String::as_str).collect()
}

fn all_answer(b: &Baseline) -> bool {
    b.calls.values().all(|s| s.status == CallStatus::Ok)
}

#[test]
fn an_id_another_tool_returned_makes_the_tool_that_needs_it_answer() {
    let seen = observe("ids", &plain_launch());
    assert_eq!(
        seen.plain.calls["get_note"].status,
        CallStatus::ToolError,
        "a made-up id is refused"
    );
    assert!(all_answer(&seen.now), "{:?}", statuses(&seen.now));
    assert_eq!(seen.now.calls["get_note"].arguments["noteId"], "note-1");
    assert_eq!(seen.now.calls["get_note"].text(), "note-1: test");
}

#[test]
fn a_session_is_opened_before_the_tools_that_need_it_and_closed_after_them() {
    let seen = observe("session", &plain_launch());
    let before = statuses(&seen.plain);
    assert_eq!(before["query_session"], CallStatus::ToolError);
    assert_eq!(before["close_session"], CallStatus::ToolError);
    assert!(all_answer(&seen.now), "{:?}", statuses(&seen.now));
    assert_eq!(
        order(&seen.now),
        ["start_session", "query_session", "close_session"]
    );
    assert_eq!(
        seen.now.calls["query_session"].arguments["sessionId"],
        "s-1"
    );
}

#[test]
fn paths_point_inside_the_folder_the_server_is_allowed_to_use() {
    let seen = observe("folder", &launch(&["index.js", "{tmp}"], &[]));
    assert!(
        seen.plain
            .calls
            .values()
            .all(|s| s.status != CallStatus::Ok),
        "{:?}",
        statuses(&seen.plain)
    );
    assert!(all_answer(&seen.now), "{:?}", statuses(&seen.now));
    // The file a writer made is the file a reader reads, in every run: `{tmp}` is each start's
    // own folder.
    let written = &seen.now.calls["write_text"].arguments["path"];
    assert!(written.as_str().unwrap().starts_with("{tmp}/"), "{written}");
    assert_eq!(&seen.now.calls["read_text"].arguments["path"], written);
    assert_eq!(seen.now.calls["read_text"].text(), "test");
    assert!(seen.now.calls["read_text"].deterministic);
    assert_eq!(seen.now.calls["list_folder"].arguments["dir"], "{tmp}");
}

#[test]
fn an_enum_member_the_tool_accepts_replaces_a_refused_first_one() {
    let seen = observe("enum", &plain_launch());
    assert_eq!(
        seen.plain.calls["boiling_point"].status,
        CallStatus::ToolError
    );
    assert_eq!(seen.now.calls["boiling_point"].status, CallStatus::Ok);
    assert_eq!(
        seen.now.calls["boiling_point"].arguments,
        *json!({"unit": "celsius"}).as_object().unwrap()
    );
}

#[test]
fn a_tool_that_timed_out_is_called_again_at_the_next_version_and_answers() {
    let root = fixture("slow");
    let busy = launch(&["index.js"], &[("HANG", "1")]);
    common::rounds::runtime().block_on(async {
        let mut session = Session::start(&root, &busy, &[], DEFAULT_TIMEOUT)
            .await
            .unwrap();
        let tools = session.list_tools().await.unwrap().tools;
        session.close().await;
        let first = Baseline::observe(
            &root,
            &busy,
            &tools,
            DEFAULT_TIMEOUT,
            &CallHints::default(),
            &Baseline::default(),
        )
        .await
        .unwrap();
        assert_eq!(first.calls["fetch_report"].status, CallStatus::Timeout);
        assert_eq!(first.calls["ping"].status, CallStatus::Ok);
        assert_eq!(order(&first), ["ping", "fetch_report"], "a hang goes last");
        // The next version starts from the calls of its checks, the timed-out one included.
        let hints = CallHints::from_tests(&first_version(&first));
        let next = Baseline::observe(
            &root,
            &plain_launch(),
            &tools,
            DEFAULT_TIMEOUT,
            &hints,
            &first,
        )
        .await
        .unwrap();
        assert_eq!(next.calls["fetch_report"].status, CallStatus::Ok);
        assert_eq!(next.calls["fetch_report"].text(), "report: 3 items");
    });
}

#[test]
fn a_crash_restarts_the_session_and_the_tools_after_it_answer() {
    let seen = observe("crash", &plain_launch());
    // Called first, by name: the server is started again for the calls after the crash.
    assert_eq!(order(&seen.plain), ["explode", "ping", "status"]);
    let before = statuses(&seen.plain);
    assert_eq!(before["explode"], CallStatus::Crashed);
    assert_eq!(before["ping"], CallStatus::Ok);
    assert_eq!(before["status"], CallStatus::Ok);
    // And the plan calls it last, so that a later version's single session reaches the others.
    assert_eq!(order(&seen.now), ["ping", "status", "explode"]);
    assert_eq!(seen.now.calls["explode"].status, CallStatus::Crashed);
}

#[test]
fn the_same_version_observed_twice_gets_the_same_plan() {
    let plan = |b: &Baseline| -> Vec<(String, Value)> {
        b.calls
            .iter()
            .map(|(n, s)| (n.clone(), Value::Object(s.arguments.clone())))
            .collect()
    };
    for (name, config) in [
        ("session", plain_launch()),
        ("folder", launch(&["index.js", "{tmp}"], &[])),
    ] {
        let once = observe(name, &config);
        let twice = observe(name, &config);
        assert_eq!(plan(&once.now), plan(&twice.now), "{name}");
        // The plan is what the next version starts from: its checks' calls, all answered,
        // give the same plan again without a search.
        let hints = CallHints::from_tests(&first_version(&once.now));
        let root = fixture(name);
        let again = common::rounds::runtime()
            .block_on(Baseline::observe(
                &root,
                &config,
                &once.tools,
                DEFAULT_TIMEOUT,
                &hints,
                &Baseline::default(),
            ))
            .unwrap();
        assert_eq!(plan(&again), plan(&once.now), "{name}");
    }
}

#[test]
fn paths_point_inside_the_root_the_client_declares() {
    // The real filesystem server, given no folder on its command line, takes its allowed
    // folders from the client's roots: the start's fresh folder.
    let repo = common::repo().join("servers-npm");
    common::require_npm_install(&repo);
    let root = repo.join("node_modules/@modelcontextprotocol/server-filesystem");
    let config = launch(&["dist/index.js"], &[]);
    common::rounds::runtime().block_on(async {
        let mut session = Session::start(&root, &config, &[], DEFAULT_TIMEOUT)
            .await
            .unwrap();
        let tools = session.list_tools().await.unwrap().tools;
        session.close().await;
        let now = Baseline::observe(
            &root,
            &config,
            &tools,
            DEFAULT_TIMEOUT,
            &CallHints::default(),
            &Baseline::default(),
        )
        .await
        .unwrap();
        let write = &now.calls["write_file"];
        assert_eq!(write.status, CallStatus::Ok, "{}", write.text());
        assert_eq!(now.calls["read_text_file"].status, CallStatus::Ok);
        assert_eq!(now.calls["list_allowed_directories"].status, CallStatus::Ok);
        // The start's own folder, which differs at every start: a hole of the answer.
        let listed = &now.calls["list_allowed_directories"];
        assert!(
            listed.raw.concat().contains("mcpevol-server-"),
            "{:?}",
            listed.raw
        );
        assert!(
            listed.text().contains(mcpevol::validate::volatile::HOLE),
            "{}",
            listed.text()
        );
    });
}
