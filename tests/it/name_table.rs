//! A server that routes every call through a table of tool names (`CASE_OF[name]`), on
//! `fixtures/oracle/name-table`: the rules' copy of a tool and their renamed tool each get an
//! entry in the table and commit, their new names answering; a copy listed without its entry
//! answers "Unknown tool" and is rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::operators::Builtin;
use mcpevol::validate::Verdict;

use crate::common::given::{self, hunk, one_round, rules_on};

/// Whether the round's tests of `tool` all passed, and there is at least one.
fn answered(round: &mcpevol::version_record::RoundRecord, tool: &str) -> bool {
    let tests: Vec<_> = round.tests.iter().filter(|t| t.tool == tool).collect();
    !tests.is_empty() && tests.iter().all(|t| t.verdict == Verdict::Passed)
}

#[test]
fn a_copy_and_a_renamed_tool_get_entries_in_the_name_table_and_answer() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "name-table", &dir.path().join("w"));
    for (op, tool) in [
        (Builtin::ToolAddition, "shout"),
        (Builtin::ToolReplacement, "whisper"),
    ] {
        let proposal = rules_on(&work, op, tool);
        let new = proposal.added[0].clone();
        let table = proposal
            .hunks
            .iter()
            .any(|h| h.replace.contains(&format!("\"{new}\": \"")));
        assert!(table, "no entry for {new}: {:?}", proposal.hunks);
        let backend = mcpevol::evolve::Backend::Given {
            proposal: Box::new(proposal),
        };
        let (status, reason, round) = one_round(&rt, &work, &backend);
        assert_eq!(status, RoundStatus::Committed, "{op:?} on {tool}: {reason}");
        let round = round.unwrap();
        assert!(answered(&round, &new), "{new}: {:?}", round.tests);
        assert!(round.proof.is_proven(), "{:?}", round.proof);
    }
}

#[test]
fn a_copy_listed_without_its_entry_in_the_name_table_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "name-table", &dir.path().join("w"));
    let listed_only = given::proposal(
        "O4",
        &["shout"],
        &["shout_alias"],
        vec![hunk(
            "const TOOLS = [\n",
            "const TOOLS = [\n  {\n    name: \"shout_alias\",\n    description: \"Another name for `shout`\",\n    \
             inputSchema: { type: \"object\", properties: { text: { type: \"string\", description: \"The text\" } }, required: [\"text\"] },\n  },\n",
        )],
        Vec::new(),
    );
    let (status, reason, _) = one_round(&rt, &work, &listed_only);
    assert_ne!(status, RoundStatus::Committed, "{reason}");
    assert!(reason.contains("shout_alias"), "{reason}");
}
