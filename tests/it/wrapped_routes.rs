//! A tool routed twice, on `fixtures/oracle/wrapped`: by the `case` of a switch and by an `if`
//! of a wrapper that adds to its answer after the switch has answered (as mcpevol's own cuts
//! do, and servers that post-process one tool). The rules' copy of the tool is routed by both,
//! so it answers as the tool does; their removal takes both out, so the old name no longer
//! answers. Routed by the wrapper alone, the copy answered "Unknown tool" and the removed tool
//! still answered.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::inventory::RouteKind;
use mcpevol::operators::Builtin;
use mcpevol::validate::Verdict;

use crate::common::given::{one_round, rules_on};

#[test]
fn a_tool_routed_by_a_switch_and_a_wrapper_is_anchored_with_both_routes_and_the_case_as_handler() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "wrapped", &dir.path().join("w"));
    let inventory = mcpevol::anchor::anchor(&work).unwrap();
    let shout = inventory.tools.iter().find(|t| t.name == "shout").unwrap();
    let mut kinds: Vec<RouteKind> = shout.sites.routes.iter().map(|r| r.kind).collect();
    kinds.sort_by_key(|k| format!("{k:?}"));
    assert_eq!(
        kinds,
        [RouteKind::Case, RouteKind::Compare],
        "{:?}",
        shout.sites
    );
    let handler = shout.handler.as_ref().expect("a handler");
    let text = std::fs::read_to_string(work.join(&handler.file)).unwrap();
    let snippet = &text[handler.bytes.0..handler.bytes.1];
    assert!(snippet.contains("toUpperCase"), "{snippet}");
}

#[test]
fn the_rules_copy_of_a_tool_routed_twice_answers_as_the_tool() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "wrapped", &dir.path().join("w"));
    let proposal = rules_on(&work, Builtin::ToolAddition, "shout");
    let added = proposal.added.clone();
    assert_eq!(added.len(), 1, "{}", proposal.summary);
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, round) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    let checks: Vec<_> = round.tests.iter().filter(|t| t.tool == added[0]).collect();
    assert!(
        checks.iter().any(|t| t.verdict == Verdict::Passed),
        "{checks:?}"
    );
}

#[test]
fn the_rules_removal_of_a_tool_routed_twice_leaves_no_branch_that_answers_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "wrapped", &dir.path().join("w"));
    let backend = Backend::Given {
        proposal: Box::new(rules_on(&work, Builtin::ToolRemoval, "shout")),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let text = std::fs::read_to_string(work.join("server.js")).unwrap();
    assert!(!text.contains("\"shout\""), "{text}");
}
