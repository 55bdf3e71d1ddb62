//! The live client: async-openai builds the chat-completion request (URL, `Authorization` header,
//! JSON body) and reads the reply; [`RetryTransport`] sends it, retrying what is worth retrying.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use async_openai::config::OpenAIConfig;
use async_openai::error::OpenAIError;
use async_openai::types::chat::{
    ChatCompletionRequestAssistantMessage, ChatCompletionRequestMessage,
    ChatCompletionRequestSystemMessage, ChatCompletionRequestUserMessage,
    CreateChatCompletionRequest, CreateChatCompletionRequestArgs,
};
use serde::Deserialize;

use crate::llm::body::BodyTooLarge;
use crate::llm::retry::{RetryTransport, StatusFailure, shorten};
use crate::llm::{
    Chat, ChatFuture, ChatMessage, Exchange, LlmConfig, LlmError, MAX_REPLY_CHARS, Usage,
};

/// How much of a malformed reply body an error quotes.
const MAX_QUOTED_BODY_CHARS: usize = 200;

/// A chat-completion client for one OpenAI-compatible endpoint and model.
pub struct LlmClient {
    config: LlmConfig,
    /// `host[:port]` of the endpoint, for error messages.
    host: String,
    http: reqwest::Client,
    openai: async_openai::Client<OpenAIConfig>,
}

impl LlmClient {
    /// Checks the configuration and builds the HTTP client; nothing is sent yet.
    pub fn new(config: LlmConfig) -> Result<Self, LlmError> {
        let base_url = config.base_url.trim().trim_end_matches('/').to_string();
        let url = reqwest::Url::parse(&base_url).map_err(|e| {
            LlmError::Config(format!("the base URL {base_url:?} is not a URL: {e}"))
        })?;
        let host = match (url.scheme(), url.host_str()) {
            ("http" | "https", Some(host)) => match url.port() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_string(),
            },
            _ => {
                return Err(LlmError::Config(format!(
                    "the base URL {base_url:?} is not an http(s) URL"
                )));
            }
        };
        if let Some(key) = &config.api_key {
            // async-openai would panic building the header; the message must not quote the key.
            if key.is_empty() || !key.bytes().all(|b| b.is_ascii_graphic()) {
                return Err(LlmError::Config(
                    "the API key is empty or has characters an HTTP header cannot carry (spaces, control or non-ASCII characters)".into(),
                ));
            }
        }
        if !(0.0..=2.0).contains(&config.temperature) {
            return Err(LlmError::Config(format!(
                "temperature {} is outside 0..=2",
                config.temperature
            )));
        }
        if config.timeout.is_zero() {
            return Err(LlmError::Config("the timeout is zero".into()));
        }
        use_ring_for_tls();
        let http = reqwest::Client::builder()
            .timeout(config.timeout)
            .user_agent(concat!("mcpevol/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Config(format!("cannot build the HTTP client: {e}")))?;
        // Organization and project are cleared so that only `config` decides what is sent (the
        // defaults read OPENAI_ORG_ID and OPENAI_PROJECT_ID, and panic on odd values).
        let openai_config = OpenAIConfig::new()
            .with_api_base(base_url)
            .with_api_key(config.api_key.clone().unwrap_or_default())
            .with_org_id("")
            .with_project_id("");
        let openai = async_openai::Client::build(http.clone(), openai_config);
        Ok(LlmClient {
            config,
            host,
            http,
            openai,
        })
    }

    pub fn config(&self) -> &LlmConfig {
        &self.config
    }

    /// `host[:port]` of the endpoint.
    pub fn host(&self) -> &str {
        &self.host
    }

    /// One chat completion of `messages`, retried on 429, 5xx and connection errors.
    pub async fn chat(&self, messages: &[ChatMessage]) -> Result<Exchange, LlmError> {
        let request = self.request(messages)?;
        let attempts = Arc::new(AtomicU32::new(0));
        let transport = RetryTransport {
            http: self.http.clone(),
            max_retries: self.config.max_retries,
            attempts: attempts.clone(),
            host: self.host.clone(),
            send_authorization: self.config.api_key.is_some(),
        };
        let client = self.openai.clone().with_http_service(transport);
        let start = Instant::now();
        let result: Result<WireResponse, OpenAIError> = client.chat().create_byot(request).await;
        let elapsed_ms = u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX);
        let attempts = attempts.load(Ordering::SeqCst).max(1);
        let response = result.map_err(|error| self.error(error, attempts))?;
        self.exchange(messages, response, elapsed_ms, attempts)
    }

    fn request(&self, messages: &[ChatMessage]) -> Result<CreateChatCompletionRequest, LlmError> {
        if messages.is_empty() {
            return Err(LlmError::Request("no messages to send".into()));
        }
        let messages = messages
            .iter()
            .map(|m| {
                let content = m.content.as_str();
                Ok(match m.role.as_str() {
                    "system" => ChatCompletionRequestSystemMessage::from(content).into(),
                    "user" => ChatCompletionRequestUserMessage::from(content).into(),
                    "assistant" => ChatCompletionRequestAssistantMessage::from(content).into(),
                    other => {
                        return Err(LlmError::Request(format!(
                            "unknown chat role {other:?} (system, user or assistant)"
                        )));
                    }
                })
            })
            .collect::<Result<Vec<ChatCompletionRequestMessage>, LlmError>>()?;
        CreateChatCompletionRequestArgs::default()
            .model(self.config.model.as_str())
            .messages(messages)
            .temperature(self.config.temperature)
            .build()
            .map_err(|e| LlmError::Request(e.to_string()))
    }

    fn exchange(
        &self,
        messages: &[ChatMessage],
        response: WireResponse,
        elapsed_ms: u64,
        attempts: u32,
    ) -> Result<Exchange, LlmError> {
        let model = response.model.unwrap_or_else(|| self.config.model.clone());
        let Some(choice) = response.choices.into_iter().next() else {
            let cause = "no choices in the reply".to_string();
            return Err(LlmError::BadReply {
                host: self.host.clone(),
                cause,
            });
        };
        let message = choice.message.unwrap_or_default();
        let reply = message.content.map(content_text).unwrap_or_default();
        if reply.trim().is_empty() {
            let mut finish_reason = choice.finish_reason.unwrap_or_else(|| "none".into());
            if let Some(refusal) = message.refusal.filter(|r| !r.trim().is_empty()) {
                finish_reason = format!(
                    "{finish_reason}; refusal: {}",
                    shorten(&refusal, MAX_QUOTED_BODY_CHARS)
                );
            }
            let finish_reason = self.scrub(finish_reason);
            return Err(LlmError::EmptyReply {
                host: self.host.clone(),
                model,
                finish_reason,
            });
        }
        let chars = reply.chars().count();
        if chars > MAX_REPLY_CHARS {
            return Err(LlmError::TooLong { chars });
        }
        if choice.finish_reason.as_deref() == Some("length") {
            tracing::warn!(host = %self.host, %model, "the model's reply was cut at its token limit");
        }
        let usage = response.usage.unwrap_or_default();
        Ok(Exchange {
            request: messages.to_vec(),
            reply,
            model,
            usage: Usage {
                prompt_tokens: usage.prompt_tokens,
                completion_tokens: usage.completion_tokens,
                total_tokens: usage.total_tokens,
            },
            elapsed_ms,
            attempts,
        })
    }

    /// The error for a failed call, every text in it scrubbed of the key.
    fn error(&self, error: OpenAIError, attempts: u32) -> LlmError {
        let host = self.host.clone();
        match error {
            OpenAIError::Boxed(boxed) => match boxed.downcast::<StatusFailure>() {
                Ok(failure) => LlmError::Status {
                    host,
                    status: failure.status,
                    attempts,
                    message: self.scrub(failure.message),
                    hint: hint(failure.status, self.config.api_key.is_some()).to_string(),
                },
                Err(other) => match other.downcast::<BodyTooLarge>() {
                    Ok(too_large) => LlmError::TooLarge {
                        host,
                        limit_bytes: too_large.limit,
                    },
                    Err(other) => LlmError::Http {
                        host,
                        attempts,
                        cause: self.scrub(other.to_string()),
                    },
                },
            },
            OpenAIError::Reqwest(e) if e.is_timeout() => LlmError::Timeout {
                host,
                timeout_secs: self.config.timeout.as_secs_f64(),
                attempts,
            },
            OpenAIError::Reqwest(e) if e.is_decode() => LlmError::Http {
                host,
                attempts,
                cause: self.scrub(format!(
                    "the reply was cut off before its end: {}",
                    chain(&e)
                )),
            },
            OpenAIError::Reqwest(e) if e.is_connect() => LlmError::Connect {
                host,
                attempts,
                cause: self.scrub(chain(&e)),
            },
            OpenAIError::Reqwest(e) => LlmError::Http {
                host,
                attempts,
                cause: self.scrub(chain(&e)),
            },
            OpenAIError::JSONDeserialize(e, body) => {
                let cause = if body.trim().is_empty() {
                    "empty body".to_string()
                } else {
                    format!(
                        "{e}; the body starts with {:?}",
                        shorten(&body, MAX_QUOTED_BODY_CHARS)
                    )
                };
                LlmError::BadReply {
                    host,
                    cause: self.scrub(cause),
                }
            }
            OpenAIError::ApiError(api) => LlmError::Status {
                host,
                status: api.status_code.as_u16(),
                attempts,
                message: self.scrub(shorten(&api.api_error.message, MAX_QUOTED_BODY_CHARS)),
                hint: hint(api.status_code.as_u16(), self.config.api_key.is_some()).to_string(),
            },
            other => LlmError::Http {
                host,
                attempts,
                cause: self.scrub(other.to_string()),
            },
        }
    }

    /// `text` with the key replaced: servers quote a rejected key back in their error bodies.
    fn scrub(&self, text: String) -> String {
        match &self.config.api_key {
            Some(key) if !key.is_empty() && text.contains(key.as_str()) => {
                text.replace(key.as_str(), "<redacted>")
            }
            _ => text,
        }
    }
}

impl Chat for LlmClient {
    fn chat<'a>(&'a self, messages: &'a [ChatMessage]) -> ChatFuture<'a> {
        Box::pin(LlmClient::chat(self, messages))
    }
}

impl fmt::Debug for LlmClient {
    /// By hand: the config's own `Debug` redacts the key; the HTTP clients add nothing useful.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmClient")
            .field("config", &self.config)
            .field("host", &self.host)
            .finish()
    }
}

/// reqwest's TLS (feature `rustls-no-provider`) takes the process-wide rustls provider: ring,
/// which builds with a C compiler alone (aws-lc-rs needs cmake). Installing fails harmlessly when
/// a provider is already installed, by an earlier client or another part of the program.
fn use_ring_for_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// What a status usually means when it is a setup problem.
fn hint(status: u16, has_key: bool) -> &'static str {
    match status {
        401 | 403 if !has_key => " (no API key: set OPENAI_API_KEY)",
        401 | 403 => " (check OPENAI_API_KEY)",
        404 => " (check the model name and the base URL)",
        _ => "",
    }
}

/// An error with its sources: reqwest's own message only says which URL failed.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// A chat completion as OpenAI-compatible servers send it, read leniently: local servers omit
/// `id` or `usage`, or send finish reasons async-openai's typed response would reject.
#[derive(Deserialize)]
struct WireResponse {
    #[serde(default)]
    model: Option<String>,
    #[serde(default)]
    choices: Vec<WireChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct WireChoice {
    #[serde(default)]
    message: Option<WireMessage>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize, Default)]
struct WireMessage {
    #[serde(default)]
    content: Option<serde_json::Value>,
    #[serde(default)]
    refusal: Option<String>,
}

#[derive(Deserialize, Default)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    total_tokens: u64,
}

/// The text of a message's content: a string, or (some servers) an array of text parts.
fn content_text(content: serde_json::Value) -> String {
    match content {
        serde_json::Value::String(text) => text,
        serde_json::Value::Array(parts) => parts
            .iter()
            .filter_map(|part| part.get("text").and_then(|t| t.as_str()))
            .collect(),
        _ => String::new(),
    }
}
