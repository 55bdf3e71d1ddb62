//! A parameter promoted or demoted in a JSON schema (P13), which a low-level server neither
//! checks nor fills in: the rules name a plain optional parameter in `required` and refuse calls
//! without it in the handler, or take a required number out of `required`, declare its default
//! and hand the handler that value where a call leaves it out. Each commits proven by the
//! oracle's call without the parameter; with the handler's part taken out, each is rejected.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{ConstraintKind, Proposal};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Check, Verdict};

use crate::common::given::{self, one_round, rendered};

/// The rules' change of `kind` on `tool` of `fixtures/oracle/demote-json`, and the round it
/// makes once `broken` has had its way with the proposal's hunks.
fn round(
    kind: ConstraintKind,
    tool: &str,
    broken: impl Fn(&str) -> String,
) -> (
    Proposal,
    RoundStatus,
    String,
    Option<mcpevol::version_record::RoundRecord>,
) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote-json", &dir.path().join("w"));
    let proposal = given::rules_on_as(&work, Builtin::ConstraintMutation, tool, kind);
    let mut changed = proposal.clone();
    for h in &mut changed.hunks {
        h.replace = broken(&h.replace);
    }
    let backend = Backend::Given {
        proposal: Box::new(changed),
    };
    let (status, reason, record) = one_round(&rt, &work, &backend);
    (proposal, status, reason, record)
}

/// The passed check of `check` in the round.
fn passed(record: &mcpevol::version_record::RoundRecord, check: &Check) {
    let test = (record.tests.iter())
        .find(|t| t.check == *check)
        .unwrap_or_else(|| panic!("{check:?} in {:?}", record.tests));
    assert_eq!(test.verdict, Verdict::Passed, "{test:?}");
}

#[test]
fn a_json_schema_parameter_made_required_commits_proven_by_the_call_without_it_refused() {
    let (proposal, status, reason, record) =
        round(ConstraintKind::Promotion, "echo", str::to_string);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let record = record.unwrap();
    passed(
        &record,
        &Check::Required {
            param: "times".into(),
        },
    );
    assert!(record.proof.is_proven(), "{:?}", record.proof);
    insta::assert_snapshot!("json-promotion", rendered(&proposal));
}

#[test]
fn a_json_schema_parameter_listed_required_but_not_refused_is_rejected() {
    let guard = r#"input["times"] === undefined || input["times"] === null"#;
    let (proposal, status, reason, _) = round(ConstraintKind::Promotion, "echo", |r| {
        r.replace(guard, "false")
    });
    assert!(
        proposal.hunks.iter().any(|h| h.replace.contains(guard)),
        "{:?}",
        proposal.hunks
    );
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("without `times`"), "{reason}");
}

#[test]
fn a_json_schema_parameter_made_optional_commits_proven_by_the_call_without_it_answering_as_with_its_default()
 {
    let (proposal, status, reason, record) =
        round(ConstraintKind::Demotion, "convert", str::to_string);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let record = record.unwrap();
    passed(
        &record,
        &Check::Defaulted {
            param: "metres".into(),
        },
    );
    assert!(record.proof.is_proven(), "{:?}", record.proof);
    insta::assert_snapshot!("json-demotion", rendered(&proposal));
}

#[test]
fn a_json_schema_default_declared_but_not_handed_to_the_handler_is_rejected() {
    let fill = r#"input["metres"] = 1;"#;
    let (proposal, status, reason, _) = round(ConstraintKind::Demotion, "convert", |r| {
        r.replace(fill, ";")
    });
    assert!(
        proposal.hunks.iter().any(|h| h.replace.contains(fill)),
        "{:?}",
        proposal.hunks
    );
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("without `metres`"), "{reason}");
}
