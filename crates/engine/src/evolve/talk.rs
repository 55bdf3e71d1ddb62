//! The conversation with a model during one round: every exchange kept in order (what the
//! record and a replay need), and the message that tells it why its answer was rejected.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::AttemptError;
use crate::llm::{Chat, ChatMessage, Exchange, Usage};
use mcpevol_core::prompt::{self, Prompts};
use mcpevol_core::redact::{self, Place, Redacted};

/// The conversation with the model: every exchange of the round, in order.
pub(super) struct Talk {
    chat: Arc<dyn Chat>,
    exchanges: Vec<Exchange>,
    redacted: Vec<Redacted>,
}

impl Talk {
    pub(super) fn new(chat: Arc<dyn Chat>) -> Talk {
        Talk {
            chat,
            exchanges: Vec::new(),
            redacted: Vec::new(),
        }
    }

    /// The exchanges so far, taken for the record.
    pub(super) fn take_exchanges(&mut self) -> Vec<Exchange> {
        std::mem::take(&mut self.exchanges)
    }

    /// What was kept out of the prompts so far, taken for the record.
    pub(super) fn take_redacted(&mut self) -> Vec<Redacted> {
        std::mem::take(&mut self.redacted)
    }

    /// Sends `messages` (every credential-looking string replaced: they hold what the server
    /// said, and its source) and returns the reply.
    pub(super) async fn ask(&mut self, messages: &[ChatMessage]) -> Result<String, AttemptError> {
        let messages: Vec<ChatMessage> = messages
            .iter()
            .map(|m| {
                let (content, found) = redact::redact(&m.content);
                redact::tally(&mut self.redacted, Place::Prompt, &found);
                ChatMessage {
                    role: m.role.clone(),
                    content: content.into_owned(),
                }
            })
            .collect();
        let exchange = self.chat.chat(&messages).await?;
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
