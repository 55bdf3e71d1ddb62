//! `mcpevol drift`'s calls: the original's recorded ones by default, a JSONL file, an agent
//! session's log in the shapes clients write; a bad line refused with its file and number
//! before any server starts; versions named by stage tags.

use crate::common;

use serde_json::Value;

use crate::common::drift::{drift_json, fresh, rename_forecast, results};
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

#[test]
fn the_original_calls_are_the_default_and_a_stage_tag_names_its_version() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = fresh(&rt, dir.path(), "switch-esm", "weather");
    rename_forecast(&rt, &work);
    let report = drift_json(&work, &["--versions", "early,v1"]);
    let server = &report["servers"][0];
    assert_eq!(server["versions"], serde_json::json!(["v0", "v1"]));
    let ws = Workspace::open(&work).unwrap();
    let recorded = version_record::read_round(&ws, "v0")
        .unwrap()
        .unwrap()
        .tests;
    let calls: Vec<(&str, &Value)> = server["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["tool"].as_str().unwrap(), &c["arguments"]))
        .collect();
    let from_record: Vec<(&str, &Value)> = recorded
        .iter()
        .map(|t| (t.tool.as_str(), &t.arguments))
        .collect();
    assert_eq!(
        calls, from_record,
        "one call per tool, as the original's record holds them"
    );
    let gone = results(server)
        .into_iter()
        .filter(|(_, r)| r["verdict"] == "unknown-tool")
        .map(|((call, v), r)| (call, v, r["successor"].clone()))
        .collect::<Vec<_>>();
    let forecast_call = calls
        .iter()
        .position(|(t, _)| *t == "get_forecast")
        .unwrap() as u64
        + 1;
    assert_eq!(
        gone,
        [(
            forecast_call,
            "v1".to_string(),
            Value::from("get_forecast_v2")
        )]
    );
}

#[test]
fn a_malformed_call_file_is_refused_with_its_line_before_any_server_starts() {
    let dir = tempfile::tempdir().unwrap();
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(
        &calls,
        "{\"name\": \"get_forecast\", \"arguments\": {\"city\": \"paris\"}}\n\n{\"name\": \"list_cities\", \"arguments\": [\"x\"]}\n",
    )
    .unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let work = fresh(&rt, dir.path(), "switch-esm", "weather");
    let out = common::mcpevol(&[
        "drift",
        work.to_str().unwrap(),
        "--calls",
        calls.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("calls.jsonl, line 3"), "{stderr}");
    assert!(
        stderr.contains("`arguments` is an array, not an object"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("versions]"),
        "no server was started: {stderr}"
    );
    assert!(out.stdout.is_empty());

    let log = dir.path().join("session.log");
    std::fs::write(
        &log,
        "2025-01-01T10:00:00Z [weather] [info] Initializing server...\n\
         2025-01-01T10:00:01Z [weather] [info] Message from client: {\"method\":\"tools/call\",\"params\":{\"name\":\"get_forecast\",\"arguments\":{\"city\":\"lima\"}},\"jsonrpc\":\"2.0\",\"id\":5}\n\
         2025-01-01T10:00:02Z [weather] [info] Message from client: {\"method\":\"tools/call\",\"params\":{\"arguments\":{}},\"jsonrpc\":\"2.0\",\"id\":6}\n",
    )
    .unwrap();
    let out = common::mcpevol(&[
        "drift",
        work.to_str().unwrap(),
        "--calls",
        log.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("session.log, line 3: a tools/call request without a string `params.name`"),
        "{stderr}"
    );

    let out = common::mcpevol(&["drift", work.to_str().unwrap(), "--versions", "v0,v9"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("`v9` is not a version or stage tag"),
        "{stderr}"
    );
}

#[test]
fn an_agent_session_log_is_replayed_call_by_call() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = fresh(&rt, dir.path(), "switch-esm", "weather");
    // An MCP Inspector-style history and wrapped messages, with the traffic around the calls.
    let log = dir.path().join("session.jsonl");
    std::fs::write(
        &log,
        r#"{"direction":"send","message":{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18"}}}
{"direction":"receive","message":{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"switch-esm"}}}}
{"direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"tokyo","unit":"kelvin"}}}}
{"direction":"receive","message":{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"tokyo: clear, 294.15 kelvin"}]}}}
{"request":"{\"method\":\"tools/call\",\"params\":{\"name\":\"list_cities\",\"arguments\":{}}}","response":"{}"}
"#,
    )
    .unwrap();
    let report = drift_json(&work, &["--calls", log.to_str().unwrap()]);
    let server = &report["servers"][0];
    assert_eq!(
        server["calls"],
        serde_json::json!([
            {"id": 1, "tool": "get_forecast", "arguments": {"city": "tokyo", "unit": "kelvin"}},
            {"id": 2, "tool": "list_cities", "arguments": {}}
        ])
    );
    let verdicts: Vec<&str> = server["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["verdict"].as_str().unwrap())
        .collect();
    assert_eq!(verdicts, ["same", "same"]);
}
