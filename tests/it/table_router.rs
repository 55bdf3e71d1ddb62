//! A tool looked up in a table by the server's one handler of every call
//! (`fixtures/oracle/table-router`, as layered servers write them): anchoring reaches that
//! handler, which gets the whole request. A new parameter's code there reads the tool's
//! arguments from the request and acts for that tool alone; read as if the handler got the
//! tool's input, the parameter did nothing and every such change was dropped.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::validate::{Effect, Verdict};

use crate::common::given::{self, one_round};

fn cut_proposal(work: &std::path::Path) -> mcpevol::mutate::Proposal {
    given::expansion_where(work, "list_notes", false, |p| {
        matches!(p.effects[..], [Effect::TruncateChars { .. }])
    })
    .expect("some seed adds a cut by characters")
}

#[test]
fn a_new_parameter_of_a_tool_a_request_handler_looks_up_cuts_its_answer_and_commits_proven() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "table-router", &dir.path().join("w"));
    let proposal = cut_proposal(&work);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(written.contains("first?.params?.arguments"), "{written}");
    let (round, claim) = given::claim_checked(&rt, &work, proposal, |e| {
        matches!(e, Effect::TruncateChars { .. })
    });
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
    // The other tool the handler serves answers as before.
    assert!(
        round
            .tests
            .iter()
            .any(|t| t.tool == "read_note" && t.verdict == Verdict::Passed),
        "{:?}",
        round.tests
    );
}

#[test]
fn the_same_parameter_read_from_the_request_as_a_tools_input_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "table-router", &dir.path().join("w"));
    let mut proposal = cut_proposal(&work);
    // What the wrapper wrote before: the request taken for the tool's input.
    let hunk = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains("first?.params?.arguments"))
        .expect("the wrapper");
    let start = hunk.replace.find("const input = (typeof").unwrap();
    let end = hunk.replace[start..].find(") ?? {};").unwrap() + start + ") ?? {};".len();
    hunk.replace
        .replace_range(start..end, "const input = callArgs[0] ?? {};");
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("not cut as claimed"), "{reason}");
}
