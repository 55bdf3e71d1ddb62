//! The round loop: choose an operator, propose edits, apply, check syntax, start the server,
//! check the schema change against the operator's contract, run the functional tests, and only
//! then commit the version. A failed attempt is rolled back and another is tried.

mod generated;
mod llm;
mod oracle;
mod replay;
mod round;

pub use replay::ReplaySource;
mod served;

use round::Round;

use std::path::Path;
use std::time::Duration;

use serde::Serialize;

use crate::anchor;
use crate::operators::{self, Operator};
use crate::server::session::Status;
use crate::server::{LaunchConfig, LiveTools};
use crate::validate::{self, Baseline};
use crate::version_record;
use crate::workspace::Workspace;

/// Attempts per round before it is reported as failed; each tries another target, then another
/// operator.
pub const MAX_ATTEMPTS: u32 = 6;
/// Failed rounds an evolution absorbs (each retried with another seed) before it stops.
pub const MAX_FAILED_ROUNDS: u32 = 3;
/// Replies a model gets per step (choosing, rewriting) before the round fails.
pub const MAX_MODEL_ATTEMPTS: u32 = 3;

/// The default stage tags: what benchmark users call the early, middle and late versions.
pub fn default_stages() -> Vec<(String, String)> {
    [("early", "v0"), ("middle", "v3"), ("late", "v5")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// What proposes the changes.
#[derive(Clone)]
pub enum Backend {
    /// The deterministic rules: no network.
    Rules,
    /// A model behind an OpenAI-compatible endpoint; every exchange is recorded.
    Llm {
        chat: std::sync::Arc<dyn crate::llm::Chat>,
        model: String,
        /// Who serves the model (`LlmConfig::provider`): what records name as the backend.
        provider: String,
    },
    /// Recorded exchanges, replayed round by round: no network, and the same commits as the
    /// evolution that recorded them.
    Replay { from: ReplaySource },
    /// One proposal made elsewhere (a script, a test, a person), applied and judged exactly
    /// like a backend's: a way to check an edit by hand against the oracle.
    Given {
        proposal: Box<crate::mutate::Proposal>,
    },
}

impl Backend {
    /// What records name as the backend: `rules`, the model's provider, `replay`, `given`.
    pub fn name(&self) -> &str {
        match self {
            Backend::Rules => "rules",
            Backend::Llm { provider, .. } => provider,
            Backend::Replay { .. } => "replay",
            Backend::Given { .. } => "given",
        }
    }
}

pub struct Options {
    pub backend: Backend,
    /// Folders of user operator files, beside the built-in ones.
    pub operator_dirs: Vec<std::path::PathBuf>,
    pub rounds: u32,
    pub seed: u64,
    /// Operators to use, one per round in turn; empty to choose by seed among those that apply.
    pub operators: Vec<String>,
    pub timeout: Duration,
    pub stages: Vec<(String, String)>,
    pub max_attempts: u32,
    /// Failed rounds tolerated before the evolution stops short of `rounds` versions: a failed
    /// round is reported and tried again with another seed.
    pub max_failed_rounds: u32,
}

impl Options {
    /// The rules backend with the command line's defaults: `rounds` rounds from `seed`,
    /// operators chosen by seed, no user operators. Change fields with `..Options::rules(..)`.
    pub fn rules(rounds: u32, seed: u64) -> Options {
        Options {
            backend: Backend::Rules,
            operator_dirs: Vec::new(),
            rounds,
            seed,
            operators: Vec::new(),
            timeout: crate::server::DEFAULT_TIMEOUT,
            stages: default_stages(),
            max_attempts: MAX_ATTEMPTS,
            max_failed_rounds: MAX_FAILED_ROUNDS,
        }
    }
}

/// How a round ended.
#[derive(Debug, Clone, Copy, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RoundStatus {
    Committed,
    Failed,
}

/// One round as the command-line contract reports it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundOutcome {
    pub version: String,
    pub commit: Option<String>,
    pub operator: Option<String>,
    pub tools: Vec<String>,
    pub status: RoundStatus,
    pub attempts: u32,
    /// The committed version's checks: passed, failed (always 0 when committed), unverifiable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<validate::Tally>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the round's time went, all attempts together (not recorded in the commit: it
    /// differs from run to run).
    pub timings: Timings,
    /// The attempts of a failed round, recorded with the next committed version.
    #[serde(skip)]
    pub rejected: Vec<version_record::Rejection>,
    /// The round failed because the model endpoint did (not because of what it answered).
    #[serde(skip)]
    pub endpoint_failed: bool,
}

impl RoundOutcome {
    /// A round that ended without a commit, after the attempts in `rejected`.
    pub(crate) fn failed(
        number: u32,
        operator: Option<String>,
        reason: String,
        rejected: &[version_record::Rejection],
    ) -> RoundOutcome {
        RoundOutcome {
            version: format!("v{number}"),
            commit: None,
            operator,
            tools: rejected
                .last()
                .map(|r| r.targets.clone())
                .unwrap_or_default(),
            status: RoundStatus::Failed,
            attempts: rejected.len() as u32,
            tests: None,
            reason: Some(reason),
            timings: Timings::default(),
            rejected: rejected.to_vec(),
            endpoint_failed: false,
        }
    }
}

/// Milliseconds per pipeline step.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub anchor_ms: f64,
    pub mutate_ms: f64,
    /// Applying hunks, and any wait for the syntax check that runs beside the server step.
    pub check_ms: f64,
    /// Server start, tools/list, contract and functional tests.
    pub server_ms: f64,
    pub commit_ms: f64,
    /// Work done on another thread during the server step (the tree-sitter check of the edit,
    /// then the edited files' facts read ahead for the next anchoring). Not part of the round's
    /// wall time: a wait for it, when it outlasts the server step, is in `check_ms`.
    pub overlapped_ms: f64,
    /// The server time the oracle adds by running the previous version: observing it (two
    /// sessions at once) before the round, and, within `server_ms`, sampling it again when an
    /// output differs or tools are removed.
    pub previous_ms: f64,
}

fn add(slot: &std::cell::Cell<f64>, since: std::time::Instant) {
    slot.set(slot.get() + since.elapsed().as_secs_f64() * 1e3);
}

#[derive(Default)]
pub(super) struct Clock {
    anchor: std::cell::Cell<f64>,
    mutate: std::cell::Cell<f64>,
    check: std::cell::Cell<f64>,
    server: std::cell::Cell<f64>,
    overlapped: std::cell::Cell<f64>,
    /// The previous version's server time, baseline included.
    previous: std::cell::Cell<f64>,
}

#[derive(Debug, thiserror::Error)]
pub enum EvolveError {
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error(
        "{root} has uncommitted changes ({paths}); commit or discard them first, mcpevol only evolves a clean workspace"
    )]
    Dirty { root: String, paths: String },
    #[error("{0} has no version v0; create it with `mcpevol init`")]
    NoVersions(String),
    #[error(
        "the server of {root} does not start at {version}, so no round can be validated: {why}"
    )]
    ServerBroken {
        root: String,
        version: String,
        why: String,
    },
    #[error(transparent)]
    Record(#[from] version_record::RecordError),
    #[error(transparent)]
    Server(#[from] crate::server::ServerError),
    #[error("unknown operator {0}; `mcpevol operators list` shows the known ones")]
    UnknownOperator(String),
    #[error("{0}")]
    Operators(String),
    #[error("a prompt could not be filled: {0}")]
    Prompt(String),
    #[error("{from} has no recorded round {version} to replay")]
    NothingToReplay { from: String, version: String },
    #[error("interrupted; the workspace is back at {version}, its last committed version")]
    Interrupted { version: String },
}

/// Runs `opts.rounds` rounds on top of the latest version. `report` hears each round as it ends.
pub async fn evolve(
    root: &Path,
    opts: &Options,
    mut report: impl FnMut(&RoundOutcome),
) -> Result<Vec<RoundOutcome>, EvolveError> {
    let ws = Workspace::open(root)?;
    // A run killed before (kill -9) is recovered here; the lock is held until we return.
    let (_lock, _recovered) = ws.lock_for_evolve()?;
    ws.set_stage_tags(&opts.stages)?;
    let dirty = ws.dirty_paths()?;
    if !dirty.is_empty() {
        return Err(EvolveError::Dirty {
            root: root.display().to_string(),
            paths: dirty.join(", "),
        });
    }
    let mut dirs = opts.operator_dirs.clone();
    dirs.extend(configured_operator_dirs(root)?);
    let all_ops = operators::load_all(&dirs).map_err(|e| EvolveError::Operators(e.to_string()))?;
    let forced: Vec<&Operator> = opts
        .operators
        .iter()
        .map(|id| {
            operators::find(&all_ops, id).ok_or_else(|| EvolveError::UnknownOperator(id.clone()))
        })
        .collect::<Result<_, _>>()?;
    let latest = ws
        .latest()?
        .ok_or_else(|| EvolveError::NoVersions(root.display().to_string()))?;
    let config = LaunchConfig::for_package(root)?;
    let mut previous = version_record::read_tools(&ws, &latest.tag)?
        .ok_or_else(|| EvolveError::NoVersions(root.display().to_string()))?;
    // Tools that timed out in the last checks are not called again: they would only spend
    // the timeout once more.
    let mut slow: Vec<String> = version_record::read_round(&ws, &latest.tag)?
        .map(|r| timed_out(&r.tests))
        .unwrap_or_default();
    let cache = std::sync::Arc::new(std::sync::Mutex::new(anchor::Cache::default()));
    // The first round's anchoring reads every file; it overlaps the first baseline's server.
    let first_anchoring = anchor::prefetch(root, None, &cache);
    let started = std::time::Instant::now();
    let mut baseline = observe(root, &config, &previous, opts.timeout, &slow, &latest.tag).await?;
    let mut baseline_ms = started.elapsed().as_secs_f64() * 1e3;
    let _ = first_anchoring.join();

    let mut outcomes = Vec::new();
    let mut failures: Vec<version_record::FailedRound> = Vec::new();
    let mut k = latest.number + 1;
    let mut tries = 0u32;
    while k <= latest.number + opts.rounds {
        let forced_op = (!forced.is_empty()).then(|| forced[(k as usize - 1) % forced.len()]);
        let mut round = Round {
            root,
            ws: &ws,
            config: &config,
            opts,
            all_ops: &all_ops,
            number: k,
            try_number: tries,
            // The baseline this round is judged against counts once, in its first try.
            clock: Clock {
                previous: std::cell::Cell::new(std::mem::take(&mut baseline_ms)),
                ..Clock::default()
            },
            cache: &cache,
            backend: opts.backend.name().to_string(),
        };
        let attempt = match &opts.backend {
            Backend::Rules => round
                .run(forced_op, &previous, &baseline)
                .await?
                .map(|(r, t)| (r, t, Vec::new())),
            Backend::Llm { chat, model, .. } => {
                round
                    .run_llm(chat.as_ref(), model, forced_op, &previous, &baseline)
                    .await?
            }
            Backend::Given { proposal } => round
                .run_given(proposal, &previous, &baseline)
                .await?
                .map(|(r, t)| (r, t, Vec::new())),
            Backend::Replay { from } => {
                let (original, exchanges) = from.round(&ws, k)?;
                let replay = crate::llm::Replay::new(exchanges);
                // The replayed round records what the original did, so that the commits match.
                round.backend = original.backend.clone();
                let model = original.model.clone().unwrap_or_default();
                round
                    .run_llm(&replay, &model, forced_op, &previous, &baseline)
                    .await?
            }
        };
        let outcome = match attempt {
            Ok((mut record, tools, exchanges)) => {
                let started = std::time::Instant::now();
                record.failed_rounds = std::mem::take(&mut failures);
                version_record::write(root, &record, &tools, &exchanges)?;
                crate::crashpoint::here("records-written");
                let version = ws.commit_version(k, &record.commit_message())?;
                ws.set_stage_tags(&opts.stages)?;
                let commit_ms = started.elapsed().as_secs_f64() * 1e3;
                slow = timed_out(&record.tests);
                previous = tools;
                let started = std::time::Instant::now();
                baseline =
                    observe(root, &config, &previous, opts.timeout, &slow, &version.tag).await?;
                baseline_ms = started.elapsed().as_secs_f64() * 1e3;
                k += 1;
                tries = 0;
                RoundOutcome {
                    version: version.tag,
                    commit: Some(version.commit),
                    operator: record.operator.clone(),
                    tools: record
                        .targets
                        .iter()
                        .chain(&record.added)
                        .cloned()
                        .collect(),
                    status: RoundStatus::Committed,
                    attempts: record.attempts,
                    tests: Some(record.tally()),
                    reason: None,
                    timings: Timings {
                        commit_ms,
                        ..round.clock.timings()
                    },
                    rejected: Vec::new(),
                    endpoint_failed: false,
                }
            }
            Err(mut failure) => {
                failure.timings = round.clock.timings();
                failures.push(version_record::FailedRound {
                    round: k,
                    operator: failure.operator.clone(),
                    reason: failure.reason.clone().unwrap_or_default(),
                    attempts: failure.rejected.clone(),
                });
                tries += 1;
                failure
            }
        };
        report(&outcome);
        let failed = outcome.status == RoundStatus::Failed;
        outcomes.push(outcome);
        let failed_so_far = outcomes
            .iter()
            .filter(|o| o.status == RoundStatus::Failed)
            .count();
        // A replayed round can only be what was recorded, and a round no operator fits will
        // not fit on another try either.
        let hopeless = matches!(opts.backend, Backend::Replay { .. } | Backend::Given { .. })
            || outcomes.last().is_some_and(|o| o.attempts == 0);
        if failed && (failed_so_far as u32 >= opts.max_failed_rounds.max(1) || hopeless) {
            break;
        }
    }
    Ok(outcomes)
}

/// The previous version's answers, or the error that no round can be validated without them.
async fn observe(
    root: &Path,
    config: &LaunchConfig,
    live: &LiveTools,
    timeout: Duration,
    slow: &[String],
    version: &str,
) -> Result<Baseline, EvolveError> {
    Baseline::observe(root, config, &live.tools, timeout, slow)
        .await
        .map_err(|e| EvolveError::ServerBroken {
            root: root.display().to_string(),
            version: version.into(),
            why: e.to_string(),
        })
}

/// The tools whose checks timed out.
fn timed_out(tests: &[validate::TestResult]) -> Vec<String> {
    tests
        .iter()
        .filter(|t| t.status == Status::Timeout)
        .map(|t| t.tool.clone())
        .collect()
}

/// [`evolve`], stopped by Ctrl-C: the round in flight is dropped (its server killed) and the
/// work tree put back at the last committed version before the error is returned.
pub async fn evolve_until_interrupted(
    root: &Path,
    opts: &Options,
    report: impl FnMut(&RoundOutcome),
) -> Result<Vec<RoundOutcome>, EvolveError> {
    tokio::select! {
        outcome = evolve(root, opts, report) => outcome,
        _ = tokio::signal::ctrl_c() => {
            let ws = Workspace::open(root)?;
            let head = ws.head()?;
            ws.restore(&head)?;
            let version = ws
                .versions()?
                .into_iter()
                .rev()
                .find(|v| v.commit == head)
                .map_or(head, |v| v.tag);
            Err(EvolveError::Interrupted { version })
        }
    }
}

/// Where a workspace keeps settings that every `evolve` on it should use.
pub const CONFIG_PATH: &str = ".mcpevol/config.toml";

/// `operators = ["dir", ...]` in the workspace's config: folders of user operator files,
/// relative to the workspace, used as if given with `--operators`.
fn configured_operator_dirs(root: &Path) -> Result<Vec<std::path::PathBuf>, EvolveError> {
    #[derive(serde::Deserialize)]
    struct Config {
        #[serde(default)]
        operators: Vec<std::path::PathBuf>,
    }
    let path = root.join(CONFIG_PATH);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(Vec::new());
    };
    let config: Config = toml::from_str(&text)
        .map_err(|e| EvolveError::Operators(format!("{}: {e}", path.display())))?;
    Ok(config
        .operators
        .into_iter()
        .map(|d| if d.is_absolute() { d } else { root.join(d) })
        .collect())
}

impl Clock {
    pub(super) fn timings(&self) -> Timings {
        Timings {
            anchor_ms: self.anchor.get(),
            mutate_ms: self.mutate.get(),
            check_ms: self.check.get(),
            server_ms: self.server.get(),
            commit_ms: 0.0,
            overlapped_ms: self.overlapped.get(),
            previous_ms: self.previous.get(),
        }
    }
}
