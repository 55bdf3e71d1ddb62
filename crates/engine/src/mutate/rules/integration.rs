//! Tool Integration: an alias copy of a tool (see `copies.rs`) with the original's description
//! pointing at it, so that the two read as one tool's two names.

use super::super::MutateError;
use super::super::prose::Note;
use super::copies::{self, Copyable};
use super::{Draft, describable};
use mcpevol_core::inventory::{DescriptionSite, Tool};

/// What Tool Integration found: where the copy is written from, and the description that
/// points at it.
pub(super) struct Integration<'t> {
    copy: Copyable<'t>,
    description: &'t DescriptionSite,
}

pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Integration<'t>, &'static str> {
    let copy = copies::check(tool, all)?;
    Ok(Integration {
        copy,
        description: describable(tool)?,
    })
}

impl Draft<'_> {
    pub(super) fn integration(
        &mut self,
        plan: Integration,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let new = self.add_copy(plan.copy, tool, all)?;
        let note = self.writer().note(&Note::Pointer { to: &new });
        self.add_sentences(plan.description, &[note])?;
        Ok(format!(
            "Tool Integration: added `{new}` beside `{}` and pointed one at the other",
            tool.name
        ))
    }
}
