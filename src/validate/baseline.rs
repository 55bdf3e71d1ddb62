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
use super::unknown::{PROBE_TOOLS, UnknownShape};
use crate::server::session::{CallStatus, Outcome, Session};
use crate::server::{LaunchConfig, ServerError};

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
    /// It answered as the server answers a tool it does not have: an answer the same at a
    /// later version shows nothing about the tool.
    pub like_unknown: bool,
}

impl Observation {
    pub fn text(&self) -> String {
        self.parts.join("\n")
    }

    /// The answer as the first session got it.
    pub fn as_outcome(&self) -> Outcome {
        Outcome {
            status: self.status,
            text: self.text(),
            parts: self.raw.clone(),
        }
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
            like_unknown: false,
        }
    }
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

impl Baseline {
    /// Starts the server at `root` twice at once, and calls every tool of `tools` in name order
    /// in both; the first session also asks for the [`PROBE_TOOLS`] at the end. Tools in `skip`
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
        let mut calls = calls;
        let unknown = mark_like_unknown(&mut calls, unknown);
        Ok(Baseline { calls, unknown })
    }
}

/// Marks the calls answered as an unknown tool is. A server that answers every tool of its
/// own that way (say every call fails before dispatch) gives no way to tell an unknown tool by
/// its answer: then there is no shape.
fn mark_like_unknown(
    calls: &mut BTreeMap<String, Observation>,
    unknown: Option<UnknownShape>,
) -> Option<UnknownShape> {
    let shape = unknown?;
    let mut all = !calls.is_empty();
    for (name, seen) in calls.iter_mut() {
        seen.like_unknown = shape.matches(&seen.as_outcome(), name);
        all &= seen.like_unknown;
    }
    if all {
        calls.values_mut().for_each(|s| s.like_unknown = false);
        return None;
    }
    Some(shape)
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
/// session also asks for the [`PROBE_TOOLS`] at the end, each call given `call_timeout`. Each
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
                like_unknown: false,
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
        let mut probes = Vec::new();
        for name in PROBE_TOOLS {
            probes.push((name, session.call(name, Map::new(), call_timeout).await));
        }
        UnknownShape::learn(&probes)
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

    fn seen(status: CallStatus, text: &str) -> Observation {
        let mut o = Observation::answered(status, text, true);
        if text.is_empty() {
            o.raw.clear();
        }
        o
    }

    #[test]
    fn calls_answered_like_an_unknown_tool_are_marked_and_the_shape_kept() {
        let shape = UnknownShape::of(
            &Outcome {
                status: CallStatus::Ok,
                text: String::new(),
                parts: Vec::new(),
            },
            PROBE_TOOLS[0],
        );
        let mut calls = BTreeMap::from([
            ("quiet".to_string(), seen(CallStatus::Ok, "")),
            ("talks".to_string(), seen(CallStatus::Ok, "hello")),
        ]);
        let kept = mark_like_unknown(&mut calls, Some(shape.clone()));
        assert_eq!(kept, Some(shape.clone()));
        assert!(calls["quiet"].like_unknown && !calls["talks"].like_unknown);
        // Every tool answering that way: nothing tells an unknown tool apart.
        let mut all = BTreeMap::from([("quiet".to_string(), seen(CallStatus::Ok, ""))]);
        assert_eq!(mark_like_unknown(&mut all, Some(shape)), None);
        assert!(!all["quiet"].like_unknown);
    }
}
