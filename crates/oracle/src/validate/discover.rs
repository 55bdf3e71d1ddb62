//! Finding calls that make tools answer: in one session of its own, each tool is tried with
//! the call the last checks made (or its schema-built one), and when that fails, with a few
//! other argument sets (`candidates.rs`): values earlier answers gave, paths inside the folders
//! the server may use, other enum members. Tools that open or create something are tried
//! first and tools that remove something last, and a tool that failed is tried once more after
//! the others, when something new has answered since. The calls that answered, in the order
//! they answered, are the plan every session of the version then makes.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use serde_json::{Map, Value};

use super::CALL_TIMEOUT;
use super::args::arguments_for;
use super::candidates::{self, Context, Known, TMP};
use super::normalize::normalize;
use super::plan::{PlannedCall, Role};
use crate::server::session::{CallStatus, Outcome, Session};
use crate::server::{LaunchConfig, ServerError};

/// Calls of one tool at most, its first call included.
pub const CALLS_PER_TOOL: usize = 6;
/// Calls of one tool in the first pass; the rest are kept for the second.
const FIRST_PASS_CALLS: usize = 4;
/// Calls beyond each tool's first, for the whole server.
const EXTRA_CALLS: usize = 200;
/// Time the whole search may take on one server: past it the tools not yet tried keep their
/// first call. A safety net that a server answering in normal time never reaches.
pub const TIME_LIMIT: Duration = Duration::from_secs(120);
/// Restarts after a crash before the search gives up.
const RESTARTS: usize = 3;
/// Different argument sets answered with the same error before a tool is taken to fail
/// whatever it is given (a missing browser, no network).
const SAME_ERROR: usize = 2;

/// How the search went for one tool.
#[derive(Debug, Clone)]
struct Trial {
    first: Map<String, Value>,
    tried: Vec<Map<String, Value>>,
    answered: Option<Map<String, Value>>,
    /// How the call with `first` last ended: where the tool goes in the plan if nothing answers.
    first_status: Option<CallStatus>,
    /// Its first error, normalised, and how many other argument sets gave it again.
    error: Option<String>,
    same_error: usize,
    /// Tools that had answered when it was last tried: a second pass helps only if more have.
    answered_before: usize,
    gave_up: bool,
    /// Its first call failed with a network error: other arguments would reach for the same
    /// host (`offline.rs`), so it is not tried again.
    unreachable: bool,
}

impl Trial {
    /// A tool whose call of the first plan was answered with `answer`: a failure counts as
    /// that call tried, with its error.
    fn new(call: &PlannedCall, answer: &FirstAnswer) -> Trial {
        let failed = answer.status != CallStatus::Ok;
        Trial {
            first: call.arguments.clone(),
            tried: if failed {
                vec![call.arguments.clone()]
            } else {
                Vec::new()
            },
            answered: None,
            first_status: Some(answer.status),
            error: (failed && !matches!(answer.status, CallStatus::Timeout | CallStatus::Crashed))
                .then(|| normalize(&answer.text.replace(&call.name, "{name}"))),
            same_error: 0,
            answered_before: 0,
            gave_up: false,
            unreachable: call.skip
                || (failed
                    && answer.status != CallStatus::Timeout
                    && super::offline::unreachable(answer.status, &answer.text)),
        }
    }
}

struct Search<'a> {
    root: &'a Path,
    config: &'a LaunchConfig,
    timeout: Duration,
    session: Option<Session>,
    schemas: BTreeMap<&'a str, &'a Value>,
    folders: Vec<String>,
    known: Known,
    /// The calls that answered, in order: replayed after a restart.
    answered: Vec<PlannedCall>,
    trials: BTreeMap<&'a str, Trial>,
    /// Errors (normalised, the tool's name taken out) that a tool gave whatever its arguments.
    blind: Vec<String>,
    extra_calls: usize,
    restarts: usize,
    started: Instant,
}

/// How a tool answered the call of the first plan, in the observation before the search.
#[derive(Debug, Clone, PartialEq)]
pub struct FirstAnswer {
    pub status: CallStatus,
    /// Its text as observed (normalised).
    pub text: String,
}

/// A better plan than `first` (the calls just observed, with their `answers`), or None when
/// the search made no tool answer that did not answer there. Each tool is called once, in the
/// order its calls are to be made, with the first arguments found to answer, else its call of
/// `first`. A tool that answered is called again as it was (what it made, later tools may
/// need); one that failed is not called as it was again (its answer is known) but with other
/// arguments. Tools that never answered come after those that did in their group (creating and
/// using tools, then removing ones); tools that timed out or crashed come last, so that they
/// hold up or take down nothing else.
pub async fn discover(
    root: &Path,
    config: &LaunchConfig,
    tools: &[(&str, &Value)],
    first: &[PlannedCall],
    answers: &[FirstAnswer],
    timeout: Duration,
) -> Result<Option<Vec<PlannedCall>>, ServerError> {
    let trials = first
        .iter()
        .zip(answers)
        .map(|(call, answer)| (call.name.as_str(), Trial::new(call, answer)))
        .collect();
    let mut search = Search {
        root,
        config,
        timeout,
        session: None,
        schemas: tools.iter().copied().collect(),
        folders: allowed_folders(root, config),
        known: Known::default(),
        answered: Vec::new(),
        trials,
        blind: Vec::new(),
        extra_calls: 0,
        restarts: 0,
        started: Instant::now(),
    };
    search.session = Some(search.start().await?);
    let (using, removing): (Vec<&str>, Vec<&str>) = first
        .iter()
        .map(|c| c.name.as_str())
        .partition(|n| Role::of(n) != Role::Removes);
    for group in [&using, &removing] {
        for pass in 0..2 {
            for name in group.iter() {
                search.try_tool(name, pass).await;
            }
        }
    }
    if let Some(session) = search.session.take() {
        session.close().await;
    }
    let found = first.iter().zip(answers).any(|(call, answer)| {
        answer.status != CallStatus::Ok && search.trials[call.name.as_str()].answered.is_some()
    });
    let plan = search.plan(&[&using, &removing]);
    // A crash or a hang before other calls is worth another observation too: in the plan it
    // moves after them, where it takes down or holds up nothing.
    let stuck = |a: &FirstAnswer| matches!(a.status, CallStatus::Crashed | CallStatus::Timeout);
    let misplaced = answers
        .iter()
        .enumerate()
        .any(|(i, a)| stuck(a) && answers[i + 1..].iter().any(|b| !stuck(b)));
    Ok((found || misplaced).then_some(plan))
}

/// The folders a path argument may point into: the fresh folder of each start, and folders
/// the launch arguments name that exist in the package.
fn allowed_folders(root: &Path, config: &LaunchConfig) -> Vec<String> {
    let mut out = vec![TMP.to_string()];
    for arg in config.args.iter().skip(1) {
        if arg.contains(TMP) || arg.starts_with('-') {
            continue;
        }
        let path = root.join(arg);
        if path.is_dir() && !out.contains(arg) {
            out.push(arg.clone());
        }
    }
    out
}

impl<'a> Search<'a> {
    async fn start(&self) -> Result<Session, ServerError> {
        let mut session = Session::start(self.root, self.config, &[], self.timeout).await?;
        if let Err(e) = session.list_tools().await {
            session.close().await;
            return Err(e);
        }
        Ok(session)
    }

    fn out_of_budget(&self) -> bool {
        self.extra_calls >= EXTRA_CALLS || self.started.elapsed() >= TIME_LIMIT
    }

    /// Tries `name` in `pass` 0 (a tool that answered: its call again; one that failed:
    /// other arguments) or 1 (only if other tools answered since it was last tried: its first
    /// call again, then what was not yet tried).
    async fn try_tool(&mut self, name: &'a str, pass: usize) {
        let answered_now = self.answered.len();
        let Some(trial) = self.trials.get(name) else {
            return;
        };
        let timed_out = trial.first_status == Some(CallStatus::Timeout);
        let blind = trial.error.as_ref().is_some_and(|e| self.blind.contains(e));
        let skip = trial.answered.is_some()
            || trial.unreachable
            || self.session.is_none()
            || (pass == 0 && blind)
            || (pass == 1 && (trial.answered_before >= answered_now || timed_out));
        if skip {
            return;
        }
        let schema = self.schemas.get(name).copied().unwrap_or(&Value::Null);
        let first = trial.first.clone();
        if pass == 0 && timed_out {
            self.after_timeout(name, schema, &first).await;
            return;
        }
        let mut queue: Vec<Map<String, Value>> = Vec::new();
        if pass == 1 || trial.tried.is_empty() {
            queue.push(first.clone());
        }
        if !trial.gave_up && !blind {
            let more = self
                .argument_sets(name, schema)
                .into_iter()
                .filter(|c| *c != first && !trial.tried.contains(c));
            queue.extend(more);
        }
        self.trials
            .get_mut(name)
            .expect("a trial per tool")
            .answered_before = answered_now;
        let cap = if pass == 0 {
            FIRST_PASS_CALLS
        } else {
            CALLS_PER_TOOL
        };
        for (i, arguments) in queue.into_iter().enumerate() {
            let calls = self.trials[name].tried.len();
            if (i > 0 && calls >= cap) || (calls > 0 && self.out_of_budget()) {
                break;
            }
            if calls > 0 {
                self.extra_calls += 1;
            }
            match self.try_call(name, schema, arguments).await {
                CallStatus::Ok | CallStatus::Timeout => return,
                CallStatus::Crashed if !self.restart().await => return,
                _ if self.trials[name].gave_up => return,
                _ => {}
            }
        }
    }

    /// The schema-built call, then the other argument sets worth trying, best guess first.
    fn argument_sets(&self, name: &str, schema: &Value) -> Vec<Map<String, Value>> {
        let plain = arguments_for(schema);
        let ctx = Context {
            folders: &self.folders,
            known: &self.known,
        };
        let more = candidates::candidates(name, schema, &plain, &ctx);
        std::iter::once(plain).chain(more).collect()
    }

    /// A tool that outlasted its time gets two more tries: smaller numbers (a count, a
    /// duration), then the best other arguments, since a tool may also wait for what an input
    /// names and never comes (an element its selector names, a file).
    async fn after_timeout(&mut self, name: &'a str, schema: &Value, first: &Map<String, Value>) {
        let quick = candidates::quick(schema, first);
        if let Some(quick) = quick.clone() {
            self.extra_calls += 1;
            if self.try_call(name, schema, quick).await == CallStatus::Ok {
                return;
            }
        }
        let other = self
            .argument_sets(name, schema)
            .into_iter()
            .find(|c| c != first && Some(c) != quick.as_ref());
        if let Some(other) = other
            && self.session.is_some()
            && !self.out_of_budget()
        {
            self.extra_calls += 1;
            self.try_call(name, schema, other).await;
        }
    }

    /// One call of a search, recorded in the tool's trial; an answer is learned from.
    async fn try_call(
        &mut self,
        name: &'a str,
        schema: &Value,
        arguments: Map<String, Value>,
    ) -> CallStatus {
        let outcome = self.call(name, &arguments).await;
        let trial = self.trials.get_mut(name).expect("a trial per tool");
        if arguments == trial.first {
            trial.first_status = Some(outcome.status);
        }
        trial.tried.push(arguments.clone());
        match outcome.status {
            CallStatus::Ok => {
                self.known.learn(name, schema, &arguments, &outcome.parts);
                trial.answered = Some(arguments.clone());
                self.answered.push(PlannedCall::new(name, arguments));
            }
            CallStatus::Timeout | CallStatus::Crashed => {}
            _ => {
                let error = normalize(&outcome.text.replace(name, "{name}"));
                if self.blind.contains(&error) {
                    trial.gave_up = true;
                } else {
                    match &trial.error {
                        None => trial.error = Some(error),
                        Some(e) if *e == error => {
                            trial.same_error += 1;
                            if trial.same_error >= SAME_ERROR {
                                trial.gave_up = true;
                                self.blind.push(error);
                            }
                        }
                        Some(_) => {}
                    }
                }
            }
        }
        outcome.status
    }

    async fn call(&mut self, name: &str, arguments: &Map<String, Value>) -> Outcome {
        match &self.session {
            Some(session) => session.call(name, arguments.clone(), CALL_TIMEOUT).await,
            None => Outcome {
                status: CallStatus::Crashed,
                text: "the server did not start again".into(),
                parts: Vec::new(),
                other: Vec::new(),
            },
        }
    }

    /// A fresh session after a crash, with the calls that answered made again so that it holds
    /// what they made; false when it cannot go on.
    async fn restart(&mut self) -> bool {
        if let Some(old) = self.session.take() {
            old.close().await;
        }
        self.restarts += 1;
        if self.restarts > RESTARTS || self.started.elapsed() >= TIME_LIMIT {
            return false;
        }
        let Ok(session) = self.start().await else {
            return false;
        };
        for call in &self.answered {
            session
                .call(&call.name, call.arguments.clone(), CALL_TIMEOUT)
                .await;
        }
        self.session = Some(session);
        true
    }

    /// The calls in order: per group the tools that answered (as they answered), then the
    /// others of the group with their first call; then tools that timed out, then tools that
    /// crashed the server.
    fn plan(&self, groups: &[&Vec<&str>]) -> Vec<PlannedCall> {
        let mut plan = Vec::new();
        let mut late: Vec<PlannedCall> = Vec::new();
        let mut last: Vec<PlannedCall> = Vec::new();
        for group in groups {
            plan.extend(
                self.answered
                    .iter()
                    .filter(|c| group.contains(&c.name.as_str()))
                    .cloned(),
            );
            for name in group.iter() {
                let trial = &self.trials[name];
                if trial.answered.is_some() {
                    continue;
                }
                let call = PlannedCall::new(name, trial.first.clone());
                match trial.first_status {
                    Some(CallStatus::Timeout) => late.push(call),
                    Some(CallStatus::Crashed) => last.push(call),
                    _ => plan.push(call),
                }
            }
        }
        plan.extend(late);
        plan.extend(last);
        plan
    }
}
