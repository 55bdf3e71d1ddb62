//! The evolution: version after version, a round asks a proposer for changes and puts them
//! through one attempt loop (apply, check syntax, start the server, check the schema change
//! against the operators' contracts, run the oracle); only a version that passed is committed.
//!
//! `attempt.rs` is the loop, `prove.rs` the judging of a started version, `proposer.rs` the
//! interface every backend implements (`rule_proposer.rs`, `model_proposer.rs`,
//! `given_proposer.rs`; a replay is the model proposer over recorded exchanges).

mod attempt;
mod attempt_error;
mod backend;
mod clock;
mod generated;
mod given_proposer;
mod model_proposer;
mod proposer;
mod prove;
mod replay_source;
mod rule_proposer;
mod served;
mod talk;

pub use attempt_error::AttemptError;
pub use backend::{Backend, BackendKind};
pub use clock::Timings;
pub use given_proposer::GivenProposer;
pub use model_proposer::ModelProposer;
pub use proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
pub use replay_source::ReplaySource;
pub use rule_proposer::RuleProposer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::anchor;
use crate::operators::{self, Operator, OperatorId};
use crate::server::session::CallStatus;
use crate::server::{LaunchConfig, LiveTools};
use crate::validate::{self, Baseline};
use crate::version_record::{self, Rejection};
use crate::workspace::{VersionTag, Workspace};
use attempt::{Round, RoundEnd};
use clock::Clock;

/// Attempts per round before it is reported as failed; each tries another target, then another
/// operator.
pub const MAX_ATTEMPTS: u32 = 6;
/// Failed rounds an evolution absorbs (each retried with another seed) before it stops.
pub const MAX_FAILED_ROUNDS: u32 = 3;
/// Replies a model gets per step (choosing, rewriting) before the round fails.
pub const MAX_MODEL_ATTEMPTS: u32 = 3;

/// A stage tag and the version it names: `middle` = `v3`.
pub type Stage = (String, VersionTag);

/// The default stage tags: what benchmark users call the early, middle and late versions.
pub fn default_stages() -> Vec<Stage> {
    [("early", 0), ("middle", 3), ("late", 5)]
        .iter()
        .map(|(a, n)| (a.to_string(), VersionTag::new(*n)))
        .collect()
}

/// How an evolution runs, whatever backend proposes its changes.
#[derive(Debug, Clone)]
pub struct EvolveOptions {
    /// Folders of user operator files, beside the built-in ones.
    pub operator_dirs: Vec<PathBuf>,
    pub rounds: u32,
    pub seed: u64,
    /// Operators to use, one per round in turn; empty to choose among those that apply.
    pub operators: Vec<OperatorId>,
    pub timeout: Duration,
    pub stages: Vec<Stage>,
    pub max_attempts: u32,
    /// Failed rounds tolerated before the evolution stops short of `rounds` versions: a failed
    /// round is reported and tried again with another seed.
    pub max_failed_rounds: u32,
}

impl EvolveOptions {
    /// The command line's defaults: `rounds` rounds from `seed`, operators chosen by seed, no
    /// user operators. Change fields with `..EvolveOptions::new(..)`.
    pub fn new(rounds: u32, seed: u64) -> EvolveOptions {
        EvolveOptions {
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
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RoundStatus {
    Committed,
    Failed,
}

/// One round as the command-line contract reports it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundOutcome {
    pub version: VersionTag,
    pub commit: Option<String>,
    pub operator: Option<OperatorId>,
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
    pub rejected: Vec<Rejection>,
    /// The round failed because the model endpoint did (not because of what it answered).
    #[serde(skip)]
    pub endpoint_failed: bool,
}

impl RoundOutcome {
    /// A round that ended without a commit, after `attempts` attempts and the rejections in
    /// `rejected`.
    pub(crate) fn failed(
        version: VersionTag,
        reason: String,
        rejected: &[Rejection],
        attempts: u32,
    ) -> RoundOutcome {
        let last_tried = rejected.iter().rev().find(|r| r.operator.is_some());
        RoundOutcome {
            version,
            commit: None,
            operator: last_tried.and_then(|r| r.operator.clone()),
            tools: last_tried.map(|r| r.targets.clone()).unwrap_or_default(),
            status: RoundStatus::Failed,
            attempts,
            tests: None,
            reason: Some(reason),
            timings: Timings::default(),
            rejected: rejected.to_vec(),
            endpoint_failed: false,
        }
    }
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
        version: VersionTag,
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
    NothingToReplay { from: String, version: VersionTag },
    #[error("interrupted; the workspace is back at {version}, its last committed version")]
    Interrupted { version: String },
}

/// Everything one evolution shares between its rounds.
struct Evolution<'a> {
    root: &'a Path,
    ws: Workspace,
    config: LaunchConfig,
    operators: Vec<Operator>,
    /// Where the user's operator files are: the options' folders and the workspace's config.
    operator_dirs: Vec<PathBuf>,
    forced: Vec<Operator>,
    cache: Arc<Mutex<anchor::FactsCache>>,
    opts: &'a EvolveOptions,
}

/// Runs `opts.rounds` rounds on top of the latest version, each proposed by `backend`.
/// `report` hears each round as it ends.
pub async fn evolve(
    root: &Path,
    backend: &Backend,
    opts: &EvolveOptions,
    mut report: impl FnMut(&RoundOutcome),
) -> Result<Vec<RoundOutcome>, EvolveError> {
    let ws = Workspace::open(root)?;
    // A run killed before (kill -9) is recovered here; the lock is held until we return.
    let (_lock, _recovered) = ws.lock_for_evolve()?;
    let evolution = Evolution::open(root, ws, opts)?;
    let latest = evolution
        .ws
        .latest()?
        .ok_or_else(|| EvolveError::NoVersions(root.display().to_string()))?;
    let mut previous = version_record::read_tools(&evolution.ws, latest.tag.to_string())?
        .ok_or_else(|| EvolveError::NoVersions(root.display().to_string()))?;
    // Tools that timed out in the last checks are not called again: they would only spend
    // the timeout once more.
    let slow = version_record::read_round(&evolution.ws, latest.tag.to_string())?
        .map(|r| timed_out(&r.tests))
        .unwrap_or_default();
    // The first round's anchoring reads every file; it overlaps the first baseline's server.
    let first_anchoring = anchor::prefetch(root, None, &evolution.cache);
    let started = Instant::now();
    let mut baseline = evolution.observe(&previous, &slow, latest.tag).await?;
    let mut baseline_ms = started.elapsed().as_secs_f64() * 1e3;
    let _ = first_anchoring.join();

    let mut outcomes: Vec<RoundOutcome> = Vec::new();
    let mut failures: Vec<version_record::FailedRound> = Vec::new();
    let mut version = latest.tag.next();
    let last = VersionTag::new(latest.tag.number() + opts.rounds);
    let mut tries = 0u32;
    while version <= last {
        let round = evolution.round(version, tries, std::mem::take(&mut baseline_ms));
        let mut proposer = backend.proposer(&evolution.ws, version, &evolution.operator_dirs)?;
        let outcome = match round.run(proposer.as_mut(), &previous, &baseline).await? {
            RoundEnd::Made(made) => {
                let started = Instant::now();
                let attempt::Made {
                    mut record,
                    tools,
                    exchanges,
                } = *made;
                record.failed_rounds = std::mem::take(&mut failures);
                version_record::write(root, &record, &tools, &exchanges)?;
                crate::crashpoint::here("records-written");
                let committed = evolution
                    .ws
                    .commit_version(version, &record.commit_message())?;
                evolution.ws.set_stage_tags(&opts.stages)?;
                let commit_ms = started.elapsed().as_secs_f64() * 1e3;
                let slow = timed_out(&record.tests);
                previous = tools;
                let started = Instant::now();
                baseline = evolution.observe(&previous, &slow, version).await?;
                baseline_ms = started.elapsed().as_secs_f64() * 1e3;
                version = version.next();
                tries = 0;
                RoundOutcome {
                    version: committed.tag,
                    commit: Some(committed.commit),
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
            RoundEnd::Failed(failure) => {
                let failure = *failure;
                failures.push(version_record::FailedRound {
                    version,
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
        // A round no operator fits will not fit on another try either.
        let hopeless = !backend.retries_help() || outcome.attempts == 0;
        outcomes.push(outcome);
        let failed_so_far = outcomes
            .iter()
            .filter(|o| o.status == RoundStatus::Failed)
            .count() as u32;
        if failed && (failed_so_far >= opts.max_failed_rounds.max(1) || hopeless) {
            break;
        }
    }
    Ok(outcomes)
}

impl<'a> Evolution<'a> {
    /// The workspace ready to evolve: stage tags in place, clean, its operators loaded.
    fn open(root: &'a Path, ws: Workspace, opts: &'a EvolveOptions) -> Result<Self, EvolveError> {
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
        let operators =
            operators::load_all(&dirs).map_err(|e| EvolveError::Operators(e.to_string()))?;
        let forced = opts
            .operators
            .iter()
            .map(|id| {
                operators::find(&operators, id)
                    .cloned()
                    .ok_or_else(|| EvolveError::UnknownOperator(id.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Evolution {
            root,
            config: LaunchConfig::for_package(root)?,
            ws,
            operators,
            operator_dirs: dirs,
            forced,
            cache: Arc::new(Mutex::new(anchor::FactsCache::default())),
            opts,
        })
    }

    /// Try `try_number` of the round that makes `version`.
    fn round(&self, version: VersionTag, try_number: u32, baseline_ms: f64) -> Round<'_> {
        let forced = (!self.forced.is_empty())
            .then(|| &self.forced[(version.number() as usize - 1) % self.forced.len()]);
        Round {
            root: self.root,
            ws: &self.ws,
            config: &self.config,
            opts: self.opts,
            operators: &self.operators,
            operator_dirs: &self.operator_dirs,
            forced,
            version,
            try_number,
            // The baseline this round is judged against counts once, in its first try.
            clock: Clock::with_baseline(baseline_ms),
            cache: &self.cache,
        }
    }

    /// The answers of `version`, the latest, or the error that no round can be validated
    /// without them.
    async fn observe(
        &self,
        live: &LiveTools,
        slow: &[String],
        version: VersionTag,
    ) -> Result<Baseline, EvolveError> {
        Baseline::observe(
            self.root,
            &self.config,
            &live.tools,
            self.opts.timeout,
            slow,
        )
        .await
        .map_err(|e| EvolveError::ServerBroken {
            root: self.root.display().to_string(),
            version,
            why: e.to_string(),
        })
    }
}

/// The tools whose checks timed out.
fn timed_out(tests: &[validate::TestResult]) -> Vec<String> {
    tests
        .iter()
        .filter(|t| t.status == CallStatus::Timeout)
        .map(|t| t.tool.clone())
        .collect()
}

/// [`evolve`], stopped by Ctrl-C: the round in flight is dropped (its server killed) and the
/// work tree put back at the last committed version before the error is returned.
pub async fn evolve_until_interrupted(
    root: &Path,
    backend: &Backend,
    opts: &EvolveOptions,
    report: impl FnMut(&RoundOutcome),
) -> Result<Vec<RoundOutcome>, EvolveError> {
    tokio::select! {
        outcome = evolve(root, backend, opts, report) => outcome,
        _ = tokio::signal::ctrl_c() => {
            let ws = Workspace::open(root)?;
            let head = ws.head()?;
            ws.restore(&head)?;
            let version = ws
                .versions()?
                .into_iter()
                .rev()
                .find(|v| v.commit == head)
                .map_or(head, |v| v.tag.to_string());
            Err(EvolveError::Interrupted { version })
        }
    }
}

/// Where a workspace keeps settings that every `evolve` on it should use.
pub const CONFIG_PATH: &str = ".mcpevol/config.toml";

/// `operators = ["dir", ...]` in the workspace's config: folders of user operator files,
/// relative to the workspace, used as if given with `--operators`.
fn configured_operator_dirs(root: &Path) -> Result<Vec<PathBuf>, EvolveError> {
    #[derive(serde::Deserialize)]
    struct Config {
        #[serde(default)]
        operators: Vec<PathBuf>,
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
