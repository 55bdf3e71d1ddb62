//! `mcpevol evolve`: N rounds on a workspace, each printed as it ends; the exit status says
//! whether all of them committed.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::evolve::{self, EvolveOptions};
use mcpevol::operators::OperatorId;
use mcpevol::workspace::Workspace;

use super::options::EvolveArgs;
use super::{isolate, print_json, runtime};

#[derive(clap::Args)]
pub struct EvolveCommandArgs {
    /// The workspace (made by `mcpevol init`); rounds go on from its latest version.
    workdir: PathBuf,
    /// Versions to make: each round that passes every check is committed as the next vK.
    #[arg(long)]
    rounds: u32,
    /// Force the operator (repeatable: one per round, in turn).
    #[arg(long = "operator")]
    operators: Vec<OperatorId>,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    evolve: EvolveArgs,
}

pub fn run(args: EvolveCommandArgs) -> Result<()> {
    let EvolveCommandArgs {
        workdir,
        rounds,
        operators,
        json,
        evolve: options,
    } = args;
    isolate(options.sandbox);
    // Bad options (a malformed --mix) are refused before the workspace is touched.
    let opts = EvolveOptions {
        operators,
        ..options.options(rounds)?
    };
    if let Some(recovery) = Workspace::open(&workdir)?.recover()? {
        eprintln!("recovered: {recovery}");
    }
    let backend = options.spec().build(None)?;
    let outcomes = runtime()?.block_on(evolve::evolve_until_interrupted(
        &workdir,
        &backend,
        &opts,
        |o| {
            if !json {
                print_outcome(o);
            }
        },
    ))?;
    let committed = outcomes
        .iter()
        .filter(|o| o.status == evolve::RoundStatus::Committed)
        .count();
    let failed = outcomes.len() - committed;
    if json {
        print_json(&serde_json::json!({
            "rounds": outcomes,
            "committed": committed,
            "failed": failed,
        }))?;
    }
    if committed < rounds as usize {
        let last = outcomes
            .iter()
            .rev()
            .find(|o| o.status == evolve::RoundStatus::Failed);
        return Err(super::exit::RoundsFailed {
            message: format!(
                "{committed} of {rounds} rounds committed, {failed} tries failed; the last: {} after {} attempts: {}; the workspace stays at the last good version",
                last.map_or("?".to_string(), |o| o.version.to_string()),
                last.map_or(0, |o| o.attempts),
                last.and_then(|o| o.reason.as_deref())
                    .unwrap_or("no reason given")
            ),
            endpoint: last.is_some_and(|o| o.endpoint_failed),
        }
        .into());
    }
    if failed > 0 && !json {
        eprintln!(
            "{failed} failed tries were rolled back and retried; they are recorded in round.json (`failed_rounds`)"
        );
    }
    Ok(())
}

/// One line per round on stderr, as it ends: stdout stays for `--json`.
fn print_outcome(o: &evolve::RoundOutcome) {
    let tools = o.tools.join(", ");
    let op = o
        .operator
        .as_ref()
        .map_or("--".to_string(), OperatorId::to_string);
    match &o.commit {
        Some(c) => eprintln!(
            "{} {} {op} {tools} (attempts: {})",
            o.version,
            &c[..12],
            o.attempts
        ),
        None => eprintln!(
            "{} failed {op}: {}",
            o.version,
            o.reason.as_deref().unwrap_or("")
        ),
    }
}
