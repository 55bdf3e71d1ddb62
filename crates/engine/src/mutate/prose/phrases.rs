//! Phrases the sentences are built from: lists in backticks, a parameter's details (type,
//! range, default, values), bounds with their units, string formats in words.

use super::facts::ParamFacts;

/// Whether `text` names `word` as a word of its own (or in backticks).
pub fn mentions(text: &str, word: &str) -> bool {
    if word.is_empty() {
        return false;
    }
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + word.len()..].chars().next();
        !before.is_some_and(is_word) && !after.is_some_and(is_word)
    })
}

/// `a`, `b` or `c` (with backticks).
pub(super) fn listed(items: &[String], last: &str) -> String {
    let ticked: Vec<String> = items.iter().map(|i| format!("`{i}`")).collect();
    join_last(&ticked, last)
}

pub(super) fn join_last(items: &[String], last: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [head @ .., tail] => format!("{} {last} {tail}", head.join(", ")),
    }
}

/// At most six keys, the rest said as "others".
pub(super) fn capped(keys: &[String]) -> Vec<String> {
    if keys.len() <= 6 {
        keys.to_vec()
    } else {
        keys[..6].to_vec()
    }
}

/// What a bound counts: the value, a string's characters, an array's items.
pub(super) fn unit(p: &ParamFacts) -> Option<&'static str> {
    match p.ty.as_deref() {
        Some("number" | "integer" | "bigint") => Some(""),
        Some("string") => Some(" characters"),
        Some("array") => Some(" items"),
        _ => None,
    }
}

/// `n` with `unit` after it, singular for one.
pub(super) fn counted(n: &str, unit: &str) -> String {
    if n == "1" {
        format!("{n}{}", unit.strip_suffix('s').unwrap_or(unit))
    } else {
        format!("{n}{unit}")
    }
}

pub(super) fn range_sentences(p: &ParamFacts) -> Option<Vec<String>> {
    let unit = unit(p)?;
    let s = &p.shape;
    Some(match (&s.min, &s.max) {
        (Some(a), Some(b)) if a == b => vec![format!("Exactly {}.", counted(a, unit))],
        (Some(a), Some(b)) => vec![
            format!("From {a} to {}.", counted(b, unit)),
            format!("Between {a} and {}.", counted(b, unit)),
        ],
        (Some(a), None) => vec![format!("At least {}.", counted(a, unit))],
        (None, Some(b)) => vec![
            format!("At most {}.", counted(b, unit)),
            format!("Up to {}.", counted(b, unit)),
        ],
        (None, None) => return None,
    })
}

/// A string format as a sentence and as the words a description would use for it.
pub(super) fn format_words(format: &str) -> Option<(&'static str, &'static str)> {
    Some(match format {
        "email" => ("An email address.", "email address"),
        "url" | "uri" => ("A URL.", "url"),
        "uuid" => ("A UUID.", "uuid"),
        "date-time" => ("An ISO 8601 date and time.", "date and time"),
        "date" => ("A date in YYYY-MM-DD form.", "date"),
        "time" => ("A time of day.", "time"),
        "ip" | "ipv4" | "ipv6" => ("An IP address.", "ip address"),
        _ => return None,
    })
}

pub(super) fn plural_type(items: &str) -> Option<&'static str> {
    Some(match items {
        "string" => "strings",
        "number" => "numbers",
        "integer" => "integers",
        "boolean" => "booleans",
        "object" => "objects",
        _ => return None,
    })
}

/// `Open nodes` as `open nodes`, but `URL of a page` kept.
pub(super) fn lowercase_first(s: &str) -> String {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(a), Some(b)) if a.is_uppercase() && !b.is_uppercase() => {
            a.to_lowercase().chain(s[a.len_utf8()..].chars()).collect()
        }
        _ => s.to_string(),
    }
}
