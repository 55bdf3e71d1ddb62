//! The options `evolve` and `batch` share: the backend and its settings, seed, timeouts,
//! stages, attempts, operator folders; turned into an evolution backend and options.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::Args;

use mcpevol::evolve::{self, Backend, BackendKind, EvolveOptions, ReplaySource};
use mcpevol::llm::{LlmClient, LlmConfig};
use mcpevol::server;
use mcpevol::workspace::VersionTag;

#[derive(Args)]
pub struct EvolveArgs {
    /// What proposes the changes: the deterministic rules (no network), a model behind an
    /// OpenAI-compatible endpoint, or a replay of a model's recorded exchanges.
    #[arg(long, value_enum, default_value_t = BackendKind::Rules)]
    pub backend: BackendKind,
    /// The seed (for a batch: the batch seed, from which each server's is derived).
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Seconds a server may take to start and list its tools before its process group is
    /// killed (each tool call has its own limit of 10 s).
    #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
    pub timeout: f64,
    /// Stage tags, NAME=VERSION separated by commas.
    #[arg(long, default_value = "early=v0,middle=v3,late=v5")]
    pub stages: String,
    /// Attempts per round (rules: targets, then operators; models: replies per step) before
    /// the round is reported as failed. Default 6 for rules, 3 for a model.
    #[arg(long)]
    pub max_attempts: Option<u32>,
    /// Failed rounds tolerated (each rolled back, recorded and tried again with other
    /// choices) before the evolution stops short of --rounds versions.
    #[arg(long, default_value_t = evolve::MAX_FAILED_ROUNDS)]
    pub max_failed_rounds: u32,
    /// Isolate the servers (no network, read-only files outside their scratch folder); `off`
    /// runs them without namespaces (their environment is scrubbed all the same).
    #[arg(long, value_enum, default_value_t = mcpevol::server::sandbox::Isolation::On)]
    pub sandbox: mcpevol::server::sandbox::Isolation,
    /// The model (openai backend); default from OPENAI_MODEL or gpt-4o-mini.
    #[arg(long)]
    pub model: Option<String>,
    /// An OpenAI-compatible endpoint (openai backend); default from OPENAI_BASE_URL.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Seconds one model request may take.
    #[arg(long, default_value_t = 120.0)]
    pub request_timeout: f64,
    /// What to replay (replay backend): a workspace folder or a revision of this workspace
    /// (evolve); an earlier batch folder, each server replaying its own workspace (batch).
    #[arg(long)]
    pub from: Option<String>,
    /// A folder of your own operator files, beside the built-in ones (repeatable).
    #[arg(long = "operators")]
    pub operator_dirs: Vec<PathBuf>,
    /// Refuse a change that no passed check showed working (every check of it unverifiable),
    /// and try others; without it such a version is committed and recorded as unproven.
    #[arg(long)]
    pub require_proof: bool,
    /// What a version is: `round`, one operator on its tools (the paper's rounds), or
    /// `release`, several changes on several tools drawn to match real npm releases (the
    /// rules draw them; a model plans them).
    #[arg(long, value_enum, default_value_t = mcpevol::release::Shape::Round)]
    pub shape: mcpevol::release::Shape,
    /// A TOML file of the target mix and release shape for --shape release (the form of
    /// data/release-mix.toml, which is the default: the figures of real npm releases).
    #[arg(long)]
    pub mix: Option<PathBuf>,
}

impl EvolveArgs {
    pub fn spec(&self) -> BackendSpec {
        BackendSpec {
            name: self.backend,
            model: self.model.clone(),
            base_url: self.base_url.clone(),
            request_timeout: self.request_timeout,
            from: self.from.clone(),
        }
    }

    pub fn max_attempts(&self) -> u32 {
        self.max_attempts
            .unwrap_or(if self.shape == mcpevol::release::Shape::Release {
                evolve::MAX_RELEASE_ATTEMPTS
            } else if self.backend == BackendKind::Rules {
                evolve::MAX_ATTEMPTS
            } else {
                evolve::MAX_MODEL_ATTEMPTS
            })
    }

    /// Evolution options for `rounds` rounds, no forced operator.
    pub fn options(&self, rounds: u32) -> Result<EvolveOptions> {
        Ok(EvolveOptions {
            operator_dirs: self.operator_dirs.clone(),
            rounds,
            seed: self.seed,
            operators: Vec::new(),
            timeout: seconds(self.timeout)?,
            stages: parse_stages(&self.stages)?,
            max_attempts: self.max_attempts(),
            max_failed_rounds: self.max_failed_rounds,
            require_proof: self.require_proof,
            shape: self.shape,
            mix: std::sync::Arc::new(self.release_mix()?),
        })
    }

    /// The target mix: the user's file, or the shipped one.
    pub fn release_mix(&self) -> Result<mcpevol::release::Mix> {
        if self.mix.is_some() && self.shape != mcpevol::release::Shape::Release {
            anyhow::bail!("--mix is the target of --shape release; add --shape release");
        }
        Ok(match &self.mix {
            Some(path) => mcpevol::release::Mix::load(path)?,
            None => mcpevol::release::Mix::shipped(),
        })
    }
}

pub fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s).context("--timeout must be a positive number of seconds")
}

pub fn parse_stages(s: &str) -> Result<Vec<evolve::Stage>> {
    s.split(',')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let (k, v) = p
                .split_once('=')
                .with_context(|| format!("stage `{p}` is not NAME=VERSION"))?;
            let version = VersionTag::parse(v.trim()).with_context(|| {
                format!("stage `{p}`: `{}` is not a version tag like v3", v.trim())
            })?;
            Ok((k.trim().to_string(), version))
        })
        .collect()
}

/// The backend options as given on the command line.
#[derive(Clone, Debug)]
pub struct BackendSpec {
    pub name: BackendKind,
    pub model: Option<String>,
    pub base_url: Option<String>,
    pub request_timeout: f64,
    pub from: Option<String>,
}

impl BackendSpec {
    /// Refuses replay without `--from` before any work starts.
    pub fn check(&self) -> Result<()> {
        if self.name == BackendKind::Replay && self.from.is_none() {
            anyhow::bail!(
                "--backend replay needs --from <WORKDIR>, the workspace whose exchanges to replay"
            );
        }
        Ok(())
    }

    /// The backend, replaying from `replay_from` (defaults to `--from` as given).
    pub fn build(&self, replay_from: Option<ReplaySource>) -> Result<Backend> {
        self.check()?;
        Ok(match self.name {
            BackendKind::Openai => {
                let mut config = LlmConfig::from_env(self.model.clone(), self.base_url.clone());
                config.timeout = std::time::Duration::try_from_secs_f64(self.request_timeout)
                    .context("--request-timeout must be a positive number of seconds")?;
                let model = config.model.clone();
                let provider = config.provider();
                let client = LlmClient::new(config).context("cannot set up the LLM client")?;
                Backend::Llm {
                    chat: std::sync::Arc::new(client),
                    model,
                    provider,
                }
            }
            BackendKind::Replay => Backend::Replay {
                from: replay_from.unwrap_or_else(|| {
                    ReplaySource::parse(self.from.as_deref().expect("checked above"))
                }),
            },
            BackendKind::Rules => Backend::Rules,
        })
    }
}
