//! Per-file reading of Python sources: the same facts as for JavaScript (candidates, dispatches,
//! constants, schemas, functions), so that linking across files is shared.
//!
//! Over 500 lines on purpose, as `facts.rs`: one reader walks one compiled query, and each
//! registration style's reading (decorators, calls, tool objects, routes, declarations) shares
//! its helpers.
//!
//! Registration styles read: FastMCP decorators (`@mcp.tool()`, with `name=`/`description=` or
//! the function name and docstring; parameters from the signature), `mcp.add_tool(fn, ...)` and
//! `mcp.tool(...)(fn)`; the low-level `Server`: `Tool(name=..., inputSchema=...)` objects listed by
//! `@server.list_tools()`, routed in `@server.call_tool()` by `match name:` cases or
//! `if name == ...` chains (names as literals, constants or enum members), or by a dict of
//! handlers.

pub mod classes;
pub mod helpers;
pub mod params;
mod registries;
pub mod syntax;

use std::collections::HashMap;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, QueryCursor, Tree};

use self::syntax::{
    arguments, docstring, expr, keyword, last_segment, names_a_tool, path, string_value, unwrap,
};
use super::facts::{Candidate, CandidateKind, Dispatch, DispatchKind, FileFacts, HandlerRef};
use super::grammar::{Lang, QueryKind};
use super::params::{Schema, SchemaRef};
use super::syntax::{Expr, span, text};
use mcpevol_core::inventory::{Route, RouteKind, Sites};

/// Decorator methods that register a tool (`@mcp.tool()`); prompts and resources use others.
const TOOL_DECORATORS: &[&str] = &["tool"];
/// The decorator of the low-level server's call handler.
const CALL_HANDLER_DECORATORS: &[&str] = &["call_tool"];
/// The decorator of the low-level server's tool listing.
const LIST_DECORATORS: &[&str] = &["list_tools"];

/// Reads the facts of one parsed Python file.
pub fn read(tree: &Tree, src: &str, rel: &str) -> FileFacts {
    let q = Lang::Python.queries();
    let root = tree.root_node();
    let mut reader = Reader {
        src,
        rel,
        facts: FileFacts::default(),
        functions: HashMap::new(),
        instances: Vec::new(),
        listed_calls: Vec::new(),
        class_tools: Vec::new(),
    };
    if let Some(err) = super::facts::first_error(root) {
        reader.facts.warnings.push(format!(
            "{rel}: syntax error at line {}; tools in the damaged part may be missed",
            err.start_position().row + 1
        ));
    }
    let mut cursor = QueryCursor::new();
    let mut matches = cursor.matches(&q.all, root, src.as_bytes());
    let mut all: Vec<(QueryKind, HashMap<&str, Node>)> = Vec::new();
    let names = q.all.capture_names();
    while let Some(m) = matches.next() {
        let captures = m
            .captures
            .iter()
            .map(|c| (names[c.index as usize], c.node))
            .collect();
        all.push((q.kind(m.pattern_index), captures));
    }
    // Functions first: `add_tool(fn)` reads the signature and docstring of `fn`.
    for (kind, m) in &all {
        if *kind == QueryKind::PyDeclarations
            && let (Some(f), Some(n)) = (m.get("function"), m.get("fname"))
        {
            reader.functions.insert(text(*n, src), *f);
        }
    }
    for (kind, m) in &all {
        match kind {
            QueryKind::PyDecorated => {
                reader.decorated(m["decorator"], m["function"], m["decorated"])
            }
            QueryKind::PyCalls => reader.call(m),
            QueryKind::PyDispatch => reader.dispatch(m),
            QueryKind::PyDeclarations => reader.declaration(m),
            _ => {}
        }
    }
    reader.instance_constants();
    reader.listed_handlers();
    reader.facts
}

struct Reader<'s, 't> {
    src: &'s str,
    rel: &'s str,
    facts: FileFacts,
    /// Functions defined in this file, by name.
    functions: HashMap<&'s str, Node<'t>>,
    /// Module-level instances of classes: (instance, class).
    instances: Vec<(String, String)>,
    /// Calls on a name listed in a list (`[handler.get_tool_description()]`): (name, element).
    listed_calls: Vec<(String, mcpevol_core::inventory::Span)>,
    /// Tool objects built in a class's method (`Tool(name=self.name, ...)`): (candidate, class).
    class_tools: Vec<(usize, String)>,
}

impl<'s, 't> Reader<'s, 't> {
    /// `@X.tool(...)` makes the function a tool; `@X.call_tool()` makes it the call handler.
    fn decorated(&mut self, decorator: Node<'t>, function: Node<'t>, decorated: Node<'t>) {
        let Some(expression) = decorator.named_child(0) else {
            return;
        };
        let (callee, args) = match expression.kind() {
            "call" => (
                expression.child_by_field_name("function"),
                expression.child_by_field_name("arguments"),
            ),
            "attribute" | "identifier" => (Some(expression), None),
            _ => return,
        };
        let Some(callee_path) = callee.and_then(|c| path(c, self.src)) else {
            return;
        };
        let method = last_segment(&callee_path);
        if !callee_path.contains('.') || !TOOL_DECORATORS.contains(&method) {
            self.maybe_helper_use(method, args, function, decorator, decorated);
        }
        if !callee_path.contains('.') {
            return;
        }
        if CALL_HANDLER_DECORATORS.contains(&method) {
            self.facts.dispatches.push(Dispatch {
                name: Expr::Unknown,
                kind: DispatchKind::CallHandler,
                handler: HandlerRef::At(span(function, self.rel)),
                on_tool_name: false,
                beside: Vec::new(),
                site: None,
                registration: None,
            });
            return;
        }
        if LIST_DECORATORS.contains(&method) {
            self.generated_tools(function);
            return;
        }
        if !TOOL_DECORATORS.contains(&method) {
            return;
        }
        let (keywords, positional) = args.map(|a| arguments(a, self.src)).unwrap_or_default();
        let name_node = tool_name(&keywords, self.src).or_else(|| {
            positional
                .first()
                .copied()
                .filter(|p| string_value(*p, self.src).is_some())
        });
        let candidate = self.function_tool(
            function,
            name_node,
            keyword(&keywords, "description"),
            span(decorated, self.rel),
            span(decorator, self.rel),
        );
        if let Some(c) = candidate {
            self.facts.candidates.push(c);
        }
    }

    /// A function decorated by something not known here (`@register_tool("x")`,
    /// `@tools.reader("Title")`): kept for linking, which knows whether it registers tools.
    fn maybe_helper_use(
        &mut self,
        helper: &str,
        args: Option<Node<'t>>,
        function: Node<'t>,
        decorator: Node<'t>,
        decorated: Node<'t>,
    ) {
        if CALL_HANDLER_DECORATORS.contains(&helper) || LIST_DECORATORS.contains(&helper) {
            return;
        }
        let (positional, keywords) = helpers::helper_args(args, self.src, self.rel);
        // A `description=` the helper is given is what it registers the tool with, as
        // FastMCP's own decorator does (else the docstring).
        let given = args.map(|a| arguments(a, self.src).0).unwrap_or_default();
        if let Some(mut candidate) = self.function_tool(
            function,
            None,
            keyword(&given, "description"),
            span(decorated, self.rel),
            span(decorator, self.rel),
        ) {
            candidate.sites.helper = Some(helper.to_string());
            // `@register_tool("x", params=QueryParams)` on `def x(config, params: QueryParams)`:
            // the registry lists the model's fields as the tool's arguments.
            if let Some(model) = params::model_given(function, &given, self.src) {
                candidate.schema = SchemaRef::Named(model);
            }
            self.facts.helper_uses.push(helpers::HelperUse {
                helper: helper.to_string(),
                positional,
                keywords,
                candidate,
            });
        }
    }

    /// A tool whose handler is a Python function: named by `name_node` or the function's own
    /// name, described by `description` or its docstring, its parameters its signature.
    fn function_tool(
        &self,
        function: Node<'t>,
        name_node: Option<Node<'t>>,
        description: Option<Node<'t>>,
        definition: mcpevol_core::inventory::Span,
        registration: mcpevol_core::inventory::Span,
    ) -> Option<Candidate> {
        let name = match name_node {
            Some(n) => expr(n, self.src),
            None => Expr::Str(text(function.child_by_field_name("name")?, self.src).to_string()),
        };
        let doc = function
            .child_by_field_name("body")
            .and_then(|b| docstring(b, self.src));
        let description_site = match (description, &doc) {
            (Some(d), _) => Some(syntax::description_site(d, self.src, self.rel)),
            (None, Some((node, text))) => Some(syntax::docstring_site(*node, text, self.rel)),
            (None, None) => None,
        };
        let schema = function
            .child_by_field_name("parameters")
            .map_or(SchemaRef::None, |p| {
                SchemaRef::Inline(params::signature(p, self.src, self.rel))
            });
        Some(Candidate {
            name,
            kind: CandidateKind::RegisterCall,
            definition,
            handler: Some(HandlerRef::At(span(function, self.rel))),
            schema,
            output: SchemaRef::None,
            holder: None,
            sites: Sites {
                name: name_node.map(|n| span(unwrap(n), self.rel)),
                description: description_site,
                registration: Some(registration),
                ..Sites::default()
            },
        })
    }

    /// Tools a helper builds from a function, listed by the list handler:
    /// `return [make_tool(api.get_price), ...]`. The helper names each after its function
    /// (`__name__`), which is all that is known of it here.
    fn generated_tools(&mut self, function: Node<'t>) {
        let Some(body) = function.child_by_field_name("body") else {
            return;
        };
        let mut stack = vec![body];
        while let Some(node) = stack.pop() {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                match child.kind() {
                    "function_definition" | "class_definition" => {}
                    "list"
                        if child
                            .parent()
                            .is_some_and(|p| p.kind() == "return_statement") =>
                    {
                        self.generated_list(child)
                    }
                    _ => stack.push(child),
                }
            }
        }
    }

    fn generated_list(&mut self, list: Node<'t>) {
        let mut cursor = list.walk();
        for element in list.named_children(&mut cursor) {
            if element.kind() != "call" {
                continue;
            }
            let callee = element
                .child_by_field_name("function")
                .and_then(|f| path(f, self.src))
                .unwrap_or_default();
            if last_segment(&callee) == "Tool" {
                continue; // read as a tool object
            }
            let (keywords, positional) = element
                .child_by_field_name("arguments")
                .map(|a| arguments(a, self.src))
                .unwrap_or_default();
            let [only] = positional.as_slice() else {
                continue;
            };
            if !keywords.is_empty() || !matches!(only.kind(), "identifier" | "attribute") {
                continue;
            }
            let Some(target) = path(*only, self.src) else {
                continue;
            };
            self.facts.candidates.push(Candidate {
                name: Expr::Str(last_segment(&target).to_string()),
                kind: CandidateKind::ToolObject { registered: false },
                definition: span(element, self.rel),
                handler: None,
                schema: SchemaRef::None,
                output: SchemaRef::None,
                holder: None,
                sites: Sites {
                    registration: Some(span(element, self.rel)),
                    ..Sites::default()
                },
            });
        }
    }

    fn call(&mut self, m: &HashMap<&str, Node<'t>>) {
        if let Some(call) = m.get("wrapcall") {
            // `mcp.tool(name="x")(fn)`: options first, the function second.
            let (keywords, positional) = arguments(m["options"], self.src);
            let (_, target) = arguments(m["args"], self.src);
            let name = tool_name(&keywords, self.src).or_else(|| {
                positional
                    .first()
                    .copied()
                    .filter(|p| string_value(*p, self.src).is_some())
            });
            self.registered_function(
                *call,
                target.first().copied(),
                name,
                keyword(&keywords, "description"),
            );
            return;
        }
        let call = m["call"];
        let callee = path(m["callee"], self.src).unwrap_or_default();
        let (keywords, positional) = arguments(m["args"], self.src);
        match last_segment(&callee) {
            "add_tool" => {
                let mut name = tool_name(&keywords, self.src);
                let mut description = keyword(&keywords, "description");
                let mut target = keyword(&keywords, "fn").or(positional.first().copied());
                // `add_tool(Tool.from_function(fn, name=...))`: the tool is made from `fn`.
                if let Some(inner) = target.map(unwrap).filter(|t| t.kind() == "call")
                    && let Some(callee) = inner
                        .child_by_field_name("function")
                        .and_then(|f| path(f, self.src))
                    && last_segment(&callee) == "from_function"
                    && let Some(args) = inner.child_by_field_name("arguments")
                {
                    let (inner_keywords, inner_positional) = arguments(args, self.src);
                    target = keyword(&inner_keywords, "fn").or(inner_positional.first().copied());
                    name = name.or(tool_name(&inner_keywords, self.src));
                    description = description.or(keyword(&inner_keywords, "description"));
                }
                self.registered_function(call, target, name, description);
            }
            "Tool" => self.tool_object(call, &keywords),
            "model_copy" => self.copied_object(call, &callee, &keywords),
            _ => {}
        }
    }

    /// `add_tool(fn, name=...)` and `tool(...)(fn)` on a function defined in this file (else its
    /// name only, with the handler found by name across files).
    fn registered_function(
        &mut self,
        call: Node<'t>,
        target: Option<Node<'t>>,
        name: Option<Node<'t>>,
        description: Option<Node<'t>>,
    ) {
        let Some(target) = target.map(unwrap) else {
            return;
        };
        // `server.tool(...)(function)` inside a helper or a loop registers whatever it is given:
        // the tools are the functions the helper decorates or marks (`helpers.rs`), not its
        // parameter or loop variable.
        if target.kind() == "identifier"
            && (syntax::is_parameter_of_enclosing(call, text(target, self.src), self.src)
                || helpers::is_local_of_enclosing(call, text(target, self.src), self.src))
        {
            return;
        }
        let registration = span(statement_of(call), self.rel);
        let local = match target.kind() {
            "identifier" => self.functions.get(text(target, self.src)).copied(),
            // `self.mcp.tool(name="x")(self.method)` in a handler class's `__init__`.
            "attribute" => classes::own_method(call, target, self.src),
            _ => None,
        };
        let candidate = match local {
            Some(function) => self.function_tool(
                function,
                name,
                description,
                span(call, self.rel),
                registration,
            ),
            None => {
                let Some(fname) = path(target, self.src) else {
                    return;
                };
                let bare = last_segment(&fname).to_string();
                Some(Candidate {
                    name: name.map_or(Expr::Str(bare.clone()), |n| expr(n, self.src)),
                    kind: CandidateKind::RegisterCall,
                    definition: span(call, self.rel),
                    handler: Some(HandlerRef::Named(bare)),
                    schema: SchemaRef::None,
                    output: SchemaRef::None,
                    holder: None,
                    sites: Sites {
                        name: name.map(|n| span(unwrap(n), self.rel)),
                        description: description
                            .map(|d| syntax::description_site(d, self.src, self.rel)),
                        registration: Some(registration),
                        ..Sites::default()
                    },
                })
            }
        };
        if let Some(c) = candidate {
            self.facts.candidates.push(c);
        }
    }

    /// `Tool(name=..., description=..., inputSchema=...)`, as a list element or held in a name.
    fn tool_object(&mut self, call: Node<'t>, keywords: &[(String, Node<'t>)]) {
        // A handler class's `Tool(name=self.name, ...)` reads its class attributes.
        let own = |n: Node<'t>| classes::class_attribute(call, n, self.src).unwrap_or(n);
        let Some(name_node) = tool_name(keywords, self.src).map(own) else {
            return;
        };
        let name = expr(name_node, self.src);
        if name == Expr::Unknown {
            return;
        }
        // `self.name` set by a base class in another module from what `super().__init__`
        // passes it: named when linking (as a decorator helper's tool is).
        let from_base = match &name {
            Expr::Path(p) if p.starts_with("self.") => classes::passed_to_base(call, self.src)
                .map(|(base, args)| (format!("{base}.{}", &p["self.".len()..]), args)),
            _ => None,
        };
        let description = keyword(keywords, "description").map(own);
        let schema = keyword(keywords, "inputSchema")
            .or_else(|| keyword(keywords, "input_schema"))
            .map_or(SchemaRef::None, |s| {
                params::read_schema(s, self.src, self.rel)
            });
        let parent = call.parent();
        let holder_statement = parent.filter(|p| p.kind() == "assignment").and_then(|a| {
            let left = a.child_by_field_name("left")?;
            Some((path(left, self.src)?, a.parent()?))
        });
        let registration = match parent.map(|p| p.kind()) {
            Some("list") => Some(span(call, self.rel)),
            _ => None,
        };
        let candidate = Candidate {
            name,
            kind: CandidateKind::ToolObject { registered: false },
            definition: span(call, self.rel),
            handler: None,
            schema,
            output: SchemaRef::None,
            holder: holder_statement.as_ref().map(|(h, _)| h.clone()),
            sites: Sites {
                name: Some(span(unwrap(name_node), self.rel)),
                description: description.map(|d| syntax::description_site(d, self.src, self.rel)),
                registration,
                declaration: holder_statement.map(|(_, s)| span(s, self.rel)),
                ..Sites::default()
            },
        };
        if let Some((helper, args)) = from_base {
            let (positional, keywords) = helpers::helper_args(Some(args), self.src, self.rel);
            self.facts.helper_uses.push(helpers::HelperUse {
                helper,
                positional,
                keywords,
                candidate,
            });
            return;
        }
        if let Some(class) = classes::enclosing_class(call, self.src) {
            self.class_tools
                .push((self.facts.candidates.len(), class.to_string()));
        }
        self.facts.candidates.push(candidate);
    }

    /// `TOOL.model_copy(update={"name": "x", "description": "..."})`: a tool object derived
    /// from another, sharing its schema (`extends` names the original's holder).
    fn copied_object(&mut self, call: Node<'t>, callee: &str, keywords: &[(String, Node<'t>)]) {
        let Some(update) = keyword(keywords, "update")
            .map(unwrap)
            .filter(|u| u.kind() == "dictionary")
        else {
            return;
        };
        let entries = params::dict_entries(update, self.src);
        let get = |k: &str| {
            entries
                .iter()
                .find(|(key, _, _)| key == k)
                .map(|(_, v, _)| *v)
        };
        let Some(name_node) = get("name") else {
            return;
        };
        let name = expr(name_node, self.src);
        if name == Expr::Unknown {
            return;
        }
        let holder = callee.rsplit_once('.').map_or(callee, |(h, _)| h);
        let description = get("description");
        let in_list = call.parent().is_some_and(|p| p.kind() == "list");
        self.facts.candidates.push(Candidate {
            name,
            kind: CandidateKind::ToolObject { registered: false },
            definition: span(call, self.rel),
            handler: None,
            output: SchemaRef::None,
            schema: SchemaRef::None,
            holder: None,
            sites: Sites {
                name: Some(span(unwrap(name_node), self.rel)),
                description: description.map(|d| syntax::description_site(d, self.src, self.rel)),
                registration: in_list.then(|| span(call, self.rel)),
                extends: Some(last_segment(holder).to_string()),
                ..Sites::default()
            },
        });
    }

    fn dispatch(&mut self, m: &HashMap<&str, Node<'t>>) {
        if let Some(case) = m.get("case") {
            let subject = text(m["subject"], self.src);
            let mut labels = Vec::new();
            let mut cursor = case.walk();
            for pattern in case.named_children(&mut cursor) {
                if pattern.kind() == "case_pattern" {
                    collect_labels(pattern, &mut labels);
                }
            }
            for label in labels {
                let name = expr(label, self.src);
                if name == Expr::Unknown {
                    continue;
                }
                self.facts.dispatches.push(Dispatch {
                    name,
                    kind: DispatchKind::Case,
                    handler: HandlerRef::At(span(*case, self.rel)),
                    on_tool_name: names_a_tool(subject),
                    beside: Vec::new(),
                    site: Some(Route {
                        kind: RouteKind::Case,
                        label: span(label, self.rel),
                        site: span(*case, self.rel),
                    }),
                    registration: None,
                });
            }
            return;
        }
        if let Some(compare) = m.get("compare") {
            self.comparison(*compare);
            return;
        }
        if let (Some(pair), Some(key), Some(value)) = (m.get("pair"), m.get("key"), m.get("value"))
        {
            let handler = match value.kind() {
                "lambda" => HandlerRef::At(span(*value, self.rel)),
                _ => match path(*value, self.src) {
                    Some(p) => HandlerRef::Named(last_segment(&p).to_string()),
                    None => return,
                },
            };
            self.facts.dispatches.push(Dispatch {
                name: expr(*key, self.src),
                kind: DispatchKind::MapKey,
                handler,
                on_tool_name: false,
                beside: Vec::new(),
                site: Some(Route {
                    kind: RouteKind::MapEntry,
                    label: span(*key, self.rel),
                    site: span(*pair, self.rel),
                }),
                registration: None,
            });
        }
    }

    /// `name == "x"` (either side) in the condition of an `if` or `elif`.
    fn comparison(&mut self, compare: Node<'t>) {
        let mut cursor = compare.walk();
        let operands: Vec<Node> = compare.named_children(&mut cursor).collect();
        let is_equality = compare
            .child_by_field_name("operators")
            .is_some_and(|o| o.kind() == "==");
        if operands.len() != 2 || !is_equality {
            return;
        }
        let Some(consequence) = enclosing_consequence(compare) else {
            return;
        };
        for (name_side, subject_side) in [(operands[1], operands[0]), (operands[0], operands[1])] {
            let name = expr(name_side, self.src);
            if name == Expr::Unknown || path(subject_side, self.src).is_none() {
                continue;
            }
            self.facts.dispatches.push(Dispatch {
                name,
                kind: DispatchKind::If,
                handler: HandlerRef::At(span(consequence, self.rel)),
                on_tool_name: names_a_tool(text(subject_side, self.src)),
                beside: Vec::new(),
                site: Some(Route {
                    kind: RouteKind::Compare,
                    label: span(name_side, self.rel),
                    site: span(compare, self.rel),
                }),
                registration: None,
            });
        }
    }

    fn declaration(&mut self, m: &HashMap<&str, Node<'t>>) {
        if let (Some(instance), Some(call)) = (m.get("instance"), m.get("listed_call")) {
            self.listed_calls
                .push((text(*instance, self.src).to_string(), span(*call, self.rel)));
            return;
        }
        if let Some(element) = m.get("element") {
            self.facts.array_refs.push((
                text(*element, self.src).to_string(),
                span(*element, self.rel),
            ));
            return;
        }
        if let (Some(function), Some(name)) = (m.get("function"), m.get("fname")) {
            self.facts
                .functions
                .push((text(*name, self.src).to_string(), span(*function, self.rel)));
            self.facts
                .registering_fns
                .extend(helpers::registering_fn(*function, self.src));
            return;
        }
        if let (Some(class), Some(body)) = (m.get("classname"), m.get("body")) {
            if let Some(definition) = m.get("class") {
                self.facts
                    .registering_fns
                    .extend(classes::init_assignments(*definition, self.src));
            }
            let class_name = text(*class, self.src).to_string();
            self.class_constants(&class_name, *body);
            if let Some(schema) = params::model(*body, self.src, self.rel) {
                self.facts.schemas.push((class_name, schema));
            }
            return;
        }
        if let (Some(name), Some(value)) = (m.get("name"), m.get("value")) {
            let name = text(*name, self.src).to_string();
            let value = unwrap(*value);
            if value.kind() == "call"
                && let Some(class) = value
                    .child_by_field_name("function")
                    .filter(|f| f.kind() == "identifier")
            {
                // `handler = HandlerClass()`: `handler.name` is the class's `name`.
                self.instances
                    .push((name.clone(), text(class, self.src).to_string()));
            }
            if let Some(alias) = registries::alias(&name, value, self.src) {
                self.facts.registering_fns.push(alias);
            }
            if let Some(s) = string_value(value, self.src) {
                self.facts.constants.push((name, s));
            } else if value.kind() == "dictionary"
                && let Some(schema) = params::dict_schema(value, self.src, self.rel)
            {
                self.facts.schemas.push((name, schema));
            } else if let SchemaRef::Named(model) = params::read_schema(value, self.src, self.rel)
                && value.kind() == "call"
            {
                // `SCHEMA = Model.model_json_schema()`: the name stands for the model.
                self.facts.schemas.extend(
                    self.facts
                        .schemas
                        .iter()
                        .filter(|(n, _)| *n == model)
                        .map(|(_, s)| (name.clone(), s.clone()))
                        .collect::<Vec<(String, Schema)>>(),
                );
            }
        }
    }

    /// A handler class's tool is registered where an instance of it is listed
    /// (`[echo_handler.get_tool_description()]`), when it is listed once.
    fn listed_handlers(&mut self) {
        for (index, class) in &self.class_tools {
            let mut listed = self.listed_calls.iter().filter(|(instance, _)| {
                self.instances
                    .iter()
                    .any(|(i, c)| i == instance && c == class)
            });
            if let (Some((_, element)), None) = (listed.next(), listed.next()) {
                let candidate = &mut self.facts.candidates[*index];
                candidate.sites.registration.get_or_insert(element.clone());
            }
        }
    }

    /// The string class attributes of this file seen through module-level instances.
    fn instance_constants(&mut self) {
        let mut seen = Vec::new();
        for (instance, class) in &self.instances {
            let prefix = format!("{class}.");
            for (k, v) in &self.facts.constants {
                if let Some(attr) = k.strip_prefix(&prefix) {
                    seen.push((format!("{instance}.{attr}"), v.clone()));
                }
            }
        }
        self.facts.constants.extend(seen);
    }

    /// String class attributes (enum members and plain constants): `Class.MEMBER`.
    fn class_constants(&mut self, class: &str, body: Node) {
        let mut cursor = body.walk();
        for statement in body.named_children(&mut cursor) {
            let Some(assignment) = statement
                .named_child(0)
                .filter(|a| statement.kind() == "expression_statement" && a.kind() == "assignment")
            else {
                continue;
            };
            let (Some(left), Some(right)) = (
                assignment.child_by_field_name("left"),
                assignment.child_by_field_name("right"),
            ) else {
                continue;
            };
            if left.kind() == "identifier"
                && let Some(value) = string_value(right, self.src)
            {
                self.facts
                    .constants
                    .push((format!("{class}.{}", text(left, self.src)), value));
            }
        }
    }
}

/// The `name=` argument of a registration. A name written `prefix + "x"` is a configured
/// namespace (empty unless set) before the name the source owns: the literal is the name.
fn tool_name<'t>(keywords: &[(String, Node<'t>)], src: &str) -> Option<Node<'t>> {
    let name = unwrap(keyword(keywords, "name")?);
    if name.kind() == "binary_operator"
        && name
            .child_by_field_name("operator")
            .is_some_and(|o| text(o, src) == "+")
        && let Some(right) = name.child_by_field_name("right")
        && string_value(right, src).is_some()
        && name
            .child_by_field_name("left")
            .is_some_and(|l| matches!(l.kind(), "identifier" | "attribute" | "call"))
    {
        return Some(right);
    }
    Some(name)
}

/// The string and dotted-name alternatives of a case pattern (`"a" | "b"`, `Tools.X`).
fn collect_labels<'t>(node: Node<'t>, out: &mut Vec<Node<'t>>) {
    match node.kind() {
        "string" | "concatenated_string" | "dotted_name" => out.push(node),
        "case_pattern" | "union_pattern" => {
            let mut cursor = node.walk();
            for child in node.named_children(&mut cursor) {
                collect_labels(child, out);
            }
        }
        _ => {}
    }
}

/// The block an `if` or `elif` runs when a comparison in its condition (possibly inside
/// `or`/`and`/parentheses) holds.
fn enclosing_consequence(compare: Node) -> Option<Node> {
    let mut node = compare;
    loop {
        let parent = node.parent()?;
        match parent.kind() {
            "parenthesized_expression" | "boolean_operator" => node = parent,
            "if_statement" | "elif_clause" => {
                let is_condition =
                    parent.child_by_field_name("condition").map(|c| c.id()) == Some(node.id());
                return is_condition
                    .then(|| parent.child_by_field_name("consequence"))
                    .flatten();
            }
            _ => return None,
        }
    }
}

/// The statement a registration call stands in (`mcp.add_tool(fn)`), or the call itself.
fn statement_of(call: Node) -> Node {
    let mut node = call;
    while let Some(parent) = node.parent() {
        match parent.kind() {
            "await" | "parenthesized_expression" => node = parent,
            "expression_statement" => return parent,
            _ => break,
        }
    }
    node
}
