//! `mcpevol batch`: the servers of a manifest evolved concurrently, one workspace each under an
//! output folder, each with its own seed; resumable, safe to interrupt, and split into shards
//! that an existing scheduler runs and `batch merge` joins.
//!
//! Each job is an OS thread with its own single-threaded async runtime ([`pool`]): a round's
//! CPU work (anchoring, parsing, git) then never holds up another server's I/O, and the round
//! loop's futures need not be `Send`.

mod job;
pub mod manifest;
pub mod merge;
pub mod pool;
pub mod progress;
pub mod shard;
pub mod state;
pub mod summary;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use sha2::{Digest, Sha256};
use tokio::sync::watch;

use crate::evolve::{Backend, BackendKind, EvolveOptions};
use crate::workspace::Workspace;
use job::Job;
pub use job::JobError;
use manifest::{Manifest, Server};
use progress::Progress;
use shard::Shard;
use state::{BatchPlan, Planned, ServerState};
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

/// Why a server's backend could not be made (a model client's configuration, say).
pub type BackendSetupError = Box<dyn std::error::Error + Send + Sync>;

/// Makes a server's backend in its worker thread (a model client is not shared across the
/// threads' runtimes).
pub type BackendFor = Arc<dyn Fn(&Server) -> Result<Backend, BackendSetupError> + Send + Sync>;

pub struct BatchOptions {
    /// How each server evolves: its rounds and seed are the batch's, each server's own come
    /// from the plan (the manifest's, or derived from the batch seed and its name).
    pub evolve: EvolveOptions,
    pub jobs: usize,
    /// The kind of backend, as recorded in the plan.
    pub backend_kind: BackendKind,
    pub backend: BackendFor,
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
pub fn plan(manifest: &Manifest, opts: &BatchOptions) -> BatchPlan {
    BatchPlan {
        manifest: manifest.path.display().to_string(),
        manifest_sha256: manifest.digest.clone(),
        seed: opts.evolve.seed,
        rounds: opts.evolve.rounds,
        backend: opts.backend_kind,
        shard: opts.shard,
        servers: manifest
            .servers
            .iter()
            .map(|s| Planned {
                name: s.name.clone(),
                seed: s
                    .seed
                    .unwrap_or_else(|| derive_seed(opts.evolve.seed, &s.name)),
                rounds: s.rounds.unwrap_or(opts.evolve.rounds),
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
    opts: &BatchOptions,
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

    let (queue, progress) = queue(out, &owned, opts)?;
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

/// The servers still to run, largest first, and the progress display primed with what earlier
/// runs did.
fn queue(
    out: &Path,
    owned: &[(&Server, &Planned)],
    opts: &BatchOptions,
) -> Result<(Vec<(Server, Planned)>, Progress), BatchError> {
    let mut queue = Vec::new();
    let (mut total, mut done, mut finished) = (0u64, 0u64, 0usize);
    for (server, planned) in owned {
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
    Ok((queue, progress))
}

/// Whether `out` can hold `plan`: a new or empty folder (false), or one an earlier run of the
/// same plan left (true).
fn adoptable(out: &Path, plan: &BatchPlan) -> Result<bool, BatchError> {
    match BatchPlan::load(out)? {
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
pub(crate) fn accounted(out: &Path, planned: &Planned, st: &ServerState) -> u64 {
    let reached = latest_number(&state::workspace_dir(out, &planned.name));
    u64::from(planned.rounds).min(u64::from(reached) + st.failed_rounds.len() as u64)
}

pub(crate) fn latest_number(ws_dir: &Path) -> u32 {
    Workspace::open(ws_dir)
        .ok()
        .and_then(|ws| ws.latest().ok().flatten())
        .map_or(0, |v| v.number())
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
    let Some(plan) = BatchPlan::load(path)? else {
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
    match BatchPlan::load(path)? {
        Some(plan) => Summary::build(path, &plan, &[plan.shard]).map(Some),
        None => Ok(None),
    }
}
