//! A module that is one tool: `export const name = "count_words"`, `export const description`,
//! `export const schema`, `export async function handler`. A server imports such modules as
//! namespaces (`import * as wordCount from "./tools/word-count.js"`) and registers each in a
//! loop (`server.tool(tool.name, tool.description, tool.schema, tool.handler)`).

use std::ops::Range;

use tree_sitter::Node;

use super::{
    Candidate, CandidateKind, HANDLER_KEYS, HandlerRef, Reader, SCHEMA_KEYS, STRONG_TOOL_KEYS,
};
use crate::params::{self, SchemaRef};
use crate::syntax::{expr, is_function, object_entries, span, text, unwrap};
use crate::text;
use mcpevol_core::inventory::{Sites, Span};

/// The exports that may hold a module tool's name, in order of preference.
const NAME_KEYS: &[&str] = &["name", "toolName", "method"];

impl<'t> Reader<'_, 't> {
    /// Reads the file's exports as one tool when they name it, describe it and give its
    /// schema or handler. `parts`: the file's roots and the ranges of their top-level
    /// statements that are read (see `read_parts`).
    pub(super) fn module_tool(&self, parts: &[(Node<'t>, Range<usize>)]) -> Option<Candidate> {
        let exports: Vec<_> = parts
            .iter()
            .flat_map(|(root, range)| top_level_exports(*root, range, self.src))
            .collect();
        let get = |k: &str| exports.iter().find(|(key, _, _)| key == k);
        // Some servers key their modules by the name they are called with (`method`).
        let name = NAME_KEYS.iter().find_map(|k| get(k)).map(|(_, v, _)| *v);
        let description = get("description").map(|(_, v, _)| *v);
        // `export const metadata = { name, description }` (as xmcp lays a tool out).
        let metadata = || {
            let (_, object, _) = get("metadata")?;
            let entries = object_entries(unwrap(*object), self.src);
            let field = |k: &str| entries.iter().find(|(key, _, _)| key == k).map(|e| e.1);
            Some((field("name")?, field("description")?))
        };
        let (name, description) = match (name, description) {
            (Some(name), Some(description)) => (name, description),
            _ => metadata()?,
        };
        let (name, description) = (&name, &description);
        if unwrap(*name).kind() != "string" && unwrap(*name).kind() != "template_string" {
            return None;
        }
        let schema = SCHEMA_KEYS.iter().find_map(|k| get(k));
        let handler = HANDLER_KEYS.iter().find_map(|k| get(k));
        let strong = STRONG_TOOL_KEYS.iter().any(|k| get(k).is_some());
        if schema.is_none() && handler.is_none() && !strong {
            return None;
        }
        let statements = exports.iter().map(|(_, _, s)| *s);
        let start = statements.clone().min_by_key(|s| s.start_byte())?;
        let last = statements.max_by_key(|s| s.end_byte())?;
        let definition = Span {
            start_line: start.start_position().row + 1,
            bytes: (start.start_byte(), last.end_byte()),
            ..span(last, self.rel)
        };
        let sites = Sites {
            name: Some(span(unwrap(*name), self.rel)),
            description: Some(text::read_description(*description, self.src, self.rel)),
            ..Sites::default()
        };
        Some(Candidate {
            name: expr(*name, self.src),
            kind: CandidateKind::ToolObject { registered: false },
            definition,
            handler: handler.and_then(|(_, h, _)| match h.kind() {
                "function_declaration" | "generator_function_declaration" => {
                    Some(HandlerRef::At(span(*h, self.rel)))
                }
                _ => self.handler_ref(*h),
            }),
            schema: schema.map_or(SchemaRef::None, |(_, s, _)| {
                params::read_schema(*s, self.src, self.rel)
            }),
            output: get("outputSchema").map_or(SchemaRef::None, |(_, s, _)| {
                params::read_schema(*s, self.src, self.rel)
            }),
            holder: None,
            sites,
        })
    }
}

/// The file's named exports: each name, its value (the function itself for a function
/// declaration) and the export statement.
/// The keys the top-level statements of `root` in `range` export, each with its statement.
pub(super) fn exports_in(
    root: Node,
    range: &Range<usize>,
    src: &str,
) -> Vec<(String, Range<usize>)> {
    (top_level_exports(root, range, src).into_iter())
        .map(|(key, _, statement)| (key, statement.byte_range()))
        .collect()
}

fn top_level_exports<'t>(
    program: Node<'t>,
    range: &Range<usize>,
    src: &str,
) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = program.walk();
    for statement in program.named_children(&mut cursor) {
        if !range.contains(&statement.start_byte()) {
            continue;
        }
        if let Some((name, value)) = commonjs_export(statement, src) {
            out.push((name, value, statement));
            continue;
        }
        if statement.kind() != "export_statement"
            || text(statement, src).starts_with("export default")
        {
            continue;
        }
        let Some(declaration) = statement.child_by_field_name("declaration") else {
            continue;
        };
        if is_function(declaration) || declaration.kind() == "function_declaration" {
            if let Some(name) = declaration.child_by_field_name("name") {
                out.push((text(name, src).to_string(), declaration, statement));
            }
            continue;
        }
        let mut inner = declaration.walk();
        for declarator in declaration.named_children(&mut inner) {
            if declarator.kind() != "variable_declarator" {
                continue;
            }
            if let (Some(name), Some(value)) = (
                declarator.child_by_field_name("name"),
                declarator.child_by_field_name("value"),
            ) {
                out.push((text(name, src).to_string(), value, statement));
            }
        }
    }
    out
}

/// `exports.name = "count_words";` (or `module.exports.name`), as compilers write a module's
/// exports in CommonJS; the `exports.a = exports.b = void 0;` header declares, not defines.
fn commonjs_export<'t>(statement: Node<'t>, src: &str) -> Option<(String, Node<'t>)> {
    let assignment = statement
        .named_child(0)
        .filter(|_| statement.kind() == "expression_statement")
        .filter(|a| a.kind() == "assignment_expression")?;
    let left = assignment.child_by_field_name("left")?;
    let value = assignment.child_by_field_name("right")?;
    let object = text(left.child_by_field_name("object")?, src);
    if left.kind() != "member_expression" || !matches!(object, "exports" | "module.exports") {
        return None;
    }
    if value.kind() == "assignment_expression" || text(value, src) == "void 0" {
        return None;
    }
    let name = text(left.child_by_field_name("property")?, src).to_string();
    Some((name, value))
}

#[cfg(test)]
mod tests {
    use crate::grammar::Lang;
    use crate::syntax::Expr;

    fn module_names(src: &str) -> Vec<Expr> {
        let facts = crate::read_source("tools/echo.js", Lang::JavaScript, src.as_bytes().to_vec());
        facts.candidates.into_iter().map(|c| c.name).collect()
    }

    #[test]
    fn a_module_of_commonjs_exports_is_one_tool_and_its_void_header_is_not() {
        let src = "\"use strict\";\nexports.handler = exports.schema = exports.description = exports.name = void 0;\nconst zod_1 = require(\"zod\");\nexports.name = \"echo_back\";\nexports.description = \"Echo a message back\";\nexports.schema = { message: zod_1.z.string() };\nasync function handler({ message }) { return message; }\nexports.handler = handler;\n";
        assert_eq!(module_names(src), [Expr::Str("echo_back".into())]);
    }

    #[test]
    fn a_module_that_names_and_describes_but_neither_takes_nor_does_anything_is_no_tool() {
        let src = "export const name = \"settings\";\nexport const description = \"Settings page\";\nexport const version = 2;\n";
        assert!(module_names(src).is_empty());
    }
}
