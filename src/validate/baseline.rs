//! What the previous version answers: every listed tool called with its required arguments in
//! two fresh sessions (to learn which outputs are deterministic), and how the server answers a
//! tool name it never had (to recognise "unknown tool" by shape, not by words).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};

use super::CALL_TIMEOUT;
use super::args::arguments_for;
use super::normalize::normalize;
use crate::server::session::{CallStatus, Outcome, Session};
use crate::server::{LaunchConfig, ServerError};

/// A tool name no server has: the answer to it is the server's "unknown tool" answer.
pub const PROBE_TOOL: &str = "mcpevol_probe_no_such_tool";
/// Stands for the called name in an "unknown tool" answer, so that answers for different
/// names compare equal.
const NAME_HOLE: &str = "{name}";
/// Characters of an "unknown tool" answer that must match: some servers append the list of
/// tools they do know, which a round changes.
const UNKNOWN_PREFIX: usize = 40;

/// One call at the previous version.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation {
    pub arguments: Map<String, Value>,
    pub status: CallStatus,
    /// Normalised text parts of the result (or the error message as one part).
    pub parts: Vec<String>,
    /// The same parts as the first session answered them, for claims that transform them.
    pub raw: Vec<String>,
    /// The two sessions gave the same normalised answer, so a later version's answer can be
    /// compared with it.
    pub deterministic: bool,
}

impl Observation {
    pub fn text(&self) -> String {
        self.parts.join("\n")
    }

    /// Whether `again`, a later sample of the same call on the same version, gave this
    /// answer deterministically too: a deterministic output that `again` does not confirm
    /// varies after all.
    pub fn confirmed_by(&self, again: &Observation) -> bool {
        again.status == self.status && again.parts == self.parts && again.deterministic
    }
}

#[cfg(test)]
impl Observation {
    /// An answer as tests write it: one text part, no arguments.
    pub(crate) fn answered(status: CallStatus, text: &str, deterministic: bool) -> Observation {
        Observation {
            arguments: Map::new(),
            status,
            parts: vec![text.to_string()],
            raw: vec![text.to_string()],
            deterministic,
        }
    }
}

/// How the server answers a call of a tool it does not have.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownShape {
    pub status: CallStatus,
    pub text: String,
}

/// The previous version's answers, computed once per version and shared by a round's attempts.
#[derive(Debug, Clone, Default)]
pub struct Baseline {
    /// Listed tools in the order they were called (by name).
    pub calls: BTreeMap<String, Observation>,
    pub unknown: Option<UnknownShape>,
}

/// The normalised parts of an outcome (its message when it has no content).
pub fn normalized_parts(outcome: &Outcome) -> Vec<String> {
    if outcome.parts.is_empty() {
        vec![normalize(&outcome.text)]
    } else {
        outcome.parts.iter().map(|p| normalize(p)).collect()
    }
}

impl UnknownShape {
    fn of(outcome: &Outcome, name: &str) -> UnknownShape {
        UnknownShape {
            status: outcome.status,
            text: normalize(&outcome.text.replace(name, NAME_HOLE)),
        }
    }

    /// Whether `outcome`, the answer to a call of `name`, is this server's "unknown tool".
    pub fn matches(&self, outcome: &Outcome, name: &str) -> bool {
        if outcome.status != self.status || matches!(self.status, CallStatus::Ok) {
            return false;
        }
        let other = UnknownShape::of(outcome, name);
        if other.text == self.text {
            return true;
        }
        // "Unknown tool: {name}. Known: a, b": the words up to the name say it all.
        if let (Some(a), Some(b)) = (self.text.find(NAME_HOLE), other.text.find(NAME_HOLE)) {
            return a > 0 && self.text[..a] == other.text[..b];
        }
        let prefix = |t: &str| t.chars().take(UNKNOWN_PREFIX).collect::<String>();
        let long = |t: &str| t.chars().count() >= UNKNOWN_PREFIX;
        long(&self.text) && long(&other.text) && prefix(&other.text) == prefix(&self.text)
    }

    /// Whether one of `calls` (tool names the server lists, with its answers) was answered
    /// this way: a server that answers its own tools as it answers a name it never had (say
    /// every call fails before dispatch) gives no way to tell an unknown tool by its answer.
    pub fn answers_like_any<'a>(
        &self,
        calls: impl IntoIterator<Item = (&'a str, &'a Observation)>,
    ) -> bool {
        calls.into_iter().any(|(name, seen)| {
            let answer = Outcome {
                status: seen.status,
                text: seen.text(),
                parts: Vec::new(),
            };
            self.matches(&answer, name)
        })
    }
}

impl Baseline {
    /// Starts the server at `root` twice at once, and calls every tool of `tools` in name order
    /// in both; the first session also asks for [`PROBE_TOOL`] at the end. Tools in `skip`
    /// (they timed out before) are recorded as timed out without being called.
    pub async fn observe(
        root: &Path,
        config: &LaunchConfig,
        tools: &[Value],
        timeout: Duration,
        skip: &[String],
    ) -> Result<Baseline, ServerError> {
        let planned: Vec<PlannedCall> = in_call_order(tools)
            .into_iter()
            .map(|(name, schema)| PlannedCall {
                name: name.to_string(),
                arguments: arguments_for(schema),
                skip: skip.iter().any(|s| s == name),
            })
            .collect();
        let (observed, unknown) =
            observe_calls(root, config, &planned, timeout, CALL_TIMEOUT).await?;
        let calls: BTreeMap<String, Observation> = planned
            .into_iter()
            .zip(observed)
            .map(|(p, seen)| (p.name, seen))
            .collect();
        let unknown = unknown
            .filter(|shape| !shape.answers_like_any(calls.iter().map(|(n, s)| (n.as_str(), s))));
        Ok(Baseline { calls, unknown })
    }
}

/// One call to observe: a tool, its arguments, and whether to record it as timed out without
/// calling it (it timed out in an earlier version, and would only hold everything up again).
#[derive(Debug, Clone, PartialEq)]
pub struct PlannedCall {
    pub name: String,
    pub arguments: Map<String, Value>,
    pub skip: bool,
}

/// Starts the server at `root` twice at once and makes `calls` in order in both; the first
/// session also asks for [`PROBE_TOOL`] at the end, each call given `call_timeout`. Each
/// answer is deterministic when both sessions gave the same normalised one. The unknown-tool shape is as the server answered
/// the probe: see [`UnknownShape::answers_like_any`] before trusting it.
pub async fn observe_calls(
    root: &Path,
    config: &LaunchConfig,
    calls: &[PlannedCall],
    timeout: Duration,
    call_timeout: Duration,
) -> Result<(Vec<Observation>, Option<UnknownShape>), ServerError> {
    let (a, b) = tokio::join!(
        session_calls(root, config, calls, timeout, call_timeout, true),
        session_calls(root, config, calls, timeout, call_timeout, false),
    );
    let (first, unknown) = a?;
    let (second, _) = b?;
    let observed = calls
        .iter()
        .zip(first)
        .zip(second)
        .map(|((call, outcome), again)| {
            let parts = normalized_parts(&outcome);
            let deterministic = again.status == outcome.status && normalized_parts(&again) == parts;
            Observation {
                arguments: call.arguments.clone(),
                status: outcome.status,
                parts,
                raw: outcome.parts,
                deterministic,
            }
        })
        .collect();
    Ok((observed, unknown))
}

impl Baseline {
    /// This baseline with each output that `again` (more samples of the same version) answered
    /// differently marked as varying; None when `again` agrees on every deterministic output.
    pub fn confirm(&self, again: &Baseline) -> Option<Baseline> {
        let mut out = self.clone();
        let mut changed = false;
        for (name, seen) in out.calls.iter_mut().filter(|(_, s)| s.deterministic) {
            let agrees = again.calls.get(name).is_some_and(|a| seen.confirmed_by(a));
            if !agrees {
                seen.deterministic = false;
                changed = true;
            }
        }
        changed.then_some(out)
    }
}

async fn session_calls(
    root: &Path,
    config: &LaunchConfig,
    calls: &[PlannedCall],
    timeout: Duration,
    call_timeout: Duration,
    probe: bool,
) -> Result<(Vec<Outcome>, Option<UnknownShape>), ServerError> {
    let mut session = Session::start(root, config, &[], timeout).await?;
    if let Err(e) = session.list_tools().await {
        session.close().await;
        return Err(e);
    }
    let mut outcomes = Vec::new();
    let mut crashed = false;
    for call in calls {
        let outcome = if call.skip || crashed {
            Outcome {
                status: CallStatus::Timeout,
                text: "not called: it timed out in the previous version".into(),
                parts: Vec::new(),
            }
        } else {
            session
                .call(&call.name, call.arguments.clone(), call_timeout)
                .await
        };
        crashed |= outcome.status == CallStatus::Crashed;
        outcomes.push(outcome);
    }
    let unknown = if probe && !crashed {
        let outcome = session.call(PROBE_TOOL, Map::new(), call_timeout).await;
        (outcome.status != CallStatus::Crashed && outcome.status != CallStatus::Timeout)
            .then(|| UnknownShape::of(&outcome, PROBE_TOOL))
    } else {
        None
    };
    session.close().await;
    Ok((outcomes, unknown))
}

/// Tools by name with their input schemas, in the order every version calls them.
pub fn in_call_order(tools: &[Value]) -> Vec<(&str, &Value)> {
    let mut out: Vec<(&str, &Value)> = tools
        .iter()
        .filter_map(|t| Some((t["name"].as_str()?, &t["inputSchema"])))
        .collect();
    out.sort_by_key(|(name, _)| *name);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(status: CallStatus, text: &str) -> Outcome {
        Outcome {
            status,
            text: text.into(),
            parts: Vec::new(),
        }
    }

    #[test]
    fn an_unknown_tool_is_recognised_by_the_shape_of_the_probe_answer() {
        let probe = outcome(
            CallStatus::ToolError,
            &format!("Unknown tool: {PROBE_TOOL}. Known: a, b"),
        );
        let shape = UnknownShape::of(&probe, PROBE_TOOL);
        assert!(shape.matches(
            &outcome(CallStatus::ToolError, "Unknown tool: old_name. Known: a, c"),
            "old_name"
        ));
        // A tool's own "not found" answer is not the server's unknown-tool answer.
        assert!(!shape.matches(
            &outcome(CallStatus::ToolError, "Port-forward with id test not found"),
            "port_forward_stop"
        ));
        assert!(!shape.matches(
            &outcome(CallStatus::RpcError, "Unknown tool: old_name. Known: a, c"),
            "old_name"
        ));
    }
}
