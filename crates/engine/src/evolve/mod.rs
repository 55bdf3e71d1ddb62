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
mod case_proof;
mod clock;
mod current;
use current::Current;
mod drafting;
mod generated;
mod given_proposer;
mod model;
mod model_proposer;
mod model_release;
mod outcome;
mod proposer;
mod prove;
mod release_proposer;
mod replay_source;
mod rule_proposer;
mod served;
mod talk;

pub use attempt_error::{AttemptError, Blame};
pub use backend::{Backend, BackendKind, MakeProposer};
pub use clock::Timings;
pub use given_proposer::GivenProposer;
pub use model_proposer::ModelProposer;
pub use model_release::ModelReleaseProposer;
pub use outcome::{RoundOutcome, RoundStatus};
pub use proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
pub use release_proposer::ReleaseProposer;
pub use replay_source::ReplaySource;
pub use rule_proposer::RuleProposer;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::version_record::{self, observed};
use crate::workspace::{VersionTag, Workspace};
use attempt::{Round, RoundEnd};
use clock::Clock;
use mcpevol_anchor as anchor;
use mcpevol_core::operators::{self, Operator, OperatorId};
use mcpevol_oracle::server::LaunchConfig;
use mcpevol_oracle::validate::{self, Baseline};

/// Attempts per round before it is reported as failed; each tries another target, then another
/// operator.
pub const MAX_ATTEMPTS: u32 = 6;
/// Attempts per release (`--shape release`): each rejected one drops one change and tries the
/// rest, so a release of several changes needs more than a round.
pub const MAX_RELEASE_ATTEMPTS: u32 = 10;
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
    /// Refuse a change no passed check showed working, and try others (`--require-proof`).
    pub require_proof: bool,
    /// One operator per version, or releases of several changes (`--shape`).
    pub shape: crate::release::Shape,
    /// What releases are drawn for (`--mix`; the shipped figures by default).
    pub mix: Arc<crate::release::Mix>,
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
            timeout: mcpevol_oracle::server::DEFAULT_TIMEOUT,
            stages: default_stages(),
            max_attempts: MAX_ATTEMPTS,
            max_failed_rounds: MAX_FAILED_ROUNDS,
            require_proof: false,
            shape: crate::release::Shape::Round,
            mix: Arc::new(crate::release::Mix::shipped()),
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
    Server(#[from] mcpevol_oracle::server::ServerError),
    #[error("unknown operator {0}; `mcpevol operators list` shows the known ones")]
    UnknownOperator(OperatorId),
    #[error(transparent)]
    Operators(#[from] operators::OperatorError),
    #[error("{}: {source}", path.display())]
    Config {
        path: PathBuf,
        source: toml::de::Error,
    },
    #[error("a prompt could not be filled: {0}")]
    Prompt(#[from] mcpevol_core::prompt::PromptError),
    #[error("{from} has no recorded round {version} to replay")]
    NothingToReplay { from: String, version: VersionTag },
    #[error("interrupted; the workspace is back at {version}, its last committed version")]
    Interrupted { version: String },
    #[error("--shape release {0}")]
    Shape(&'static str),
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
    check_shape(backend, opts)?;
    let ws = Workspace::open(root)?;
    // A run killed before (kill -9) is recovered here; the lock is held until we return.
    let (_lock, _recovered) = ws.lock_for_evolve()?;
    let evolution = Evolution::open(root, ws, opts)?;
    let mut current = evolution.current().await?;
    let last = VersionTag::new(current.version.number() + opts.rounds);
    let mut outcomes: Vec<RoundOutcome> = Vec::new();
    let mut failures: Vec<version_record::FailedRound> = Vec::new();
    let mut tries = 0u32;
    while current.version < last {
        let version = current.version.next();
        let round = evolution.round(version, tries, std::mem::take(&mut current.baseline_ms));
        let mut proposer: Box<dyn Proposer> = match opts.shape {
            crate::release::Shape::Release => backend.release_proposer(
                &evolution.ws,
                version,
                &evolution.operator_dirs,
                &opts.mix,
            )?,
            crate::release::Shape::Round => {
                backend.proposer(&evolution.ws, version, &evolution.operator_dirs)?
            }
        };
        let outcome = match round
            .run(proposer.as_mut(), &current.tools, &current.baseline)
            .await?
        {
            RoundEnd::Made(made) => {
                let failed = std::mem::take(&mut failures);
                // The last version is not observed: no round is judged against it.
                let more = version < last;
                let observe = more.then_some(&current.baseline);
                let (outcome, next) = evolution
                    .commit(*made, failed, &round.clock, observe)
                    .await?;
                current = next;
                tries = 0;
                outcome
            }
            RoundEnd::Failed(failure) => {
                failures.push(failure.as_failed_round());
                tries += 1;
                *failure
            }
        };
        report(&outcome);
        // A round no operator fits will not fit on another try either.
        let hopeless = !backend.retries_help() || outcome.attempts == 0;
        let failed = outcome.status == RoundStatus::Failed;
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

/// Releases are drawn by the rules or planned by a model (a proposer of your own makes its
/// own); their operators follow the target mix, so none can be forced.
fn check_shape(backend: &Backend, opts: &EvolveOptions) -> Result<(), EvolveError> {
    if opts.shape != crate::release::Shape::Release {
        return Ok(());
    }
    if matches!(backend, Backend::Given { .. }) {
        return Err(EvolveError::Shape(
            "draws its releases from a backend; a given proposal is one change",
        ));
    }
    if !opts.operators.is_empty() {
        return Err(EvolveError::Shape(
            "draws the operators of each release from the mix; it takes no --operator",
        ));
    }
    Ok(())
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
        let operators = operators::load_all(&dirs)?;
        let forced = opts
            .operators
            .iter()
            .map(|id| {
                operators::find(&operators, id)
                    .cloned()
                    .ok_or_else(|| EvolveError::UnknownOperator(id.clone()))
            })
            .collect::<Result<_, _>>()?;
        Ok(Evolution {
            root,
            config: LaunchConfig::for_package(root)
                .map_err(mcpevol_oracle::server::ServerError::from)?,
            ws,
            operators,
            operator_dirs: dirs,
            forced,
            cache: Arc::new(Mutex::new(anchor::FactsCache::default())),
            opts,
        })
    }

    /// Writes the records of a version that passed, commits and tags it, and observes it for
    /// the next round when there is one (`observe`, the answers of the version before it),
    /// keeping its answers beside the commit.
    async fn commit(
        &self,
        made: attempt::Made,
        failed_rounds: Vec<version_record::FailedRound>,
        clock: &Clock,
        observe: Option<&Baseline>,
    ) -> Result<(RoundOutcome, Current), EvolveError> {
        let started = Instant::now();
        let attempt::Made {
            mut record,
            tools,
            exchanges,
        } = made;
        record.failed_rounds = failed_rounds;
        version_record::write(self.root, &record, &tools, &exchanges)?;
        mcpevol_core::crashpoint::here("records-written");
        let committed = self
            .ws
            .commit_version(record.version, &record.commit_message())?;
        // What the checks compared, beside the commit, so that a verdict can be judged again.
        let evidence = mcpevol_oracle::validate::evidence::Evidence::of(&record.tests);
        if !evidence.comparisons.is_empty() {
            let text = serde_json::to_string(&evidence).expect("evidence serializes");
            self.ws.set_note(&committed.commit, &text)?;
        }
        self.ws.set_stage_tags(&self.opts.stages)?;
        let commit_ms = started.elapsed().as_secs_f64() * 1e3;
        let outcome = RoundOutcome {
            version: committed.tag,
            commit: Some(committed.commit.clone()),
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
                ..clock.timings()
            },
            rejected: Vec::new(),
            endpoint_failed: false,
        };
        let current = if let Some(before) = observe {
            let hints = validate::CallHints::from_tests(&record.tests);
            let current = self.observed(record.version, tools, &hints, before).await?;
            observed::keep(
                &self.ws,
                &committed.commit,
                self.opts.timeout,
                &current.baseline,
            )?;
            current
        } else {
            Current {
                version: record.version,
                tools,
                baseline: Baseline::default(),
                baseline_ms: 0.0,
            }
        };
        Ok((outcome, current))
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
    let config: Config =
        toml::from_str(&text).map_err(|source| EvolveError::Config { path, source })?;
    Ok(config
        .operators
        .into_iter()
        .map(|d| if d.is_absolute() { d } else { root.join(d) })
        .collect())
}
