//! The `mcpevol` command line: parses arguments, calls the library, prints, maps errors to exit codes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

use mcpevol::catalog::Catalog;
use mcpevol::inventory::{Inventory, Span};
use mcpevol::server;
use mcpevol::survey::{self, PackageSurvey};

#[derive(Parser)]
#[command(
    name = "mcpevol",
    version,
    about = "Evolve the source code of real MCP servers, version by version"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Find every tool a server package defines in its JS/TS source.
    Anchor {
        /// The package folder (holding package.json).
        dir: PathBuf,
        /// Print one JSON document instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Start the server over stdio and print its live tools/list (every page).
    Tools {
        dir: PathBuf,
        #[arg(long)]
        json: bool,
        /// Seconds the server may take to start and list its tools before its process group is killed.
        #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
        timeout: f64,
        /// Extra arguments passed to the server after its own launch arguments.
        #[arg(last = true)]
        server_args: Vec<String>,
    },
    /// Anchor and list the live tools of every server in a catalog, and compare the two.
    Survey {
        /// A servers.toml; its packages are under node_modules/ beside it.
        #[arg(default_value = "servers-npm/servers.toml")]
        catalog: PathBuf,
        #[arg(long)]
        json: bool,
        #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
        timeout: f64,
    },
}

fn main() -> ExitCode {
    // Die quietly when the reader of our output goes away (`mcpevol anchor . | head`), as
    // command-line tools do, instead of panicking on the failed write.
    // SAFETY: called before any other thread exists; SIG_DFL is always a valid handler.
    unsafe {
        let _ = nix::sys::signal::signal(
            nix::sys::signal::Signal::SIGPIPE,
            nix::sys::signal::SigHandler::SigDfl,
        );
    }
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("MCPEVOL_LOG"))
        .with_writer(std::io::stderr)
        .init();
    match run(Cli::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Anchor { dir, json } => {
            let inventory = mcpevol::anchor::anchor(&dir)?;
            if json {
                print_json(&inventory)?;
            } else {
                print_inventory(&inventory);
            }
        }
        Command::Tools {
            dir,
            json,
            timeout,
            server_args,
        } => {
            let timeout = Duration::try_from_secs_f64(timeout)
                .context("--timeout must be a positive number of seconds")?;
            let runtime =
                tokio::runtime::Runtime::new().context("cannot start the async runtime")?;
            let live =
                runtime.block_on(server::session::list_tools(&dir, &server_args, timeout))?;
            if json {
                print_json(&live)?;
            } else {
                for tool in &live.tools {
                    let description = tool["description"].as_str().unwrap_or("");
                    println!(
                        "{:<32} {}",
                        tool["name"].as_str().unwrap_or("?"),
                        first_line(description, 90)
                    );
                }
            }
        }
        Command::Survey {
            catalog,
            json,
            timeout,
        } => {
            let loaded = Catalog::load(&catalog)?;
            let dir = catalog.parent().unwrap_or(Path::new("."));
            let entries =
                runtime()?.block_on(survey::survey_catalog(&loaded, dir, seconds(timeout)?));
            let packages = survey::by_package(&entries);
            if json {
                print_json(&serde_json::json!({"entries": entries, "packages": packages}))?;
            } else {
                print_surveys(&packages);
            }
            let failed = packages.iter().filter(|s| s.result.is_err()).count();
            if failed > 0 {
                anyhow::bail!(
                    "{failed} of {} packages could not be surveyed",
                    packages.len()
                );
            }
        }
    }
    Ok(())
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

fn seconds(s: f64) -> Result<Duration> {
    Duration::try_from_secs_f64(s).context("--timeout must be a positive number of seconds")
}

fn print_surveys(surveys: &[PackageSurvey]) {
    println!(
        "{:<48} {:>8} {:>5} {:>7} {:>9}  difference",
        "package", "anchored", "live", "recall", "precision"
    );
    for s in surveys {
        match &s.result {
            Ok(c) => {
                let mut diff = Vec::new();
                if !c.missing.is_empty() {
                    diff.push(format!("missing: {}", c.missing.join(", ")));
                }
                if !c.extra.is_empty() {
                    diff.push(format!("extra: {}", c.extra.join(", ")));
                }
                println!(
                    "{:<48} {:>8} {:>5} {:>7.3} {:>9.3}  {}",
                    s.package,
                    c.anchored,
                    c.live,
                    c.recall,
                    c.precision,
                    if diff.is_empty() {
                        "exact".to_string()
                    } else {
                        diff.join("; ")
                    }
                );
            }
            Err(e) => println!("{:<48} failed: {}", s.package, first_line(e, 120)),
        }
    }
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("cannot serialize the output")?;
    println!("{text}");
    Ok(())
}

fn print_inventory(inventory: &Inventory) {
    println!(
        "{:<28} {:<10} {:<34} {:<34} {:>6}  description",
        "tool", "style", "definition", "handler", "params"
    );
    for t in &inventory.tools {
        let handler = t
            .handler
            .as_ref()
            .map_or_else(|| "-".to_string(), show_span);
        let description = first_line(t.description.as_deref().unwrap_or(""), 60);
        println!(
            "{:<28} {:<10} {:<34} {:<34} {:>6}  {description}",
            t.name,
            t.style.as_str(),
            show_span(&t.definition),
            handler,
            t.params.len()
        );
    }
    println!("{} tools", inventory.tools.len());
    for w in &inventory.warnings {
        eprintln!("warning: {w}");
    }
}

fn show_span(s: &Span) -> String {
    format!("{}:{}-{}", s.file, s.start_line, s.end_line)
}

fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max - 1).collect::<String>())
    } else {
        line.to_string()
    }
}
