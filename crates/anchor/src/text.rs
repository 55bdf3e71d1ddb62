//! Description expressions read as the form they are: a literal, a template, a concatenation,
//! a constant, or something only running the code can tell.

use tree_sitter::Node;

use super::literal::decode;
use super::syntax::{self, span, text, unwrap};
use mcpevol_core::inventory::{ConcatPart, DescriptionForm, DescriptionSite};

/// Reads a description expression as what it is. Names are left for linking to resolve:
/// their text is None here.
pub fn read_description(node: Node, src: &str, rel: &str) -> DescriptionSite {
    let node = unwrap(node);
    // `` `\n    Searches the news ...\n`.trim() ``: the literal is what a rewrite edits; the
    // tool lists its text trimmed.
    if let Some(literal) = trimmed_literal(node, src) {
        let inner = read_description(literal, src, rel);
        return DescriptionSite {
            text: inner.text.map(|t| t.trim().to_string()),
            ..inner
        };
    }
    let at = span(node, rel);
    let (form, value) = match node.kind() {
        "string" => (
            DescriptionForm::Literal,
            Some(decode(text(node, src)).value),
        ),
        "template_string" if has_substitution(node) => (
            DescriptionForm::Opaque("its description is a template filled in at run time"),
            None,
        ),
        "template_string" => (
            DescriptionForm::Template,
            Some(decode(text(node, src)).value),
        ),
        "binary_expression" if is_plus(node) => {
            let mut parts = Vec::new();
            if concat_parts(node, src, rel, &mut parts) {
                let value = parts
                    .iter()
                    .map(|p| p.text.clone())
                    .collect::<Option<String>>();
                (DescriptionForm::Concat(parts), value)
            } else {
                (
                    DescriptionForm::Opaque(
                        "its description joins text with an expression anchoring cannot read",
                    ),
                    None,
                )
            }
        }
        "shorthand_property_identifier" => (
            DescriptionForm::Opaque("its description is a shorthand property"),
            None,
        ),
        "identifier" | "member_expression" | "subscript_expression" => {
            match syntax::path(node, src) {
                Some(name) => (
                    DescriptionForm::Constant {
                        name,
                        declared_at: None,
                        shared: false,
                    },
                    None,
                ),
                None => (
                    DescriptionForm::Opaque("its description is read from a computed place"),
                    None,
                ),
            }
        }
        "call_expression" | "new_expression" | "await_expression" => (
            DescriptionForm::Opaque("its description is computed by a function call"),
            None,
        ),
        _ => (
            DescriptionForm::Opaque("its description is an expression anchoring cannot read"),
            None,
        ),
    };
    DescriptionSite {
        span: at,
        form,
        text: value,
    }
}

/// The literal (without substitutions) a `.trim()` call is made on, if that is what `call` is.
pub(crate) fn trimmed_literal<'t>(call: Node<'t>, src: &str) -> Option<Node<'t>> {
    let function = call.child_by_field_name("function")?;
    let args = call.child_by_field_name("arguments")?;
    let property = function.child_by_field_name("property")?;
    let object = unwrap(function.child_by_field_name("object")?);
    let literal =
        matches!(object.kind(), "string" | "template_string") && !has_substitution(object);
    let trim = text(property, src) == "trim";
    (literal && args.named_child_count() == 0 && trim).then_some(object)
}

fn is_plus(node: Node) -> bool {
    node.child_by_field_name("operator").map(|o| o.kind()) == Some("+")
}

fn has_substitution(node: Node) -> bool {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .any(|c| c.kind() == "template_substitution")
}

/// The operands of a `+` chain in order, or false when one is not a literal or a name.
fn concat_parts(node: Node, src: &str, rel: &str, out: &mut Vec<ConcatPart>) -> bool {
    let node = unwrap(node);
    match node.kind() {
        "binary_expression" if is_plus(node) => {
            let (Some(l), Some(r)) = (
                node.child_by_field_name("left"),
                node.child_by_field_name("right"),
            ) else {
                return false;
            };
            concat_parts(l, src, rel, out) && concat_parts(r, src, rel, out)
        }
        "string" | "template_string" if !has_substitution(node) => {
            out.push(ConcatPart {
                span: span(node, rel),
                literal: true,
                name: None,
                text: Some(decode(text(node, src)).value),
            });
            true
        }
        "identifier" | "member_expression" => match syntax::path(node, src) {
            Some(name) => {
                out.push(ConcatPart {
                    span: span(node, rel),
                    literal: false,
                    name: Some(name),
                    text: None,
                });
                true
            }
            None => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{grammar::Lang, parse};

    fn first_description(src: &str) -> DescriptionSite {
        let tree = parse(src, Lang::JavaScript).unwrap();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "pair"
                && node
                    .child_by_field_name("key")
                    .is_some_and(|k| text(k, src) == "description")
            {
                return read_description(node.child_by_field_name("value").unwrap(), src, "a.js");
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        panic!("no description in {src}")
    }

    #[test]
    fn every_form_of_description_is_read_as_what_it_is() {
        let lit = first_description(r#"x({ description: "Say hi" })"#);
        assert_eq!(
            (lit.form, lit.text.as_deref()),
            (DescriptionForm::Literal, Some("Say hi"))
        );
        let tpl = first_description("x({ description: `One.\nTwo.` })");
        assert_eq!(tpl.form, DescriptionForm::Template);
        assert_eq!(tpl.text.as_deref(), Some("One.\nTwo."));
        let cat = first_description(r#"x({ description: "A " + 'b ' + `c` })"#);
        assert!(matches!(&cat.form, DescriptionForm::Concat(p) if p.len() == 3));
        assert_eq!(cat.text.as_deref(), Some("A b c"));
        let named = first_description(r#"x({ description: "A " + MORE })"#);
        assert_eq!(named.text, None);
        let constant = first_description("x({ description: texts.search })");
        assert!(
            matches!(&constant.form, DescriptionForm::Constant { name, .. } if name == "texts.search")
        );
        for opaque in [
            "x({ description: build() })",
            "x({ description: `Hi ${name}` })",
            "x({ description: \"a\" + f() })",
        ] {
            let d = first_description(opaque);
            assert!(
                matches!(d.form, DescriptionForm::Opaque(_)),
                "{opaque}: {d:?}"
            );
            assert!(d.editable().is_err());
        }
    }
}
