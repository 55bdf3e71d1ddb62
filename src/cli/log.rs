//! `mcpevol log`: the versions of a workspace, oldest first, with what each round changed.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::history;
use mcpevol::workspace::Workspace;

use super::print_json;

#[derive(clap::Args)]
pub struct LogArgs {
    /// The workspace.
    workdir: PathBuf,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
}

pub fn run(args: LogArgs) -> Result<()> {
    let ws = Workspace::open(&args.workdir)?;
    let entries = history::log(&ws)?;
    let usage = history::total_usage(entries.iter().map(|e| e.usage)).unwrap_or_default();
    let records: Vec<_> = history::versions(&ws)?
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    let mix = history::run_mix(&records);
    if args.json {
        return print_json(&serde_json::json!({ "versions": entries, "usage": usage, "mix": mix }));
    }
    for e in &entries {
        let op = e
            .operator
            .as_ref()
            .map_or("--".to_string(), |o| o.to_string());
        println!(
            "{:<4} {} {:<4} {:>3} passed {:>2} unverifiable  {}",
            e.version,
            &e.commit[..12],
            op,
            e.tests.passed,
            e.tests.unverifiable,
            e.summary
        );
        if let Some(why) = &e.proof.unproven_reason {
            println!("{:26}unproven: {why}", "");
        }
        if e.changes.len() > 1 {
            for c in &e.changes {
                let proof = if c.proof.is_proven() {
                    "proven"
                } else {
                    "unproven"
                };
                println!(
                    "{:26}{} on {} ({}, {proof})",
                    "",
                    c.operator,
                    c.targets
                        .iter()
                        .chain(&c.added)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", "),
                    mcpevol::schema::joined_patterns(&c.patterns, ", ")
                );
            }
        }
        for c in &e.schema_changes {
            let breaking = if c.breaking { " [breaking]" } else { "" };
            println!("{:26}{} {}{breaking}", "", c.tool, c.describe());
        }
    }
    if let Some(tv) = mix.tv_distance {
        println!(
            "mix: {} events, total-variation distance {tv:.3} from {}",
            mix.events,
            mix.source.as_deref().unwrap_or("the target")
        );
    }
    if usage.total_tokens > 0 {
        println!(
            "tokens: {} prompt + {} completion = {}",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        );
    }
    Ok(())
}
