//! Flexible Expansion: new parameters with a real effect, declared in the tool's schema and
//! acted on by code wrapped around its handler. Constraint Mutation's new required parameter
//! and Interface Refactoring's added one are written here too.

use super::super::behaviours::{NewParam, PARAM_KINDS, ParamKind, Takes};
use super::super::dialect::{dialect_of, handler_dialect};
use super::super::param_names;
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

/// The kinds of parameter with a real effect whose concept the tool has under none of its
/// names (see `param_names`).
fn fresh_params(tool: &Tool) -> Vec<&'static ParamKind> {
    let has = |k: &ParamKind| {
        tool.params
            .iter()
            .any(|q| param_names::is_kind(k.key, &q.name))
    };
    let cuts_already = PARAM_KINDS.iter().any(|k| k.cuts() && has(k));
    PARAM_KINDS
        .iter()
        .filter(|k| !has(k))
        .filter(|k| !(k.skips() && cuts_already))
        .collect()
}

/// The parameters' names in backticks, as a summary names them.
pub(super) fn ticked(params: &[NewParam]) -> String {
    (params.iter().map(|p| format!("`{}`", p.name)))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Draft<'_> {
    pub(super) fn expansion(
        &mut self,
        plan: Expansion,
        tool: &Tool,
        all: &[Tool],
    ) -> Result<String, MutateError> {
        let count = 1 + self.rng.below(2);
        let added = self.add_params(&plan, tool, all, count, Presence::Optional)?;
        Ok(format!(
            "Flexible Expansion: `{}` takes new optional parameter(s) {}",
            tool.name,
            ticked(&added)
        ))
    }

    /// Adds up to `count` optional parameters with a real effect: declared in the schema and
    /// acted on by code wrapped around the handler. Returns them.
    pub(super) fn add_params(
        &mut self,
        plan: &Expansion,
        tool: &Tool,
        all: &[Tool],
        count: usize,
        presence: Presence,
    ) -> Result<Vec<NewParam>, MutateError> {
        let chosen = self.new_params(tool, all, count, presence);
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
        let around = handler.around_params(&chosen.iter().collect::<Vec<_>>());
        handler.wrap(&mut self.e, self.root, tool, &around)?;
        written.add_params(&mut self.e, self.root, schema, &entries)?;
        self.effects
            .extend(chosen.iter().map(|p| p.effect(&tool.name)));
        Ok(chosen)
    }

    /// Up to `count` of the parameters the tool lacks, starting at one the seed picks, each
    /// named as the server names its concept or as `param_names` draws.
    fn new_params(
        &mut self,
        tool: &Tool,
        all: &[Tool],
        count: usize,
        presence: Presence,
    ) -> Vec<NewParam> {
        // A required `offset` would skip lines of every call: no call could get the whole
        // answer, and the reference calls the oracle makes with it at its maximum would be empty.
        // A required `fields` would have no value that keeps every key.
        let fresh: Vec<&'static ParamKind> = (self.showable_params(tool).into_iter())
            .filter(|p| presence == Presence::Optional || (!p.skips() && p.takes == Takes::Count))
            .collect();
        // The first kind drawn by the data file's weights, then the next ones in turn.
        let total: u32 = fresh.iter().map(|k| param_names::kind_weight(k.key)).sum();
        let mut at = self.rng.below(total.max(1) as usize) as u32;
        let start = (fresh.iter())
            .position(|k| {
                let w = param_names::kind_weight(k.key);
                let here = at < w;
                at = at.saturating_sub(w);
                here
            })
            .unwrap_or(0);
        let kinds: Vec<&'static ParamKind> = (fresh.iter().cycle().skip(start))
            .take(count.min(fresh.len()))
            .copied()
            .collect();
        let mut chosen: Vec<NewParam> = Vec::new();
        for kind in kinds {
            if let Some(name) = param_names::choose(kind, tool, all, &mut self.rng)
                .filter(|n| !chosen.iter().any(|c| c.name == *n))
            {
                chosen.push(NewParam::new(kind, name));
            }
        }
        chosen
    }

    /// The parameters the tool lacks, but for a cut by lines where its previous answers were
    /// one line each: that cut could not be seen at work.
    pub(super) fn showable_params(&self, tool: &Tool) -> Vec<&'static ParamKind> {
        showable(tool, self.cuts_lines, self.answers_json)
    }
}

/// The kinds of parameter `tool` lacks whose effect could show on its answers: a cut by lines
/// only where they may have several (`cuts_lines`), a projection only where they are JSON
/// objects (`answers_json`) the handler's dialect can project.
pub(super) fn showable(
    tool: &Tool,
    cuts_lines: bool,
    answers_json: bool,
) -> Vec<&'static ParamKind> {
    let projects = handler_dialect(tool).projects_json()
        && (tool.sites.schema.as_ref()).is_none_or(|s| dialect_of(&s.object.file).projects_json());
    fresh_params(tool)
        .into_iter()
        .filter(|p| cuts_lines || !p.by_lines())
        // A projection reworks text parts: a structured result would keep every key.
        .filter(|p| {
            !p.takes.on_json() || (answers_json && projects && tool.sites.output_keys.is_empty())
        })
        .collect()
}
