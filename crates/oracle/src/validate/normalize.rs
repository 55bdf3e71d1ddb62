//! Text with every value of a volatile shape (timestamps, ids, temporary paths, durations)
//! replaced by a placeholder: for what people read (a reason quoting an answer stays the same
//! from run to run, so the same seed gives the same record) and for recognising the shape of an
//! error message. Never for judging an answer: what varies in a tool's answers is learned from
//! the server ([`super::volatile`]).

use std::sync::LazyLock;

use regex::Regex;

/// Each pattern with the placeholder it becomes, applied in order: longer shapes first, so that
/// a timestamp is not half-eaten by the number rule.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // ISO 8601 / RFC 3339 date-times, with or without zone and fraction.
        (
            r"(\d{4})-(\d{2})-(\d{2})[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        // RFC 2822 / Date.toString() shapes: "Tue, 01 Dec 2026 10:00:00 GMT", "Tue Dec 01 2026 10:00:00 GMT+0000 (...)".
        (
            r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (\d{1,2} )?[A-Z][a-z]{2} (\d{1,2} )?\d{4} (\d{2}):(\d{2}):(\d{2})( [A-Z]{2,4}([+-]\d{4})?( \([^)]*\))?)?",
            "<time>",
        ),
        // Locale times: "10:00:00 AM", "10:00:00".
        (
            r"\b\d{1,2}:(\d{2}):(\d{2})( ?[AP]M)?\b",
            "<time>",
        ),
        (
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "<uuid>",
        ),
        // Temporary folders (the `{tmp}` of a launch, mkdtemp names).
        (r"(/private)?/(tmp|var/folders)/[^\s'\x22,;)\]}]*", "<tmp>"),
        // Durations: "12ms", "1.5 s", "300 µs".
        (
            r"\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|seconds|milliseconds)\b",
            "<duration>",
        ),
        // Epoch milliseconds or seconds, long hex ids, random base-36 ids.
        (r"\b1[5-9]\d{8}(\d{3})?\b", "<epoch>"),
        (r"(?i)\b[0-9a-f]{16,}\b", "<hex>"),
        (r"\b[a-z0-9]{20,}\b", "<id>"),
    ]
    .into_iter()
    .map(|(p, with)| (Regex::new(p).expect("the patterns above compile"), with))
    .collect()
});

/// `text` with every volatile value replaced, and line endings and trailing spaces made
/// uniform.
pub fn normalize(text: &str) -> String {
    let mut out = text.replace("\r\n", "\n");
    for (re, with) in RULES.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    tidy(&out)
}

fn tidy(text: &str) -> String {
    text.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
