//! Handler classes: a tool built in a method as `Tool(name=self.name, ...)` takes the values its
//! class gives `self.name`: a class attribute, an assignment in `__init__`, or the argument its
//! `__init__` passes to a base class's `__init__` that assigns it (`super().__init__("x")`).

use tree_sitter::Node;

use super::syntax::{arguments, path, unwrap};
use crate::syntax::text;

/// The class definition `node` stands in, if any.
fn class_of(node: Node) -> Option<Node> {
    let mut class = node.parent();
    while let Some(c) = class.filter(|c| c.kind() != "class_definition") {
        class = c.parent();
    }
    class
}

/// The name of the class `node` stands in, if any.
pub fn enclosing_class<'s>(node: Node, src: &'s str) -> Option<&'s str> {
    Some(text(class_of(node)?.child_by_field_name("name")?, src))
}

/// `self.X` inside a method, as the expression its class gives `X`; None when `node` is
/// something else or the class does not say.
pub fn class_attribute<'t>(inside: Node<'t>, node: Node<'t>, src: &str) -> Option<Node<'t>> {
    let attr = path(unwrap(node), src)?.strip_prefix("self.")?.to_string();
    if attr.contains('.') {
        return None;
    }
    let class = class_of(inside)?;
    attribute_of(class, &attr, src, 0)
}

/// Base classes looked through, at most.
const MAX_BASES: usize = 4;

fn attribute_of<'t>(class: Node<'t>, attr: &str, src: &str, depth: usize) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    let statements: Vec<Node> = body.named_children(&mut cursor).collect();
    if let Some(value) = statements
        .iter()
        .find_map(|s| assigned(*s, attr, src, |left| left.kind() == "identifier"))
    {
        return Some(value);
    }
    let init = init_of(class, src)?;
    let init_body = init.child_by_field_name("body")?;
    let mut cursor = init_body.walk();
    let init_statements: Vec<Node> = init_body.named_children(&mut cursor).collect();
    let params = init_params(init, src);
    // `self.name = "x"` (or a constant), not one of `__init__`'s own parameters.
    if let Some(value) = init_statements.iter().find_map(|s| {
        assigned(*s, attr, src, |left| {
            left.kind() == "attribute"
                && path(left, src).is_some_and(|p| p == format!("self.{attr}"))
        })
    }) {
        let is_param = value.kind() == "identifier" && params.iter().any(|p| p == text(value, src));
        if !is_param {
            return Some(value);
        }
    }
    if depth >= MAX_BASES {
        return None;
    }
    // `super().__init__(args)`: the base's `__init__` assigns `self.name` one of its parameters.
    let call = init_statements.iter().find_map(|s| super_init(*s, src))?;
    let base = base_class(class, src)?;
    let base_init_param = init_param_assigned(base, attr, src)?;
    let (keywords, positional) = arguments(call.child_by_field_name("arguments")?, src);
    keywords
        .iter()
        .find(|(k, _)| *k == base_init_param.1)
        .map(|(_, v)| *v)
        .or_else(|| positional.get(base_init_param.0).copied())
        .map(unwrap)
        .or_else(|| attribute_of(base, attr, src, depth + 1))
}

/// The value of `left = value` when `statement` is one and `left` passes `is_target`.
fn assigned<'t>(
    statement: Node<'t>,
    attr: &str,
    src: &str,
    is_target: impl Fn(Node) -> bool,
) -> Option<Node<'t>> {
    let assignment = statement
        .named_child(0)
        .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")?;
    let left = assignment.child_by_field_name("left")?;
    let name_matches = match left.kind() {
        "identifier" => text(left, src) == attr,
        _ => true,
    };
    (name_matches && is_target(left))
        .then(|| assignment.child_by_field_name("right").map(unwrap))
        .flatten()
}

/// `__init__`'s parameters, without `self`.
fn init_params(init: Node, src: &str) -> Vec<String> {
    init.child_by_field_name("parameters")
        .map(|p| super::syntax::parameters(p, src))
        .unwrap_or_default()
}

/// The `super().__init__(...)` call a statement makes, if it is one.
fn super_init<'t>(statement: Node<'t>, src: &str) -> Option<Node<'t>> {
    let call = statement
        .named_child(0)
        .filter(|c| statement.kind() == "expression_statement" && c.kind() == "call")?;
    let function = call.child_by_field_name("function")?;
    let callee = text(function, src).split_whitespace().collect::<String>();
    (callee == "super().__init__").then_some(call)
}

/// The first base class of `class`, when it is defined in the same file.
fn base_class<'t>(class: Node<'t>, src: &str) -> Option<Node<'t>> {
    let bases = class.child_by_field_name("superclasses")?;
    let first = bases.named_child(0)?;
    let name = path(first, src)?;
    let name = name.rsplit('.').next()?;
    let mut root = class;
    while let Some(p) = root.parent() {
        root = p;
    }
    let mut stack = vec![root];
    while let Some(n) = stack.pop() {
        if n.kind() == "class_definition"
            && n.child_by_field_name("name")
                .is_some_and(|c| text(c, src) == name)
        {
            return Some(n);
        }
        let mut cursor = n.walk();
        stack.extend(n.named_children(&mut cursor).filter(|c| {
            matches!(
                c.kind(),
                "module" | "class_definition" | "decorated_definition" | "block"
            ) || c.kind() == "class_definition"
        }));
    }
    None
}

/// The parameter (index without `self`, and name) that a class's `__init__` assigns to
/// `self.attr`.
fn init_param_assigned(class: Node, attr: &str, src: &str) -> Option<(usize, String)> {
    self_params(class, src)
        .into_iter()
        .find(|(a, _, _)| a == attr)
        .map(|(_, index, param)| (index, param))
}

/// Every `self.attr = param` of a class's `__init__`: (attr, the parameter's index without
/// `self`, its name), in order.
fn self_params(class: Node, src: &str) -> Vec<(String, usize, String)> {
    let Some(init) = init_of(class, src) else {
        return Vec::new();
    };
    let params = init_params(init, src);
    let Some(body) = init.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .filter_map(|s| {
            let assignment = s
                .named_child(0)
                .filter(|a| s.kind() == "expression_statement" && a.kind() == "assignment")?;
            let attr = path(assignment.child_by_field_name("left")?, src)?
                .strip_prefix("self.")?
                .to_string();
            let value = text(unwrap(assignment.child_by_field_name("right")?), src);
            let index = params.iter().position(|p| p == value)?;
            Some((attr, index, value.to_string()))
        })
        .collect()
}

/// `self.attr` in a class whose base (defined in another file) sets it in `__init__`: the base's
/// name and the arguments the class's `__init__` passes it (`super().__init__("x")`).
pub fn passed_to_base<'t>(inside: Node<'t>, src: &str) -> Option<(String, Node<'t>)> {
    let class = class_of(inside)?;
    let bases = class.child_by_field_name("superclasses")?;
    let base = path(bases.named_child(0)?, src)?;
    let base = base.rsplit('.').next()?.to_string();
    let init = init_of(class, src)?;
    let init_body = init.child_by_field_name("body")?;
    let mut cursor = init_body.walk();
    let call = init_body
        .named_children(&mut cursor)
        .find_map(|s| super_init(s, src))?;
    Some((base, call.child_by_field_name("arguments")?))
}

/// What a class's `__init__` makes of its parameters: `self.attr = param`, as a function named
/// `Class.attr` that names a tool from that parameter (joined with the classes that pass it one,
/// as decorator helpers are).
pub fn init_assignments(class: Node, src: &str) -> Vec<crate::facts::decorators::RegisteringFn> {
    use crate::facts::decorators::{HelperName, RegisteringFn};
    let Some(name) = class.child_by_field_name("name").map(|n| text(n, src)) else {
        return Vec::new();
    };
    let params = init_of(class, src).map_or_else(Vec::new, |init| init_params(init, src));
    self_params(class, src)
        .into_iter()
        .map(|(attr, _, param)| RegisteringFn {
            name: format!("{name}.{attr}"),
            params: params.clone(),
            names: vec![HelperName::Template(format!("{{{param}}}"))],
            calls: Vec::new(),
            alias_of: None,
        })
        .collect()
}

/// The `__init__` method a class body defines.
fn init_of<'t>(class: Node<'t>, src: &str) -> Option<Node<'t>> {
    let body = class.child_by_field_name("body")?;
    let mut cursor = body.walk();
    body.named_children(&mut cursor).find(|s| {
        s.kind() == "function_definition"
            && s.child_by_field_name("name")
                .is_some_and(|n| text(n, src) == "__init__")
    })
}

/// The method `self.name` (or `cls.name`) names, defined in the class `at` stands in.
pub fn own_method<'t>(at: Node<'t>, target: Node<'t>, src: &str) -> Option<Node<'t>> {
    let object = target.child_by_field_name("object")?;
    if !matches!(text(object, src), "self" | "cls") {
        return None;
    }
    let name = text(target.child_by_field_name("attribute")?, src);
    let mut class = at.parent();
    while let Some(c) = class.filter(|c| c.kind() != "class_definition") {
        class = c.parent();
    }
    let body = class?.child_by_field_name("body")?;
    let mut cursor = body.walk();
    body.named_children(&mut cursor)
        .map(|n| match n.kind() {
            "decorated_definition" => n.child_by_field_name("definition").unwrap_or(n),
            _ => n,
        })
        .find(|n| {
            n.kind() == "function_definition"
                && n.child_by_field_name("name")
                    .is_some_and(|f| text(f, src) == name)
        })
}
