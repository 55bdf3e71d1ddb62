//! The batch summary: per server the version reached, each round's operator, failed rounds
//! with their cause, time and tokens; built from the workspaces and state files on disk, so
//! that a resumed or merged batch summarizes exactly what its folder holds.

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::BatchError;
use super::shard::Shard;
use super::state::{self, BatchPlan, Planned, ServerState, StepTimes};
use crate::evolve::{BackendKind, RoundStatus};
use crate::history;
use crate::llm::Usage;
use crate::operators::OperatorId;
use crate::validate::Tally;
use crate::workspace::VersionTag;
use crate::workspace::Workspace;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServerStatus {
    /// Every round committed.
    Complete,
    /// Finished, with failed rounds.
    Incomplete,
    /// Stopped by an error (the server did not install or start); a new run tries again.
    Error,
    /// Stopped by a signal; a new run resumes it.
    Interrupted,
    /// Not started yet.
    Pending,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RoundSummary {
    pub version: VersionTag,
    pub status: RoundStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    pub operator: Option<OperatorId>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<Tally>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ServerSummary {
    pub name: String,
    pub seed: u64,
    pub status: ServerStatus,
    /// The latest committed version.
    pub version: Option<VersionTag>,
    pub rounds: Vec<RoundSummary>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub seconds: f64,
    /// Where the time went (varies from run to run, as `seconds` does).
    pub steps: StepTimes,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Totals {
    pub servers: usize,
    pub complete: usize,
    pub incomplete: usize,
    pub error: usize,
    pub interrupted: usize,
    pub pending: usize,
    pub rounds_committed: usize,
    pub rounds_failed: usize,
    pub total_tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    pub manifest: String,
    pub manifest_sha256: String,
    pub seed: u64,
    pub rounds: u32,
    pub backend: BackendKind,
    /// The shards this summary covers: one for a run, all of them once merged.
    pub shards: Vec<Shard>,
    pub servers: Vec<ServerSummary>,
    pub totals: Totals,
}

impl Summary {
    /// Summarizes the servers of `plan` that `shards` own, from what `dir` holds.
    pub fn build(dir: &Path, plan: &BatchPlan, shards: &[Shard]) -> Result<Summary, BatchError> {
        let mut servers = Vec::new();
        for planned in &plan.servers {
            if shards.iter().any(|s| s.owns(&planned.name)) {
                servers.push(server(dir, planned)?);
            }
        }
        let mut totals = Totals {
            servers: servers.len(),
            ..Totals::default()
        };
        for s in &servers {
            match s.status {
                ServerStatus::Complete => totals.complete += 1,
                ServerStatus::Incomplete => totals.incomplete += 1,
                ServerStatus::Error => totals.error += 1,
                ServerStatus::Interrupted => totals.interrupted += 1,
                ServerStatus::Pending => totals.pending += 1,
            }
            for r in &s.rounds {
                if r.status == RoundStatus::Committed {
                    totals.rounds_committed += 1;
                } else {
                    totals.rounds_failed += 1;
                }
            }
            totals.total_tokens += s.usage.map_or(0, |u| u.total_tokens);
        }
        Ok(Summary {
            manifest: plan.manifest.clone(),
            manifest_sha256: plan.manifest_sha256.clone(),
            seed: plan.seed,
            rounds: plan.rounds,
            backend: plan.backend,
            shards: shards.to_vec(),
            servers,
            totals,
        })
    }

    pub fn save(&self, dir: &Path) -> Result<(), BatchError> {
        state::write_json(&dir.join(state::SUMMARY_FILE), self)
    }

    /// The table printed at the end of a batch.
    pub fn table(&self) -> String {
        let mut out = format!(
            "{:<24} {:<11} {:<7} {:<32} {:>8} {:>9}\n",
            "server", "status", "version", "rounds (operator; ! failed)", "time", "tokens"
        );
        for s in &self.servers {
            let ops: Vec<String> = s
                .rounds
                .iter()
                .map(|r| {
                    let op = r
                        .operator
                        .as_ref()
                        .map_or("--".to_string(), OperatorId::to_string);
                    if r.status == RoundStatus::Committed {
                        op.to_string()
                    } else {
                        format!("!{op}")
                    }
                })
                .collect();
            let status = serde_json::to_value(s.status).expect("a status serializes");
            out += &format!(
                "{:<24} {:<11} {:<7} {:<32} {:>7.1}s {:>9}\n",
                s.name,
                status.as_str().unwrap_or(""),
                s.version.map_or("-".to_string(), |v| v.to_string()),
                ops.join(" "),
                s.seconds,
                s.usage
                    .map_or("-".to_string(), |u| u.total_tokens.to_string())
            );
            for r in s
                .rounds
                .iter()
                .filter(|r| r.status != RoundStatus::Committed)
            {
                out += &format!(
                    "{:<24} {} failed: {}\n",
                    "",
                    r.version,
                    r.reason.as_deref().unwrap_or("")
                );
            }
            if let Some(e) = &s.error {
                out += &format!("{:<24} error: {}\n", "", first_line(e));
            }
        }
        let t = &self.totals;
        out += &format!(
            "{} servers: {} complete, {} with failed rounds, {} errors, {} interrupted, {} pending; {} rounds committed, {} failed",
            t.servers,
            t.complete,
            t.incomplete,
            t.error,
            t.interrupted,
            t.pending,
            t.rounds_committed,
            t.rounds_failed
        );
        if t.total_tokens > 0 {
            out += &format!("; {} tokens", t.total_tokens);
        }
        out + "\n"
    }
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or("")
}

fn server(dir: &Path, planned: &Planned) -> Result<ServerSummary, BatchError> {
    let (name, target) = (planned.name.as_str(), planned.rounds);
    let st = ServerState::load(dir, name)?;
    let ws_dir = state::workspace_dir(dir, name);
    let records = match Workspace::open(&ws_dir) {
        Ok(ws) => history::versions(&ws).map_err(|e| BatchError::Server {
            name: name.to_string(),
            why: e.to_string(),
        })?,
        Err(_) => Vec::new(),
    };
    let mut rounds: Vec<(u32, RoundSummary)> = records
        .iter()
        .filter(|(v, _)| v.tag != VersionTag::ORIGINAL)
        .map(|(v, r)| {
            let round = RoundSummary {
                version: v.tag,
                status: RoundStatus::Committed,
                commit: Some(v.commit.clone()),
                operator: r.operator.clone(),
                reason: None,
                tests: Some(r.tally()),
            };
            (v.number(), round)
        })
        .collect();
    for f in &st.failed_rounds {
        rounds.push((
            f.version.number(),
            RoundSummary {
                version: f.version,
                status: RoundStatus::Failed,
                commit: None,
                operator: f.operator.clone(),
                reason: Some(f.reason.clone()),
                tests: None,
            },
        ));
    }
    rounds.sort_by_key(|(n, r)| (*n, r.status == RoundStatus::Committed));
    let version = records.last().map(|(v, _)| v.tag);
    let reached = records.last().map_or(0, |(v, _)| v.number());
    let status = if st.error.is_some() {
        ServerStatus::Error
    } else if st.interrupted {
        ServerStatus::Interrupted
    } else if !st.finished {
        ServerStatus::Pending
    } else if reached >= target && st.failed_rounds.is_empty() {
        ServerStatus::Complete
    } else {
        ServerStatus::Incomplete
    };
    Ok(ServerSummary {
        name: name.to_string(),
        seed: planned.seed,
        status,
        version,
        rounds: rounds.into_iter().map(|(_, r)| r).collect(),
        error: st.error,
        seconds: st.seconds,
        steps: st.steps,
        usage: history::total_usage(records.iter().map(|(_, r)| r.usage)),
        model: records.iter().rev().find_map(|(_, r)| r.model.clone()),
    })
}
