//! What a change claims to do to a tool's answers, in terms the oracle can check: a mutator that
//! writes "cuts the output to N characters" into a server also hands the oracle that claim.

use serde::{Deserialize, Serialize};

/// One behavioural claim of a round, checked against the running server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Effect {
    /// With `param` set to n, each text part of `tool`'s result is the previous version's cut
    /// to its first n characters.
    TruncateChars { tool: String, param: String },
    /// With `param` set to n, each text part keeps its first n lines.
    TruncateLines { tool: String, param: String },
    /// With `param` set to n, each text part leaves out its first n lines (a page further on).
    SkipLines { tool: String, param: String },
    /// `tool` (new) answers as `source` did in the previous version on the same arguments,
    /// each text part cut to `max_chars` characters when set.
    Variant {
        tool: String,
        source: String,
        max_chars: Option<usize>,
    },
    /// `tool` (new) takes `items`, a list of argument sets of `source`, and answers the content
    /// parts of `source`'s answers to each, in order, as `source` answered in the previous
    /// version.
    Batch {
        tool: String,
        source: String,
        items: String,
    },
    /// `tool` (new) takes one of the items `source` takes a list of in `param`: the item's own
    /// fields as its arguments (`key` None, for a list of objects), or the item as its argument
    /// `key`. It answers as `source` answers that list of one item.
    Single {
        tool: String,
        source: String,
        param: String,
        key: Option<String>,
    },
    /// `tool` (new) takes `source`'s arguments and `param`, a text, and answers `source`'s
    /// answer with only the lines of each text part that contain that text, compared without
    /// regard to case.
    Search {
        tool: String,
        source: String,
        param: String,
    },
    /// With `param` set to a list of key names, each text part of `tool`'s result is the
    /// previous version's JSON with only those keys kept, in its top-level object or in each
    /// object of its top-level list.
    Project { tool: String, param: String },
    /// With `param` set to `compact`, each JSON text part of `tool`'s result is the previous
    /// version's written on one line; set to `indented`, written with two-space indentation.
    /// The value is the same JSON either way.
    Reformat { tool: String, param: String },
    /// A value of `param` beyond its new bound is refused with an error, not passed on.
    Enforced { tool: String, param: String },
    /// With `param` set to `value` (a value the change added), `tool` answers exactly as with
    /// `param` set to `means`, on the same other arguments.
    Synonym {
        tool: String,
        param: String,
        value: String,
        means: String,
    },
    /// `tool`, removed, has `successor` (an existing tool or a new one) answer its calls: the
    /// removed tool's previous call, sent to `successor`, answers as the removed tool did.
    Successor { tool: String, successor: String },
}

impl Effect {
    pub fn tool(&self) -> &str {
        match self {
            Effect::TruncateChars { tool, .. }
            | Effect::TruncateLines { tool, .. }
            | Effect::SkipLines { tool, .. }
            | Effect::Project { tool, .. }
            | Effect::Reformat { tool, .. }
            | Effect::Variant { tool, .. }
            | Effect::Batch { tool, .. }
            | Effect::Single { tool, .. }
            | Effect::Search { tool, .. }
            | Effect::Enforced { tool, .. }
            | Effect::Synonym { tool, .. }
            | Effect::Successor { tool, .. } => tool,
        }
    }

    /// The parameter the claim is about, if it is about one.
    pub fn param(&self) -> Option<&str> {
        match self {
            Effect::TruncateChars { param, .. }
            | Effect::TruncateLines { param, .. }
            | Effect::SkipLines { param, .. }
            | Effect::Project { param, .. }
            | Effect::Reformat { param, .. }
            | Effect::Enforced { param, .. }
            | Effect::Synonym { param, .. }
            | Effect::Search { param, .. } => Some(param),
            Effect::Variant { .. }
            | Effect::Batch { .. }
            | Effect::Single { .. }
            | Effect::Successor { .. } => None,
        }
    }

    /// How the claim reworks each text part, where it is a cut by a number the call sets.
    pub fn cut(&self) -> Option<Cut> {
        match self {
            Effect::TruncateChars { .. } => Some(Cut::Chars),
            Effect::TruncateLines { .. } => Some(Cut::Lines),
            Effect::SkipLines { .. } => Some(Cut::SkipLines),
            _ => None,
        }
    }
}

/// `text` with only its lines that contain `query`, compared without regard to case: what a
/// search form answers of its source's text part.
pub fn lines_with(text: &str, query: &str) -> String {
    let needle = query.to_lowercase();
    (text.split('\n'))
        .filter(|line| line.to_lowercase().contains(&needle))
        .collect::<Vec<_>>()
        .join("\n")
}

/// A word to search `parts` (a tool's text answer) by: one found in some of its lines and
/// not in others, so that an answer that ignores it, or keeps nothing, differs from one that
/// keeps the lines with it; among those, the one that splits the lines most evenly. None where
/// no word does (a one-line answer, lines all alike).
pub fn search_word(parts: &[String]) -> Option<String> {
    let lines: Vec<String> = (parts.iter())
        .flat_map(|p| p.split('\n'))
        .map(str::to_lowercase)
        .collect();
    let n = lines.len();
    let mut best: Option<(usize, String)> = None;
    for line in &lines {
        for word in line.split(|c: char| !c.is_alphanumeric()) {
            // Words of letters: a number is as likely a count or a time that varies.
            if word.chars().count() < 3 || !word.chars().all(char::is_alphabetic) {
                continue;
            }
            let with = lines.iter().filter(|l| l.contains(word)).count();
            if with == n {
                continue;
            }
            let spread = (2 * with).abs_diff(n);
            if best.as_ref().is_none_or(|(s, _)| spread < *s) {
                best = Some((spread, word.to_string()));
            }
        }
    }
    best.map(|(_, w)| w)
}

/// A text part reworked by a number n a call sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cut {
    /// Its first n characters.
    Chars,
    /// Its first n lines.
    Lines,
    /// All but its first n lines.
    SkipLines,
}

impl Cut {
    /// The size n counts in: characters or lines.
    pub fn measure(self, text: &str) -> usize {
        match self {
            Cut::Chars => text.chars().count(),
            Cut::Lines | Cut::SkipLines => text.split('\n').count(),
        }
    }

    /// `text` reworked with `n`.
    pub fn apply(self, text: &str, n: usize) -> String {
        match self {
            Cut::Chars => first_chars(text, n),
            Cut::Lines => first_lines(text, n),
            Cut::SkipLines => text.split('\n').skip(n).collect::<Vec<_>>().join("\n"),
        }
    }

    /// Whether an answer's part could be one reworked with `n`, where the reference answers
    /// changed between calls and cannot be compared: a cut part is no longer than n; a part
    /// with lines left out is any part.
    pub fn fits(self, text: &str, n: usize) -> bool {
        match self {
            Cut::Chars | Cut::Lines => self.measure(text) <= n,
            Cut::SkipLines => true,
        }
    }
}

/// The first `n` characters of `text`.
pub fn first_chars(text: &str, n: usize) -> String {
    text.chars().take(n).collect()
}

/// The first `n` lines of `text`, joined as they were.
pub fn first_lines(text: &str, n: usize) -> String {
    text.split('\n').take(n).collect::<Vec<_>>().join("\n")
}

/// `text` read as JSON with only `keys` kept in its top-level object, or in each object of its
/// top-level list, written compactly; None where it is not JSON.
pub fn projected(text: &str, keys: &[String]) -> Option<String> {
    fn pick(value: serde_json::Value, keys: &[String]) -> serde_json::Value {
        match value {
            serde_json::Value::Array(items) => {
                serde_json::Value::Array(items.into_iter().map(|v| pick(v, keys)).collect())
            }
            serde_json::Value::Object(map) => serde_json::Value::Object(
                map.into_iter().filter(|(k, _)| keys.contains(k)).collect(),
            ),
            other => other,
        }
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    Some(pick(value, keys).to_string())
}

/// Whether `text` is JSON whose top-level object, or each object of its top-level list, has no
/// key but `keys`: what a projection's answer must be even where the reference's answers
/// changed between calls and cannot be compared.
pub fn keeps_only(text: &str, keys: &[String]) -> bool {
    let Ok(value) = serde_json::from_str::<serde_json::Value>(text) else {
        return false;
    };
    let objects: Vec<&serde_json::Value> = match &value {
        serde_json::Value::Array(items) => items.iter().collect(),
        other => vec![other],
    };
    objects.iter().all(|o| {
        o.as_object()
            .is_none_or(|m| m.keys().all(|k| keys.contains(k)))
    })
}

/// `text` as compact JSON, or as it is where it is not JSON.
pub fn compact_json(text: &str) -> String {
    serde_json::from_str::<serde_json::Value>(text)
        .map_or_else(|_| text.to_string(), |v| v.to_string())
}

/// How a JSON text is laid out: on one line, or over several with two-space indentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    Compact,
    Indented,
}

impl Layout {
    /// The value a call sets the parameter of a [`Effect::Reformat`] to.
    pub const fn value(self) -> &'static str {
        match self {
            Layout::Compact => "compact",
            Layout::Indented => "indented",
        }
    }

    /// The layout of `text`, where it is JSON holding an object or a list with something in it
    /// (only there do the two differ); None where it is neither of the two (indented by four
    /// spaces or by tabs).
    pub fn of(text: &str) -> Option<Layout> {
        if !filled_json(text) {
            return None;
        }
        let text = text.trim();
        if !text.contains('\n') {
            return Some(Layout::Compact);
        }
        // Every line but the first opens with a multiple of two spaces, and the second with
        // exactly two: a JSON string never holds a raw line break.
        let indents: Vec<usize> = (text.lines().skip(1))
            .map(|l| l.len() - l.trim_start_matches(' ').len())
            .collect();
        let even = text.lines().all(|l| !l.starts_with('\t')) && indents.iter().all(|n| n % 2 == 0);
        (even && indents.first() == Some(&2)).then_some(Layout::Indented)
    }

    /// The layout a claim must show on `parts` to be seen: the other one than theirs (compact
    /// where they are indented in any way); None where no part is JSON with something in it.
    pub fn revealing(parts: &[String]) -> Option<Layout> {
        let part = parts.iter().find(|p| filled_json(p))?;
        Some(match Layout::of(part) {
            Some(Layout::Compact) => Layout::Indented,
            _ => Layout::Compact,
        })
    }
}

/// Whether `text` is JSON holding an object or a list with something in it.
pub fn filled_json(text: &str) -> bool {
    match serde_json::from_str::<serde_json::Value>(text) {
        Ok(serde_json::Value::Array(items)) => !items.is_empty(),
        Ok(serde_json::Value::Object(map)) => !map.is_empty(),
        _ => false,
    }
}

/// `text` read as the claim of a [`Effect::Reformat`] to `layout` is checked: its JSON written
/// compactly, and the layout it shows, so that the same value in another layout differs.
pub fn laid_out(text: &str, layout: Option<Layout>) -> String {
    let shown = match layout {
        Some(Layout::Compact) => "on one line",
        Some(Layout::Indented) => "indented by two spaces",
        None => "in neither layout",
    };
    format!("{} ({shown})", compact_json(text))
}

/// Keys to keep that make a projection visible on `parts`: the first half (at least one, never
/// all) of the keys of the first JSON object a part holds (itself, or its list's first item).
pub fn revealing_keys(parts: &[String]) -> Option<Vec<String>> {
    let keys = parts.iter().find_map(|p| {
        let value: serde_json::Value = serde_json::from_str(p).ok()?;
        let object = match value {
            serde_json::Value::Array(items) => items.into_iter().next()?,
            other => other,
        };
        let keys: Vec<String> = object.as_object()?.keys().cloned().collect();
        (keys.len() >= 2).then_some(keys)
    })?;
    let n = (keys.len() / 2).max(1);
    Some(keys.into_iter().take(n).collect())
}

/// A value of n that makes a cut visible on `parts`: half the longest part (at least 1), or
/// None when nothing is long enough to be cut.
pub fn revealing_limit(parts: &[String], measure: impl Fn(&str) -> usize) -> Option<usize> {
    let longest = parts.iter().map(|p| measure(p)).max()?;
    (longest >= 2).then_some((longest / 2).max(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_word_splits_the_lines_and_its_lines_are_kept_without_regard_to_case() {
        let parts = vec!["[FILE] notes.txt\n[DIR] src\n[FILE] main.rs".to_string()];
        let word = search_word(&parts).expect("a word in some lines");
        assert!(["file", "dir", "src", "notes", "txt", "main"].contains(&word.as_str()));
        assert_eq!(
            lines_with(&parts[0], "FILE"),
            "[FILE] notes.txt\n[FILE] main.rs"
        );
        assert_eq!(lines_with(&parts[0], "nothing"), "");
        // One line, or lines all alike, have no word to tell a search from a copy.
        assert_eq!(search_word(&["only one line".to_string()]), None);
        assert_eq!(search_word(&["ab 12\nab 34".to_string()]), None);
    }

    #[test]
    fn cuts_count_characters_not_bytes_and_lines_keep_their_breaks() {
        assert_eq!(first_chars("héllo", 2), "hé");
        assert_eq!(first_lines("a\nb\nc", 2), "a\nb");
        assert_eq!(first_lines("a", 5), "a");
        assert_eq!(Cut::SkipLines.apply("a\nb\nc", 2), "c");
        assert_eq!(Cut::SkipLines.apply("a", 3), "");
    }

    #[test]
    fn a_projection_keeps_the_listed_keys_of_an_object_or_of_each_item_of_a_list() {
        let keys = vec!["a".to_string()];
        assert_eq!(
            projected(r#"{"a": 1, "b": 2}"#, &keys).unwrap(),
            r#"{"a":1}"#
        );
        assert_eq!(
            projected(r#"[{"a": 1, "b": 2}, {"b": 3}]"#, &keys).unwrap(),
            r#"[{"a":1},{}]"#
        );
        assert_eq!(projected("not json", &keys), None);
        assert_eq!(
            revealing_keys(&[r#"[{"a": 1, "b": 2, "c": 3}]"#.to_string()]),
            Some(vec!["a".to_string()])
        );
        assert_eq!(revealing_keys(&[r#"{"a": 1}"#.to_string()]), None);
        assert!(keeps_only(r#"[{"a": 1}, {}]"#, &keys));
        assert!(!keeps_only(r#"{"a": 1, "b": 2}"#, &keys));
        assert!(!keeps_only("not json", &keys));
    }

    #[test]
    fn a_layout_is_one_line_or_two_space_indentation_and_the_revealing_one_is_the_other() {
        assert_eq!(Layout::of(r#"{"a":1,"b":[2]}"#), Some(Layout::Compact));
        assert_eq!(
            Layout::of("{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}"),
            Some(Layout::Indented)
        );
        assert_eq!(Layout::of("{\n    \"a\": 1\n}"), None);
        assert_eq!(Layout::of("{\n\t\"a\": 1\n}"), None);
        assert_eq!(Layout::of("{}"), None);
        assert_eq!(Layout::of("plain words"), None);
        let indented = vec!["{\n  \"a\": 1\n}".to_string()];
        assert_eq!(Layout::revealing(&indented), Some(Layout::Compact));
        assert_eq!(
            Layout::revealing(&[r#"[1,2]"#.to_string()]),
            Some(Layout::Indented)
        );
        assert_eq!(Layout::revealing(&["no json".to_string()]), None);
        // The same value in another layout reads differently.
        assert_ne!(
            laid_out(&indented[0], Layout::of(&indented[0])),
            laid_out(r#"{"a":1}"#, Some(Layout::Compact))
        );
    }

    #[test]
    fn a_revealing_limit_is_shorter_than_the_longest_part() {
        let parts = vec!["abcdef".to_string(), "xy".to_string()];
        assert_eq!(revealing_limit(&parts, |p| p.chars().count()), Some(3));
        assert_eq!(revealing_limit(&["a".to_string()], |p| p.len()), None);
        assert_eq!(revealing_limit(&[], |p| p.len()), None);
    }
}
