//! Real npm servers of servers-npm/ evolve with the rules backend, every round validated
//! against the running server. A whole sweep (`scripts/test.sh --sweep`) takes every package
//! to v5; the suite takes every thirteenth package (two of them) to v3, a sample that keeps CI
//! short and still spawns real servers. `cargo run --release --example seed_sweep --
//! servers-npm/servers.toml 2026` also prints what was proven.

use crate::common;

use mcpevol::catalog::Catalog;
use mcpevol::evolve::{self, Backend, EvolveOptions};
use mcpevol::init::{InitOptions, init};
use mcpevol::workspace::Workspace;

/// Servers evolved at once: most of a round is waiting on node, not computing.
const PARALLEL: usize = 3;

#[test]
fn real_servers_reach_their_last_version_with_the_rules_backend() {
    let dir = common::repo().join("servers-npm");
    common::require_npm_install(&dir);
    let catalog = Catalog::load(&dir.join("servers.toml")).unwrap();
    let mut packages = Vec::new();
    for entry in &catalog.servers {
        if !packages
            .iter()
            .any(|(_, e): &(String, &mcpevol::catalog::CatalogEntry)| e.package == entry.package)
        {
            packages.push((entry.id.clone(), entry));
        }
    }
    assert!(packages.len() >= 12);
    let packages = common::sample(packages, 13);
    let last = common::sweep_rounds();
    let scratch = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    let results: Vec<(String, Result<Vec<String>, String>)> = rt.block_on(async {
        let mut out = Vec::new();
        for chunk in packages.chunks(PARALLEL) {
            let runs = chunk.iter().map(|(id, entry)| {
                let work = scratch.path().join(id);
                let source = entry.package_dir(&dir).to_string_lossy().into_owned();
                let launch = entry.launch_config(&dir);
                async move {
                    let init_opts = InitOptions::new(Some(launch));
                    let opts = EvolveOptions::new(last, 2026);
                    let result = async {
                        init(&source, &work, &init_opts)
                            .await
                            .map_err(|e| e.to_string())?;
                        let rounds = evolve::evolve(&work, &Backend::Rules, &opts, |_| {})
                            .await
                            .map_err(|e| e.to_string())?;
                        Ok(rounds
                            .iter()
                            .map(|r| {
                                format!(
                                    "{} {} {}",
                                    r.version,
                                    format!("{:?}", r.status).to_lowercase(),
                                    r.operator.as_ref().map_or("-", |o| o.as_str())
                                )
                            })
                            .collect())
                    };
                    (id.clone(), result.await)
                }
            });
            out.extend(futures::future::join_all(runs).await);
        }
        out
    });
    let mut failures = Vec::new();
    for (id, result) in &results {
        match result {
            Ok(rounds) => {
                println!("{id:<22} {}", rounds.join(", "));
                let ws = Workspace::open(&scratch.path().join(id)).unwrap();
                let tags: Vec<String> = ws
                    .versions()
                    .unwrap()
                    .into_iter()
                    .map(|v| v.tag.to_string())
                    .collect();
                // Failed tries are allowed (they are rolled back, recorded and retried); the
                // server must still reach its last version.
                if tags.len() != last as usize + 1 {
                    failures.push(format!("{id}: {rounds:?}"));
                }
                if !ws.dirty_paths().unwrap().is_empty() {
                    failures.push(format!("{id}: dirty after evolving"));
                }
            }
            Err(e) => failures.push(format!("{id}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "servers that did not reach v{last}:\n{}",
        failures.join("\n")
    );
}
