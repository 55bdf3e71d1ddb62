//! Rewriting a description where it is written, in its own form: the new text is compared with
//! the old one, and only the changed stretch is written, inside the literal that holds it, in
//! that literal's quoting (a template literal keeps real newlines, a quoted one gets `\n`). A
//! concatenation is edited in the operand the change falls in (a new operand when it falls
//! beside a name); a constant is edited where it is declared.

use std::path::Path;

use super::MutateError;
use super::docstring;
use super::splice::{Edits, js_string};
use mcpevol_anchor::literal::decode;
use mcpevol_core::inventory::{DescriptionForm, DescriptionSite, Span};

/// One replacement of a byte range of a file.
pub type Cut = (Span, String);

fn refused(why: impl Into<String>) -> MutateError {
    MutateError::Description(why.into())
}

/// The cuts that turn the description at `site` into `new`.
// Long: one arm per description form; the concatenation's finds the operand a change falls in.
pub fn rewrite(
    edits: &mut Edits,
    root: &Path,
    site: &DescriptionSite,
    new: &str,
) -> Result<Vec<Cut>, MutateError> {
    site.editable().map_err(refused)?;
    let old = site.text.as_deref().unwrap_or_default();
    let (start, old_end, inserted) = changed(old, new);
    match &site.form {
        DescriptionForm::Literal | DescriptionForm::Template => {
            let source = edits.slice(root, &site.span)?;
            // A literal trimmed where it is used (`` `\n    Searches ...\n`.trim() ``) holds
            // its text after the whitespace the tool never lists.
            let value = decode(&source).value;
            let lead = match value != old && value.trim() == old {
                true => value.len() - value.trim_start().len(),
                false => 0,
            };
            Ok(vec![in_literal(
                &site.span,
                &source,
                start + lead,
                old_end + lead,
                inserted,
            )?])
        }
        DescriptionForm::Concat(parts) => {
            let mut at = 0;
            let bounds: Vec<(usize, usize)> = parts
                .iter()
                .map(|p| {
                    let len = p.text.as_deref().map_or(0, str::len);
                    at += len;
                    (at - len, at)
                })
                .collect();
            let literal = |i: usize| parts[i].literal;
            // The literal operand the change falls in; an insertion between two operands
            // goes at the end of the first (an append to it) before the start of the second.
            let holder = if start == old_end {
                (0..parts.len())
                    .find(|&i| literal(i) && bounds[i].0 < start && bounds[i].1 == start)
                    .or_else(|| {
                        (0..parts.len())
                            .find(|&i| literal(i) && bounds[i].0 <= start && start <= bounds[i].1)
                    })
            } else {
                (0..parts.len())
                    .find(|&i| literal(i) && bounds[i].0 <= start && old_end <= bounds[i].1)
            };
            match holder {
                Some(i) => {
                    let p = &parts[i];
                    let source = edits.slice(root, &p.span)?;
                    let (a, b) = (start - bounds[i].0, old_end - bounds[i].0);
                    Ok(vec![in_literal(&p.span, &source, a, b, inserted)?])
                }
                // Between two names, or before or after one: a new operand.
                None if start == old_end => {
                    let literal = js_string(inserted);
                    if start == 0 {
                        return Ok(vec![(
                            point(&parts[0].span, false),
                            format!("{literal} + "),
                        )]);
                    }
                    match (0..parts.len()).rev().find(|&i| bounds[i].1 == start) {
                        Some(i) => Ok(vec![(point(&parts[i].span, true), format!(" + {literal}"))]),
                        None => Err(refused(
                            "the change falls inside a constant the description joins",
                        )),
                    }
                }
                None => Err(refused(
                    "the change spans several operands of the description's concatenation",
                )),
            }
        }
        DescriptionForm::Docstring => {
            let source = edits.slice(root, &site.span)?;
            let line_indent = {
                let text = edits.text(root, &site.span.file)?;
                super::splice::indent_at(text, site.span.bytes.0).to_string()
            };
            Ok(vec![(
                site.span.clone(),
                docstring::rewritten(&source, &line_indent, new).map_err(refused)?,
            )])
        }
        DescriptionForm::Constant {
            declared_at: Some(declared),
            ..
        } => rewrite(edits, root, declared, new),
        _ => Err(refused(
            "its description is not written where it can be edited",
        )),
    }
}

/// The stretch of `old` that `new` changes: its start, its end in `old`, and what `new` has
/// there. A pure append or prepend is taken as such; otherwise a common head and tail are cut
/// off, on character boundaries.
fn changed<'n>(old: &str, new: &'n str) -> (usize, usize, &'n str) {
    if let Some(added) = new.strip_prefix(old) {
        return (old.len(), old.len(), added);
    }
    if let Some(added) = new.strip_suffix(old) {
        return (0, 0, added);
    }
    let mut head = 0;
    for (a, b) in old.chars().zip(new.chars()) {
        if a != b {
            break;
        }
        head += a.len_utf8();
    }
    let most = (old.len() - head).min(new.len() - head);
    let mut tail = 0;
    for (a, b) in old.chars().rev().zip(new.chars().rev()) {
        if a != b || tail + a.len_utf8() > most {
            break;
        }
        tail += a.len_utf8();
    }
    (head, old.len() - tail, &new[head..new.len() - tail])
}

/// The cut that replaces the value bytes `start..end` of the literal at `span` (whose source
/// is `source`) with `with`, written in the literal's own escapes.
fn in_literal(
    span: &Span,
    source: &str,
    start: usize,
    end: usize,
    with: &str,
) -> Result<Cut, MutateError> {
    let decoded = decode(source);
    let (Some(a), Some(b)) = (decoded.source_at(start), decoded.source_at(end)) else {
        return Err(refused("the change falls inside an escape of the literal"));
    };
    let quote = source.chars().next().unwrap_or('"');
    let mut at = span.clone();
    at.bytes = (span.bytes.0 + a, span.bytes.0 + b);
    Ok((at, escaped(with, quote)))
}

/// `text` as the inside of a literal quoted with `quote`.
pub fn escaped(text: &str, quote: char) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '`' if quote == '`' => out.push_str("\\`"),
            '$' if quote == '`' => out.push_str("\\$"),
            '\n' if quote == '`' => out.push('\n'),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' if quote != '`' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() && c != '\t' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// `text` as a whole literal in the form of `site` (a template stays a template; anything else
/// becomes a literal in the quotes the site uses, double by default).
pub fn literal_like(edits: &mut Edits, root: &Path, site: &DescriptionSite, text: &str) -> String {
    let quote = match &site.form {
        DescriptionForm::Template => '`',
        _ if text.contains('\n') && matches!(site.form, DescriptionForm::Concat(_)) => '"',
        _ => edits
            .slice(root, &site.span)
            .ok()
            .and_then(|s| s.chars().next())
            .filter(|c| matches!(c, '"' | '\''))
            .unwrap_or('"'),
    };
    format!("{quote}{}{quote}", escaped(text, quote))
}

/// An empty span at the start or end of `span`.
fn point(span: &Span, end: bool) -> Span {
    let at = if end { span.bytes.1 } else { span.bytes.0 };
    Span {
        bytes: (at, at),
        ..span.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_changed_stretch_is_found_between_a_common_head_and_tail() {
        assert_eq!(changed("A.", "A. B."), (2, 2, " B."));
        assert_eq!(changed("X.\n  ", "X. Y.\n  "), (2, 2, " Y."));
        assert_eq!(changed("Hello", "Hi. Hello"), (0, 0, "Hi. "));
        assert_eq!(changed("été", "étéé"), (5, 5, "é"));
        assert_eq!(changed("\n  Foo", "\n  Hi.\n\n  Foo"), (0, 0, "\n  Hi.\n"));
    }

    /// The description of `x({ description: ... })` in `src`, read from a file under `root`.
    fn site_in(root: &Path, src: &str) -> DescriptionSite {
        std::fs::write(root.join("a.js"), src).unwrap();
        let tree = mcpevol_anchor::parse(src, mcpevol_anchor::grammar::Lang::JavaScript).unwrap();
        let mut stack = vec![tree.root_node()];
        while let Some(node) = stack.pop() {
            if node.kind() == "pair" {
                let value = node.child_by_field_name("value").unwrap();
                return mcpevol_anchor::text::read_description(value, src, "a.js");
            }
            let mut cursor = node.walk();
            stack.extend(node.children(&mut cursor));
        }
        panic!("no pair in {src}")
    }

    /// Every form, appended to and prepended to: the edited source reads back as the new text,
    /// in the same form, and only the expression changed.
    #[test]
    fn an_edited_description_reads_back_as_the_new_text_in_its_form() {
        let dir = tempfile::tempdir().unwrap();
        let sources = [
            r#"x({ description: "Say \"hi\"\n\u00e9t\u00e9 ok" });"#,
            r#"x({ description: 'It\'s one line' });"#,
            "x({ description: `Two\n  lines with \\\\ and \\` ticks\n  ` });",
            r#"x({ description: "First. " +
      'Second.' });"#,
            "x({ description: `\n    Indented, then trimmed.\n`.trim() });",
        ];
        type Edit = Box<dyn Fn(&str) -> String>;
        for src in sources {
            for (new_of, how) in [
                (
                    Box::new(|old: &str| format!("{old} Added `x` \"y\" \\ z.")) as Edit,
                    "append",
                ),
                (
                    Box::new(|old: &str| format!("Lead ${{x}}\n{old}")),
                    "prepend",
                ),
            ] {
                let site = site_in(dir.path(), src);
                let old = site.text.clone().unwrap();
                let new = new_of(&old);
                let mut edits = Edits::default();
                let cuts = rewrite(&mut edits, dir.path(), &site, &new).unwrap();
                let mut text = src.to_string();
                let mut cuts = cuts;
                cuts.sort_by_key(|(at, _)| std::cmp::Reverse(at.bytes.0));
                for (at, with) in cuts {
                    assert!(site.span.bytes.0 <= at.bytes.0 && at.bytes.1 <= site.span.bytes.1);
                    text.replace_range(at.bytes.0..at.bytes.1, &with);
                }
                let again = site_in(dir.path(), &text);
                assert_eq!(
                    again.text.as_deref(),
                    Some(new.as_str()),
                    "{how} on {src}: {text}"
                );
                assert_eq!(
                    std::mem::discriminant(&again.form),
                    std::mem::discriminant(&site.form),
                    "{how} on {src}: {text}"
                );
            }
        }
    }

    #[test]
    fn escapes_follow_the_quote() {
        assert_eq!(escaped("a\n`b` ${c} \"d\"", '`'), "a\n\\`b\\` \\${c} \"d\"");
        assert_eq!(escaped("a\n'b' \"c\"", '\''), "a\\n\\'b\\' \"c\"");
        assert_eq!(escaped("a\n'b' \"c\"", '"'), "a\\n'b' \\\"c\\\"");
    }
}
