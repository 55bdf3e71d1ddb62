//! Flexible Expansion: new parameters with a real effect, declared in the tool's schema and
//! acted on by code wrapped around its handler. Constraint Mutation's new required parameter
//! and Interface Refactoring's added one are written here too.

use super::super::behaviours::{NEW_PARAMS, NewParam, Takes};
use super::super::dialect::{dialect_of, handler_dialect};
use super::super::{MutateError, Presence};
use super::Draft;
use mcpevol_core::inventory::{SchemaSite, Tool};

/// What Flexible Expansion found: the schema the new parameters are declared in.
pub(super) struct Expansion<'t> {
    pub(super) schema: &'t SchemaSite,
}

pub(super) fn check(tool: &Tool) -> Result<Expansion<'_>, &'static str> {
    if tool.handler.is_none() {
        return Err("its handler was not found, so a new parameter could not act");
    }
    if fresh_params(tool).is_empty() {
        return Err("it already has every parameter the rules can add");
    }
    match &tool.sites.schema {
        Some(schema) if schema.json || schema.zod.is_some() || schema.python.is_some() => {
            handler_dialect(tool).wrappable_here(tool)?;
            Ok(Expansion { schema })
        }
        Some(_) => Err("its zod shape has no parameter that shows how the file spells zod"),
        None => Err("its input schema is not written out literally"),
    }
}

/// The parameters with a real effect that the tool does not have yet.
fn fresh_params(tool: &Tool) -> Vec<&'static NewParam> {
    let cuts_already = NEW_PARAMS
        .iter()
        .any(|p| p.cuts() && tool.params.iter().any(|q| q.name == p.name));
    NEW_PARAMS
        .iter()
        .filter(|p| !tool.params.iter().any(|q| q.name == p.name))
        .filter(|p| !(p.skips() && cuts_already))
        .collect()
}

impl Draft<'_> {
    pub(super) fn expansion(
        &mut self,
        plan: Expansion,
        tool: &Tool,
    ) -> Result<String, MutateError> {
        let count = 1 + self.rng.below(2);
        let added = self.add_params(&plan, tool, count, Presence::Optional)?;
        Ok(format!(
            "Flexible Expansion: `{}` takes new optional parameter(s) {added}",
            tool.name
        ))
    }

    /// Adds up to `count` optional parameters with a real effect: declared in the schema and
    /// acted on by code wrapped around the handler. Returns them, as the summary names them.
    pub(super) fn add_params(
        &mut self,
        plan: &Expansion,
        tool: &Tool,
        count: usize,
        presence: Presence,
    ) -> Result<String, MutateError> {
        let chosen = self.new_params(tool, count, presence);
        if chosen.is_empty() {
            return Err(MutateError::NothingToShow {
                tool: tool.name.clone(),
            });
        }
        let schema = plan.schema;
        let written = dialect_of(&schema.object.file);
        let mut entries = Vec::new();
        for p in &chosen {
            let words = self.writer().new_param_description(p, presence);
            entries.push(written.new_param(schema, p, &words, presence));
        }
        let handler = handler_dialect(tool);
        let around = handler.around_params(&chosen);
        handler.wrap(&mut self.e, self.root, tool, &around)?;
        written.add_params(&mut self.e, self.root, schema, &entries)?;
        self.effects
            .extend(chosen.iter().map(|p| (p.effect)(&tool.name, p.name)));
        Ok(chosen
            .iter()
            .map(|p| format!("`{}`", p.name))
            .collect::<Vec<_>>()
            .join(", "))
    }

    /// Up to `count` of the parameters the tool lacks, starting at one the seed picks.
    fn new_params(
        &mut self,
        tool: &Tool,
        count: usize,
        presence: Presence,
    ) -> Vec<&'static NewParam> {
        // A required `offset` would skip lines of every call: no call could get the whole
        // answer, and the reference calls the oracle makes with it at its maximum would be empty.
        // A required `fields` would have no value that keeps every key.
        let fresh: Vec<&'static NewParam> = (self.showable_params(tool).into_iter())
            .filter(|p| presence == Presence::Optional || (!p.skips() && p.takes == Takes::Count))
            .collect();
        let start = self.rng.below(fresh.len().max(1));
        fresh
            .iter()
            .cycle()
            .skip(start)
            .take(count.min(fresh.len()))
            .copied()
            .collect()
    }

    /// The parameters the tool lacks, but for a cut by lines where its previous answers were
    /// one line each: that cut could not be seen at work.
    pub(super) fn showable_params(&self, tool: &Tool) -> Vec<&'static NewParam> {
        let projects = handler_dialect(tool).projects_json()
            && (tool.sites.schema.as_ref())
                .is_none_or(|s| dialect_of(&s.object.file).projects_json());
        fresh_params(tool)
            .into_iter()
            .filter(|p| self.cuts_lines || !p.by_lines())
            // A projection reworks text parts: a structured result would keep every key.
            .filter(|p| {
                !p.takes.on_json()
                    || (self.answers_json && projects && tool.sites.output_keys.is_empty())
            })
            .collect()
    }
}
