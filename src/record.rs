//! The record of each version, committed beside the code in `.mcpevol/`: what the round did
//! (`round.json`), what the server lists (`tools.json`), and the commit message that says it.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::edit::Hunk;
use crate::schema::SchemaChange;
use crate::server::LiveTools;
use crate::validate::TestResult;
use crate::workspace::{Workspace, WorkspaceError};

pub const ROUND_PATH: &str = ".mcpevol/round.json";
pub const TOOLS_PATH: &str = ".mcpevol/tools.json";

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct RoundRecord {
    pub version: String,
    pub round: u32,
    /// None for `v0`, the original server.
    pub operator: Option<String>,
    pub operator_name: Option<String>,
    pub backend: String,
    pub seed: Option<u64>,
    /// The existing tools the round changed (removed or renamed ones by their old names).
    pub targets: Vec<String>,
    pub added: Vec<String>,
    pub summary: String,
    pub hunks: Vec<Hunk>,
    pub schema_changes: Vec<SchemaChange>,
    pub patterns: Vec<String>,
    pub tests: Vec<TestResult>,
    /// Attempts this round took, the committed one included.
    pub attempts: u32,
    /// Attempts that were rolled back, and why.
    pub rejected: Vec<Rejection>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Rejection {
    pub operator: String,
    pub targets: Vec<String>,
    pub reason: String,
}

impl RoundRecord {
    pub fn tests_passed(&self) -> usize {
        self.tests.iter().filter(|t| t.passed).count()
    }

    pub fn tests_failed(&self) -> usize {
        self.tests.len() - self.tests_passed()
    }

    /// The commit message: a subject, what changed in words, and trailers a script can read.
    pub fn commit_message(&self) -> String {
        let subject = match &self.operator_name {
            Some(name) => format!("{}: {name} on {}", self.version, self.targets.join(", ")),
            None => format!("{}: {}", self.version, self.summary),
        };
        let mut body = vec![self.summary.clone()];
        if !self.schema_changes.is_empty() {
            let changes: Vec<String> = self
                .schema_changes
                .iter()
                .map(|c| {
                    format!(
                        "- `{}`: {}{}",
                        c.tool,
                        c.describe(),
                        if c.breaking { " (breaking)" } else { "" }
                    )
                })
                .collect();
            body.push(format!("Schema changes:\n{}", changes.join("\n")));
        }
        body.push(format!(
            "Tests: {} passed, {} failed.",
            self.tests_passed(),
            self.tests_failed()
        ));
        let mut trailers = vec![
            ("Mcpevol-Version", self.version.clone()),
            ("Mcpevol-Round", self.round.to_string()),
        ];
        if let (Some(id), Some(name)) = (&self.operator, &self.operator_name) {
            trailers.push(("Mcpevol-Operator", id.clone()));
            trailers.push(("Mcpevol-Operator-Name", name.clone()));
            trailers.push(("Mcpevol-Targets", self.targets.join(", ")));
        }
        if !self.added.is_empty() {
            trailers.push(("Mcpevol-Added", self.added.join(", ")));
        }
        if !self.patterns.is_empty() {
            trailers.push(("Mcpevol-Patterns", self.patterns.join(", ")));
        }
        trailers.push(("Mcpevol-Backend", self.backend.clone()));
        if let Some(seed) = self.seed {
            trailers.push(("Mcpevol-Seed", seed.to_string()));
        }
        let trailers: Vec<String> = trailers
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        format!(
            "{subject}\n\n{}\n\n{}\n",
            body.join("\n\n"),
            trailers.join("\n")
        )
    }
}

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

/// Writes the records of a version into the work tree, to be committed with it.
pub fn write(root: &Path, round: &RoundRecord, tools: &LiveTools) -> Result<(), RecordError> {
    let dir = root.join(".mcpevol");
    std::fs::create_dir_all(&dir).map_err(|source| RecordError::Write {
        path: ".mcpevol".into(),
        source,
    })?;
    for (path, text) in [(ROUND_PATH, to_json(round)), (TOOLS_PATH, to_json(tools))] {
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

pub fn read_round(ws: &Workspace, rev: &str) -> Result<Option<RoundRecord>, RecordError> {
    read(ws, rev, ROUND_PATH)
}

pub fn read_tools(ws: &Workspace, rev: &str) -> Result<Option<LiveTools>, RecordError> {
    read(ws, rev, TOOLS_PATH)
}

/// Replaces the per-run folder that `{tmp}` stood for with the placeholder, so that a record
/// does not change from one run to the next.
pub fn scrub_tmp(tools: &mut LiveTools, tmp: Option<&Path>) {
    let Some(tmp) = tmp.map(|t| t.to_string_lossy().into_owned()) else {
        return;
    };
    let text = serde_json::to_string(&tools.tools).expect("tool lists serialize");
    if text.contains(&tmp) {
        tools.tools =
            serde_json::from_str(&text.replace(&tmp, crate::server::launch::TMP_PLACEHOLDER))
                .expect("still JSON");
    }
}
