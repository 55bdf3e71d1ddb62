//! Interface Refactoring: a parameter added (as Flexible Expansion adds one) or, where none
//! could be seen at work, one pruned (as Parameter Pruning does), with the tool's description
//! saying so.

use super::super::prose::Note;
use super::super::{ConstraintKind, MutateError, Presence};
use super::expansion::{self, Expansion};
use super::pruning::{self, Pruning};
use super::{Draft, describable, shared_checks};
use mcpevol_core::inventory::{DescriptionSite, Tool};
use mcpevol_core::operators::Builtin::{FlexibleExpansion, ParameterPruning};

/// What Interface Refactoring found: the description to update, and the plans of the
/// operators whose change it makes (at least one of them).
pub(super) struct Refactoring<'t> {
    description: &'t DescriptionSite,
    expansion: Option<Expansion<'t>>,
    pruning: Option<Pruning<'t>>,
}

impl Refactoring<'_> {
    /// Whether it can only add a parameter, and none could show on the tool's answers (see
    /// [`expansion::showable`]).
    pub(super) fn adds_nothing_showable(&self, tool: &Tool, cuts_lines: bool, json: bool) -> bool {
        self.pruning.is_none() && expansion::showable(tool, cuts_lines, json).is_empty()
    }
}

/// The refactoring `kind` allows on `tool`: a parameter added or pruned, or added only
/// ([`ConstraintKind::NewOption`], which a release asks for P6).
pub(super) fn check<'t>(
    kind: ConstraintKind,
    tool: &'t Tool,
    all: &[Tool],
) -> Result<Refactoring<'t>, &'static str> {
    let description = describable(tool)?;
    let expansion =
        shared_checks(FlexibleExpansion, tool, all).and_then(|()| expansion::check(tool));
    let pruning = match kind {
        ConstraintKind::NewOption => Err("a new option was asked for, not a pruned one"),
        _ => shared_checks(ParameterPruning, tool, all).and_then(|()| pruning::check(tool)),
    };
    if let (Err(_), Err(why)) = (&expansion, &pruning) {
        return Err(why);
    }
    Ok(Refactoring {
        description,
        expansion: expansion.ok(),
        pruning: pruning.ok(),
    })
}

impl Draft<'_> {
    pub(super) fn refactoring(
        &mut self,
        plan: Refactoring,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let name = &tool.name;
        let shows = !self.showable_params(tool).is_empty();
        let pruning = plan
            .pruning
            .filter(|_| self.constraint != ConstraintKind::NewOption);
        let (change, note) = match (plan.expansion.filter(|_| shows), &pruning) {
            (Some(expansion), _) => {
                let added = self.add_params(&expansion, tool, all, 1, Presence::Optional)?;
                let note = self.writer().note(&Note::NewParam(&added[0]));
                (format!("added {}", super::expansion::ticked(&added)), note)
            }
            (None, Some(pruning)) => {
                let pruned = self.prune(pruning, tool)?;
                let note = self.writer().note(&Note::RemovedParam(&pruned));
                (format!("removed `{pruned}`"), note)
            }
            (None, None) => return Err(MutateError::NothingToShow { tool: name.clone() }),
        };
        self.add_sentences(plan.description, &[note])?;
        Ok(format!(
            "Interface Refactoring: `{name}` {change}, with its description updated"
        ))
    }
}
