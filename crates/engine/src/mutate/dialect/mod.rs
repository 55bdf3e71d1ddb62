//! The languages the mutators write, as peers: a [`Dialect`] for JavaScript (and TypeScript)
//! and one for Python, chosen once from a file's name ([`dialect_of`]) or a tool's handler
//! ([`handler_dialect`]). Every place where the edits differ by language asks its dialect, so
//! that the operators read the same for both and a language's spelling lives in one place
//! (Python's writing is in `python/`, which its dialect calls).

mod javascript;
mod python;

use std::path::Path;

use super::around::Around;
use super::behaviours::{Bound, NewParam};
use super::splice::Edits;
use super::{MutateError, Presence};
use mcpevol_core::inventory::{ParamSite, Route, SchemaSite, Tool};

pub use javascript::JavaScript;
pub use python::Python;

/// The dialect of `file`, by its name.
pub fn dialect_of(file: &str) -> &'static dyn Dialect {
    if super::python::is_python(file) {
        &Python
    } else {
        &JavaScript
    }
}

/// The dialect of the tool's handler, whose wrapping (and `around` code) is in it:
/// JavaScript where the handler was not found.
pub fn handler_dialect(tool: &Tool) -> &'static dyn Dialect {
    tool.handler
        .as_ref()
        .map_or(&JavaScript, |h| dialect_of(&h.file))
}

/// The names a wrapper's guard of a tool is to take, from the names it takes now.
pub type Names<'a> = &'a dyn Fn(&[String]) -> Vec<String>;

// The trait stands last in this file and its implementations in files of their own: the
// layout check reads a method declared over several lines as running to the next `}` at its
// indentation, which after it would be the end of a function body.

/// What the edits of one language spell differently from another's.
pub trait Dialect: Sync {
    // Handlers: wrapping them with code that runs around the call.

    /// Why the handler of `tool` (written in this language) cannot be wrapped, or Ok.
    fn wrappable(&self, root: &Path, tool: &Tool) -> Result<(), &'static str>;
    /// Why the handler of `tool` cannot be wrapped as far as its anchored spans show, or Ok
    /// where that is only seen when the change is drafted.
    fn wrappable_here(&self, tool: &Tool) -> Result<(), &'static str>;
    /// Adds `around` to the calls of `tool`.
    fn wrap(
        &self,
        e: &mut Edits,
        root: &Path,
        tool: &Tool,
        around: &Around,
    ) -> Result<(), MutateError>;
    /// Code that runs what several new parameters do after the call.
    fn around_params(&self, params: &[&NewParam]) -> Around;
    /// Code that refuses a call whose `param` is beyond `bound`.
    fn enforce(&self, bound: Bound, param: &str) -> Around;
    /// Code that takes `param` out of the call's arguments before the handler sees them, so
    /// that a removed parameter sent anyway has no effect.
    fn drop_param(&self, param: &str) -> Around;
    /// Keeps the guards of wrappers written in earlier rounds in `file` in step with the names
    /// of the tool called `old` (`names` maps its guard's names to the new ones).
    fn guards_follow(
        &self,
        e: &mut Edits,
        root: &Path,
        file: &str,
        old: &str,
        names: Names,
    ) -> Result<(), MutateError>;
    /// Whether a handler in this language is given an enum's values in capitals.
    fn reads_capitals(&self) -> bool;
    /// Whether a projection of JSON answers (`fields`) is written around a handler in this
    /// language, or for a schema in it.
    fn projects_json(&self) -> bool;

    // Schemas: the parameters' declarations.

    /// Whether a schema in this language can be a zod shape (which refuses calls without a
    /// required parameter by itself).
    fn writes_zod(&self) -> bool;
    /// Whether a JSON schema in this language is given a default the handler already reads.
    fn declares_json_defaults(&self) -> bool;
    /// Whether the parameters of `schema` (in this language) can be removed from it.
    fn prunable(&self, schema: &SchemaSite) -> bool;
    /// The declaration of the new parameter `p` in `schema`, described by `words`.
    fn new_param(
        &self,
        schema: &SchemaSite,
        p: &NewParam,
        words: &str,
        presence: Presence,
    ) -> String;
    /// Declares the parameters `entries` (each one of [`Dialect::new_param`]) in `schema`.
    fn add_params(
        &self,
        e: &mut Edits,
        root: &Path,
        schema: &SchemaSite,
        entries: &[String],
    ) -> Result<(), MutateError>;
    /// The entry of a JSON-schema property object that declares `bound`.
    fn json_bound_entry(&self, bound: Bound) -> String;
    /// Declares `bound` on the parameter at `site` where its schema is not a JSON schema.
    fn declare_bound(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        bound: Bound,
    ) -> Result<(), MutateError>;
    /// The entry of a JSON-schema property object that describes it as `text`.
    fn json_description_entry(&self, text: &str) -> String;
    /// Describes the parameter at `site` as `text` where its schema is not a JSON schema.
    fn describe_param(
        &self,
        e: &mut Edits,
        root: &Path,
        site: &ParamSite,
        text: &str,
    ) -> Result<(), MutateError>;

    // Registrations and routing.

    /// A copy of the definition `holder` (declared in another module) named `new`, derived
    /// inline where `region` registers it: `description` is its text, `description_js` the
    /// same as a JavaScript expression in the style of the original.
    fn derived_copy(
        &self,
        region: &str,
        holder: &str,
        new: &str,
        description: &str,
        description_js: &str,
    ) -> String;
    /// Routes calls for `new` to the `case` clause `route` routes another name to (`text`
    /// being its file).
    fn route_case(
        &self,
        e: &mut Edits,
        root: &Path,
        route: &Route,
        text: &str,
        new: &str,
    ) -> Result<(), MutateError>;
    /// A condition true where `compare` or `other` is.
    fn either(&self, compare: &str, other: &str) -> String;
    /// Takes the routing site `route` of a removed tool out.
    fn remove_route(&self, e: &mut Edits, root: &Path, route: &Route) -> Result<(), MutateError>;
    /// Whether a tool in this language is given a display title beside its description.
    fn writes_titles(&self) -> bool;
    /// Whether a registration in this language is given a batch form.
    fn writes_batches(&self) -> bool;

    // Prompts.

    /// What the header of a snippet of this language adds after its lines (`, Python`).
    fn snippet_label(&self) -> &'static str;
    /// What is said before the snippets of a server with files of this language, if anything.
    fn snippet_note(&self) -> Option<&'static str>;
}
