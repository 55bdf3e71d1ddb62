//! Byte-range edits on the files of one version, turned into search/replace hunks; and the
//! small text surgeries the rules need (insert an entry, delete a list item or a statement).

use std::collections::BTreeMap;
use std::path::Path;

use super::MutateError;
use crate::hunks::{Hunk, hunk_for};
use mcpevol_core::inventory::Span;

/// Edits to several files, each a replacement of a byte range of the original text.
#[derive(Debug, Default)]
pub struct Edits {
    texts: BTreeMap<String, String>,
    edits: BTreeMap<String, Vec<(usize, usize, String)>>,
}

impl Edits {
    /// The original text of a file of the package, read once.
    pub fn text(&mut self, root: &Path, file: &str) -> Result<&str, MutateError> {
        if !self.texts.contains_key(file) {
            let text =
                std::fs::read_to_string(root.join(file)).map_err(|source| MutateError::Io {
                    file: file.to_string(),
                    source,
                })?;
            self.texts.insert(file.to_string(), text);
        }
        Ok(&self.texts[file])
    }

    pub fn slice(&mut self, root: &Path, span: &Span) -> Result<String, MutateError> {
        Ok(self.text(root, &span.file)?[span.bytes.0..span.bytes.1].to_string())
    }

    pub fn replace(
        &mut self,
        root: &Path,
        span: &Span,
        new: impl Into<String>,
    ) -> Result<(), MutateError> {
        self.text(root, &span.file)?;
        self.edits.entry(span.file.clone()).or_default().push((
            span.bytes.0,
            span.bytes.1,
            new.into(),
        ));
        Ok(())
    }

    pub fn insert(
        &mut self,
        root: &Path,
        file: &str,
        at: usize,
        new: impl Into<String>,
    ) -> Result<(), MutateError> {
        self.text(root, file)?;
        self.edits
            .entry(file.to_string())
            .or_default()
            .push((at, at, new.into()));
        Ok(())
    }

    pub fn is_empty(&self) -> bool {
        self.edits.values().all(Vec::is_empty)
    }

    /// One hunk per group of nearby edits. Groups are cut from the end of each file backwards,
    /// each on the text with the later groups already applied, so that every hunk's SEARCH text
    /// is exactly what the file holds when that hunk is applied.
    pub fn into_hunks(self) -> Vec<Hunk> {
        let mut hunks = Vec::new();
        for (file, mut edits) in self.edits {
            let mut text = self.texts[&file].clone();
            edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
            for group in groups(&text, &edits) {
                let (start, end) = (group.last().unwrap().0, group.first().unwrap().1);
                let mut region = text[start..end].to_string();
                for (s, e, new) in &group {
                    region.replace_range(s - start..e - start, new);
                }
                let hunk = hunk_for(&file, &text, start, end, &region);
                text.replace_range(start..end, &region);
                hunks.push(hunk);
            }
        }
        hunks
    }
}

/// Edits (sorted from last to first) in groups whose members are within a few lines.
fn groups<'e>(
    text: &str,
    edits: &'e [(usize, usize, String)],
) -> Vec<Vec<&'e (usize, usize, String)>> {
    const NEAR_LINES: usize = 3;
    let mut out: Vec<Vec<&(usize, usize, String)>> = Vec::new();
    for edit in edits {
        let near = out.last().is_some_and(|g| {
            let start = g.last().unwrap().0;
            edit.1 <= start && text[edit.1..start].matches('\n').count() <= NEAR_LINES
        });
        if near {
            out.last_mut().unwrap().push(edit);
        } else {
            out.push(vec![edit]);
        }
    }
    out
}

/// A JavaScript string literal for `s`, in double quotes (JSON escaping is valid JS).
pub fn js_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings always serialize")
}

/// The indentation of the line holding `at`.
/// Whether `inner` lies within `outer`, in the same file.
pub fn contains(outer: &Span, inner: &Span) -> bool {
    outer.file == inner.file && outer.bytes.0 <= inner.bytes.0 && inner.bytes.1 <= outer.bytes.1
}

pub fn indent_at(text: &str, at: usize) -> &str {
    let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
    let line = &text[line_start..];
    &line[..line.len() - line.trim_start().len()]
}

/// Where and what to insert to add `entry` as the last entry of the object literal `object`
/// (which ends with `}`), following its layout: on a new line when entries are on their own lines.
pub fn append_entry(
    text: &str,
    object: &Span,
    last_entry: Option<&Span>,
    entry: &str,
) -> (usize, String) {
    let close = object.bytes.1 - 1;
    let before = text[object.bytes.0..close].trim_end();
    let at = object.bytes.0 + before.len();
    let needs_comma = !(before.ends_with('{') || before.ends_with(','));
    let comma = if needs_comma { "," } else { "" };
    let multiline = text[object.bytes.0..object.bytes.1].contains('\n');
    let new = match last_entry {
        Some(last) if multiline => format!("{comma}\n{}{entry}", indent_at(text, last.bytes.0)),
        _ if before.ends_with('{') => format!(" {entry} "),
        _ => format!("{comma} {entry}"),
    };
    (at, new)
}

/// The byte range to delete to remove one item (array element, object entry) with its comma.
pub fn item_range(text: &str, item: &Span) -> (usize, usize) {
    let (start, end) = item.bytes;
    let after = &text[end..];
    let trimmed = after.trim_start();
    if let Some(rest) = trimmed.strip_prefix(',') {
        // Also the white space up to the next item, keeping the line layout.
        let gap = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        let mut end = end + (after.len() - trimmed.len()) + 1 + gap;
        if text[end..].starts_with('\n') && text[..start].ends_with([' ', '\t']) {
            end += 1;
            let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
            if text[line_start..start].trim().is_empty() {
                return (line_start, end);
            }
        }
        return (start, end);
    }
    // The last item: take the comma before it instead.
    let before = text[..start].trim_end();
    if let Some(stripped) = before.strip_suffix(',') {
        return (stripped.len(), end);
    }
    (start, end)
}

/// The byte range to delete to remove a statement, with its line when it stands alone there.
pub fn statement_range(text: &str, statement: &Span) -> (usize, usize) {
    let (start, end) = statement.bytes;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i + 1);
    let alone = text[line_start..start].trim().is_empty() && text[end..line_end].trim().is_empty();
    if alone {
        (line_start, line_end)
    } else {
        (start, end)
    }
}

/// The first occurrence of `word` in `text` not inside a longer identifier.
pub fn find_word(text: &str, word: &str) -> Option<usize> {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    text.match_indices(word).map(|(i, _)| i).find(|&i| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_ident) && !after.is_some_and(is_ident)
    })
}

/// `region` with its first `word` (not inside a longer identifier) replaced by `with`, or
/// `with` alone where `region` does not name it.
pub fn replace_word(region: &str, word: &str, with: &str) -> String {
    match find_word(region, word) {
        Some(at) => format!("{}{with}{}", &region[..at], &region[at + word.len()..]),
        None => with.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span_of(text: &str, needle: &str) -> Span {
        let start = text.find(needle).unwrap();
        Span {
            file: "a.js".into(),
            start_line: 1,
            end_line: 1,
            bytes: (start, start + needle.len()),
        }
    }

    fn delete(text: &str, range: (usize, usize)) -> String {
        format!("{}{}", &text[..range.0], &text[range.1..])
    }

    #[test]
    fn removing_a_middle_item_on_its_own_line_removes_the_line() {
        let text = "[\n  { a: 1 },\n  { b: 2 },\n  { c: 3 },\n]";
        assert_eq!(
            delete(text, item_range(text, &span_of(text, "{ b: 2 }"))),
            "[\n  { a: 1 },\n  { c: 3 },\n]"
        );
    }

    #[test]
    fn removing_the_last_item_takes_the_comma_before_it() {
        let text = "{ a: 1, b: 2 }";
        assert_eq!(
            delete(text, item_range(text, &span_of(text, "b: 2"))),
            "{ a: 1 }"
        );
    }

    #[test]
    fn appending_an_entry_follows_a_multiline_layout() {
        let text = "const s = {\n  a: z.string(),\n  b: z.number()\n};";
        let object = span_of(text, "{\n  a: z.string(),\n  b: z.number()\n}");
        let last = span_of(text, "b: z.number()");
        let (at, new) = append_entry(text, &object, Some(&last), "c: z.boolean()");
        let mut out = text.to_string();
        out.insert_str(at, &new);
        assert_eq!(
            out,
            "const s = {\n  a: z.string(),\n  b: z.number(),\n  c: z.boolean()\n};"
        );
    }

    #[test]
    fn appending_to_an_empty_object_needs_no_comma() {
        let text = "x({})";
        let (at, new) = append_entry(text, &span_of(text, "{}"), None, "c: 1");
        let mut out = text.to_string();
        out.insert_str(at, &new);
        assert_eq!(out, "x({ c: 1 })");
    }

    #[test]
    fn edits_far_apart_become_separate_hunks_that_apply_in_order() {
        let text = "a = 1;\n\n\n\n\n\nb = 2;\n\n\n\n\n\nc = 3;\n";
        let dir = crate::confine::tests::committed_package(&[("a.js", text)]);
        let mut edits = Edits::default();
        edits
            .replace(dir.path(), &span_of(text, "1"), "10")
            .unwrap();
        edits
            .replace(dir.path(), &span_of(text, "3"), "30")
            .unwrap();
        let hunks = edits.into_hunks();
        assert_eq!(hunks.len(), 2);
        crate::hunks::apply(dir.path(), &hunks).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.js")).unwrap(),
            "a = 10;\n\n\n\n\n\nb = 2;\n\n\n\n\n\nc = 30;\n"
        );
    }
}
