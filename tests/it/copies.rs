//! A second copy of a tool, on `fixtures/oracle/wrapped`: the rules name it after a suffix no
//! tool has yet. Named as the first copy (same seed, same draw), it was registered twice; the
//! server kept one and the version showed no change, or the copy's constant was declared twice
//! and the server did not load.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::operators::Builtin;

use crate::common::given::{one_round, rules_on};

#[test]
fn a_second_copy_drawn_alike_gets_a_name_no_tool_has_and_commits() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "wrapped", &dir.path().join("w"));
    let mut names: Vec<String> = Vec::new();
    for round in 1..=2 {
        let proposal = rules_on(&work, Builtin::ToolAddition, "shout");
        assert_eq!(proposal.added.len(), 1, "{}", proposal.summary);
        assert!(
            !names.contains(&proposal.added[0]),
            "round {round} named its copy {} again",
            proposal.added[0]
        );
        names.extend(proposal.added.clone());
        let backend = Backend::Given {
            proposal: Box::new(proposal),
        };
        let (status, reason, _) = one_round(&rt, &work, &backend);
        assert_eq!(status, RoundStatus::Committed, "round {round}: {reason}");
    }
}
