//! Tool Integration: a new tool beside an existing one, its batch form where one can be written
//! (else an alias copy, see `copies.rs`), with the original's description pointing at it.

use super::super::MutateError;
use super::super::batch_form::{self, BatchSites};
use super::super::prose::Note;
use super::copies::{self, Copyable};
use super::listed_batch::{self, ListedBatch};
use super::{Draft, describable};
use mcpevol_core::inventory::{DescriptionSite, Tool};

/// What Tool Integration found: where the copy is written from, and the description that
/// points at it.
pub(super) struct Integration<'t> {
    copy: Result<Copyable<'t>, &'static str>,
    batch: Option<BatchSites<'t>>,
    listed: Option<ListedBatch<'t>>,
    description: &'t DescriptionSite,
}

impl Integration<'_> {
    /// Whether it writes a batch form (where none fits, an alias copy).
    pub(super) fn writes_batch(&self) -> bool {
        self.batch.is_some() || self.listed.is_some()
    }
}

pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Integration<'t>, &'static str> {
    let plan = Integration {
        copy: copies::check(tool, all),
        batch: batch_form::batchable(tool, all).ok(),
        listed: listed_batch::check(tool, all).ok(),
        description: describable(tool)?,
    };
    match plan.copy {
        Err(why) if plan.batch.is_none() && plan.listed.is_none() => Err(why),
        _ => Ok(plan),
    }
}

impl Draft<'_> {
    pub(super) fn integration(
        &mut self,
        plan: Integration,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let batch = match (plan.batch, plan.listed) {
            (Some(batch), _) => Some(self.add_batch(batch, tool)?),
            (None, Some(listed)) => self.add_listed_batch(listed, tool)?,
            (None, None) => None,
        };
        let (new, note) = match batch {
            Some(new) => {
                let note = self.writer().note(&Note::BatchPointer { to: &new });
                (new, note)
            }
            None => {
                let copy = plan.copy.map_err(MutateError::Unregistrable)?;
                let new = self.add_copy(copy, tool, all)?;
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
