//! Where the replayed calls come from: the original's record (one call per tool, as the oracle
//! made it), a JSONL file of `{"name", "arguments"}` objects, or a JSON-RPC log of a real agent
//! session, whose `tools/call` requests are the calls.
//!
//! Logs come in the shapes clients write: plain JSON-RPC messages one a line; lines wrapped as
//! `{"direction" | "type": ..., "message": {...}}`; the MCP Inspector's history entries
//! `{"request": ..., "response": ...}` (the request as an object or as JSON text); JSON-RPC
//! batches (an array on one line); one JSON array of any of these for the whole file; and
//! client log lines with a prefix before the message (`2025-01-01T10:00:00Z [srv] [info]
//! Message from client: {...}`), whose other lines are skipped. A line that cannot be read is
//! named in the error, with the file.

use std::path::{Path, PathBuf};

use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::Call;
use crate::validate::{Check, TestResult};

#[derive(Debug, thiserror::Error)]
pub enum CallsError {
    #[error("cannot read the calls in {}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{}, line {line}: {why}", path.display())]
    Line {
        path: PathBuf,
        line: usize,
        why: String,
    },
    #[error(
        "{} holds no tool call: no `tools/call` request and no {{\"name\", \"arguments\"}} object",
        path.display()
    )]
    Empty { path: PathBuf },
}

/// A call as a file gives it: a tool name and its arguments.
pub type Named = (String, Map<String, Value>);

/// A line of a calls file that cannot be read, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    pub line: usize,
    pub why: String,
}

/// The calls of the file at `path`, numbered from 1.
pub fn read(path: &Path) -> Result<Vec<Call>, CallsError> {
    let text = std::fs::read_to_string(path).map_err(|source| CallsError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let found = parse(&text).map_err(|bad| CallsError::Line {
        path: path.to_path_buf(),
        line: bad.line,
        why: bad.why,
    })?;
    if found.is_empty() {
        return Err(CallsError::Empty {
            path: path.to_path_buf(),
        });
    }
    Ok(numbered(found))
}

/// The calls of the original's record: each tool as the oracle called it at `v0`.
pub fn recorded(tests: &[TestResult]) -> Vec<Call> {
    let found = tests
        .iter()
        .filter(|t| t.check == Check::AsBefore)
        .map(|t| {
            let arguments = t.arguments.as_object().cloned().unwrap_or_default();
            (t.tool.clone(), arguments)
        })
        .collect();
    numbered(found)
}

fn numbered(found: Vec<Named>) -> Vec<Call> {
    found
        .into_iter()
        .enumerate()
        .map(|(i, (tool, arguments))| Call {
            id: i + 1,
            tool,
            arguments,
        })
        .collect()
}

/// The calls in a file's text, in order: a JSON array, JSON lines, or a client's log.
pub fn parse(text: &str) -> Result<Vec<Named>, BadLine> {
    if opens_json(text.trim_start())
        && text.trim_start().starts_with('[')
        && !looks_like_lines(text)
    {
        return parse_array(text);
    }
    // A client's log has lines with a message after a prefix, and lines with none, which are
    // skipped. A file without any such message line is JSON lines, where a line that is not
    // JSON is a mistake to name, not a log line to pass over.
    let is_log = text
        .lines()
        .map(str::trim)
        .any(|l| !opens_json(l) && l.contains('{'));
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        let trimmed = line.trim();
        if trimmed.is_empty() {
            continue;
        }
        let bad = |why: String| BadLine { line: line_no, why };
        if !is_log && !opens_json(trimmed) {
            return Err(bad(
                "not a JSON value, in a file of JSON lines (one call or JSON-RPC message a line)"
                    .to_string(),
            ));
        }
        if opens_json(trimmed) {
            let value: Value =
                serde_json::from_str(trimmed).map_err(|e| bad(format!("not a JSON value: {e}")))?;
            out.extend(extract(&value).map_err(bad)?);
            continue;
        }
        // A log line: the message follows a prefix; lines with no message are skipped, and so
        // are messages of no known shape, unless they claim to be a tool call.
        let Some(at) = trimmed.find('{') else {
            continue;
        };
        let mut values = serde_json::Deserializer::from_str(&trimmed[at..]).into_iter::<Value>();
        let mentions_call = trimmed.contains("tools/call");
        match values.next() {
            Some(Ok(value)) => match extract(&value) {
                Ok(found) => out.extend(found),
                Err(why) if mentions_call => return Err(bad(why)),
                Err(_) => {}
            },
            Some(Err(e)) if mentions_call => {
                return Err(bad(format!(
                    "the message after the log prefix is not JSON: {e}"
                )));
            }
            _ => {}
        }
    }
    Ok(out)
}

/// Whether `text` starts like a JSON object or array, not like a log line's `[info]` prefix.
fn opens_json(text: &str) -> bool {
    match text.strip_prefix('[') {
        Some(rest) => rest.trim_start().starts_with(['{', '[', ']']),
        None => text.starts_with('{'),
    }
}

/// A file of JSON lines whose first line is a JSON-RPC batch also starts with `[`: it is read
/// as lines when its first line is a whole JSON value and more lines follow.
fn looks_like_lines(text: &str) -> bool {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let first_whole = lines
        .next()
        .is_some_and(|l| serde_json::from_str::<Value>(l).is_ok());
    first_whole && lines.next().is_some()
}

/// One JSON array for the whole file; an element that is not a call or message is named by
/// the line it starts on.
fn parse_array(text: &str) -> Result<Vec<Named>, BadLine> {
    // serde counts the line after a last newline, where an unclosed array ends.
    let items: Vec<&RawValue> = serde_json::from_str(text).map_err(|e| BadLine {
        line: e.line().clamp(1, text.lines().count().max(1)),
        why: format!("not a JSON array of messages: {e}"),
    })?;
    let mut out = Vec::new();
    for (i, raw) in items.iter().enumerate() {
        let offset = raw.get().as_ptr() as usize - text.as_ptr() as usize;
        let line = text[..offset].matches('\n').count() + 1;
        let value: Value = serde_json::from_str(raw.get()).expect("a valid element of the array");
        let found = extract(&value).map_err(|why| BadLine {
            line,
            why: format!("element {} of the array: {why}", i + 1),
        })?;
        out.extend(found);
    }
    Ok(out)
}

/// The calls one message or call object holds: a `tools/call` request gives one, another
/// JSON-RPC message none; wrappers are opened.
fn extract(value: &Value) -> Result<Vec<Named>, String> {
    let object = match value {
        Value::Array(items) => {
            let mut out = Vec::new();
            for item in items {
                out.extend(extract(item)?);
            }
            return Ok(out);
        }
        Value::Object(o) => o,
        other => return Err(format!("{} is not a JSON object", kind(other))),
    };
    if object.contains_key("jsonrpc") || object.contains_key("method") {
        if object.get("method").and_then(Value::as_str) != Some("tools/call") {
            return Ok(Vec::new());
        }
        let params = object.get("params").unwrap_or(&Value::Null);
        let Some(name) = params.get("name").and_then(Value::as_str) else {
            return Err("a tools/call request without a string `params.name`".into());
        };
        return Ok(vec![(
            name.to_string(),
            arguments(params.get("arguments"))?,
        )]);
    }
    if object.contains_key("result") && object.contains_key("id") {
        return Ok(Vec::new()); // a response whose `jsonrpc` field the client left out
    }
    for wrapper in ["message", "request"] {
        if let Some(inner) = object.get(wrapper) {
            return match inner {
                // Some clients keep the message as the JSON text that went over the wire.
                Value::String(text) => {
                    let parsed: Value = serde_json::from_str(text)
                        .map_err(|e| format!("`{wrapper}` holds text that is not JSON: {e}"))?;
                    extract(&parsed)
                }
                inner => extract(inner),
            };
        }
    }
    for key in ["name", "tool"] {
        if let Some(name) = object.get(key) {
            let Some(name) = name.as_str() else {
                return Err(format!("`{key}` is {}, not a tool name", kind(name)));
            };
            return Ok(vec![(
                name.to_string(),
                arguments(object.get("arguments"))?,
            )]);
        }
    }
    Err(
        "neither a call {\"name\", \"arguments\"} nor a JSON-RPC message nor a wrapped one ({\"message\": ...})"
            .into(),
    )
}

fn arguments(value: Option<&Value>) -> Result<Map<String, Value>, String> {
    match value {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(o)) => Ok(o.clone()),
        Some(other) => Err(format!("`arguments` is {}, not an object", kind(other))),
    }
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn names(text: &str) -> Vec<String> {
        parse(text).unwrap().into_iter().map(|(n, _)| n).collect()
    }

    #[test]
    fn jsonl_calls_are_read_in_order_with_their_arguments() {
        let text = "{\"name\": \"get_forecast\", \"arguments\": {\"city\": \"paris\"}}\n\n{\"name\": \"list_cities\"}\n";
        let calls = parse(text).unwrap();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].0, "get_forecast");
        assert_eq!(Value::Object(calls[0].1.clone()), json!({"city": "paris"}));
        assert!(calls[1].1.is_empty());
    }

    #[test]
    fn only_the_tools_call_requests_of_a_json_rpc_log_are_calls() {
        let text = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{}}
{"jsonrpc":"2.0","id":0,"result":{"serverInfo":{"name":"x"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":1,"method":"tools/list"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_forecast","arguments":{"city":"lima"}}}
{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"lima: fog"}]}}
[{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"a"}},{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"b"}}]
"#;
        assert_eq!(names(text), ["get_forecast", "a", "b"]);
    }

    #[test]
    fn wrapped_messages_inspector_history_and_client_log_lines_are_opened() {
        let text = r#"{"direction":"send","message":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"one","arguments":{}}}}
{"type":"recv","message":{"jsonrpc":"2.0","id":1,"result":{}}}
{"request":"{\"method\":\"tools/call\",\"params\":{\"name\":\"two\",\"arguments\":{\"x\":1}}}","response":"{}"}
2025-01-01T10:00:00.000Z [weather] [info] Initializing server...
2025-01-01T10:00:01.000Z [weather] [info] Message from client: {"method":"tools/call","params":{"name":"three","arguments":{}},"jsonrpc":"2.0","id":5} { metadata: undefined }
2025-01-01T10:00:01.000Z [weather] [info] Message from server: {"jsonrpc":"2.0","id":5,"result":{}} { metadata: undefined }
"#;
        assert_eq!(names(text), ["one", "two", "three"]);
    }

    #[test]
    fn a_json_array_file_is_read_whole_and_a_bad_element_is_named_by_its_line() {
        let text = "[\n  {\"name\": \"a\", \"arguments\": {}},\n  {\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\", \"params\": {\"name\": \"b\"}}\n]\n";
        assert_eq!(names(text), ["a", "b"]);
        let bad = "[\n  {\"name\": \"a\"},\n\n  {\"name\": \"b\", \"arguments\": [1]}\n]\n";
        let err = parse(bad).unwrap_err();
        assert_eq!(err.line, 4, "{err:?}");
        assert!(err.why.contains("element 2"), "{err:?}");
        assert!(err.why.contains("not an object"), "{err:?}");
    }

    #[test]
    fn a_malformed_line_is_refused_with_its_number_and_cause() {
        let cases = [
            (
                "{\"name\": \"a\"}\n{\"name\": \"b\", \n",
                2,
                "not a JSON value",
            ),
            ("{\"name\": \"a\"}\n\n{\"name\": 7}\n", 3, "not a tool name"),
            (
                "{\"name\": \"a\", \"arguments\": \"x=1\"}\n",
                1,
                "not an object",
            ),
            ("{\"city\": \"paris\"}\n", 1, "neither a call"),
            (
                "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{}}\n",
                1,
                "without a string `params.name`",
            ),
            (
                "[info] Message from client: {\"method\":\"tools/call\", \"params\": \n",
                1,
                "not JSON",
            ),
            (
                "{\"message\": \"{not json\"}\n",
                1,
                "holds text that is not JSON",
            ),
        ];
        for (text, line, words) in cases {
            let err = parse(text).unwrap_err();
            assert_eq!(err.line, line, "{text:?}: {err:?}");
            assert!(err.why.contains(words), "{text:?}: {err:?}");
        }
    }

    #[test]
    fn a_line_that_is_not_json_in_a_file_of_json_lines_is_refused_with_its_number() {
        let text = "{\"name\": \"a\"}\nname: b\n{\"name\": \"c\"}\n";
        let bad = parse(text).unwrap_err();
        assert_eq!(bad.line, 2, "{bad:?}");
        assert!(bad.why.contains("not a JSON value"), "{bad:?}");
        // In a client's log, lines without a message are its other lines, and are skipped.
        let log = "2025-01-01 [srv] [info] starting\n2025-01-01 [srv] [info] Message from client: {\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}\n";
        assert_eq!(names(log), ["a"]);
    }

    #[test]
    fn a_file_of_json_rpc_batches_one_a_line_is_read_as_lines() {
        let text = "[{\"method\":\"tools/call\",\"params\":{\"name\":\"a\"}}]\n[{\"method\":\"tools/call\",\"params\":{\"name\":\"b\"}}]\n";
        assert_eq!(names(text), ["a", "b"]);
    }
}
