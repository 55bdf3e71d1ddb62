//! The oracle: proves a version's behaviour against the previous version's, call by call.
//!
//! First every tool the previous version listed is called as before, in the same order
//! (unchanged and changed tools must answer as before; a renamed tool on its new name), then
//! what changed is exercised: new parameters set, values on both sides of a new bound, old names
//! that must now be unknown, new tools, and each claimed [`Effect`]. Calls whose previous answer
//! was a failure prove nothing and are counted as unverifiable, never as passed.

use std::collections::BTreeMap;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::schema::{ChangeKind, SchemaChange};
use crate::server::session::{Outcome, Session, Status};

mod args;
mod baseline;
mod bounds;
pub mod effect;
mod judge;
pub mod normalize;

pub use args::arguments_for;
pub use baseline::{Baseline, Observation, PROBE_TOOL, UnknownShape, in_call_order};
pub use effect::Effect;
pub use judge::{Compared, Verdict};
use judge::{Judged, against, hard_failure, quote};

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
    /// A renamed tool on its new name, answering as the old name did.
    Renamed { from: String },
    /// The old name of a removed or renamed tool: refused as unknown.
    Gone,
    /// A new parameter set to a valid value: the call still succeeds.
    ParamSet { param: String },
    /// A value inside a new bound is accepted.
    InsideBound { param: String },
    /// A value beyond a new bound; `enforced` says whether the server refused it.
    BeyondBound { param: String },
    /// A claimed effect of the change, shown on the answer.
    Claim { effect: Effect },
    /// A tool with no previous version (or a new required input), called as its schema says.
    New,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct TestResult {
    pub tool: String,
    pub kind: TestKind,
    #[serde(flatten)]
    pub check: Check,
    pub arguments: Value,
    pub status: Status,
    /// The previous version's status on the call this one is compared with.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub expected: Option<Status>,
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

    pub fn add(&mut self, verdict: Verdict) {
        match verdict {
            Verdict::Passed => self.passed += 1,
            Verdict::Failed => self.failed += 1,
            Verdict::Unverifiable => self.unverifiable += 1,
        }
    }
}

/// What a round changed, as the oracle needs it.
pub struct Change<'a> {
    /// The previous version's tool list.
    pub previous: &'a [Value],
    /// The new version's tool list.
    pub current: &'a [Value],
    pub changes: &'a [SchemaChange],
    /// Behaviour the change claims (from the mutator).
    pub effects: &'a [Effect],
}

impl Change<'_> {
    fn tool(&self, name: &str) -> Option<&Value> {
        self.current.iter().find(|t| t["name"] == name)
    }

    fn changes_of(&self, tool: &str) -> impl Iterator<Item = &SchemaChange> {
        self.changes.iter().filter(move |c| c.tool == tool)
    }

    /// A change after which the previous call is no longer valid as it was.
    fn needs_new_arguments(&self, tool: &str) -> bool {
        self.changes_of(tool).any(|c| {
            matches!(c.kind, ChangeKind::ParamTypeChanged)
                || (c.kind == ChangeKind::ParamAdded && c.required == Some(true))
                || (c.kind == ChangeKind::ParamRequiredChanged && c.required == Some(true))
        })
    }
}

/// Calls the new version and judges every call against `baseline`, the previous version's.
pub async fn run(session: &Session, baseline: &Baseline, change: &Change<'_>) -> Vec<TestResult> {
    let mut out = Oracle {
        session,
        baseline,
        change,
        results: Vec::new(),
        dead: false,
    };
    out.as_before().await;
    out.exercise().await;
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
                Status::Ok => Judged::passed(None),
                Status::Crashed => {
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
    status: Status,
    expected: Option<Status>,
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
        reason: judged.reason.map(|r| normalize::normalize(&r)),
    }
}

struct Oracle<'a> {
    session: &'a Session,
    baseline: &'a Baseline,
    change: &'a Change<'a>,
    results: Vec<TestResult>,
    /// The server crashed: nothing more can be called.
    dead: bool,
}

impl Oracle<'_> {
    async fn call(&mut self, tool: &str, arguments: &Map<String, Value>) -> Outcome {
        if self.dead {
            return Outcome {
                status: Status::Crashed,
                text: "not called: the server crashed on an earlier call".into(),
                parts: Vec::new(),
            };
        }
        let outcome = self
            .session
            .call(tool, arguments.clone(), CALL_TIMEOUT)
            .await;
        self.dead |= outcome.status == Status::Crashed;
        outcome
    }

    fn unknown(&self) -> Option<&UnknownShape> {
        self.baseline.unknown.as_ref()
    }

    /// The previous version's calls, in its order, on the names they have now.
    async fn as_before(&mut self) {
        let change = self.change;
        for (old, seen) in &self.baseline.calls {
            let gone = change
                .changes_of(old)
                .find(|c| matches!(c.kind, ChangeKind::ToolRemoved | ChangeKind::ToolRenamed));
            let (name, check) = match gone.and_then(|c| c.renamed_to.clone()) {
                Some(new) => (new, Check::Renamed { from: old.clone() }),
                None if gone.is_some() => continue, // exercised as Gone below
                None => (old.clone(), Check::AsBefore),
            };
            let kind = if change.changes_of(old).next().is_some() {
                TestKind::Changed
            } else {
                TestKind::Unchanged
            };
            if seen.status == Status::Timeout {
                let judged = Judged::unverifiable(
                    "it timed out at the previous version, so it was not called",
                );
                self.results.push(result(
                    &name,
                    kind,
                    check,
                    &seen.arguments,
                    Status::Timeout,
                    Some(seen.status),
                    judged,
                ));
                continue;
            }
            if change.needs_new_arguments(old) {
                let schema = change
                    .tool(&name)
                    .map(|t| &t["inputSchema"])
                    .unwrap_or(&Value::Null);
                let arguments = arguments_for(schema);
                let outcome = self.call(&name, &arguments).await;
                let judged = fresh(&outcome, &name, self.unknown(), Some(seen));
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
            let outcome = self.call(&name, &seen.arguments).await;
            let judged = against(seen, &outcome, &name, self.unknown());
            self.results.push(result(
                &name,
                kind,
                check,
                &seen.arguments,
                outcome.status,
                Some(seen.status),
                judged,
            ));
        }
    }

    /// Calls that exercise what changed, after the calls that compare with the previous
    /// version, so that they cannot change the state those calls see.
    async fn exercise(&mut self) {
        let change = self.change;
        for c in change.changes {
            match c.kind {
                ChangeKind::ToolRemoved | ChangeKind::ToolRenamed => self.gone(&c.tool).await,
                ChangeKind::ToolAdded => self.added(&c.tool).await,
                ChangeKind::ParamAdded if c.required != Some(true) => {
                    if let Some(param) = &c.param {
                        self.param_set(&c.tool, param).await;
                    }
                }
                ChangeKind::ParamConstraintChanged => {
                    if let Some(param) = &c.param {
                        self.bound(&c.tool, param).await;
                    }
                }
                _ => {}
            }
        }
    }

    /// The old name must be refused the way the server refuses a name it never had.
    async fn gone(&mut self, old: &str) {
        let arguments = self
            .baseline
            .calls
            .get(old)
            .map(|s| s.arguments.clone())
            .unwrap_or_default();
        let outcome = self.call(old, &arguments).await;
        let judged = match (&outcome.status, self.unknown()) {
            (Status::Crashed | Status::Timeout, _) => {
                hard_failure(&outcome, old, None).expect("a crash or hang")
            }
            (_, Some(shape)) if shape.matches(&outcome, old) => Judged::passed(None),
            (_, Some(_)) => Judged::failed(format!(
                "the old name still answers ({:?}: {}); a dispatch branch was left behind",
                outcome.status,
                quote(&outcome.text)
            )),
            (Status::Ok, None) => Judged::failed(format!(
                "the old name still answers: {}",
                quote(&outcome.text)
            )),
            (_, None) => Judged::unverifiable(
                "the old name is refused, but the server's answer to unknown tools is not known",
            ),
        };
        self.results.push(result(
            old,
            TestKind::Removed,
            Check::Gone,
            &arguments,
            outcome.status,
            None,
            judged,
        ));
    }

    /// A new tool: as the tool it is a variant of, when the change says so; else it must answer.
    async fn added(&mut self, name: &str) {
        let variant = self.change.effects.iter().find_map(|e| match e {
            Effect::Variant {
                tool,
                source,
                max_chars,
            } if tool == name => Some((source.clone(), *max_chars)),
            _ => None,
        });
        if let Some((source, max_chars)) = variant
            && let Some(seen) = self.baseline.calls.get(&source).cloned()
        {
            let claim = Effect::Variant {
                tool: name.into(),
                source: source.clone(),
                max_chars,
            };
            let n = max_chars.unwrap_or(usize::MAX);
            let (outcome, judged) = self
                .claimed(
                    &source,
                    &seen.arguments,
                    name,
                    &seen.arguments,
                    |t| effect::first_chars(t, n),
                    |t| t.chars().count() <= n,
                )
                .await;
            self.results.push(result(
                name,
                TestKind::Added,
                Check::Claim { effect: claim },
                &seen.arguments,
                outcome.status,
                Some(seen.status),
                judged,
            ));
            return;
        }
        let schema = self
            .change
            .tool(name)
            .map(|t| t["inputSchema"].clone())
            .unwrap_or_default();
        let arguments = arguments_for(&schema);
        let outcome = self.call(name, &arguments).await;
        let judged = fresh(&outcome, name, self.unknown(), None);
        self.results.push(result(
            name,
            TestKind::Added,
            Check::New,
            &arguments,
            outcome.status,
            None,
            judged,
        ));
    }

    /// The previous call plus the new parameter: still answers, and shows any claimed effect.
    async fn param_set(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let claim = self
            .change
            .effects
            .iter()
            .find(|e| e.tool() == tool && e.param() == Some(param))
            .cloned();
        let schema = self
            .change
            .tool(tool)
            .map(|t| t["inputSchema"]["properties"][param].clone())
            .unwrap_or_default();
        let mut arguments = seen.arguments.clone();
        let (value, check): (Value, Check) = match &claim {
            Some(Effect::TruncateChars { .. }) => {
                let n = effect::revealing_limit(&seen.parts, |p| p.chars().count()).unwrap_or(1);
                (
                    n.into(),
                    Check::Claim {
                        effect: claim.clone().expect("matched"),
                    },
                )
            }
            Some(Effect::TruncateLines { .. }) => {
                let n =
                    effect::revealing_limit(&seen.parts, |p| p.split('\n').count()).unwrap_or(1);
                (
                    n.into(),
                    Check::Claim {
                        effect: claim.clone().expect("matched"),
                    },
                )
            }
            _ => (
                args::value_for(&schema, param),
                Check::ParamSet {
                    param: param.into(),
                },
            ),
        };
        arguments.insert(param.to_string(), value.clone());
        let n = value.as_u64().unwrap_or(1) as usize;
        let (outcome, judged) = match &claim {
            Some(Effect::TruncateChars { .. }) => {
                self.claimed(
                    tool,
                    &seen.arguments,
                    tool,
                    &arguments,
                    |t| effect::first_chars(t, n),
                    |t| t.chars().count() <= n,
                )
                .await
            }
            Some(Effect::TruncateLines { .. }) => {
                self.claimed(
                    tool,
                    &seen.arguments,
                    tool,
                    &arguments,
                    |t| effect::first_lines(t, n),
                    |t| t.split('\n').count() <= n,
                )
                .await
            }
            _ => {
                let outcome = self.call(tool, &arguments).await;
                let judged = succeeds_as_before(&seen, &outcome, tool, self.unknown());
                (outcome, judged)
            }
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            check,
            &arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
    }

    /// A claim that `tool` on `arguments` answers as `reference` on `plain`, each text part
    /// cut by `cut`. The reference is called just before and just after in the same session,
    /// so that state the calls change cannot pass for a broken claim: where both reference
    /// answers agree, the claimed answer must equal them cut; where they differ, each part
    /// must still `fit`.
    async fn claimed(
        &mut self,
        reference: &str,
        plain: &Map<String, Value>,
        tool: &str,
        arguments: &Map<String, Value>,
        cut: impl Fn(&str) -> String,
        fits: impl Fn(&str) -> bool,
    ) -> (Outcome, Judged) {
        let before = self.call(reference, plain).await;
        let outcome = self.call(tool, arguments).await;
        let after = self.call(reference, plain).await;
        if let Some(f) = hard_failure(&outcome, tool, self.unknown()) {
            return (outcome, f);
        }
        if before.status != Status::Ok {
            let judged = match outcome.status {
                Status::RpcError if before.status != Status::RpcError => Judged::failed(format!(
                    "a protocol error where `{reference}` answered {:?}: {}",
                    before.status,
                    quote(&outcome.text)
                )),
                _ => Judged::unverifiable(format!(
                    "`{reference}` itself answered {:?}: {}",
                    before.status,
                    quote(&before.text)
                )),
            };
            return (outcome, judged);
        }
        if outcome.status != Status::Ok {
            let judged = Judged::failed(format!(
                "it answered {:?} where `{reference}` succeeded: {}",
                outcome.status,
                quote(&outcome.text)
            ));
            return (outcome, judged);
        }
        if let Some(part) = outcome.parts.iter().find(|p| !fits(p)) {
            let judged = Judged::failed(format!(
                "a part of the answer is not cut as claimed: {}",
                quote(part)
            ));
            return (outcome, judged);
        }
        let steady = after.status == Status::Ok
            && baseline::normalized_parts(&before) == baseline::normalized_parts(&after);
        if !steady {
            return (outcome, Judged::passed(Some(Compared::Status)));
        }
        let expected: Vec<String> = before
            .parts
            .iter()
            .map(|p| normalize::normalize(&cut(p)))
            .collect();
        let now: Vec<String> = outcome
            .parts
            .iter()
            .map(|p| normalize::normalize(p))
            .collect();
        let judged = if now == expected {
            Judged::passed(Some(Compared::Output))
        } else {
            Judged::failed(format!(
                "the answer is not `{reference}`'s answer cut as claimed: {}",
                judge::first_difference(&expected.join("\n"), &now.join("\n"))
            ))
        };
        (outcome, judged)
    }

    /// A value inside the new bound is accepted; one beyond it is refused where the server
    /// enforces it, which is recorded either way and required where the change claims it.
    async fn bound(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let prop = |tools: &[Value]| {
            tools
                .iter()
                .find(|t| t["name"] == tool)
                .map(|t| t["inputSchema"]["properties"][param].clone())
                .unwrap_or_default()
        };
        let (new, old) = (prop(self.change.current), prop(self.change.previous));
        let mut inside = seen.arguments.clone();
        inside.insert(param.into(), args::value_for(&new, param));
        let accepted = self.call(tool, &inside).await;
        let judged = match hard_failure(&accepted, tool, self.unknown()) {
            Some(f) => f,
            None if accepted.status == Status::RpcError => Judged::failed(format!(
                "a value inside the bound was refused: {}",
                quote(&accepted.text)
            )),
            None if accepted.status == Status::Ok => Judged::passed(None),
            None => Judged::unverifiable(format!(
                "the tool answered an error for this value: {}",
                quote(&accepted.text)
            )),
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            Check::InsideBound {
                param: param.into(),
            },
            &inside,
            accepted.status,
            Some(seen.status),
            judged,
        ));

        let Some(beyond) = bounds::outside(&new, &old, param) else {
            return;
        };
        let claimed = self.change.effects.iter().any(
            |e| matches!(e, Effect::Enforced { tool: t, param: p } if t == tool && p == param),
        );
        let mut arguments = seen.arguments.clone();
        arguments.insert(param.into(), beyond);
        let outcome = self.call(tool, &arguments).await;
        let enforced = matches!(outcome.status, Status::ToolError | Status::RpcError);
        let judged = match hard_failure(&outcome, tool, self.unknown()) {
            Some(f) => f,
            None if enforced => Judged::passed(None),
            None if claimed => Judged::failed(
                "the bound is said to be enforced, but a value beyond it was accepted",
            ),
            None => Judged::unverifiable(
                "declared, not enforced: a value beyond the bound was accepted",
            ),
        };
        let mut r = result(
            tool,
            TestKind::Changed,
            Check::BeyondBound {
                param: param.into(),
            },
            &arguments,
            outcome.status,
            None,
            judged,
        );
        r.enforced = Some(enforced);
        self.results.push(r);
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
        Status::Ok => Judged::passed(None),
        Status::RpcError => Judged::failed(format!(
            "a protocol error on a call its schema allows: {}",
            quote(&outcome.text)
        )),
        _ if before.is_some_and(|b| b.status == Status::Ok) => Judged::failed(format!(
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
        (Status::Ok, Status::Ok) => Judged::passed(None),
        (Status::Ok, status) => Judged::failed(format!(
            "with the new parameter set it answered {status:?}: {}",
            quote(&outcome.text)
        )),
        (_, Status::RpcError) => Judged::failed(format!(
            "a protocol error on a call its schema allows: {}",
            quote(&outcome.text)
        )),
        (before, _) => Judged::unverifiable(format!(
            "the previous version answered {before:?} on this call"
        )),
    }
}

/// Each tool's status in a list of results, for callers that only need that.
pub fn statuses(results: &[TestResult]) -> BTreeMap<String, Status> {
    results.iter().map(|r| (r.tool.clone(), r.status)).collect()
}
