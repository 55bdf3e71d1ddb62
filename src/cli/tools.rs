//! `mcpevol tools`: the live tools/list of a server, started over stdio.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context, Result};
use mcpevol::server::{self, sandbox::Isolation};

use super::{first_line, isolate, print_json, runtime};

#[derive(clap::Args)]
pub struct ToolsArgs {
    /// The server package: a folder with package.json, or a workspace.
    dir: PathBuf,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
    /// Seconds the server may take to start and list its tools before its process group is killed.
    #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Extra arguments passed to the server after its own launch arguments.
    #[arg(last = true)]
    server_args: Vec<String>,
    /// Isolate the server (no network, read-only files outside its scratch folder);
    /// `off` runs it without namespaces (its environment is scrubbed all the same).
    #[arg(long, value_enum, default_value_t = Isolation::On)]
    sandbox: Isolation,
}

pub fn run(args: ToolsArgs) -> Result<()> {
    isolate(args.sandbox);
    let timeout = Duration::try_from_secs_f64(args.timeout)
        .context("--timeout must be a positive number of seconds")?;
    let live = runtime()?.block_on(server::session::list_tools(
        &args.dir,
        &args.server_args,
        timeout,
    ))?;
    if args.json {
        return print_json(&live);
    }
    for tool in &live.tools {
        let description = tool.description().unwrap_or("");
        println!(
            "{:<32} {}",
            tool.name().unwrap_or("?"),
            first_line(description, 90)
        );
    }
    Ok(())
}
