//! Taking a removed tool out of the JavaScript code that routes calls to it: its `case`
//! clause, its `if` branch, its handler-map entry. A branch left behind would still answer the
//! old name. (Python's routing is taken out by `python/`; the file's dialect chooses.)

use std::path::Path;

use tree_sitter::Node;

use super::MutateError;
use super::splice::{Edits, item_range, statement_range};
use mcpevol_anchor::grammar::Lang;
use mcpevol_core::inventory::{Route, RouteKind, Span};

/// Takes the JavaScript routing site `d` out: its handler-map entry, its `case` clause, its
/// `if` branch.
pub(super) fn remove_js_route(e: &mut Edits, root: &Path, d: &Route) -> Result<(), MutateError> {
    let text = e.text(root, &d.site.file)?.to_string();
    let (start, end, with) = match d.kind {
        RouteKind::MapEntry => {
            let (a, b) = item_range(&text, &d.site);
            (a, b, String::new())
        }
        RouteKind::Case => case_cut(root, &text, &d.site, &d.label)?,
        RouteKind::Compare => branch_cut(root, &text, &d.site)?,
    };
    e.replace(
        root,
        &Span {
            bytes: (start, end),
            ..d.site.clone()
        },
        with,
    )
}

fn node_at<'t>(tree: &'t tree_sitter::Tree, span: &Span) -> Option<Node<'t>> {
    tree.root_node()
        .descendant_for_byte_range(span.bytes.0, span.bytes.1)
}

fn tree(root: &Path, text: &str, span: &Span) -> Result<tree_sitter::Tree, MutateError> {
    let lang = Lang::for_path(&root.join(&span.file))
        .ok_or_else(|| not_applicable("its routing is not in a JavaScript or TypeScript file"))?;
    mcpevol_anchor::parse(text, lang)
        .ok_or_else(|| not_applicable("its routing file does not parse"))
}

fn not_applicable(why: &str) -> MutateError {
    MutateError::NotApplicable {
        operator: mcpevol_core::operators::Builtin::ToolRemoval.into(),
        why: why.into(),
    }
}

/// A `case "name":` clause: the whole clause, or only its label when earlier labels fall
/// through into its statements (they keep them).
fn case_cut(
    root: &Path,
    text: &str,
    site: &Span,
    label: &Span,
) -> Result<(usize, usize, String), MutateError> {
    let tree = tree(root, text, site)?;
    let mut node =
        node_at(&tree, site).ok_or_else(|| not_applicable("its case clause was not found"))?;
    while node.kind() != "switch_case" {
        node = node
            .parent()
            .ok_or_else(|| not_applicable("its case clause was not found"))?;
    }
    let has_statements = node.named_child_count() > 1;
    let fed = node
        .prev_named_sibling()
        .is_some_and(|p| p.kind() == "switch_case" && p.named_child_count() <= 1);
    if has_statements && fed {
        // Up to and including the colon after the label.
        let colon = text[label.bytes.1..]
            .find(':')
            .map_or(label.bytes.1, |i| label.bytes.1 + i + 1);
        let label_only = Span {
            bytes: (node.start_byte(), colon),
            ..site.clone()
        };
        let (a, b) = statement_range(text, &label_only);
        return Ok((a, b, String::new()));
    }
    let whole = Span {
        bytes: (node.start_byte(), node.end_byte()),
        ..site.clone()
    };
    let (a, b) = statement_range(text, &whole);
    Ok((a, b, String::new()))
}

/// An `if (name === "x")` branch: the whole `if` when the comparison is its whole condition
/// (its `else` takes its place), or just the comparison, made false, inside a larger condition.
fn branch_cut(
    root: &Path,
    text: &str,
    compare: &Span,
) -> Result<(usize, usize, String), MutateError> {
    let tree = tree(root, text, compare)?;
    let node =
        node_at(&tree, compare).ok_or_else(|| not_applicable("its comparison was not found"))?;
    let mut cond = node;
    while cond
        .parent()
        .is_some_and(|p| p.kind() == "parenthesized_expression")
    {
        cond = cond.parent().expect("checked");
    }
    let statement = cond
        .parent()
        .filter(|p| p.kind() == "if_statement" && p.child_by_field_name("condition") == Some(cond));
    let Some(statement) = statement else {
        return Ok((compare.bytes.0, compare.bytes.1, "false".to_string()));
    };
    match statement.child_by_field_name("alternative") {
        // `if (A) {...} else B` becomes `B`.
        Some(alternative) => {
            let inner = alternative
                .named_child(0)
                .ok_or_else(|| not_applicable("an empty else"))?;
            Ok((
                statement.start_byte(),
                statement.end_byte(),
                text[inner.start_byte()..inner.end_byte()].to_string(),
            ))
        }
        None => match statement.parent().filter(|p| p.kind() == "else_clause") {
            // `... else if (name === "x") {...}` loses its last branch.
            Some(else_clause) => {
                let start = text[..else_clause.start_byte()].trim_end().len();
                Ok((start, else_clause.end_byte(), String::new()))
            }
            None => {
                let whole = Span {
                    bytes: (statement.start_byte(), statement.end_byte()),
                    ..compare.clone()
                };
                let (a, b) = statement_range(text, &whole);
                Ok((a, b, String::new()))
            }
        },
    }
}
