//! The new forms of decorated Python tools (FastMCP's `@mcp.tool`), each a function registered
//! under a name of its own: a batch form that runs the tool's own function on each argument
//! set, and a search form that keeps the lines of its answer holding a text. Each proven by
//! its claim, and a broken one rejected.

use crate::batch_form::{proven_by_two_sets, rejected_with_first_set_only};
use crate::common;
use crate::common::given;
use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{Aliases, Proposal};
use mcpevol::validate::{Compared, Effect, Verdict};

#[test]
fn a_decorated_python_tool_gets_a_batch_function_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "py-forms", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    assert_eq!(proposal.added, ["get_notes"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("async def get_notes(items: list[dict]):"),
        "{written}"
    );
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_python_tool_named_in_its_decorator_gets_a_batch_function_registered_under_a_name_of_its_own() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "py-forms", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "notes_count_words", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    let [new] = proposal.added.as_slice() else {
        panic!("one tool added: {}", proposal.summary)
    };
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains(&format!("@mcp.tool(name=\"{new}\"")),
        "the copied decorator names the new tool: {written}"
    );
    assert_eq!(written.matches("name=").count(), 1, "{written}");
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_python_batch_function_that_runs_its_first_set_only_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "py-forms", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    let (loops, first) = ("for arguments in items:", "for arguments in items[:1]:");
    rejected_with_first_set_only(&rt, &work, proposal, loops, first);
}

/// The rules' search form of `notes_list_all` of `fixtures/oracle/py-search` (see
/// [`given::search_addition`]), in a fresh workspace.
fn search_of_list(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, "py-search", &dir.join("w"));
    let proposal = given::search_addition(&work, "notes_list_all");
    (work, proposal)
}

#[test]
fn a_python_tool_answering_lines_gets_a_search_function_proven_by_a_word_of_its_answer() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = search_of_list(&rt, dir.path());
    assert_eq!(proposal.added, ["notes_search_all"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("@mcp.tool(name=\"notes_search_all\"")
            && written
                .contains("async def notes_search_all(\n    query: str,\n    ctx: Context,\n"),
        "the tool's own parameters, context included, beside the text: {written}"
    );
    let (round, claim) =
        given::claim_checked(&rt, &work, proposal, |e| matches!(e, Effect::Search { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_python_search_function_that_ignores_its_text_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = search_of_list(&rt, dir.path());
    let filter = " if needle in line.lower()";
    let hunk = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains(filter))
        .expect("the search function's filter");
    hunk.replace = hunk.replace.replace(filter, "");
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = given::one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("notes_search_all"), "{reason}");
}
