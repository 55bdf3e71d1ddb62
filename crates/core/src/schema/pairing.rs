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
