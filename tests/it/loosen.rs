//! A looser bound (P8): the rules raise a parameter's own upper bound, and the oracle sends a
//! value beyond the old bound. Where the handler answers it, the change commits proven by that
//! call; where the handler still refuses it (its own limit), the change is rejected.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::ConstraintKind;
use mcpevol::operators::Builtin;
use mcpevol::schema::ChangeKind;
use mcpevol::validate::Check;

use crate::common::given::{self, one_round};

fn round_on(
    tool: &str,
) -> (
    RoundStatus,
    String,
    Option<mcpevol::version_record::RoundRecord>,
) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "limits", &dir.path().join("w"));
    let proposal = given::rules_on_as(
        &work,
        Builtin::ConstraintMutation,
        tool,
        ConstraintKind::Loosen,
    );
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(written.contains(".max(10)"), "{written}");
    assert!(
        proposal.summary.contains("allows up to 10 now (was 5)"),
        "{}",
        proposal.summary
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    one_round(&rt, &work, &backend)
}

#[test]
fn a_looser_bound_the_handler_honours_commits_proven_by_a_value_beyond_the_old_one() {
    let (status, reason, round) = round_on("letters");
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    assert!(
        (round.schema_changes.iter()).any(|c| c.kind() == ChangeKind::ParamConstraintChanged),
        "{:?}",
        round.schema_changes
    );
    let inside = (round.tests.iter())
        .find(|t| matches!(&t.check, Check::Loosened { param } if param == "count"))
        .expect("the looser bound exercised");
    assert_eq!(inside.arguments["count"], 6, "{inside:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_looser_bound_the_handler_still_refuses_is_rejected() {
    let (status, reason, _) = round_on("digits");
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("beyond the old one"), "{reason}");
}
