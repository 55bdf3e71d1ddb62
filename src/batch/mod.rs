//! `mcpevol batch`: the servers of a manifest evolved concurrently, one workspace each under an
//! output folder, each with its own seed; resumable, safe to interrupt, and split into shards
//! that an existing scheduler runs and `batch merge` joins.
//!
//! Each job is an OS thread with its own single-threaded async runtime ([`pool`]): a round's
//! CPU work (anchoring, parsing, git) then never holds up another server's I/O, and the round
//! loop's futures need not be `Send`.

pub mod manifest;
pub mod merge;
pub mod pool;
pub mod progress;
pub mod shard;
pub mod state;
pub mod summary;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::evolve::{self, Backend, RoundOutcome};
use crate::init::{InitOptions, init};
use crate::workspace::Workspace;
use manifest::{Manifest, Server};
use progress::Progress;
use shard::Shard;
use state::{FailedRound, Plan, Planned, ServerState, StepTimes};
use summary::Summary;

#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    #[error(transparent)]
    Manifest(#[from] manifest::ManifestError),
    #[error(
        "{} was started with other settings: they differ in {what}; resume with the same ones or give a new --out",
        dir.display()
    )]
    OtherBatch { dir: PathBuf, what: String },
    #[error(
        "{} is not empty and is not a batch folder (no {}); give a new or empty --out",
        .0.display(), state::PLAN_FILE
    )]
    NotABatch(PathBuf),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is malformed: {why}", path.display())]
    Malformed { path: PathBuf, why: String },
    #[error("server `{name}`: {why}")]
    Server { name: String, why: String },
    #[error("{0}")]
    Merge(String),
    #[error("cannot start a worker thread: {0}")]
    Thread(std::io::Error),
}

impl BatchError {
    pub(crate) fn io(path: &Path, source: std::io::Error) -> BatchError {
        BatchError::Io {
            path: path.to_path_buf(),
            source,
        }
    }
}

/// Makes a server's backend in its worker thread (a model client is not shared across the
/// threads' runtimes).
pub type BackendFor = Arc<dyn Fn(&Server) -> Result<Backend, String> + Send + Sync>;

pub struct Options {
    pub rounds: u32,
    pub seed: u64,
    pub jobs: usize,
    /// The backend's name, as recorded in the plan.
    pub backend_name: String,
    pub backend: BackendFor,
    pub operator_dirs: Vec<PathBuf>,
    pub timeout: Duration,
    pub stages: Vec<(String, String)>,
    pub max_attempts: u32,
    /// Failed rounds each server's evolution tolerates (see `evolve::Options`).
    pub max_failed_rounds: u32,
    pub shard: Shard,
    /// Progress bars (true) or plain lines.
    pub bars: bool,
}

/// A server's seed when the manifest gives none: derived from the batch seed and its name, so
/// that servers of one batch do not all get the same operator sequence, and a server gets the
/// same seed whatever shard or order it runs in.
pub fn derive_seed(batch_seed: u64, name: &str) -> u64 {
    let digest = Sha256::digest(format!("mcpevol-batch/{batch_seed}/{name}").as_bytes());
    u64::from_be_bytes(digest[..8].try_into().expect("32 bytes"))
}

/// The plan of a run of `manifest` with `opts`.
pub fn plan(manifest: &Manifest, opts: &Options) -> Plan {
    Plan {
        manifest: manifest.path.display().to_string(),
        manifest_sha256: manifest.digest.clone(),
        seed: opts.seed,
        rounds: opts.rounds,
        backend: opts.backend_name.clone(),
        shard: opts.shard,
        servers: manifest
            .servers
            .iter()
            .map(|s| Planned {
                name: s.name.clone(),
                seed: s.seed.unwrap_or_else(|| derive_seed(opts.seed, &s.name)),
                rounds: s.rounds.unwrap_or(opts.rounds),
            })
            .collect(),
    }
}

/// Runs the shard of `manifest` that `opts.shard` names into `out`, continuing what an earlier
/// run there left. Stops early, every workspace at its last good version, once `cancel` turns
/// true. Writes and returns the summary.
pub fn run(
    manifest: &Manifest,
    out: &Path,
    opts: &Options,
    cancel: watch::Receiver<bool>,
) -> Result<Summary, BatchError> {
    let plan = plan(manifest, opts);
    let resuming = adoptable(out, &plan)?;
    let owned: Vec<(&Server, &Planned)> = manifest
        .servers
        .iter()
        .zip(&plan.servers)
        .filter(|(_, p)| plan.shard.owns(&p.name))
        .collect();
    let fresh: Vec<&Server> = owned
        .iter()
        .filter(|(s, _)| Workspace::open(&state::workspace_dir(out, &s.name)).is_err())
        .map(|(s, _)| *s)
        .collect();
    manifest.check_installable(&fresh)?;
    if !resuming {
        plan.save(out)?;
    }

    let mut queue = Vec::new();
    let (mut total, mut done, mut finished) = (0u64, 0u64, 0usize);
    for (server, planned) in &owned {
        let st = ServerState::load(out, &server.name)?;
        let accounted = accounted(out, planned, &st);
        done += accounted;
        if st.finished {
            finished += 1;
            total += accounted;
        } else {
            total += u64::from(planned.rounds);
            queue.push(((*server).clone(), (*planned).clone()));
        }
    }
    // Largest first, so that a long server does not start last and leave the other jobs idle:
    // a server's source size is a rough guide to how long its rounds take.
    queue.sort_by_key(|(server, _)| std::cmp::Reverse(size_hint(server)));
    let progress = Progress::new(opts.bars, total, done, owned.len(), finished);
    pool::each(
        "batch",
        opts.jobs,
        queue,
        &cancel,
        BatchError::Thread,
        |rt, (server, planned)| {
            let mut cancel = cancel.clone();
            let job = Job {
                out,
                server: &server,
                planned: &planned,
                opts,
                progress: &progress,
            };
            rt.block_on(job.run(&mut cancel))
        },
    )?;
    progress.close();
    let summary = Summary::build(out, &plan, &[plan.shard])?;
    summary.save(out)?;
    Ok(summary)
}

/// Whether `out` can hold `plan`: a new or empty folder (false), or one an earlier run of the
/// same plan left (true).
fn adoptable(out: &Path, plan: &Plan) -> Result<bool, BatchError> {
    match Plan::load(out)? {
        Some(earlier) => {
            let mut what = earlier.difference(plan);
            if earlier.shard != plan.shard {
                let shard = format!("the shard ({} vs {})", earlier.shard, plan.shard);
                what = Some(what.map_or(shard.clone(), |w| format!("{w}, {shard}")));
            }
            if let Some(what) = what {
                return Err(BatchError::OtherBatch {
                    dir: out.to_path_buf(),
                    what,
                });
            }
            Ok(true)
        }
        None => {
            let empty = match std::fs::read_dir(out) {
                Ok(mut d) => d.next().is_none(),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => true,
                Err(e) => return Err(BatchError::io(out, e)),
            };
            if !empty {
                return Err(BatchError::NotABatch(out.to_path_buf()));
            }
            Ok(false)
        }
    }
}

/// Bytes of a server's own source files; unknown (an npm spec not installed yet) counts as
/// large, since installing it takes long too.
fn size_hint(server: &Server) -> u64 {
    match &server.origin {
        manifest::Origin::Folder(dir) => crate::anchor::source_files(dir)
            .iter()
            .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len()))
            .sum(),
        manifest::Origin::Npm(_) => u64::MAX,
    }
}

/// Rounds of `planned` already run: committed or failed.
fn accounted(out: &Path, planned: &Planned, st: &ServerState) -> u64 {
    let reached = latest_number(&state::workspace_dir(out, &planned.name));
    u64::from(planned.rounds).min(u64::from(reached) + st.failed_rounds.len() as u64)
}

fn latest_number(ws_dir: &Path) -> u32 {
    Workspace::open(ws_dir)
        .ok()
        .and_then(|ws| ws.latest().ok().flatten())
        .map_or(0, |v| v.number)
}

/// One server's run in a worker thread.
struct Job<'a> {
    out: &'a Path,
    server: &'a Server,
    planned: &'a Planned,
    opts: &'a Options,
    progress: &'a Progress,
}

impl Job<'_> {
    async fn run(&self, cancel: &mut watch::Receiver<bool>) -> Result<(), BatchError> {
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
                settle(&ws_dir).map_err(|why| BatchError::Server {
                    name: name.clone(),
                    why,
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
            Some(Err(why)) => {
                settle(&ws_dir).map_err(|why| BatchError::Server {
                    name: name.clone(),
                    why,
                })?;
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
        failed: &mut Vec<FailedRound>,
        steps: &mut StepTimes,
    ) -> Result<(), String> {
        let name = &self.server.name;
        let ws_dir = state::workspace_dir(self.out, name);
        if ws_dir.exists() && Workspace::open(&ws_dir).is_err() {
            // An install that was stopped half way: start it again.
            std::fs::remove_dir_all(&ws_dir)
                .map_err(|e| format!("cannot remove {}: {e}", ws_dir.display()))?;
        }
        if !ws_dir.exists() {
            self.progress.phase(name, "installing");
            let opts = InitOptions {
                launch: self.server.launch.clone(),
                args: Vec::new(),
                env: self.server.env.clone(),
                timeout: self.opts.timeout,
                stages: self.opts.stages.clone(),
            };
            let started = Instant::now();
            let made = init(&self.server.origin.as_source(), &ws_dir, &opts).await;
            steps.init_ms += started.elapsed().as_secs_f64() * 1e3;
            made.map_err(|e| format!("init: {e}"))?;
        }
        let reached = settle(&ws_dir)?;
        let remaining = self.planned.rounds.saturating_sub(reached);
        if remaining == 0 {
            return Ok(());
        }
        let backend = (self.opts.backend)(self.server)?;
        let opts = evolve::Options {
            backend,
            operator_dirs: self.opts.operator_dirs.clone(),
            rounds: remaining,
            seed: self.planned.seed,
            operators: Vec::new(),
            timeout: self.opts.timeout,
            stages: self.opts.stages.clone(),
            max_attempts: self.opts.max_attempts,
            max_failed_rounds: self.opts.max_failed_rounds,
        };
        let target = self.planned.rounds;
        self.progress
            .phase(name, &format!("round {}/{target}", reached + 1));
        evolve::evolve(&ws_dir, &opts, |o: &RoundOutcome| {
            steps.add_round(&o.timings);
            let op = o.operator.as_deref().unwrap_or("--");
            let number: u32 = o.version.trim_start_matches('v').parse().unwrap_or(0);
            let text = match &o.commit {
                Some(c) => format!("{} {op} committed {}", o.version, &c[..12.min(c.len())]),
                None => {
                    let reason = o.reason.clone().unwrap_or_default();
                    failed.push(FailedRound {
                        version: o.version.clone(),
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
        .await
        .map(|_| ())
        .map_err(|e| e.to_string())
    }
}

/// The workspaces of a workspace or batch folder.
pub struct Workspaces {
    /// Name and folder of each, in manifest order.
    pub found: Vec<(String, PathBuf)>,
    /// Servers of a batch that have no workspace (they did not install).
    pub missing: Vec<String>,
}

/// The workspaces `path` holds: each started server of a batch folder, or `path` itself when
/// it is a workspace, named after its folder.
pub fn workspaces(path: &Path) -> Result<Workspaces, BatchError> {
    let Some(plan) = Plan::load(path)? else {
        Workspace::open(path).map_err(|e| BatchError::Server {
            name: path.display().to_string(),
            why: e.to_string(),
        })?;
        let name = path
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| path.display().to_string());
        return Ok(Workspaces {
            found: vec![(name, path.to_path_buf())],
            missing: Vec::new(),
        });
    };
    let (mut found, mut missing) = (Vec::new(), Vec::new());
    for p in plan.owned() {
        let dir = state::workspace_dir(path, &p.name);
        if Workspace::open(&dir).is_ok() {
            found.push((p.name.clone(), dir));
        } else {
            missing.push(p.name.clone());
        }
    }
    Ok(Workspaces { found, missing })
}

/// The summary of a batch folder as its files say now; None for anything else.
pub fn summary_of(path: &Path) -> Result<Option<Summary>, BatchError> {
    match Plan::load(path)? {
        Some(plan) => Summary::build(path, &plan, &[plan.shard]).map(Some),
        None => Ok(None),
    }
}

/// Puts a workspace back at its latest version: a half-made round (changed files, or a commit
/// that did not get its tag) is dropped. Returns that version's number. A folder that is not a
/// workspace (an install stopped half way) is removed.
fn settle(ws_dir: &Path) -> Result<u32, String> {
    let ws = match Workspace::open(ws_dir) {
        Ok(ws) => ws,
        Err(_) if ws_dir.exists() => {
            std::fs::remove_dir_all(ws_dir)
                .map_err(|e| format!("cannot remove {}: {e}", ws_dir.display()))?;
            return Ok(0);
        }
        Err(_) => return Ok(0),
    };
    let latest = ws
        .latest()
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("{} has no version v0", ws_dir.display()))?;
    let head = ws.head().map_err(|e| e.to_string())?;
    let dirty = !ws.dirty_paths().map_err(|e| e.to_string())?.is_empty();
    if head != latest.commit || dirty {
        ws.restore(&latest.commit).map_err(|e| e.to_string())?;
    }
    Ok(latest.number)
}
