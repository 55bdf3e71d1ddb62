//! Versions started as the oracle starts them: the files of a tag written into a scratch
//! folder (`Workspace::snapshot`, installed dependencies linked), its own launch settings
//! (`LaunchConfig::for_package`), a sandboxed session; the original observed in two sessions
//! at once (`validate::observe_calls`), every other version replayed in one.

use std::collections::BTreeSet;

use super::{Call, DriftError, DriftOptions};
use crate::listed::ListedTool;
use crate::server::session::{CallStatus, Outcome, Session};
use crate::server::{LaunchConfig, LaunchError, ServerError};
use crate::validate::{self, Observation, PlannedCall, UnknownShape};
use crate::workspace::Workspace;

/// A version's files in a scratch folder, removed when dropped.
struct Snapshot {
    dir: tempfile::TempDir,
    config: LaunchConfig,
}

impl Snapshot {
    fn of(ws: &Workspace, tag: &str) -> Result<Snapshot, SnapshotError> {
        let dir = tempfile::Builder::new()
            .prefix("mcpevol-drift-")
            .tempdir()
            .map_err(SnapshotError::Scratch)?;
        ws.snapshot(tag, dir.path())?;
        let config =
            LaunchConfig::for_package(dir.path()).map_err(crate::server::ServerError::from)?;
        Ok(Snapshot { dir, config })
    }
}

/// Why a version's files could not be laid out to start it.
#[derive(Debug, thiserror::Error)]
enum SnapshotError {
    #[error("cannot make a scratch folder: {0}")]
    Scratch(std::io::Error),
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error(transparent)]
    Launch(#[from] ServerError),
}

/// The original's answers to the calls, from two sessions at once, and its unknown-tool
/// answer, kept only where no call of a tool it lists is answered the same way.
pub(super) struct Original {
    pub observed: Vec<Observation>,
    pub unknown: Option<UnknownShape>,
}

/// Observes the calls at `tag` (the original) twice at once.
pub(super) async fn observe(
    ws: &Workspace,
    tag: &str,
    calls: &[Call],
    listed: &BTreeSet<String>,
    opts: &DriftOptions,
) -> Result<Original, DriftError> {
    let snapshot = Snapshot::of(ws, tag).map_err(|e| {
        DriftError::Original(ServerError::Launch(LaunchError::BadConfig {
            path: ws.root().to_path_buf(),
            why: e.to_string(),
        }))
    })?;
    let planned: Vec<PlannedCall> = calls
        .iter()
        .map(|c| PlannedCall::new(&c.tool, c.arguments.clone()))
        .collect();
    let (observed, unknown) = validate::observe_calls(
        snapshot.dir.path(),
        &snapshot.config,
        &planned,
        opts.timeout,
        opts.call_timeout,
    )
    .await
    .map_err(DriftError::Original)?;
    // Calls of tools the original does not list (a call file written for another server) are
    // its unknown-tool answers themselves, not evidence against the shape.
    let own = calls
        .iter()
        .zip(&observed)
        .filter(|(c, _)| listed.contains(&c.tool))
        .map(|(c, o)| (c.tool.as_str(), o.as_outcome()));
    let unknown = unknown.filter(|shape| !shape.answers_like_any(own));
    Ok(Original { observed, unknown })
}

/// One version's answers to the calls.
pub(super) struct Replayed {
    /// The tools it lists, live; None when it did not start.
    pub listed: Option<Vec<ListedTool>>,
    /// Each call's answer, in order; None where it was not made.
    pub outcomes: Vec<Option<Outcome>>,
    /// Why it could not be replayed at all.
    pub failure: Option<String>,
}

/// Starts the version at `tag` and makes the calls in order, except those in `skip` (the
/// original timed out on them). A crash ends the session: later calls are answered as not
/// made, a crash, since the agent would have found the server gone.
pub(super) async fn replay(
    ws: &Workspace,
    tag: &str,
    calls: &[Call],
    skip: &[bool],
    opts: &DriftOptions,
) -> Replayed {
    let failed = |why: String| Replayed {
        listed: None,
        outcomes: calls.iter().map(|_| None).collect(),
        failure: Some(why),
    };
    let snapshot = match Snapshot::of(ws, tag) {
        Ok(s) => s,
        Err(why) => return failed(why.to_string()),
    };
    let mut session =
        match Session::start(snapshot.dir.path(), &snapshot.config, &[], opts.timeout).await {
            Ok(s) => s,
            Err(e) => return failed(first_line(&e.to_string())),
        };
    let listed = match session.list_tools().await {
        Ok(live) => live.tools,
        Err(e) => {
            session.close().await;
            return failed(first_line(&e.to_string()));
        }
    };
    let mut outcomes = Vec::new();
    let mut crashed_on: Option<usize> = None;
    for (call, skip) in calls.iter().zip(skip) {
        if *skip {
            outcomes.push(None);
            continue;
        }
        let outcome = match crashed_on {
            Some(k) => Outcome {
                status: CallStatus::Crashed,
                text: format!("not called: the server crashed on call #{k}"),
                parts: Vec::new(),
                other: Vec::new(),
            },
            None => {
                session
                    .call(&call.tool, call.arguments.clone(), opts.call_timeout)
                    .await
            }
        };
        if outcome.status == CallStatus::Crashed && crashed_on.is_none() {
            crashed_on = Some(call.id);
        }
        outcomes.push(Some(outcome));
    }
    session.close().await;
    Replayed {
        listed: Some(listed),
        outcomes,
        failure: None,
    }
}

/// A server error's first line: the cause; the stderr tail below it is for people.
fn first_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}
