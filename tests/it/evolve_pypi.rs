//! Python servers evolve like npm ones: every operator commits on the Python fixtures of each
//! registration style, and three real PyPI servers (a reference server routed by `match`, one
//! routed by `if`, one of FastMCP decorators) reach v5 with the rules backend. That is a whole
//! sweep (`scripts/test.sh --sweep`); the suite runs a sample (`common::sample`).

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use mcpevol::catalog::Catalog;
use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::init::{InitOptions, init};
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Runtime::new().unwrap()
}

/// A Python server imports the SDK, pydantic and its own dependencies at each start (1-3 s of
/// CPU); several start at once here, on machines shared with other builds.
const START_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(90);

fn init_options(launch: Option<mcpevol::server::LaunchConfig>) -> InitOptions {
    InitOptions {
        timeout: START_TIMEOUT,
        ..InitOptions::new(launch)
    }
}

fn options(rounds: u32, seed: u64, operators: &[&str]) -> EvolveOptions {
    EvolveOptions {
        operators: operators
            .iter()
            .map(|o| mcpevol::operators::OperatorId::parse(o))
            .collect(),
        timeout: START_TIMEOUT,
        ..EvolveOptions::new(rounds, seed)
    }
}

const OPS: [&str; 11] = [
    "O1", "O2", "O3", "O4", "O5", "O6", "O7", "O8", "O9", "O10", "O11",
];

/// Each Python fixture with the operators that do not fit it, and why (checked to fail with
/// that reason rather than committing something else).
const FIXTURES: &[(&str, &[(&str, &str)])] = &[
    ("fastmcp-decorators", &[]),
    ("lowlevel-match", &[]),
    ("lowlevel-if", &[("O7", "no optional parameter")]),
    (
        "cross-module",
        &[
            ("O5", "router in another module"),
            ("O7", "no optional parameter"),
            ("O8", "no optional parameter"),
        ],
    ),
    (
        "add-tool",
        &[
            ("O6", "does not show its parameters"),
            ("O7", "no optional parameter"),
            ("O9", "already says everything its schema shows"),
            ("O10", "does not show its parameters"),
            ("O11", "does not show its parameters"),
        ],
    ),
    (
        "helper-decorator",
        &[
            // A tool named after its function by a decorator that takes no `name=` is not
            // renamed or copied; `shout` shares its registration with `text_shout`.
            ("O1", "its name is not written in its definition"),
            ("O2", "its name is not written in its definition"),
            ("O4", "its name is not written in its definition"),
            ("O7", "no optional parameter"),
            ("O9", "already says everything its schema shows"),
            ("O11", "already says everything its schema shows"),
        ],
    ),
    (
        "handler-base",
        &[
            // Listed by a comprehension over a registry: no registration site is written.
            ("O1", "no registration site to copy"),
            ("O3", "no registration site to remove"),
            ("O4", "no registration site to copy"),
            ("O5", "router in another module"),
            ("O7", "no optional parameter"),
            ("O8", "no optional parameter"),
            ("O9", "already says everything its schema shows"),
            ("O11", "already says everything its schema shows"),
        ],
    ),
    (
        "handler-class",
        &[
            // Its registration is a method call on an instance: no copy of it names a new tool.
            ("O1", "its name is not written where it is registered"),
            ("O4", "its name is not written where it is registered"),
            ("O7", "no optional parameter"),
        ],
    ),
];

/// Puts a workspace back at v0, its later versions' tags deleted.
fn back_to_v0(work: &std::path::Path) {
    common::git(work, &["reset", "-q", "--hard", "v0"]);
    let tags = common::git(work, &["tag", "--list", "v*"]);
    for tag in String::from_utf8_lossy(&tags.stdout).lines() {
        if tag != "v0" {
            common::git(work, &["tag", "-d", tag]);
        }
    }
}

#[test]
fn every_operator_commits_on_every_python_registration_style_it_fits() {
    common::python_fixtures();
    let rt = runtime();
    let dir = tempfile::tempdir().unwrap();
    let runs = FIXTURES.iter().enumerate().map(|(f, (fixture, unfit))| {
        let work = dir.path().join(fixture);
        let source = common::repo().join("fixtures/python").join(fixture);
        async move {
            let mut out: Vec<(String, Result<(), String>)> = Vec::new();
            init(&source.to_string_lossy(), &work, &init_options(None))
                .await
                .unwrap_or_else(|e| panic!("{fixture}: {e}"));
            // A whole sweep runs each operator on every fixture; the sample gives each operator
            // one fixture, in turn.
            let sampled = OPS.iter().enumerate();
            let sampled = sampled.filter(|(o, _)| common::whole_sweep() || o % FIXTURES.len() == f);
            for (_, &op) in sampled {
                // Each operator on the original: earlier rounds' aliases would share schemas.
                back_to_v0(&work);
                let opts = options(1, 3, &[op]);
                let rounds = evolve::evolve(&work, &Backend::Rules, &opts, |_| {}).await;
                let expected_unfit = unfit.iter().find(|(o, _)| *o == op);
                let verdict = match (rounds.as_ref().map(|r| r.first()), expected_unfit) {
                    (Ok(Some(r)), None) if r.status == RoundStatus::Committed => {
                        let ws = Workspace::open(&work).unwrap();
                        let round = version_record::read_round(&ws, r.version).unwrap().unwrap();
                        if round.operator.as_ref().map(|o| o.as_str()) == Some(op) {
                            Ok(())
                        } else {
                            Err(format!("committed {:?}", round.operator))
                        }
                    }
                    (Ok(Some(r)), Some((_, why)))
                        if r.status == RoundStatus::Failed
                            && r.reason
                                .as_deref()
                                .is_some_and(|reason| reason.contains(why)) =>
                    {
                        Ok(())
                    }
                    (other, _) => Err(format!("{:?}", other.map_err(|e| e.to_string()))),
                };
                out.push((format!("{fixture} {op}"), verdict));
            }
            let ws = Workspace::open(&work).unwrap();
            assert!(ws.dirty_paths().unwrap().is_empty(), "{fixture} is dirty");
            out
        }
    });
    let results = rt.block_on(futures::future::join_all(runs));
    let failures: Vec<String> = results
        .into_iter()
        .flatten()
        .filter_map(|(what, v)| v.err().map(|e| format!("{what}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn real_python_servers_reach_their_last_version_with_the_rules_backend() {
    let dir = common::repo().join("servers-pypi");
    let catalog = Catalog::load(&dir.join("servers.toml")).unwrap();
    // A whole sweep: three servers to v5; the sample: the one with state (a database), to v3.
    let chosen = common::sample(vec!["sqlite", "time", "duckduckgo"], 3);
    let last = common::sweep_rounds();
    let entries: Vec<&mcpevol::catalog::CatalogEntry> = catalog
        .servers
        .iter()
        .filter(|e| chosen.contains(&e.id.as_str()))
        .collect();
    assert_eq!(entries.len(), chosen.len());
    for e in &entries {
        assert!(
            e.package_dir(&dir).join(".venv/bin/python").exists(),
            "{} is not installed: run scripts/install-servers.sh",
            e.package
        );
    }
    let scratch = tempfile::tempdir().unwrap();
    let rt = runtime();
    let runs = entries.iter().map(|entry| {
        let work = scratch.path().join(&entry.id);
        let source = entry.package_dir(&dir).to_string_lossy().into_owned();
        let launch = entry.launch_config(&dir);
        async move {
            let result = async {
                init(&source, &work, &InitOptions::new(Some(launch)))
                    .await
                    .map_err(|e| e.to_string())?;
                evolve::evolve(&work, &Backend::Rules, &options(last, 2026, &[]), |_| {})
                    .await
                    .map_err(|e| e.to_string())
            };
            let result = result.await;
            (entry.id.clone(), work, result)
        }
    });
    let mut failures = Vec::new();
    let mut operators: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (id, work, result) in rt.block_on(futures::future::join_all(runs)) {
        if let Err(e) = result {
            failures.push(format!("{id}: {e}"));
            continue;
        }
        let ws = Workspace::open(&work).unwrap();
        let versions = ws.versions().unwrap();
        if versions.len() != last as usize + 1 {
            failures.push(format!("{id}: reached {:?}", versions.last()));
        }
        for v in versions.iter().skip(1) {
            let round = version_record::read_round(&ws, v.tag).unwrap().unwrap();
            operators
                .entry(id.clone())
                .or_default()
                .extend(round.operator.as_ref().map(|o| o.to_string()));
            let tally = round.tally();
            if tally.failed > 0 {
                failures.push(format!("{id} {}: {} checks failed", v.tag, tally.failed));
            }
        }
        // The environment is linked, never committed; the sources are what changed.
        let tracked = common::git(&work, &["ls-files"]);
        let tracked = String::from_utf8_lossy(&tracked.stdout);
        assert!(
            !tracked.contains(".venv"),
            "{id}: the environment is tracked"
        );
        let last_tag = format!("v{last}");
        let changed = common::git(
            &work,
            &["diff", "--name-only", "v0", &last_tag, "--", "*.py"],
        );
        assert!(
            !changed.stdout.is_empty(),
            "{id}: no Python file changed from v0 to {last_tag}"
        );
    }
    println!("{operators:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
