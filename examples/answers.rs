//! Observes the first version of every server of a catalog (default `servers-npm/servers.toml`)
//! twice: with the plain calls mcpevol made before the search for calls that answer (required
//! arguments built from the schema, in name order; a crash ends the session's calls), and as
//! `validate::Baseline::observe` does now. Prints per server the tools that answer (status ok)
//! out of the tools listed, before and after, and the time each observation took.
//!
//!     cargo run --release --example answers -- [CATALOG] [--verbose]
//!
//! `--verbose` also lists, per server, each tool that answers only after, with the call found,
//! and each that still fails, with its answer. A catalog may name packages anywhere: `package`
//! is looked up under `node_modules/` beside the catalog. A measurement, not a test: its
//! numbers are quoted in README.md.

use std::path::PathBuf;
use std::time::Instant;

use mcpevol::catalog::Catalog;
use mcpevol::listed::ListedTool;
use mcpevol::server::session::CallStatus;
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig, Session};
use mcpevol::validate::{
    Baseline, CALL_TIMEOUT, CallHints, Observation, PlannedCall, arguments_for, in_call_order,
    observe_calls,
};
use serde_json::Value;

/// What one observation gave: each tool's answer, and the seconds it took.
struct Observed {
    calls: Vec<(String, Observation)>,
    secs: f64,
}

impl Observed {
    fn answering(&self) -> usize {
        self.calls
            .iter()
            .filter(|(_, o)| o.status == CallStatus::Ok)
            .count()
    }

    fn status(&self, tool: &str) -> Option<&Observation> {
        self.calls.iter().find(|(n, _)| n == tool).map(|(_, o)| o)
    }
}

/// The calls as they were made before: schema-built, in name order, and nothing after a crash.
async fn plain(
    root: &std::path::Path,
    config: &LaunchConfig,
    tools: &[ListedTool],
) -> anyhow::Result<Observed> {
    let started = Instant::now();
    let planned: Vec<PlannedCall> = in_call_order(tools)
        .into_iter()
        .map(|(name, schema)| PlannedCall::new(name, arguments_for(schema)))
        .collect();
    let (observed, _) =
        observe_calls(root, config, &planned, DEFAULT_TIMEOUT, CALL_TIMEOUT).await?;
    let mut crashed = false;
    let calls = planned
        .into_iter()
        .zip(observed)
        .map(|(p, mut o)| {
            // The sessions stopped at a crash then: what came after was never called.
            if crashed {
                o.status = CallStatus::Timeout;
            }
            crashed |= o.status == CallStatus::Crashed;
            (p.name, o)
        })
        .collect();
    Ok(Observed {
        calls,
        secs: started.elapsed().as_secs_f64(),
    })
}

async fn now(
    root: &std::path::Path,
    config: &LaunchConfig,
    tools: &[ListedTool],
) -> anyhow::Result<Observed> {
    let started = Instant::now();
    let baseline = Baseline::observe(
        root,
        config,
        tools,
        DEFAULT_TIMEOUT,
        &CallHints::default(),
        &Baseline::default(),
    )
    .await?;
    Ok(Observed {
        calls: baseline.calls.into_iter().collect(),
        secs: started.elapsed().as_secs_f64(),
    })
}

fn short(text: &str) -> String {
    let line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    line.chars().take(110).collect()
}

fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let catalog_path = args
        .iter()
        .find(|a| a.ends_with(".toml"))
        .map_or_else(|| PathBuf::from("servers-npm/servers.toml"), PathBuf::from);
    let dir = catalog_path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .to_path_buf();
    let catalog = Catalog::load(&catalog_path)?;
    let rt = tokio::runtime::Runtime::new()?;
    println!(
        "{:<26} {:>6} {:>7} {:>7} {:>9} {:>9}",
        "server", "listed", "before", "after", "before s", "after s"
    );
    let (mut listed, mut before, mut after, mut secs_before, mut secs_after) = (0, 0, 0, 0.0, 0.0);
    for entry in &catalog.servers {
        let root = entry.package_dir(&dir);
        let config = entry.launch_config(&dir);
        let result: anyhow::Result<(usize, Observed, Observed)> = rt.block_on(async {
            let mut session = Session::start(&root, &config, &[], DEFAULT_TIMEOUT).await?;
            let live = session.list_tools().await;
            session.close().await;
            let tools = live?.tools;
            let old = plain(&root, &config, &tools).await?;
            let new = now(&root, &config, &tools).await?;
            Ok((tools.len(), old, new))
        });
        let (count, old, new) = match result {
            Ok(r) => r,
            Err(e) => {
                println!("{:<26} error: {}", entry.id, short(&e.to_string()));
                continue;
            }
        };
        println!(
            "{:<26} {:>6} {:>7} {:>7} {:>9.1} {:>9.1}",
            entry.id,
            count,
            old.answering(),
            new.answering(),
            old.secs,
            new.secs
        );
        if verbose {
            for (tool, seen) in &new.calls {
                let was_ok = old.status(tool).is_some_and(|o| o.status == CallStatus::Ok);
                match (was_ok, seen.status) {
                    (false, CallStatus::Ok) => {
                        println!("    + {tool} {}", Value::Object(seen.arguments.clone()))
                    }
                    (true, status) if status != CallStatus::Ok => {
                        println!("    - {tool} {status:?}: {}", short(&seen.text()))
                    }
                    (false, status) => println!("      {tool} {status:?}: {}", short(&seen.text())),
                    _ => {}
                }
            }
        }
        listed += count;
        before += old.answering();
        after += new.answering();
        secs_before += old.secs;
        secs_after += new.secs;
    }
    println!(
        "\nall: {after} of {listed} tools answer after ({before} before); observing took {secs_after:.0} s ({secs_before:.0} s before)"
    );
    Ok(())
}
