//! The change a rejected release drops, picked by what its error blames.

use super::*;
use mcpevol_core::operators::OperatorId;

fn change(op: &str, tool: &str) -> Proposal {
    Proposal {
        operator: OperatorId::parse(op),
        targets: vec![tool.into()],
        added: Vec::new(),
        summary: String::new(),
        hunks: Vec::new(),
        effects: Vec::new(),
    }
}

fn tools(names: &[&str]) -> Blame {
    Blame::Tools(names.iter().map(|n| n.to_string()).collect())
}

#[test]
fn the_change_a_failed_check_names_is_the_one_dropped() {
    let changes = [change("O9", "a"), change("O5", "b"), change("O10", "a")];
    let failed = |tool: &str| AttemptError::Test {
        tool: tool.into(),
        reason: "differs".into(),
        check: Box::new(Check::AsBefore),
    };
    assert_eq!(failed("b").blame().pick(&changes), 1);
    assert_eq!(failed("a").blame().pick(&changes), 2);
    assert_eq!(
        tools(&["z"]).pick(&changes),
        2,
        "no change names z: the last"
    );
    assert_eq!(Blame::Unknown.pick(&changes), 2);
}

#[test]
fn a_failed_bound_drops_the_bound_not_the_description_drafted_after_it_on_the_same_tool() {
    let mut changes = [change("O6", "a"), change("O10", "a"), change("O9", "b")];
    let enforced = Effect::Enforced {
        tool: "a".into(),
        param: "count".into(),
    };
    changes[0].effects = vec![enforced.clone()];
    let failed = |check: Check| AttemptError::Test {
        tool: "a".into(),
        reason: "the bound is said to be enforced, but a value beyond it was accepted".into(),
        check: Box::new(check),
    };
    let beyond = Check::BeyondBound {
        param: "count".into(),
    };
    assert_eq!(failed(beyond).blame().pick(&changes), 0);
    assert_eq!(
        failed(Check::Claim { effect: enforced })
            .blame()
            .pick(&changes),
        0
    );
    // A check no claim answers: the last change on its tool, as before.
    assert_eq!(failed(Check::AsBefore).blame().pick(&changes), 1);
    let other = Check::BeyondBound {
        param: "size".into(),
    };
    assert_eq!(failed(other).blame().pick(&changes), 1);
}

#[test]
fn a_broken_contract_drops_the_change_that_broke_it_not_the_last_of_its_operator() {
    let changes = [change("O1", "a"), change("O9", "a"), change("O1", "b")];
    let broken = AttemptError::Contract {
        operator: "O1 on `a`".into(),
        violations: vec![
            "no change at all, but this operator requires exactly 1 tool-added".into(),
        ],
        blame: Blame::Change(0),
    };
    assert_eq!(broken.blame().pick(&changes), 0);
    assert_eq!(
        Blame::Change(7).pick(&changes),
        2,
        "a place out of range: the last"
    );
}

#[test]
fn a_server_that_throws_at_load_drops_the_change_that_edits_the_file_it_names() {
    let mut changes = [change("O6", "a"), change("O9", "b"), change("O10", "c")];
    changes[0].hunks = vec![crate::hunks::Hunk::new("build/a.js", "x", "y")];
    changes[1].hunks = vec![crate::hunks::Hunk::new("build/b.js", "x", "y")];
    changes[2].hunks = vec![crate::hunks::Hunk::new("build/c.js", "x", "y")];
    let why = "server `s` exited (exit status: 1) before the MCP handshake; its stderr \
               ends with:\n  | /tmp/mcpevol-server-1/work/build/a.js:11\n  | .min(0)";
    assert_eq!(Blame::Trace(why.into()).pick(&changes), 0);
    // A file nobody edited (a dependency's) names no change.
    let other = "  | /tmp/w/node_modules/zod/lib/types.js:3 TypeError";
    assert_eq!(Blame::Trace(other.into()).pick(&changes), 2);
    let dependency = "  at f (/tmp/w/node_modules/x/build/b.js:3:1)";
    assert_eq!(Blame::Trace(dependency.into()).pick(&changes), 2);
}

#[test]
fn a_call_failed_on_a_tool_no_change_touches_drops_a_change_that_acts_not_a_description() {
    // A failure on `z` (state an earlier call left): the parameter removal on `b` may have
    // caused it; the descriptions drafted after it cannot have.
    let changes = [
        change("O9", "a"),
        change("O7", "b"),
        change("O10", "c"),
        change("O11", "d"),
    ];
    let failed = AttemptError::Test {
        tool: "z".into(),
        reason: "it answered ToolError where the previous version succeeded".into(),
        check: Box::new(Check::AsBefore),
    };
    assert_eq!(failed.blame().pick(&changes), 1);
    // Descriptions alone: the last, as before.
    let described = [change("O9", "a"), change("O10", "c")];
    assert_eq!(failed.blame().pick(&described), 1);
}
