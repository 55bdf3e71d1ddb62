//! What proposes a round's changes, as the command line names it ([`BackendKind`]) and ready
//! to use ([`Backend`]): the rules, a model, a replay of a model's exchanges, or a given
//! proposal, each turned into a [`Proposer`] for one round.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{
    EvolveError, GivenProposer, ModelProposer, ModelReleaseProposer, Proposer, ReleaseProposer,
    ReplaySource, RuleProposer, model_proposer,
};
use crate::version_record::Author;
use crate::workspace::{VersionTag, Workspace};

/// Which kind of backend proposes the changes, as flags and batch plans name it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum BackendKind {
    /// The deterministic rules: no network, no key.
    Rules,
    /// A model behind any OpenAI-compatible endpoint (`--model`, `--base-url`).
    Openai,
    /// Recorded model exchanges, replayed (`--from`).
    Replay,
}

impl BackendKind {
    pub fn as_str(self) -> &'static str {
        match self {
            BackendKind::Rules => "rules",
            BackendKind::Openai => "openai",
            BackendKind::Replay => "replay",
        }
    }
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What proposes the changes, ready to use.
#[derive(Clone)]
pub enum Backend {
    /// The deterministic rules: no network.
    Rules,
    /// A model behind an OpenAI-compatible endpoint; every exchange is recorded.
    Llm {
        chat: Arc<dyn crate::llm::Chat>,
        model: String,
        /// Who serves the model (`LlmConfig::provider`): what records name as the backend.
        provider: String,
    },
    /// Recorded exchanges, replayed round by round: no network, and the same commits as the
    /// evolution that recorded them.
    Replay { from: ReplaySource },
    /// One proposal made elsewhere (a script, a test, a person), applied and judged exactly
    /// like a backend's: a way to check an edit by hand against the oracle.
    Given {
        proposal: Box<crate::mutate::Proposal>,
    },
    /// A proposer of your own, made afresh for each round.
    Custom(Arc<MakeProposer>),
}

/// Makes the proposer of one round.
pub type MakeProposer = dyn Fn() -> Box<dyn Proposer> + Send + Sync;

impl Backend {
    /// A backend that only offers what was recorded or given cannot do better on a new try.
    pub(super) fn retries_help(&self) -> bool {
        matches!(
            self,
            Backend::Rules | Backend::Llm { .. } | Backend::Custom(_)
        )
    }

    /// The proposer of version `version` when versions are releases drawn from `mix`: the
    /// rules draw them, a model plans them (a replay plays its plans back).
    pub(super) fn release_proposer(
        &self,
        ws: &Workspace,
        version: VersionTag,
        operator_dirs: &[PathBuf],
        mix: &Arc<crate::release::Mix>,
    ) -> Result<Box<dyn Proposer>, EvolveError> {
        let prompts = || model_proposer::prompts_for(operator_dirs);
        Ok(match self {
            Backend::Rules => Box::new(ReleaseProposer::new(mix.clone())),
            Backend::Llm {
                chat,
                model,
                provider,
            } => Box::new(ModelReleaseProposer::new(
                chat.clone(),
                model.clone(),
                Author::Named(provider.clone()),
                prompts()?,
                mix.clone(),
            )),
            Backend::Replay { from } => {
                let (original, exchanges) = from.round(ws, version)?;
                Box::new(ModelReleaseProposer::new(
                    Arc::new(crate::llm::Replay::new(exchanges)),
                    original.model.clone().unwrap_or_default(),
                    original.backend,
                    prompts()?,
                    mix.clone(),
                ))
            }
            Backend::Given { .. } | Backend::Custom(_) => {
                self.proposer(ws, version, operator_dirs)?
            }
        })
    }

    /// The proposer of version `version` of the workspace `ws`.
    pub(super) fn proposer(
        &self,
        ws: &Workspace,
        version: VersionTag,
        operator_dirs: &[PathBuf],
    ) -> Result<Box<dyn Proposer>, EvolveError> {
        Ok(match self {
            Backend::Rules => Box::new(RuleProposer::default()),
            Backend::Given { proposal } => Box::new(GivenProposer::new((**proposal).clone())),
            Backend::Custom(make) => make(),
            Backend::Llm {
                chat,
                model,
                provider,
            } => Box::new(ModelProposer::new(
                chat.clone(),
                model.clone(),
                Author::Named(provider.clone()),
                model_proposer::prompts_for(operator_dirs)?,
            )),
            Backend::Replay { from } => {
                let (original, exchanges) = from.round(ws, version)?;
                // The replayed round records what the original did, so that the commits match.
                Box::new(ModelProposer::new(
                    Arc::new(crate::llm::Replay::new(exchanges)),
                    original.model.clone().unwrap_or_default(),
                    original.backend,
                    model_proposer::prompts_for(operator_dirs)?,
                ))
            }
        })
    }
}
