//! Which change of a version answers for each schema change. One change answers for all; of
//! several, each answers for the schema changes of its own tools, and where two changes share a
//! tool (a description and a parameter on one tool of a release), a schema change belongs to
//! the first whose contract requires its kind, else the first whose contract allows it, so that
//! each is held to its own operator's contract and proven by its own checks. A schema change on
//! a tool no change names (a new tool a model wrote, whose name its proposal could not know)
//! belongs to the first change whose contract requires its kind.

use crate::mutate::Proposal;
use mcpevol_core::contract::Contract;
use mcpevol_core::schema::SchemaChange;

/// For each proposal, the indices of the schema changes it answers for. A schema change no
/// proposal's tools account for goes to the first whose contract requires its kind, else it is
/// nobody's.
pub fn assign(proposals: &[(&Proposal, &Contract)], changes: &[SchemaChange]) -> Vec<Vec<usize>> {
    let mut out = vec![Vec::new(); proposals.len()];
    if proposals.len() == 1 {
        out[0] = (0..changes.len()).collect();
        return out;
    }
    for (i, c) in changes.iter().enumerate() {
        let on = |p: &Proposal| p.touches(&c.tool) || c.renamed_to().is_some_and(|n| p.touches(n));
        let requires = |k: &usize| {
            let contract = proposals[*k].1;
            contract
                .require
                .iter()
                .chain(contract.require_any.iter().flatten())
                .any(|count| count.kind == c.kind())
        };
        let mut owners: Vec<usize> = (0..proposals.len())
            .filter(|k| on(proposals[*k].0))
            .collect();
        if owners.is_empty() {
            owners.extend((0..proposals.len()).find(requires));
        }
        let allows = |k: &usize| {
            proposals[*k]
                .1
                .allow
                .as_ref()
                .is_none_or(|kinds| kinds.contains(&c.kind()))
        };
        let allowed = owners
            .iter()
            .copied()
            .find(|k| allows(k) && requires(k))
            .or_else(|| owners.iter().copied().find(allows));
        match (allowed, owners.as_slice()) {
            (Some(k), _) => out[k].push(i),
            // None allows it: every owner answers for it, and its contract says why not.
            (None, owners) => owners.iter().for_each(|k| out[*k].push(i)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpevol_core::schema::Change;
    use mcpevol_core::schema::ChangeKind::*;

    fn proposal(op: &str, tool: &str) -> Proposal {
        Proposal {
            operator: mcpevol_core::operators::OperatorId::parse(op),
            targets: vec![tool.into()],
            added: Vec::new(),
            summary: String::new(),
            hunks: Vec::new(),
            effects: Vec::new(),
        }
    }

    fn allowing(kinds: &[mcpevol_core::schema::ChangeKind]) -> Contract {
        Contract {
            allow: Some(kinds.to_vec()),
            ..Contract::default()
        }
    }

    #[test]
    fn two_changes_on_one_tool_each_answer_for_their_own_kind() {
        let (a, b) = (proposal("O9", "t"), proposal("O5", "t"));
        let (ca, cb) = (allowing(&[ToolDescriptionChanged]), allowing(&[ParamAdded]));
        let changes = [
            SchemaChange::of(
                "t",
                Change::ParamAdded {
                    param: "x".into(),
                    required: false,
                },
            ),
            SchemaChange::of("t", Change::ToolDescriptionChanged),
            SchemaChange::of(
                "t",
                Change::ParamRemoved {
                    param: "y".into(),
                    required: false,
                },
            ),
        ];
        let owned = assign(&[(&a, &ca), (&b, &cb)], &changes);
        assert_eq!(owned, vec![vec![1, 2], vec![0, 2]]);
    }

    #[test]
    fn a_kind_goes_to_the_change_whose_contract_requires_it() {
        let (a, b) = (proposal("O6", "t"), proposal("O10", "t"));
        let ca = allowing(&[ParamConstraintChanged, ParamDescriptionChanged]);
        let cb = Contract {
            require: vec![mcpevol_core::contract::Count {
                kind: ParamDescriptionChanged,
                min: 1,
                max: None,
            }],
            ..allowing(&[ParamDescriptionChanged])
        };
        let changes = [
            SchemaChange::of("t", Change::ParamConstraintChanged { param: "x".into() }),
            SchemaChange::of("t", Change::ParamDescriptionChanged { param: "x".into() }),
        ];
        let owned = assign(&[(&a, &ca), (&b, &cb)], &changes);
        assert_eq!(owned, vec![vec![0], vec![1]]);
    }

    #[test]
    fn a_new_tool_no_change_names_goes_to_the_change_that_requires_a_tool_added() {
        let (a, b) = (proposal("O9", "t"), proposal("O1", "t"));
        let ca = allowing(&[ToolDescriptionChanged]);
        let cb = Contract {
            require: vec![mcpevol_core::contract::Count {
                kind: ToolAdded,
                min: 1,
                max: Some(1),
            }],
            ..allowing(&[ToolAdded])
        };
        let changes = [
            SchemaChange::of("t", Change::ToolDescriptionChanged),
            SchemaChange::of("t_all", Change::ToolAdded),
            SchemaChange::of(
                "u",
                Change::ParamRemoved {
                    param: "y".into(),
                    required: false,
                },
            ),
        ];
        let owned = assign(&[(&a, &ca), (&b, &cb)], &changes);
        assert_eq!(owned, vec![vec![0], vec![1]]);
    }
}
