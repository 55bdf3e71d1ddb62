//! Evolution rounds driven through the STUB model endpoint: workspaces, options, and the replies
//! a model would give (selection, SEARCH/REPLACE blocks, test cases), built from rules rounds.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use super::stub::{Scripted, StubServer};
use mcpevol::evolve::{self, Backend, EvolveOptions, RoundOutcome};
use mcpevol::hunks::Hunk;
use mcpevol::init::{InitOptions, init};
use mcpevol::llm::{LlmClient, LlmConfig};
use mcpevol::operators::OperatorId;
use mcpevol::server::LaunchConfig;
use mcpevol::version_record::{self, RoundRecord};
use mcpevol::workspace::Workspace;

pub const KEY: &str = "sk-test-SECRET-4242";

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

pub fn init_at(source: &Path, work: &Path, launch: Option<LaunchConfig>) {
    let opts = InitOptions::new(launch);
    runtime()
        .block_on(init(&source.to_string_lossy(), work, &opts))
        .unwrap();
}

/// A backend and the options of an evolution with it.
pub struct Run {
    pub backend: Backend,
    pub opts: EvolveOptions,
}

pub fn options(backend: Backend, rounds: u32, operators: &[&str]) -> Run {
    Run {
        backend,
        opts: EvolveOptions {
            operators: operators.iter().map(|s| OperatorId::parse(s)).collect(),
            // The scripted conversations are sized for four replies per step, one try per round.
            max_attempts: 4,
            max_failed_rounds: 1,
            ..EvolveOptions::new(rounds, 4)
        },
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
    let provider = config.provider();
    Backend::Llm {
        chat: Arc::new(LlmClient::new(config).unwrap()),
        model,
        provider,
    }
}

pub fn evolve_with(work: &Path, run: &Run) -> Vec<RoundOutcome> {
    runtime()
        .block_on(evolve::evolve(work, &run.backend, &run.opts, |_| {}))
        .unwrap()
}

/// A reply in the SEARCH/REPLACE format the prompts ask for.
pub fn blocks(hunks: &[Hunk]) -> String {
    let mut out = String::from("Here are the edits.\n\n");
    for h in hunks {
        // An empty SEARCH (a new file) is no line at all, not an empty line.
        let lines = |text: &str| match text.strip_suffix('\n').unwrap_or(text) {
            "" => String::new(),
            text => format!("{text}\n"),
        };
        out += &format!(
            "{}\n```js\n<<<<<<< SEARCH\n{}=======\n{}>>>>>>> REPLACE\n```\n\n",
            h.file,
            lines(&h.search),
            lines(&h.replace)
        );
    }
    out
}

pub fn selection(op: &str, targets: &[String]) -> String {
    format!(
        "```json\n{}\n```",
        serde_json::json!({"operator": op, "targets": targets, "rationale": "clients asked for it"})
    )
}

/// Test cases of the tools the recorded rules round changed, expecting what they answered.
pub fn tests_reply(record: &RoundRecord) -> String {
    use mcpevol::server::session::CallStatus;
    // A model must exercise the change: calls of the tools the round changed.
    let ok: Vec<serde_json::Value> = record
        .tests
        .iter()
        .filter(|t| t.kind != mcpevol::validate::TestKind::Unchanged)
        .filter(|t| matches!(t.status, CallStatus::Ok | CallStatus::ToolError))
        .take(3)
        .map(|t| {
            let expect = if t.status == CallStatus::Ok {
                "success"
            } else {
                "error"
            };
            serde_json::json!({"tool": t.tool, "arguments": t.arguments, "expect": expect})
        })
        .collect();
    format!("```json\n{}\n```", serde_json::Value::Array(ok))
}

/// The replies a model would give to make these rounds: choice, edits, tests, per round.
pub fn script_for(planned: &[RoundRecord]) -> Vec<Scripted> {
    let mut script = Vec::new();
    for r in planned {
        script.push(Scripted::reply(selection(
            &r.operator.as_ref().unwrap().to_string(),
            &r.targets,
        )));
        script.push(Scripted::reply(blocks(&r.hunks())));
        script.push(Scripted::reply(tests_reply(r)));
    }
    script
}

/// Rounds the rules backend makes on a fresh copy: the scripts replay their edits as if a
/// model had written them.
pub fn rules_rounds(
    source: &Path,
    launch: Option<LaunchConfig>,
    rounds: u32,
    dir: &Path,
) -> Vec<RoundRecord> {
    let work = dir.join("rules");
    init_at(source, &work, launch);
    let out = evolve_with(&work, &options(Backend::Rules, rounds, &[]));
    assert!(
        out.iter()
            .all(|r| r.status == mcpevol::evolve::RoundStatus::Committed),
        "{out:?}"
    );
    let ws = Workspace::open(&work).unwrap();
    (1..=rounds)
        .map(|k| {
            version_record::read_round(&ws, format!("v{k}"))
                .unwrap()
                .unwrap()
        })
        .collect()
}

pub fn memory_server() -> (PathBuf, LaunchConfig) {
    let dir = super::repo().join("servers-npm");
    super::require_npm_install(&dir);
    let catalog = mcpevol::catalog::Catalog::load(&dir.join("servers.toml")).unwrap();
    let entry = catalog
        .servers
        .iter()
        .find(|e| e.package == "@modelcontextprotocol/server-memory")
        .unwrap();
    (entry.package_dir(&dir), entry.launch_config(&dir))
}

pub fn trees(work: &Path) -> Vec<String> {
    let ws = Workspace::open(work).unwrap();
    ws.versions()
        .unwrap()
        .iter()
        .map(|v| ws.tree_id(&v.tag.to_string()).unwrap())
        .collect()
}
