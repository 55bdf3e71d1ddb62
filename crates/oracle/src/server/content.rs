//! What a tool result holds, as the oracle compares it: its text parts, and its other content
//! (images and audio by a hash of their data, resources, `structuredContent` with sorted keys).

use serde_json::Value;

/// The text parts of a tool result.
pub(super) fn text_parts(result: &Value) -> Vec<String> {
    let parts = result["content"].as_array().map(|c| {
        c.iter()
            .filter_map(|p| p["text"].as_str().map(str::to_string))
            .collect::<Vec<_>>()
    });
    parts.unwrap_or_default()
}

/// How [`other_parts`] opens the entry of a result's `structuredContent`.
pub(crate) const STRUCTURED: &str = "[structuredContent]";

/// Keys an error report may hold beside `error`.
const ERROR_KEYS: &[&str] = &[
    "error", "message", "code", "status", "details", "ok", "success",
];

/// Whether a result without `isError` still reports a failure in every one of its text parts:
/// a JSON object holding `error` (and beside it at most a message, code, status, details, or
/// an `ok`/`success` flag), or text
/// that opens with `Error:`. Servers that catch an exception and answer
/// `{"error": "fetch failed"}` ran nothing; two such answers alike show no change working.
/// A `structuredContent` beside the text is the same report again (Python's FastMCP sends a
/// typed return both ways), so it does not make the report an answer; an image or a resource
/// does.
pub(super) fn reports_error(parts: &[String], other: &[String]) -> bool {
    let failed = |text: &str| {
        let text = text.trim();
        if text.starts_with("Error:") {
            return true;
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => {
                map.get("error").is_some_and(|e| !e.is_null() && e != false)
                    && map.keys().all(|k| ERROR_KEYS.contains(&k.as_str()))
            }
            _ => false,
        }
    };
    let only_structured = other.iter().all(|o| o.starts_with(STRUCTURED));
    only_structured && !parts.is_empty() && parts.iter().all(|p| failed(p))
}

/// The result's non-text content and `structuredContent`, as `Outcome::other` holds them.
pub(super) fn other_parts(result: &Value) -> Vec<String> {
    let mut out: Vec<String> = result["content"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|p| p["type"] != "text")
        .map(|p| match p["type"].as_str().unwrap_or("") {
            kind @ ("image" | "audio") => format!(
                "[{kind} {}: {}]",
                p["mimeType"].as_str().unwrap_or("?"),
                digest(p["data"].as_str().unwrap_or(""))
            ),
            "resource" => {
                let r = &p["resource"];
                let uri = r["uri"].as_str().unwrap_or("?");
                match (r["text"].as_str(), r["blob"].as_str()) {
                    (Some(text), _) => format!("[resource {uri}] {text}"),
                    (None, Some(blob)) => format!("[resource {uri}: {}]", digest(blob)),
                    (None, None) => format!("[resource {uri}]"),
                }
            }
            _ => sorted(p).to_string(),
        })
        .collect();
    if !result["structuredContent"].is_null() {
        out.push(format!(
            "{STRUCTURED} {}",
            sorted(&result["structuredContent"])
        ));
    }
    out
}

/// A short, stable fingerprint of base64 data: its length and the start of its SHA-256.
fn digest(data: &str) -> String {
    use sha2::Digest;
    let hash = sha2::Sha256::digest(data.as_bytes());
    let hex: String = hash.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{} base64 characters, sha256 {hex}", data.len())
}

/// `value` with the keys of every object in sorted order, so that two answers that differ only
/// in key order compare equal.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            Value::Object(
                keys.into_iter()
                    .map(|k| (k.clone(), sorted(&map[k])))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn an_answer_that_only_reports_an_error_is_told_from_one_that_answers() {
        assert!(reports_error(&parts(&[r#"{"error":"fetch failed"}"#]), &[]));
        assert!(reports_error(
            &parts(&[r#"{"error": {"code": 401}, "ok": false}"#]),
            &[]
        ));
        assert!(reports_error(&parts(&["Error: ENOENT: no such file"]), &[]));
        // Answers that hold data, say nothing of an error, or hold no text are answers.
        assert!(!reports_error(
            &parts(&[r#"{"error": null, "items": []}"#]),
            &[]
        ));
        assert!(!reports_error(
            &parts(&[r#"{"errors": 0, "passed": 3}"#]),
            &[]
        ));
        assert!(!reports_error(&parts(&["3 errors found in the log"]), &[]));
        assert!(!reports_error(&parts(&[r#"{"error":"x"}"#, "42"]), &[]));
        assert!(!reports_error(&[], &[]));
        assert!(!reports_error(
            &parts(&["Error: x"]),
            &["[image]".to_string()]
        ));
    }

    #[test]
    fn an_error_report_sent_also_as_structured_content_is_still_an_error_report() {
        let result = serde_json::json!({
            "content": [{"type": "text", "text": "{\n  \"error\": \"No presentation is loaded\"\n}"}],
            "structuredContent": {"result": {"error": "No presentation is loaded"}},
        });
        let other = other_parts(&result);
        assert_eq!(other.len(), 1);
        assert!(reports_error(&text_parts(&result), &other));
        // Data sent both ways is an answer.
        let data = serde_json::json!({
            "content": [{"type": "text", "text": "{\"slides\": 3}"}],
            "structuredContent": {"slides": 3},
        });
        assert!(!reports_error(&text_parts(&data), &other_parts(&data)));
    }
}
