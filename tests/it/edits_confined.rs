//! A model's edits stay inside the workspace: through the STUB model endpoint, replies that aim
//! at git's files, mcpevol's records, the shared dependency install (by `node_modules/`, by an
//! absolute path, through a linked folder) or out of the package (`../`) are each refused with
//! a reason the model gets back, and the shared install is byte-for-byte unchanged.

use crate::common;

use std::time::Duration;

use crate::common::rounds::*;
use crate::common::stub::{Scripted, StubServer};
use mcpevol::hunks::Hunk;
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

const SDK: &str = "@modelcontextprotocol/sdk";

#[test]
fn replies_that_edit_outside_the_workspace_sources_are_refused_and_fed_back_and_the_shared_install_is_unchanged()
 {
    let dir = tempfile::tempdir().unwrap();
    let (source, launch) = memory_server();
    let shared = common::repo().join("servers-npm/node_modules");
    let planned = rules_rounds(&source, Some(launch.clone()), 1, dir.path());
    let good = &planned[0];
    let work = dir.path().join("llm");
    init_at(&source, &work, Some(launch));

    // A tracked link to a folder of the shared install, as a package might ship one.
    let sdk = shared.join(SDK).canonicalize().unwrap();
    std::os::unix::fs::symlink(&sdk, work.join("vendor")).unwrap();
    common::git(&work, &["add", "vendor"]);
    common::git(&work, &["commit", "-q", "-m", "vendor link"]);

    let name_line = format!("\"name\": \"{SDK}\"");
    let server_toml = std::fs::read_to_string(work.join(".mcpevol/server.toml")).unwrap();
    let first_toml_line = server_toml.lines().next().unwrap().to_string();
    let escape = dir.path().join("escape.js");
    // Each SEARCH text is really there, so only the confinement stands between it and a write.
    let attacks: Vec<(Hunk, &str)> = vec![
        (
            Hunk::new(".git/config", "[core]", "[core]\n\thooksPath = /tmp"),
            "hunk 1 for .git/config is refused: `.git/` holds the version history",
        ),
        (
            Hunk::new(".mcpevol/server.toml", &first_toml_line, "command = \"sh\""),
            "hunk 1 for .mcpevol/server.toml is refused: `.mcpevol/` holds mcpevol's launch settings",
        ),
        (
            Hunk::new(
                &format!("node_modules/{SDK}/package.json"),
                &name_line,
                "\"name\": \"pwned\"",
            ),
            "is refused: `node_modules/` holds installed dependencies, shared with other workspaces",
        ),
        (
            Hunk::new("../escape.js", "", "pwned\n"),
            "hunk 1 names ../escape.js, which is outside the package: `..` leads out of the package",
        ),
        (
            Hunk::new(
                &sdk.join("package.json").to_string_lossy(),
                &name_line,
                "\"name\": \"pwned\"",
            ),
            "which is outside the package: it is an absolute path",
        ),
        (
            Hunk::new("vendor/package.json", &name_line, "\"name\": \"pwned\""),
            "hunk 1 for vendor/package.json is refused: `vendor` is a symbolic link",
        ),
        (
            Hunk::new("scripts/new.js", "", "pwned\n"),
            "a new file may only be created in a folder that already holds tracked files",
        ),
    ];
    let before = common::tree_digest(&shared);
    let config_before = std::fs::read(work.join(".git/config")).unwrap();

    let op = good.operator.clone().unwrap().to_string();
    let mut script = vec![Scripted::reply(selection(&op, &good.targets))];
    script.extend(
        attacks
            .iter()
            .map(|(h, _)| Scripted::reply(blocks(std::slice::from_ref(h)))),
    );
    script.push(Scripted::reply(blocks(&good.hunks())));
    script.push(Scripted::reply(tests_reply(good)));
    let stub = StubServer::start(script);
    let mut opts = options(llm(&stub, Duration::from_secs(30)), 1, &[&op]);
    opts.opts.max_attempts = attacks.len() as u32 + 1;
    let rounds = evolve_with(&work, &opts);
    assert_eq!(
        rounds[0].status,
        mcpevol::evolve::RoundStatus::Committed,
        "{rounds:?}"
    );

    let ws = Workspace::open(&work).unwrap();
    let record = version_record::read_round(&ws, "v1").unwrap().unwrap();
    let reasons: Vec<&str> = record.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(reasons.len(), attacks.len(), "{reasons:?}");
    let bodies: Vec<String> = stub
        .requests()
        .iter()
        .map(|q| q.json().to_string())
        .collect();
    for (k, ((_, expected), reason)) in attacks.iter().zip(&reasons).enumerate() {
        assert!(reason.contains(expected), "attack {k}: {reason}");
        // Request 0 chose the operator; request k+1 answered reply k; k+2 carries its error.
        let fed_back = serde_json::to_string(expected).unwrap();
        assert!(
            bodies[k + 2].contains(fed_back.trim_matches('"')),
            "attack {k} was not fed back: {}",
            bodies[k + 2]
        );
    }
    assert_eq!(
        common::tree_digest(&shared),
        before,
        "the shared install changed"
    );
    assert_eq!(
        std::fs::read(work.join(".git/config")).unwrap(),
        config_before
    );
    assert_eq!(
        ws.read_at("v1", ".mcpevol/server.toml").unwrap().unwrap(),
        server_toml
    );
    assert!(!escape.exists());
    assert!(!work.join("scripts").exists());
    assert!(ws.dirty_paths().unwrap().is_empty());
}
