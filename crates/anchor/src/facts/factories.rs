//! Definitions made by a factory the file declares: `createToolSchema(IncidentSchema,
//! "list_incidents", "Get incidents")`, where the function returns `{ name, description,
//! inputSchema }` built from its parameters. Each call that writes the name is one tool object.

use std::collections::HashMap;
use std::ops::Range;

use tree_sitter::Node;

use super::{Candidate, CandidateKind, Reader, SCHEMA_KEYS};
use crate::params::{self, SchemaRef};
use crate::syntax::{self, Expr, arguments, expr, object_entries, span, text, unwrap};
use crate::text;
use mcpevol_core::inventory::Sites;

/// Which of a factory's parameters become the definition's name, description and schema.
#[derive(Debug, Clone, Copy)]
pub(super) struct Factory {
    name: usize,
    description: usize,
    schema: Option<usize>,
}

impl<'t> Reader<'_, 't> {
    /// The tools made by calls of the file's own definition factories, in file order.
    pub(super) fn factory_tools(&self, parts: &[(Node<'t>, Range<usize>)]) -> Vec<Candidate> {
        let mut factories = HashMap::new();
        for (root, range) in parts {
            factories.extend(factories_in(*root, range, self.src));
        }
        self.made_by(parts, &factories)
    }

    /// The tools `parts` make by calls of `factories`, in file order.
    pub(super) fn made_by(
        &self,
        parts: &[(Node<'t>, Range<usize>)],
        factories: &HashMap<String, Factory>,
    ) -> Vec<Candidate> {
        if factories.is_empty() {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (root, range) in parts {
            for statement in top_level(*root, range) {
                calls_in(statement, &mut |call| {
                    if let Some(c) = self.made(call, factories) {
                        out.push(c);
                    }
                });
            }
        }
        out
    }

    /// The definition a call of one of `factories` makes, where it writes the name.
    fn made(&self, call: Node<'t>, factories: &HashMap<String, Factory>) -> Option<Candidate> {
        let callee = call.child_by_field_name("function")?;
        let f = factories.get(text(callee, self.src))?;
        let args = arguments(call.child_by_field_name("arguments")?);
        let (name, written) = written_name(&args, f.name, self.src)?;
        let description = *args.get(f.description)?;
        let schema = f.schema.and_then(|i| args.get(i));
        Some(Candidate {
            name: Expr::Str(written),
            kind: CandidateKind::ToolObject { registered: false },
            definition: span(call, self.rel),
            handler: None,
            schema: schema.map_or(SchemaRef::None, |s| {
                params::read_schema(*s, self.src, self.rel)
            }),
            output: SchemaRef::None,
            holder: None,
            sites: Sites {
                name: Some(span(name, self.rel)),
                description: Some(text::read_description(description, self.src, self.rel)),
                ..Sites::default()
            },
        })
    }
}

/// The argument at `at` of a call, where it writes a name a tool could have, and that name.
pub(super) fn written_name<'t>(
    args: &[Node<'t>],
    at: usize,
    src: &str,
) -> Option<(Node<'t>, String)> {
    let name = unwrap(*args.get(at)?);
    let Expr::Str(written) = expr(name, src) else {
        return None;
    };
    syntax::could_name_a_tool(&written).then_some((name, written))
}

/// The definition factories among the top-level statements of `root` in `range`, in order.
pub(super) fn factories_in(root: Node, range: &Range<usize>, src: &str) -> Vec<(String, Factory)> {
    (top_level(root, range).into_iter())
        .filter_map(|statement| factory(statement, src))
        .collect()
}

/// The top-level statements of `range` (an `export` looked through).
fn top_level<'t>(root: Node<'t>, range: &Range<usize>) -> Vec<Node<'t>> {
    let mut cursor = root.walk();
    root.named_children(&mut cursor)
        .filter(|n| range.contains(&n.start_byte()))
        .map(|n| match n.kind() {
            "export_statement" => n.child_by_field_name("declaration").unwrap_or(n),
            _ => n,
        })
        .collect()
}

/// A function declared by `statement` (`function f(a, b) {...}` or `const f = (a, b) => ...`)
/// that returns an object whose `name` and `description` are two of its parameters and that
/// has a schema key: its name and which parameters are which.
fn factory(statement: Node, src: &str) -> Option<(String, Factory)> {
    let (name, function) = match statement.kind() {
        "function_declaration" => (statement.child_by_field_name("name")?, statement),
        "lexical_declaration" | "variable_declaration" => {
            let mut cursor = statement.walk();
            let declarator = statement.named_children(&mut cursor).next()?;
            let value = unwrap(declarator.child_by_field_name("value")?);
            if !matches!(value.kind(), "arrow_function" | "function_expression") {
                return None;
            }
            (declarator.child_by_field_name("name")?, value)
        }
        _ => return None,
    };
    let params = parameter_names(function, src);
    let object = returned_object(function)?;
    let entries = object_entries(object, src);
    let param_of = |key: &str| {
        let (_, value, _) = entries.iter().find(|(k, _, _)| k == key)?;
        params.iter().position(|p| p == text(*value, src))
    };
    let schema_value = entries
        .iter()
        .find(|(k, _, _)| SCHEMA_KEYS.contains(&k.as_str()))
        .map(|(_, v, _)| *v)?;
    let schema = (params.iter())
        .position(|p| !p.is_empty() && crate::callers::mentions(text(schema_value, src), p, 1) > 0);
    let factory = Factory {
        name: param_of("name")?,
        description: param_of("description")?,
        schema,
    };
    Some((text(name, src).to_string(), factory))
}

/// The names of a function's plain parameters, in order (a pattern or default stands as "").
pub(super) fn parameter_names(function: Node, src: &str) -> Vec<String> {
    let Some(params) = function
        .child_by_field_name("parameters")
        .or_else(|| function.child_by_field_name("parameter"))
    else {
        return Vec::new();
    };
    if params.kind() == "identifier" {
        return vec![text(params, src).to_string()];
    }
    let mut cursor = params.walk();
    params
        .named_children(&mut cursor)
        .map(|p| {
            let p = p.child_by_field_name("pattern").unwrap_or(p);
            match p.kind() {
                "identifier" => text(p, src).to_string(),
                _ => String::new(),
            }
        })
        .collect()
}

/// The object a function returns: its expression body, or a `return {...}` among the
/// statements of its body.
fn returned_object(function: Node) -> Option<Node> {
    let body = function.child_by_field_name("body")?;
    if body.kind() != "statement_block" {
        return Some(unwrap(body)).filter(|b| b.kind() == "object");
    }
    let mut cursor = body.walk();
    let statements: Vec<Node> = body.named_children(&mut cursor).collect();
    (statements.into_iter())
        .filter(|s| s.kind() == "return_statement")
        .find_map(|s| {
            s.named_child(0)
                .map(unwrap)
                .filter(|v| v.kind() == "object")
        })
}

/// Calls every `call_expression` under `node` with `f`.
pub(super) fn calls_in<'t>(node: Node<'t>, f: &mut dyn FnMut(Node<'t>)) {
    let mut cursor = node.walk();
    let mut stack = vec![node];
    while let Some(n) = stack.pop() {
        if n.kind() == "call_expression" {
            f(n);
        }
        let children: Vec<Node<'t>> = n.named_children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
}
