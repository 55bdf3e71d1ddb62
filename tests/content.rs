//! The oracle compares every kind of answer, not only text: a version that changes an image,
//! structured content or an embedded resource, or a number the old normaliser hid behind a
//! placeholder (a 10-digit count, a long lowercase token), is rejected; a version
//! that changes only a description commits. On `fixtures/oracle/content`, whose answers are
//! the same from run to run.

mod common;

use std::path::Path;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::mutate::Proposal;

fn workspace(rt: &tokio::runtime::Runtime, dir: &Path, name: &str) -> std::path::PathBuf {
    common::oracle_fixture(rt, "content", &dir.join(name))
}

/// A description-update proposal for `tool` whose hunks also make `search` into `replace`.
fn quietly(tool: &str, search: &str, replace: &str) -> Backend {
    let description = DESCRIPTIONS
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, d)| *d)
        .expect("a tool of the fixture");
    let hunk = |search: &str, replace: &str| Hunk {
        file: "server.js".into(),
        search: search.into(),
        replace: replace.into(),
    };
    let mut hunks = vec![hunk(
        &format!("description: \"{description}\""),
        &format!("description: \"{description}. It takes no arguments\""),
    )];
    if search != replace {
        hunks.push(hunk(search, replace));
    }
    Backend::Given {
        proposal: Box::new(Proposal {
            operator: mcpevol::operators::OperatorId::parse("O9"),
            targets: vec![tool.to_string()],
            added: Vec::new(),
            summary: format!("a description of `{tool}` that also changes its answer"),
            hunks,
            effects: Vec::new(),
        }),
    }
}

/// The fixture's tools and their descriptions as written.
const DESCRIPTIONS: &[(&str, &str)] = &[
    ("chart", "Draw the chart as a PNG image"),
    ("sizes", "Sizes of the known files, as structured content"),
    ("readme", "The readme, as an embedded resource"),
    (
        "report",
        "A fixed report with a duration, a count and an id",
    ),
];

fn options() -> EvolveOptions {
    EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 7)
    }
}

#[test]
fn answers_changed_outside_their_text_or_behind_old_placeholders_are_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "chart",
            "AAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==",
            "AAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
            "sha256",
        ),
        (
            "sizes",
            "small: 12, large: 4096",
            "small: 12, large: 4097",
            "4097",
        ),
        ("readme", "version 1\"", "version 2\"", "version"),
        ("report", "rows 1700000000", "rows 1700000001", "1700000001"),
        (
            "report",
            "abcdefghijklmnopqrstuvwxyz",
            "abcdefghijklmnopqrstuvwxyq",
            "xyq",
        ),
    ];
    let mut problems = Vec::new();
    for (i, (tool, search, replace, named)) in cases.into_iter().enumerate() {
        // Each on the original: a change that commits would move the next one's baseline.
        let work = workspace(&rt, dir.path(), &format!("case{i}"));
        let rounds = rt
            .block_on(evolve::evolve(
                &work,
                &quietly(tool, search, replace),
                &options(),
                |_| {},
            ))
            .unwrap();
        let reason = rounds[0].reason.clone().unwrap_or_default();
        if rounds[0].status != RoundStatus::Failed
            || !reason.contains("differs")
            || !reason.contains(named)
        {
            problems.push(format!(
                "{tool} `{replace}`: expected a rejection naming {named:?}, got {:?}: {reason}",
                rounds[0].status
            ));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_description_change_alone_commits_on_the_same_server() {
    // The other side of the test above: the same answers compared again are equal, so the
    // rejections there come from the changes, not from answers that vary.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(&rt, dir.path(), "alone");
    let backend = quietly("chart", "", "");
    let rounds = rt
        .block_on(evolve::evolve(&work, &backend, &options(), |_| {}))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
}
