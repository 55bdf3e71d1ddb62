//! A new bound on a tool that cannot reach its host offline, on `fixtures/oracle/unreachable`:
//! every call of `fetch_page` is refused with a JSON-RPC error at the original too, so a value
//! inside its new bound being refused says nothing about the bound. Such a version commits
//! unproven (the check is unverifiable, with the host error as its reason); the same refusal of
//! a tool that answered before is the bound's fault, and rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::validate::{Check, ProofStatus, Verdict};

use crate::common::given::{self, hunk, one_round};

#[test]
fn a_bound_on_a_tool_that_cannot_reach_its_host_commits_unproven_not_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "unreachable", &dir.path().join("w"));
    let backend = given::proposal(
        "O6",
        &["fetch_page"],
        &[],
        vec![hunk(
            "max_length: { type: \"integer\", description",
            "max_length: { type: \"integer\", maximum: 100000, description",
        )],
        Vec::new(),
    );
    let (status, reason, round) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    let inside = round
        .tests
        .iter()
        .find(|t| {
            t.tool == "fetch_page"
                && t.check
                    == Check::InsideBound {
                        param: "max_length".into(),
                    }
        })
        .expect("a call of fetch_page inside the bound");
    assert_eq!(inside.verdict, Verdict::Unverifiable, "{inside:?}");
    assert_eq!(round.proof.proof, ProofStatus::Unproven);
    let why = round.proof.unproven_reason.clone().unwrap_or_default();
    assert!(why.contains("EAI_AGAIN"), "{why}");
}

#[test]
fn a_bound_whose_handler_refuses_values_inside_it_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "unreachable", &dir.path().join("w"));
    let backend = given::proposal(
        "O6",
        &["repeat"],
        &[],
        vec![
            hunk(
                "times: { type: \"integer\", description",
                "times: { type: \"integer\", maximum: 10, description",
            ),
            hunk(
                "    case \"repeat\":\n",
                "    case \"repeat\":\n      if (args.times !== undefined) throw new Error(\"times is not supported\");\n",
            ),
        ],
        Vec::new(),
    );
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(
        status,
        RoundStatus::Failed,
        "committed a bound that refuses values inside it"
    );
    assert!(reason.contains("inside the bound was refused"), "{reason}");
}
