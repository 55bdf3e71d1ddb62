//! `mcpevol diff`: the schema-level changes between two versions, classified.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::history;
use mcpevol::workspace::Workspace;

use super::print_json;

#[derive(clap::Args)]
pub struct DiffArgs {
    /// The workspace.
    workdir: PathBuf,
    /// The older version: a version tag (v0), a stage tag (early) or any git revision.
    rev_a: String,
    /// The newer version, written the same ways.
    rev_b: String,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
}

pub fn run(args: DiffArgs) -> Result<()> {
    let ws = Workspace::open(&args.workdir)?;
    let changes = history::diff(&ws, &args.rev_a, &args.rev_b)?;
    if args.json {
        return print_json(&serde_json::json!({ "changes": changes }));
    }
    for c in &changes {
        let pattern = c.pattern.map_or("--".to_string(), |p| p.to_string());
        let breaking = if c.breaking { "breaking" } else { "" };
        println!("{pattern:<4} {breaking:<9} {} {}", c.tool, c.describe());
    }
    println!("{} changes", changes.len());
    Ok(())
}
