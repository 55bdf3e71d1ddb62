//! Per-file reading: runs the queries over one parsed file and keeps what linking needs.
//!
//! Over 500 lines on purpose: one reader walks one compiled query, and each match kind's
//! reading (objects, dispatch, declarations, classes) shares its helpers; calls that register
//! one tool live in `facts/calls.rs`.
//!
//! Facts hold no tree-sitter nodes, so trees are dropped as soon as a file is read; linking
//! across files (constants, imported schemas, handlers in another module) works on facts alone.

mod calls;
pub mod decorators;
mod factories;
mod modules;
mod registrars;
pub mod split;
pub mod stream;

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, Query, QueryCursor, Tree};

use super::grammar::{Lang, QueryKind};
use super::params::{self, Schema, SchemaRef};
use super::syntax::{self, Expr, arguments, expr, is_function, object_entries, span, text, unwrap};
use super::text;
use mcpevol_core::inventory::{self, RouteKind, Sites, Span};

/// Keys that only a tool definition has (prompts have `arguments`, resources `uri`).
const STRONG_TOOL_KEYS: &[&str] = &[
    "inputSchema",
    "input_schema",
    "parameters",
    "outputSchema",
    "annotations",
    "execute",
    "paramsSchema",
];
/// Keys that, beside `name` and `description`, make an object a tool in a registration loop.
const WEAK_TOOL_KEYS: &[&str] = &["schema", "handler", "run", "callback", "cb", "handle"];
/// Keys that mark an object as something other than a tool (prompt, resource, server info).
const NOT_TOOL_KEYS: &[&str] = &[
    "arguments",
    "uri",
    "uriTemplate",
    "mimeType",
    "version",
    "messages",
];
/// Where a definition keeps its input schema, in order of preference.
const SCHEMA_KEYS: &[&str] = &[
    "inputSchema",
    "input_schema",
    "parameters",
    "schema",
    "paramsSchema",
    "args",
];
/// Where a definition object or tool class keeps its implementation.
const HANDLER_KEYS: &[&str] = &[
    "execute", "handler", "handle", "run", "callback", "cb", "call", "_call", "invoke", "tool",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CandidateKind {
    RegisterCall,
    Class,
    /// An object literal with a name and a schema; `registered` when passed to `addTool(...)`.
    ToolObject {
        registered: bool,
    },
    /// `{ tool_name: { inputSchema, ... } }`: the key is the name.
    MapEntry,
    /// `server.tool("name").description("...").input({...}).handler(fn)`.
    Builder,
}

/// Wrapper calls looked through to find a wrapped handler function.
const MAX_WRAPPERS: usize = 16;

#[derive(Debug, Clone, PartialEq)]
pub enum HandlerRef {
    At(Span),
    Named(String),
}

/// A place that may define a tool.
#[derive(Debug, Clone)]
pub struct Candidate {
    pub name: Expr,
    pub kind: CandidateKind,
    pub definition: Span,
    pub handler: Option<HandlerRef>,
    pub schema: SchemaRef,
    /// The declared output schema (`outputSchema`), whose keys a structured result holds.
    pub output: SchemaRef,
    /// The variable a definition object is assigned to (`const ECHO_TOOL = {...}`), through
    /// which a registration helper may receive it.
    pub holder: Option<String>,
    /// Name, description and registration sites; schema and dispatch are joined in by linking.
    pub sites: Sites,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DispatchKind {
    Case,
    If,
    MapKey,
    /// A call that gets a definition object and a function: `register(ECHO_TOOL, (a) => ...)`.
    /// Its `name` is the path of the object passed, matched against candidates' holders.
    RefCall,
    /// The CallTool request handler, for every listed tool no other dispatch routes.
    CallHandler,
}

impl DispatchKind {
    /// The style of a tool this kind of dispatch routes to `handler`, defined in `def_file`.
    pub fn style(self, def_file: &str, handler: &Span) -> inventory::Style {
        use inventory::Style;
        if handler.file != def_file {
            return Style::CrossFile;
        }
        match self {
            DispatchKind::Case => Style::Switch,
            DispatchKind::If => Style::If,
            DispatchKind::RefCall => Style::Register,
            DispatchKind::MapKey | DispatchKind::CallHandler => Style::Other,
        }
    }
}

/// A place that routes a call for one name to its implementation.
#[derive(Debug, Clone)]
pub struct Dispatch {
    pub name: Expr,
    pub kind: DispatchKind,
    pub handler: HandlerRef,
    /// The switch or comparison is on something called like a tool name (`name`,
    /// `request.params.name`, `toolName`), which tells real dispatch from decoys.
    pub on_tool_name: bool,
    /// For a `RefCall`, the other names passed beside the definition: one may be its schema.
    pub beside: Vec<String>,
    /// The label and construct to edit when renaming or adding a tool (not for RefCall).
    pub site: Option<inventory::Route>,
    /// For a `RefCall`: the statement that registers the tool.
    pub registration: Option<Span>,
}

#[derive(Debug, Default, Clone)]
pub struct FileFacts {
    pub candidates: Vec<Candidate>,
    pub dispatches: Vec<Dispatch>,
    /// Dotted name to string value: `ECHO`, `ToolName.ECHO`, `exports.ECHO`.
    pub constants: Vec<(String, String)>,
    /// Where constants that hold text are declared, their values read as description forms:
    /// a description that names one is edited there.
    pub texts: Vec<(String, inventory::DescriptionSite)>,
    pub schemas: Vec<(String, Schema)>,
    /// Schemas declared as another by name (`X = z.object(BaseShape)`, `exports.B = exports.A`),
    /// each with the name it stands for.
    pub schema_aliases: Vec<(String, String)>,
    /// Parameter schemas held in constants (`const SearchQuery = z.string()`), which shape
    /// entries name, each with how its file spells zod.
    pub param_schemas: Vec<(String, (inventory::Param, String))>,
    /// Identifiers listed in arrays, which may be definition objects held in constants.
    pub array_refs: Vec<(String, Span)>,
    pub functions: Vec<(String, Span)>,
    /// Objects whose keys may be tool names and whose values are plain literals
    /// (`{ generate_bar_chart: "bar" }`): each key with the route its entry is. The linker
    /// keeps the tables most of whose keys are listed tools' names: a call is routed by a
    /// lookup in it, so a copy of a tool needs an entry of its own there.
    pub name_tables: Vec<Vec<(Expr, inventory::Route)>>,
    /// Python: functions that register tools or call others (decorators of the server's own
    /// making), and functions decorated by such an unknown decorator; linking joins them.
    pub registering_fns: Vec<decorators::RegisteringFn>,
    pub helper_uses: Vec<decorators::HelperUse>,
    /// JS/TS: the relative specifiers the file imports (`reach.rs` follows them from the entry).
    pub imports: Vec<String>,
    /// JS/TS: whether it also loads paths it computes, which `reach.rs` cannot follow.
    pub computes_imports: bool,
    /// Registrations (by definition span) inside a named function this file never calls, or
    /// definition objects it exports and never uses, with that name: they are the server's
    /// only if another file names it (see `callers.rs`).
    pub uncalled: Vec<(Span, String)>,
    pub warnings: Vec<String>,
}

/// Reads the facts of one parsed JavaScript or TypeScript file (Python's: `python::read`).
/// A large file is read on every core: see [`split`].
pub fn read(tree: &Tree, src: &str, rel: &str, lang: Lang) -> FileFacts {
    read_in_parts(tree, src, rel, lang, split::parts_for(src.len()))
}

/// [`read`] with the file's top-level statements cut into `parts` runs of about equal size,
/// each matched and read on its own; the facts are the same for any number of parts.
pub fn read_in_parts(tree: &Tree, src: &str, rel: &str, lang: Lang, parts: usize) -> FileFacts {
    let root = tree.root_node();
    let parts: Vec<_> = split::ranges(root, parts)
        .into_iter()
        .map(|range| (root, range))
        .collect();
    read_parts(&parts, src, rel, lang)
}

/// The facts of a file parsed in pieces ([`super::pieces`]), each piece read as one part.
pub fn read_pieces(trees: &[Tree], src: &str, rel: &str, lang: Lang) -> FileFacts {
    let parts: Vec<_> = trees
        .iter()
        .map(|t| (t.root_node(), t.root_node().byte_range()))
        .collect();
    read_parts(&parts, src, rel, lang)
}

/// Reads the parts of one file, each a tree's root and the byte range of it to match, in file
/// order.
fn read_parts(
    parts: &[(Node, std::ops::Range<usize>)],
    src: &str,
    rel: &str,
    lang: Lang,
) -> FileFacts {
    let q = lang.queries();
    let groups: Vec<Vec<Match>> = parts
        .par_iter()
        .map(|(root, range)| matches_in(&q.all, *root, src, range.clone()))
        .collect();
    let mut reader = Reader::new(src, rel);
    if let Some(err) = parts.iter().find_map(|(root, _)| first_error(*root)) {
        reader.facts.warnings.push(format!(
            "{rel}: syntax error at line {}; tools in the damaged part may be missed",
            err.start_position().row + 1
        ));
    }
    let kind = |m: &Match| q.kind(m.pattern);
    // Over the whole file first: declared objects, and registrations, which claim the objects
    // passed to them (`addTool({...})`) wherever in the file the object is matched.
    for m in groups
        .iter()
        .flatten()
        .filter(|m| kind(m) == QueryKind::Declarations)
    {
        if let (Some(name), Some(value)) = (m.get("name"), m.get("value").map(unwrap))
            && m.get("declarator").is_some()
            && value.kind() == "object"
        {
            reader.declared_objects.insert(text(name, src), value);
        }
    }
    for m in groups
        .iter()
        .flatten()
        .filter(|m| kind(m) == QueryKind::Register)
    {
        reader.register_call(m);
    }
    reader.registrar_tools(parts);
    // Then every other match: a file in one part by this reader, a file in several parts by a
    // reader per part that shares those claims.
    if let [matches] = groups.as_slice() {
        for m in matches {
            reader.read_match(kind(m), m);
        }
        if let Some(module) = reader.module_tool(parts) {
            reader.facts.candidates.push(module);
        }
        let made = reader.factory_tools(parts);
        reader.facts.candidates.extend(made);
        return reader.facts;
    }
    let module = reader.module_tool(parts);
    let made = reader.factory_tools(parts);
    let parts: Vec<FileFacts> = groups
        .par_iter()
        .map(|matches| {
            let mut part = reader.fork();
            for m in matches {
                part.read_match(kind(m), m);
            }
            part.facts
        })
        .collect();
    let mut facts = reader.facts;
    for part in parts {
        facts.append(part);
    }
    facts.candidates.extend(module);
    facts.candidates.extend(made);
    facts
}

/// Whether `object` is the `properties` of a JSON schema (the value of a `properties` key in
/// an object that also has a `type`).
fn schema_properties(object: Node, src: &str) -> bool {
    let Some(pair) = object.parent().filter(|p| p.kind() == "pair") else {
        return false;
    };
    let key = pair.child_by_field_name("key").map(|k| text(k, src));
    let Some(schema) = pair.parent().filter(|o| o.kind() == "object") else {
        return false;
    };
    matches!(key, Some("properties" | "\"properties\"" | "'properties'"))
        && object_entries(schema, src)
            .iter()
            .any(|(k, _, _)| k == "type")
}

/// Whether `node` is an object literal of settings: every entry a written value (a string,
/// number or boolean), a list, or settings in turn, and no key a JSON schema has (`type`,
/// `properties`, ...). A schema's entries are schemas.
fn holds_values(node: Node, src: &str) -> bool {
    const SCHEMA_WORDS: &[&str] = &[
        "type",
        "properties",
        "$schema",
        "items",
        "required",
        "anyOf",
        "oneOf",
    ];
    let node = unwrap(node);
    if node.kind() != "object" {
        return false;
    }
    let entries = object_entries(node, src);
    let mut cursor = node.walk();
    let pairs_only = node
        .named_children(&mut cursor)
        .all(|c| matches!(c.kind(), "pair" | "comment"));
    pairs_only
        && !entries.is_empty()
        && entries.iter().all(|(key, value, _)| {
            let value = unwrap(*value);
            !SCHEMA_WORDS.contains(&key.as_str())
                && (matches!(
                    value.kind(),
                    "string" | "number" | "true" | "false" | "template_string" | "array"
                ) || holds_values(value, src))
        })
}

/// One query match with its captures looked up by name.
struct Match<'q, 't> {
    query: &'q Query,
    pattern: usize,
    captures: Vec<(u32, Node<'t>)>,
}

impl<'t> Match<'_, 't> {
    fn get(&self, name: &str) -> Option<Node<'t>> {
        let idx = self.query.capture_index_for_name(name)?;
        self.captures
            .iter()
            .find(|(i, _)| *i == idx)
            .map(|(_, n)| *n)
    }
    fn node(&self, name: &str) -> Node<'t> {
        self.get(name)
            .unwrap_or_else(|| panic!("capture @{name} is in the query"))
    }
}

/// The matches of `query` in one byte range of the file, in the order the cursor gives them.
fn matches_in<'q, 't>(
    query: &'q Query,
    root: Node<'t>,
    src: &str,
    range: std::ops::Range<usize>,
) -> Vec<Match<'q, 't>> {
    let mut cursor = QueryCursor::new();
    cursor.set_byte_range(range.clone());
    let mut matches = cursor.matches(query, root, src.as_bytes());
    let mut out = Vec::new();
    while let Some(m) = matches.next() {
        // A match belongs to the range its first node starts in, so that none is read twice.
        let start = m.captures.iter().map(|c| c.node.start_byte()).min();
        if start.is_some_and(|s| !range.contains(&s)) {
            continue;
        }
        let captures = m.captures.iter().map(|c| (c.index, c.node)).collect();
        out.push(Match {
            query,
            pattern: m.pattern_index,
            captures,
        });
    }
    out
}

pub fn first_error(node: Node) -> Option<Node> {
    if node.is_error() || node.is_missing() {
        return Some(node);
    }
    if !node.has_error() {
        return None;
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.children(&mut cursor).collect();
    children.into_iter().find_map(first_error).or(Some(node))
}

/// Finds the object declared under a name in a file read piece by piece (`stream.rs`).
type FindDeclared<'s, 't> = dyn Fn(&str) -> Option<Node<'t>> + Sync + 's;

struct Reader<'s, 't> {
    src: &'s str,
    rel: &'s str,
    facts: FileFacts,
    /// Objects passed straight to a register call (`addTool({...})`), by start byte.
    registered_objects: HashSet<usize>,
    /// Objects declared in this file by name, for `registerTool(name, config, cb)`.
    declared_objects: HashMap<&'s str, Node<'t>>,
    /// Calls read as register calls, by start byte, so that no other reading takes them again.
    register_calls: HashSet<usize>,
    /// A file read piece by piece (`stream.rs`): objects declared by name, found in whichever
    /// piece declares them, instead of `declared_objects`.
    elsewhere: Option<&'s FindDeclared<'s, 't>>,
    /// The names this file imports zod under (`crate::zod`).
    zod: Vec<String>,
    /// Functions of this file that register the tool their caller names, by name.
    registrars: HashMap<String, registrars::Slots>,
}

impl<'s, 't> Reader<'s, 't> {
    fn new(src: &'s str, rel: &'s str) -> Self {
        Reader {
            src,
            rel,
            facts: FileFacts::default(),
            registered_objects: HashSet::new(),
            declared_objects: HashMap::new(),
            register_calls: HashSet::new(),
            elsewhere: None,
            zod: crate::zod::aliases(src),
            registrars: HashMap::new(),
        }
    }
}

impl<'t> Reader<'_, 't> {
    /// A reader for another part of the same file: the claims made over the whole file, and
    /// facts of its own.
    fn fork(&self) -> Self {
        Reader {
            facts: FileFacts::default(),
            registered_objects: self.registered_objects.clone(),
            declared_objects: self.declared_objects.clone(),
            register_calls: self.register_calls.clone(),
            zod: self.zod.clone(),
            registrars: HashMap::new(),
            ..*self
        }
    }

    /// The object declared under `name` in this file, the last declaration in file order.
    fn declared_object(&self, name: &str) -> Option<Node<'t>> {
        match self.elsewhere {
            Some(find) => find(name),
            None => self.declared_objects.get(name).copied(),
        }
    }

    fn read_match(&mut self, kind: QueryKind, m: &Match<'_, 't>) {
        let src = self.src;
        match kind {
            QueryKind::Register => {}
            QueryKind::Helpers => self.helper_call(m),
            QueryKind::Builders => self.builder_chain(m),
            QueryKind::Objects => self.object(m.node("object")),
            QueryKind::Dispatch => self.dispatch(m),
            QueryKind::Declarations => self.declaration(m),
            QueryKind::Classes => self.class(m.node("class"), m.node("body")),
            QueryKind::PyDecorated
            | QueryKind::PyCalls
            | QueryKind::PyDispatch
            | QueryKind::PyDeclarations => {}
            QueryKind::Enums => {
                let (e, member, value) = (m.node("enum"), m.node("member"), m.node("value"));
                if let Some(v) = syntax::string_value(value, src) {
                    self.constant(format!("{}.{}", text(e, src), text(member, src)), v);
                }
            }
        }
    }

    fn handler_ref(&self, node: Node) -> Option<HandlerRef> {
        let node = unwrap(node);
        if is_function(node) || node.kind() == "method_definition" {
            Some(HandlerRef::At(span(node, self.rel)))
        } else if matches!(node.kind(), "identifier" | "shorthand_property_identifier") {
            Some(HandlerRef::Named(text(node, self.src).to_string()))
        } else if node.kind() == "call_expression" {
            // A wrapped handler (`withAuth(async (args) => ...)`, or the wrappers mcpevol
            // itself writes): the function passed last is the handler.
            // Wrappers may be nested, one per evolution round that wrapped the handler.
            let mut call = node;
            for _ in 0..MAX_WRAPPERS {
                let last = call
                    .child_by_field_name("arguments")
                    .and_then(|a| a.named_child(a.named_child_count().checked_sub(1)?))?;
                let last = unwrap(last);
                if is_function(last) {
                    return Some(HandlerRef::At(span(last, self.rel)));
                }
                if last.kind() != "call_expression" {
                    return None;
                }
                call = last;
            }
            None
        } else {
            None
        }
    }

    // Long: one pass over the keys of an object literal, each key a short arm; split, the arms would share a dozen locals.
    fn object(&mut self, object: Node<'t>) {
        let entries = object_entries(object, self.src);
        let has = |k: &str| entries.iter().any(|(key, _, _)| key == k);
        let value = |k: &str| {
            entries
                .iter()
                .find(|(key, _, _)| key == k)
                .map(|(_, v, _)| *v)
        };
        let registered = self.registered_objects.contains(&object.start_byte());
        // `{ name, config, handler }`: registerTool's three arguments as one object, the
        // description and schema inside `config` (written inline or declared in the file).
        let config = value("config")
            .filter(|_| has("name"))
            .and_then(|c| self.config_object(c))
            .map(|c| self.config_fields(c));
        // A schema is never an array: `{ name, description, parameters: ["[url]"] }` is a
        // command-line command.
        let not_array = |k: &str| value(k).is_some_and(|v| unwrap(v).kind() != "array");
        // Nor are settings: `{ name: "Webhook", type, parameters: { path: "hook" } }` is a
        // workflow node whose parameters are values, not a schema of them.
        let schema_like = |k: &str| {
            not_array(k)
                && !(SCHEMA_KEYS.contains(&k)
                    && value(k).is_some_and(|v| holds_values(v, self.src)))
        };
        let strong = STRONG_TOOL_KEYS.iter().any(|k| schema_like(k)) || config.is_some();
        // `{ name, description, args, tool }`, as Speakeasy generates them: `args` alone is no
        // sign (a GraphQL directive or field has `args` too).
        let generated = not_array("args") && has("tool");
        let weak = has("description") && (WEAK_TOOL_KEYS.iter().any(|k| has(k)) || generated);
        let excluded = NOT_TOOL_KEYS.iter().any(|k| has(k));
        // `{ ...ECHO_TOOL, name: "echo_lite", description }`: a definition derived from another.
        let mut cursor = object.walk();
        let spread = object
            .named_children(&mut cursor)
            .find(|c| c.kind() == "spread_element");
        let derived = spread.is_some() && has("name") && has("description");
        let spread_from = spread
            .and_then(|s| s.named_child(0))
            .and_then(|n| syntax::path(n, self.src));
        // `{ type: "object", properties: { query: {...}, parameters: {...} } }`: a schema's
        // properties, each a property's schema, though one may be named like a tool key.
        let looks_like_tool = (strong || weak || registered || derived)
            && !excluded
            && !schema_properties(object, self.src);

        if looks_like_tool {
            let name = match value("name") {
                Some(v) if v.kind() != "shorthand_property_identifier" => Some(expr(v, self.src)),
                Some(_) => None,
                None => self.map_entry_key(object),
            };
            if let Some(name) = name {
                let kind = if value("name").is_some() {
                    CandidateKind::ToolObject { registered }
                } else {
                    CandidateKind::MapEntry
                };
                let pair = object.parent().filter(|p| p.kind() == "pair");
                let definition = match kind {
                    CandidateKind::MapEntry => span(pair.unwrap_or(object), self.rel),
                    _ => span(object, self.rel),
                };
                let name_node = match kind {
                    CandidateKind::MapEntry => pair.and_then(|p| p.child_by_field_name("key")),
                    _ => value("name"),
                };
                // An object straight in a list or map is removed by deleting it; one passed to
                // addTool({...}) by deleting the call; one held in a constant by the linker.
                let registration = match (kind, object.parent().map(|p| p.kind())) {
                    (CandidateKind::MapEntry, _) => pair,
                    (_, Some("array")) => Some(object),
                    _ if registered => object.parent().and_then(|a| a.parent()).map(statement_of),
                    _ => None,
                };
                let (config_description, config_schema, config_output) =
                    config.unwrap_or((None, SchemaRef::None, SchemaRef::None));
                let sites = Sites {
                    name: name_node.map(|n| span(unwrap(n), self.rel)),
                    description: value("description")
                        .map(|d| text::read_description(d, self.src, self.rel))
                        .or(config_description),
                    registration: registration.map(|r| span(r, self.rel)),
                    input_schema: ["inputSchema", "input_schema"]
                        .iter()
                        .find_map(|k| value(k))
                        .map(|v| span(v, self.rel)),
                    declaration: declaration_of(object).map(|d| span(d, self.rel)),
                    // Derived definitions share the schema of the one they spread.
                    extends: spread_from.map(|p| p.rsplit('.').next().unwrap_or(&p).to_string()),
                    ..Sites::default()
                };
                self.facts.candidates.push(Candidate {
                    sites,
                    name,
                    kind,
                    definition,
                    handler: HANDLER_KEYS
                        .iter()
                        .find_map(|k| value(k).and_then(|v| self.handler_ref(v))),
                    schema: SCHEMA_KEYS
                        .iter()
                        .find_map(|k| value(k))
                        .map_or(config_schema, |s| {
                            params::read_schema(s, self.src, self.rel)
                        }),
                    output: value("outputSchema").map_or(config_output, |s| {
                        params::read_schema(s, self.src, self.rel)
                    }),
                    holder: self.holder(object),
                });
                if let Some(name) = self.unused_export(object, kind) {
                    let definition = self.facts.candidates.last().map(|c| c.definition.clone());
                    self.facts.uncalled.extend(definition.map(|d| (d, name)));
                }
            }
            return;
        }
        // A handler map: `{ echo: async (args) => ..., "get-time": handleTime }`.
        let mut cursor = object.walk();
        let mut table: Vec<(Expr, inventory::Route)> = Vec::new();
        for entry in object.named_children(&mut cursor) {
            let (key, value) = match entry.kind() {
                "pair" => (
                    entry.child_by_field_name("key"),
                    entry.child_by_field_name("value"),
                ),
                "method_definition" => (entry.child_by_field_name("name"), Some(entry)),
                _ => continue,
            };
            let (Some(key), Some(value)) = (key, value) else {
                continue;
            };
            if entry.kind() == "pair" && matches!(unwrap(value).kind(), "string" | "number") {
                table.push((
                    syntax::key_expr(key, self.src),
                    inventory::Route {
                        kind: RouteKind::MapEntry,
                        label: span(key, self.rel),
                        site: span(entry, self.rel),
                    },
                ));
            }
            if let Some(handler) = self.handler_ref(value) {
                self.facts.dispatches.push(Dispatch {
                    name: syntax::key_expr(key, self.src),
                    kind: DispatchKind::MapKey,
                    handler,
                    on_tool_name: false,
                    beside: Vec::new(),
                    site: Some(inventory::Route {
                        kind: RouteKind::MapEntry,
                        label: span(key, self.rel),
                        site: span(entry, self.rel),
                    }),
                    registration: None,
                });
            }
        }
        if table.len() >= 2 {
            self.facts.name_tables.push(table);
        }
    }

    /// A tool's configuration object, written inline or named (`config` declared in the file);
    /// only one that holds a description or an input schema counts.
    fn config_object(&self, node: Node<'t>) -> Option<Node<'t>> {
        let node = unwrap(node);
        let object = match node.kind() {
            "object" => node,
            "identifier" | "shorthand_property_identifier" => {
                self.declared_object(text(node, self.src))?
            }
            _ => return None,
        };
        let entries = object_entries(object, self.src);
        let has = |k: &str| entries.iter().any(|(key, _, _)| key == k);
        // A prompt's configuration has `argsSchema`, a resource's `uri` or `mimeType`.
        let other = has("argsSchema") || NOT_TOOL_KEYS.iter().any(|k| has(k));
        let tool = has("description") || SCHEMA_KEYS.iter().any(|k| has(k));
        (tool && !other).then_some(object)
    }

    /// The key under which an object sits in an enclosing object, if it does.
    fn map_entry_key(&self, object: Node) -> Option<Expr> {
        let pair = object.parent().filter(|p| p.kind() == "pair")?;
        Some(syntax::key_expr(pair.child_by_field_name("key")?, self.src))
    }

    // Long: one arm per capture of the dispatch queries, each a few lines.
    fn dispatch(&mut self, m: &Match) {
        if m.get("callhandler").is_some() {
            self.facts.dispatches.push(Dispatch {
                name: Expr::Unknown,
                kind: DispatchKind::CallHandler,
                handler: HandlerRef::At(span(m.node("handler"), self.rel)),
                on_tool_name: false,
                beside: Vec::new(),
                site: None,
                registration: None,
            });
            return;
        }
        if m.get("refcall").is_some() {
            // A wrapped handler is the function the wrappers are put around.
            let Some(HandlerRef::At(handler)) = self.handler_ref(m.node("handler")) else {
                return;
            };
            let paths: Vec<String> = arguments(m.node("args"))
                .into_iter()
                .filter(|a| matches!(a.kind(), "identifier" | "member_expression"))
                .filter_map(|a| syntax::path(a, self.src))
                .collect();
            for (i, path) in paths.iter().enumerate() {
                let beside = paths
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, p)| p.clone())
                    .collect();
                self.facts.dispatches.push(Dispatch {
                    name: Expr::Path(path.clone()),
                    kind: DispatchKind::RefCall,
                    handler: HandlerRef::At(handler.clone()),
                    on_tool_name: true,
                    beside,
                    site: None,
                    registration: Some(span(statement_of(m.node("refcall")), self.rel)),
                });
            }
            return;
        }
        if let Some(case) = m.get("case") {
            let value = m.node("value");
            let subject = case
                .parent()
                .and_then(|body| body.parent())
                .and_then(|switch| switch.child_by_field_name("value"))
                .map_or("", |v| text(v, self.src));
            let mut body = span(case, self.rel);
            // `case "a": case "b": ...` shares the body of the next case that has statements.
            let mut next = Some(case);
            while let Some(c) = next.filter(|c| c.named_child_count() <= 1) {
                next = c.next_named_sibling().filter(|s| s.kind() == "switch_case");
                if let Some(n) = next {
                    body.end_line = n.end_position().row + 1;
                    body.bytes.1 = n.end_byte();
                }
            }
            self.facts.dispatches.push(Dispatch {
                name: expr(value, self.src),
                kind: DispatchKind::Case,
                handler: HandlerRef::At(body),
                on_tool_name: names_a_tool(subject),
                beside: Vec::new(),
                site: Some(inventory::Route {
                    kind: RouteKind::Case,
                    label: span(value, self.rel),
                    site: span(case, self.rel),
                }),
                registration: None,
            });
            return;
        }
        let (compare, left, right) = (m.node("compare"), m.node("left"), m.node("right"));
        let Some(consequence) = enclosing_if_consequence(compare) else {
            return;
        };
        for (name_side, subject_side) in [(right, left), (left, right)] {
            let name = expr(name_side, self.src);
            if name == Expr::Unknown || syntax::path(subject_side, self.src).is_none() {
                continue;
            }
            self.facts.dispatches.push(Dispatch {
                name,
                kind: DispatchKind::If,
                handler: HandlerRef::At(span(consequence, self.rel)),
                on_tool_name: names_a_tool(text(subject_side, self.src)),
                beside: Vec::new(),
                site: Some(inventory::Route {
                    kind: RouteKind::Compare,
                    label: span(name_side, self.rel),
                    site: span(compare, self.rel),
                }),
                registration: None,
            });
        }
    }

    fn declaration(&mut self, m: &Match) {
        if let Some(instance) = m.get("instance") {
            let class = text(m.node("constructed"), self.src).to_string();
            self.facts
                .array_refs
                .push((class, span(instance, self.rel)));
            return;
        }
        if let Some(element) = m.get("element") {
            let name = text(element, self.src).to_string();
            self.facts.array_refs.push((name, span(element, self.rel)));
            return;
        }
        if let Some(function) = m.get("function") {
            let name = text(m.node("name"), self.src).to_string();
            self.facts.functions.push((name, span(function, self.rel)));
            return;
        }
        if m.get("assignment").is_some() {
            let Some(name) = syntax::path(m.node("name"), self.src) else {
                return;
            };
            let Some(value) = syntax::string_value(m.node("value"), self.src) else {
                // `exports.X = z.object(Shape)`: what compiled TypeScript makes of an exported
                // declaration, read as the declaration under its bare name; `X = {...}`, a
                // bundle's constant assigned where its module is first used.
                let bare = ["module.exports.", "exports."]
                    .iter()
                    .find_map(|p| name.strip_prefix(p))
                    .or((m.node("name").kind() == "identifier").then_some(name.as_str()));
                if let Some(bare) = bare {
                    self.declared(bare.to_string(), unwrap(m.node("value")));
                }
                return;
            };
            self.text_constant(&name, m.node("value"));
            self.constant(name, value);
            return;
        }
        let name = text(m.node("name"), self.src).to_string();
        self.declared(name, unwrap(m.node("value")));
    }

    /// A value declared under `name`: text, a function, an object of constants or a schema.
    fn declared(&mut self, name: String, value: Node) {
        if let Some(s) = syntax::string_value(value, self.src) {
            self.text_constant(&name, value);
            self.constant(name, s);
        } else if is_function(value) {
            self.facts.functions.push((name, span(value, self.rel)));
        } else if value.kind() == "object" {
            self.object_constants(&name, value);
            if self.is_schema_like(value)
                && let SchemaRef::Inline(p) = params::read_schema(value, self.src, self.rel)
            {
                self.facts.schemas.push((name, p));
            }
        } else if text::trimmed_literal(value, self.src).is_some() {
            self.text_constant(&name, value);
        } else if value.kind() == "call_expression" {
            // A definition passed through a parser or factory (`ToolSchema.parse({ name, ... })`)
            // is still read as `Tool.name` where a switch routes on it.
            if let Some(object) = syntax::only_object_argument(value) {
                self.object_constants(&name, object);
            }
            match params::read_schema(value, self.src, self.rel) {
                SchemaRef::Inline(p) => self.facts.schemas.push((name, p)),
                SchemaRef::Named(other) => self.facts.schema_aliases.push((name, other)),
                SchemaRef::None => {
                    if let Some(param) =
                        params::read_param_chain(value, self.src, self.rel, &self.zod)
                    {
                        self.facts.param_schemas.push((name, param));
                    }
                }
            }
        } else if matches!(value.kind(), "identifier" | "member_expression")
            && let Some(other) = syntax::path(value, self.src)
            && other
                .rsplit('.')
                .next()
                .is_some_and(|last| last.starts_with(|c: char| c.is_ascii_uppercase()))
        {
            // `exports.ArchiveArgs = exports.ReadArgs`: one schema under a second name.
            self.facts.schema_aliases.push((name, other));
        }
    }

    /// The text entries of an object held in constant `name`, as `name.key` constants.
    fn object_constants(&mut self, name: &str, value: Node) {
        for (key, v, _) in object_entries(value, self.src) {
            if let Some(s) = syntax::string_value(v, self.src) {
                self.text_constant(&format!("{name}.{key}"), v);
                self.constant(format!("{name}.{key}"), s);
            } else if unwrap(v).kind() == "call_expression" {
                // `const ECHO = { name, schema: z.object({...}) }`, used as `ECHO.schema`.
                if let SchemaRef::Inline(p) = params::read_schema(v, self.src, self.rel) {
                    self.facts.schemas.push((format!("{name}.{key}"), p));
                }
            } else if SCHEMA_KEYS.contains(&key.as_str())
                && matches!(unwrap(v).kind(), "identifier" | "member_expression")
                && let Some(other) = syntax::path(unwrap(v), self.src)
            {
                // `const zr = { name, parameters: Wr }`, used as `zr.parameters`.
                (self.facts.schema_aliases).push((format!("{name}.{key}"), other));
            }
        }
    }

    /// A JSON schema, or a raw zod shape: zod chains, beside which some entries may name
    /// schemas declared elsewhere (`theme: base_1.ThemeSchema`: 27 chart tools of one server
    /// share their style entries that way, and their shapes were read as no schema at all).
    fn is_schema_like(&self, object: Node) -> bool {
        let entries = object_entries(object, self.src);
        // `zod_1.z\n    .array(data)`: chains are split over lines in compiled output.
        let zod = |v: Node| {
            v.kind() == "call_expression"
                && crate::zod::is_chain(
                    &(text(v, self.src).split_whitespace()).collect::<String>(),
                    &self.zod,
                )
        };
        let named = |v: Node| matches!(v.kind(), "identifier" | "member_expression");
        // `{ query: SearchQuery, limit: SearchLimit }`: every entry a schema held in a
        // constant, named as constants are (a minified bundle's objects of short lowercase
        // names are not shapes).
        let schema_name = |v: Node| {
            named(v)
                && (text(v, self.src).rsplit('.').next())
                    .and_then(|last| last.chars().next())
                    .is_some_and(|c| c.is_ascii_uppercase())
        };
        entries.iter().any(|(k, _, _)| k == "properties")
            || (entries.iter().any(|(_, v, _)| zod(unwrap(*v)))
                && entries.iter().all(|(_, v, _)| {
                    let v = unwrap(*v);
                    zod(v) || named(v)
                }))
            || (!entries.is_empty() && entries.iter().all(|(_, v, _)| schema_name(unwrap(*v))))
    }

    /// A constant whose value is text written out (a literal, a template, a concatenation).
    fn text_constant(&mut self, name: &str, value: Node) {
        let site = text::read_description(value, self.src, self.rel);
        if site.text.is_none() {
            return;
        }
        for prefix in ["module.exports.", "exports."] {
            if let Some(bare) = name.strip_prefix(prefix) {
                self.facts.texts.push((bare.to_string(), site.clone()));
            }
        }
        self.facts.texts.push((name.to_string(), site));
    }

    fn constant(&mut self, name: String, value: String) {
        // CommonJS exports are also imported by their bare name.
        for prefix in ["module.exports.", "exports."] {
            if let Some(bare) = name.strip_prefix(prefix) {
                self.facts.constants.push((bare.to_string(), value.clone()));
            }
        }
        self.facts.constants.push((name, value));
    }

    fn class(&mut self, class: Node, body: Node) {
        let mut fields = Vec::new();
        let mut methods = Vec::new();
        let mut cursor = body.walk();
        for member in body.named_children(&mut cursor) {
            let key = member
                .child_by_field_name("property")
                .or_else(|| member.child_by_field_name("name"));
            let Some(key) = key.map(|k| text(k, self.src).to_string()) else {
                continue;
            };
            match member.kind() {
                "field_definition" | "public_field_definition" => {
                    if let Some(v) = member.child_by_field_name("value") {
                        fields.push((key, v));
                    }
                }
                "method_definition" => methods.push((key, member)),
                _ => {}
            }
        }
        // `constructor() { super({ inputSchema: DistanceInputSchema }) }`: what the class hands
        // its base class counts as its own fields.
        if let Some((_, constructor)) = methods.iter().find(|(m, _)| m == "constructor") {
            for (key, value, _) in super_config(*constructor, self.src) {
                if !fields.iter().any(|(k, _)| *k == key) {
                    fields.push((key, value));
                }
            }
        }
        let field = |k: &str| fields.iter().find(|(key, _)| key == k).map(|(_, v)| *v);
        let Some(name) = field("name").map(|n| expr(n, self.src)) else {
            return;
        };
        let describes_tool = ["description"]
            .iter()
            .chain(SCHEMA_KEYS)
            .any(|k| field(k).is_some());
        // A resource or prompt class (`uri`, `mimeType`, `arguments`) takes no input schema.
        let other = NOT_TOOL_KEYS.iter().any(|k| field(k).is_some())
            && !SCHEMA_KEYS.iter().any(|k| field(k).is_some());
        if name == Expr::Unknown || !describes_tool || other {
            return;
        }
        let handler = HANDLER_KEYS
            .iter()
            .find_map(|k| methods.iter().find(|(m, _)| m == k))
            .map(|(_, node)| HandlerRef::At(span(*node, self.rel)));
        self.facts.candidates.push(Candidate {
            name,
            kind: CandidateKind::Class,
            definition: span(class, self.rel),
            handler,
            schema: SCHEMA_KEYS
                .iter()
                .find_map(|k| field(k))
                .map_or(SchemaRef::None, |s| {
                    params::read_schema(s, self.src, self.rel)
                }),
            output: field("outputSchema").map_or(SchemaRef::None, |s| {
                params::read_schema(s, self.src, self.rel)
            }),
            // Instances (`new EchoTool()`) are what gets registered; they are found by class name.
            holder: class
                .child_by_field_name("name")
                .map(|n| text(n, self.src).to_string()),
            sites: Sites {
                name: field("name").map(|n| span(unwrap(n), self.rel)),
                description: field("description")
                    .map(|d| text::read_description(d, self.src, self.rel)),
                declaration: Some(span(exported(class), self.rel)),
                extends: superclass(class, self.src),
                ..Sites::default()
            },
        });
    }

    /// The name an object literal is stored under, if it is stored straight into one.
    /// The constant an unregistered definition object is exported as (`export const X =
    /// {...}`), when this file never uses it: it is the server's only if another file does
    /// (a definition left beside the ones the server lists; see `uncalled` in `lib.rs`).
    fn unused_export(&self, object: Node, kind: CandidateKind) -> Option<String> {
        if kind != (CandidateKind::ToolObject { registered: false }) {
            return None;
        }
        let declaration = declaration_of(object)?;
        if declaration.kind() != "export_statement" {
            return None;
        }
        let holder = self.holder(object)?;
        (crate::callers::mentions(self.src, &holder, 2) == 1).then_some(holder)
    }

    fn holder(&self, object: Node) -> Option<String> {
        let parent = object.parent()?;
        let name = match parent.kind() {
            "variable_declarator" => parent.child_by_field_name("name"),
            "assignment_expression" => parent.child_by_field_name("left"),
            _ => None,
        }?;
        let path = syntax::path(name, self.src)?;
        let bare = ["module.exports.", "exports."]
            .iter()
            .find_map(|p| path.strip_prefix(p));
        Some(bare.map_or(path.clone(), str::to_string))
    }
}

/// The declaration statement of an object stored in a constant (`const X = {...};`).
fn declaration_of(object: Node) -> Option<Node> {
    let declarator = object
        .parent()
        .filter(|p| p.kind() == "variable_declarator")?;
    let declaration = declarator
        .parent()
        .filter(|d| matches!(d.kind(), "lexical_declaration" | "variable_declaration"))?;
    // Only a declaration of this one constant can be copied whole.
    (declaration.named_child_count() == 1).then(|| exported(declaration))
}

/// The name of the class in `class X extends Name {}`, or the last part of a dotted one.
fn superclass(class: Node, src: &str) -> Option<String> {
    let mut cursor = class.walk();
    let heritage = class
        .named_children(&mut cursor)
        .find(|c| c.kind() == "class_heritage")?;
    let text = text(heritage, src).trim_start_matches("extends").trim();
    let name = text
        .split(|c: char| c.is_whitespace() || c == '{' || c == '<')
        .next()?;
    Some(name.rsplit('.').next()?.to_string())
}

/// The `export` statement around a declaration, or the declaration itself.
fn exported(declaration: Node) -> Node {
    declaration
        .parent()
        .filter(|p| p.kind() == "export_statement")
        .unwrap_or(declaration)
}

/// The statement a registration call stands in (`server.tool(...);`, `await x.register(...);`),
/// or the call itself when it is part of a larger expression.
fn statement_of(call: Node) -> Node {
    let mut node = call;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "await_expression" | "parenthesized_expression" => node = parent,
            "expression_statement" => return parent,
            _ => break,
        }
    }
    node
}

/// Whether a switch subject or comparison operand reads like the requested tool's name.
fn names_a_tool(subject: &str) -> bool {
    let s = subject.to_ascii_lowercase();
    s.contains("name") || s.contains("tool")
}

/// The block an `if` runs when a comparison in its condition (possibly inside `||`/`&&`) holds.
fn enclosing_if_consequence(compare: Node) -> Option<Node> {
    let mut node = compare;
    loop {
        let parent = node.parent()?;
        match parent.kind() {
            "parenthesized_expression" | "binary_expression" | "unary_expression" => node = parent,
            "if_statement" => {
                let is_condition =
                    parent.child_by_field_name("condition").map(|c| c.id()) == Some(node.id());
                return if is_condition {
                    parent.child_by_field_name("consequence")
                } else {
                    None
                };
            }
            _ => return None,
        }
    }
}

/// The entries of the object a constructor passes to `super(...)` as its only argument.
fn super_config<'t>(constructor: Node<'t>, src: &str) -> Vec<(String, Node<'t>, Node<'t>)> {
    let Some(body) = constructor.child_by_field_name("body") else {
        return Vec::new();
    };
    let mut cursor = body.walk();
    let statements: Vec<Node> = body.named_children(&mut cursor).collect();
    (statements.into_iter())
        .filter_map(|s| s.named_child(0).filter(|c| c.kind() == "call_expression"))
        .filter(|call| (call.child_by_field_name("function")).is_some_and(|f| f.kind() == "super"))
        .find_map(syntax::only_object_argument)
        .map_or_else(Vec::new, |object| object_entries(object, src))
}
