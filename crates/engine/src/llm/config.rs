//! Which endpoint and model to call, and how patiently: flags first, then the environment.

use std::fmt;
use std::time::Duration;

use super::retry::{MAX_BACKOFF, MAX_RETRY_AFTER};

pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// Low but not zero: proposals should be repeatable, yet a retried round needs some variety.
pub const DEFAULT_TEMPERATURE: f32 = 0.2;
/// Generous: a long proposal from a slow model can take a minute or more.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(120);
pub const DEFAULT_MAX_RETRIES: u32 = 4;

pub const ENV_API_KEY: &str = "OPENAI_API_KEY";
pub const ENV_BASE_URL: &str = "OPENAI_BASE_URL";

#[derive(Clone, PartialEq)]
pub struct LlmConfig {
    pub model: String,
    /// Up to the version prefix, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended.
    pub base_url: String,
    /// Sent only as `Authorization: Bearer <key>`; never printed (see the `Debug` impl).
    pub api_key: Option<String>,
    pub temperature: f32,
    /// Per HTTP request, from connecting to the last byte of the reply.
    pub timeout: Duration,
    /// Retries after the first request, on 429, 5xx and connection errors.
    pub max_retries: u32,
}

impl LlmConfig {
    /// Who serves the model, as records name it: `openai` for OpenAI's own endpoint, else the
    /// endpoint's host (`openrouter.ai`, `localhost:11434`), so that rounds made through
    /// different providers are told apart.
    pub fn provider(&self) -> String {
        if self.base_url.trim_end_matches('/') == DEFAULT_BASE_URL {
            return "openai".to_string();
        }
        let rest = self
            .base_url
            .split_once("://")
            .map_or(self.base_url.as_str(), |(_, r)| r);
        let host = rest.split('/').next().unwrap_or(rest);
        let host = host.rsplit_once('@').map_or(host, |(_, h)| h);
        if host.is_empty() {
            "unknown".to_string()
        } else {
            host.to_string()
        }
    }

    /// The configuration for `model` at `base_url` (the command-line flags), falling back on
    /// `OPENAI_BASE_URL` and the defaults; the key comes from `OPENAI_API_KEY` only, so that it
    /// never sits in a command line or a shell history.
    pub fn from_env(model: Option<String>, base_url: Option<String>) -> LlmConfig {
        Self::from_vars(model, base_url, |name| std::env::var(name).ok())
    }

    /// [`LlmConfig::from_env`] with the environment given as a function, for tests.
    pub fn from_vars(
        model: Option<String>,
        base_url: Option<String>,
        var: impl Fn(&str) -> Option<String>,
    ) -> LlmConfig {
        // An exported but empty variable (`OPENAI_BASE_URL=`) means "not set", and a key read
        // from a file often ends with a newline that would break the header.
        let var = |name: &str| {
            var(name)
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        let flag = |value: Option<String>| {
            value
                .map(|v| v.trim().to_string())
                .filter(|v| !v.is_empty())
        };
        LlmConfig {
            model: flag(model).unwrap_or_else(|| DEFAULT_MODEL.to_string()),
            base_url: flag(base_url)
                .or_else(|| var(ENV_BASE_URL))
                .unwrap_or_else(|| DEFAULT_BASE_URL.to_string()),
            api_key: var(ENV_API_KEY),
            ..LlmConfig::default()
        }
    }

    /// The longest one chat call can take whatever the endpoint does: every attempt up to the
    /// timeout (a timeout itself is not retried, but a reply cut off after most of it is), and
    /// every wait between attempts up to the longest backoff or `Retry-After`.
    pub fn max_call_time(&self) -> Duration {
        let wait = MAX_BACKOFF.max(MAX_RETRY_AFTER);
        self.timeout
            .saturating_mul(self.max_retries.saturating_add(1))
            .saturating_add(wait.saturating_mul(self.max_retries))
    }
}

impl Default for LlmConfig {
    /// The defaults, without a key and without reading the environment.
    fn default() -> Self {
        LlmConfig {
            model: DEFAULT_MODEL.to_string(),
            base_url: DEFAULT_BASE_URL.to_string(),
            api_key: None,
            temperature: DEFAULT_TEMPERATURE,
            timeout: DEFAULT_TIMEOUT,
            max_retries: DEFAULT_MAX_RETRIES,
        }
    }
}

impl fmt::Debug for LlmConfig {
    /// By hand so that the key cannot reach a log or a panic message.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("LlmConfig")
            .field("model", &self.model)
            .field("base_url", &self.base_url)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .field("temperature", &self.temperature)
            .field("timeout", &self.timeout)
            .field("max_retries", &self.max_retries)
            .finish()
    }
}

#[cfg(test)]
mod provider_tests {
    use super::*;

    #[test]
    fn the_provider_is_openai_for_its_endpoint_and_the_host_for_any_other() {
        let at = |url: &str| {
            LlmConfig {
                base_url: url.into(),
                ..LlmConfig::default()
            }
            .provider()
        };
        assert_eq!(at("https://api.openai.com/v1"), "openai");
        assert_eq!(at("https://openrouter.ai/api/v1"), "openrouter.ai");
        assert_eq!(at("http://user:pw@localhost:11434/v1"), "localhost:11434");
    }
}
