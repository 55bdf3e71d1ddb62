//! Creating a workspace: the package's files and dependencies, its launch settings, its live
//! tool list and the first answers of every tool, committed as version `v0`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use crate::version_record::{self, RoundRecord};
use crate::workspace::{self, Source, Version, VersionTag, Workspace};
use mcpevol_core::listed::ListedTool;
use mcpevol_oracle::server::launch::{self, CONFIG_PATH};
use mcpevol_oracle::server::{LaunchConfig, Session};
use mcpevol_oracle::validate::{self, Baseline};

pub struct InitOptions {
    /// Launch settings to use as they are, instead of reading them from the package.
    pub launch: Option<LaunchConfig>,
    /// Arguments appended to the server's launch arguments.
    pub args: Vec<String>,
    pub env: BTreeMap<String, String>,
    pub timeout: Duration,
    pub stages: Vec<crate::evolve::Stage>,
}

impl InitOptions {
    /// The command line's defaults: no extra arguments or environment, the default timeout
    /// and stages; `launch` as given, or (None) read from the package.
    pub fn new(launch: Option<LaunchConfig>) -> InitOptions {
        InitOptions {
            launch,
            args: Vec::new(),
            env: BTreeMap::new(),
            timeout: mcpevol_oracle::server::DEFAULT_TIMEOUT,
            stages: crate::evolve::default_stages(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum InitError {
    #[error("{0} already exists and is not empty; give a new folder for the workspace")]
    NotEmpty(String),
    #[error(transparent)]
    Workspace(#[from] workspace::WorkspaceError),
    #[error(transparent)]
    Server(#[from] mcpevol_oracle::server::ServerError),
    #[error(transparent)]
    Record(#[from] version_record::RecordError),
    #[error("cannot write {path}: {source}")]
    Write {
        path: String,
        source: std::io::Error,
    },
}

/// Makes `workdir` a workspace holding `source` at version v0. On failure the folder is removed
/// again, so that a retry starts clean.
pub async fn init(source: &str, workdir: &Path, opts: &InitOptions) -> Result<Version, InitError> {
    if workdir.exists()
        && std::fs::read_dir(workdir)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(InitError::NotEmpty(workdir.display().to_string()));
    }
    let result = build(source, workdir, opts).await;
    if result.is_err() {
        let _ = std::fs::remove_dir_all(workdir);
    }
    result
}

async fn build(source: &str, workdir: &Path, opts: &InitOptions) -> Result<Version, InitError> {
    workspace::materialize(&Source::parse(source)?, workdir)?;
    let mut config = match &opts.launch {
        Some(given) => given.clone(),
        None => {
            LaunchConfig::for_package(workdir).map_err(mcpevol_oracle::server::ServerError::from)?
        }
    };
    config.args.extend(opts.args.iter().cloned());
    config.env.extend(opts.env.clone());
    let config_path = workdir.join(CONFIG_PATH);
    let settings = config_path.parent().expect("has a parent");
    // A Python install whose cut-off was relaxed says so where its launch settings are read.
    let note = workspace::pypi::read_resolution(settings)
        .and_then(|r| r.summary())
        .map(|s| format!("# {s} (see {})\n", workspace::pypi::RESOLUTION_FILE))
        .unwrap_or_default();
    std::fs::create_dir_all(settings)
        .and_then(|_| {
            std::fs::write(
                &config_path,
                note + &toml::to_string(&config).expect("launch settings serialize"),
            )
        })
        .map_err(|source| InitError::Write {
            path: CONFIG_PATH.into(),
            source,
        })?;

    let mut session = Session::start(workdir, &config, &[], opts.timeout).await?;
    let listed = session.list_tools().await;
    let tmp = session.tmp_path().map(Path::to_path_buf);
    session.close().await;
    let mut live = listed?;
    // The first answers of every tool, in two fresh sessions as every later version gets them.
    let baseline = Baseline::observe(
        workdir,
        &config,
        &live.tools,
        opts.timeout,
        &validate::CallHints::default(),
        &Baseline::default(),
    )
    .await?;
    let tests = validate::first_version(&baseline);
    let kept = as_the_round_observes(workdir, &config, &live.tools, opts, &tests, baseline).await?;
    version_record::scrub_tmp(&mut live, tmp.as_deref());

    let name = launch::package_name(workdir);
    let version = live.server["version"]
        .as_str()
        .map(|v| format!("@{v}"))
        .unwrap_or_default();
    let round = RoundRecord::original(
        format!("original {name}{version}, {} tools", live.tools.len()),
        tests,
    );
    version_record::write(workdir, &round, &live, &[])?;
    let ws = Workspace::create(workdir)?;
    let v0 = ws.commit_version(VersionTag::ORIGINAL, &round.commit_message())?;
    // The first round judges against these answers, without starting v0 again.
    crate::version_record::observed::keep(&ws, &v0.commit, opts.timeout, &kept)?;
    ws.set_stage_tags(&opts.stages)?;
    Ok(v0)
}

/// The answers the first round judges against. It plans its calls from v0's checks: where
/// that plan differs from the one `baseline` was observed with (a tool that failed goes
/// later), v0 is observed as the round would observe it, so that the answers kept for it are
/// the ones the round would get.
async fn as_the_round_observes(
    workdir: &Path,
    config: &LaunchConfig,
    tools: &[ListedTool],
    opts: &InitOptions,
    tests: &[validate::TestResult],
    baseline: Baseline,
) -> Result<Baseline, InitError> {
    let hints = validate::CallHints::from_tests(tests);
    let default = validate::CallHints::default();
    if Baseline::first_plan(tools, &hints) == Baseline::first_plan(tools, &default) {
        return Ok(baseline);
    }
    let carried = Baseline::default();
    Ok(Baseline::observe(workdir, config, tools, opts.timeout, &hints, &carried).await?)
}
