//! Schemas declared through other names: aliases (`z.object(BaseShape)`, an export under a
//! second name), shapes spread into others, and entries naming parameter schemas held in
//! constants, resolved across files.

use super::{ALIAS_DEPTH, Names, params, suffixes};
use crate::params::Schema;
use crate::params::SchemaRef;
use mcpevol_core::inventory::Param;

/// A parameter schema held in a constant, and how its file spells zod.
pub(super) type HeldParam = (Param, String);

impl Names<'_> {
    /// The schema a reference stands for; a name declared in several modules (`schema`,
    /// `inputSchema`) means the one in the referring file first. A schema declared as another
    /// (`z.object(BaseShape)`) is that one, and a shape's spread shapes and named entries are
    /// read where they are declared.
    pub(super) fn schema(&self, schema: &SchemaRef, file: &str) -> Option<Schema> {
        let mut found = match schema {
            SchemaRef::Inline(s) => s.clone(),
            SchemaRef::Named(path) => self.declared_schema(path, file, ALIAS_DEPTH)?,
            SchemaRef::None => return None,
        };
        self.fill_links(&mut found, ALIAS_DEPTH);
        Some(found)
    }

    /// The schema declared under `path`, through at most `depth` aliases.
    pub(super) fn declared_schema(&self, path: &str, file: &str, depth: usize) -> Option<Schema> {
        let keys = || {
            suffixes(path)
                .chain(suffixes(params::strip_view_suffix(path)))
                // `issues.IssueCommentSchema` through `import * as issues`: schema names are
                // distinctive enough to look up without their namespace.
                .chain(
                    params::strip_view_suffix(path)
                        .rsplit_once('.')
                        .map(|(_, last)| last),
                )
        };
        let direct = keys().find_map(|k| {
            let defs = self.schemas.get(k)?;
            defs.iter()
                .find(|s| s.site.object.file == file)
                .or(defs.first())
                .copied()
        });
        if let Some(found) = direct {
            return Some(found.clone());
        }
        if depth == 0 {
            return None;
        }
        keys()
            .filter_map(|k| self.aliases.get(k))
            .flatten()
            .find_map(|other| self.declared_schema(other, file, depth - 1))
    }

    /// Adds to `schema` the parameters of the shapes it spreads, and reads the type and
    /// optionality of entries that name a parameter schema held in a constant.
    pub(super) fn fill_links(&self, schema: &mut Schema, depth: usize) {
        let file = schema.site.object.file.clone();
        for (param, path) in &schema.links.named {
            let Some(declared) = self.param_schema(path) else {
                continue;
            };
            let (declared_in, (declared, zod)) = declared;
            if let Some(p) = schema.params.iter_mut().find(|p| p.name == *param) {
                p.ty = declared.ty.clone();
                p.required = declared.required;
                p.shape = declared.shape.clone();
                p.description = p.description.clone().or(declared.description.clone());
            }
            // How a new entry spells zod, when no entry here is a zod chain: as the file does.
            if schema.site.zod.is_none() && declared_in == file {
                schema.site.zod = Some(zod.clone());
            }
        }
        let mut inherited = Vec::new();
        for path in &schema.links.spreads {
            let Some(mut base) = self.declared_schema(path, &file, depth) else {
                continue;
            };
            if depth > 0 {
                self.fill_links(&mut base, depth - 1);
            }
            if schema.site.zod.is_none() {
                schema.site.zod = base.site.zod.clone();
            }
            schema.site.spreads.push(base.site.object.clone());
            schema
                .site
                .spreads
                .extend(base.site.spreads.iter().cloned());
            // Edited where declared: the parameters join the tool's, not this shape's sites.
            inherited.extend(
                (base.params.into_iter())
                    .filter(|p| !schema.params.iter().any(|q| q.name == p.name)),
            );
        }
        schema.params.splice(0..0, inherited);
    }

    /// The parameter schema `path` names, with the file declaring it.
    fn param_schema(&self, path: &str) -> Option<(&str, &HeldParam)> {
        suffixes(path)
            .chain(
                ["exports.", "module.exports."]
                    .iter()
                    .find_map(|p| path.strip_prefix(p)),
            )
            .find_map(|k| self.param_schemas.get(k)?.first().copied())
    }
}
