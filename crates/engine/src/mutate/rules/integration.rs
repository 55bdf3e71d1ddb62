//! Tool Integration: a new tool beside an existing one, as Tool Addition writes it (a batch or
//! single form; in a round where neither fits, an alias copy), with the original's description
//! pointing at it.

use super::super::Aliases;
use super::super::MutateError;
use super::super::prose::Note;
use super::addition::{self, Addition, NewTool};
use super::{Draft, describable};
use mcpevol_core::inventory::{DescriptionSite, Tool};
use mcpevol_core::words;

/// What Tool Integration found: where the new tool is written from (as Tool Addition finds
/// it), and the description that points at it.
pub(super) struct Integration<'t> {
    new: Addition<'t>,
    description: &'t DescriptionSite,
}

impl Integration<'_> {
    /// Whether it writes a new form of the tool, batch or single (where none fits, an alias
    /// copy).
    pub(super) fn writes_new(&self) -> bool {
        self.new.writes_new()
    }
}

pub(super) fn check<'t>(
    tool: &'t Tool,
    all: &[Tool],
    aliases: Aliases,
) -> Result<Integration<'t>, &'static str> {
    Ok(Integration {
        new: addition::check(tool, all, aliases)?,
        description: describable(tool)?,
    })
}

impl Integration<'_> {
    /// Whether the one new tool it can write is a search form (see
    /// [`addition::Addition::searches_only`]).
    pub(super) fn searches_only(&self) -> bool {
        self.new.searches_only()
    }
}

impl Draft<'_> {
    pub(super) fn integration(
        &mut self,
        plan: Integration,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let new = self.add_new_tool(plan.new, tool, all)?;
        let note = match &new {
            NewTool::Batch(to) => self.writer().note(&Note::BatchPointer { to }),
            NewTool::Single(to) => {
                let noun = (words::words(&tool.name).pop())
                    .and_then(|w| words::singular(&w))
                    .unwrap_or_default();
                self.writer().note(&Note::SinglePointer { to, noun: &noun })
            }
            NewTool::Search(to) => self.writer().note(&Note::SearchPointer { to }),
            NewTool::Alias(to) => self.writer().note(&Note::Pointer { to }),
        };
        self.add_sentences(plan.description, &[note])?;
        Ok(format!(
            "Tool Integration: added `{}` beside `{}` and pointed one at the other",
            new.name(),
            tool.name
        ))
    }
}
