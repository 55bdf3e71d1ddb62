//! `mcpevol drift` on real npm servers of servers-npm/ evolved 5 rounds with the rules backend
//! (a batch, audited two servers at once): every call's verdict is what the version records
//! say changed, and the forecast agrees with the replay except where docs/drift.md says why.

use crate::common;

use std::path::Path;

use serde_json::Value;

use mcpevol::schema::Change;
use mcpevol::validate::Verdict;
use mcpevol::version_record::{self, RoundRecord};
use mcpevol::workspace::Workspace;

/// Three servers of different kinds: one with state across calls (memory), one whose answers
/// hold the time (time), and a small one (hello-world). Each is one `[[server]]` of
/// servers-npm/servers.toml with its launch settings.
const SERVERS: [(&str, &str, &str, &str); 3] = [
    (
        "memory",
        "@modelcontextprotocol/server-memory",
        "dist/index.js",
        "MEMORY_FILE_PATH = \"{tmp}/memory.json\"",
    ),
    ("time", "time-mcp", "dist/index.js", ""),
    ("hello-world", "mcp-hello-world", "build/stdio.js", ""),
];

/// What the records say a call of `tool` becomes at the version of `records`' last one: its
/// name now, or None once a round removed it.
fn fate(records: &[RoundRecord], tool: &str) -> Option<String> {
    let mut name = tool.to_string();
    for r in records {
        for c in r.schema_changes.iter().filter(|c| c.tool == name) {
            match &c.what {
                Change::ToolRenamed { to } => {
                    name = to.clone();
                    break;
                }
                Change::ToolRemoved => return None,
                _ => {}
            }
        }
    }
    Some(name)
}

fn batch(tmp: &Path) -> std::path::PathBuf {
    let installed = common::repo().join("servers-npm/node_modules");
    common::require_npm_install(&common::repo().join("servers-npm"));
    let manifest = tmp.join("m.toml");
    let text: String = SERVERS
        .iter()
        .map(|(id, package, entry, env)| {
            format!(
                "[[server]]\nid = \"{id}\"\nsource = \"{}\"\ncommand = \"node\"\nargs = [\"{entry}\"]\nenv = {{ {env} }}\n\n",
                installed.join(package).display()
            )
        })
        .collect();
    std::fs::write(&manifest, text).unwrap();
    let out = tmp.join("batch");
    common::ok(common::mcpevol(&[
        "batch",
        manifest.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--rounds",
        "5",
        "--seed",
        "7",
        "--jobs",
        "2",
    ]));
    out
}

#[test]
fn every_verdict_on_real_servers_is_what_the_version_records_say_changed() {
    let tmp = tempfile::tempdir().unwrap();
    let out = batch(tmp.path());
    let audit = common::ok(common::mcpevol(&[
        "drift",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--json",
    ]));
    let stderr = String::from_utf8_lossy(&audit.stderr);
    assert!(
        stderr.contains("versions]"),
        "the batch's progress lines: {stderr}"
    );
    let report: Value = serde_json::from_slice(&audit.stdout).unwrap();
    let mut wrong = Vec::new();
    let mut gone = 0;
    let mut checked = 0;
    for (id, ..) in SERVERS {
        let server = report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == id)
            .unwrap_or_else(|| panic!("{id} is audited"));
        assert_eq!(server.get("error"), None, "{id}");
        let ws = Workspace::open(&out.join("servers").join(id)).unwrap();
        let records: Vec<RoundRecord> = ws
            .versions()
            .unwrap()
            .iter()
            .map(|v| version_record::read_round(&ws, v.tag).unwrap().unwrap())
            .collect();
        assert_eq!(records.len(), 6, "{id} reached v5");
        let versions: Vec<String> = (0..6).map(|n| format!("v{n}")).collect();
        assert_eq!(server["versions"], serde_json::json!(versions), "{id}");
        let original = &records[0].tests;
        assert_eq!(
            server["calls"].as_array().unwrap().len(),
            original.len(),
            "{id}"
        );
        let results = common::drift::results(server);
        for (i, test) in original.iter().enumerate() {
            let call = i as u64 + 1;
            for (n, version) in versions.iter().enumerate() {
                let r = results[&(call, version.clone())];
                let now = fate(&records[1..=n], &test.tool);
                let (verdict, successor) = match &now {
                    None => ("unknown-tool", None),
                    Some(name) if *name != test.tool => ("unknown-tool", Some(name.as_str())),
                    Some(_) if test.verdict != Verdict::Passed => ("unverifiable", None),
                    Some(_) => ("same", None),
                };
                gone += usize::from(verdict == "unknown-tool");
                checked += 1;
                let forecast = if verdict == "unknown-tool" {
                    "breaks"
                } else {
                    "ok"
                };
                let got = (r["verdict"].as_str().unwrap(), r["successor"].as_str());
                // A call after a refused one sees the state the refused call did not make:
                // docs/drift.md explains it, and the reason must say so.
                let cascade = matches!(got.0, "changed" | "error")
                    && r["reason"].as_str().unwrap().contains("was refused here");
                if (got != (verdict, successor) && !cascade) || r["forecast"] != forecast {
                    wrong.push(format!(
                        "{id} call {call} ({}) at {version}: records say {verdict} {successor:?} \
                         (forecast {forecast}), drift says {got:?} (forecast {}): {}",
                        test.tool, r["forecast"], r["reason"]
                    ));
                }
            }
        }
        for d in server["disagreements"].as_array().unwrap() {
            if !d["why"].as_str().unwrap().contains("was refused here") {
                wrong.push(format!(
                    "{id}: a disagreement docs/drift.md does not explain: {d}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(
        gone > 0,
        "the five rounds renamed or removed a tool somewhere"
    );
    assert!(checked > 60, "{checked} calls and versions checked");
}
