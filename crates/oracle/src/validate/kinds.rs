//! Strings of a kind a made-up word never is: what a `pattern`, a date format or a name or
//! description that says SQL, arithmetic, a time zone or a CSS selector asks for (discovery
//! tries them when the schema-built call fails).

use serde_json::Value;

use super::plan::words;

/// Strings tried against a `pattern`, in this order: the first it matches is used.
const PATTERN_PROBES: &[&str] = &[
    "2024-01-15",
    "2024-01-15T00:00:00Z",
    "12:00",
    "1",
    "a",
    "A",
    "test-1",
    "user@example.com",
    "https://example.com/",
    "UTC",
    "en",
    "US",
    "USD",
];

/// A string the schema's format, pattern or description asks for, when the plain one may not
/// be it ("a date in YYYY-MM-DD format").
pub fn formatted(name: &str, schema: &Value) -> Option<String> {
    if let Some(pattern) = schema["pattern"].as_str()
        && let Ok(re) = regex::Regex::new(pattern)
    {
        return PATTERN_PROBES
            .iter()
            .find(|p| re.is_match(p))
            .map(|p| p.to_string());
    }
    let about = schema["description"]
        .as_str()
        .unwrap_or("")
        .to_ascii_lowercase();
    let name_words = words(name);
    if about.contains("yyyy-mm-dd") || name_words.iter().any(|w| w == "date") {
        return Some("2024-01-15".into());
    }
    if about.contains("iso 8601") || about.contains("iso8601") {
        return Some("2024-01-15T00:00:00Z".into());
    }
    let named = |w: &[&str]| name_words.iter().any(|n| w.contains(&n.as_str()));
    KINDS
        .iter()
        .find(|(names, described, _)| {
            named(names)
                || described
                    .iter()
                    .any(|d| about.contains(d) && !named(&["path"]))
        })
        .map(|(_, _, value)| value.to_string())
}

/// Kinds of strings a made-up word never is, by the parameter's name or its description, with a
/// value every server of that kind takes: an SQL statement, arithmetic, a time zone.
const KINDS: &[(&[&str], &[&str], &str)] = &[
    (&["sql"], &["sql"], "SELECT 1"),
    (
        &["expression", "expr", "formula", "equation", "script"],
        &["mathematical", "arithmetic"],
        "1 + 1",
    ),
    (
        &["timezone", "tz"],
        &["iana time zone", "iana timezone"],
        "UTC",
    ),
    (&["language", "lang", "locale"], &["language code"], "en"),
    (&["currency"], &["currency code"], "USD"),
    // The sample page's one field (`{tmp}/samples/sample.html`): it can be clicked and filled.
    (&["selector"], &["css selector"], "input"),
    (&["country"], &["country code"], "US"),
];
