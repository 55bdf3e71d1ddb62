//! What the tests of evolution through the STUB endpoint share: a workspace made from a source
//! package, the options of a run, an LLM backend pointed at a stub, and running the rounds.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use mcpevol::evolve::{self, Backend, Options, RoundOutcome};
use mcpevol::init::{InitOptions, init};
use mcpevol::llm::{LlmClient, LlmConfig};
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig};

use super::stub::StubServer;

pub const KEY: &str = "sk-test-SECRET-4242";

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

pub fn init_at(source: &Path, work: &Path, launch: Option<LaunchConfig>) {
    let opts = InitOptions {
        launch,
        args: vec![],
        env: BTreeMap::new(),
        timeout: DEFAULT_TIMEOUT,
        stages: evolve::default_stages(),
    };
    runtime()
        .block_on(init(&source.to_string_lossy(), work, &opts))
        .unwrap();
}

pub fn options(backend: Backend, rounds: u32, operators: &[&str]) -> Options {
    Options {
        backend,
        operator_dirs: vec![],
        rounds,
        seed: 4,
        operators: operators.iter().map(|s| s.to_string()).collect(),
        timeout: DEFAULT_TIMEOUT,
        stages: evolve::default_stages(),
        max_attempts: evolve::MAX_ATTEMPTS,
    }
}

pub fn llm(stub: &StubServer, timeout: Duration) -> Backend {
    let config = LlmConfig {
        base_url: stub.base_url.clone(),
        api_key: Some(KEY.into()),
        timeout,
        max_retries: 2,
        ..LlmConfig::default()
    };
    let model = config.model.clone();
    Backend::Llm {
        chat: Arc::new(LlmClient::new(config).unwrap()),
        model,
    }
}

pub fn evolve_with(work: &Path, opts: &Options) -> Vec<RoundOutcome> {
    runtime()
        .block_on(evolve::evolve(work, opts, |_| {}))
        .unwrap()
}
