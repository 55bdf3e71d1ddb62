//! The facts a Python file gives about decorators of the server's own making (read in
//! `anchor/python/helpers.rs`, joined across files when linking).

use super::Candidate;
use crate::syntax::Expr;
use mcpevol_core::inventory::Span;

/// How a helper names the tool it registers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelperName {
    /// Not given: the decorated function's own name, as FastMCP does.
    Own,
    /// From the helper's parameters: `{name}` or `wikipedia_{name}` (an f-string of them).
    Template(String),
    /// The helper's parameter of this name where a use gives it, else the function's own
    /// name (`name if name is not None else func.__name__`).
    Given(String),
}

/// A function (or method) whose body registers tools, or calls something that may.
#[derive(Debug, Clone)]
pub struct RegisteringFn {
    pub name: String,
    /// Its parameters, without `self`/`cls`, in order.
    pub params: Vec<String>,
    /// The names of the tools it registers itself (one per `.tool(...)`/`add_tool(...)` call).
    pub names: Vec<HelperName>,
    /// The functions it calls by a bare or `self.` name, with the parameter each positional
    /// argument passes on (None when it is something else).
    pub calls: Vec<(String, Vec<Option<String>>)>,
    /// Another name for a registering function, with how many of its leading parameters are
    /// bound: `tool = partial(make_tool, kind=Kind)` is `("make_tool", 0)`.
    pub alias_of: Option<(String, usize)>,
}

/// A function decorated by a call the reader does not know (`@register_tool("x")`), or a tool
/// object named by a base class: a tool if linking finds what names it.
#[derive(Debug, Clone)]
pub struct HelperUse {
    /// The decorator's callee, last segment (`register_tool`, `reader`); or, for a handler
    /// class whose base sets its name, `Base.attr` (its `super().__init__(...)` is the use).
    pub helper: String,
    pub positional: Vec<(Expr, Span)>,
    pub keywords: Vec<(String, Expr, Span)>,
    /// The tool as if named by the function itself, described by its docstring.
    pub candidate: Candidate,
}
