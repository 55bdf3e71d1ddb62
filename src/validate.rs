//! Functional tests of a version against its running server: every added or changed tool is
//! called with arguments built from its input schema, and every other tool must answer as it
//! did in the previous version (the same success or error status on the same call).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use crate::server::session::{Session, Status};

/// How long one tool call may take: tools that reach the network fail fast offline, and a
/// hung handler is a failure worth reporting, not a reason to wait.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TestKind {
    Added,
    Changed,
    /// Not touched by the round: must behave as in the previous version.
    Unchanged,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestResult {
    pub tool: String,
    pub kind: TestKind,
    pub arguments: Value,
    pub status: Status,
    /// For unchanged tools: the status in the previous version.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected: Option<Status>,
    pub passed: bool,
    /// Set when the tool was not called: it timed out in the previous version, and calling it
    /// again would only spend the timeout once more.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub skipped: Option<String>,
    /// Why a test failed (never the tool's output on success: it may vary run to run, and the
    /// record must not, so that the same seed gives the same commits).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
}

/// Arguments that satisfy a JSON schema's required properties, with the simplest valid values.
pub fn arguments_for(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema["properties"].as_object() {
        for (name, prop) in props {
            if required.contains(&name.as_str()) {
                out.insert(name.clone(), value_for(prop, name));
            }
        }
    }
    out
}

fn value_for(schema: &Value, name: &str) -> Value {
    if let Some(v) = schema.get("default").or_else(|| schema.get("const")) {
        return v.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema[key]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["type"] != "null"))
        {
            return value_for(first, name);
        }
    }
    let ty = match &schema["type"] {
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        Value::String(t) => t.as_str(),
        _ => {
            if schema.get("properties").is_some() {
                "object"
            } else {
                "string"
            }
        }
    };
    match ty {
        "number" | "integer" => {
            let min = schema["minimum"]
                .as_f64()
                .or_else(|| schema["exclusiveMinimum"].as_f64().map(|m| m + 1.0));
            let n = min
                .unwrap_or(1.0)
                .max(schema["maximum"].as_f64().map_or(f64::MIN, |m| m.min(1.0)));
            if ty == "integer" || n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "boolean" => json!(false),
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            let items: Vec<Value> = (0..min.max(1))
                .map(|_| value_for(&schema["items"], name))
                .collect();
            if min == 0 && schema["items"].is_null() {
                json!([])
            } else {
                Value::Array(items)
            }
        }
        "object" => Value::Object(arguments_for(schema)),
        "null" => Value::Null,
        _ => json!(string_for(schema, name)),
    }
}

fn string_for(schema: &Value, name: &str) -> String {
    let text = match schema["format"].as_str() {
        Some("uri" | "url") => "https://example.com/".to_string(),
        Some("date-time") => "2026-01-01T00:00:00Z".to_string(),
        Some("date") => "2026-01-01".to_string(),
        Some("email") => "user@example.com".to_string(),
        _ if name.to_ascii_lowercase().contains("url") => "https://example.com/".to_string(),
        _ => "test".to_string(),
    };
    let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
    if text.len() < min {
        format!("{text}{}", "x".repeat(min - text.len()))
    } else {
        text
    }
}

/// A tool-level answer that says the tool does not exist: the dispatch was not updated.
fn says_unknown_tool(text: &str) -> bool {
    let t = text.to_ascii_lowercase();
    t.contains("unknown tool")
        || t.contains("no such tool")
        || (t.contains("tool") && t.contains("not found"))
}

fn is_success(s: Status) -> bool {
    s == Status::Ok
}

/// Calls every listed tool once, in name order, and judges each call.
pub async fn run(
    session: &Session,
    tools: &[Value],
    added: &BTreeSet<String>,
    changed: &BTreeSet<String>,
    previous: &BTreeMap<String, Status>,
) -> Vec<TestResult> {
    let mut sorted: Vec<&Value> = tools.iter().collect();
    sorted.sort_by_key(|t| t["name"].as_str().unwrap_or("").to_string());
    let mut results = Vec::new();
    for tool in sorted {
        let Some(name) = tool["name"].as_str() else {
            continue;
        };
        let arguments = arguments_for(&tool["inputSchema"]);
        let kind = if added.contains(name) {
            TestKind::Added
        } else if changed.contains(name) {
            TestKind::Changed
        } else {
            TestKind::Unchanged
        };
        let expected = (kind == TestKind::Unchanged)
            .then(|| previous.get(name).copied())
            .flatten();
        if expected == Some(Status::Timeout) {
            results.push(TestResult {
                tool: name.to_string(),
                kind,
                arguments: Value::Object(arguments),
                status: Status::Timeout,
                expected,
                passed: true,
                skipped: Some("not called: it timed out in the previous version".into()),
                reason: None,
            });
            continue;
        }
        let outcome = session.call(name, arguments.clone(), CALL_TIMEOUT).await;
        let reason = judge(kind, outcome.status, &outcome.text, expected);
        results.push(TestResult {
            tool: name.to_string(),
            kind,
            arguments: Value::Object(arguments),
            status: outcome.status,
            expected,
            passed: reason.is_none(),
            skipped: None,
            reason,
        });
        if outcome.status == Status::Crashed {
            break; // nothing else can be called on a dead server
        }
    }
    results
}

/// Why a call fails its test, or None when it passes.
fn judge(kind: TestKind, status: Status, text: &str, expected: Option<Status>) -> Option<String> {
    let short: String = text.chars().take(200).collect();
    match status {
        Status::Crashed => return Some(format!("the server crashed: {short}")),
        Status::Timeout if expected != Some(Status::Timeout) => return Some(short),
        _ => {}
    }
    if status != Status::Ok && says_unknown_tool(text) {
        return Some(format!("the server does not know the listed tool: {short}"));
    }
    match (kind, expected) {
        (TestKind::Unchanged, Some(before)) if is_success(before) != is_success(status) => {
            Some(format!(
                "it answered {status:?} where the previous version answered {before:?}: {short}"
            ))
        }
        _ => None,
    }
}

/// Each tool's status in a list of results, for the next version to be compared against.
pub fn statuses(results: &[TestResult]) -> BTreeMap<String, Status> {
    results.iter().map(|r| (r.tool.clone(), r.status)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_fill_required_properties_with_valid_values() {
        let schema = json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer", "minimum": 3},
            "unit": {"type": "string", "enum": ["c", "f"]}, "url": {"type": "string", "format": "uri"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "extra": {"type": "string"}
        }, "required": ["city", "days", "unit", "url", "tags"]});
        let args = arguments_for(&schema);
        assert_eq!(
            Value::Object(args),
            json!({"city": "test", "days": 3, "unit": "c", "url": "https://example.com/", "tags": ["test"]})
        );
    }

    #[test]
    fn an_unchanged_tool_that_now_fails_where_it_succeeded_fails_its_test() {
        assert!(
            judge(
                TestKind::Unchanged,
                Status::ToolError,
                "boom",
                Some(Status::Ok)
            )
            .is_some()
        );
        assert!(
            judge(
                TestKind::Unchanged,
                Status::RpcError,
                "bad",
                Some(Status::ToolError)
            )
            .is_none()
        );
        assert!(judge(TestKind::Unchanged, Status::Ok, "", Some(Status::Ok)).is_none());
    }

    #[test]
    fn a_changed_tool_fails_on_crash_timeout_or_unknown_tool_but_not_on_a_tool_error() {
        assert!(judge(TestKind::Changed, Status::Crashed, "", None).is_some());
        assert!(judge(TestKind::Added, Status::Timeout, "", None).is_some());
        assert!(
            judge(
                TestKind::Added,
                Status::ToolError,
                "Unknown tool: echo_v2",
                None
            )
            .is_some()
        );
        assert!(
            judge(
                TestKind::Added,
                Status::RpcError,
                "MCP error -32602: Tool echo_v2 not found",
                None
            )
            .is_some()
        );
        assert!(
            judge(
                TestKind::Changed,
                Status::ToolError,
                "city must be a real city",
                None
            )
            .is_none()
        );
    }
}
