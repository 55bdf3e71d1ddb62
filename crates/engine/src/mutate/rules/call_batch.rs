//! A batch form of a tool registered by a `registerTool` or `tool` call whose name,
//! description and schema arguments read a definition declared elsewhere (`T.name`,
//! `T.schema`), or whose handler is a function it names: the call copied with those arguments
//! rewritten (see `registration_call`), the handler running the tool's own on each set.

use super::super::MutateError;
use super::super::batch_form::{self, ITEMS};
use super::super::dialect::dialect_of;
use super::super::prose::Note;
use super::super::registration_call;
use super::super::splice::{find_word, indent_at, js_string};
use super::single_form::reindent;
use super::{Draft, cut};
use mcpevol_core::inventory::{Span, Style, Tool};

/// Where a call's batch form is written from: the call, and how its file spells zod.
pub(super) struct CallBatch<'t> {
    reg: &'t Span,
    zod: &'t str,
    name: String,
}

/// The call `tool`'s batch form is copied from, or why there is none. Where the batch form
/// of `batch_form.rs` fits (every argument written out in the call), it is that one.
pub(super) fn check<'t>(tool: &'t Tool, all: &[Tool]) -> Result<CallBatch<'t>, &'static str> {
    if batch_form::inline_sites(tool).is_ok() {
        return Err("its arguments are written out in its registration");
    }
    let reg = (tool.sites.registration.as_ref()).ok_or("no registration site was found")?;
    if !dialect_of(&reg.file).writes_batches() {
        return Err("a batch form is written for JavaScript registrations only");
    }
    // A handler anchoring did not find may still be written in the call (one a call makes:
    // `defaultTool(NAME, context)`); `registration_call` reads it or the form is not written.
    // A call (`registerTool`, `tool`) registers it: not a list entry routed by name.
    if tool.style != Style::Register || !tool.sites.routes.is_empty() {
        return Err("it is not registered by a call of its own");
    }
    // The call's arguments are told apart where it passes a description (see
    // `registration_call`).
    if tool.sites.description.is_none() {
        return Err("it has no description, so its registration call cannot be read");
    }
    let zod = (tool.sites.schema.as_ref())
        .and_then(|s| s.zod.as_deref())
        .filter(|_| !tool.sites.schema.as_ref().is_some_and(|s| s.json))
        .ok_or("its parameters are not a zod schema")?;
    if tool.params.is_empty() {
        return Err("it takes no arguments, so a batch of calls would repeat one answer");
    }
    let name = batch_form::plural_free(tool, all)?;
    Ok(CallBatch { reg, zod, name })
}

impl Draft<'_> {
    /// Writes the batch form of `tool` as a copy of its registration call; returns its name,
    /// or None (and writes nothing) where the call's arguments cannot be told apart, or its
    /// file does not name zod as the schema's file does.
    pub(super) fn add_call_batch(
        &mut self,
        plan: CallBatch<'_>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        let CallBatch {
            reg,
            zod,
            name: new,
        } = plan;
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let Some(call) = registration_call::read(&text, reg) else {
            return Ok(None);
        };
        if find_word(&text, zod).is_none() {
            return Ok(None);
        }
        let about = self.writer().note(&Note::Batch {
            of: &tool.name,
            items: ITEMS,
            most: batch_form::MOST,
        });
        // The tool's shape copied, not named (`z.array(T.schema)`): a later change of the tool's
        // schema would change the batch form's too, a change no release asked for.
        let Some(shape) = (tool.sites.schema.as_ref())
            .map(|s| &s.object)
            .filter(|o| o.file == reg.file)
            .map(|o| &text[o.bytes.0..o.bytes.1])
        else {
            return Ok(None);
        };
        let shape = reindent(shape, indent_at(&text, call.schema.0));
        let item = format!("{zod}.object({shape})");
        let code = &text[call.handler.0..call.handler.1];
        let cuts = vec![
            (call.name, js_string(&new)),
            (call.description, js_string(&about)),
            (call.schema, batch_form::items_shape(zod, &item, &tool.name)),
            (
                call.handler,
                batch_form::handler(code, indent_at(&text, call.handler.0)),
            ),
        ];
        let whole = cut(&text, reg, cuts);
        let copy = batch_form::without_output(&whole);
        // An output schema declared outside the call would come with the copy: its joined
        // answer, without structured content, would be refused.
        if copy == whole && !tool.sites.output_keys.is_empty() {
            return Ok(None);
        }
        self.insert_beside(&text, reg, &copy)?;
        self.record_batch(&new, tool);
        Ok(Some(new))
    }
}
