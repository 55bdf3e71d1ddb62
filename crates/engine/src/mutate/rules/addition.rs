//! Tool Addition: a new tool beside an existing one, its batch form where one can be written
//! (registered with zod, `batch_form.rs`, or listed by a JSON definition and routed by name,
//! `listed_batch.rs`), an alias copy of it (see `copies.rs`) only where none can.

use super::super::MutateError;
use super::super::batch_form::{self, BatchSites};
use super::super::prose::Note;
use super::super::splice::{indent_at, js_string};
use super::copies::{self, Copyable};
use super::listed_batch::{self, ListedBatch};
use super::{Draft, cut};
use mcpevol_core::inventory::Tool;
use mcpevol_oracle::validate::Effect;

/// What Tool Addition found: where an alias copy is written from, and where a batch form is
/// written from when one can be written instead.
pub(super) struct Addition<'t> {
    copy: Result<Copyable<'t>, &'static str>,
    batch: Option<BatchSites<'t>>,
    listed: Option<ListedBatch<'t>>,
}

impl Addition<'_> {
    /// Whether it writes a batch form (where none fits, an alias copy).
    pub(super) fn writes_batch(&self) -> bool {
        self.batch.is_some() || self.listed.is_some()
    }
}

pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<Addition<'t>, &'static str> {
    let plan = Addition {
        copy: copies::check(tool, all),
        batch: batch_form::batchable(tool, all).ok(),
        listed: listed_batch::check(tool, all).ok(),
    };
    match plan.copy {
        Err(why) if plan.batch.is_none() && plan.listed.is_none() => Err(why),
        _ => Ok(plan),
    }
}

impl Draft<'_> {
    pub(super) fn addition(
        &mut self,
        plan: Addition<'_>,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let name = &tool.name;
        // Where a batch form can be written, the addition is one: new tools in real releases
        // do something new, and are seldom aliases (4 of 107 added tools were named as an
        // older tool plus a suffix). The alias copy is left for tools no batch fits.
        let batch = match (plan.batch, plan.listed) {
            (Some(batch), _) => Some(self.add_batch(batch, tool)?),
            (None, Some(listed)) => self.add_listed_batch(listed, tool)?,
            (None, None) => None,
        };
        if let Some(new) = batch {
            return Ok(format!(
                "Tool Addition: added `{new}`, which runs `{name}` on each of several argument sets"
            ));
        }
        let copy = plan.copy.map_err(MutateError::Unregistrable)?;
        let new = self.add_copy(copy, tool, all)?;
        Ok(format!(
            "Tool Addition: added `{new}`, an alias that behaves as `{name}`"
        ))
    }

    /// A batch form of `tool` registered beside it (see [`batch_form`]): its registration copied
    /// with the name, description, shape and handler rewritten.
    pub(super) fn add_batch(
        &mut self,
        sites: BatchSites<'_>,
        tool: &Tool,
    ) -> Result<String, MutateError> {
        let BatchSites {
            registration: reg,
            name,
            description,
            schema,
            zod,
            handler,
        } = sites;
        let new = batch_form::name_for(&tool.name).expect("checked by batchable");
        let about = self.writer().note(&Note::Batch {
            of: &tool.name,
            items: batch_form::ITEMS,
            most: batch_form::MOST,
        });
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let shape = &text[schema.object.bytes.0..schema.object.bytes.1];
        let code = &text[handler.bytes.0..handler.bytes.1];
        let cuts = vec![
            (name.bytes, js_string(&new)),
            (description.span.bytes, js_string(&about)),
            (
                schema.object.bytes,
                batch_form::shape(zod, shape, &tool.name),
            ),
            (
                handler.bytes,
                batch_form::handler(code, indent_at(&text, handler.bytes.0)),
            ),
        ];
        let copy = cut(&text, reg, cuts);
        self.insert_beside(&text, reg, &copy)?;
        self.added.push(new.clone());
        self.effects.push(Effect::Batch {
            tool: new.clone(),
            source: tool.name.clone(),
            items: batch_form::ITEMS.to_string(),
        });
        Ok(new)
    }
}
