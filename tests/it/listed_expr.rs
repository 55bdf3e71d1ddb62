//! A listed definition whose input schema is an expression (`inputSchema:
//! zodToJsonSchema(LookupArgs)`), routed by a switch in a function of the request's params: its
//! batch form's `items` take the expression as it is, and the router's wrapper runs the tool's
//! route once per set. The oracle checks the batch form's listed `items` against the tool's own
//! parameters: one whose `items` declare another tool's parameters is rejected, although each
//! set it is given still runs.

use crate::common;
use crate::common::given::{self, one_round};

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{Aliases, Proposal};
use mcpevol::validate::{Compared, Effect, Verdict};

/// The rules' batch form of `define_word` of `fixtures/oracle/listed-expr`, in a fresh
/// workspace under `dir`.
fn batch_of_define(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, "listed-expr", &dir.join("w"));
    let proposal = given::addition_claiming(&work, "define_word", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    (work, proposal)
}

#[test]
fn a_listed_tool_whose_schema_is_converted_when_listed_gets_a_batch_form_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = batch_of_define(&rt, dir.path());
    assert_eq!(proposal.added.len(), 1, "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("items: zodToJsonSchema(LookupArgs)"),
        "{written}"
    );
    insta::assert_snapshot!("listed-expr-batch", given::rendered(&proposal));
    let (round, claim) =
        given::claim_checked(&rt, &work, proposal, |e| matches!(e, Effect::Batch { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_batch_form_whose_items_declare_another_tools_parameters_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = batch_of_define(&rt, dir.path());
    let own = "items: zodToJsonSchema(LookupArgs)";
    let hunk = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains(own))
        .expect("the batch form's items");
    hunk.replace = hunk
        .replace
        .replace(own, "items: zodToJsonSchema(CountArgs)");
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("are listed with the parameters [text] where `define_word` takes"),
        "{reason}"
    );
}

#[test]
fn a_later_change_of_the_tool_commits_with_its_batch_forms_items_following_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = batch_of_define(&rt, dir.path());
    let batch = proposal.added[0].clone();
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let described = given::rules_on(
        &work,
        mcpevol::operators::Builtin::ParameterDescriptionUpdate,
        "define_word",
    );
    let backend = Backend::Given {
        proposal: Box::new(described),
    };
    let (status, reason, round) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.expect("committed");
    // The batch form's items changed with its tool, and are recorded as they are.
    assert!(
        round.schema_changes.iter().any(|c| c.tool == batch),
        "{:?}",
        round.schema_changes
    );
}
