//! Functional tests of a version against its running server: every added or changed tool is
//! called with arguments built from its input schema, and every other tool must answer as it
//! did in the previous version (the same success or error status on the same call).

use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::server::session::{Session, Status};

mod args;
pub use args::{MAX_ARGUMENT_BYTES, MAX_SCHEMA_DEPTH, arguments_for};

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
