//! The oracle compares every kind of answer, not only text: a version that changes an image,
//! structured content or an embedded resource, or a number the old normaliser hid behind a
//! placeholder (a 10-digit count, a long lowercase token), is rejected; a version
//! that changes only a description commits. A description round that also changes what an
//! optional parameter does is rejected too: each tool is called again with its optional
//! parameters set. On `fixtures/oracle/content`, whose answers are
//! the same from run to run.

use crate::common;

use std::path::Path;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::validate::Effect;

use crate::common::given::{self, hunk};

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
    let mut hunks = vec![hunk(
        &format!("description: \"{description}\""),
        &format!("description: \"{description}. It takes no arguments\""),
    )];
    if search != replace {
        hunks.push(hunk(search, replace));
    }
    given::proposal("O9", &[tool], &[], hunks, Vec::new())
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
    ("greet", "Greet someone by name"),
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

#[test]
fn a_description_round_changing_optional_param_behaviour_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // Only `loud: true` reaches the changed code: the call with the required `name` alone
    // answers as before.
    let work = workspace(&rt, dir.path(), "loud");
    let backend = quietly("greet", "text.toUpperCase() + \"!\"", "text.toUpperCase()");
    let rounds = rt
        .block_on(evolve::evolve(&work, &backend, &options(), |_| {}))
        .unwrap();
    let reason = rounds[0].reason.clone().unwrap_or_default();
    assert_eq!(rounds[0].status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("greet") && reason.contains("differs"),
        "{reason}"
    );

    // The description alone commits, and its record shows the call with `loud` set compared.
    let honest = workspace(&rt, dir.path(), "honest");
    let rounds = rt
        .block_on(evolve::evolve(
            &honest,
            &quietly("greet", "", ""),
            &options(),
            |_| {},
        ))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
    let ws = mcpevol::workspace::Workspace::open(&honest).unwrap();
    let round = mcpevol::version_record::read_round(&ws, rounds[0].version)
        .unwrap()
        .unwrap();
    let loud = round.tests.iter().find(|t| {
        t.tool == "greet"
            && t.check
                == mcpevol::validate::Check::WithOptions {
                    params: vec!["loud".into()],
                }
    });
    let loud = loud.expect("a call of greet with loud set");
    assert!(loud.passed, "{loud:?}");
    assert_eq!(loud.arguments["loud"], serde_json::json!(true));
}

const REPORT_ENTRY: &str = r#"{ name: "report", description: "A fixed report with a duration, a count and an id", inputSchema: { type: "object", properties: {} } },"#;
const SUMMARY_ENTRY: &str = r#"{ name: "summary", description: "The fixed report, under an optional heading", inputSchema: { type: "object", properties: { heading: { type: "string" } } } },"#;

#[test]
fn a_removed_tools_named_successor_must_answer_its_calls() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, backend: &Backend| {
        let work = workspace(&rt, dir.path(), name);
        let rounds = rt
            .block_on(evolve::evolve(&work, backend, &options(), |_| {}))
            .unwrap();
        (
            rounds[0].status,
            rounds[0].reason.clone().unwrap_or_default(),
        )
    };
    let replaced = |answer: &str| {
        let claim = Effect::Variant {
            tool: "summary".into(),
            source: "report".into(),
            max_chars: None,
        };
        given::proposal(
            "O2",
            &["report"],
            &["summary"],
            vec![
                hunk(REPORT_ENTRY, SUMMARY_ENTRY),
                hunk("case \"report\":", "case \"summary\":"),
                hunk("rows 1700000000", answer),
            ],
            vec![claim],
        )
    };
    // The successor answers the removed tool's call as it answered: committed.
    let (status, reason) = run("honest", &replaced("rows 1700000000"));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    // It answers otherwise: rejected, the claim named.
    let (status, reason) = run("dishonest", &replaced("rows 17"));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("successor of `report`"), "{reason}");

    // A removal naming a tool that stays as its successor, which answers otherwise: rejected.
    let removal = given::proposal(
        "O3",
        &["report"],
        &[],
        vec![
            hunk(REPORT_ENTRY, ""),
            hunk("case \"report\":", "case \"report-retired\":"),
        ],
        vec![Effect::Successor {
            tool: "report".into(),
            successor: "chart".into(),
        }],
    );
    let (status, reason) = run("elsewhere", &removal);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("successor of `report`"), "{reason}");
}
