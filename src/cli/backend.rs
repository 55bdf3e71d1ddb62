//! `--backend rules|openai|replay` and its options, turned into an evolution backend.

use anyhow::{Context, Result};

use mcpevol::evolve::{Backend, ReplaySource};
use mcpevol::llm::{LlmClient, LlmConfig};

/// The backend options as given on the command line.
#[derive(Clone, Debug)]
pub struct BackendSpec {
    pub name: String,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub request_timeout: f64,
    pub from: Option<String>,
}

impl BackendSpec {
    /// Refuses an unknown backend, or replay without `--from`, before any work starts.
    pub fn check(&self) -> Result<()> {
        match (self.name.as_str(), &self.from) {
            ("rules" | "openai", _) | ("replay", Some(_)) => Ok(()),
            ("replay", None) => anyhow::bail!(
                "--backend replay needs --from <WORKDIR>, the workspace whose exchanges to replay"
            ),
            (other, _) => anyhow::bail!("unknown backend `{other}`; use rules, openai or replay"),
        }
    }

    /// The backend, replaying from `replay_from` (defaults to `--from` as given).
    pub fn build(&self, replay_from: Option<ReplaySource>) -> Result<Backend> {
        self.check()?;
        Ok(match self.name.as_str() {
            "openai" => {
                let mut config = LlmConfig::from_env(self.model.clone(), self.base_url.clone());
                config.timeout = std::time::Duration::try_from_secs_f64(self.request_timeout)
                    .context("--request-timeout must be a positive number of seconds")?;
                let model = config.model.clone();
                let client = LlmClient::new(config).context("cannot set up the LLM client")?;
                Backend::Llm {
                    chat: std::sync::Arc::new(client),
                    model,
                }
            }
            "replay" => Backend::Replay {
                from: replay_from.unwrap_or_else(|| {
                    ReplaySource::parse(self.from.as_deref().expect("checked above"))
                }),
            },
            _ => Backend::Rules,
        })
    }

    pub fn is_rules(&self) -> bool {
        self.name == "rules"
    }
}
