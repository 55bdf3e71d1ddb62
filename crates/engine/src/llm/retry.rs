//! The HTTP transport under async-openai: one reqwest call per attempt, retried with exponential
//! backoff (or the server's `Retry-After`) on 429, 5xx, connection errors and connections
//! dropped before the reply's end. The body is read here, capped ([`super::body`]).
//!
//! It replaces async-openai's built-in retry layer, which has a fixed retry count and base delay,
//! no cap on `Retry-After` and no way to tell how many attempts a call took.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use async_openai::error::OpenAIError;
use async_openai::middleware::HttpRequestFactory;
use reqwest::header::HeaderMap;

use super::body::{self, BodyError, BodyTooLarge, MAX_BODY_BYTES, MAX_ERROR_BODY_BYTES};

/// The first backoff delay; each retry doubles it.
pub const RETRY_BASE: Duration = Duration::from_millis(500);
/// Backoff never waits longer than this between two attempts.
pub const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// A server's `Retry-After` is honoured up to this: a rate limit announced for minutes is better
/// reported than waited out inside one round.
pub const MAX_RETRY_AFTER: Duration = Duration::from_secs(30);
/// How much of an error body goes into an error message.
const MAX_ERROR_MESSAGE_CHARS: usize = 300;

/// The status a call finally failed with, carried through async-openai as `OpenAIError::Boxed`:
/// left to async-openai, a non-JSON error body would lose its status to a parse error.
#[derive(Debug, thiserror::Error)]
#[error("HTTP {status}: {message}")]
pub(crate) struct StatusFailure {
    pub status: u16,
    pub message: String,
}

/// A tower service for `async_openai::Client::with_http_service`, made per call so that
/// `attempts` counts the requests of that call only.
#[derive(Clone)]
pub(crate) struct RetryTransport {
    pub http: reqwest::Client,
    pub max_retries: u32,
    pub attempts: Arc<AtomicU32>,
    /// For log lines: never the whole URL's query, never a header.
    pub host: String,
    /// False without a key: async-openai would send `Authorization: Bearer ` (empty), which some
    /// local servers reject while they accept no header at all.
    pub send_authorization: bool,
}

impl tower::Service<HttpRequestFactory> for RetryTransport {
    type Response = reqwest::Response;
    type Error = OpenAIError;
    type Future = Pin<Box<dyn Future<Output = Result<reqwest::Response, OpenAIError>> + Send>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), OpenAIError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, factory: HttpRequestFactory) -> Self::Future {
        let this = self.clone();
        Box::pin(async move { this.send(factory).await })
    }
}

impl RetryTransport {
    async fn send(self, factory: HttpRequestFactory) -> Result<reqwest::Response, OpenAIError> {
        let mut retries = 0u32;
        loop {
            self.attempts.fetch_add(1, Ordering::SeqCst);
            let mut request = factory.build().await?;
            if !self.send_authorization {
                request.headers_mut().remove(reqwest::header::AUTHORIZATION);
            }
            let (delay, why) = match self.http.execute(request).await {
                Ok(mut response) if response.status().is_success() => {
                    match body::read_all(&mut response, MAX_BODY_BYTES).await {
                        Ok(bytes) => return Ok(body::with_body(response, bytes)),
                        Err(BodyError::TooLarge) => {
                            let failure = BodyTooLarge {
                                limit: MAX_BODY_BYTES,
                            };
                            return Err(OpenAIError::Boxed(Box::new(failure)));
                        }
                        Err(BodyError::Read(error))
                            if !error.is_timeout() && retries < self.max_retries =>
                        {
                            (backoff(retries), "the reply was cut off".to_string())
                        }
                        Err(BodyError::Read(error)) => return Err(OpenAIError::Reqwest(error)),
                    }
                }
                Ok(response) => {
                    let status = response.status();
                    let retryable = status.as_u16() == 429 || status.is_server_error();
                    if !retryable || retries >= self.max_retries {
                        let message = error_message(response).await;
                        let failure = StatusFailure {
                            status: status.as_u16(),
                            message,
                        };
                        return Err(OpenAIError::Boxed(Box::new(failure)));
                    }
                    let delay = retry_after(response.headers()).unwrap_or_else(|| backoff(retries));
                    (delay, format!("HTTP {}", status.as_u16()))
                }
                // A timeout is not retried: each retry would wait the whole timeout again.
                // A request error is a connection closed before any answer.
                Err(error)
                    if (error.is_connect() || error.is_request())
                        && !error.is_timeout()
                        && retries < self.max_retries =>
                {
                    (backoff(retries), "connection failed".to_string())
                }
                Err(error) => return Err(OpenAIError::Reqwest(error)),
            };
            retries += 1;
            tracing::warn!(
                host = %self.host,
                retry = retries,
                of = self.max_retries,
                delay_ms = delay.as_millis() as u64,
                "LLM endpoint: {why}; retrying"
            );
            tokio::time::sleep(delay).await;
        }
    }
}

/// The delay before retry number `retries + 1`: `RETRY_BASE * 2^retries`, at most `MAX_BACKOFF`.
pub(crate) fn backoff(retries: u32) -> Duration {
    RETRY_BASE
        .saturating_mul(2u32.saturating_pow(retries))
        .min(MAX_BACKOFF)
}

/// The server's requested delay, capped: `retry-after-ms` (sent by OpenAI) or `Retry-After` in
/// seconds. The HTTP-date form of `Retry-After` is ignored (backoff applies).
pub(crate) fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let number = |name: &str| {
        let value = headers
            .get(name)?
            .to_str()
            .ok()?
            .trim()
            .parse::<f64>()
            .ok()?;
        (value.is_finite() && value >= 0.0).then_some(value)
    };
    let delay = number("retry-after-ms")
        .map(|ms| Duration::from_secs_f64(ms.min(MAX_RETRY_AFTER.as_secs_f64() * 1000.0) / 1000.0))
        .or_else(|| {
            number("retry-after")
                .map(|s| Duration::from_secs_f64(s.min(MAX_RETRY_AFTER.as_secs_f64())))
        })?;
    Some(delay.min(MAX_RETRY_AFTER))
}

/// The message of an error body: OpenAI's `{"error": {"message": …}}`, a bare `{"error": "…"}`
/// or `{"message": …}`, else the text itself; shortened.
async fn error_message(mut response: reqwest::Response) -> String {
    let prefix = body::read_prefix(&mut response, MAX_ERROR_BODY_BYTES).await;
    let body = String::from_utf8_lossy(&prefix).into_owned();
    let json: Option<serde_json::Value> = serde_json::from_str(&body).ok();
    let from_json = json.as_ref().and_then(|v| {
        let error = v.get("error");
        error
            .and_then(|e| e.get("message"))
            .or(error.filter(|e| e.is_string()))
            .or(v.get("message"))
            .and_then(|m| m.as_str())
            .map(str::to_string)
    });
    let message = from_json.unwrap_or(body);
    let message = message.trim();
    if message.is_empty() {
        "(empty body)".to_string()
    } else {
        shorten(message, MAX_ERROR_MESSAGE_CHARS)
    }
}

/// `text` cut to `max` characters, with an ellipsis when cut.
pub(crate) fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_string(),
    }
}
