//! Which change of a rejected release the rejection is about, so that that one is dropped.

use crate::mutate::Proposal;

/// The change a rejection names: by a tool of its own in backticks (with its operator, when
/// that is named too), else by a file it edits that a stack trace points into (a server that
/// throws at load names no tool: `.../work/build/charts/liquid.js:11`), else the last drafted.
/// Without the file, a server that would not start had its last drafted change dropped, again
/// and again, while the change that broke it stayed: on a 27-tool server, 26 changes were
/// dropped in 5 releases for one edit's crash.
pub(super) fn culprit(changes: &[Proposal], why: &str) -> usize {
    let names = |p: &Proposal| {
        p.targets
            .iter()
            .chain(&p.added)
            .any(|t| why.contains(&format!("`{t}`")))
    };
    // `contract of O1: ...`, or in a release `contract of O1 on `a`: ...`.
    let by_operator = |p: &Proposal| {
        why.contains(&format!(" {}:", p.operator)) || why.contains(&format!(" {} on ", p.operator))
    };
    let traced = |p: &Proposal| {
        p.hunks
            .iter()
            .any(|h| !h.file.is_empty() && traces_into(why, &h.file))
    };
    let last = |f: &dyn Fn(&Proposal) -> bool| changes.iter().rposition(f);
    last(&|p| names(p) && by_operator(p))
        .or_else(|| last(&names))
        .or_else(|| last(&traced))
        .or_else(|| last(&by_operator))
        .unwrap_or(changes.len() - 1)
}

/// Whether a stack trace in `why` points into the package's own `file` (a path from the
/// package root), not into a dependency's file of that name (`node_modules/x/index.js`).
fn traces_into(why: &str, file: &str) -> bool {
    why.match_indices(&format!("/{file}:")).any(|(i, _)| {
        let path_start = why[..i]
            .rfind(|c: char| c.is_whitespace() || c == '(')
            .map_or(0, |s| s + 1);
        !why[path_start..i].contains("node_modules")
    })
}

#[cfg(test)]
mod tests {
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

    #[test]
    fn the_change_a_rejection_names_is_the_one_dropped() {
        let changes = [change("O9", "a"), change("O5", "b"), change("O10", "a")];
        assert_eq!(culprit(&changes, "test of `b` failed: differs"), 1);
        assert_eq!(culprit(&changes, "test of `a` failed: differs"), 2);
        assert_eq!(
            culprit(
                &changes,
                "the schema change breaks the contract of O9: tool `a`: x"
            ),
            0
        );
        assert_eq!(culprit(&changes, "the server did not start"), 2);
    }

    #[test]
    fn a_broken_contract_in_a_release_drops_the_change_it_names_not_the_last_of_its_operator() {
        let changes = [change("O1", "a"), change("O9", "a"), change("O1", "b")];
        let why = "the schema change breaks the contract of O1 on `a`: no change at all, but \
                   this operator requires exactly 1 tool-added";
        assert_eq!(culprit(&changes, why), 0);
    }

    #[test]
    fn a_server_that_throws_at_load_drops_the_change_that_edits_the_file_it_names() {
        let mut changes = [change("O6", "a"), change("O9", "b"), change("O10", "c")];
        changes[0].hunks = vec![crate::hunks::Hunk::new("build/a.js", "x", "y")];
        changes[1].hunks = vec![crate::hunks::Hunk::new("build/b.js", "x", "y")];
        changes[2].hunks = vec![crate::hunks::Hunk::new("build/c.js", "x", "y")];
        let why = "server `s` exited (exit status: 1) before the MCP handshake; its stderr \
                   ends with:\n  | /tmp/mcpevol-server-1/work/build/a.js:11\n  | .min(0)";
        assert_eq!(culprit(&changes, why), 0);
        // A file nobody edited (a dependency's) names no change.
        let other = "  | /tmp/w/node_modules/zod/lib/types.js:3 TypeError";
        assert_eq!(culprit(&changes, other), 2);
        let dependency = "  at f (/tmp/w/node_modules/x/build/b.js:3:1)";
        assert_eq!(culprit(&changes, dependency), 2);
    }
}
