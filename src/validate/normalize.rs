//! Tool outputs with their volatile parts (timestamps, ids, temporary paths, durations) replaced
//! by placeholders, so that two runs of an unchanged tool compare equal.

use std::sync::LazyLock;

use regex::Regex;

/// Each pattern with the placeholder it becomes, applied in order: longer shapes first, so that
/// a timestamp is not half-eaten by the number rule.
static RULES: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        // ISO 8601 / RFC 3339 date-times, with or without zone and fraction.
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        // RFC 2822 / Date.toString() shapes: "Tue, 01 Dec 2026 10:00:00 GMT", "Tue Dec 01 2026 10:00:00 GMT+0000 (...)".
        (
            r"(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? (\d{1,2} )?[A-Z][a-z]{2} (\d{1,2} )?\d{4} \d{2}:\d{2}:\d{2}( [A-Z]{2,4}([+-]\d{4})?( \([^)]*\))?)?",
            "<time>",
        ),
        // Locale times: "10:00:00 AM", "10:00:00".
        (r"\b\d{1,2}:\d{2}:\d{2}( ?[AP]M)?\b", "<time>"),
        (
            r"(?i)\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b",
            "<uuid>",
        ),
        // Temporary folders (the `{tmp}` of a launch, mkdtemp names).
        (r"(/private)?/(tmp|var/folders)/[^\s'\x22,;)\]}]*", "<tmp>"),
        // Durations: "12ms", "1.5 s", "300 µs".
        (r"\b\d+(\.\d+)?\s?(ns|µs|us|ms|s|sec|seconds|milliseconds)\b", "<duration>"),
        // Epoch milliseconds or seconds, long hex ids, random base-36 ids.
        (r"\b1[5-9]\d{8}(\d{3})?\b", "<epoch>"),
        (r"(?i)\b[0-9a-f]{16,}\b", "<hex>"),
        (r"\b[a-z0-9]{20,}\b", "<id>"),
    ]
    .into_iter()
    .map(|(p, with)| (Regex::new(p).expect("the patterns above compile"), with))
    .collect()
});

/// `text` with volatile content replaced, and line endings and trailing spaces made uniform.
pub fn normalize(text: &str) -> String {
    let mut out = text.replace("\r\n", "\n");
    for (re, with) in RULES.iter() {
        if re.is_match(&out) {
            out = re.replace_all(&out, *with).into_owned();
        }
    }
    out.lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_uuids_temp_paths_and_durations_become_placeholders() {
        let a = normalize(
            "created 2026-12-01T10:00:03.123Z id 3f2a1b4c-1d2e-4f50-8a9b-0c1d2e3f4a5b in /tmp/.tmpAbC123/x.json took 12ms",
        );
        let b = normalize(
            "created 2026-12-01T10:07:59.001Z id 9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b in /tmp/.tmpZz9/x.json took 3ms",
        );
        assert_eq!(a, b);
        assert_eq!(a, "created <time> id <uuid> in <tmp> took <duration>");
    }

    #[test]
    fn ordinary_words_and_small_numbers_are_kept() {
        let text = "Paris: 14 degrees, wind 20 km/h, 3 items";
        assert_eq!(normalize(text), text);
        assert_ne!(normalize("count 3"), normalize("count 4"));
    }

    #[test]
    fn epoch_times_and_long_hex_ids_become_placeholders() {
        assert_eq!(
            normalize("at 1764583200123 sha deadbeefdeadbeef1234"),
            "at <epoch> sha <hex>"
        );
    }
}
