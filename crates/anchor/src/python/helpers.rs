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

use super::syntax::{arguments, keyword, last_segment, path, string_value, unwrap};
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
        // `function.__tool__ = ToolDefinition(name, ...)`: a definition stored on the function.
        if node.kind() == "assignment"
            && node
                .child_by_field_name("left")
                .is_some_and(|l| l.kind() == "attribute")
            && let Some(value) = node.child_by_field_name("right")
        {
            names.extend(stored_definition(value, src, &params));
        }
        // `_TOOL_REGISTRY[name] = (func, params, description)`: a decorator named for tools
        // that files the function under its name argument.
        if node.kind() == "assignment"
            && let Some(left) = node
                .child_by_field_name("left")
                .filter(|l| l.kind() == "subscript")
            && let (Some(registry), Some(key)) = (
                left.child_by_field_name("value"),
                left.child_by_field_name("subscript"),
            )
            && collects_tools(&name, &format!("{}.", text(registry, src)))
            && let Some(value) = node.child_by_field_name("right")
            && appended_entry(value, body, src, &params) == Some(HelperName::Own)
        {
            names.extend(naming(key, src, &params));
        }
        // `def decorator(fn): return ToolDefinition(fn=fn, name=name, ...)`: a decorator that
        // turns the function into a tool definition, for a loop to register.
        if node.kind() == "return_statement"
            && let Some(value) = node.named_child(0)
        {
            names.extend(returned_definition(value, src, &params));
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
            names.extend(stored_definition(*value, src, &params));
            continue;
        }
        // `_tool_registry.append({"name": tool_name, "func": func})`: a decorator named for
        // tools that collects entries for a loop to register.
        if last == "append"
            && collects_tools(&name, &callee)
            && let Some(entry) = positional.first()
        {
            names.extend(appended_entry(*entry, body, src, &params));
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

/// A module-level name for another function, `tool = partial(make_tool, kind=Kind)` or
/// `tool = make_tool`: a registering helper under that name too, once linking knows the
/// target registers (the bound leading arguments counted).
pub fn alias(name: &str, value: Node, src: &str) -> Option<RegisteringFn> {
    let value = unwrap(value);
    let (target, bound) = match value.kind() {
        "identifier" => (text(value, src).to_string(), 0),
        "call" => {
            let callee = path(value.child_by_field_name("function")?, src)?;
            if !matches!(callee.as_str(), "partial" | "functools.partial") {
                return None;
            }
            let (_, positional) = arguments(value.child_by_field_name("arguments")?, src);
            let (first, rest) = positional.split_first()?;
            (path(unwrap(*first), src)?, rest.len())
        }
        _ => return None,
    };
    Some(RegisteringFn {
        name: name.to_string(),
        params: Vec::new(),
        names: Vec::new(),
        calls: Vec::new(),
        alias_of: Some((last_segment(&target).to_string(), bound)),
    })
}

/// Whether a function named `function` that appends to `registry` collects tools: its name
/// says tool, and the registry is none of resources or prompts.
fn collects_tools(function: &str, registry: &str) -> bool {
    let (function, registry) = (function.to_ascii_lowercase(), registry.to_ascii_lowercase());
    function.contains("tool")
        && registry.contains('.')
        && !["resource", "prompt"]
            .iter()
            .any(|w| registry.contains(w) || function.contains(w))
}

/// How an entry appended to a tool registry names the tool: the value of its `"name"` key,
/// read through the locals of `body` it was assigned from; an entry without a name that holds
/// the decorated function (`TOOLS.append((fn, title))`, `TOOLS.append(fn)`) is named after it.
fn appended_entry(entry: Node, body: Node, src: &str, params: &[String]) -> Option<HelperName> {
    let entry = unwrap(entry);
    let holds_function = |n: Node| {
        let n = unwrap(n);
        n.kind() == "identifier" && is_parameter_of_enclosing(n, text(n, src), src)
    };
    let mut cursor = entry.walk();
    match entry.kind() {
        "dictionary" => {
            let pairs: Vec<Node> = entry.named_children(&mut cursor).collect();
            let named = pairs.iter().find_map(|pair| {
                let key = pair.child_by_field_name("key")?;
                (string_value(key, src).as_deref() == Some("name"))
                    .then(|| pair.child_by_field_name("value"))?
            });
            match named {
                Some(value) => naming_through(value, body, src, params, 3),
                None => (pairs.iter())
                    .filter_map(|p| p.child_by_field_name("value"))
                    .any(holds_function)
                    .then_some(HelperName::Own),
            }
        }
        "tuple" | "list" => {
            (entry.named_children(&mut cursor).any(holds_function)).then_some(HelperName::Own)
        }
        "identifier" => holds_function(entry).then_some(HelperName::Own),
        _ => None,
    }
}

/// [`naming`] of `node`, where a local holds it followed to what it was assigned (`depth`
/// steps at most), and a conditional of a parameter and the function's own name read as
/// [`HelperName::Given`].
fn naming_through(
    node: Node,
    body: Node,
    src: &str,
    params: &[String],
    depth: usize,
) -> Option<HelperName> {
    let node = unwrap(node);
    match node.kind() {
        "identifier" if depth > 0 && !params.iter().any(|p| p == text(node, src)) => {
            let value = assigned(body, text(node, src), src)?;
            naming_through(value, body, src, params, depth - 1)
        }
        "conditional_expression" => {
            let mut cursor = node.walk();
            let parts: Vec<Node> = node.named_children(&mut cursor).collect();
            let [then, _, otherwise] = parts.as_slice() else {
                return None;
            };
            let read = |n: Node| naming_through(n, body, src, params, depth.saturating_sub(1));
            match (read(*then)?, read(*otherwise)?) {
                (HelperName::Template(t), HelperName::Own)
                | (HelperName::Own, HelperName::Template(t)) => {
                    let param = t.strip_prefix('{')?.strip_suffix('}')?;
                    params
                        .iter()
                        .any(|p| p == param)
                        .then(|| HelperName::Given(param.into()))
                }
                _ => None,
            }
        }
        _ => naming(node, src, params),
    }
}

/// The value last assigned to the plain name `name` in `body` (nested functions included).
fn assigned<'t>(body: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
    let mut found = None;
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind() == "assignment"
            && n.child_by_field_name("left")
                .is_some_and(|l| l.kind() == "identifier" && text(l, src) == name)
        {
            found = n.child_by_field_name("right");
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor));
    }
    found
}

/// How a tool definition stored on a function names the tool: `ToolDefinition(name, ...)` or
/// `ToolSpec(name=name)`, a call of a class named for tools given one of `params`.
fn stored_definition(value: Node, src: &str, params: &[String]) -> Option<HelperName> {
    let value = unwrap(value);
    if value.kind() != "call" {
        return None;
    }
    let callee = path(value.child_by_field_name("function")?, src)?;
    if !last_segment(&callee).contains("Tool") {
        return None;
    }
    let (keywords, positional) = arguments(value.child_by_field_name("arguments")?, src);
    let given = keyword(&keywords, "name").or_else(|| positional.first().copied())?;
    naming(given, src, params)
}

/// How a tool definition a decorator returns names the tool: a call of a class named for
/// tools given the decorated function (a parameter of the function that returns it), named by
/// its `name=` (one of `params`, else the function's own name, as such definitions fall back
/// to `fn.__name__`) or by the function alone.
fn returned_definition(value: Node, src: &str, params: &[String]) -> Option<HelperName> {
    let value = unwrap(value);
    if value.kind() != "call" {
        return None;
    }
    let callee = path(value.child_by_field_name("function")?, src)?;
    let class = last_segment(&callee).to_ascii_lowercase();
    if !class.contains("tool") || ["resource", "prompt"].iter().any(|w| class.contains(w)) {
        return None;
    }
    let (keywords, positional) = arguments(value.child_by_field_name("arguments")?, src);
    let holds_function = (keywords.iter().map(|(_, v)| *v))
        .chain(positional.iter().copied())
        .map(unwrap)
        .any(|a| a.kind() == "identifier" && is_parameter_of_enclosing(a, text(a, src), src));
    if !holds_function {
        return None;
    }
    match keyword(&keywords, "name").map(unwrap) {
        None => Some(HelperName::Own),
        Some(n) if n.kind() == "identifier" => {
            let p = text(n, src);
            params
                .iter()
                .any(|q| q == p)
                .then(|| HelperName::Given(p.to_string()))
        }
        Some(n) => naming(n, src, params),
    }
}

/// Whether `name` is a parameter of the function `node` stands in.
pub fn is_parameter_of_enclosing(node: Node, name: &str, src: &str) -> bool {
    let mut at = node.parent();
    while let Some(n) = at {
        if n.kind() == "function_definition" {
            return n
                .child_by_field_name("parameters")
                .is_some_and(|p| parameters(p, src).iter().any(|q| q == name));
        }
        at = n.parent();
    }
    false
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

/// The parameter names of a `parameters` node, without a leading `self` or `cls`.
pub(super) fn parameters(node: Node, src: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cursor = node.walk();
    for p in node.named_children(&mut cursor) {
        let name = match p.kind() {
            "identifier" => Some(p),
            "typed_parameter" => p.named_child(0).filter(|n| n.kind() == "identifier"),
            "default_parameter" | "typed_default_parameter" => p.child_by_field_name("name"),
            _ => None,
        };
        if let Some(n) = name {
            out.push(text(n, src).to_string());
        }
    }
    if out.first().is_some_and(|p| p == "self" || p == "cls") {
        out.remove(0);
    }
    out
}

/// What a `name=` argument inside a helper makes of its parameters: a parameter, an f-string
/// of parameters and text, or the function's `__name__`; None for anything else.
fn naming(node: Node, src: &str, params: &[String]) -> Option<HelperName> {
    let node = unwrap(node);
    match node.kind() {
        "identifier" => {
            let p = text(node, src);
            params
                .iter()
                .any(|q| q == p)
                .then(|| HelperName::Template(format!("{{{p}}}")))
        }
        "attribute" => text(node, src)
            .ends_with(".__name__")
            .then_some(HelperName::Own),
        "string" if string_value(node, src).is_none() => {
            let mut template = String::new();
            let mut cursor = node.walk();
            for part in node.named_children(&mut cursor) {
                match part.kind() {
                    "string_start" => {
                        let prefix = text(part, src).to_ascii_lowercase();
                        if !prefix.contains('f') || prefix.contains('b') {
                            return None;
                        }
                    }
                    "string_content" => template.push_str(text(part, src)),
                    "interpolation" => {
                        let inner = part.child_by_field_name("expression").map(unwrap)?;
                        let p = text(inner, src);
                        if inner.kind() != "identifier" || !params.iter().any(|q| q == p) {
                            return None;
                        }
                        template.push_str(&format!("{{{p}}}"));
                    }
                    "string_end" => {}
                    _ => return None,
                }
            }
            Some(HelperName::Template(template))
        }
        _ => None,
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
