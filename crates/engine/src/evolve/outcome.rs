//! How a round ended, as `evolve --json`, batch summaries and the command line's exit status
//! report it.

use serde::{Deserialize, Serialize};

use super::Timings;
use crate::version_record::{self, Rejection};
use crate::workspace::VersionTag;
use mcpevol_core::operators::OperatorId;
use mcpevol_oracle::validate;

/// How a round ended.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum RoundStatus {
    Committed,
    Failed,
}

/// One round as the command-line contract reports it.
#[derive(Debug, Clone, Serialize)]
pub struct RoundOutcome {
    pub version: VersionTag,
    pub commit: Option<String>,
    pub operator: Option<OperatorId>,
    pub tools: Vec<String>,
    pub status: RoundStatus,
    pub attempts: u32,
    /// The committed version's checks: passed, failed (always 0 when committed), unverifiable.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tests: Option<validate::Tally>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Where the round's time went, all attempts together (not recorded in the commit: it
    /// differs from run to run).
    pub timings: Timings,
    /// The attempts of a failed round, recorded with the next committed version.
    #[serde(skip)]
    pub rejected: Vec<Rejection>,
    /// The round failed because the model endpoint did (not because of what it answered).
    #[serde(skip)]
    pub endpoint_failed: bool,
}

impl RoundOutcome {
    /// A failed round as the next committed version records it.
    pub(super) fn as_failed_round(&self) -> version_record::FailedRound {
        version_record::FailedRound {
            version: self.version,
            operator: self.operator.clone(),
            reason: self.reason.clone().unwrap_or_default(),
            attempts: self.rejected.clone(),
        }
    }

    /// A round that ended without a commit, after `attempts` attempts and the rejections in
    /// `rejected`.
    pub(crate) fn failed(
        version: VersionTag,
        reason: String,
        rejected: &[Rejection],
        attempts: u32,
    ) -> RoundOutcome {
        let last_tried = rejected.iter().rev().find(|r| r.operator.is_some());
        RoundOutcome {
            version,
            commit: None,
            operator: last_tried.and_then(|r| r.operator.clone()),
            tools: last_tried.map(|r| r.targets.clone()).unwrap_or_default(),
            status: RoundStatus::Failed,
            attempts,
            tests: None,
            reason: Some(reason),
            timings: Timings::default(),
            rejected: rejected.to_vec(),
            endpoint_failed: false,
        }
    }
}
