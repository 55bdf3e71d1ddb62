//! The Python forms of the rules' site surgeries: the operator logic (which tool, which edit,
//! what it claims) stays in `rules/`; where an edit lands in a `.py` file, the Python dialect
//! (`dialect/python.rs`) has these write it.
//!
//! Over 500 lines on purpose: every surgery the 11 operators need in Python (names, aliases,
//! routes and their removal, parameters in three schema forms, imports), beside each other as
//! their JavaScript forms are in `dialect/javascript.rs`, `splice.rs`, `wrap.rs` and `unroute.rs`.
//!
//! Python writes a tool's parameters three ways (`inventory::PyParams`): a function signature
//! (FastMCP), a pydantic model's fields, or a JSON schema as a dict literal. Routes are `case`
//! patterns, `==` comparisons in `if`/`elif`, and dict entries. New behaviour goes into a
//! decorator written beside the handler ([`wrap`]).

pub mod wrap;

use std::path::Path;

use tree_sitter::Node;

use super::MutateError;
use super::behaviours::{Bound, NewParam};
use super::splice::{Edits, append_entry, indent_at, item_range, js_string, statement_range};
use mcpevol_anchor::grammar::Lang;
use mcpevol_core::inventory::{ParamSite, PyParams, SchemaSite, Span, Tool};
use mcpevol_core::operators::Builtin;

/// Said before the snippets of a Python server, whose prompts otherwise speak of JavaScript.
pub const PYTHON_NOTE: &str = "This server is written in Python: the snippets below are Python source, and your edits must be valid Python (3.10+) in the file's own style, importing nothing the package does not already use (the standard library is fine). FastMCP tools take their parameters from the function signature (type hints, `Annotated[..., Field(description=...)]`) and their description from the docstring or `description=`; low-level servers list `Tool(name=..., inputSchema={...})` objects and route calls in the `@server.call_tool()` function.";

/// Whether an edit of `file` is Python.
pub fn is_python(file: &str) -> bool {
    file.ends_with(".py")
}

/// A Python string literal: JSON's escaping is valid Python.
pub fn string(s: &str) -> String {
    js_string(s)
}

fn not_applicable(operator: Builtin, why: impl Into<String>) -> MutateError {
    MutateError::NotApplicable {
        operator: operator.into(),
        why: why.into(),
    }
}

fn parse(text: &str) -> Result<tree_sitter::Tree, MutateError> {
    mcpevol_anchor::parse(text, Lang::Python).ok_or(MutateError::DoesNotParse("Python"))
}

fn node_at<'t>(tree: &'t tree_sitter::Tree, span: &Span) -> Option<Node<'t>> {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(span.bytes.0, span.bytes.1)?;
    // The outermost node of exactly this range.
    while let Some(p) = node.parent() {
        if p.start_byte() == span.bytes.0 && p.end_byte() == span.bytes.1 {
            node = p;
        } else {
            break;
        }
    }
    Some(node)
}

/// A tool registered by a decorator or an `add_tool`/`tool(...)(fn)` call that gives no name:
/// renaming it writes `name=` into that registration. Not a decorator of the server's own
/// making, which takes no `name=`.
pub fn names_by_registration(tool: &Tool) -> bool {
    tool.sites.name.is_none() && registered_function(tool)
}

/// Whether `tool` is a Python function registered by the framework's decorator or call (not
/// a helper of the server's own), named by its function or by a `name=` written in that
/// registration: a copy of the registration for a new tool writes its own name there.
pub fn registered_function(tool: &Tool) -> bool {
    let Some(reg) = tool.sites.registration.as_ref() else {
        return false;
    };
    let named_there = (tool.sites.name.as_ref())
        .is_none_or(|n| n.file == reg.file && reg.bytes.0 <= n.bytes.0 && n.bytes.1 <= reg.bytes.1);
    named_there
        && tool.sites.helper.is_none()
        && is_python(&reg.file)
        && tool.handler.as_ref().is_some_and(|h| is_python(&h.file))
        && tool.style == mcpevol_core::inventory::Style::Register
}

/// Writes `keyword=value` first into the registration's arguments (`@mcp.tool()` becomes
/// `@mcp.tool(name="x")`; `@mcp.tool` gets its parentheses; `add_tool(fn)` gets it last).
pub fn add_keyword(
    e: &mut Edits,
    root: &Path,
    registration: &Span,
    keyword: &str,
    value: &str,
) -> Result<(), MutateError> {
    let text = e.text(root, &registration.file)?.to_string();
    let region = &text[registration.bytes.0..registration.bytes.1];
    let (at, insert) = keyword_insertion(region, keyword, value).ok_or(
        MutateError::Unregistrable("the Python registration has no argument list"),
    )?;
    e.insert(root, &registration.file, registration.bytes.0 + at, insert)
}

/// Where, in a registration's text, to write `keyword=value`, and what.
fn keyword_insertion(region: &str, keyword: &str, value: &str) -> Option<(usize, String)> {
    let arg = format!("{keyword}={value}");
    if region.starts_with('@') {
        let head = region.trim_end();
        return match head.find('(') {
            None => Some((head.len(), format!("({arg})"))),
            Some(open) => {
                let inner = head[open + 1..].trim_start();
                let sep = if inner.starts_with(')') { "" } else { ", " };
                Some((open + 1, format!("{arg}{sep}")))
            }
        };
    }
    // A call statement: before its last closing parenthesis.
    let close = region.trim_end().rfind(')')?;
    let before = region[..close].trim_end();
    let sep = if before.ends_with('(') || before.ends_with(',') {
        ""
    } else {
        ", "
    };
    Some((before.len(), format!("{sep}{arg}")))
}

/// A route of an alias beside `label` in a `case` pattern: `case X | "alias":`.
pub fn case_alternative(new: &str) -> String {
    format!(" | {}", string(new))
}

/// The comparison extended to the alias: `(name == X or name == "alias")`.
pub fn compare_or(compare: &str, other: &str) -> String {
    format!("({compare} or {other})")
}

/// A copy of a tool object held in a name declared in another module, with a new name and
/// description (pydantic's `model_copy`).
pub fn derived_object(holder: &str, name: &str, description: &str) -> String {
    format!(
        "{holder}.model_copy(update={{\"name\": {}, \"description\": {}}})",
        string(name),
        string(description)
    )
}

/// A JSON-schema entry in a dict literal: keys quoted.
pub fn json_entry(key: &str, value: &str) -> String {
    format!("{}: {value}", string(key))
}

/// The new optional parameter `p` as its schema writes it.
pub fn new_param(schema: &SchemaSite, p: &NewParam, description: &str) -> String {
    match schema.python {
        Some(PyParams::Dict) | None => json_entry(
            &p.name,
            &format!(
                "{{\"type\": {}, \"minimum\": 1, \"description\": {}}}",
                string(p.ty()),
                string(description)
            ),
        ),
        Some(PyParams::Signature) | Some(PyParams::Model) => format!(
            "{}: int | None = Field(default=None, ge=1, description={})",
            p.name,
            string(description)
        ),
    }
}

/// Adds new parameters to a signature (before `*args`/`**kwargs`) or a model (as its last
/// fields), importing pydantic's `Field` when the file lacks it.
pub fn add_params(
    e: &mut Edits,
    root: &Path,
    schema: &SchemaSite,
    entries: &[String],
) -> Result<(), MutateError> {
    let file = &schema.object.file;
    let text = e.text(root, file)?.to_string();
    match schema.python {
        Some(PyParams::Signature) => {
            let tree = parse(&text)?;
            let params = node_at(&tree, &schema.object)
                .filter(|n| n.kind() == "parameters")
                .ok_or_else(|| {
                    not_applicable(Builtin::FlexibleExpansion, "its signature was not found")
                })?;
            let mut cursor = params.walk();
            let children: Vec<Node> = params.named_children(&mut cursor).collect();
            let splat = children.iter().find(|c| {
                matches!(
                    c.kind(),
                    "list_splat_pattern" | "dictionary_splat_pattern" | "keyword_separator"
                ) || (c.kind() == "typed_parameter"
                    && c.named_child(0).is_some_and(|n| n.kind() != "identifier"))
            });
            let joined = entries.join(", ");
            match splat {
                Some(s) => e.insert(root, file, s.start_byte(), format!("{joined}, "))?,
                None => {
                    let close = schema.object.bytes.1 - 1;
                    let before = text[schema.object.bytes.0..close].trim_end();
                    let at = schema.object.bytes.0 + before.len();
                    let sep = if before.ends_with('(') || before.ends_with(',') {
                        ""
                    } else {
                        ", "
                    };
                    e.insert(root, file, at, format!("{sep}{joined}"))?;
                }
            }
        }
        Some(PyParams::Model) => {
            let last = schema
                .params
                .last()
                .map(|p| &p.entry)
                .unwrap_or(&schema.object);
            let indent = indent_at(&text, last.bytes.0).to_string();
            let lines: String = entries.iter().map(|l| format!("\n{indent}{l}")).collect();
            e.insert(root, file, last.bytes.1, lines)?;
        }
        Some(PyParams::Dict) | None => {
            let last = schema.params.last().map(|p| &p.entry);
            let (at, new) = append_entry(&text, &schema.object, last, &entries.join(", "));
            e.insert(root, file, at, new)?;
            return Ok(());
        }
    }
    ensure_field_import(e, root, file, &text)
}

/// `from pydantic import Field` at the top of the module when nothing imports `Field` yet.
fn ensure_field_import(
    e: &mut Edits,
    root: &Path,
    file: &str,
    text: &str,
) -> Result<(), MutateError> {
    ensure_import(e, root, file, text, "pydantic", "Field")
}

/// `from MODULE import NAME` after the module's imports when no line imports `NAME` from it yet.
fn ensure_import(
    e: &mut Edits,
    root: &Path,
    file: &str,
    text: &str,
    module: &str,
    name: &str,
) -> Result<(), MutateError> {
    let imported = text.lines().any(|l| {
        let l = l.trim_start();
        l.starts_with(&format!("from {module}"))
            && l.contains(" import ")
            && l.split(|c: char| !c.is_alphanumeric() && c != '_')
                .any(|w| w == name)
    });
    if imported {
        return Ok(());
    }
    let tree = parse(text)?;
    let root_node = tree.root_node();
    let mut cursor = root_node.walk();
    let mut at = 0;
    for (i, child) in root_node.named_children(&mut cursor).enumerate() {
        match child.kind() {
            "import_statement" | "import_from_statement" | "future_import_statement" => {
                at = child.end_byte()
            }
            // The module docstring stays first.
            "expression_statement"
                if i == 0 && child.named_child(0).is_some_and(|s| s.kind() == "string") =>
            {
                at = child.end_byte()
            }
            "comment" => {}
            _ => break,
        }
    }
    let line = if at == 0 {
        format!("from {module} import {name}\n")
    } else {
        format!("\nfrom {module} import {name}")
    };
    e.insert(root, file, at, line)
}

/// A JSON-schema entry first inside a property dict: `"maxLength": 500,`.
pub fn property_entry(key_value: &str) -> String {
    match key_value.split_once(": ") {
        Some((k, v)) => format!(" {}: {v},", string(k)),
        None => format!(" {key_value},"),
    }
}

/// A keyword written into a parameter's or field's `Field(...)`, or a `Field(...)` made for it:
/// `city: str` becomes `city: str = Field(description="...")`, `days: int = 1` becomes
/// `days: int = Field(1, description="...")`.
pub fn field_keyword(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    keyword: &str,
    value: &str,
    operator: Builtin,
) -> Result<(), MutateError> {
    let file = &site.entry.file;
    let text = e.text(root, file)?.to_string();
    let tree = parse(&text)?;
    let entry = node_at(&tree, &site.entry)
        .ok_or_else(|| not_applicable(operator, format!("`{}` was not found", site.name)))?;
    let arg = format!("{keyword}={value}");
    if let Some(field) = find_field_call(entry, &text) {
        let args = field
            .child_by_field_name("arguments")
            .ok_or_else(|| not_applicable(operator, "a Field call without arguments"))?;
        let mut cursor = args.walk();
        let existing = args.named_children(&mut cursor).find(|a| {
            a.kind() == "keyword_argument"
                && a.child_by_field_name("name")
                    .is_some_and(|n| &text[n.byte_range()] == keyword)
        });
        if let Some(existing) = existing.and_then(|a| a.child_by_field_name("value")) {
            return e.replace(root, &span_of(file, existing), value.to_string());
        }
        let close = args.end_byte() - 1;
        let before = text[args.start_byte()..close].trim_end();
        let sep = if before.ends_with('(') || before.ends_with(',') {
            ""
        } else {
            ", "
        };
        return e.insert(
            root,
            file,
            args.start_byte() + before.len(),
            format!("{sep}{arg}"),
        );
    }
    // No Field yet: the entry's default (if any) becomes Field's first argument.
    let (default, ty) = entry_parts(entry);
    match (default, ty) {
        (Some(d), Some(_)) => {
            let old = &text[d.byte_range()];
            e.replace(root, &span_of(file, d), format!("Field({old}, {arg})"))?
        }
        // Annotated already (`Annotated[str, "The text"]`): the Field joins its metadata, so
        // that an edit of the text inside it stays apart from this one.
        (None, Some(t))
            if entry.kind() == "typed_parameter"
                && text[t.byte_range()].starts_with("Annotated[")
                && text[t.byte_range()].ends_with(']') =>
        {
            e.insert(root, file, t.end_byte() - 1, format!(", Field({arg})"))?
        }
        // A parameter without a default keeps none (one after it may have none either).
        (None, Some(t)) if entry.kind() == "typed_parameter" => {
            let old = &text[t.byte_range()];
            e.replace(
                root,
                &span_of(file, t),
                format!("Annotated[{old}, Field({arg})]"),
            )?;
            ensure_import(e, root, file, &text, "typing", "Annotated")?;
        }
        (None, Some(t)) => e.insert(root, file, t.end_byte(), format!(" = Field({arg})"))?,
        _ => {
            return Err(not_applicable(
                operator,
                format!(
                    "`{}` has no type annotation to attach a Field to",
                    site.name
                ),
            ));
        }
    }
    ensure_field_import(e, root, file, &text)
}

/// The default value and type annotation of a parameter or annotated field.
fn entry_parts(entry: Node) -> (Option<Node>, Option<Node>) {
    match entry.kind() {
        "typed_default_parameter" => (
            entry.child_by_field_name("value"),
            entry.child_by_field_name("type"),
        ),
        "typed_parameter" => (None, entry.child_by_field_name("type")),
        "default_parameter" => (entry.child_by_field_name("value"), None),
        "expression_statement" => match entry.named_child(0).filter(|a| a.kind() == "assignment") {
            Some(a) => (
                a.child_by_field_name("right"),
                a.child_by_field_name("type"),
            ),
            None => (None, None),
        },
        _ => (None, None),
    }
}

fn find_field_call<'t>(node: Node<'t>, text: &str) -> Option<Node<'t>> {
    if node.kind() == "call"
        && node.child_by_field_name("function").is_some_and(|f| {
            let callee = &text[f.byte_range()];
            callee == "Field" || callee.ends_with(".Field")
        })
    {
        return Some(node);
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(|c| find_field_call(c, text))
}

fn span_of(file: &str, node: Node) -> Span {
    Span {
        file: file.to_string(),
        start_line: node.start_position().row + 1,
        end_line: node.end_position().row + 1,
        bytes: (node.start_byte(), node.end_byte()),
    }
}

/// The pydantic keyword of a bound: `max_length`, `le`.
pub fn bound_keyword(bound: Bound) -> (&'static str, u32) {
    match bound {
        Bound::MaxLength(n) | Bound::MaxItems(n) => ("max_length", n),
        Bound::Maximum(n) => ("le", n),
    }
}

/// Whether optional parameters of this schema can be pruned: one in a JSON schema dict (the
/// handler reads the arguments it is given), or one of a signature, whose default the body then
/// gets as a local. A model's field may be read by the handler as an attribute: not prunable.
pub fn prunable(schema: &SchemaSite) -> bool {
    schema.python != Some(PyParams::Model)
}

/// The value a parameter's default gives: the expression, or what its `Field(...)` says
/// (`default=`, the first positional argument, or `default_factory=f` called).
fn default_value(default: Node, text: &str) -> Option<String> {
    let Some(field) = find_field_call(default, text).filter(|f| f.id() == default.id()) else {
        return Some(text[default.byte_range()].to_string());
    };
    let args = field.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let children: Vec<Node> = args.named_children(&mut cursor).collect();
    let keyword = |k: &str| {
        children.iter().find_map(|a| {
            (a.kind() == "keyword_argument"
                && a.child_by_field_name("name")
                    .is_some_and(|n| &text[n.byte_range()] == k))
            .then(|| a.child_by_field_name("value"))
            .flatten()
        })
    };
    if let Some(d) = keyword("default") {
        return Some(text[d.byte_range()].to_string());
    }
    if let Some(f) = keyword("default_factory") {
        return Some(format!("({})()", &text[f.byte_range()]));
    }
    children
        .iter()
        .find(|a| a.kind() != "keyword_argument")
        .map(|a| text[a.byte_range()].to_string())
        .filter(|d| d != "...")
}

/// Removes a signature parameter and binds its default at the top of the body, so that the
/// body reads the same value as when a caller left it out.
pub fn prune_signature_param(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
) -> Result<(), MutateError> {
    let file = &site.entry.file;
    let text = e.text(root, file)?.to_string();
    let tree = parse(&text)?;
    let entry = node_at(&tree, &site.entry).ok_or_else(|| {
        not_applicable(
            Builtin::ParameterPruning,
            format!("`{}` was not found", site.name),
        )
    })?;
    let (default, _) = entry_parts(entry);
    let default = default
        .and_then(|d| default_value(d, &text))
        .ok_or_else(|| not_applicable(Builtin::ParameterPruning, "no default to keep"))?;
    let function = std::iter::successors(entry.parent(), |n| n.parent())
        .find(|n| n.kind() == "function_definition")
        .ok_or_else(|| not_applicable(Builtin::ParameterPruning, "its function was not found"))?;
    let body = function
        .child_by_field_name("body")
        .ok_or_else(|| not_applicable(Builtin::ParameterPruning, "its function has no body"))?;
    let mut cursor = body.walk();
    let statements: Vec<Node> = body
        .named_children(&mut cursor)
        .filter(|c| c.kind() != "comment")
        .collect();
    let first = statements
        .first()
        .ok_or_else(|| not_applicable(Builtin::ParameterPruning, "an empty body"))?;
    let is_doc = first.kind() == "expression_statement"
        && first.named_child(0).is_some_and(|s| s.kind() == "string");
    let indent = indent_at(&text, first.start_byte()).to_string();
    let binding = format!("{} = {default}", site.name);
    let (start, end) = item_range(&text, &site.entry);
    e.replace(
        root,
        &Span {
            bytes: (start, end),
            ..site.entry.clone()
        },
        "",
    )?;
    if is_doc {
        e.insert(root, file, first.end_byte(), format!("\n{indent}{binding}"))
    } else {
        e.insert(
            root,
            file,
            first.start_byte(),
            format!("{binding}\n{indent}"),
        )
    }
}

/// Takes a removed tool's route out: its `case` clause, its `elif` branch, or the condition of
/// its `if` (made `False` when other branches follow, the `if` turned into the next `elif`'s).
// Long: one arm per route kind (`case`, `elif`, `if` with or without branches after it).
pub fn unroute(
    e: &mut Edits,
    root: &Path,
    site: &Span,
    label: &Span,
    kind: mcpevol_core::inventory::RouteKind,
) -> Result<(), MutateError> {
    use mcpevol_core::inventory::RouteKind;
    let text = e.text(root, &site.file)?.to_string();
    let tree = parse(&text)?;
    let node = node_at(&tree, site)
        .ok_or_else(|| not_applicable(Builtin::ToolRemoval, "its route was not found"))?;
    match kind {
        RouteKind::MapEntry => {
            let (a, b) = item_range(&text, site);
            e.replace(
                root,
                &Span {
                    bytes: (a, b),
                    ..site.clone()
                },
                "",
            )
        }
        RouteKind::Case => {
            let clause = std::iter::successors(Some(node), |n| n.parent())
                .find(|n| n.kind() == "case_clause")
                .ok_or_else(|| {
                    not_applicable(Builtin::ToolRemoval, "its case clause was not found")
                })?;
            let mut cursor = clause.walk();
            let alternatives = clause
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "case_pattern")
                .flat_map(|p| {
                    let mut c = p.walk();
                    let inner: Vec<Node> = p.named_children(&mut c).collect();
                    inner
                })
                .map(|p| {
                    if p.kind() == "union_pattern" {
                        p.named_child_count()
                    } else {
                        1
                    }
                })
                .sum::<usize>();
            if alternatives > 1 {
                // `case A | B:` loses only this alternative.
                let before = text[..label.bytes.0].trim_end();
                if let Some(stripped) = before.strip_suffix('|') {
                    return e.replace(
                        root,
                        &Span {
                            bytes: (stripped.trim_end().len(), label.bytes.1),
                            ..label.clone()
                        },
                        "",
                    );
                }
                let after = &text[label.bytes.1..];
                let gap = after.len() - after.trim_start().len();
                let rest = after.trim_start();
                if let Some(rest2) = rest.strip_prefix('|') {
                    let gap2 = rest2.len() - rest2.trim_start().len();
                    return e.replace(
                        root,
                        &Span {
                            bytes: (label.bytes.0, label.bytes.1 + gap + 1 + gap2),
                            ..label.clone()
                        },
                        "",
                    );
                }
            }
            let (a, b) = statement_range(&text, &span_of(&site.file, clause));
            e.replace(
                root,
                &Span {
                    bytes: (a, b),
                    ..site.clone()
                },
                "",
            )
        }
        RouteKind::Compare => {
            let mut cond = node;
            while cond
                .parent()
                .is_some_and(|p| p.kind() == "parenthesized_expression")
            {
                cond = cond.parent().expect("checked");
            }
            let parent = cond
                .parent()
                .ok_or_else(|| not_applicable(Builtin::ToolRemoval, "a comparison alone"))?;
            let is_condition =
                parent.child_by_field_name("condition").map(|c| c.id()) == Some(cond.id());
            match parent.kind() {
                "elif_clause" if is_condition => {
                    let (a, b) = statement_range(&text, &span_of(&site.file, parent));
                    e.replace(
                        root,
                        &Span {
                            bytes: (a, b),
                            ..site.clone()
                        },
                        "",
                    )
                }
                "if_statement" if is_condition => {
                    let alternative = parent.child_by_field_name("alternative");
                    match alternative.filter(|a| a.kind() == "elif_clause") {
                        // `if A: ... elif B:` becomes `if B:`.
                        Some(elif) => e.replace(
                            root,
                            &Span {
                                bytes: (parent.start_byte(), elif.start_byte() + "elif".len()),
                                ..site.clone()
                            },
                            "if",
                        ),
                        None => e.replace(root, site, "False"),
                    }
                }
                _ => e.replace(root, site, "False"),
            }
        }
    }
}

/// The decorator copy that registers an alias of a decorated function:
/// `@mcp.tool(name="x_alias", description="...")` above the original decorator.
pub fn alias_registration(region: &str, new: &str, description: &str) -> Option<String> {
    let without = strip_keywords(region, &["name", "description"])?;
    let with_description = keyword_insertion(&without, "description", &string(description))
        .map(|(at, ins)| format!("{}{ins}{}", &without[..at], &without[at..]))?;
    let (at, ins) = keyword_insertion(&with_description, "name", &string(new))?;
    Some(format!(
        "{}{ins}{}",
        &with_description[..at],
        &with_description[at..]
    ))
}

/// A registration's text without the given keyword arguments (top-level ones of its call),
/// written on one line: `@mcp.tool(title="T")` from `@mcp.tool(name="x", title="T")`.
fn strip_keywords(region: &str, keywords: &[&str]) -> Option<String> {
    let code = region.strip_prefix('@').unwrap_or(region);
    let tree = mcpevol_anchor::parse(code, Lang::Python)?;
    let Some(call) = first_call(tree.root_node()) else {
        // `@mcp.tool` without parentheses has no arguments to strip.
        return Some(region.trim_end().to_string());
    };
    let function = call.child_by_field_name("function")?;
    let args = call.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let kept: Vec<&str> = args
        .named_children(&mut cursor)
        .filter(|a| a.kind() != "comment")
        .filter(|a| {
            a.kind() != "keyword_argument"
                || a.child_by_field_name("name")
                    .is_none_or(|n| !keywords.contains(&&code[n.byte_range()]))
        })
        .map(|a| &code[a.byte_range()])
        .collect();
    let rebuilt = format!("{}({})", &code[function.byte_range()], kept.join(", "));
    Some(if region.starts_with('@') {
        format!("@{rebuilt}")
    } else {
        rebuilt
    })
}

fn first_call(node: Node) -> Option<Node> {
    if node.kind() == "call" {
        return Some(node);
    }
    if node.kind() == "attribute" || node.kind() == "identifier" {
        return None;
    }
    let mut cursor = node.walk();
    let children: Vec<Node> = node.named_children(&mut cursor).collect();
    children.into_iter().find_map(first_call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_is_written_into_a_decorator_or_call_however_it_is_spelled() {
        let at = |region: &str| {
            let (i, ins) = keyword_insertion(region, "name", "\"x\"").unwrap();
            format!("{}{ins}{}", &region[..i], &region[i..])
        };
        assert_eq!(at("@mcp.tool()"), "@mcp.tool(name=\"x\")");
        assert_eq!(at("@mcp.tool"), "@mcp.tool(name=\"x\")");
        assert_eq!(
            at("@mcp.tool(description=\"d\")"),
            "@mcp.tool(name=\"x\", description=\"d\")"
        );
        assert_eq!(at("mcp.add_tool(f)"), "mcp.add_tool(f, name=\"x\")");
    }

    #[test]
    fn an_alias_decorator_names_and_describes_itself() {
        assert_eq!(
            alias_registration(
                "@mcp.tool(name=\"shout\", description=\"Old\")",
                "shout_alias",
                "Alias"
            )
            .unwrap(),
            "@mcp.tool(name=\"shout_alias\", description=\"Alias\")"
        );
        assert_eq!(
            alias_registration("@mcp.tool()", "f_v1", "Alias").unwrap(),
            "@mcp.tool(name=\"f_v1\", description=\"Alias\")"
        );
        assert_eq!(
            alias_registration("@mcp.tool", "f_v1", "Alias").unwrap(),
            "@mcp.tool(name=\"f_v1\", description=\"Alias\")"
        );
        assert_eq!(
            alias_registration(
                "@server.tool(\n    name=T.X.value,\n    description=\"d\",\n    annotations=RO,\n)",
                "x_alias",
                "Alias"
            )
            .unwrap(),
            "@server.tool(name=\"x_alias\", description=\"Alias\", annotations=RO)"
        );
        assert_eq!(
            alias_registration("mcp.add_tool(f, name=\"a\")", "a_v1", "Alias").unwrap(),
            "mcp.add_tool(f, description=\"Alias\", name=\"a_v1\")"
        );
    }
}
