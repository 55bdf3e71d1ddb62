//! Small readings of syntax nodes: literal strings, dotted names, spans, wrappers to look through.

use tree_sitter::Node;

use mcpevol_core::inventory::Span;

/// A value read statically from the source: a literal string, a name that may hold one
/// (`ECHO`, `ToolName.ECHO`), or something we cannot read without running the code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Expr {
    Str(String),
    Path(String),
    Unknown,
}

/// The source text of `node`: the whole characters it touches where a tree reparsed from edits
/// ends a node inside one (tree-sitter counts bytes), never a panic.
pub fn text<'a>(node: Node, src: &'a str) -> &'a str {
    let range = node.byte_range();
    src.get(range.clone()).unwrap_or_else(|| {
        let start = src.floor_char_boundary(range.start.min(src.len()));
        let end = src.ceil_char_boundary(range.end.min(src.len()));
        &src[start..end.max(start)]
    })
}

pub fn span(node: Node, file: &str) -> Span {
    Span {
        file: file.to_string(),
        start_line: node.start_position().row + 1,
        end_line: node.end_position().row + 1,
        bytes: (node.start_byte(), node.end_byte()),
    }
}

/// Looks through wrappers that do not change a value: parentheses, `as const`, `satisfies T`, `x!`.
pub fn unwrap(mut node: Node) -> Node {
    loop {
        let inner = match node.kind() {
            "parenthesized_expression"
            | "as_expression"
            | "satisfies_expression"
            | "non_null_expression"
            | "type_assertion" => node.named_child(0),
            _ => None,
        };
        match inner {
            Some(n) => node = n,
            None => return node,
        }
    }
}

/// The value of a string literal, a template without substitutions, or a `+` of those.
pub fn string_value(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "string" => Some(super::literal::decode(text(node, src)).value),
        "template_string" => {
            let mut cursor = node.walk();
            if node
                .named_children(&mut cursor)
                .any(|c| c.kind() == "template_substitution")
            {
                return None;
            }
            Some(super::literal::decode(text(node, src)).value)
        }
        "binary_expression"
            if node.child_by_field_name("operator").map(|o| o.kind()) == Some("+") =>
        {
            let left = string_value(node.child_by_field_name("left")?, src)?;
            let right = string_value(node.child_by_field_name("right")?, src)?;
            Some(left + &right)
        }
        _ => None,
    }
}

/// A dotted name for an identifier or member chain: `ECHO`, `ToolName.ECHO`, `X["a"]` as `X.a`.
pub fn path(node: Node, src: &str) -> Option<String> {
    let node = unwrap(node);
    match node.kind() {
        "identifier" | "property_identifier" | "this" | "shorthand_property_identifier" => {
            Some(text(node, src).to_string())
        }
        "member_expression" => {
            let object = path(node.child_by_field_name("object")?, src)?;
            let property = node.child_by_field_name("property")?;
            Some(format!("{object}.{}", text(property, src)))
        }
        "subscript_expression" => {
            let object = path(node.child_by_field_name("object")?, src)?;
            let index = string_value(node.child_by_field_name("index")?, src)?;
            Some(format!("{object}.{index}"))
        }
        _ => None,
    }
}

/// The literal a name falls back to (`toolName || "web_search"`, `name ?? "web_search"`): a
/// helper that lets its caller rename the tool registers it under that literal by default.
pub fn or_default<'t>(node: Node<'t>, src: &str) -> Node<'t> {
    let fallback = Some(unwrap(node))
        .filter(|n| n.kind() == "binary_expression")
        .filter(|n| {
            n.child_by_field_name("operator")
                .is_some_and(|o| matches!(text(o, src), "||" | "??"))
        })
        .and_then(|n| n.child_by_field_name("right"))
        .filter(|r| string_value(*r, src).is_some());
    fallback.unwrap_or(node)
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

/// The key of an object pair as written: `name`, `"name"`, or a computed `[ToolName.ECHO]`.
pub fn key_expr(key: Node, src: &str) -> Expr {
    match key.kind() {
        "property_identifier" | "shorthand_property_identifier" | "private_property_identifier" => {
            Expr::Str(text(key, src).to_string())
        }
        "computed_property_name" => key.named_child(0).map_or(Expr::Unknown, |n| expr(n, src)),
        "number" => Expr::Str(text(key, src).to_string()),
        _ => expr(key, src),
    }
}

/// A plain key's text (`name`, `"name"`), for matching keys such as `inputSchema`.
pub fn key_name(key: Node, src: &str) -> Option<String> {
    match key_expr(key, src) {
        Expr::Str(s) => Some(s),
        _ => None,
    }
}

pub fn is_function(node: Node) -> bool {
    matches!(
        unwrap(node).kind(),
        "arrow_function" | "function_expression" | "function" | "generator_function"
    )
}

/// The entries of an object literal: `(key, value node, whole entry node)`. Shorthand
/// properties and methods count too, with the entry itself standing for the value.
pub fn object_entries<'t>(object: Node<'t>, src: &str) -> Vec<(String, Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    let mut cursor = object.walk();
    for child in object.named_children(&mut cursor) {
        match child.kind() {
            "pair" => {
                if let (Some(k), Some(v)) = (
                    child.child_by_field_name("key"),
                    child.child_by_field_name("value"),
                ) && let Some(name) = key_name(k, src)
                {
                    out.push((name, v, child));
                }
            }
            "shorthand_property_identifier" => {
                out.push((text(child, src).to_string(), child, child))
            }
            "method_definition" => {
                if let Some(name) = child
                    .child_by_field_name("name")
                    .and_then(|k| key_name(k, src))
                {
                    out.push((name, child, child));
                }
            }
            _ => {}
        }
    }
    out
}

/// The arguments of a call, without the parentheses and commas.
pub fn arguments<'t>(args: Node<'t>) -> Vec<Node<'t>> {
    let mut cursor = args.walk();
    args.named_children(&mut cursor)
        .filter(|n| n.kind() != "comment")
        .collect()
}

/// Whether a resolved name could be a tool's: not empty, one line, and none of the characters
/// of a pattern or code (a minified `e` may resolve to a regular expression's text elsewhere
/// in a bundle, `"[0-5]\\d"`). MCP names are letters, digits, `_`, `-`, `.` and `/`.
pub fn could_name_a_tool(name: &str) -> bool {
    !name.trim().is_empty()
        && name.len() <= 128
        && !name
            .chars()
            .any(|c| c.is_control() || "[](){}<>\\^$*+?|\"'`,;=".contains(c))
}

/// The object a call is given as its only argument (`ToolSchema.parse({ ... })`), if it is.
pub fn only_object_argument(call: Node) -> Option<Node> {
    let args = call.child_by_field_name("arguments")?;
    match arguments(args).as_slice() {
        [one] if unwrap(*one).kind() == "object" => Some(unwrap(*one)),
        _ => None,
    }
}

/// A member of a definition reached through a namespace import (`tools.PdfTool.name` through
/// `import * as tools`), without the namespace: unread, a switch routing on such names linked
/// no tool to its case.
pub fn namespaced(path: &str) -> Option<&str> {
    let (_, rest) = path.split_once('.')?;
    rest.contains('.').then_some(rest)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{grammar::Lang, parse, read_source};

    /// Sources whose string literals are cut off in or right after a multi-byte character.
    const UNTERMINATED: [&str; 4] = [
        "server.tool(\"é\n, {}, async () => {});",
        "const ToolName = { ECHO: \"ech€\n};",
        "server.registerTool('😀\n, { description: 'x' }, async () => ({}));",
        "server.tool(`é",
    ];

    /// Every string literal of `src` with its value.
    fn strings(src: &str, lang: Lang) -> Vec<(String, Option<String>)> {
        let tree = parse(src, lang).unwrap();
        let mut out = Vec::new();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if matches!(node.kind(), "string" | "template_string") {
                out.push((text(node, src).to_string(), string_value(node, src)));
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        out
    }

    #[test]
    fn names_with_the_characters_of_a_pattern_or_code_are_no_tool_names() {
        assert!(could_name_a_tool("get_weather"));
        assert!(could_name_a_tool("resolve-library-id"));
        assert!(could_name_a_tool("github.search/issues"));
        for bad in ["", "[0-5]\\d", "a(b)", "x = 1", "two\nlines", "^start$"] {
            assert!(!could_name_a_tool(bad), "{bad:?}");
        }
    }

    #[test]
    fn an_unterminated_string_ending_in_a_multibyte_character_keeps_what_follows_its_quote() {
        let found = strings(UNTERMINATED[0], Lang::JavaScript);
        assert_eq!(found, [("\"é".to_string(), Some("é".to_string()))]);
        for src in UNTERMINATED {
            for lang in Lang::ALL {
                for (literal, value) in strings(src, lang) {
                    let value = value.unwrap_or_default();
                    let after_quote: String = literal.chars().skip(1).collect();
                    assert!(
                        after_quote.starts_with(&value),
                        "{literal:?} read as {value:?}"
                    );
                }
            }
        }
    }

    /// Found reading the code (`&s[1..s.len()-1]` cut a character in two) and kept as the
    /// `anchor_source` fuzz target's seeds.
    #[test]
    fn anchoring_a_file_with_an_unterminated_multibyte_string_warns_and_does_not_panic() {
        for src in UNTERMINATED {
            for lang in Lang::ALL {
                let facts = read_source("a.js", lang, src.as_bytes().to_vec());
                assert!(
                    facts.warnings.iter().any(|w| w.contains("syntax error")),
                    "{src:?} {lang:?}: {:?}",
                    facts.warnings
                );
            }
        }
    }

    #[test]
    fn a_node_read_against_a_text_it_ends_inside_a_character_of_gives_the_whole_character() {
        // A tree whose string literal ends at byte 10, read against a text two bytes longer in
        // front: byte 10 falls inside the two bytes of its no-break space.
        let parsed = "x = 'ab\u{a0}';";
        let tree = crate::parse(parsed, crate::grammar::Lang::JavaScript).unwrap();
        let string = tree
            .root_node()
            .descendant_for_byte_range(5, 6)
            .and_then(|n| n.parent())
            .filter(|n| n.kind() == "string")
            .expect("the string literal");
        let shifted = "xxx = 'ab\u{a0}';";
        assert!(!shifted.is_char_boundary(string.end_byte()));
        assert_eq!(text(string, shifted), "= 'ab\u{a0}");
    }
}
