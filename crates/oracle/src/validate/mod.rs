//! The oracle: proves a version's behaviour against the previous version's, call by call.
//!
//! First every tool the previous version listed is called as before, in the same order
//! (unchanged and changed tools must answer as before; a renamed tool on its new name), then
//! what changed is exercised: new parameters set, values on both sides of a new bound, old names
//! that must now be unknown, new tools, and each claimed [`Effect`]. Calls whose previous answer
//! was a failure prove nothing and are counted as unverifiable, never as passed.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::server::session::{CallStatus, Outcome, Session};
use mcpevol_core::listed::ListedTool;
use mcpevol_core::schema::{ChangeKind, SchemaChange};

mod acts;
mod args;
mod baseline;
mod bounds;
mod calls;
mod candidates;
mod claimed;
mod discover;
pub mod effect;
pub mod evidence;
mod exercise;
mod forms;
mod judge;
mod kinds;
pub mod normalize;
mod observation;
mod offline;
mod params;
mod plan;
pub mod proof;
mod restart;
mod sessions;
mod unknown;
pub mod volatile;
pub use unknown::{PROBE_TOOLS, UnknownShape};

pub use args::{MAX_ARGUMENT_BYTES, MAX_SCHEMA_DEPTH, arguments_for};
pub use baseline::{
    Baseline, CallHints, Observation, PlannedCall, in_call_order, normalized_parts, observe_calls,
    parts_as_learned,
};
pub use discover::{CALLS_PER_TOOL, TIME_LIMIT as DISCOVERY_TIME_LIMIT};
pub use effect::Effect;
pub use judge::{Compared, Verdict};
pub use proof::{Proof, ProofStatus};
pub use volatile::Volatile;
// The drift audit judges replayed calls with the oracle's own rules.
pub use judge::{Judged, against, first_difference, hard_failure, quote};

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
    /// A name the round removed (or renamed away): must be unknown now.
    Removed,
}

/// What one call checks.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(tag = "check", rename_all = "kebab-case")]
pub enum Check {
    /// The call the previous version got, answered as it answered.
    #[default]
    AsBefore,
    /// The previous version's call with optional parameters set, answered as it answered.
    WithOptions { params: Vec<String> },
    /// A renamed tool on its new name, answering as the old name did.
    Renamed { from: String },
    /// The old name of a removed or renamed tool: refused as unknown.
    Gone,
    /// A new parameter set: the call still succeeds, and passes only where some value of it
    /// changed the answer (from the previous version's, and from the call without it now).
    ParamSet { param: String },
    /// A value inside a new bound is accepted (which shows nothing of a tighter bound).
    InsideBound { param: String },
    /// A looser bound: a value the old bound refused, accepted now.
    Loosened { param: String },
    /// A value beyond a new bound; `enforced` says whether the server refused it.
    BeyondBound { param: String },
    /// A parameter the change removed, sent as before: refused, or ignored as the change says.
    ParamRemoved { param: String },
    /// A parameter made optional, or given another default: called without it, the tool
    /// answers as it does with the default its schema declares.
    Defaulted { param: String },
    /// A parameter made required: the previous call without it is refused now.
    Required { param: String },
    /// A claimed effect of the change, shown on the answer.
    Claim { effect: Effect },
    /// A tool with no previous version (or a new required input), called as its schema says.
    New,
}

impl Check {
    /// The parameter it is about, where it is about one.
    pub fn param(&self) -> Option<&str> {
        match self {
            Check::ParamSet { param }
            | Check::InsideBound { param }
            | Check::Loosened { param }
            | Check::BeyondBound { param }
            | Check::ParamRemoved { param }
            | Check::Defaulted { param }
            | Check::Required { param } => Some(param),
            Check::Claim { effect } => effect.param(),
            Check::AsBefore | Check::WithOptions { .. } | Check::Renamed { .. } => None,
            Check::Gone | Check::New => None,
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestResult {
    pub tool: String,
    pub kind: TestKind,
    #[serde(flatten)]
    pub check: Check,
    pub arguments: Value,
    pub status: CallStatus,
    /// The previous version's status on the call this one is compared with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected: Option<CallStatus>,
    #[serde(default)]
    pub verdict: Verdict,
    /// Kept beside `verdict` for readers of older records: true only when it passed.
    pub passed: bool,
    /// What a passing comparison looked at: the output, or only the status.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub compared: Option<Compared>,
    /// For a value beyond a new bound: whether the server refused it.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub enforced: Option<bool>,
    /// Why a test failed or proves nothing, on one line (normalised: never a timestamp or a
    /// temporary path, so that the same seed gives the same record).
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub reason: Option<String>,
    /// Failed only on an output that is not the previous one (see [`Baseline::confirm`]).
    #[serde(skip)]
    pub differed: bool,
    /// For a comparison with the previous version: its answer there, as learned (kept in the
    /// version's evidence, [`evidence::Evidence`], not in the record).
    #[serde(skip)]
    pub reference: Option<Observation>,
    /// The answer this call got.
    #[serde(skip)]
    pub answer: Option<Outcome>,
}

/// Counts of a list of results, as records and reports show them.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Tally {
    pub passed: usize,
    pub failed: usize,
    pub unverifiable: usize,
}

impl Tally {
    pub fn of(results: &[TestResult]) -> Tally {
        let mut t = Tally::default();
        for r in results {
            t.add(r.verdict);
        }
        t
    }

    /// The verdicts of several lists together.
    pub fn sum(tallies: impl IntoIterator<Item = Tally>) -> Tally {
        tallies.into_iter().fold(Tally::default(), |mut t, u| {
            t.passed += u.passed;
            t.failed += u.failed;
            t.unverifiable += u.unverifiable;
            t
        })
    }

    pub fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Unverifiable => self.unverifiable += 1,
        }
    }
}

/// What a round changed, as the oracle needs it.
pub struct VersionChange<'a> {
    /// The previous version's tool list.
    pub previous: &'a [ListedTool],
    /// The new version's tool list.
    pub current: &'a [ListedTool],
    pub changes: &'a [SchemaChange],
    /// Behaviour the change claims (from the mutator).
    pub effects: &'a [Effect],
}

impl VersionChange<'_> {
    fn tool(&self, name: &str) -> Option<&ListedTool> {
        self.current.iter().find(|t| t.is_named(name))
    }

    fn changes_of(&self, tool: &str) -> impl Iterator<Item = &SchemaChange> {
        self.changes.iter().filter(move |c| c.tool == tool)
    }
}

/// Calls the new version and judges every call against `baseline`, the previous version's.
/// `start` starts the new version afresh, for a call the server died in (see `restart.rs`).
pub async fn run(
    session: &mut Session,
    baseline: &Baseline,
    change: &VersionChange<'_>,
    start: Option<&dyn Restart>,
) -> Vec<TestResult> {
    let mut out = Oracle {
        session,
        start,
        baseline,
        change,
        results: Vec::new(),
        dead: false,
        restarts: 0,
        restarted_at: None,
        last_call: None,
    };
    out.as_before().await;
    out.with_options().await;
    out.exercise().await;
    out.after_restart();
    out.results
}

/// The results of calling a version with no previous one (`v0`): each tool with its required
/// arguments; an error answer proves nothing and is unverifiable.
pub fn first_version(baseline: &Baseline) -> Vec<TestResult> {
    baseline
        .calls
        .iter()
        .map(|(tool, seen)| {
            let judged = match seen.status {
                CallStatus::Ok => Judged::passed(None),
                CallStatus::Crashed => {
                    Judged::failed(format!("the server crashed: {}", quote(&seen.text())))
                }
                status => Judged::unverifiable(format!("{status:?}: {}", quote(&seen.text()))),
            };
            result(
                tool,
                TestKind::Unchanged,
                Check::AsBefore,
                &seen.arguments,
                seen.status,
                None,
                judged,
            )
        })
        .collect()
}

fn result(
    tool: &str,
    kind: TestKind,
    check: Check,
    arguments: &Map<String, Value>,
    status: CallStatus,
    expected: Option<CallStatus>,
    judged: Judged,
) -> TestResult {
    TestResult {
        tool: tool.to_string(),
        kind,
        check,
        arguments: Value::Object(arguments.clone()),
        status,
        expected,
        passed: judged.verdict == Verdict::Passed,
        verdict: judged.verdict,
        compared: judged.compared,
        enforced: None,
        reason: judged.reason,
        differed: judged.differed,
        reference: None,
        answer: None,
    }
}

/// `result` of a comparison with the previous version's answer `seen`, keeping both sides.
fn compared(mut result: TestResult, seen: &Observation, outcome: &Outcome) -> TestResult {
    result.reference = Some(seen.clone());
    result.answer = Some(outcome.clone());
    result
}

/// Starts the version under test afresh.
#[async_trait::async_trait(?Send)]
pub trait Restart {
    /// A new session of the version, tools listed; None when it does not start.
    async fn restart(&self) -> Option<Session>;
}

struct Oracle<'a> {
    session: &'a mut Session,
    start: Option<&'a dyn Restart>,
    baseline: &'a Baseline,
    change: &'a VersionChange<'a>,
    results: Vec<TestResult>,
    /// The server crashed and could not be started again: nothing more can be called.
    dead: bool,
    /// Times the server was started again after a crash.
    restarts: u32,
    /// How many results there were when it was first started again.
    restarted_at: Option<usize>,
    /// The tool called last, which a crash in the next call may be the fallout of.
    last_call: Option<(String, Map<String, Value>)>,
}

impl Oracle<'_> {
    fn unknown(&self) -> Option<&UnknownShape> {
        self.baseline.unknown.as_ref()
    }

    /// The unknown-tool shape to judge a call of a tool by: none where the tool answered that
    /// way at the previous version too (then the same answer is no sign of a lost tool).
    fn unknown_for(&self, seen: &Observation) -> Option<&UnknownShape> {
        self.unknown().filter(|_| !seen.like_unknown)
    }

    /// The previous version's calls, in its order, on the names they have now.
    async fn as_before(&mut self) {
        let change = self.change;
        for (old, seen) in &self.baseline.calls {
            let gone = change
                .changes_of(old)
                .find(|c| matches!(c.kind(), ChangeKind::ToolRemoved | ChangeKind::ToolRenamed));
            let (name, check) = match gone.and_then(|c| c.renamed_to()) {
                Some(new) => (new.to_string(), Check::Renamed { from: old.clone() }),
                None if gone.is_some() => continue, // exercised as Gone below
                None => (old.clone(), Check::AsBefore),
            };
            let kind = if change.changes_of(old).next().is_some() {
                TestKind::Changed
            } else {
                TestKind::Unchanged
            };
            if seen.unreachable() {
                let judged = Judged::unverifiable(seen.not_called());
                self.results.push(result(
                    &name,
                    kind,
                    check,
                    &seen.arguments,
                    seen.status,
                    Some(seen.status),
                    judged,
                ));
                continue;
            }
            if change.needs_new_arguments(old) {
                let arguments = change.new_arguments(&name, &seen.arguments);
                let outcome = self.call(&name, &arguments).await;
                let judged = fresh(&outcome, &name, self.unknown_for(seen), Some(seen));
                self.results.push(result(
                    &name,
                    kind,
                    Check::New,
                    &arguments,
                    outcome.status,
                    Some(seen.status),
                    judged,
                ));
                continue;
            }
            let arguments = change.with_old_defaults(old, &seen.arguments);
            let outcome = self.call(&name, &arguments).await;
            let judged = against(seen, &outcome, &name, self.unknown_for(seen));
            let r = result(
                &name,
                kind,
                check,
                &arguments,
                outcome.status,
                Some(seen.status),
                judged,
            );
            self.results.push(compared(r, seen, &outcome));
        }
    }
}

impl Oracle<'_> {
    /// The previous version's calls with optional parameters set, for each tool whose schema
    /// changed in its descriptions at most (other changes are exercised by their own checks):
    /// what an optional parameter does must not change unseen, say in a description round.
    async fn with_options(&mut self) {
        let change = self.change;
        for o in &self.baseline.optional {
            let mut changes = change.changes_of(&o.tool);
            let described_only = changes.all(|c| {
                matches!(
                    c.kind(),
                    ChangeKind::ToolDescriptionChanged
                        | ChangeKind::ParamDescriptionChanged
                        | ChangeKind::ToolTitleChanged
                )
            });
            if !described_only || change.tool(&o.tool).is_none() {
                continue;
            }
            let kind = if change.changes_of(&o.tool).next().is_some() {
                TestKind::Changed
            } else {
                TestKind::Unchanged
            };
            let outcome = self.call(&o.tool, &o.seen.arguments).await;
            let judged = against(&o.seen, &outcome, &o.tool, self.unknown_for(&o.seen));
            let check = Check::WithOptions {
                params: o.params.clone(),
            };
            let r = result(
                &o.tool,
                kind,
                check,
                &o.seen.arguments,
                outcome.status,
                Some(o.seen.status),
                judged,
            );
            self.results.push(compared(r, &o.seen, &outcome));
        }
    }
}

/// A call with no previous answer to compare: a crash, a hang, an unknown tool or a protocol
/// error fails; a success passes; a tool error proves nothing, unless the previous version
/// succeeded on the tool.
fn fresh(
    outcome: &Outcome,
    name: &str,
    unknown: Option<&UnknownShape>,
    before: Option<&Observation>,
) -> Judged {
    if let Some(f) = hard_failure(outcome, name, unknown) {
        return f;
    }
    match outcome.status {
        CallStatus::Ok => Judged::passed(None),
        status if judge::is_protocol_error(status) => Judged::failed(format!(
            "a protocol error on a call its schema allows: {}",
            quote(&outcome.text)
        )),
        _ if before.is_some_and(|b| b.status == CallStatus::Ok) => Judged::failed(format!(
            "it answered an error where the previous version succeeded: {}",
            quote(&outcome.text)
        )),
        _ => Judged::unverifiable(format!("it answered an error: {}", quote(&outcome.text))),
    }
}

/// With a new optional parameter set, a call that succeeded before must still succeed.
fn succeeds_as_before(
    seen: &Observation,
    outcome: &Outcome,
    name: &str,
    unknown: Option<&UnknownShape>,
) -> Judged {
    if let Some(f) = hard_failure(outcome, name, unknown) {
        return f;
    }
    match (seen.status, outcome.status) {
        (CallStatus::Ok, CallStatus::Ok) => Judged::passed(None),
        (CallStatus::Ok, status) => Judged::failed(format!(
            "with the new parameter set it answered {status:?}: {}",
            quote(&outcome.text)
        )),
        (before, status) if judge::is_protocol_error(status) && before != status => {
            Judged::failed(format!(
                "a protocol error on a call its schema allows: {}",
                quote(&outcome.text)
            ))
        }
        (before, _) => Judged::unverifiable(format!(
            "the previous version answered {before:?} on this call"
        )),
    }
}
