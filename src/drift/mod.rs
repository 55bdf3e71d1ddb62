//! The drift audit: a set of tool calls that worked on the original server (`v0`) replayed on
//! every version of a workspace, each version started in the sandbox as the oracle starts it,
//! and each call classified per version (same answer, changed answer, refused as an unknown
//! tool and what replaces it, refused for its arguments, an error, a crash, a hang, or
//! unverifiable), beside what the schema diff alone forecasts for that call.
//!
//! One concern per file: [`calls`] (where the calls come from), [`forecast`] (the static
//! forecast from the schema diff), [`lineage`] (where a tool went, from the version records),
//! `replay` (starting versions and calling them), [`verdict`] (a replayed call classified),
//! `audit` (one server, start to end) and `jobs` (servers `--jobs` at once, with progress).

mod audit;
pub mod calls;
pub mod forecast;
mod jobs;
pub mod lineage;
mod replay;
pub mod verdict;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::server::session::CallStatus;
use crate::workspace::VersionTag;

pub use jobs::run;

/// One call to replay: a tool name as the original knew it, and its arguments.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Call {
    /// 1-based, in the order the calls are made.
    pub id: usize,
    pub tool: String,
    pub arguments: Map<String, Value>,
}

/// What a version did with a call that the original answered.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The same normalised output where the original's was deterministic, else the same status.
    Same,
    /// A different output where the original's output was deterministic.
    Changed,
    /// Refused the way the server refuses a name it never had; `successor` says what replaces it.
    UnknownTool,
    /// An error where the original answered, and the schema says why: a new required parameter,
    /// a removed parameter, a tighter bound, a changed type or a removed enum value.
    RefusedArguments,
    /// An error where the original answered, with nothing in the schema to explain it.
    Error,
    /// The server exited (or did not start at this version).
    Crash,
    Timeout,
    /// The original's own answer was a failure, so the call proves nothing.
    Unverifiable,
}

impl Verdict {
    pub const ALL: [Verdict; 8] = [
        Verdict::Same,
        Verdict::Changed,
        Verdict::UnknownTool,
        Verdict::RefusedArguments,
        Verdict::Error,
        Verdict::Crash,
        Verdict::Timeout,
        Verdict::Unverifiable,
    ];

    /// The name used in JSON, CSS classes and tables (`unknown-tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Same => "same",
            Verdict::Changed => "changed",
            Verdict::UnknownTool => "unknown-tool",
            Verdict::RefusedArguments => "refused-arguments",
            Verdict::Error => "error",
            Verdict::Crash => "crash",
            Verdict::Timeout => "timeout",
            Verdict::Unverifiable => "unverifiable",
        }
    }

    /// Whether the call broke at this version; None when the replay cannot tell.
    pub fn breaks(self) -> Option<bool> {
        match self {
            Verdict::Same => Some(false),
            Verdict::Unverifiable => None,
            _ => Some(true),
        }
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What the schema diff alone says of a call at a version.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Forecast {
    Ok,
    Breaks,
}

/// One call at one version.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct CallResult {
    /// The call's id.
    pub call: usize,
    pub version: VersionTag,
    pub verdict: Verdict,
    /// The tool that now does what the called one did, from the version records (a rename's
    /// new name, a removed tool's successor where its record names one); None while the
    /// called tool is still listed, or when nothing replaces it.
    pub successor: Option<String>,
    pub forecast: Forecast,
    /// Why, on one line (the server's answer quoted, normalised).
    pub reason: String,
    /// The forecast's rules that fire for this call (empty when it forecasts ok), in words...
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forecast_reasons: Vec<String>,
    /// ...and by name (`new-required-param`, `tighter-bound`, ...), in the same order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forecast_rules: Vec<forecast::Rule>,
    /// How the call ended at this version; None when it was not called.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CallStatus>,
}

/// A call where the forecast and the replay disagree, and the likely reason.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Disagreement {
    pub call: usize,
    pub version: VersionTag,
    pub forecast: Forecast,
    pub verdict: Verdict,
    pub why: String,
}

/// A version that could not be replayed (it did not start or list its tools): every call
/// there is a crash, and the other versions go on.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct VersionFailure {
    pub version: VersionTag,
    pub error: String,
}

/// The audit of one server.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct ServerDrift {
    pub name: String,
    /// The versions replayed, oldest first (the original is always the reference, listed
    /// here only when asked for).
    pub versions: Vec<VersionTag>,
    pub calls: Vec<Call>,
    /// Every call at every version, by call, then version.
    pub results: Vec<CallResult>,
    #[serde(default)]
    pub disagreements: Vec<Disagreement>,
    #[serde(default)]
    pub failed_versions: Vec<VersionFailure>,
    /// Why the server could not be audited at all (its original did not answer, no
    /// workspace); then nothing else is filled in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ServerDrift {
    pub fn result(&self, call: usize, version: VersionTag) -> Option<&CallResult> {
        self.results
            .iter()
            .find(|r| r.call == call && r.version == version)
    }

    /// Results by verdict, every verdict present (zero where none).
    pub fn counts(&self) -> BTreeMap<Verdict, usize> {
        let mut counts: BTreeMap<Verdict, usize> = Verdict::ALL.iter().map(|v| (*v, 0)).collect();
        for r in &self.results {
            *counts.entry(r.verdict).or_default() += 1;
        }
        counts
    }

    /// A server that could not be audited.
    pub fn failed(name: &str, error: String) -> ServerDrift {
        ServerDrift {
            name: name.to_string(),
            error: Some(error),
            ..ServerDrift::default()
        }
    }
}

/// What `drift --json` prints.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct DriftReport {
    pub servers: Vec<ServerDrift>,
}

impl DriftReport {
    pub fn server(&self, name: &str) -> Option<&ServerDrift> {
        self.servers.iter().find(|s| s.name == name)
    }

    /// Reads what `drift --json` wrote.
    pub fn load(path: &std::path::Path) -> Result<DriftReport, DriftError> {
        let text = std::fs::read_to_string(path).map_err(|source| DriftError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        serde_json::from_str(&text).map_err(|e| DriftError::NotADriftReport {
            path: path.to_path_buf(),
            why: e.to_string(),
        })
    }
}

/// Where the calls come from.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum CallSource {
    /// The calls the original's record holds (`.mcpevol/round.json` at `v0`): one per tool.
    #[default]
    Recorded,
    /// A JSONL file of `{"name", "arguments"}` objects or a JSON-RPC log, for every server; or
    /// a folder holding one such file per server (`NAME.jsonl`, `.json` or `.log`), servers
    /// without one using their recorded calls.
    File(PathBuf),
}

pub struct DriftOptions {
    pub calls: CallSource,
    /// Version or stage tags to replay (`v0,v3,v5`, `early,late`); None for every version.
    pub versions: Option<Vec<String>>,
    /// For a server to start and list its tools.
    pub timeout: Duration,
    /// For each call.
    pub call_timeout: Duration,
    /// Servers audited at once (batch folders).
    pub jobs: usize,
    /// Progress bars (true) or plain lines on stderr.
    pub bars: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum DriftError {
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error(transparent)]
    Record(#[from] crate::version_record::RecordError),
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
    #[error(transparent)]
    Calls(#[from] calls::CallsError),
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} has no version v0 with its record, so there is no original to compare with", .0.display())]
    NoOriginal(PathBuf),
    #[error("`{rev}` is not a version or stage tag of {}", dir.display())]
    NoVersion { rev: String, dir: PathBuf },
    #[error("{} has no tool list (.mcpevol/tools.json) at {version}", dir.display())]
    NoTools { version: String, dir: PathBuf },
    /// The original did not start or answer: nothing can be compared with it.
    #[error("the original (v0) could not be replayed: {0}")]
    Original(#[source] crate::server::ServerError),
    #[error("{} is not what `drift --json` writes: {why}", path.display())]
    NotADriftReport { path: PathBuf, why: String },
    #[error("cannot start a worker thread: {0}")]
    Thread(std::io::Error),
    #[error("interrupted; nothing was written")]
    Interrupted,
}
