//! Reading the calls that register one tool: register calls on a server object, helpers given
//! a literal name, a configuration and a handler, and builder chains that end in a handler.

use tree_sitter::Node;

use super::{
    Candidate, CandidateKind, HandlerRef, Match, NOT_TOOL_KEYS, Reader, SCHEMA_KEYS,
    STRONG_TOOL_KEYS, statement_of,
};
use crate::params::{self, SchemaRef};
use crate::syntax::{Expr, arguments, expr, object_entries, span, text, unwrap};
use crate::text;
use mcpevol_core::inventory::{DescriptionForm, DescriptionSite, Sites};

/// A tool configuration's description, input schema and output schema.
pub(super) type Fields = (Option<DescriptionSite>, SchemaRef, SchemaRef);

/// Builder links that start a tool with its name: `server.tool("get_time")`.
const NAME_LINKS: &[&str] = &[
    "tool",
    "addTool",
    "registerTool",
    "defineTool",
    "createTool",
];
/// Builder links that set the description.
const DESCRIPTION_LINKS: &[&str] = &["description", "describe", "withDescription"];
/// Builder links that set the input schema.
const SCHEMA_LINKS: &[&str] = &[
    "input",
    "inputSchema",
    "parameters",
    "params",
    "schema",
    "args",
    "withInput",
];
/// Words in a callee's name that say it registers something other than a tool, though its
/// arguments look alike (`registerPrompt("name", { description, argsSchema }, cb)`).
const NOT_TOOL_CALLEES: &[&str] = &["prompt", "resource"];

impl<'t> Reader<'_, 't> {
    pub(super) fn register_call(&mut self, m: &Match<'_, 't>) {
        let (call, method, args) = (m.node("call"), m.node("method"), m.node("args"));
        let args = arguments(args);
        let Some(first) = args.first().map(|a| unwrap(*a)) else {
            return;
        };
        // `server.tool("name").description(...)...`: a link of a builder chain, read with it.
        if args.len() == 1
            && call
                .parent()
                .is_some_and(|p| p.kind() == "member_expression")
        {
            return;
        }
        // A server's own registering method (register.scm) registers only with a handler last.
        let method = text(method, self.src);
        let own = !["tool", "registerTool", "registerToolTask", "addTool"].contains(&method);
        if own && (args.len() < 3 || self.handler_ref(*args.last().unwrap()).is_none()) {
            return;
        }
        self.register_calls.insert(call.start_byte());
        // `registerTool(name, ...)` inside a function of the file, on its own parameter: the
        // function's callers name the tools (`registrars.rs`).
        if self.note_registrar(call, &args, !own && method != "tool") {
            return;
        }
        if first.kind() == "object" {
            self.registered_objects.insert(first.start_byte());
            return;
        }
        let last = *args.last().unwrap();
        let handler = match unwrap(last) {
            // registerToolTask takes an object of task functions ({ createTask, getTask, ... }).
            h if h.kind() == "object" && args.len() > 2 => Some(HandlerRef::At(span(h, self.rel))),
            _ if args.len() > 1 => self.handler_ref(last),
            _ => None,
        };
        let middle_end = if handler.is_some() {
            args.len() - 1
        } else {
            args.len()
        };
        let middle = &args[1..middle_end.max(1)];
        let (mut schema, mut output) = (SchemaRef::None, SchemaRef::None);
        let mut description = None;
        // `registerTool(name, config, cb)` and its relatives take a config object; the
        // original `tool(name, ...)` spreads description and schema as arguments, and so does
        // a server's own `addJsonOutputTool(name, description, shape, cb)` (register.scm).
        if !own && method != "tool" {
            // The config is written inline, or declared in this file and passed by name.
            let config = middle
                .first()
                .map(|c| unwrap(*c))
                .and_then(|c| match c.kind() {
                    "object" => Some(c),
                    "identifier" => self.declared_object(text(c, self.src)),
                    _ => None,
                });
            if let Some(config) = config {
                (description, schema, output) = self.config_fields(config);
            }
        } else {
            let mut rest = middle;
            if let Some(node) = rest.first() {
                let d = text::read_description(*node, self.src, self.rel);
                let named = matches!(d.form, DescriptionForm::Constant { .. });
                let written = matches!(
                    d.form,
                    DescriptionForm::Literal
                        | DescriptionForm::Template
                        | DescriptionForm::Concat(_)
                );
                // Text joined with a run-time value (`"Run on " + os.platform()`) cannot be a
                // schema: it is the description, unreadable but in its place.
                let textual = matches!(
                    unwrap(*node).kind(),
                    "binary_expression" | "template_string"
                );
                // `tool(name, X, cb)` with X a bare name: a description constant or a schema.
                let ambiguous = named && rest.len() == 1;
                if written || textual || (named && rest.len() >= 2) || ambiguous {
                    description = Some(d);
                    if !ambiguous {
                        rest = &rest[1..];
                    }
                }
            }
            if let Some(s) = rest.first() {
                schema = params::read_schema(*s, self.src, self.rel);
            }
        }
        let mut definition = span(call, self.rel);
        if handler.is_some() && middle_end >= 1 {
            let before = args[middle_end - 1];
            definition.end_line = before.end_position().row + 1;
            definition.bytes.1 = before.end_byte();
        }
        self.push_call(
            call,
            first,
            CandidateKind::RegisterCall,
            definition,
            handler,
            (description, schema, output),
        );
    }

    /// `registerAppTool(server, "name", { description, inputSchema }, handler)`: any call that
    /// passes a literal name next to a tool configuration and then a handler.
    pub(super) fn helper_call(&mut self, m: &Match<'_, 't>) {
        let (call, name, config) = (m.node("helper"), m.node("name"), m.node("config"));
        if self.register_calls.contains(&call.start_byte()) {
            return;
        }
        let callee = call
            .child_by_field_name("function")
            .map_or("", |f| text(f, self.src))
            .to_ascii_lowercase();
        if NOT_TOOL_CALLEES.iter().any(|w| callee.contains(w)) {
            return;
        }
        let keys: Vec<String> = object_entries(config, self.src)
            .into_iter()
            .map(|(k, _, _)| k)
            .collect();
        let has = |k: &str| keys.iter().any(|key| key == k);
        let configures_tool = (has("description") || STRONG_TOOL_KEYS.iter().any(|k| has(k)))
            && !NOT_TOOL_KEYS.iter().any(|k| has(k))
            && !has("argsSchema");
        let handler = self.handler_ref(m.node("handler"));
        if !configures_tool || handler.is_none() || !matches!(expr(name, self.src), Expr::Str(_)) {
            return;
        }
        let mut definition = span(call, self.rel);
        definition.end_line = config.end_position().row + 1;
        definition.bytes.1 = config.end_byte();
        let fields = self.config_fields(config);
        self.push_call(
            call,
            name,
            CandidateKind::RegisterCall,
            definition,
            handler,
            fields,
        );
    }

    /// `server.tool("name").description("...").input({...}).handler(fn)`: the links are read
    /// walking down from the last call, whose argument is the handler.
    pub(super) fn builder_chain(&mut self, m: &Match<'_, 't>) {
        let (chain, links) = (m.node("chain"), m.node("links"));
        let (mut name, mut description, mut schema) = (None, None, None);
        // The call the chain starts from, when it names a tool builder: `tool()`, `kit.tool()`.
        let mut starts_a_tool = false;
        let mut link = Some(links);
        while let Some(call) = link.filter(|n| n.kind() == "call_expression") {
            let Some(function) = call.child_by_field_name("function") else {
                break;
            };
            if function.kind() != "member_expression" {
                starts_a_tool = NAME_LINKS.contains(&text(function, self.src));
                break;
            }
            let method = function
                .child_by_field_name("property")
                .map_or("", |p| text(p, self.src));
            let args = call
                .child_by_field_name("arguments")
                .map(arguments)
                .unwrap_or_default();
            if args.is_empty() && NAME_LINKS.contains(&method) {
                starts_a_tool = true;
            }
            if let [arg] = args[..] {
                if NAME_LINKS.contains(&method) {
                    name = name.or(Some(arg));
                } else if DESCRIPTION_LINKS.contains(&method) {
                    description = description.or(Some(arg));
                } else if SCHEMA_LINKS.contains(&method) {
                    schema = schema.or(Some(arg));
                }
            }
            link = function.child_by_field_name("object");
        }
        let handler = self.handler_ref(m.node("handler"));
        let Some(name) = name.filter(|n| matches!(expr(*n, self.src), Expr::Str(_))) else {
            // `const readX = tool().description("...").input({...}).handler(fn)`: no name in
            // the chain; the key it is given in a tools map names it (see `link`).
            let holder = self.holder(chain);
            if starts_a_tool && (description.is_some() || schema.is_some()) && holder.is_some() {
                self.facts.candidates.push(Candidate {
                    name: Expr::Unknown,
                    kind: CandidateKind::Builder,
                    definition: span(links, self.rel),
                    handler,
                    schema: schema.map_or(SchemaRef::None, |s| {
                        params::read_schema(s, self.src, self.rel)
                    }),
                    output: SchemaRef::None,
                    holder,
                    sites: Sites {
                        description: description
                            .map(|d| text::read_description(d, self.src, self.rel)),
                        ..Sites::default()
                    },
                });
            }
            return;
        };
        let fields = (
            description.map(|d| text::read_description(d, self.src, self.rel)),
            schema.map_or(SchemaRef::None, |s| {
                params::read_schema(s, self.src, self.rel)
            }),
            SchemaRef::None,
        );
        let definition = span(links, self.rel);
        self.push_call(
            chain,
            name,
            CandidateKind::Builder,
            definition,
            handler,
            fields,
        );
    }

    /// The description, the input schema and the output schema of a tool configuration.
    pub(super) fn config_fields(&self, config: Node<'t>) -> Fields {
        let (mut description, mut schema, mut output) = (None, SchemaRef::None, SchemaRef::None);
        for (key, value, _) in object_entries(config, self.src) {
            if key == "description" {
                description = Some(text::read_description(value, self.src, self.rel));
            } else if key == "outputSchema" {
                output = params::read_schema(value, self.src, self.rel);
            } else if SCHEMA_KEYS.contains(&key.as_str()) && schema == SchemaRef::None {
                schema = params::read_schema(value, self.src, self.rel);
            }
        }
        (description, schema, output)
    }

    /// A candidate for a call that registers one tool, whose statement is its registration.
    pub(super) fn push_call(
        &mut self,
        call: Node,
        name: Node,
        kind: CandidateKind,
        definition: mcpevol_core::inventory::Span,
        handler: Option<HandlerRef>,
        (description, schema, output): Fields,
    ) {
        let name = crate::syntax::or_default(name, self.src);
        if let Some(function) = crate::callers::uncalled_around(call, self.src) {
            self.facts.uncalled.push((definition.clone(), function));
        }
        let sites = Sites {
            name: Some(span(name, self.rel)),
            description,
            registration: Some(span(statement_of(call), self.rel)),
            ..Sites::default()
        };
        self.facts.candidates.push(Candidate {
            name: expr(name, self.src),
            kind,
            definition,
            handler,
            schema,
            output,
            holder: None,
            sites,
        });
    }
}

#[cfg(test)]
mod tests {
    use crate::grammar::Lang;
    use crate::syntax::Expr;

    #[test]
    fn a_name_its_caller_may_override_is_registered_under_its_default() {
        let src = "function registerSearch(server, toolName) {\n  server.tool(toolName || \"web_search\", \"Search the web\", { q: z.string() }, async () => ({}));\n}\nregisterSearch(server);\n";
        let facts = crate::read_source("index.js", Lang::JavaScript, src.as_bytes().to_vec());
        let c = &facts.candidates[0];
        assert_eq!(c.name, Expr::Str("web_search".into()));
        // A rename edits the literal, not the caller's override.
        let site = c.sites.name.as_ref().unwrap();
        assert_eq!(&src[site.bytes.0..site.bytes.1], "\"web_search\"");
    }

    #[test]
    fn a_workflow_node_whose_parameters_are_settings_is_no_tool() {
        let src = "exports.EXAMPLE = { nodes: [{ name: \"Set\", type: \"n8n-nodes-base.set\", parameters: { mode: \"manual\", assignments: { list: [] } } }] };\n\
                   const TOOL = { name: \"set_mode\", parameters: { type: \"object\", properties: { mode: { type: \"string\" } } } };\n\
                   const SHAPED = { name: \"get_mode\", parameters: { id: { type: \"string\" } } };\n";
        let facts = crate::read_source("index.js", Lang::JavaScript, src.as_bytes().to_vec());
        let names: Vec<&Expr> = facts.candidates.iter().map(|c| &c.name).collect();
        assert_eq!(
            names,
            [&Expr::Str("set_mode".into()), &Expr::Str("get_mode".into())],
            "{:?}",
            facts.candidates
        );
    }

    #[test]
    fn a_schema_property_named_parameters_makes_no_tool_of_the_properties() {
        let src = "const TOOLS = [{ name: \"run_query\", description: \"Run a query\", inputSchema: { type: \"object\", properties: { query: { type: \"string\" }, parameters: { type: \"object\", description: \"Query parameters\" } } } }];\n";
        let facts = crate::read_source("index.js", Lang::JavaScript, src.as_bytes().to_vec());
        let names: Vec<&Expr> = facts.candidates.iter().map(|c| &c.name).collect();
        assert_eq!(
            names,
            [&Expr::Str("run_query".into())],
            "{:?}",
            facts.candidates
        );
    }

    #[test]
    fn a_command_line_command_whose_parameters_are_an_array_is_no_tool() {
        let src = "const fetchCommand = command({ name: \"fetch\", description: \"Fetch data and print it\", parameters: [\"[url]\"], flags: {} }, run);\n";
        let facts = crate::read_source("bin.js", Lang::JavaScript, src.as_bytes().to_vec());
        assert!(facts.candidates.is_empty(), "{:?}", facts.candidates);
    }
}
