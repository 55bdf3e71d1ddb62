//! A version's observed answers (its [`Baseline`]), kept as a git note beside its commit, so
//! that the next run judges its first round against them instead of starting the version
//! again (`init`'s answers serve `evolve`, and a run that stops serves the next). A note, not a
//! file of the commit: commit ids do not change with it.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::workspace::{Workspace, WorkspaceError};
use mcpevol_oracle::validate::Baseline;

/// The notes ref the answers are kept under.
pub const OBSERVED_REF: &str = "refs/notes/mcpevol-observed";

/// Raised whenever what an observation holds, or how it is made, changes: answers kept by
/// another format are observed again.
const FORMAT: u32 = 1;

#[derive(Serialize, Deserialize)]
struct Kept {
    format: u32,
    /// The server start limit they were observed under: another limit may answer otherwise.
    timeout_ms: u64,
    baseline: Baseline,
}

/// Keeps `baseline` as the answers of the version at `commit`, observed under `timeout`.
pub fn keep(
    ws: &Workspace,
    commit: &str,
    timeout: Duration,
    baseline: &Baseline,
) -> Result<(), WorkspaceError> {
    let kept = Kept {
        format: FORMAT,
        timeout_ms: timeout.as_millis() as u64,
        baseline: baseline.clone(),
    };
    let text = serde_json::to_string(&kept).expect("observations serialize");
    ws.set_note_in(OBSERVED_REF, commit, &text)
}

/// The answers kept for the version at `commit` under `timeout`; None where there are none,
/// or they were kept by another format or limit, or cannot be read (they are observed again).
pub fn read(ws: &Workspace, commit: &str, timeout: Duration) -> Option<Baseline> {
    let text = ws.note_in(OBSERVED_REF, commit).ok()??;
    let kept: Kept = serde_json::from_str(&text).ok()?;
    (kept.format == FORMAT && kept.timeout_ms == timeout.as_millis() as u64)
        .then_some(kept.baseline)
}
