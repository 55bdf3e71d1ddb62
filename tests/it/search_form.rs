//! A search form as a new tool: the rules add `search_notes` beside `list_notes`, whose answer
//! is lines of text; it takes `list_notes`' arguments and `query`, and answers only the lines
//! that contain it. The oracle calls it with a word found in some lines of `list_notes`'
//! answer and not in others, and the addition commits proven. A search form that ignores the
//! text, or keeps no line, is rejected.

use crate::common;
use crate::common::given::{self, one_round};

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{Aliases, ConstraintKind, Context, Proposal, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Compared, Effect, Verdict};

/// The rules' search form of `list_notes` of `fixtures/oracle/search` (see
/// [`given::search_addition`]), in a fresh workspace.
fn search_of_list(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, "search", &dir.join("w"));
    let proposal = given::search_addition(&work, "list_notes");
    (work, proposal)
}

#[test]
fn a_tool_answering_lines_gets_a_search_form_proven_by_a_word_of_its_answer() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = search_of_list(&rt, dir.path());
    assert_eq!(proposal.added, ["search_notes"], "{}", proposal.summary);
    insta::assert_snapshot!("search-form", given::rendered(&proposal));
    let (round, claim) =
        given::claim_checked(&rt, &work, proposal, |e| matches!(e, Effect::Search { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    // Called with a word of the answer that is in some lines and not in others.
    let word = claim.arguments["query"]
        .as_str()
        .expect("a word")
        .to_string();
    assert!(word.len() >= 3, "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

/// The rules' search form with its filter line replaced by `with`, committed: the round's
/// status and reason.
fn broken(filter_with: &str) -> (RoundStatus, String) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = search_of_list(&rt, dir.path());
    let filter =
        ".filter((line) => line.toLowerCase().includes(String(searchNeedle).toLowerCase()))";
    let hunk = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains(filter))
        .expect("the search form's filter");
    hunk.replace = hunk.replace.replace(filter, filter_with);
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    (status, reason)
}

#[test]
fn a_search_form_that_ignores_the_text_is_rejected() {
    let (status, reason) = broken("");
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("search_notes") && reason.contains("searched"),
        "{reason}"
    );
}

#[test]
fn a_search_form_that_keeps_no_line_is_rejected() {
    let (status, reason) = broken(".filter(() => false)");
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("search_notes"), "{reason}");
}

#[test]
fn no_search_form_is_written_for_a_tool_whose_answer_is_not_known_to_have_lines() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "search", &dir.path().join("w"));
    let inventory = mcpevol::anchor::anchor(&work).unwrap();
    let answering = ["list_notes".to_string()];
    let avoid = ["browse_folders".to_string()];
    for seed in 1..30 {
        let ctx = Context {
            root: &work,
            inventory: &inventory,
            seed,
            avoid: &avoid,
            answering: &answering,
            multiline: &[],
            json: &[],
            constraint: ConstraintKind::Bound,
            aliases: Aliases::Refused,
        };
        let p = rules::propose(Builtin::ToolAddition, &ctx).unwrap();
        assert!(
            !p.effects.iter().any(|e| matches!(e, Effect::Search { .. })),
            "{}",
            p.summary
        );
    }
}

/// The rules' Tool Addition with `browse_folders` (a list already, and a verb that takes it whole:
/// a search form is the one new tool it can have) the one tool to change, told `multiline` of the answers.
fn addition_of_folders(work: &std::path::Path, multiline: &[String]) -> Result<Proposal, String> {
    // The server as if `browse_folders` were its one tool.
    let mut inventory = mcpevol::anchor::anchor(work).unwrap();
    inventory.tools.retain(|t| t.name == "browse_folders");
    let answering = ["browse_folders".to_string()];
    let ctx = Context {
        root: work,
        inventory: &inventory,
        seed: 3,
        avoid: &[],
        answering: &answering,
        multiline,
        json: &[],
        constraint: ConstraintKind::Bound,
        aliases: Aliases::Refused,
    };
    rules::propose(Builtin::ToolAddition, &ctx).map_err(|e| e.to_string())
}

#[test]
fn a_tool_whose_one_new_tool_is_a_search_form_gets_it_only_where_its_answer_has_lines() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "search", &dir.path().join("w"));
    // Not known to answer lines: refused with the reason, not a panic (the servers-npm run
    // at 631e279 stopped on one).
    let why = addition_of_folders(&work, &[]).unwrap_err();
    assert!(why.contains("search form"), "{why}");
    let proposal = addition_of_folders(&work, &["browse_folders".to_string()]).unwrap();
    assert_eq!(proposal.added, ["search_folders"], "{}", proposal.summary);
    let (round, claim) =
        given::claim_checked(&rt, &work, proposal, |e| matches!(e, Effect::Search { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}
