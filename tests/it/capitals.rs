//! Enum values accepted in capitals too (P8, looser), on `fixtures/oracle/demote`'s `convert`
//! (`unit: z.enum(["ft", "m", "in"])`): the rules' change declares `FT`, `M` and `IN`, reads
//! them as the values they spell, and commits proven by its claim (a call with `FT` answers as
//! the same call with `ft`). The same values declared without a handler that reads them are
//! rejected: the handler looks `FT` up and answers `NaN`.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::mutate::ConstraintKind;
use mcpevol::operators::Builtin;
use mcpevol::validate::{Effect, Verdict};

use crate::common::given::{self, claim_checked, hunk, one_round, rules_on_as};

#[test]
fn the_rules_capitalised_enum_values_commit_proven_by_their_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let proposal = rules_on_as(
        &work,
        Builtin::ConstraintMutation,
        "convert",
        ConstraintKind::Capitals,
    );
    let schema = proposal.hunks.iter().any(|h| {
        h.replace
            .contains(r#"z.enum(["ft", "m", "in", "FT", "M", "IN"])"#)
    });
    assert!(schema, "{:?}", proposal.hunks);
    assert_eq!(proposal.effects.len(), 3, "{:?}", proposal.effects);
    let (round, claim) = claim_checked(&rt, &work, proposal, |e| {
        matches!(e, Effect::Synonym { .. })
    });
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    let sent = claim.arguments["unit"].as_str().unwrap();
    assert!(["FT", "M", "IN"].contains(&sent), "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn capitalised_enum_values_the_handler_does_not_read_are_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let claims = [("FT", "ft"), ("M", "m"), ("IN", "in")]
        .iter()
        .map(|(value, means)| Effect::Synonym {
            tool: "convert".into(),
            param: "unit".into(),
            value: value.to_string(),
            means: means.to_string(),
        })
        .collect();
    let declared_only = given::proposal(
        "O6",
        &["convert"],
        &[],
        vec![hunk(
            r#"z.enum(["ft", "m", "in"])"#,
            r#"z.enum(["ft", "m", "in", "FT", "M", "IN"])"#,
        )],
        claims,
    );
    let (status, reason, _) = one_round(&rt, &work, &declared_only);
    assert_ne!(status, RoundStatus::Committed, "{reason}");
    // The claim's check: the call with `FT` against the same call with `ft`, made now.
    assert!(reason.contains("`3.281 ft` became `NaN FT`"), "{reason}");
}
