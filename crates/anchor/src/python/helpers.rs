//! Decorators of a server's own making that register what they decorate as a tool:
//! `def register_tool(name): ... server.tool(func, name=name)` used as `@register_tool("x")`,
//! or a registry's `@tools.reader("Title")` whose method ends in `self.server.tool(...)`, or
//! a decorator that stores a tool definition named by its argument on the function
//! (`setattr(function, ATTR, ToolDefinition(name, options))`), for a loop to register.
//!
//! A handler class whose base class (in another module) sets `self.name` from what
//! `super().__init__("x")` passes it is joined the same way: the base's `__init__` is the
//! function that names the tool (`Base.name`), the class's call to it the use.
//!
//! Which decorators those are is known only across files (the registry may live in another
//! module), so each file records its functions that register tools (`RegisteringFn`) and its
//! functions decorated by something unknown (`HelperUse`); linking joins them (`expand`).

use std::collections::HashMap;

use tree_sitter::Node;

use super::registries::{self, naming};
use super::syntax::parameters;
use super::syntax::{arguments, keyword, last_segment, path, unwrap};
pub use crate::facts::decorators::{HelperName, HelperUse, RegisteringFn};
use crate::facts::{Candidate, FileFacts};
use crate::syntax::{Expr, span, text};
use mcpevol_core::inventory::Span;

/// Reads a function definition: Some when its body registers tools or calls other functions.
pub fn registering_fn(function: Node, src: &str) -> Option<RegisteringFn> {
    let name = text(function.child_by_field_name("name")?, src).to_string();
    let params = parameters(function.child_by_field_name("parameters")?, src);
    let body = function.child_by_field_name("body")?;
    let mut names = Vec::new();
    let mut calls = Vec::new();
    let mut stack = vec![body];
    while let Some(node) = stack.pop() {
        let mut cursor = node.walk();
        stack.extend(node.named_children(&mut cursor));
        // Definitions stored on the function, filed in a registry or returned (registries.rs).
        if let Some(named) = registries::definition(node, &name, body, src, &params) {
            names.extend(named);
            continue;
        }
        if node.kind() != "call" {
            continue;
        }
        let (Some(callee), Some(args)) = (
            node.child_by_field_name("function"),
            node.child_by_field_name("arguments"),
        ) else {
            continue;
        };
        let (keywords, positional) = arguments(args, src);
        let Some(callee) = path(callee, src) else {
            continue;
        };
        let last = last_segment(&callee);
        // `setattr(function, ATTR, ToolDefinition(name, options))`: a decorator that marks the
        // function with a tool definition named by its parameter, for the server to register
        // in a loop over the marked functions.
        if callee == "setattr"
            && let Some(value) = positional.get(2)
        {
            names.extend(registries::stored_definition(*value, src, &params));
            continue;
        }
        // `_tool_registry.append({"name": tool_name, "func": func})`: a decorator named for
        // tools that collects entries for a loop to register.
        if last == "append"
            && registries::collects_tools(&name, &callee)
            && let Some(entry) = positional.first()
        {
            names.extend(registries::appended_entry(*entry, body, src, &params));
            continue;
        }
        if matches!(last, "tool" | "add_tool") && callee.contains('.') {
            let named = match keyword(&keywords, "name") {
                None => Some(HelperName::Own),
                Some(n) => naming(n, src, &params),
            };
            names.extend(named);
        } else if !callee.contains('.') || callee.starts_with("self.") || callee.starts_with("cls.")
        {
            let passed = positional
                .iter()
                .map(|a| {
                    let a = unwrap(*a);
                    (a.kind() == "identifier")
                        .then(|| text(a, src).to_string())
                        .filter(|p| params.contains(p))
                })
                .collect();
            calls.push((last.to_string(), passed));
        }
    }
    (!names.is_empty() || !calls.is_empty()).then_some(RegisteringFn {
        name,
        params,
        names,
        calls,
        alias_of: None,
    })
}

/// Whether `name` is bound inside the function `node` stands in, by a `for` or an assignment
/// (`for name, (function, definition) in items:`): a value the loop hands on, not a function
/// the file defines.
pub fn is_local_of_enclosing(node: Node, name: &str, src: &str) -> bool {
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "function_definition" {
            let Some(body) = n.child_by_field_name("body") else {
                return false;
            };
            let mut stack = vec![body];
            while let Some(b) = stack.pop() {
                let bound = match b.kind() {
                    "for_statement" | "for_in_clause" => b.child_by_field_name("left"),
                    "assignment" => b.child_by_field_name("left"),
                    // A nested function binds its own names.
                    "function_definition" | "class_definition" => continue,
                    _ => None,
                };
                if bound.is_some_and(|t| binds(t, name, src)) {
                    return true;
                }
                let mut cursor = b.walk();
                stack.extend(b.named_children(&mut cursor));
            }
            return false;
        }
        at = n.parent();
    }
    false
}

/// Whether the target `node` of a `for` or an assignment binds `name`.
fn binds(node: Node, name: &str, src: &str) -> bool {
    match node.kind() {
        "identifier" => text(node, src) == name,
        "pattern_list" | "tuple_pattern" | "list_pattern" | "parenthesized_expression" => {
            let mut cursor = node.walk();
            node.named_children(&mut cursor)
                .any(|c| binds(c, name, src))
        }
        _ => false,
    }
}

/// A decorator's positional and keyword arguments, as values with their places.
type HelperArgs = (Vec<(Expr, Span)>, Vec<(String, Expr, Span)>);

/// The decorator's arguments, read as values with their places.
pub fn helper_args(args: Option<Node>, src: &str, rel: &str) -> HelperArgs {
    let Some(args) = args else {
        return (Vec::new(), Vec::new());
    };
    let (keywords, positional) = arguments(args, src);
    let read = |n: Node| (super::syntax::expr(n, src), span(unwrap(n), rel));
    (
        positional.into_iter().map(read).collect(),
        keywords
            .into_iter()
            .map(|(k, n)| {
                let (e, s) = read(n);
                (k, e, s)
            })
            .collect(),
    )
}

/// Every registering helper of the package, by name: those that call `.tool(...)` themselves,
/// then (to a fixed point) those that pass their parameters on to one.
fn helpers(files: &[(String, FileFacts)]) -> HashMap<String, (Vec<String>, Vec<HelperName>)> {
    let all: Vec<&RegisteringFn> = files.iter().flat_map(|(_, f)| &f.registering_fns).collect();
    let mut known: HashMap<String, (Vec<String>, Vec<HelperName>)> = all
        .iter()
        .filter(|f| !f.names.is_empty())
        .map(|f| (f.name.clone(), (f.params.clone(), f.names.clone())))
        .collect();
    loop {
        let mut grew = false;
        for f in &all {
            if known.contains_key(&f.name) {
                continue;
            }
            if let Some((target, bound)) = &f.alias_of {
                if let Some((params, names)) = known.get(target).cloned() {
                    let params = params.get(*bound..).unwrap_or_default().to_vec();
                    known.insert(f.name.clone(), (params, names));
                    grew = true;
                }
                continue;
            }
            let names: Vec<HelperName> = f
                .calls
                .iter()
                .filter_map(|(callee, passed)| Some((known.get(callee)?, passed)))
                .flat_map(|((callee_params, names), passed)| {
                    names
                        .iter()
                        .filter_map(|n| pass_on(n, callee_params, passed))
                        .collect::<Vec<_>>()
                })
                .collect();
            if !names.is_empty() {
                known.insert(f.name.clone(), (f.params.clone(), names));
                grew = true;
            }
        }
        if !grew {
            return known;
        }
    }
}

/// A callee's naming seen from a caller that passes `passed` as its positional arguments.
fn pass_on(name: &HelperName, params: &[String], passed: &[Option<String>]) -> Option<HelperName> {
    let template = match name {
        HelperName::Own => return Some(HelperName::Own),
        HelperName::Given(param) => {
            // Passed on as a parameter of the caller's, or not at all (the function's name).
            let at = params.iter().position(|p| p == param);
            return Some(match at.and_then(|i| passed.get(i)?.clone()) {
                Some(q) => HelperName::Given(q),
                None => HelperName::Own,
            });
        }
        HelperName::Template(template) => template,
    };
    let mut out = template.clone();
    for (i, p) in params.iter().enumerate() {
        let placeholder = format!("{{{p}}}");
        if out.contains(&placeholder) {
            let q = passed.get(i)?.as_ref()?;
            out = out.replace(&placeholder, &format!("{{{q}}}"));
        }
    }
    Some(HelperName::Template(out))
}

/// The candidates of every function decorated by a registering helper, named as the helper
/// names them; `resolve` gives the value of a name that is not a literal.
pub fn expand(
    files: &[(String, FileFacts)],
    resolve: impl Fn(&Expr, &str) -> Option<String>,
) -> Vec<(usize, Candidate)> {
    if files.iter().all(|(_, f)| f.helper_uses.is_empty()) {
        return Vec::new();
    }
    let known = helpers(files);
    let mut out = Vec::new();
    for (index, (file, facts)) in files.iter().enumerate() {
        for used in &facts.helper_uses {
            let Some((params, names)) = known.get(&used.helper) else {
                continue;
            };
            for name in names {
                match name {
                    HelperName::Own => out.push((index, used.candidate.clone())),
                    HelperName::Given(param) => {
                        let template = format!("{{{param}}}");
                        match named(used, params, &template, file, &resolve) {
                            Some(c) => out.push((index, c)),
                            None if !gives(used, params, param) => {
                                out.push((index, used.candidate.clone()))
                            }
                            None => {}
                        }
                    }
                    HelperName::Template(template) => {
                        if let Some(c) = named(used, params, template, file, &resolve) {
                            out.push((index, c));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Whether `used` gives the helper's parameter `param`, by keyword or in its place.
fn gives(used: &HelperUse, params: &[String], param: &str) -> bool {
    used.keywords.iter().any(|(k, _, _)| k == param)
        || (params.iter().position(|p| p == param)).is_some_and(|i| i < used.positional.len())
}

/// The candidate named by filling `template` with the decorator's arguments; its name site is
/// the argument when the template is that argument alone.
fn named(
    used: &HelperUse,
    params: &[String],
    template: &str,
    file: &str,
    resolve: &impl Fn(&Expr, &str) -> Option<String>,
) -> Option<Candidate> {
    let mut name = template.to_string();
    let mut site = None;
    for (i, p) in params.iter().enumerate() {
        let placeholder = format!("{{{p}}}");
        if !name.contains(&placeholder) {
            continue;
        }
        let (value, at) = used
            .keywords
            .iter()
            .find(|(k, _, _)| k == p)
            .map(|(_, e, s)| (e, s))
            .or_else(|| used.positional.get(i).map(|(e, s)| (e, s)))?;
        let text = match value {
            Expr::Str(s) => s.clone(),
            other => resolve(other, file)?,
        };
        if template == placeholder && !matches!(value, Expr::Unknown) {
            site = Some(at.clone());
        }
        name = name.replace(&placeholder, &text);
    }
    let mut c = used.candidate.clone();
    c.name = Expr::Str(name);
    c.sites.name = site;
    Some(c)
}
