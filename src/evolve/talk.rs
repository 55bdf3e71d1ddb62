//! The conversation with a model during one round: every exchange kept in order (what the
//! record and a replay need), the message that tells it why its answer was rejected, and what
//! a model proposer keeps of its model (`Model`): its tests, its claims, its provenance.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::Value;

use super::AttemptError;
use super::proposer::{Ask, Provenance};
use crate::llm::{Chat, ChatMessage, Exchange, Usage};
use crate::mutate::reply::GeneratedTest;
use crate::prompt::{self, Prompts};
use crate::schema::SchemaChange;
use crate::validate::Effect;
use crate::version_record::Author;

/// The conversation with the model: every exchange of the round, in order.
pub(super) struct Talk {
    chat: Arc<dyn Chat>,
    exchanges: Vec<Exchange>,
}

impl Talk {
    pub(super) fn new(chat: Arc<dyn Chat>) -> Talk {
        Talk {
            chat,
            exchanges: Vec::new(),
        }
    }

    /// The exchanges so far, taken for the record.
    pub(super) fn take_exchanges(&mut self) -> Vec<Exchange> {
        std::mem::take(&mut self.exchanges)
    }

    pub(super) async fn ask(&mut self, messages: &[ChatMessage]) -> Result<String, AttemptError> {
        let exchange = self.chat.chat(messages).await?;
        let reply = exchange.reply.clone();
        self.exchanges.push(exchange);
        Ok(reply)
    }

    pub(super) fn usage(&self) -> Usage {
        self.exchanges.iter().fold(Usage::default(), |mut u, e| {
            u.prompt_tokens += e.usage.prompt_tokens;
            u.completion_tokens += e.usage.completion_tokens;
            u.total_tokens += e.usage.total_tokens;
            u
        })
    }
}

pub(super) fn feedback(prompts: &Prompts, error: &str) -> String {
    let values = BTreeMap::from([("error", error.to_string())]);
    prompt::render(&prompts.feedback, &values)
        .unwrap_or_else(|_| format!("That did not work: {error}\nPlease fix it."))
}

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
        tools: &[Value],
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
            exchanges: self.talk.take_exchanges(),
            inapplicable: std::collections::BTreeMap::new(),
            release,
        }
    }
}
