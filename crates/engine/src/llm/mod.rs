//! The LLM backend's client: one chat completion per call, from a live OpenAI-compatible endpoint
//! ([`LlmClient`]) or from recorded exchanges ([`Replay`]), behind one trait ([`Chat`]) so the round
//! loop does not know which it has.
//!
//! Every call gives an [`Exchange`]: the messages sent, the reply, the model, token usage, time and
//! attempts. Recording exchanges and replaying them is what makes `--backend replay` reproducible.

mod body;
mod client;
mod config;
mod error;
mod replay;
mod retry;

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

pub use body::{MAX_BODY_BYTES, MAX_ERROR_BODY_BYTES};
pub use client::LlmClient;
pub use config::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, DEFAULT_TEMPERATURE, DEFAULT_TIMEOUT, LlmConfig,
};
pub use config::{DEFAULT_MAX_RETRIES, ENV_API_KEY, ENV_BASE_URL};
pub use error::LlmError;
pub use replay::Replay;
pub use retry::{MAX_BACKOFF, MAX_RETRY_AFTER, RETRY_BASE};

/// Longest reply accepted, in characters: a search/replace proposal for a few tools is a few
/// thousand characters; far more means the model is looping or echoing the source.
pub const MAX_REPLY_CHARS: usize = 200_000;

/// One message of a chat: `role` is "system", "user" or "assistant".
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatMessage {
    pub role: String,
    pub content: String,
}

impl ChatMessage {
    pub fn system(content: impl Into<String>) -> Self {
        Self {
            role: "system".into(),
            content: content.into(),
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self {
            role: "user".into(),
            content: content.into(),
        }
    }

    pub fn assistant(content: impl Into<String>) -> Self {
        Self {
            role: "assistant".into(),
            content: content.into(),
        }
    }
}

/// Tokens counted by the endpoint for one call (zero when it does not report usage).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub prompt_tokens: u64,
    pub completion_tokens: u64,
    pub total_tokens: u64,
}

/// What is recorded per call: enough to replay the call without the endpoint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Exchange {
    pub request: Vec<ChatMessage>,
    pub reply: String,
    /// The model the endpoint says answered (it may name a dated snapshot of the one asked for).
    pub model: String,
    pub usage: Usage,
    pub elapsed_ms: u64,
    /// HTTP requests made, retries included: 1 when the first one was answered.
    pub attempts: u32,
}

/// The future a [`Chat`] returns: boxed so that the trait stays object safe (`&dyn Chat`).
pub type ChatFuture<'a> = Pin<Box<dyn Future<Output = Result<Exchange, LlmError>> + Send + 'a>>;

/// A source of chat completions: a live endpoint or a replay of recorded exchanges.
pub trait Chat: Send + Sync {
    fn chat<'a>(&'a self, messages: &'a [ChatMessage]) -> ChatFuture<'a>;
}

#[cfg(test)]
mod llm_tests;
