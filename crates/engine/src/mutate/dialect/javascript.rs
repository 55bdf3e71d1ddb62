//! The JavaScript dialect (TypeScript written as JavaScript too): zod shapes and JSON schemas
//! in object literals, handlers wrapped by `wrap.rs`, routing taken out by `unroute.rs`.

use std::path::Path;

use super::super::around::Around;
use super::super::behaviours::{Bound, LAYOUTS, NewParam, Takes, around_params};
use super::super::splice::{Edits, append_entry, indent_at, js_string, replace_word};
use super::super::{MutateError, Presence, unroute, wrap};
use super::{Dialect, Names};
use mcpevol_core::inventory::{ParamSite, Route, SchemaSite, Tool};

/// JavaScript, and TypeScript written as JavaScript.
pub struct JavaScript;

/// The values of a layout parameter, as a JavaScript list's items.
fn layouts() -> String {
    LAYOUTS.map(js_string).join(", ")
}

impl Dialect for JavaScript {
    fn wrappable(&self, root: &Path, tool: &Tool) -> Result<(), &'static str> {
        wrap::wrappable_js(root, tool)
    }

    /// A JavaScript handler's wrapping is checked when drafted.
    fn wrappable_here(&self, _: &Tool) -> Result<(), &'static str> {
        Ok(())
    }

    fn wrap(
        &self,
        e: &mut Edits,
        root: &Path,
        tool: &Tool,
        around: &Around,
    ) -> Result<(), MutateError> {
        wrap::wrap_js(e, root, tool, around)
    }

    fn around_params(&self, params: &[&NewParam]) -> Around {
        around_params(params)
    }

    fn enforce(&self, bound: Bound, param: &str) -> Around {
        bound.enforce(param)
    }

    fn drop_param(&self, param: &str) -> Around {
        let key = serde_json::to_string(param).expect("a string serializes");
        Around {
            before: format!(
                "if (input && typeof input === \"object\") {{\ndelete input[{key}];\n}}"
            ),
            after: String::new(),
        }
    }

    /// A JavaScript wrapper's guard reads the tool's name where it is routed.
    fn guards_follow(
        &self,
        _: &mut Edits,
        _: &Path,
        _: &str,
        _: &str,
        _: Names,
    ) -> Result<(), MutateError> {
        Ok(())
    }

    fn reads_capitals(&self) -> bool {
        true
    }

    fn projects_json(&self) -> bool {
        true
    }

    fn writes_zod(&self) -> bool {
        true
    }

    fn declares_json_defaults(&self) -> bool {
        true
    }

    fn prunable(&self, _: &SchemaSite) -> bool {
        true
    }

    fn new_param(
        &self,
        schema: &SchemaSite,
        p: &NewParam,
        words: &str,
        presence: Presence,
    ) -> String {
        let description = js_string(words);
        // `applies_as` lets a required parameter into a zod shape only, which refuses
        // calls without it before the handler runs.
        let optional = match presence {
            Presence::Optional => ".optional()",
            Presence::Required => "",
        };
        // A name that is not an identifier (`max-length`) is written quoted.
        let key = match p
            .name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
        {
            true => p.name.clone(),
            false => js_string(&p.name),
        };
        match (&schema.zod, p.takes()) {
            (Some(z), Takes::Count) if !schema.json => format!(
                "{}: {z}.number().int().min(1){optional}.describe({description})",
                key,
            ),
            (Some(z), Takes::Keys) if !schema.json => format!(
                "{}: {z}.array({z}.string()).min(1){optional}.describe({description})",
                key,
            ),
            (_, Takes::Count) => format!(
                "{}: {{ type: {}, minimum: 1, description: {description} }}",
                key,
                js_string(p.ty()),
            ),
            (_, Takes::Keys) => format!(
                "{}: {{ type: \"array\", items: {{ type: \"string\" }}, minItems: 1, description: {description} }}",
                key,
            ),
            (Some(z), Takes::Layout) if !schema.json => format!(
                "{}: {z}.enum([{}]){optional}.describe({description})",
                key,
                layouts(),
            ),
            (_, Takes::Layout) => format!(
                "{}: {{ type: \"string\", enum: [{}], description: {description} }}",
                key,
                layouts(),
            ),
        }
    }

    fn add_params(
        &self,
        e: &mut Edits,
        root: &Path,
        schema: &SchemaSite,
        entries: &[String],
    ) -> Result<(), MutateError> {
        let text = e.text(root, &schema.object.file)?.to_string();
        let last = schema.params.last().map(|p| &p.entry);
        // Entries on lines of their own stay so: a second new parameter goes on the next line.
        let (a, b) = schema.object.bytes;
        let joint = match last {
            Some(l) if text[a..b].contains('\n') => format!(",\n{}", indent_at(&text, l.bytes.0)),
            _ => ", ".to_string(),
        };
        let (at, new) = append_entry(&text, &schema.object, last, &entries.join(&joint));
        e.insert(root, &schema.object.file, at, new)
    }

    fn json_bound_entry(&self, bound: Bound) -> String {
        format!(" {},", bound.json())
    }

    /// A zod chain gets the bound's method after its base type.
    fn declare_bound(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        bound: Bound,
    ) -> Result<(), MutateError> {
        // Constraint Mutation picks a zod parameter only with its base type found.
        let base = site
            .base
            .as_ref()
            .ok_or_else(|| MutateError::NotApplicable {
                operator: mcpevol_core::operators::Builtin::ConstraintMutation.into(),
                why: format!("the zod chain of `{}` has no base type to bound", site.name),
            })?;
        e.insert(root, &base.file, base.bytes.1, bound.zod())
    }

    fn json_description_entry(&self, text: &str) -> String {
        format!(" description: {},", js_string(text))
    }

    /// A zod chain gets `.describe(...)` at its end.
    fn describe_param(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        text: &str,
    ) -> Result<(), MutateError> {
        e.insert(
            root,
            &site.value.file,
            site.value.bytes.1,
            format!(".describe({})", js_string(text)),
        )
    }

    fn derived_copy(
        &self,
        region: &str,
        holder: &str,
        new: &str,
        _: &str,
        description_js: &str,
    ) -> String {
        let name_js = js_string(new);
        if let Some(constructor) = region
            .strip_prefix("new ")
            .and_then(|r| r.split('(').next())
        {
            // A subclass keeps the methods and schema; anchoring sees its fields.
            format!(
                "new (class extends {constructor} {{ name = {name_js}; description = {description_js}; }})()"
            )
        } else {
            let inline =
                format!("{{ ...{holder}, name: {name_js}, description: {description_js} }}");
            replace_word(region, holder, &inline)
        }
    }

    /// A clause of its own before the tool's, which falls through into its statements.
    fn route_case(
        &self,
        e: &mut Edits,
        root: &Path,
        route: &Route,
        text: &str,
        new: &str,
    ) -> Result<(), MutateError> {
        let indent = indent_at(text, route.site.bytes.0).to_string();
        e.insert(
            root,
            &route.site.file,
            route.site.bytes.0,
            format!("case {}:\n{indent}", js_string(new)),
        )
    }

    fn either(&self, compare: &str, other: &str) -> String {
        format!("({compare} || {other})")
    }

    fn remove_route(&self, e: &mut Edits, root: &Path, route: &Route) -> Result<(), MutateError> {
        unroute::remove_js_route(e, root, route)
    }

    fn writes_titles(&self) -> bool {
        true
    }

    fn writes_batches(&self) -> bool {
        true
    }

    fn snippet_label(&self) -> &'static str {
        ""
    }

    fn snippet_note(&self) -> Option<&'static str> {
        None
    }
}
