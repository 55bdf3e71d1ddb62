//! Which removed tool became which added one, where several have the same schema: by the words
//! of their names.

use std::collections::BTreeSet;

/// The one of `names` that shares most name words with `name`, and at least one, where no other
/// shares as many. (A name that shares none is another tool: a removal beside the addition of
/// a copy of some other tool with the same schema is not a rename.)
pub(super) fn closest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    // The words of a name in any case: `get_system_info`, `get-system-info`, `getSystemInfo`.
    let words_of = |n: &str| -> BTreeSet<String> {
        let mut spaced = String::new();
        for (i, c) in n.char_indices() {
            let after_lower = i > 0 && n[..i].ends_with(|p: char| p.is_ascii_lowercase());
            if c.is_ascii_uppercase() && after_lower {
                spaced.push(' ');
            }
            spaced.push(if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                ' '
            });
        }
        spaced.split_whitespace().map(str::to_string).collect()
    };
    let words = words_of(name);
    let shared = |n: &str| words.intersection(&words_of(n)).count();
    let mut scored: Vec<(usize, &'a str)> = names.iter().map(|n| (shared(n), *n)).collect();
    scored.sort_by_key(|s| std::cmp::Reverse(s.0));
    match scored.as_slice() {
        [(best, n)] if *best > 0 => Some(n),
        [(best, n), (second, _), ..] if best > second && *best > 0 => Some(n),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::schema::{ChangeKind, diff, diff_declared};
    use serde_json::json;

    #[test]
    fn a_declared_rename_pairs_names_that_share_no_word_and_an_undeclared_one_does_not() {
        let bare = |name: &str| json!({"name": name, "description": "d", "inputSchema": {"type": "object", "properties": {}}});
        let before = crate::listed::listed(vec![bare("debug"), bare("echo")]);
        let after = crate::listed::listed(vec![bare("diagnose"), bare("echo")]);
        let kinds = |changes: Vec<crate::schema::SchemaChange>| -> Vec<_> {
            changes.iter().map(|c| (c.kind(), c.tool.clone())).collect()
        };
        assert_eq!(
            kinds(diff(&before, &after)),
            [
                (ChangeKind::ToolRemoved, "debug".to_string()),
                (ChangeKind::ToolAdded, "diagnose".to_string())
            ]
        );
        let declared = [("debug".to_string(), "diagnose".to_string())];
        let changes = diff_declared(&before, &after, &declared);
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].renamed_to(), Some("diagnose"));
        // A declared rename whose schema changed is no rename.
        let changed = crate::listed::listed(vec![
            json!({"name": "diagnose", "description": "d", "inputSchema": {"type": "object", "properties": {"x": {"type": "string"}}}}),
            bare("echo"),
        ]);
        let kinds_changed = kinds(diff_declared(&before, &changed, &declared));
        assert!(
            !kinds_changed
                .iter()
                .any(|(k, _)| *k == ChangeKind::ToolRenamed),
            "{kinds_changed:?}"
        );
    }
}
