//! Tool Addition: a new tool beside an existing one, its batch form where one can be written
//! (registered with zod, `batch_form.rs`, or listed by a JSON definition and routed by name,
//! `listed_batch.rs`), else its single form (`single_form.rs`), and an alias copy of it (see
//! `copies.rs`) only in a round where neither can.

use super::super::Aliases;
use super::super::MutateError;
use super::super::batch_form::{self, BatchSites};
use super::super::prose::Note;
use super::super::splice::{indent_at, js_string};
use super::call_batch::{self, CallBatch};
use super::copies::{self, Copyable, NOTHING_NEW};
use super::listed_batch::{self, ListedBatch};
use super::python_forms::{self, PyForm};
use super::python_search::{self, PySearch};
use super::search_form::{self, SearchForm};
use super::single_form::{self, SingleForm};
use super::{Draft, cut};
use mcpevol_core::inventory::Tool;
use mcpevol_oracle::validate::Effect;

/// What Tool Addition found: where an alias copy is written from, and where a batch form is
/// written from when one can be written instead.
pub(super) struct Addition<'t> {
    copy: Result<Copyable<'t>, &'static str>,
    batch: Option<BatchSites<'t>>,
    listed: Option<ListedBatch<'t>>,
    call: Option<CallBatch<'t>>,
    single: Option<SingleForm<'t>>,
    python: Option<PyForm<'t>>,
    search: Option<SearchForm<'t>>,
    py_search: Option<PySearch<'t>>,
}

impl Addition<'_> {
    /// Whether it writes a new form of the tool, batch or single (where none fits, an alias
    /// copy).
    pub(super) fn writes_new(&self) -> bool {
        self.batch.is_some()
            || self.listed.is_some()
            || self.call.is_some()
            || self.single.is_some()
            || self.python.is_some()
            || self.search.is_some()
            || self.py_search.is_some()
    }

    /// Whether the one new tool it can write is a search form, which is written only where
    /// the tool's previous answer had several lines of text (see [`Draft::search_fits`]).
    pub(super) fn searches_only(&self) -> bool {
        (self.search.is_some() || self.py_search.is_some())
            && !(self.batch.is_some()
                || self.listed.is_some()
                || self.call.is_some()
                || self.single.is_some()
                || self.python.is_some())
    }
}

pub(super) fn check<'t>(
    tool: &'t Tool,
    all: &[Tool],
    aliases: Aliases,
) -> Result<Addition<'t>, &'static str> {
    let mut plan = Addition {
        copy: copies::check(tool, all),
        batch: batch_form::batchable(tool, all).ok(),
        listed: listed_batch::check(tool, all).ok(),
        call: call_batch::check(tool, all).ok(),
        single: single_form::check(tool, all).ok(),
        python: python_forms::check(tool, all).ok(),
        search: search_form::check(tool, all).ok(),
        py_search: python_search::check(tool, all).ok(),
    };
    if aliases == Aliases::Refused {
        plan.copy = Err(NOTHING_NEW);
    }
    match plan.copy {
        Err(why) if !plan.writes_new() => Err(why),
        _ => Ok(plan),
    }
}

/// The new tool Tool Addition (and Integration) wrote, by its kind.
pub(super) enum NewTool {
    Batch(String),
    Single(String),
    Search(String),
    Alias(String),
}

impl NewTool {
    pub(super) fn name(&self) -> &str {
        match self {
            NewTool::Batch(n) | NewTool::Single(n) | NewTool::Search(n) | NewTool::Alias(n) => n,
        }
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
        Ok(match self.add_new_tool(plan, tool, all)? {
            NewTool::Batch(new) => format!(
                "Tool Addition: added `{new}`, which runs `{name}` on each of several argument sets"
            ),
            NewTool::Single(new) => {
                format!("Tool Addition: added `{new}`, which runs `{name}` on a list of one entry")
            }
            NewTool::Search(new) => format!(
                "Tool Addition: added `{new}`, which answers the lines of `{name}`'s answer that contain a given text"
            ),
            NewTool::Alias(new) => {
                format!("Tool Addition: added `{new}`, an alias that behaves as `{name}`")
            }
        })
    }

    /// Writes the new tool `plan` found room for beside `tool`. Where a batch form can be
    /// written, the new tool is one: new tools in real releases do something new, and are
    /// seldom aliases (4 of 107 added tools were named as an older tool plus a suffix). Else a
    /// single form, where the tool takes a list; the alias copy is left for rounds on tools
    /// neither fits.
    pub(super) fn add_new_tool(
        &mut self,
        plan: Addition<'_>,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<NewTool, MutateError> {
        // A search form where the tool's answer has lines to search, first in a third of the
        // rounds where another form fits too: real releases add new capabilities of several
        // kinds, not one.
        let only = plan.searches_only();
        let mut search = plan.search.filter(|_| self.search_fits);
        let mut py_search = plan.py_search.filter(|_| self.search_fits);
        let first = (search.is_some() || py_search.is_some()) && (only || self.rng.below(3) == 0);
        if first && let Some(new) = self.add_either_search(&mut search, &mut py_search, tool)? {
            return Ok(NewTool::Search(new));
        }
        let batch = match (plan.batch, plan.listed) {
            (Some(batch), _) => Some(self.add_batch(batch, tool)?),
            (None, Some(listed)) => self.add_listed_batch(listed, tool)?,
            (None, None) => None,
        };
        if let Some(new) = batch {
            return Ok(NewTool::Batch(new));
        }
        if let Some(call) = plan.call
            && let Some(new) = self.add_call_batch(call, tool)?
        {
            return Ok(NewTool::Batch(new));
        }
        if let Some(single) = plan.single
            && let Some(new) = self.add_single(single, tool)?
        {
            return Ok(NewTool::Single(new));
        }
        if let Some(form) = plan.python {
            let batch = form.is_batch();
            match (self.add_python_form(form, tool)?, batch) {
                (Some(new), true) => return Ok(NewTool::Batch(new)),
                (Some(new), false) => return Ok(NewTool::Single(new)),
                (None, _) => {}
            }
        }
        if let Some(new) = self.add_either_search(&mut search, &mut py_search, tool)? {
            return Ok(NewTool::Search(new));
        }
        let copy = plan.copy.map_err(MutateError::Unregistrable)?;
        Ok(NewTool::Alias(self.add_copy(copy, tool, all)?))
    }

    /// The search form of `tool`, JavaScript or Python, whichever was found (taken, so that a
    /// second try writes nothing twice).
    fn add_either_search(
        &mut self,
        search: &mut Option<SearchForm<'_>>,
        py_search: &mut Option<PySearch<'_>>,
        tool: &Tool,
    ) -> Result<Option<String>, MutateError> {
        if let Some(form) = search.take() {
            return self.add_search(form, tool);
        }
        match py_search.take() {
            Some(form) => self.add_python_search(form, tool),
            None => Ok(None),
        }
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
        let new = batch_form::name_for(&tool.name);
        let about = self.writer().note(&Note::Batch {
            of: &tool.name,
            items: batch_form::ITEMS,
            most: batch_form::MOST,
        });
        let text = self.e.text(self.root, &reg.file)?.to_string();
        let shape = &text[schema.object.bytes.0..schema.object.bytes.1];
        let handler = batch_form::wrapped_handler(&text, reg.bytes, handler.bytes);
        let code = &text[handler.0..handler.1];
        let cuts = vec![
            (name.bytes, js_string(&new)),
            (description.span.bytes, js_string(&about)),
            (
                schema.object.bytes,
                batch_form::shape(zod, shape, &tool.name),
            ),
            (
                handler,
                batch_form::handler(code, indent_at(&text, handler.0)),
            ),
        ];
        let copy = batch_form::without_output(&cut(&text, reg, cuts));
        self.insert_beside(&text, reg, &copy)?;
        self.record_batch(&new, tool);
        Ok(new)
    }

    /// Records `new` as added, claimed as the batch form of `tool`.
    pub(super) fn record_batch(&mut self, new: &str, tool: &Tool) {
        self.added.push(new.to_string());
        self.effects.push(Effect::Batch {
            tool: new.to_string(),
            source: tool.name.clone(),
            items: batch_form::ITEMS.to_string(),
        });
    }
}
