//! Tool Integration: a new tool beside an existing one, its batch form where one can be written
//! (else an alias copy, see `copies.rs`), with the original's description pointing at it.

use super::super::MutateError;
use super::super::batch_form::{self, BatchSites};
use super::super::prose::Note;
use super::copies::{self, Copyable};
use super::{Draft, describable};
use mcpevol_core::inventory::{DescriptionSite, Tool};

/// What Tool Integration found: where the copy is written from, and the description that
/// points at it.
pub(super) struct Integration<'t> {
    copy: Copyable<'t>,
    batch: Option<BatchSites<'t>>,
    description: &'t DescriptionSite,
}

pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Integration<'t>, &'static str> {
    let copy = copies::check(tool, all)?;
    Ok(Integration {
        copy,
        batch: batch_form::batchable(tool, all).ok(),
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
        let (new, note) = match plan.batch {
            Some(batch) => {
                let new = self.add_batch(batch, tool)?;
                let note = self.writer().note(&Note::BatchPointer { to: &new });
                (new, note)
            }
            None => {
                let new = self.add_copy(plan.copy, tool, all)?;
                let note = self.writer().note(&Note::Pointer { to: &new });
                (new, note)
            }
        };
        self.add_sentences(plan.description, &[note])?;
        Ok(format!(
            "Tool Integration: added `{new}` beside `{}` and pointed one at the other",
            tool.name
        ))
    }
}
