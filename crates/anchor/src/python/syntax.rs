//! Small readings of Python syntax nodes: string values (escapes, implicit concatenation,
//! f-strings without substitutions), dotted names, docstrings, keyword arguments.

use tree_sitter::Node;

use crate::syntax::{Expr, text};

/// Looks through parentheses.
pub fn unwrap(mut node: Node) -> Node {
    while node.kind() == "parenthesized_expression" {
        match node.named_child(0) {
            Some(inner) => node = inner,
            None => break,
        }
    }
    node
}

/// The value of a string literal or an implicit concatenation of them; None for an f-string
/// with substitutions or bytes.
pub fn string_value(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "string" => {
            let mut cursor = node.walk();
            let children: Vec<Node> = node.named_children(&mut cursor).collect();
            if children.iter().any(|c| c.kind() == "interpolation") {
                return None;
            }
            let start = children.iter().find(|c| c.kind() == "string_start")?;
            let prefix = text(*start, src).to_ascii_lowercase();
            if prefix.contains('b') {
                return None;
            }
            let end = children
                .iter()
                .find(|c| c.kind() == "string_end")
                .map_or(node.end_byte(), |e| e.start_byte());
            let inner = src.get(start.end_byte()..end.max(start.end_byte()))?;
            Some(if prefix.contains('r') {
                inner.to_string()
            } else {
                unescape(inner)
            })
        }
        "concatenated_string" => {
            let mut cursor = node.walk();
            let parts: Option<Vec<String>> = node
                .named_children(&mut cursor)
                .map(|c| string_value(c, src))
                .collect();
            parts.map(|p| p.concat())
        }
        _ => None,
    }
}

/// Resolves Python's common escapes; others are kept as written.
fn unescape(s: &str) -> String {
    if !s.contains('\\') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some('t') => out.push('\t'),
            Some('r') => out.push('\r'),
            Some('\n') => {}
            Some(q @ ('\\' | '\'' | '"')) => out.push(q),
            Some(x @ ('x' | 'u' | 'U')) => {
                let width = match x {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex: String = (0..width).filter_map(|_| chars.next()).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push('\\');
                        out.push(x);
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => {
                out.push('\\');
                out.push(other);
            }
            None => out.push('\\'),
        }
    }
    out
}

/// A dotted name: `NAME`, `ToolNames.ECHO`, `self.server`; an enum member's `.value` is the
/// member itself (`TimeTools.GET_CURRENT_TIME.value` is `TimeTools.GET_CURRENT_TIME`).
pub fn path(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    let p = match node.kind() {
        "identifier" => text(node, src).to_string(),
        "attribute" => {
            let object = path(node.child_by_field_name("object")?, src)?;
            let attribute = node.child_by_field_name("attribute")?;
            format!("{object}.{}", text(attribute, src))
        }
        "dotted_name" => text(node, src).split_whitespace().collect(),
        _ => return None,
    };
    Some(p.strip_suffix(".value").map_or(p.clone(), str::to_string))
}

pub fn expr(node: Node, src: &str) -> Expr {
    if let Some(s) = string_value(node, src) {
        Expr::Str(s)
    } else if let Some(p) = path(node, src) {
        Expr::Path(p)
    } else {
        Expr::Unknown
    }
}

/// The keyword arguments of an argument list, by name, and its positional arguments.
pub fn arguments<'t>(args: Node<'t>, src: &str) -> (Vec<(String, Node<'t>)>, Vec<Node<'t>>) {
    let mut keywords = Vec::new();
    let mut positional = Vec::new();
    let mut cursor = args.walk();
    for child in args.named_children(&mut cursor) {
        match child.kind() {
            "keyword_argument" => {
                if let (Some(k), Some(v)) = (
                    child.child_by_field_name("name"),
                    child.child_by_field_name("value"),
                ) {
                    keywords.push((text(k, src).to_string(), v));
                }
            }
            "comment" | "list_splat" | "dictionary_splat" => {}
            _ => positional.push(child),
        }
    }
    (keywords, positional)
}

pub fn keyword<'t>(keywords: &[(String, Node<'t>)], name: &str) -> Option<Node<'t>> {
    keywords.iter().find(|(k, _)| k == name).map(|(_, v)| *v)
}

/// The docstring of a function or class body: its string node and its text, cleaned as
/// `inspect.cleandoc` does.
pub fn docstring<'t>(body: Node<'t>, src: &str) -> Option<(Node<'t>, String)> {
    let mut cursor = body.walk();
    let first = body
        .named_children(&mut cursor)
        .find(|c| c.kind() != "comment")?;
    if first.kind() != "expression_statement" {
        return None;
    }
    let string = first.named_child(0)?;
    if !matches!(string.kind(), "string" | "concatenated_string") {
        return None;
    }
    let value = string_value(string, src)?;
    Some((string, cleandoc(&value)))
}

/// `inspect.cleandoc`: the first line stripped, the common indentation of the others removed,
/// blank lines at both ends dropped.
pub fn cleandoc(doc: &str) -> String {
    let lines: Vec<&str> = doc.lines().collect();
    let indent = lines
        .iter()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let mut out: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                l.trim().to_string()
            } else {
                l.get(indent..).unwrap_or("").trim_end().to_string()
            }
        })
        .collect();
    while out.first().is_some_and(|l| l.is_empty()) {
        out.remove(0);
    }
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out.join("\n")
}

/// Whether a match subject or comparison operand reads like the requested tool's name.
pub fn names_a_tool(subject: &str) -> bool {
    let s = subject.to_ascii_lowercase();
    s.contains("name") || s.contains("tool")
}

/// The last segment of a dotted callee (`types.Tool` gives `Tool`).
pub fn last_segment(callee: &str) -> &str {
    callee.rsplit('.').next().unwrap_or(callee)
}

/// A Python description as a site mutators can edit. A plain one-line string literal (no prefix,
/// not triple-quoted: its escapes are a JavaScript string's) is a `Literal`; a name is a constant
/// (linking resolves it); other strings (docstrings, triple-quoted, prefixed) are read but
/// opaque, as the rules do not yet rewrite them in their own form.
pub fn description_site(
    node: Node,
    src: &str,
    rel: &str,
) -> mcpevol_core::inventory::DescriptionSite {
    use mcpevol_core::inventory::{DescriptionForm, DescriptionSite};
    let node = unwrap(node);
    let span = crate::syntax::span(node, rel);
    let raw = text(node, src);
    if let Some(value) = string_value(node, src) {
        let plain = (raw.starts_with('"') || raw.starts_with('\''))
            && !raw.starts_with("\"\"\"")
            && !raw.starts_with("\'\'\'")
            && !raw.contains('\n');
        let form = if plain && node.kind() == "string" {
            DescriptionForm::Literal
        } else {
            DescriptionForm::Opaque(
                "its Python description is not a plain one-line string, which the rules do not rewrite",
            )
        };
        return DescriptionSite {
            span,
            form,
            text: Some(value),
        };
    }
    match expr(node, src) {
        Expr::Path(name) => DescriptionSite {
            span,
            form: DescriptionForm::Constant {
                name,
                declared_at: None,
                shared: false,
            },
            text: None,
        },
        _ => DescriptionSite {
            span,
            form: DescriptionForm::Opaque(
                "its description is an expression anchoring does not read",
            ),
            text: None,
        },
    }
}

/// A docstring as a description site: read (as Python shows it, cleaned), never rewritten.
pub fn docstring_site(
    node: Node,
    cleaned: &str,
    rel: &str,
) -> mcpevol_core::inventory::DescriptionSite {
    mcpevol_core::inventory::DescriptionSite {
        span: crate::syntax::span(node, rel),
        form: if node.kind() == "string" {
            mcpevol_core::inventory::DescriptionForm::Docstring
        } else {
            mcpevol_core::inventory::DescriptionForm::Opaque(
                "its description is a docstring of joined strings, which the rules do not rewrite",
            )
        },
        text: Some(cleaned.to_string()),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn first_string(src: &str) -> Option<String> {
        let tree = crate::parse(src, crate::grammar::Lang::Python).unwrap();
        let mut stack = vec![tree.root_node()];
        while let Some(n) = stack.pop() {
            if matches!(n.kind(), "string" | "concatenated_string") {
                return string_value(n, src);
            }
            let mut c = n.walk();
            let children: Vec<Node> = n.children(&mut c).collect();
            stack.extend(children.into_iter().rev());
        }
        panic!("no string in {src}")
    }

    #[test]
    fn python_strings_are_read_with_escapes_prefixes_and_concatenation() {
        assert_eq!(first_string(r#"x = "a\nb""#).as_deref(), Some("a\nb"));
        assert_eq!(first_string(r#"x = r"a\nb""#).as_deref(), Some("a\\nb"));
        assert_eq!(first_string("x = ('a' \"b\")").as_deref(), Some("ab"));
        assert_eq!(first_string("x = f\"a{b}\"").as_deref(), None);
        assert_eq!(first_string("x = f\"plain\"").as_deref(), Some("plain"));
        assert_eq!(
            first_string("x = '''multi\nline'''").as_deref(),
            Some("multi\nline")
        );
        assert_eq!(first_string(r#"x = "\u00e9\x41""#).as_deref(), Some("éA"));
    }

    #[test]
    fn docstrings_are_cleaned_like_inspect_cleandoc() {
        assert_eq!(
            cleandoc("Get the time.\n\n        Args:\n            tz: zone\n    "),
            "Get the time.\n\nArgs:\n    tz: zone"
        );
    }
}
