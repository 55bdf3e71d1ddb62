//! Why a chat call failed, in words that name the cause (status, endpoint host, timeout, attempts).
//!
//! No variant holds the API key: the client builds every message from the status, the host and
//! texts it scrubs of the key first (a server may quote a bad key back in its error body).

use crate::llm::MAX_REPLY_CHARS;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The configuration cannot make a working client (bad URL, a key a header cannot carry…).
    #[error("LLM client configuration: {0}")]
    Config(String),

    /// The messages cannot be sent (an unknown role…).
    #[error("LLM request: {0}")]
    Request(String),

    /// The endpoint answered with an error status, after retries when the status allows them.
    #[error(
        "the LLM endpoint {host} answered HTTP {status} after {attempts} attempt(s){hint}: {message}"
    )]
    Status {
        host: String,
        status: u16,
        attempts: u32,
        /// The error message of the body (scrubbed of the key, shortened).
        message: String,
        /// A hint for the statuses that usually mean a setup problem (empty otherwise).
        hint: String,
    },

    /// No complete answer within the per-request timeout. Not retried: each retry would wait as
    /// long again, minutes for one call at the default timeout.
    #[error("the LLM endpoint {host} did not answer within {timeout_secs} s (attempt {attempts})")]
    Timeout {
        host: String,
        timeout_secs: f64,
        attempts: u32,
    },

    /// The endpoint could not be reached, after retries.
    #[error("cannot reach the LLM endpoint {host} after {attempts} attempt(s): {cause}")]
    Connect {
        host: String,
        attempts: u32,
        cause: String,
    },

    /// Another transport failure (TLS, a connection cut mid-reply…).
    #[error("HTTP error with the LLM endpoint {host} after {attempts} attempt(s): {cause}")]
    Http {
        host: String,
        attempts: u32,
        cause: String,
    },

    /// A 2xx answer that is not a chat completion (empty body, not JSON, no choices).
    #[error("the LLM endpoint {host} sent a reply that is not a chat completion: {cause}")]
    BadReply { host: String, cause: String },

    /// The model answered nothing (no content, or only whitespace).
    #[error("the model {model} at {host} sent an empty reply (finish reason: {finish_reason})")]
    EmptyReply {
        host: String,
        model: String,
        finish_reason: String,
    },

    /// A body that passed [`crate::llm::MAX_BODY_BYTES`] (an endpoint streaming without end): cut there.
    #[error(
        "the LLM endpoint {host} sent a reply body of more than {limit_bytes} bytes (the limit); it was cut there"
    )]
    TooLarge { host: String, limit_bytes: usize },

    #[error("the model's reply has {chars} characters, over the limit of {MAX_REPLY_CHARS}")]
    TooLong { chars: usize },

    /// A replay was asked for more calls than were recorded.
    #[error(
        "replay exhausted: all {recorded} recorded exchange(s) were used; the run asks for more calls than the recorded one made"
    )]
    ReplayExhausted { recorded: usize },

    /// A replayed call does not send what the recorded one sent, so its reply would not fit.
    #[error(
        "replay mismatch at exchange {index}: the first differing line was {expected_first_line:?} when recorded, and is {got_first_line:?} now"
    )]
    ReplayMismatch {
        index: usize,
        expected_first_line: String,
        got_first_line: String,
    },
}

impl LlmError {
    /// Whether the round loop may try the call again later (another round, another operator):
    /// false for setup problems that will fail the same way every time.
    pub fn is_transient(&self) -> bool {
        match self {
            LlmError::Status { status, .. } => *status == 429 || *status >= 500,
            LlmError::Timeout { .. } | LlmError::Connect { .. } | LlmError::Http { .. } => true,
            LlmError::BadReply { .. }
            | LlmError::EmptyReply { .. }
            | LlmError::TooLong { .. }
            | LlmError::TooLarge { .. } => true,
            LlmError::Config(_)
            | LlmError::Request(_)
            | LlmError::ReplayExhausted { .. }
            | LlmError::ReplayMismatch { .. } => false,
        }
    }
}
