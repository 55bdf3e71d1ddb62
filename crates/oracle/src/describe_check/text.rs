//! Reading description text for the check: the facts it states, its content words, and the
//! defects of form (repeated words, broken punctuation, unbalanced marks, formula phrases).

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;

pub(super) fn words_in(text: &str) -> usize {
    text.split_whitespace()
        .filter(|w| w.chars().any(char::is_alphanumeric))
        .count()
}

pub(super) fn lines(text: &str) -> usize {
    text.trim().lines().count()
}

static NUMBER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"\b\d+(?:[.,]\d+)*\b").expect("compiles"));
static CODE: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"`[^`\n]+`").expect("compiles"));
static DEFAULT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)\bdefaults?(?:\s+value)?(?:\s+is|\s+to|:|=)?\s+[`"']?([\w.-]+)"#)
        .expect("compiles")
});
static UNIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b\d+(?:\.\d+)?\s*(ms|milliseconds?|seconds?|secs?|minutes?|mins?|hours?|days?|weeks?|months?|years?|bytes?|kb|mb|gb|tb|kib|mib|gib|characters?|chars?|lines?|items?|results?|pages?|tokens?|px|pixels?|km|miles?|meters?|percent|celsius|fahrenheit|kelvin)\b")
        .expect("compiles")
});

/// The facts a description states, each as text a faithful rewrite still holds: numbers,
/// quoted code, defaults, units after numbers, and the names of the tool's parameters.
pub(super) fn facts(text: &str, params: &[String]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    out.extend(NUMBER.find_iter(text).map(|m| m.as_str().to_string()));
    out.extend(CODE.find_iter(text).map(|m| m.as_str().to_string()));
    out.extend(
        DEFAULT
            .captures_iter(text)
            .map(|c| c[1].trim_end_matches('.').to_string()),
    );
    out.extend(UNIT.captures_iter(text).map(|c| c[1].to_lowercase()));
    out.extend(params.iter().filter(|p| mentions(text, p)).cloned());
    out.retain(|f| !f.is_empty());
    out
}

/// Whether `text` still states `fact` (words as words, case aside for plain words; a unit may
/// be written against its number, as in "512KB").
pub(super) fn holds(text: &str, fact: &str) -> bool {
    if fact.starts_with('`') {
        return text.contains(fact) || mentions(text, fact.trim_matches('`'));
    }
    let (text, fact) = (text.to_lowercase(), fact.to_lowercase());
    mentions(&text, &fact) || (fact.chars().all(char::is_alphabetic) && text.contains(&fact))
}

/// Whether `text` names `word` as a word of its own.
pub(super) fn mentions(text: &str, word: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_';
    !word.is_empty()
        && text.match_indices(word).any(|(i, _)| {
            !text[..i].chars().next_back().is_some_and(is_word)
                && !text[i + word.len()..].chars().next().is_some_and(is_word)
        })
}

/// Words that carry meaning: longer than three letters, not the commonest.
pub(super) fn content_words(text: &str) -> BTreeSet<String> {
    const COMMON: &[&str] = &[
        "this", "that", "with", "from", "they", "them", "will", "have", "when", "what", "which",
        "your", "into", "than", "then", "there", "their", "also", "only", "each", "more",
    ];
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() > 3)
        .map(str::to_lowercase)
        .filter(|w| !COMMON.contains(&w.as_str()))
        .map(|w| w.trim_end_matches('s').to_string())
        .collect()
}

/// The share of the original's content words the rewrite still has (1 when it had few).
pub(super) fn kept_share(old: &str, new: &str) -> f64 {
    let before = content_words(old);
    if before.len() < 3 {
        return 1.0;
    }
    let after = content_words(new);
    before.iter().filter(|w| after.contains(*w)).count() as f64 / before.len() as f64
}

/// A word written twice in a row ("the the"), outside code.
pub(super) fn repeated_words(text: &str) -> Vec<String> {
    let plain = without_code(text);
    let words: Vec<&str> = plain.split_whitespace().collect();
    let mut out = Vec::new();
    for pair in words.windows(2) {
        let (a, b) = (pair[0], pair[1]);
        if a.chars().all(char::is_alphabetic)
            && a.eq_ignore_ascii_case(b)
            && !out.contains(&a.to_lowercase())
        {
            out.push(a.to_lowercase());
        }
    }
    out
}

/// Punctuation no sentence needs.
pub(super) const BROKEN: &[&str] = &[
    ". .", ",.", ".,", ";.", ":.", "!.", "?.", " ,", " .", ". ,", "..", "()", "[]",
];

pub(super) fn count_broken(text: &str, pattern: &str) -> usize {
    let text = text.replace("...", "\u{2026}");
    if pattern == " ." {
        // A space before a stop, not before `.env` or `.5`.
        return text
            .match_indices(" .")
            .filter(|(i, _)| {
                !text[i + 2..].starts_with(|c: char| c.is_alphanumeric() || c == '/' || c == '.')
            })
            .count();
    }
    text.matches(pattern).count()
}

/// The text with `code spans` taken out, where punctuation is not prose.
pub(super) fn without_code(text: &str) -> String {
    CODE.replace_all(text, "code").to_string()
}

pub(super) fn balanced(text: &str, open: char) -> bool {
    let close = match open {
        '(' => ')',
        '[' => ']',
        '{' => '}',
        _ => return text.matches(open).count().is_multiple_of(2),
    };
    text.matches(open).count() == text.matches(close).count()
}

static TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\s*\[[A-Za-z][^\]\n]*\]\s").expect("compiles"));

/// Phrases that say nothing, as found in `text`.
pub(super) fn formulas(text: &str, tool: &str, params: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    if let Some(m) = TITLE.find(text) {
        out.push(m.as_str().trim().to_string());
    }
    let name_words = mcpevol_core::words::words(tool).join(" ");
    for sentence in text.split(['.', '!', '?', '\n']) {
        let plain: String = sentence
            .chars()
            .map(|c| {
                if c.is_alphanumeric() || c == '_' {
                    c.to_ascii_lowercase()
                } else {
                    ' '
                }
            })
            .collect();
        let plain = plain.split_whitespace().collect::<Vec<_>>().join(" ");
        if plain.is_empty() {
            continue;
        }
        let restated = plain == name_words
            || plain == format!("use {} to {name_words}", tool.to_lowercase())
            || plain == "takes no parameters"
            || params.iter().any(|p| {
                let words = mcpevol_core::words::words(p).join(" ");
                ["required", "optional"].iter().any(|need| {
                    plain.starts_with(need)
                        && plain.ends_with(&format!(" the {words}"))
                        && plain.split(' ').count() == 3 + words.split(' ').count()
                })
            });
        if restated {
            out.push(sentence.trim().to_string());
        }
    }
    out
}
