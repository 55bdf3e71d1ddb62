//! Functions of a file that register the tool their caller names:
//! `const tool = (name, title, description, shape, annotations, cb) => server.registerTool(name,
//! { title, description, inputSchema: shape, annotations }, async (args) => cb(args))`. Each
//! call of such a function that writes the name is one tool, its arguments in the slots the
//! function's own register call gives its parameters.

use std::ops::Range;

use tree_sitter::Node;

use super::factories::{calls_in, parameter_names, written_name};
use super::{CandidateKind, Reader, SCHEMA_KEYS};
use crate::params::{self, SchemaRef};
use crate::syntax::{arguments, object_entries, span, text, unwrap};
use crate::text;

/// Which of a registering function's parameters are the tool's name, description, schema and
/// handler.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Slots {
    name: usize,
    description: Option<usize>,
    schema: Option<usize>,
    /// A parameter passed on as the configuration, or spread into it (`{ ...config, _meta }`):
    /// the caller's object there gives the description and schemas.
    config: Option<usize>,
    handler: Option<usize>,
}

impl<'t> Reader<'_, 't> {
    /// Notes the function around a register call whose name is one of that function's
    /// parameters, and says whether it did (the call itself then names no tool).
    /// `args` are the register call's arguments; `config` says whether they are `(name,
    /// config, handler)` rather than `(name, description, schema, handler)`.
    pub(super) fn note_registrar(
        &mut self,
        call: Node<'t>,
        args: &[Node<'t>],
        config: bool,
    ) -> bool {
        let Some(first) = args.first().map(|a| unwrap(*a)) else {
            return false;
        };
        if first.kind() != "identifier" {
            return false;
        }
        let Some((function_name, params)) = enclosing_function(call, self.src) else {
            return false;
        };
        let param = |node: Node| {
            let word = text(unwrap(node), self.src);
            params.iter().position(|p| p == word)
        };
        let Some(name) = param(first) else {
            return false;
        };
        let (mut description, mut schema, mut passed) = (None, None, None);
        let rest = &args[1..args.len().saturating_sub(1).max(1)];
        if config {
            let object = rest.first().map(|c| unwrap(*c));
            passed = object.and_then(&param);
            if let Some(object) = object.filter(|c| c.kind() == "object") {
                for (key, value, _) in object_entries(object, self.src) {
                    if key == "description" {
                        description = param(value);
                    } else if SCHEMA_KEYS.contains(&key.as_str()) && schema.is_none() {
                        schema = param(value);
                    }
                }
                let mut cursor = object.walk();
                passed = (object.named_children(&mut cursor))
                    .filter(|c| c.kind() == "spread_element")
                    .find_map(|c| c.named_child(0).and_then(&param));
            }
        } else {
            description = rest.first().and_then(|a| param(*a));
            schema = rest.get(1).and_then(|a| param(*a));
        }
        let taken = [Some(name), description, schema, passed];
        let handler = args.last().and_then(|last| {
            if let Some(at) = param(*last).filter(|at| !taken.contains(&Some(*at))) {
                return Some(at);
            }
            // A wrapper written around the caller's handler: the last parameter it calls.
            let body = text(*last, self.src);
            (0..params.len())
                .rev()
                .find(|at| !taken.contains(&Some(*at)) && calls_word(body, &params[*at]))
        });
        self.registrars.insert(
            function_name,
            Slots {
                name,
                description,
                schema,
                config: passed,
                handler,
            },
        );
        true
    }

    /// The tools made by calls of the file's registering functions, each call claimed so that
    /// no other reading takes it again.
    pub(super) fn registrar_tools(&mut self, parts: &[(Node<'t>, Range<usize>)]) {
        if self.registrars.is_empty() {
            return;
        }
        let mut calls = Vec::new();
        for (root, range) in parts {
            calls_in(*root, &mut |call| {
                if range.contains(&call.start_byte()) {
                    calls.push(call);
                }
            });
        }
        for call in calls {
            if self.registered_by_call(call) {
                self.register_calls.insert(call.start_byte());
            }
        }
    }

    /// Reads the tool a call of a registering function registers, where it writes the name,
    /// and says whether there was one.
    fn registered_by_call(&mut self, call: Node<'t>) -> bool {
        let Some(callee) = call.child_by_field_name("function") else {
            return false;
        };
        let Some(slots) = (callee.kind() == "identifier")
            .then(|| self.registrars.get(text(callee, self.src)).copied())
            .flatten()
        else {
            return false;
        };
        let args = call
            .child_by_field_name("arguments")
            .map(arguments)
            .unwrap_or_default();
        let Some((name, _)) = written_name(&args, slots.name, self.src) else {
            return false;
        };
        let handler = slots
            .handler
            .and_then(|at| args.get(at))
            .and_then(|h| self.handler_ref(*h));
        let mut definition = span(call, self.rel);
        if let Some(before) = (slots.handler)
            .filter(|at| *at > 0)
            .and_then(|at| args.get(at - 1))
        {
            definition.end_line = before.end_position().row + 1;
            definition.bytes.1 = before.end_byte();
        }
        let config = (slots.config.and_then(|at| args.get(at)))
            .map(|c| unwrap(*c))
            .and_then(|c| match c.kind() {
                "object" => Some(c),
                "identifier" => self.declared_object(text(c, self.src)),
                _ => None,
            });
        let (mut description, mut schema, output) = config
            .map(|c| self.config_fields(c))
            .unwrap_or((None, SchemaRef::None, SchemaRef::None));
        if let Some(d) = slots.description.and_then(|at| args.get(at)) {
            description = Some(text::read_description(*d, self.src, self.rel));
        }
        if let Some(s) = slots.schema.and_then(|at| args.get(at)) {
            schema = params::read_schema(*s, self.src, self.rel);
        }
        let fields = (description, schema, output);
        self.push_call(
            call,
            name,
            CandidateKind::RegisterCall,
            definition,
            handler,
            fields,
        );
        true
    }
}

/// Whether `body` calls `word` as a whole identifier: `word(`.
fn calls_word(body: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    !word.is_empty()
        && (body.match_indices(&format!("{word}(")))
            .any(|(at, _)| !body[..at].chars().next_back().is_some_and(is_ident))
}

/// The name and parameters of the named function nearest around `node`: a function
/// declaration, or a function or arrow assigned to a `const`.
fn enclosing_function(node: Node, src: &str) -> Option<(String, Vec<String>)> {
    let mut at = node.parent();
    while let Some(n) = at {
        at = n.parent();
        let name = match n.kind() {
            "function_declaration" => n.child_by_field_name("name"),
            "arrow_function" | "function_expression" => n
                .parent()
                .filter(|p| p.kind() == "variable_declarator")
                .and_then(|p| p.child_by_field_name("name")),
            // A function without a name of its own (a callback, a method) is not called by name.
            "method_definition" => return None,
            _ => continue,
        };
        let name = name.filter(|n| n.kind() == "identifier")?;
        return Some((text(name, src).to_string(), parameter_names(n, src)));
    }
    None
}

/// Registering functions read from `src`, for the unit tests.
#[cfg(test)]
fn registrars_of(src: &str) -> std::collections::HashMap<String, Slots> {
    let tree = crate::parse(src, crate::grammar::Lang::JavaScript).unwrap();
    let mut found = std::collections::HashMap::new();
    calls_in(tree.root_node(), &mut |call| {
        let Some(method) = call
            .child_by_field_name("function")
            .and_then(|f| f.child_by_field_name("property"))
        else {
            return;
        };
        let mut reader = Reader::new(src, "index.js");
        let args = arguments(call.child_by_field_name("arguments").unwrap());
        if reader.note_registrar(call, &args, text(method, src) == "registerTool") {
            found.extend(reader.registrars);
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_function_passing_its_parameters_to_register_tool_maps_each_slot() {
        let src = "const tool = (name, title, description, shape, annotations, cb) => {\n  server.registerTool(name, { title, description, inputSchema: shape, annotations }, async (args) => { return { content: await cb(args) }; });\n};\n";
        let slots = registrars_of(src)["tool"];
        assert_eq!(
            slots,
            Slots {
                name: 0,
                description: Some(2),
                schema: Some(3),
                config: None,
                handler: Some(5),
            }
        );
    }

    #[test]
    fn a_positional_tool_call_on_parameters_maps_description_schema_and_handler() {
        let src = "function add(server, toolName, text, params, run) {\n  server.tool(toolName, text, params, run);\n}\n";
        let slots = registrars_of(src)["add"];
        assert_eq!(
            slots,
            Slots {
                name: 1,
                description: Some(2),
                schema: Some(3),
                config: None,
                handler: Some(4),
            }
        );
    }

    #[test]
    fn a_configuration_spread_from_a_parameter_is_the_callers_configuration() {
        let src = "function registerAppTool(server, name, config, cb) {\n  return server.registerTool(name, { ...config, _meta: meta }, cb);\n}\n";
        let slots = registrars_of(src)["registerAppTool"];
        assert_eq!(
            (slots.name, slots.config, slots.handler),
            (1, Some(2), Some(3))
        );
        assert_eq!((slots.description, slots.schema), (None, None));
    }

    #[test]
    fn a_register_call_named_by_a_constant_or_inside_a_method_is_no_registrar() {
        let constant =
            "const NAME = 'x';\nfunction setup(server) { server.tool(NAME, 'd', {}, cb); }\n";
        assert!(registrars_of(constant).is_empty());
        let method = "class S { add(name, d, cb) { this.tool(name, d, cb); } }\n";
        assert!(registrars_of(method).is_empty());
    }
}
