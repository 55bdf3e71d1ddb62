//! A version's records as files: written into the work tree to be committed with it (what the
//! server said made safe to keep: credential-looking strings replaced), and read back at a
//! revision.

use std::path::Path;

use serde::Serialize;

use super::{EXCHANGES_PATH, ROUND_PATH, RoundRecord, TOOLS_PATH};
use crate::workspace::{Workspace, WorkspaceError};
use mcpevol_core::redact;
use mcpevol_oracle::server::LiveTools;

#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} at {rev} is malformed: {why}")]
    Malformed {
        path: String,
        rev: String,
        why: String,
    },
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
}

/// Writes the records of a version into the work tree, to be committed with it. The model
/// exchanges of the round go to `exchanges.jsonl`, one per line; a round without any removes
/// the file, so that it never holds an earlier round's.
pub fn write(
    root: &Path,
    round: &RoundRecord,
    tools: &LiveTools,
    exchanges: &[crate::llm::Exchange],
) -> Result<(), RecordError> {
    let path = root.join(EXCHANGES_PATH);
    if exchanges.is_empty() {
        let _ = std::fs::remove_file(&path);
    } else {
        // Timings differ from run to run; the record keeps what a replay needs, and no timings.
        let lines: Vec<String> = exchanges
            .iter()
            .map(|e| {
                serde_json::to_string(&crate::llm::Exchange {
                    elapsed_ms: 0,
                    ..e.clone()
                })
                .expect("exchanges serialize")
            })
            .collect();
        std::fs::create_dir_all(root.join(".mcpevol"))
            .and_then(|_| std::fs::write(&path, lines.join("\n") + "\n"))
            .map_err(|source| RecordError::Write {
                path: EXCHANGES_PATH.into(),
                source,
            })?;
    }
    let dir = root.join(".mcpevol");
    std::fs::create_dir_all(&dir).map_err(|source| RecordError::Write {
        path: ".mcpevol".into(),
        source,
    })?;
    // What the server said goes into both files: credential-looking strings are replaced (a
    // replacement holds no character JSON escapes), and the round says how many.
    let (tools, in_tools) = redact::redact_owned(to_json(tools));
    let (_, in_round) = redact::redact(&to_json(round));
    let mut round = round.clone();
    redact::tally(&mut round.redacted, redact::Place::Records, &in_tools);
    redact::tally(&mut round.redacted, redact::Place::Records, &in_round);
    let (round, _) = redact::redact_owned(to_json(&round));
    for (path, text) in [(ROUND_PATH, round), (TOOLS_PATH, tools)] {
        std::fs::write(root.join(path), text).map_err(|source| RecordError::Write {
            path: path.into(),
            source,
        })?;
    }
    Ok(())
}

fn to_json(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).expect("records serialize") + "\n"
}

fn read<T: serde::de::DeserializeOwned>(
    ws: &Workspace,
    rev: &str,
    path: &str,
) -> Result<Option<T>, RecordError> {
    let Some(text) = ws.read_at(rev, path)? else {
        return Ok(None);
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| RecordError::Malformed {
            path: path.into(),
            rev: rev.into(),
            why: e.to_string(),
        })
}

/// The round record at `rev`: a version tag, a commit, any revision git resolves.
pub fn read_round(
    ws: &Workspace,
    rev: impl std::fmt::Display,
) -> Result<Option<RoundRecord>, RecordError> {
    read(ws, &rev.to_string(), ROUND_PATH)
}

/// The live tool list recorded at `rev`.
pub fn read_tools(
    ws: &Workspace,
    rev: impl std::fmt::Display,
) -> Result<Option<LiveTools>, RecordError> {
    read(ws, &rev.to_string(), TOOLS_PATH)
}

/// The model exchanges recorded with a version, in the order they were made.
pub fn read_exchanges(
    ws: &Workspace,
    rev: impl std::fmt::Display,
) -> Result<Vec<crate::llm::Exchange>, RecordError> {
    let rev = rev.to_string();
    let rev = rev.as_str();
    let Some(text) = ws.read_at(rev, EXCHANGES_PATH)? else {
        return Ok(Vec::new());
    };
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            serde_json::from_str(l).map_err(|e| RecordError::Malformed {
                path: EXCHANGES_PATH.into(),
                rev: rev.into(),
                why: e.to_string(),
            })
        })
        .collect()
}

/// Replaces the per-run folder that `{tmp}` stood for with the placeholder, so that a record
/// does not change from one run to the next.
pub fn scrub_tmp(tools: &mut LiveTools, tmp: Option<&Path>) {
    let Some(tmp) = tmp.map(|t| t.to_string_lossy().into_owned()) else {
        return;
    };
    let text = serde_json::to_string(&tools.tools).expect("tool lists serialize");
    if text.contains(&tmp) {
        tools.tools = serde_json::from_str(
            &text.replace(&tmp, mcpevol_oracle::server::launch::TMP_PLACEHOLDER),
        )
        .expect("still JSON");
    }
}
