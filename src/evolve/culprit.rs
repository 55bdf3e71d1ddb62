//! Which change of a rejected release the rejection is about, so that that one is dropped.

use crate::mutate::Proposal;

/// The change a rejection names: by a tool of its own in backticks (with its operator, when
/// that is named too), else the last drafted.
pub(super) fn culprit(changes: &[Proposal], why: &str) -> usize {
    let names = |p: &Proposal| {
        p.targets
            .iter()
            .chain(&p.added)
            .any(|t| why.contains(&format!("`{t}`")))
    };
    let by_operator = |p: &Proposal| why.contains(&format!(" {}:", p.operator));
    let last = |f: &dyn Fn(&Proposal) -> bool| changes.iter().rposition(f);
    last(&|p| names(p) && by_operator(p))
        .or_else(|| last(&names))
        .or_else(|| last(&by_operator))
        .unwrap_or(changes.len() - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::operators::OperatorId;

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
}
