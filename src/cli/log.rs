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
    if args.json {
        return print_json(&serde_json::json!({ "versions": entries, "usage": usage }));
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
        for c in &e.schema_changes {
            let breaking = if c.breaking { " [breaking]" } else { "" };
            println!("{:26}{} {}{breaking}", "", c.tool, c.describe());
        }
    }
    if usage.total_tokens > 0 {
        println!(
            "tokens: {} prompt + {} completion = {}",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        );
    }
    Ok(())
}
