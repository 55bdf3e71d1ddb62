//! A display title for a tool (`other`, as real releases were counted), on the JSON definitions
//! of `fixtures/oracle/kiosk`: the rules write `title` beside the description, the live listing
//! shows it, and the tool answering as it did proves the change. A title written beside a
//! change of what the tool answers is rejected, and so is a title the listing never shows.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::mutate::ConstraintKind;
use mcpevol::operators::Builtin;
use mcpevol::schema::{ChangeKind, SchemaChange};
use serde_json::json;

use crate::common::given::{self, hunk, one_round, rules_on_as};

const UPPER: &str = r#"{ name: "upper", description: "Answer the text in capitals","#;

fn kiosk() -> (
    tokio::runtime::Runtime,
    tempfile::TempDir,
    std::path::PathBuf,
) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "kiosk", &dir.path().join("w"));
    (rt, dir, work)
}

#[test]
fn the_rules_title_is_listed_and_commits_proven_by_the_tool_answering_as_before() {
    let (rt, _dir, work) = kiosk();
    let proposal = rules_on_as(
        &work,
        Builtin::ToolDescriptionUpdate,
        "upper",
        ConstraintKind::Title,
    );
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains(
            r#"{ name: "upper", title: "Upper", description: "Answer the text in capitals","#
        ),
        "{written}"
    );
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, round) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    let kinds: Vec<ChangeKind> = round.schema_changes.iter().map(|c| c.kind()).collect();
    assert_eq!(
        kinds,
        [ChangeKind::ToolTitleChanged],
        "{:?}",
        round.schema_changes
    );
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_title_beside_a_change_of_what_the_tool_answers_is_rejected() {
    let (rt, _dir, work) = kiosk();
    let backend = given::proposal(
        "O9",
        &["upper"],
        &[],
        vec![
            hunk(
                UPPER,
                r#"{ name: "upper", title: "Upper", description: "Answer the text in capitals","#,
            ),
            hunk(
                "return say(t.toUpperCase());",
                "return say(t.toUpperCase() + \"!\");",
            ),
        ],
        Vec::new(),
    );
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("upper"), "{reason}");
}

#[test]
fn a_title_the_listing_never_shows_is_rejected() {
    let (rt, _dir, work) = kiosk();
    // Written where the listing does not read it: the server lists what it always did.
    let backend = given::proposal(
        "O9",
        &["upper"],
        &[],
        vec![hunk(
            "const KNOWN = [",
            "const TITLES = { upper: \"Upper\" };\nconst KNOWN = [",
        )],
        Vec::new(),
    );
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("no change"), "{reason}");
}

#[test]
fn a_title_added_at_the_top_or_in_the_annotations_is_one_non_breaking_change_of_no_pattern() {
    /// [`mcpevol::schema::diff`] of lists written as JSON.
    fn diff(before: &[serde_json::Value], after: &[serde_json::Value]) -> Vec<SchemaChange> {
        let listed = |l: &[serde_json::Value]| mcpevol::listed::listed(l.to_vec());
        mcpevol::schema::diff(&listed(before), &listed(after))
    }
    let forecast = json!({"name": "forecast", "description": "Get a forecast", "inputSchema": {"type": "object", "properties": {}}});
    let with = |key: &str, value: serde_json::Value| {
        let mut t = forecast.clone();
        t[key] = value;
        t
    };
    for titled in [
        with("title", json!("Forecast")),
        with("annotations", json!({"title": "Forecast"})),
    ] {
        let changes = diff(std::slice::from_ref(&forecast), &[titled]);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].kind(), ChangeKind::ToolTitleChanged);
        assert!(
            !changes[0].breaking && changes[0].pattern.is_none(),
            "{changes:?}"
        );
    }
    let renamed = diff(
        &[with("title", json!("Forecast"))],
        &[with("title", json!("Weather forecast"))],
    );
    assert_eq!(renamed.len(), 1, "{renamed:?}");
    assert_eq!(renamed[0].kind(), ChangeKind::ToolTitleChanged);
}

/// Where a loop registers definition objects or constants reading their fields one by one
/// (`server.tool(t.name, t.description, ...)`), a title written in the definition would never
/// be listed: the rules write none there, and still write one on a listed JSON definition and
/// in a `registerTool` config that reads a constant's description.
#[test]
fn no_title_is_written_in_a_definition_whose_fields_a_loop_reads_one_by_one() {
    use mcpevol::mutate::Aliases;
    common::require_npm_install(&common::repo().join("fixtures"));
    for (fixture, tool, fits) in [
        ("loop-register", "kv_set", false),
        ("oracle/loop-held", "upper", false),
        ("oracle/kiosk", "upper", true),
        ("oracle/held-fields", "get_note", true),
    ] {
        let root = common::repo().join("fixtures").join(fixture);
        let titled = given::rules_try(
            &root,
            Builtin::ToolDescriptionUpdate,
            Some(tool),
            ConstraintKind::Title,
            Aliases::Refused,
        );
        match titled {
            Err(e) => assert!(
                !fits && e.to_string().contains("one by one"),
                "{fixture}: {e}"
            ),
            Ok(p) => assert!(
                fits && p.hunks.iter().any(|h| h.replace.contains("title")),
                "{fixture}: {}",
                p.summary
            ),
        }
    }
}
