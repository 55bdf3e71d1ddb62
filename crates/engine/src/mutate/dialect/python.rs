//! The Python dialect (3.10+; FastMCP and low-level servers): its writing is in `mutate/python/`,
//! which each method calls.

use std::path::Path;

use super::super::around::Around;
use super::super::behaviours::{Bound, NewParam, around_params_py};
use super::super::python::{self as py, PYTHON_NOTE};
use super::super::splice::{Edits, replace_word};
use super::super::{MutateError, Presence};
use super::{Dialect, Names};
use mcpevol_core::inventory::{ParamSite, Route, SchemaSite, Style, Tool};
use mcpevol_core::operators::Builtin::{ConstraintMutation, ParameterDescriptionUpdate};

/// Python (3.10+): FastMCP and low-level servers.
pub struct Python;

impl Dialect for Python {
    fn wrappable(&self, root: &Path, tool: &Tool) -> Result<(), &'static str> {
        py::wrap::wrappable(root, tool)
    }

    /// A Python wrapper decorates the handler in its own file, or the call handler that routes
    /// it: a handler a router in another module calls has neither.
    fn wrappable_here(&self, tool: &Tool) -> Result<(), &'static str> {
        match tool.style {
            Style::Register | Style::Switch | Style::If | Style::Other => Ok(()),
            _ => Err("its handler is called by a router in another module, which is not wrapped"),
        }
    }

    fn wrap(
        &self,
        e: &mut Edits,
        root: &Path,
        tool: &Tool,
        around: &Around,
    ) -> Result<(), MutateError> {
        py::wrap::wrap(e, root, tool, around)
    }

    fn around_params(&self, params: &[&NewParam]) -> Around {
        around_params_py(params)
    }

    /// The call is refused by raising, which the SDK answers as an error result.
    fn enforce(&self, bound: Bound, param: &str) -> Around {
        bound.enforce_py(param)
    }

    fn drop_param(&self, param: &str) -> Around {
        let key = serde_json::to_string(param).expect("a string serializes");
        Around {
            before: format!("if isinstance(arguments, dict):\n    arguments.pop({key}, None)"),
            after: String::new(),
        }
    }

    fn guards_follow(
        &self,
        e: &mut Edits,
        root: &Path,
        file: &str,
        old: &str,
        names: Names,
    ) -> Result<(), MutateError> {
        py::wrap::guards_follow(e, root, file, old, names)
    }

    fn reads_capitals(&self) -> bool {
        false
    }

    fn projects_json(&self) -> bool {
        false
    }

    fn writes_zod(&self) -> bool {
        false
    }

    fn declares_json_defaults(&self) -> bool {
        false
    }

    fn prunable(&self, schema: &SchemaSite) -> bool {
        py::prunable(schema)
    }

    fn new_param(&self, schema: &SchemaSite, p: &NewParam, words: &str, _: Presence) -> String {
        py::new_param(schema, p, words)
    }

    fn add_params(
        &self,
        e: &mut Edits,
        root: &Path,
        schema: &SchemaSite,
        entries: &[String],
    ) -> Result<(), MutateError> {
        py::add_params(e, root, schema, entries)
    }

    fn json_bound_entry(&self, bound: Bound) -> String {
        py::property_entry(&bound.json())
    }

    /// A `Field(...)` gets the bound's keyword.
    fn declare_bound(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        bound: Bound,
    ) -> Result<(), MutateError> {
        let (keyword, n) = py::bound_keyword(bound);
        let value = n.to_string();
        py::field_keyword(e, root, site, keyword, &value, ConstraintMutation)
    }

    fn json_description_entry(&self, text: &str) -> String {
        format!(" {},", py::json_entry("description", &py::string(text)))
    }

    /// A `Field(...)` gets `description=`.
    fn describe_param(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        text: &str,
    ) -> Result<(), MutateError> {
        py::field_keyword(
            e,
            root,
            site,
            "description",
            &py::string(text),
            ParameterDescriptionUpdate,
        )
    }

    fn derived_copy(
        &self,
        region: &str,
        holder: &str,
        new: &str,
        description: &str,
        _: &str,
    ) -> String {
        let derived = py::derived_object(holder, new, description);
        replace_word(region, holder, &derived)
    }

    /// `case X:` also takes the alias: `case X | "new":`.
    fn route_case(
        &self,
        e: &mut Edits,
        root: &Path,
        route: &Route,
        _: &str,
        new: &str,
    ) -> Result<(), MutateError> {
        e.insert(
            root,
            &route.label.file,
            route.label.bytes.1,
            py::case_alternative(new),
        )
    }

    fn either(&self, compare: &str, other: &str) -> String {
        py::compare_or(compare, other)
    }

    fn remove_route(&self, e: &mut Edits, root: &Path, route: &Route) -> Result<(), MutateError> {
        py::unroute(e, root, &route.site, &route.label, route.kind)
    }

    fn writes_titles(&self) -> bool {
        false
    }

    /// A batch form's handler is written in JavaScript.
    fn writes_batches(&self) -> bool {
        false
    }

    fn snippet_label(&self) -> &'static str {
        ", Python"
    }

    fn snippet_note(&self) -> Option<&'static str> {
        Some(PYTHON_NOTE)
    }
}
