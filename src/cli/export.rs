//! `mcpevol export <WORKDIR|DIR> --stages early,middle,late --into OUT`.

use std::path::PathBuf;

use anyhow::Result;
use clap::Args;

use mcpevol::{batch, export};

#[derive(Args)]
pub struct ExportArgs {
    /// A workspace, or a batch folder (every server in it).
    source: PathBuf,
    /// Stage tags (or any version tags) to export, separated by commas.
    #[arg(long, default_value = "early,middle,late", value_delimiter = ',')]
    stages: Vec<String>,
    /// A new or empty folder: one folder per server and stage, and mcp.json.
    #[arg(long)]
    into: PathBuf,
}

pub fn run(args: ExportArgs) -> Result<()> {
    let workspaces = batch::workspaces(&args.source)?;
    for name in &workspaces.missing {
        eprintln!(
            "note: server `{name}` has no workspace (it did not install) and is not exported"
        );
    }
    let mcp = export::export(&workspaces.found, &args.stages, &args.into)?;
    for (key, server) in &mcp.mcp_servers {
        println!("{key:<40} {}", server.cwd);
    }
    println!(
        "{} stage folders; {}",
        mcp.mcp_servers.len(),
        args.into.join(export::MCP_JSON).display()
    );
    Ok(())
}
