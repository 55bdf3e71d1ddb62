//! What `log` and `diff` report: the versions of a workspace from their records, and the
//! schema-level difference between any two versions.

use serde::Serialize;

pub mod drift;
mod escape;
pub mod highlight;
pub mod html;
pub mod markdown;
pub mod model;
mod svg;

use crate::schema::{self, SchemaChange};
use crate::version_record::{self, RecordError};
use crate::workspace::Workspace;

#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub version: String,
    pub commit: String,
    pub operator: Option<String>,
    pub operator_name: Option<String>,
    pub tools: Vec<String>,
    pub summary: String,
    pub tests: crate::validate::Tally,
    pub schema_changes: Vec<SchemaChange>,
    pub patterns: Vec<String>,
    /// Tokens of the round's model calls (LLM backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::llm::Usage>,
}

/// Tokens of all the versions' model calls together.
pub fn total_usage(entries: &[LogEntry]) -> crate::llm::Usage {
    entries
        .iter()
        .filter_map(|e| e.usage)
        .fold(crate::llm::Usage::default(), |mut t, u| {
            t.prompt_tokens += u.prompt_tokens;
            t.completion_tokens += u.completion_tokens;
            t.total_tokens += u.total_tokens;
            t
        })
}

/// One entry per version, oldest first.
pub fn log(ws: &Workspace) -> Result<Vec<LogEntry>, RecordError> {
    let mut out = Vec::new();
    for v in ws.versions()? {
        let Some(r) = version_record::read_round(ws, &v.tag)? else {
            continue;
        };
        out.push(LogEntry {
            version: v.tag,
            commit: v.commit,
            tests: r.tally(),
            tools: r.targets.iter().chain(&r.added).cloned().collect(),
            operator: r.operator,
            operator_name: r.operator_name,
            summary: r.summary,
            schema_changes: r.schema_changes,
            patterns: r.patterns,
            usage: r.usage,
        });
    }
    Ok(out)
}

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("{rev} has no tool list (.mcpevol/tools.json); it is not a version made by mcpevol")]
    NoTools { rev: String },
}

/// The schema changes from `a` to `b`.
pub fn diff(ws: &Workspace, a: &str, b: &str) -> Result<Vec<SchemaChange>, DiffError> {
    let tools = |rev: &str| -> Result<Vec<serde_json::Value>, DiffError> {
        let t = version_record::read_tools(ws, rev)?.ok_or_else(|| DiffError::NoTools {
            rev: rev.to_string(),
        })?;
        Ok(t.tools)
    };
    Ok(schema::diff(&tools(a)?, &tools(b)?))
}
