//! What a batch folder keeps beside its workspaces: the plan it was started with
//! (`batch.json`), and per server what its workspace cannot say (`state/NAME.json`: failed
//! rounds, time spent, whether it finished).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::BatchError;
use super::shard::Shard;
use crate::evolve::BackendKind;
use crate::operators::OperatorId;
use crate::workspace::VersionTag;

pub const PLAN_FILE: &str = "batch.json";
pub const SUMMARY_FILE: &str = "summary.json";
pub const SERVERS_DIR: &str = "servers";
pub const STATE_DIR: &str = "state";

/// The settings that make a batch what it is: a second run must use the same ones to resume,
/// and shards must agree on them to be merged.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BatchPlan {
    /// The manifest as given on the command line (for people; the digest is what counts).
    pub manifest: String,
    pub manifest_sha256: String,
    pub seed: u64,
    pub rounds: u32,
    pub backend: BackendKind,
    pub shard: Shard,
    /// Every server of the manifest, in its order; the shard runs those it owns.
    pub servers: Vec<Planned>,
}

/// A server as the plan runs it: its own seed (given, or derived from the batch seed and its
/// name) and its number of rounds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Planned {
    pub name: String,
    pub seed: u64,
    pub rounds: u32,
}

impl BatchPlan {
    pub fn owned(&self) -> impl Iterator<Item = &Planned> {
        self.servers.iter().filter(|p| self.shard.owns(&p.name))
    }

    pub fn load(dir: &Path) -> Result<Option<BatchPlan>, BatchError> {
        read_json(&dir.join(PLAN_FILE))
    }

    pub fn save(&self, dir: &Path) -> Result<(), BatchError> {
        write_json(&dir.join(PLAN_FILE), self)
    }

    /// What differs from `other` in the settings that must agree, in words; None if nothing.
    pub fn difference(&self, other: &BatchPlan) -> Option<String> {
        let mut d = Vec::new();
        if self.manifest_sha256 != other.manifest_sha256 {
            d.push(format!(
                "the manifest ({} vs {}: their contents differ)",
                self.manifest, other.manifest
            ));
        }
        if self.seed != other.seed {
            d.push(format!("the seed ({} vs {})", self.seed, other.seed));
        }
        if self.rounds != other.rounds {
            d.push(format!("the rounds ({} vs {})", self.rounds, other.rounds));
        }
        if self.backend != other.backend {
            d.push(format!(
                "the backend ({} vs {})",
                self.backend, other.backend
            ));
        }
        (!d.is_empty()).then(|| d.join(", "))
    }
}

/// A round that ended without a commit.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UncommittedRound {
    pub version: VersionTag,
    pub operator: Option<OperatorId>,
    pub reason: String,
}

/// One server's progress that its workspace does not hold.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ServerState {
    /// Its rounds have all been run (committed or failed); a later run skips it.
    pub finished: bool,
    /// Wall time spent on it, all runs together.
    pub seconds: f64,
    pub failed_rounds: Vec<UncommittedRound>,
    /// Why its last run stopped short (it will be tried again).
    pub error: Option<String>,
    /// Its last run was stopped by a signal.
    pub interrupted: bool,
    /// Where its time went, all runs together.
    #[serde(default)]
    pub steps: StepTimes,
}

/// Milliseconds per step of a server's evolution; `server_ms` and `init_ms` are mostly waiting
/// on node (the server starting, listing, answering calls; npm installing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct StepTimes {
    /// Installing the package and recording v0 (`init`).
    pub init_ms: f64,
    pub anchor_ms: f64,
    pub mutate_ms: f64,
    pub check_ms: f64,
    pub server_ms: f64,
    pub commit_ms: f64,
    /// Of the above and beside them, the previous version's server time: observing it, or
    /// sampling it again when an answer differs (`evolve::Timings::previous_ms`).
    #[serde(default)]
    pub previous_ms: f64,
}

impl StepTimes {
    pub fn add_round(&mut self, t: &crate::evolve::Timings) {
        self.anchor_ms += t.anchor_ms;
        self.mutate_ms += t.mutate_ms;
        self.check_ms += t.check_ms;
        self.server_ms += t.server_ms;
        self.commit_ms += t.commit_ms;
        self.previous_ms += t.previous_ms;
    }
}

pub fn workspace_dir(dir: &Path, name: &str) -> PathBuf {
    dir.join(SERVERS_DIR).join(name)
}

fn state_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(STATE_DIR).join(format!("{name}.json"))
}

impl ServerState {
    pub fn load(dir: &Path, name: &str) -> Result<ServerState, BatchError> {
        Ok(read_json(&state_path(dir, name))?.unwrap_or_default())
    }

    pub fn save(&self, dir: &Path, name: &str) -> Result<(), BatchError> {
        write_json(&state_path(dir, name), self)
    }
}

pub(crate) fn read_json<T: serde::de::DeserializeOwned>(
    path: &Path,
) -> Result<Option<T>, BatchError> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(BatchError::io(path, source)),
    };
    serde_json::from_str(&text)
        .map(Some)
        .map_err(|e| BatchError::Malformed {
            path: path.to_path_buf(),
            why: e.to_string(),
        })
}

/// Writes through a temporary file and a rename, so that an interrupted write never leaves a
/// half file for the next run to choke on.
pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> Result<(), BatchError> {
    let parent = path.parent().expect("state files live in a folder");
    std::fs::create_dir_all(parent).map_err(|e| BatchError::io(parent, e))?;
    let text = serde_json::to_string_pretty(value).expect("batch records serialize") + "\n";
    let tmp = path.with_extension("json.tmp");
    std::fs::write(&tmp, text).map_err(|e| BatchError::io(&tmp, e))?;
    std::fs::rename(&tmp, path).map_err(|e| BatchError::io(path, e))
}
