//! `drift` over a workspace or a batch folder: every server planned first (a bad call file or
//! version list fails before any server starts), then audited `--jobs` at once, each on its
//! own thread and single-threaded runtime as `batch` runs them, with `batch`'s progress
//! display counting versions (`batch::pool`, `batch::progress`). In a batch, a server that cannot be audited is reported and the
//! others go on; a single workspace's failure is the command's error.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use tokio::sync::watch;

use super::audit::{self, Plan, Step};
use super::{Call, CallSource, DriftError, DriftOptions, DriftReport, ServerDrift, calls};
use crate::batch::{self, pool, progress::Progress};

/// Extensions a per-server call file may have in a folder given as `--calls`.
const CALL_FILE_EXTENSIONS: [&str; 3] = ["jsonl", "json", "log"];

/// Audits the workspace or batch folder at `path`. Stops early, with
/// [`DriftError::Interrupted`], once `cancel` turns true.
// Long: a single workspace and a batch folder share the job pool, the progress display and the cancel checks set up here.
pub fn run(
    path: &Path,
    opts: &DriftOptions,
    cancel: watch::Receiver<bool>,
) -> Result<DriftReport, DriftError> {
    let found = batch::workspaces(path)?;
    let single = found.missing.is_empty() && found.found.len() == 1 && found.found[0].1 == path;
    let mut slots: Vec<Result<ServerDrift, DriftError>> = Vec::new();
    let mut plans: Vec<(usize, Plan)> = Vec::new();
    // A call file that cannot be read stops everything, before any server starts.
    let shared = match &opts.calls {
        CallSource::File(file) if !file.is_dir() => Some(calls::read(file)?),
        _ => None,
    };
    for (name, dir) in &found.found {
        let given = match &shared {
            Some(calls) => Some(calls.clone()),
            None => own_calls(&opts.calls, name)?,
        };
        match audit::plan(name, dir, opts.versions.as_deref(), given) {
            Ok(plan) => {
                plans.push((slots.len(), plan));
                slots.push(Ok(ServerDrift::default()));
            }
            Err(e) if single => return Err(e),
            Err(e) => slots.push(Ok(ServerDrift::failed(name, e.to_string()))),
        }
    }
    for name in &found.missing {
        let why = "it has no workspace (it did not install in the batch)".to_string();
        slots.push(Ok(ServerDrift::failed(name, why)));
    }
    let total: u64 = plans.iter().map(|(_, p)| p.shown.len() as u64).sum();
    let progress = Progress::counting("versions", opts.bars, total, 0, plans.len(), 0);
    let slots = Mutex::new(slots);
    pool::each(
        "drift",
        opts.jobs,
        plans,
        &cancel,
        DriftError::Thread,
        |rt, (slot, plan)| {
            let mut cancel = cancel.clone();
            let name = plan.name.clone();
            let step = |s: Step| match s {
                Step::Starting(what) => progress.phase(&name, &what),
                Step::Done(what) => progress.round(&name, &what),
            };
            let outcome = rt.block_on(async {
                tokio::select! {
                    r = audit::audit(&plan, opts, &step) => Some(r),
                    _ = cancel.wait_for(|stop| *stop) => None,
                }
            });
            let Some(outcome) = outcome else {
                return Ok(());
            };
            let text = match &outcome {
                Ok(d) => format!(
                    "done: {} calls × {} versions, {} disagreements with the forecast",
                    d.calls.len(),
                    d.versions.len(),
                    d.disagreements.len()
                ),
                Err(e) => format!("error: {}", e.to_string().lines().next().unwrap_or("")),
            };
            let done = outcome.as_ref().map_or(0, |d| d.versions.len());
            progress.finish(&name, &text, (plan.shown.len() - done) as u64);
            slots.lock().expect("not poisoned")[slot] = match outcome {
                Err(e) if !single => Ok(ServerDrift::failed(&name, e.to_string())),
                other => other,
            };
            Ok(())
        },
    )?;
    progress.close();
    if *cancel.borrow() {
        return Err(DriftError::Interrupted);
    }
    let servers = slots
        .into_inner()
        .expect("not poisoned")
        .into_iter()
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DriftReport { servers })
}

/// The calls of server `name` in a folder given as `--calls`, or None for its recorded ones.
fn own_calls(source: &CallSource, name: &str) -> Result<Option<Vec<Call>>, DriftError> {
    let CallSource::File(path) = source else {
        return Ok(None);
    };
    let own: Option<PathBuf> = CALL_FILE_EXTENSIONS
        .iter()
        .map(|ext| path.join(format!("{name}.{ext}")))
        .find(|p| p.is_file());
    match own {
        Some(file) => Ok(Some(calls::read(&file)?)),
        None => Ok(None),
    }
}
