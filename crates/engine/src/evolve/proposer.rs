//! What proposes a round's changes, behind one interface: the rules, a model (or a replay of a
//! model's recorded answers), or a proposal given from outside. The attempt loop (`attempt.rs`)
//! asks a [`Proposer`] for changes, tells it why they were rejected and asks it for test cases
//! of its own; everything after the proposal is the same for every backend.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::clock::Clock;
use super::{AttemptError, EvolveError};
use crate::llm::{Exchange, Usage};
use crate::mutate::Proposal;
use crate::mutate::reply::GeneratedTest;
use crate::version_record::{Author, Rejection};
use crate::workspace::{VersionTag, Workspace};
use mcpevol_anchor::FactsCache;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::operators::{Operator, OperatorId};
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::server::LiveTools;

/// What a proposer sees of the round it proposes for.
pub struct Ask<'a> {
    pub root: &'a Path,
    pub ws: &'a Workspace,
    /// The version this round makes.
    pub version: VersionTag,
    /// Earlier failed tries of this version: each new try should make other choices.
    pub try_number: u32,
    /// The seed of the evolution.
    pub seed: u64,
    /// Attempts a round may spend (proposals tried against the server).
    pub max_attempts: u32,
    /// The previous version's live tool list: what a change is made to.
    pub previous: &'a LiveTools,
    /// The previous version's tools whose call answered without error (`Baseline::answering`).
    pub answering: &'a [String],
    /// Those of them whose answer has more than one line (`Baseline::multiline`).
    pub multiline: &'a [String],
    /// Those of them whose answers are JSON objects (`Baseline::json_objects`).
    pub json: &'a [String],
    /// Every operator it may use, built-in and the user's.
    pub operators: &'a [Operator],
    /// The operator this round must use (`--operator`), if one is forced.
    pub forced: Option<&'a Operator>,
    /// The folders of the user's operator files (their shared prompts override the built-in).
    pub operator_dirs: &'a [std::path::PathBuf],
    /// Facts of the workspace's files, kept between anchorings by content.
    pub cache: &'a Arc<Mutex<FactsCache>>,
    pub clock: &'a Clock,
}

/// What a proposer answers.
pub enum Proposed {
    /// Changes to try together as one version: one for the paper's one-operator rounds.
    Changes(Vec<Proposal>),
    /// A proposal that could not even be tried (a model's reply with unreadable blocks): it
    /// counts as an attempt and is told back like a rejected one.
    Unusable {
        operator: Option<OperatorId>,
        targets: Vec<String>,
        error: AttemptError,
    },
    /// Nothing more can come this round.
    GiveUp(GiveUp),
}

/// Why a proposer stopped proposing.
#[derive(Debug, Clone)]
pub struct GiveUp {
    /// The round's failure in words; None to let the last rejection say it.
    pub reason: Option<String>,
    /// The model endpoint failed (not the model's answers): the evolution stops with its own
    /// exit code.
    pub endpoint_failed: bool,
}

impl GiveUp {
    /// The last rejection says why.
    pub fn quietly() -> GiveUp {
        GiveUp {
            reason: None,
            endpoint_failed: false,
        }
    }

    pub fn because(reason: impl Into<String>) -> GiveUp {
        GiveUp {
            reason: Some(reason.into()),
            endpoint_failed: false,
        }
    }
}

/// What the record keeps of how a round's changes were made, beside the changes themselves.
#[derive(Debug, Default)]
pub struct Provenance {
    /// The model that answered.
    pub model: Option<String>,
    /// Tokens the round's model calls used, all attempts together.
    pub usage: Option<Usage>,
    /// Every exchange with the model, in order (what a replay needs).
    pub exchanges: Vec<Exchange>,
    /// Operators that fit no tool of the server this round, and why.
    pub inapplicable: BTreeMap<OperatorId, String>,
    /// What a release was drawn for (`--shape release`).
    pub release: Option<crate::release::ReleaseRecord>,
    /// Credential-looking strings kept out of the round's prompts.
    pub redacted: Vec<mcpevol_core::redact::Redacted>,
}

/// A source of changes: the rules, a model, a replay, a given proposal, or your own.
///
/// The attempt loop calls [`Proposer::propose`] until a proposal passes every check or the
/// round's attempts are spent, restoring the workspace after each rejected one and telling the
/// proposer why with [`Proposer::rejected`].
#[async_trait(?Send)]
pub trait Proposer {
    /// Who the records name as the author of the changes.
    fn author(&self) -> Author;

    /// The next changes to try. Steps of its own that failed before anything could be tried
    /// (an operator that fits no tool, a model's unusable choice) go into `rejected`, in order.
    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError>;

    /// The changes last proposed were rejected for `error` (a model gets it as its next message).
    fn rejected(&mut self, _error: &AttemptError) {}

    /// Test cases of its own for changes that passed their contract (a model writes them); the
    /// live tools are the new version's.
    async fn tests(
        &mut self,
        _ask: &Ask<'_>,
        _changes: &[SchemaChange],
        _tools: &[ListedTool],
    ) -> Result<Vec<GeneratedTest>, AttemptError> {
        Ok(Vec::new())
    }

    /// Effects the proposer claims for the changes it last proposed, stated with its tests (a
    /// model states them in its test reply): checked by the oracle as a proposal's own are.
    fn claims(&mut self) -> Vec<mcpevol_oracle::validate::Effect> {
        Vec::new()
    }

    /// What the record keeps of how the changes were made; taken once, when the round commits.
    fn provenance(&mut self) -> Provenance {
        Provenance::default()
    }
}
