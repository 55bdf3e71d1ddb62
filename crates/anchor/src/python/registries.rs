//! Tool registries a server's own decorators fill, read from the decorator's body: a
//! definition stored on the function (`fn.__tool__ = ToolDefinition(name)`), an entry appended
//! to a list (`TOOLS.append({"name": name, "func": fn})`, `TOOLS.append((fn, title))`), filed
//! in a dict (`_TOOL_REGISTRY[name] = (fn, ...)`) or returned (`return ToolDefinition(fn=fn,
//! name=name)`), and other names for such decorators (`tool = partial(make_tool, ...)`).

use tree_sitter::Node;

use super::syntax::{
    arguments, is_parameter_of_enclosing, keyword, last_segment, path, string_value, unwrap,
};
use crate::facts::decorators::{HelperName, RegisteringFn};
use crate::syntax::text;

/// What a statement of a registering function's body (`node`, in the function `function`
/// whose body is `body`) names when it files a tool definition; None for any other statement.
pub(super) fn definition(
    node: Node,
    function: &str,
    body: Node,
    src: &str,
    params: &[String],
) -> Option<Option<HelperName>> {
    match node.kind() {
        // `function.__tool__ = ToolDefinition(name, ...)`: a definition stored on the function.
        "assignment" => {
            let left = node.child_by_field_name("left")?;
            let value = node.child_by_field_name("right")?;
            match left.kind() {
                "attribute" => Some(stored_definition(value, src, params)),
                // `_TOOL_REGISTRY[name] = (func, params, description)`: a decorator named for
                // tools that files the function under its name argument.
                "subscript" => {
                    let registry = left.child_by_field_name("value")?;
                    let key = left.child_by_field_name("subscript")?;
                    let files = collects_tools(function, &format!("{}.", text(registry, src)))
                        && appended_entry(value, body, src, params) == Some(HelperName::Own);
                    files.then(|| naming(key, src, params))
                }
                _ => None,
            }
        }
        // `def decorator(fn): return ToolDefinition(fn=fn, name=name, ...)`: a decorator that
        // turns the function into a tool definition, for a loop to register.
        "return_statement" => Some(returned_definition(node.named_child(0)?, src, params)),
        _ => None,
    }
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
pub(super) fn collects_tools(function: &str, registry: &str) -> bool {
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
pub(super) fn appended_entry(
    entry: Node,
    body: Node,
    src: &str,
    params: &[String],
) -> Option<HelperName> {
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
pub(super) fn naming_through(
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
pub(super) fn assigned<'t>(body: Node<'t>, name: &str, src: &str) -> Option<Node<'t>> {
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

/// How a tool definition a decorator returns names the tool: a call of a class named for
/// tools given the decorated function (a parameter of the function that returns it), named by
/// its `name=` (one of `params`, else the function's own name, as such definitions fall back
/// to `fn.__name__`) or by the function alone.
pub(super) fn returned_definition(value: Node, src: &str, params: &[String]) -> Option<HelperName> {
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

/// How a tool definition stored on a function names the tool: `ToolDefinition(name, ...)` or
/// `ToolSpec(name=name)`, a call of a class named for tools given one of `params`.
pub(super) fn stored_definition(value: Node, src: &str, params: &[String]) -> Option<HelperName> {
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

/// What a `name=` argument inside a helper makes of its parameters: a parameter, an f-string
/// of parameters and text, or the function's `__name__`; None for anything else.
pub(super) fn naming(node: Node, src: &str, params: &[String]) -> Option<HelperName> {
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
