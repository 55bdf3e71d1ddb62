//! How a version's tools are called: each tool once, with chosen arguments, in a chosen order.
//! A later version gets the same calls in the same order, so a plan is handed from version to
//! version through the checks of each round (`CallHints`), and only what failed is looked for
//! again.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::{Check, TestResult};
use crate::server::session::CallStatus;

/// One call to observe: a tool, its arguments, and whether to record it as timed out without
/// calling it (the drift audit replays calls that way).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCall {
    pub name: String,
    pub arguments: Map<String, Value>,
    pub skip: bool,
    /// Made only if the call at this index of the same plan answered without error in the
    /// same session (a tool's call with optional parameters set follows its plain call).
    pub after: Option<usize>,
}

impl PlannedCall {
    pub fn new(name: &str, arguments: Map<String, Value>) -> PlannedCall {
        PlannedCall {
            name: name.to_string(),
            arguments,
            skip: false,
            after: None,
        }
    }
}

/// How many calls with optional parameters set one tool gets at most: all of them at once,
/// then the first ones alone (a server may refuse some together).
pub const OPTIONAL_CALLS_PER_TOOL: usize = 3;

/// The calls of one tool with its optional parameters set, each a value other than what the
/// server assumes without it (`args::other_value`), on top of `base`, the call that answered:
/// the parameters set, and the arguments. Behaviour behind an optional parameter is otherwise
/// never compared from version to version.
pub fn with_options(
    schema: &Value,
    base: &Map<String, Value>,
) -> Vec<(Vec<String>, Map<String, Value>)> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let Some(props) = schema["properties"].as_object() else {
        return Vec::new();
    };
    let optional: Vec<(String, Value)> = props
        .iter()
        .filter(|(name, _)| !required.contains(&name.as_str()) && !base.contains_key(*name))
        .filter_map(|(name, prop)| Some((name.clone(), super::args::other_value(prop, name)?)))
        .collect();
    let call = |set: &[(String, Value)]| {
        let mut arguments = base.clone();
        arguments.extend(set.iter().cloned());
        (set.iter().map(|(n, _)| n.clone()).collect(), arguments)
    };
    let mut out = Vec::new();
    if !optional.is_empty() {
        out.push(call(&optional));
    }
    if optional.len() > 1 {
        for one in optional.iter().take(OPTIONAL_CALLS_PER_TOOL - 1) {
            out.push(call(std::slice::from_ref(one)));
        }
    }
    out
}

/// `planned`'s calls followed by each tool's calls with optional parameters set (for the tools
/// of `schemas`), each made only where its plain call answered in the same session.
pub fn and_options(planned: &[PlannedCall], schemas: &[(&str, &Value)]) -> Vec<PlannedCall> {
    let mut out = planned.to_vec();
    for (i, call) in planned.iter().enumerate() {
        if call.skip {
            continue;
        }
        let Some((_, schema)) = schemas.iter().find(|(n, _)| *n == call.name) else {
            continue;
        };
        for (_, arguments) in with_options(schema, &call.arguments) {
            out.push(PlannedCall {
                after: Some(i),
                ..PlannedCall::new(&call.name, arguments)
            });
        }
    }
    out
}

/// How one tool was called at a version's checks, and how it answered.
#[derive(Debug, Clone, PartialEq)]
pub struct Hint {
    pub arguments: Map<String, Value>,
    pub status: CallStatus,
    /// Where it came in the calls.
    pub position: usize,
}

/// The calls a version's checks made of each tool (the previous version's plan, answered by
/// this version): what the next observation starts from. Empty for a version never checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CallHints {
    by_tool: BTreeMap<String, Hint>,
}

impl CallHints {
    /// The calls of a round's checks (`round.json`'s `tests`): each tool's first call that
    /// repeats the previous version's call (as before, on a new name) or calls it as its
    /// schema says (a new tool, new required input), with the status this version answered.
    pub fn from_tests(tests: &[TestResult]) -> CallHints {
        let mut by_tool = BTreeMap::new();
        for (position, t) in tests.iter().enumerate() {
            if !matches!(
                t.check,
                Check::AsBefore | Check::Renamed { .. } | Check::New
            ) {
                continue;
            }
            let Some(arguments) = t.arguments.as_object() else {
                continue;
            };
            by_tool.entry(t.tool.clone()).or_insert_with(|| Hint {
                arguments: arguments.clone(),
                status: t.status,
                position,
            });
        }
        CallHints { by_tool }
    }

    /// Hints as an earlier observation gives them: its calls in order with their answers.
    pub fn from_calls<'a>(
        calls: impl IntoIterator<Item = (&'a str, &'a Map<String, Value>, CallStatus)>,
    ) -> CallHints {
        let by_tool = calls
            .into_iter()
            .enumerate()
            .map(|(position, (tool, arguments, status))| {
                let hint = Hint {
                    arguments: arguments.clone(),
                    status,
                    position,
                };
                (tool.to_string(), hint)
            })
            .collect();
        CallHints { by_tool }
    }

    pub fn get(&self, tool: &str) -> Option<&Hint> {
        self.by_tool.get(tool)
    }

    /// A tool that answered at the last checks with these arguments: it is called the same way
    /// again without looking further.
    pub fn settled(&self, tool: &str) -> Option<&Map<String, Value>> {
        self.get(tool)
            .filter(|h| h.status == CallStatus::Ok)
            .map(|h| &h.arguments)
    }

    pub fn is_empty(&self) -> bool {
        self.by_tool.is_empty()
    }
}

/// Where a tool goes in the calls, by the words of its name: tools that open a session or
/// create an item first, tools that remove or close one last, the rest between.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Role {
    Creates,
    Uses,
    Removes,
}

/// Verbs of tools that make something later calls may need.
const CREATES: &[&str] = &[
    "create",
    "add",
    "new",
    "open",
    "start",
    "launch",
    "connect",
    "navigate",
    "goto",
    "init",
    "initialize",
    "register",
    "insert",
    "write",
    "save",
    "put",
    "set",
    "upload",
    "login",
    "signin",
    "begin",
    "store",
    "load",
    "import",
    "append",
    "remember",
    "push",
    "post",
    "record",
    "spawn",
    "mkdir",
    "touch",
    "make",
    "generate",
];
/// Verbs of tools that take away what other calls may need.
const REMOVES: &[&str] = &[
    "delete",
    "remove",
    "rm",
    "del",
    "close",
    "stop",
    "kill",
    "clear",
    "reset",
    "disconnect",
    "destroy",
    "drop",
    "end",
    "terminate",
    "quit",
    "exit",
    "logout",
    "signout",
    "purge",
    "cancel",
    "unregister",
    "shutdown",
    "move",
    "rename",
    "unlink",
    "erase",
    "wipe",
    "forget",
    "detach",
    "uninstall",
];

impl Role {
    pub fn of(tool: &str) -> Role {
        let words = words(tool);
        let any = |verbs: &[&str]| words.iter().any(|w| verbs.contains(&w.as_str()));
        if any(REMOVES) {
            Role::Removes
        } else if any(CREATES) {
            Role::Creates
        } else {
            Role::Uses
        }
    }
}

/// The lowercase words of a name: split at `_`, `-`, `.`, `/`, spaces and camelCase humps.
pub fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut previous_lower = false;
    for c in name.chars() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                out.push(std::mem::take(&mut word));
            }
            previous_lower = false;
            continue;
        }
        if c.is_uppercase() && previous_lower && !word.is_empty() {
            out.push(std::mem::take(&mut word));
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        out.push(word);
    }
    out
}

/// The order tools are first tried in: by role, then where the last checks called them (so a
/// plan that worked keeps its order), then by name; tools that hung at the last checks after
/// all those, and tools that crashed the server last.
pub fn trial_order<'a>(tools: &[(&'a str, &'a Value)], hints: &CallHints) -> Vec<&'a str> {
    let mut names: Vec<&str> = tools.iter().map(|(n, _)| *n).collect();
    names.sort_by_key(|n| {
        let hint = hints.get(n);
        let stuck = match hint.map(|h| h.status) {
            Some(CallStatus::Timeout) => 1,
            Some(CallStatus::Crashed) => 2,
            _ => 0,
        };
        let position = hint.map_or(usize::MAX, |h| h.position);
        (stuck, Role::of(n), position, n.to_string())
    });
    names
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_split_into_words_at_separators_and_humps() {
        assert_eq!(words("add_observations"), ["add", "observations"]);
        assert_eq!(words("noteId"), ["note", "id"]);
        assert_eq!(
            words("puppeteer-navigatePage"),
            ["puppeteer", "navigate", "page"]
        );
        assert_eq!(words("HTTPServer"), ["httpserver"]);
    }

    #[test]
    fn openers_come_first_and_closers_last() {
        assert_eq!(Role::of("start_session"), Role::Creates);
        assert_eq!(Role::of("puppeteer_navigate"), Role::Creates);
        assert_eq!(Role::of("query_session"), Role::Uses);
        assert_eq!(Role::of("close_session"), Role::Removes);
        assert_eq!(Role::of("port_forward_stop"), Role::Removes);
        // Removing wins: the tool takes something away, whatever else it does.
        assert_eq!(Role::of("create_or_delete"), Role::Removes);
        let schema = json!({});
        let tools = [
            ("close_session", &schema),
            ("query_session", &schema),
            ("start_session", &schema),
        ];
        assert_eq!(
            trial_order(&tools, &CallHints::default()),
            ["start_session", "query_session", "close_session"]
        );
    }

    #[test]
    fn optional_parameters_are_set_together_then_the_first_ones_alone() {
        let schema = json!({"type": "object", "required": ["q"], "properties": {
            "q": {"type": "string"}, "limit": {"type": "integer", "default": 5},
            "exact": {"type": "boolean"}, "mode": {"enum": ["fast", "full"], "default": "fast"},
            "fixed": {"const": 1}
        }});
        let base = json!({"q": "x"}).as_object().unwrap().clone();
        let calls = with_options(&schema, &base);
        let sets: Vec<Vec<String>> = calls.iter().map(|(p, _)| p.clone()).collect();
        assert_eq!(
            sets,
            // In the schema's order.
            [vec!["limit", "exact", "mode"], vec!["limit"], vec!["exact"]]
        );
        assert_eq!(
            calls[0].1,
            *json!({"q": "x", "exact": true, "limit": 6, "mode": "full"})
                .as_object()
                .unwrap()
        );
        // A parameter the plain call already sets is left as it is; no optional ones, no calls.
        let set = json!({"q": "x", "exact": false, "limit": 1, "mode": "full"});
        assert!(with_options(&schema, set.as_object().unwrap()).is_empty());

        // Planned after the plain call they extend, which a skipped call does not get.
        let planned = [
            PlannedCall::new("a", base.clone()),
            PlannedCall {
                skip: true,
                ..PlannedCall::new("b", base.clone())
            },
        ];
        let plan = and_options(&planned, &[("a", &schema), ("b", &schema)]);
        assert_eq!(plan.len(), 2 + 3);
        assert!(
            plan[2..]
                .iter()
                .all(|c| c.name == "a" && c.after == Some(0))
        );
    }

    #[test]
    fn hints_keep_the_first_call_of_each_tool_that_repeats_the_plan() {
        let test = |tool: &str, check: Check, status: CallStatus, n: i64| TestResult {
            tool: tool.into(),
            kind: super::super::TestKind::Unchanged,
            check,
            arguments: json!({ "n": n }),
            status,
            expected: None,
            verdict: Default::default(),
            passed: false,
            compared: None,
            enforced: None,
            reason: None,
            differed: false,
            reference: None,
            answer: None,
        };
        let tests = [
            test("b", Check::AsBefore, CallStatus::Ok, 1),
            test(
                "b",
                Check::ParamSet { param: "x".into() },
                CallStatus::ToolError,
                2,
            ),
            test("a", Check::AsBefore, CallStatus::ToolError, 3),
            test("a", Check::AsBefore, CallStatus::Ok, 4),
            test("c", Check::Gone, CallStatus::Ok, 5),
        ];
        let hints = CallHints::from_tests(&tests);
        assert_eq!(hints.settled("b"), json!({"n": 1}).as_object());
        assert_eq!(hints.settled("a"), None, "its first call failed");
        assert_eq!(hints.get("a").map(|h| h.position), Some(2));
        assert!(hints.get("c").is_none(), "a removed name is no hint");
    }
}
