//! `mcpevol export`: every exported stage, started from mcp.json by the official TypeScript
//! SDK client as an MCP client would, lists exactly the tools recorded for its version.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use mcpevol::version_record;
use mcpevol::workspace::Workspace;

/// A batch of three fixtures: a plain one, a TypeScript one launched through `--import tsx`
/// (resolved from its working folder), one whose tools depend on launch env and args.
fn evolved_batch(tmp: &Path) -> PathBuf {
    common::fixture_batch(
        tmp,
        &["switch-esm", "cross-file-ts", "flagged-tools"],
        &[
            "--rounds",
            "2",
            "--seed",
            "3",
            "--jobs",
            "2",
            "--stages",
            "early=v0,middle=v1,late=v2",
        ],
    )
}

/// A listed tool as mcpevol records it: through the MCP SDK's `Tool` type, which has no field
/// for newer keys such as `execution` (so tools.json has none either).
fn as_recorded(tools: &Value) -> Value {
    let Some(list) = tools.as_array() else {
        return tools.clone(); // an {"error": ...} from the client, shown as it is
    };
    list.iter()
        .map(|t| {
            let tool: rmcp::model::Tool = serde_json::from_value(t.clone()).unwrap();
            serde_json::to_value(tool).unwrap()
        })
        .collect()
}

fn recorded_tools(ws: &Path, tag: &str) -> Value {
    let ws = Workspace::open(ws).unwrap();
    let tools = version_record::read_tools(&ws, tag).unwrap().unwrap().tools;
    Value::Array(tools.into_iter().map(Value::from).collect())
}

#[test]
fn every_exported_stage_started_from_mcp_json_lists_its_recorded_tools() {
    let tmp = tempfile::tempdir().unwrap();
    let batch = evolved_batch(tmp.path());
    let into = tmp.path().join("export");
    common::ok(common::mcpevol(&[
        "export",
        batch.to_str().unwrap(),
        "--stages",
        "early,middle,late",
        "--into",
        into.to_str().unwrap(),
    ]));
    let mcp: Value =
        serde_json::from_str(&std::fs::read_to_string(into.join("mcp.json")).unwrap()).unwrap();
    let servers = mcp["mcpServers"].as_object().unwrap();
    assert_eq!(servers.len(), 9, "3 servers x 3 stages: {mcp}");

    let client = Command::new("node")
        .arg(common::repo().join("fixtures/mcp-json-client.mjs"))
        .arg(into.join("mcp.json"))
        // Not the stage folder: the entry's own cwd and absolute paths must suffice.
        .current_dir(tmp.path())
        .output()
        .unwrap();
    let client = common::ok(client);
    let listed: Value = serde_json::from_slice(&client.stdout).unwrap();
    let mut changed = 0;
    for (key, entry) in servers {
        let (name, stage) = key.split_once('@').unwrap();
        let folder = Path::new(entry["cwd"].as_str().unwrap());
        assert!(
            folder.join("package.json").is_file(),
            "{key} is a package folder"
        );
        let ws = batch.join("servers").join(name);
        let expected = recorded_tools(&ws, stage);
        assert!(!expected.as_array().unwrap().is_empty());
        assert_eq!(
            as_recorded(&listed[key]),
            expected,
            "{key}: live tools differ from tools.json"
        );
        if expected != recorded_tools(&ws, "early") {
            changed += 1;
        }
    }
    // The later stages are evolved versions, not copies of the original.
    assert!(changed >= 3, "only {changed} stages differ from early");
}

#[test]
fn exporting_a_stage_that_does_not_exist_names_the_tag_and_writes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("fixtures");
    let ws = tmp.path().join("ws");
    common::ok(common::mcpevol(&[
        "init",
        fixtures.join("if-cjs").to_str().unwrap(),
        ws.to_str().unwrap(),
    ]));
    let into = tmp.path().join("export");
    let o = common::mcpevol(&[
        "export",
        ws.to_str().unwrap(),
        "--stages",
        "early,late",
        "--into",
        into.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(
            "server `ws` has no tag `late` (its latest version is v0); nothing was exported"
        ),
        "{err}"
    );
    assert!(!into.exists());
    common::ok(common::mcpevol(&[
        "export",
        ws.to_str().unwrap(),
        "--stages",
        "early",
        "--into",
        into.to_str().unwrap(),
    ]));
    assert!(into.join("ws@early/index.js").is_file());
}
