//! What the previous version answers: every listed tool called once, as its plan says
//! (`discover.rs` finds calls that answer), in two fresh sessions (to learn which outputs are
//! deterministic), then again with its optional parameters set where that call answered
//! (`plan::with_options`), and how the server answers a tool name it never had (to recognise "unknown
//! tool" by shape, not by words).

use std::path::Path;
use std::time::Duration;

use indexmap::IndexMap;
use serde_json::{Map, Value};

use super::CALL_TIMEOUT;
use super::args::arguments_for;
use super::discover::{FirstAnswer, discover};
use super::observation::{MAX_HOLE_SHARE, whole};
pub use super::observation::{Observation, normalized_parts, parts_as_learned};
pub use super::plan::{CallHints, PlannedCall};
use super::plan::{and_options, trial_order};
use super::sessions::session_calls;
use super::unknown::UnknownShape;
use super::volatile::Volatile;
use crate::server::session::CallStatus;
use crate::server::{LaunchConfig, ServerError};
use mcpevol_core::listed::ListedTool;

/// The previous version's answers, computed once per version and shared by a round's attempts;
/// kept beside the version's commit (`Workspace::observed`), so that the next run starts from
/// them instead of starting the version again.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Baseline {
    /// Listed tools in the order they were called, each with the arguments it was called
    /// with: the plan a later version is called with too.
    pub calls: IndexMap<String, Observation>,
    /// Tools called again with optional parameters set, after all of `calls`, in this order;
    /// only the calls that answered without error (a failed one proves nothing later).
    pub optional: Vec<WithOptions>,
    pub unknown: Option<UnknownShape>,
}

/// A tool's call of [`Baseline::calls`] made again with some optional parameters set.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct WithOptions {
    pub tool: String,
    /// The parameters set beyond the plain call's.
    pub params: Vec<String>,
    pub seen: Observation,
}

impl Baseline {
    /// Starts the server at `root` twice at once, and calls every tool of `tools` once in both,
    /// as the plan says; the first session also asks for the [`PROBE_TOOLS`](super::PROBE_TOOLS) at the end. The plan
    /// starts from the calls of the last checks (`hints`; a tool without one gets its
    /// schema-built call), ordered by [`trial_order`]. When a tool fails, a search for calls
    /// that answer follows (see [`discover`]), and if it finds any, the better plan is
    /// observed instead. A call `carried` (the version before's answers) saw fail for want of
    /// the network or a service is not made again: its answer is carried over.
    pub async fn observe(
        root: &Path,
        config: &LaunchConfig,
        tools: &[ListedTool],
        timeout: Duration,
        hints: &CallHints,
        carried: &Baseline,
    ) -> Result<Baseline, ServerError> {
        let listed = in_call_order(tools);
        let first: Vec<PlannedCall> = (Baseline::first_plan(tools, hints).into_iter())
            .map(|call| PlannedCall {
                skip: carried.unreachable(&call.name, &call.arguments).is_some(),
                ..call
            })
            .collect();
        let mut observed =
            Baseline::observe_plan(root, config, &and_options(&first, &listed), timeout).await?;
        observed.carry_unreachable(carried);
        let answers: Vec<FirstAnswer> = first
            .iter()
            .filter_map(|c| observed.calls.get(&c.name))
            .map(|seen| FirstAnswer {
                status: seen.status,
                text: seen.text(),
            })
            .collect();
        // Every call answered, or none could (no network, no service, each timed out): a
        // search would find nothing, or wait out the same failures again.
        let unreachable = |seen: &Observation| seen.unreachable();
        if answers.iter().all(|a| a.status == CallStatus::Ok)
            || observed.calls.values().all(unreachable)
        {
            return Ok(observed);
        }
        let Some(better) = discover(root, config, &listed, &first, &answers, timeout).await? else {
            return Ok(observed);
        };
        let better: Vec<PlannedCall> = better
            .into_iter()
            .map(|call| PlannedCall {
                skip: carried.unreachable(&call.name, &call.arguments).is_some(),
                ..call
            })
            .collect();
        let mut again =
            Baseline::observe_plan(root, config, &and_options(&better, &listed), timeout).await?;
        again.carry_unreachable(carried);
        // What answered in the search's one session may not in two fresh ones (an id that
        // differs at each start): the first plan is kept only if its observation answers more.
        let answering = |b: &Baseline| {
            b.calls
                .values()
                .filter(|s| s.status == CallStatus::Ok)
                .count()
        };
        Ok(if answering(&again) >= answering(&observed) {
            again
        } else {
            observed
        })
    }

    /// The calls [`Baseline::observe`] starts from: each tool of `tools` once, in
    /// [`trial_order`], with its hint's arguments or its schema-built ones. Two sets of hints
    /// with the same first plan give the same observation.
    pub fn first_plan(tools: &[ListedTool], hints: &CallHints) -> Vec<PlannedCall> {
        let listed = in_call_order(tools);
        (trial_order(&listed, hints).into_iter())
            .map(|name| {
                let arguments = match hints.get(name) {
                    Some(hint) => hint.arguments.clone(),
                    None => (listed.iter())
                        .find(|(n, _)| *n == name)
                        .map(|(_, schema)| arguments_for(schema))
                        .unwrap_or_default(),
                };
                PlannedCall::new(name, arguments)
            })
            .collect()
    }

    /// The calls of `baseline` again, on the version at `root`, for the tools of `tools` only:
    /// more samples of the same calls (a call that timed out or could not reach the network is
    /// not made again), the second session's [`CONFIRM_STAGGER`] later, so that a value that changes with the clock or the
    /// server's age shows.
    pub async fn replay(
        root: &Path,
        config: &LaunchConfig,
        tools: &[ListedTool],
        baseline: &Baseline,
        timeout: Duration,
    ) -> Result<Baseline, ServerError> {
        let listed = in_call_order(tools);
        let mut planned: Vec<PlannedCall> = baseline
            .calls
            .iter()
            .filter(|(name, _)| listed.iter().any(|(n, _)| n == name))
            .map(|(name, seen)| PlannedCall {
                skip: seen.unreachable(),
                ..PlannedCall::new(name, seen.arguments.clone())
            })
            .collect();
        for o in &baseline.optional {
            if let Some(i) = planned.iter().position(|p| p.name == o.tool) {
                planned.push(PlannedCall {
                    after: Some(i),
                    ..PlannedCall::new(&o.tool, o.seen.arguments.clone())
                });
            }
        }
        let mut again =
            Baseline::observe_staggered(root, config, &planned, timeout, CONFIRM_STAGGER).await?;
        // What was not called again answers as it did.
        for (name, seen) in &mut again.calls {
            if let Some(before) = baseline.calls.get(name).filter(|b| b.unreachable()) {
                *seen = before.clone();
            }
        }
        Ok(again)
    }

    /// `planned` made in two sessions at once, as a baseline: the calls made after another
    /// (`PlannedCall::after`) become [`Baseline::optional`] where they answered.
    pub async fn observe_plan(
        root: &Path,
        config: &LaunchConfig,
        planned: &[PlannedCall],
        timeout: Duration,
    ) -> Result<Baseline, ServerError> {
        Baseline::observe_staggered(root, config, planned, timeout, Duration::ZERO).await
    }

    async fn observe_staggered(
        root: &Path,
        config: &LaunchConfig,
        planned: &[PlannedCall],
        timeout: Duration,
        stagger: Duration,
    ) -> Result<Baseline, ServerError> {
        let (observed, unknown) =
            observe_staggered(root, config, planned, (timeout, CALL_TIMEOUT), stagger).await?;
        let mut calls = IndexMap::new();
        let mut optional = Vec::new();
        for (p, seen) in planned.iter().zip(observed) {
            match p.after {
                None => {
                    calls.insert(p.name.clone(), seen);
                }
                Some(i) if seen.status == CallStatus::Ok => {
                    let plain = &planned[i].arguments;
                    let params = (seen.arguments.keys())
                        .filter(|k| !plain.contains_key(*k))
                        .cloned()
                        .collect();
                    let tool = p.name.clone();
                    optional.push(WithOptions { tool, params, seen });
                }
                Some(_) => {}
            }
        }
        let unknown = mark_like_unknown(&mut calls, unknown);
        if let Some(shape) = &unknown {
            for o in &mut optional {
                o.seen.like_unknown = shape.matches(&o.seen.as_outcome(), &o.tool);
            }
        }
        Ok(Baseline {
            calls,
            optional,
            unknown,
        })
    }

    /// The answer of `tool` to `arguments` when it could not answer for want of the network or
    /// a service (`offline.rs`).
    /// A call that timed out counts only where every call did (the server is cut off): else
    /// it gets one more try, as a hang may be the version's own.
    pub fn unreachable(&self, tool: &str, arguments: &Map<String, Value>) -> Option<&Observation> {
        let seen = (self.calls.get(tool))
            .filter(|seen| seen.arguments == *arguments && seen.unreachable())?;
        (seen.status != CallStatus::Timeout || self.cut_off()).then_some(seen)
    }

    /// No call answered, and each failed for want of the network or a service, or timed out.
    pub fn cut_off(&self) -> bool {
        !self.calls.is_empty() && self.calls.values().all(Observation::unreachable)
    }

    /// The calls `carried` saw unreachable, made the same way here (and so not made), take
    /// `carried`'s answers.
    fn carry_unreachable(&mut self, carried: &Baseline) {
        for (name, seen) in &mut self.calls {
            if let Some(before) = carried.unreachable(name, &seen.arguments) {
                *seen = before.clone();
            }
        }
    }

    /// The tools whose call answered without error, and not as the server answers a name it
    /// never had: a change to one of them can be seen working.
    pub fn answering(&self) -> Vec<String> {
        (self.calls.iter())
            .filter(|(_, s)| s.status == CallStatus::Ok && !s.like_unknown)
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The answering tools (see [`Baseline::answering`]) with a text part of more than one
    /// line: only there can a cut by lines show.
    pub fn multiline(&self) -> Vec<String> {
        (self.calls.iter())
            .filter(|(_, s)| s.status == CallStatus::Ok && !s.like_unknown)
            .filter(|(_, s)| s.raw.iter().any(|p| p.trim_end().contains('\n')))
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// The answering tools whose every text part is JSON holding an object with two or more
    /// keys (itself, or the first item of its list): only there can a projection show.
    pub fn json_objects(&self) -> Vec<String> {
        (self.calls.iter())
            .filter(|(_, s)| s.status == CallStatus::Ok && !s.like_unknown && !s.raw.is_empty())
            .filter(|(_, s)| {
                (s.raw.iter())
                    .all(|p| super::effect::revealing_keys(std::slice::from_ref(p)).is_some())
            })
            .map(|(name, _)| name.clone())
            .collect()
    }

    /// How this baseline's tools were called and answered, as the next observation starts
    /// from them.
    pub fn hints(&self) -> CallHints {
        CallHints::from_calls(
            self.calls
                .iter()
                .map(|(n, s)| (n.as_str(), &s.arguments, s.status)),
        )
    }
}

/// Marks the calls answered as an unknown tool is. A server that answers every tool of its
/// own that way (say every call fails before dispatch) gives no way to tell an unknown tool by
/// its answer: then there is no shape.
fn mark_like_unknown(
    calls: &mut IndexMap<String, Observation>,
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
    observe_staggered(root, config, calls, (timeout, call_timeout), Duration::ZERO).await
}

/// How much later than the first the second session of a confirmation makes its calls: a value
/// that changes with the server's age or the clock (an uptime, a time of day) then differs
/// between the two, and is learned as a hole, with no clock read by mcpevol.
const CONFIRM_STAGGER: Duration = Duration::from_millis(2500);

/// [`observe_calls`], the second session making its calls `stagger` after the first.
async fn observe_staggered(
    root: &Path,
    config: &LaunchConfig,
    calls: &[PlannedCall],
    limits: (Duration, Duration),
    stagger: Duration,
) -> Result<(Vec<Observation>, Option<UnknownShape>), ServerError> {
    let (a, b) = tokio::join!(
        session_calls(root, config, calls, limits, true, Duration::ZERO),
        session_calls(root, config, calls, limits, false, stagger),
    );
    let (first, unknown) = a?;
    let (second, _) = b?;
    let observed = calls
        .iter()
        .zip(first)
        .zip(second)
        .map(|((call, outcome), again)| {
            let volatile = Volatile::learn(&whole(&outcome), &whole(&again));
            let parts = parts_as_learned(&outcome, &volatile);
            let deterministic = again.status == outcome.status
                && parts_as_learned(&again, &volatile) == parts
                && volatile.hole_share() <= MAX_HOLE_SHARE;
            Observation {
                arguments: call.arguments.clone(),
                status: outcome.status,
                parts,
                raw: outcome.parts,
                other: outcome.other,
                second: whole(&again),
                volatile,
                deterministic,
                like_unknown: false,
            }
        })
        .collect();
    Ok((observed, unknown))
}

impl Baseline {
    /// This baseline with what `again` (more samples of the same version) shows to vary
    /// learned too; None when `again` agrees with every deterministic output as learned.
    pub fn confirm(&self, again: &Baseline) -> Option<Baseline> {
        let mut out = self.clone();
        let mut changed = false;
        for (name, seen) in out.calls.iter_mut().filter(|(_, s)| s.deterministic) {
            match again.calls.get(name) {
                Some(a) if seen.confirmed_by(a) => {}
                Some(a) => {
                    seen.widened_by(a);
                    changed = true;
                }
                None => {}
            }
        }
        for o in out.optional.iter_mut().filter(|o| o.seen.deterministic) {
            let sample = (again.optional.iter())
                .find(|a| a.tool == o.tool && a.seen.arguments == o.seen.arguments);
            if let Some(a) = sample
                && !o.seen.confirmed_by(&a.seen)
            {
                o.seen.widened_by(&a.seen);
                changed = true;
            }
        }
        changed.then_some(out)
    }
}

/// Tools by name with their input schemas, in the order every version calls them.
pub fn in_call_order(tools: &[ListedTool]) -> Vec<(&str, &Value)> {
    let mut out: Vec<(&str, &Value)> = tools
        .iter()
        .filter_map(|t| Some((t.name()?, t.input_schema())))
        .collect();
    out.sort_by_key(|(name, _)| *name);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::session::Outcome;

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
                other: Vec::new(),
            },
            crate::validate::PROBE_TOOLS[0],
        );
        let mut calls = IndexMap::from([
            ("quiet".to_string(), seen(CallStatus::Ok, "")),
            ("talks".to_string(), seen(CallStatus::Ok, "hello")),
        ]);
        let kept = mark_like_unknown(&mut calls, Some(shape.clone()));
        assert_eq!(kept, Some(shape.clone()));
        assert!(calls["quiet"].like_unknown && !calls["talks"].like_unknown);
        // Every tool answering that way: nothing tells an unknown tool apart.
        let mut all = IndexMap::from([("quiet".to_string(), seen(CallStatus::Ok, ""))]);
        assert_eq!(mark_like_unknown(&mut all, Some(shape)), None);
        assert!(!all["quiet"].like_unknown);
    }
}
