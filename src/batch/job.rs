//! One server's job in a batch: install it if its workspace is missing, put the workspace back
//! at its latest version, evolve the rounds still to do, and record in its state file what
//! the workspace cannot say (finished, failed rounds, time, the error that stopped it).

use std::path::{Path, PathBuf};
use std::time::Instant;

use tokio::sync::watch;

use super::manifest::Server;
use super::progress::Progress;
use super::state::{self, Planned, ServerState, StepTimes, UncommittedRound};
use super::{BackendSetupError, BatchError, BatchOptions, accounted, latest_number};
use crate::evolve::{self, EvolveOptions, RoundOutcome};
use crate::init::{InitOptions, init};
use crate::operators::OperatorId;
use crate::workspace::Workspace;

/// Why one server's job stopped short (the others go on); its state file keeps the words.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("cannot remove {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("init: {0}")]
    Init(#[from] crate::init::InitError),
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error("{} has no version v0", .0.display())]
    NoVersions(PathBuf),
    #[error("the backend cannot be set up: {0}")]
    Backend(BackendSetupError),
    #[error(transparent)]
    Evolve(#[from] evolve::EvolveError),
}

/// One server's run in a worker thread.
pub(super) struct Job<'a> {
    pub(super) out: &'a Path,
    pub(super) server: &'a Server,
    pub(super) planned: &'a Planned,
    pub(super) opts: &'a BatchOptions,
    pub(super) progress: &'a Progress,
}

impl Job<'_> {
    pub(super) async fn run(&self, cancel: &mut watch::Receiver<bool>) -> Result<(), BatchError> {
        let name = &self.server.name;
        let mut st = ServerState::load(self.out, name)?;
        let started = Instant::now();
        let outcome = tokio::select! {
            r = self.evolve(&mut st.failed_rounds, &mut st.steps) => Some(r),
            _ = cancel.wait_for(|stop| *stop) => None,
        };
        st.seconds += started.elapsed().as_secs_f64();
        let ws_dir = state::workspace_dir(self.out, name);
        let text = match outcome {
            None => {
                settle(&ws_dir).map_err(|e| BatchError::Server {
                    name: name.clone(),
                    why: e.to_string(),
                })?;
                st.interrupted = true;
                "interrupted; its workspace is back at its last version".to_string()
            }
            Some(Ok(())) => {
                st.finished = true;
                st.interrupted = false;
                st.error = None;
                format!("done at v{}", latest_number(&ws_dir))
            }
            Some(Err(error)) => {
                settle(&ws_dir).map_err(|e| BatchError::Server {
                    name: name.clone(),
                    why: e.to_string(),
                })?;
                let why = error.to_string();
                st.interrupted = false;
                st.error = Some(why.clone());
                format!("error: {}", why.lines().next().unwrap_or(""))
            }
        };
        let skipped = u64::from(self.planned.rounds) - accounted(self.out, self.planned, &st);
        st.save(self.out, name)?;
        self.progress.finish(name, &text, skipped);
        Ok(())
    }

    /// Installs the server if its workspace is not there yet, drops what an interrupted run
    /// left half made, and runs the rounds still to do. Failed rounds go to `failed`.
    async fn evolve(
        &self,
        failed: &mut Vec<UncommittedRound>,
        steps: &mut StepTimes,
    ) -> Result<(), JobError> {
        let name = &self.server.name;
        let ws_dir = state::workspace_dir(self.out, name);
        if ws_dir.exists() && Workspace::open(&ws_dir).is_err() {
            // An install that was stopped half way: start it again.
            remove(&ws_dir)?;
        }
        if !ws_dir.exists() {
            self.progress.phase(name, "installing");
            let opts = InitOptions {
                launch: self.server.launch.clone(),
                args: self.server.args.clone(),
                env: self.server.env.clone(),
                timeout: self.opts.evolve.timeout,
                stages: self.opts.evolve.stages.clone(),
            };
            let started = Instant::now();
            let made = init(&self.server.origin.as_source(), &ws_dir, &opts).await;
            steps.init_ms += started.elapsed().as_secs_f64() * 1e3;
            made?;
        }
        let reached = settle(&ws_dir)?;
        let remaining = self.planned.rounds.saturating_sub(reached);
        if remaining == 0 {
            return Ok(());
        }
        let backend = (self.opts.backend)(self.server).map_err(JobError::Backend)?;
        let opts = EvolveOptions {
            rounds: remaining,
            seed: self.planned.seed,
            ..self.opts.evolve.clone()
        };
        let target = self.planned.rounds;
        self.progress
            .phase(name, &format!("round {}/{target}", reached + 1));
        evolve::evolve(&ws_dir, &backend, &opts, |o: &RoundOutcome| {
            steps.add_round(&o.timings);
            let op = o
                .operator
                .as_ref()
                .map_or("--".to_string(), OperatorId::to_string);
            let number = o.version.number();
            let text = match &o.commit {
                Some(c) => format!("{} {op} committed {}", o.version, &c[..12.min(c.len())]),
                None => {
                    let reason = o.reason.clone().unwrap_or_default();
                    failed.push(UncommittedRound {
                        version: o.version,
                        operator: o.operator.clone(),
                        reason: reason.clone(),
                    });
                    format!(
                        "{} {op} failed: {}",
                        o.version,
                        reason.lines().next().unwrap_or("")
                    )
                }
            };
            self.progress.round(name, &text);
            if number < target {
                self.progress
                    .phase(name, &format!("round {}/{target}", number + 1));
            }
        })
        .await?;
        Ok(())
    }
}

/// Puts a workspace back at its latest version: a half-made round (changed files, or a commit
/// that did not get its tag) is dropped. Returns that version's number. A folder that is not a
/// workspace (an install stopped half way) is removed.
fn settle(ws_dir: &Path) -> Result<u32, JobError> {
    let ws = match Workspace::open(ws_dir) {
        Ok(ws) => ws,
        Err(_) if ws_dir.exists() => {
            remove(ws_dir)?;
            return Ok(0);
        }
        Err(_) => return Ok(0),
    };
    let latest = ws
        .latest()?
        .ok_or_else(|| JobError::NoVersions(ws_dir.to_path_buf()))?;
    let head = ws.head()?;
    let dirty = !ws.dirty_paths()?.is_empty();
    if head != latest.commit || dirty {
        ws.restore(&latest.commit)?;
    }
    Ok(latest.number())
}

fn remove(dir: &Path) -> Result<(), JobError> {
    std::fs::remove_dir_all(dir).map_err(|source| JobError::Remove {
        path: dir.to_path_buf(),
        source,
    })
}
