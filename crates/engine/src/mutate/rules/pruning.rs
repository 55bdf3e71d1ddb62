//! Parameter Pruning: an optional parameter the tool's description does not name taken out
//! of its schema (and, under a plain JSON schema, out of the arguments its handler sees).

use super::super::dialect::{dialect_of, handler_dialect};
use super::super::python;
use super::super::splice::item_range;
use super::super::{MutateError, prose};
use super::{Draft, with_bytes};
use mcpevol_core::inventory::{ParamSite, PyParams, SchemaSite, Tool};

/// What Parameter Pruning found: the schema, and the optional parameters that can go (never
/// empty).
pub(super) struct Pruning<'t> {
    schema: &'t SchemaSite,
    free: Vec<&'t ParamSite>,
}

/// The optional parameters that can go: those the tool's description does not name, since a
/// description that names a parameter the tool no longer takes would mislead.
pub(super) fn check(tool: &Tool) -> Result<Pruning<'_>, &'static str> {
    const NONE: &str = "it has no optional parameter to remove";
    let schema = tool.sites.schema.as_ref().ok_or(NONE)?;
    let optional: Vec<&ParamSite> = schema
        .params
        .iter()
        .filter(|p| tool.params.iter().any(|q| q.name == p.name && !q.required))
        .filter(|p| dialect_of(&p.entry.file).prunable(schema))
        .collect();
    if optional.is_empty() {
        return Err(NONE);
    }
    let said = tool.description.as_deref().unwrap_or("");
    let free: Vec<&ParamSite> = optional
        .into_iter()
        .filter(|p| !prose::mentions(said, &p.name))
        .collect();
    if free.is_empty() {
        return Err("its description names every optional parameter, and would then be wrong");
    }
    Ok(Pruning { schema, free })
}

impl Draft<'_> {
    pub(super) fn pruning(&mut self, plan: Pruning, tool: &Tool) -> Result<String, MutateError> {
        let param = self.prune(&plan, tool)?;
        Ok(format!(
            "Parameter Pruning: removed optional parameter `{param}` from `{}`",
            tool.name
        ))
    }

    /// Removes one optional parameter, chosen by the seed; returns its name.
    pub(super) fn prune(&mut self, plan: &Pruning, tool: &Tool) -> Result<String, MutateError> {
        let site = *self
            .rng
            .pick(&plan.free)
            .expect("a plan's `free` is never empty");
        let schema = plan.schema;
        if schema.python == Some(PyParams::Signature) {
            python::prune_signature_param(&mut self.e, self.root, site)?;
            return Ok(site.name.clone());
        }
        let (start, end) = item_range(self.e.text(self.root, &site.entry.file)?, &site.entry);
        self.e
            .replace(self.root, &with_bytes(&site.entry, start, end), "")?;
        // A zod shape or a pydantic model drops keys it does not declare before the handler
        // runs; a handler under a plain JSON schema reads its arguments as sent, so a caller
        // that still sends the parameter would still get its effect. The wrapper takes it out.
        let handler = handler_dialect(tool);
        if schema.json && handler.wrappable(self.root, tool).is_ok() {
            let around = handler.drop_param(&site.name);
            handler.wrap(&mut self.e, self.root, tool, &around)?;
        }
        Ok(site.name.clone())
    }
}
