//! Release-shaped versions (`--shape release`) on fixture servers: several changes per version,
//! each with its own proof and patterns in the record, the commit and `log --json`; a change
//! that fails its check dropped and the rest committed; the target mix read from a user's file,
//! and a malformed one refused by its line and field; on two real servers where few changes fit,
//! every recipe tried for a tool and a fallback to another kind of change; on a one-tool server,
//! a copy of the tool the release already changed.

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcpevol::evolve::{self, Backend, EvolveOptions, ReleaseProposer, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::mutate::Proposal;
use mcpevol::operators::OperatorId;
use mcpevol::release::{Mix, Shape};
use mcpevol::version_record::{self, RejectionKind};
use mcpevol::workspace::{VersionTag, Workspace};

fn workspace(dir: &Path, fixture: &str) -> PathBuf {
    common::require_npm_install(&common::repo().join("fixtures"));
    let work = dir.join("work");
    let source = common::repo().join("fixtures").join(fixture);
    common::ok(common::mcpevol(&[
        "init",
        &source.to_string_lossy(),
        &work.to_string_lossy(),
    ]));
    work
}

fn log_json(work: &Path) -> serde_json::Value {
    let out = common::ok(common::mcpevol(&["log", &work.to_string_lossy(), "--json"]));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_release_has_several_changes_each_with_its_own_proof_and_patterns() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "register-esm");
    // Four tools a release, the real pattern mix: several changes whatever the seed draws.
    let mix = dir.path().join("four.toml");
    std::fs::write(&mix, "[tools]\n4 = 1\n").unwrap();
    let w = work.to_string_lossy();
    let args = [
        "evolve", &w, "--rounds", "1", "--seed", "3", "--shape", "release",
    ];
    common::ok(common::mcpevol(
        &[&args[..], &["--mix", &mix.to_string_lossy()]].concat(),
    ));

    let ws = Workspace::open(&work).unwrap();
    let record = version_record::read_round(&ws, VersionTag::new(1))
        .unwrap()
        .unwrap();
    assert!(record.changes.len() >= 3, "{:#?}", record.changes);
    let release = record
        .release
        .as_ref()
        .expect("the record says it is a release");
    assert_eq!(release.planned_tools, 4);
    assert_eq!(release.mix, mix.to_string_lossy());
    for c in &record.changes {
        // A changed default alone is no pattern of Table 10 (the mix counts it as `other`).
        let only_defaults = (record.schema_changes.iter())
            .filter(|s| c.tools().contains(&s.tool))
            .all(|s| s.kind() == mcpevol::schema::ChangeKind::ParamDefaultChanged);
        assert!(!c.patterns.is_empty() || only_defaults, "{c:?}");
        assert!(!c.proposal.hunks.is_empty(), "{c:?}");
    }
    let tools: std::collections::BTreeSet<String> =
        record.changes.iter().flat_map(|c| c.tools()).collect();
    assert!(tools.len() >= 3, "{tools:?}");

    let message =
        String::from_utf8(common::git(&work, &["log", "-1", "--format=%B", "v1"]).stdout).unwrap();
    assert!(message.contains("Mcpevol-Shape: release"), "{message}");
    for c in &record.changes {
        let line = format!(
            "- {} {} on {}",
            c.proposal.operator,
            c.operator_name,
            c.tools().join(", ")
        );
        assert!(message.contains(&line), "{line} not in {message}");
    }

    let log = log_json(&work);
    let changes = log["versions"][1]["changes"].as_array().unwrap();
    assert_eq!(changes.len(), record.changes.len());
    for (shown, kept) in changes.iter().zip(&record.changes) {
        assert_eq!(shown["operator"], kept.proposal.operator.as_str());
        assert_eq!(
            shown["patterns"],
            serde_json::to_value(&kept.patterns).unwrap()
        );
        assert!(
            shown["proof"] == "proven" || shown["proof"] == "unproven",
            "{shown}"
        );
    }
    let mix = &log["mix"];
    assert!(mix["events"].as_u64().unwrap() >= 3, "{mix}");
    assert!(mix["target"]["P2"].as_f64().unwrap() > 0.17, "{mix}");
    let tv = mix["tv_distance"].as_f64().unwrap();
    assert!(tv > 0.0 && tv <= 1.0, "{mix}");

    let page = report(&work);
    assert!(page.contains("<h3>Pattern mix</h3>"), "no mix table");
    assert!(page.contains(&format!("distance {tv:.3}")));
    for c in &record.changes {
        let item = format!("<li>{} {} on <code>", c.proposal.operator, c.operator_name);
        assert!(page.contains(&item), "{item} not in the report");
    }
    // The timeline names what made the release, never "original" (which only v0 is).
    let at = page
        .find("data-version=\"v1\"")
        .expect("v1 in the timeline");
    let entry = &page[at..at + page[at..].find("</li>").unwrap()];
    assert!(!entry.contains("original"), "{entry}");
    for c in &record.changes {
        let op = c.proposal.operator.to_string();
        assert!(entry.contains(&op), "{op} not in the timeline's {entry}");
    }
}

/// The HTML report of a workspace.
fn report(work: &Path) -> String {
    let page = work.with_extension("html");
    common::ok(common::mcpevol(&[
        "report",
        &work.to_string_lossy(),
        "--html",
        &page.to_string_lossy(),
    ]));
    std::fs::read_to_string(page).unwrap()
}

const FILE: &str = "server.js";

fn o9(tool: &str, hunks: Vec<Hunk>) -> Proposal {
    Proposal {
        operator: OperatorId::parse("O9"),
        targets: vec![tool.into()],
        added: Vec::new(),
        summary: format!("Tool Description Update: `{tool}`"),
        hunks,
        effects: Vec::new(),
    }
}

#[test]
fn a_change_that_fails_its_check_is_dropped_and_the_rest_committed() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "switch-esm");
    let good = o9(
        "get_forecast",
        vec![Hunk::new(
            FILE,
            "\"Get today's forecast for a city\"",
            "\"Get today's forecast for a city by its name\"",
        )],
    );
    // Dishonest: called a description update, it also changes what the tool answers.
    let bad = o9(
        "list_cities",
        vec![
            Hunk::new(
                FILE,
                "\"List the cities that have forecasts\"",
                "\"List the cities that have forecasts. Each name is one a forecast call accepts.\"",
            ),
            Hunk::new(
                FILE,
                "Object.keys(CITIES).join(\", \")",
                "Object.keys(CITIES).join(\" | \")",
            ),
        ],
    );
    let changes = vec![bad.clone(), good.clone()];
    let backend = Backend::Custom(Arc::new(move || {
        Box::new(ReleaseProposer::given(
            Arc::new(Mix::shipped()),
            changes.clone(),
        ))
    }));
    let opts = EvolveOptions {
        shape: Shape::Release,
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 1)
    };
    let rounds = tokio::runtime::Runtime::new()
        .unwrap()
        .block_on(evolve::evolve(&work, &backend, &opts, |_| {}))
        .unwrap();
    assert_eq!(rounds[0].status, RoundStatus::Committed, "{rounds:?}");
    assert_eq!(rounds[0].attempts, 2);

    let ws = Workspace::open(&work).unwrap();
    let record = version_record::read_round(&ws, VersionTag::new(1))
        .unwrap()
        .unwrap();
    let kept: Vec<&str> = record
        .changes
        .iter()
        .flat_map(|c| c.proposal.targets.iter().map(String::as_str))
        .collect();
    assert_eq!(kept, ["get_forecast"]);
    assert_eq!(record.rejected.len(), 1, "{:#?}", record.rejected);
    let dropped = &record.rejected[0];
    assert_eq!(dropped.targets, ["list_cities"]);
    assert_eq!(dropped.kind, RejectionKind::Test);
    assert!(
        dropped
            .reason
            .starts_with("dropped from the release: test of `list_cities` failed"),
        "{}",
        dropped.reason
    );
    assert_eq!(dropped.hunks, bad.hunks);
    let text = std::fs::read_to_string(work.join(FILE)).unwrap();
    assert!(text.contains("by its name") && text.contains("join(\", \")"));
    let page = report(&work);
    assert!(
        page.contains(
            "<li class=\"dropped\">O9 on <code>list_cities</code> · dropped from the release"
        ),
        "the report does not show the dropped change"
    );
}

#[test]
fn the_mix_file_decides_what_a_release_is_made_of() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "register-esm");
    // Only tool descriptions, two tools a release, nothing composite.
    let mix = dir.path().join("descriptions.toml");
    std::fs::write(
        &mix,
        "[patterns]\nP1 = 1\n\n[tools]\n2 = 1\n\n[composite]\nshare = 0\n",
    )
    .unwrap();
    let w = work.to_string_lossy();
    let m = mix.to_string_lossy();
    common::ok(common::mcpevol(&[
        "evolve", &w, "--rounds", "1", "--seed", "5", "--shape", "release", "--mix", &m,
    ]));
    let ws = Workspace::open(&work).unwrap();
    let record = version_record::read_round(&ws, VersionTag::new(1))
        .unwrap()
        .unwrap();
    let ops: Vec<&str> = record
        .changes
        .iter()
        .map(|c| c.proposal.operator.as_str())
        .collect();
    assert_eq!(ops, ["O9", "O9"]);
    let release = record.release.unwrap();
    assert_eq!((release.planned_tools, release.planned_composite), (2, 0));
    let log = log_json(&work);
    assert_eq!(log["mix"]["source"], m.as_ref());
    assert_eq!(log["mix"]["target"], serde_json::json!({ "P1": 1.0 }));
    assert_eq!(log["mix"]["realised"], serde_json::json!({ "P1": 1.0 }));
    assert_eq!(log["mix"]["tv_distance"], 0.0);
}

#[test]
fn a_malformed_mix_file_is_refused_naming_its_line_and_field() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("not-made");
    let w = work.to_string_lossy();
    let bad = dir.path().join("bad.toml");
    let run = |text: &str, extra: &[&str]| {
        std::fs::write(&bad, text).unwrap();
        let b = bad.to_string_lossy();
        let out =
            common::mcpevol(&[&["evolve", &w, "--rounds", "1", "--mix", &b][..], extra].concat());
        assert!(!out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    let release = ["--shape", "release"];
    let err = run("[patterns]\nP1 = 3\nP42 = 1\n", &release);
    assert!(err.contains("bad.toml:3: `patterns.P42`"), "{err}");
    let err = run("[patterns]\nP1 = 3\n\n[composite]\nshare = 2\n", &release);
    assert!(err.contains("bad.toml:5: `composite.share`"), "{err}");
    let err = run("[patterns\nP1 = 3\n", &release);
    assert!(
        err.contains("is not TOML") && err.contains("line 1"),
        "{err}"
    );
    let err = run("[patterns]\nP1 = 3\n", &[]);
    assert!(
        err.contains("--mix is the target of --shape release"),
        "{err}"
    );
}

#[test]
fn a_release_refuses_a_forced_operator_and_a_replay_of_nothing_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "switch-esm");
    let w = work.to_string_lossy();
    let release = ["evolve", &w, "--rounds", "1", "--shape", "release"];
    let refused = |extra: &[&str]| {
        let out = common::mcpevol(&[&release[..], extra].concat());
        assert!(!out.status.success());
        String::from_utf8(out.stderr).unwrap()
    };
    // A replay plays a model's recorded release plans back; this workspace has none.
    let err = refused(&["--backend", "replay", "--from", &w]);
    assert!(err.contains("`v1`"), "{err}");
    let err = refused(&["--operator", "O9"]);
    assert!(err.contains("it takes no --operator"), "{err}");
    let ws = Workspace::open(&work).unwrap();
    assert_eq!(ws.versions().unwrap().len(), 1, "nothing was committed");
}

/// A real server of servers-npm (`package` under its node_modules) evolved two releases with
/// seed 2026; the workspace, after asserting that both were committed.
fn two_releases_of(dir: &Path, package: &str, init_args: &[&str]) -> Workspace {
    let package = common::repo()
        .join("servers-npm/node_modules")
        .join(package);
    assert!(package.is_dir(), "run scripts/install-servers.sh first");
    let work = dir.join("work");
    let (p, w) = (package.to_string_lossy(), work.to_string_lossy());
    common::ok(common::mcpevol(&[&["init", &*p, &*w], init_args].concat()));
    let out = common::mcpevol(&[
        "evolve", &w, "--rounds", "2", "--seed", "2026", "--shape", "release",
    ]);
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    Workspace::open(&work).unwrap()
}

/// system-monitor's two tools take no parameters, so no composite recipe (a description with a
/// parameter added, a bound, a parameter's description) fits them, and the second release's
/// plan draws composite changes: the release is still committed, with changes of another class
/// (tools added, replaced or removed, a description) instead of failing. (context7 was this
/// test's server until its schemas behind `z.preprocess` were read.) Since releases write no
/// alias copies, the first release leaves one parameterless tool, beside which no tool can be
/// added: the composite slots' fall-back has no other tool to change, so the test no longer
/// asks for more changes than the other slots make (an alias made that count before).
#[test]
fn a_release_whose_planned_tools_fit_no_recipe_falls_back_to_another_kind_of_change() {
    let dir = tempfile::tempdir().unwrap();
    let args = ["--arg", "--stdio"];
    let ws = two_releases_of(
        dir.path(),
        "@modelcontextprotocol/server-system-monitor",
        &args,
    );
    let record = version_record::read_round(&ws, VersionTag::new(2))
        .unwrap()
        .expect("v2 committed");
    let release = record.release.expect("a release record");
    assert!(release.planned_composite > 0, "{release:?}");
    assert!(release.drafted >= 1, "{release:?}");
    assert!(!record.changes.is_empty(), "{release:?}");
    let operators: Vec<String> = record
        .changes
        .iter()
        .map(|c| c.proposal.operator.to_string())
        .collect();
    assert!(
        operators
            .iter()
            .all(|o| ["O1", "O2", "O3", "O4", "O9"].contains(&o.as_str())),
        "{operators:?}"
    );
}

/// antv-chart's zod shapes are compiled TypeScript: chains split over lines, entries naming
/// schemas shared from another module. Read as no schema at all, its tools fitted nothing but
/// tool descriptions (every release was O9 alone); read, its releases change parameters too.
#[test]
fn a_release_on_a_server_of_compiled_zod_shapes_changes_their_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let ws = two_releases_of(dir.path(), "@antv/mcp-server-chart", &[]);
    let mut param_changes = 0;
    for v in 1..=2 {
        let record = version_record::read_round(&ws, VersionTag::new(v))
            .unwrap()
            .expect("committed");
        param_changes += record
            .schema_changes
            .iter()
            .filter(|c| c.param().is_some())
            .count();
    }
    assert!(param_changes > 0, "no parameter changed in two releases");
}

/// A one-tool server (`fixtures/oracle/demote-chain`): once a release has changed its only
/// tool, a copy may still take it (it copies the tool as changed), so a release touches more
/// than the one tool. Before, a changed tool was never copied in its own release, and a
/// one-tool server's releases touched one tool or two.
#[test]
fn a_release_that_changed_every_tool_may_still_add_a_copy_of_one() {
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(dir.path(), "oracle/demote-chain");
    let w = work.to_string_lossy();
    common::ok(common::mcpevol(&[
        "evolve", &w, "--rounds", "4", "--seed", "7", "--shape", "release",
    ]));
    let ws = Workspace::open(&work).unwrap();
    let copied_changed = (1..=4).any(|v| {
        let Some(record) = version_record::read_round(&ws, VersionTag::new(v)).unwrap() else {
            return false;
        };
        // A copy drafted after a change of its tool (one drafted first leaves its tool free).
        let changes = &record.changes;
        (0..changes.len()).any(|j| {
            changes[j].proposal.operator.to_string() == "O1"
                && changes[..j].iter().any(|c| {
                    c.proposal.operator.to_string() != "O1"
                        && (c.proposal.targets.iter())
                            .any(|t| changes[j].proposal.targets.contains(t))
                })
        })
    });
    assert!(copied_changed, "no release copied a tool after changing it");
}
