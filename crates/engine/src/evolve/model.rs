//! What a model proposer (a round's or a release's) keeps of its model: the conversation, the
//! prompts, its tests and the claims they made, its provenance for the record.

use std::sync::Arc;

use super::AttemptError;
use super::proposer::{Ask, Provenance};
use super::talk::Talk;
use crate::llm::Chat;
use crate::mutate::reply::GeneratedTest;
use crate::version_record::Author;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::prompt::Prompts;
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::validate::Effect;

/// A model as its proposers hold it (a round's or a release's): the conversation, the model's
/// name and who serves it, the shared prompts, and what its last test reply claimed.
pub(super) struct Model {
    pub(super) talk: Talk,
    pub(super) name: String,
    pub(super) author: Author,
    pub(super) prompts: Prompts,
    claims: Vec<Effect>,
}

impl Model {
    pub(super) fn new(chat: Arc<dyn Chat>, name: String, author: Author, prompts: Prompts) -> Self {
        Model {
            talk: Talk::new(chat),
            name,
            author,
            prompts,
            claims: Vec::new(),
        }
    }

    /// The model's test cases for the changed tools (and `targets`); its claims are kept for
    /// [`Model::claims`].
    pub(super) async fn tests(
        &mut self,
        ask: &Ask<'_>,
        targets: &[String],
        changes: &[SchemaChange],
        tools: &[ListedTool],
    ) -> Result<Vec<GeneratedTest>, AttemptError> {
        let (cases, claims) = super::generated::write_tests(
            &mut self.talk,
            &self.prompts,
            ask,
            targets,
            changes,
            tools,
        )
        .await?;
        self.claims = claims;
        Ok(cases)
    }

    /// What the last test reply claimed, taken once.
    pub(super) fn claims(&mut self) -> Vec<Effect> {
        std::mem::take(&mut self.claims)
    }

    /// The model, its usage and every exchange, for the record; `release` when a release was
    /// made.
    pub(super) fn provenance(
        &mut self,
        release: Option<crate::release::ReleaseRecord>,
    ) -> Provenance {
        Provenance {
            model: Some(self.name.clone()),
            usage: Some(self.talk.usage()),
            redacted: self.talk.take_redacted(),
            exchanges: self.talk.take_exchanges(),
            inapplicable: std::collections::BTreeMap::new(),
            release,
        }
    }
}
