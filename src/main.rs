//! The `mcpevol` command line: parses arguments, calls the library, prints, maps errors to exit codes.
//!
//! Over 500 lines: the smaller commands (anchor, tools, survey, init, log, diff, operators) are
//! still here, each a short arm of `run`; `batch`, `export`, `report`, the evolve options and
//! the exit codes have their own modules under `cli/`. Moving the rest there is open work.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

mod cli;
use cli::evolve::seconds;

use mcpevol::catalog::Catalog;
use mcpevol::inventory::{Inventory, Span};
use mcpevol::server;
use mcpevol::server::sandbox::Isolation;
use mcpevol::survey::{self, PackageSurvey};
use mcpevol::workspace::Workspace;
use mcpevol::{evolve, init, operators, report};

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
        /// Isolate the server (no network, read-only files outside its scratch folder);
        /// `off` runs it without namespaces (its environment is scrubbed all the same).
        #[arg(long, value_enum, default_value_t = Isolation::On)]
        sandbox: Isolation,
    },
    /// Create a workspace from an npm package (name@version) or a package folder, as version v0.
    Init {
        source: String,
        workdir: PathBuf,
        /// An argument appended to the server's launch arguments (repeatable).
        #[arg(long = "arg", allow_hyphen_values = true)]
        args: Vec<String>,
        /// An environment variable for the server, K=V (repeatable). `{tmp}` stands for a fresh folder.
        #[arg(long = "env", value_parser = parse_env)]
        env: Vec<(String, String)>,
        #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
        timeout: f64,
        #[arg(long)]
        json: bool,
        /// Isolate the server (no network, read-only files outside its scratch folder);
        /// `off` runs it without namespaces (its environment is scrubbed all the same).
        #[arg(long, value_enum, default_value_t = Isolation::On)]
        sandbox: Isolation,
    },
    /// Run N rounds of evolution on a workspace; each validated round is committed as vK.
    Evolve {
        workdir: PathBuf,
        #[arg(long)]
        rounds: u32,
        /// Force the operator (repeatable: one per round, in turn).
        #[arg(long = "operator")]
        operators: Vec<String>,
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        evolve: cli::evolve::EvolveArgs,
    },
    /// The versions of a workspace, oldest first.
    Log {
        workdir: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The schema-level changes between two versions, classified.
    Diff {
        workdir: PathBuf,
        rev_a: String,
        rev_b: String,
        #[arg(long)]
        json: bool,
    },
    /// The mutation operators.
    Operators {
        #[command(subcommand)]
        command: OperatorsCommand,
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
        /// Isolate the server (no network, read-only files outside its scratch folder);
        /// `off` runs it without namespaces (its environment is scrubbed all the same).
        #[arg(long, value_enum, default_value_t = Isolation::On)]
        sandbox: Isolation,
    },
    /// Evolve every server of a manifest, several at once, one workspace each (resumable).
    Batch(cli::batch::BatchArgs),
    /// Write stages of a workspace or batch as runnable folders, with an mcp.json for clients.
    Export(cli::export::ExportArgs),
    /// Write a report of a workspace or batch: one self-contained HTML page, or Markdown.
    Report(cli::report::ReportArgs),
}

#[derive(Subcommand)]
enum OperatorsCommand {
    /// List the built-in operators and those of --operators folders.
    List {
        #[arg(long)]
        json: bool,
        /// A folder of your own operator files (repeatable).
        #[arg(long = "operators")]
        operator_dirs: Vec<PathBuf>,
    },
    /// Check operator files (a file or a folder): front matter, contract, prompt placeholders.
    Check { path: PathBuf },
    /// Print a commented template for a new operator file.
    New { id: String, name: String },
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| format!("`{s}` is not K=V"))
}

/// Ends quietly when the reader of our output goes away (`mcpevol anchor . | head`), as
/// command-line tools do. SIGPIPE itself stays ignored (Rust's default): a server that dies
/// while we write to its stdin must give an error we handle, not kill mcpevol mid-round.
fn quiet_on_broken_stdout() {
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default_hook(info);
    }));
}

fn main() -> ExitCode {
    quiet_on_broken_stdout();
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::from_env("MCPEVOL_LOG"))
        .with_writer(std::io::stderr)
        .init();
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        let _ = e.print();
        // --help and --version print to stdout and succeed; anything else is a usage error.
        let code = if e.use_stderr() {
            cli::exit::USAGE
        } else {
            cli::exit::SUCCESS
        };
        std::process::exit(code.into())
    });
    match run(cli) {
        Ok(()) => ExitCode::from(cli::exit::SUCCESS),
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(cli::exit::code_for(&e))
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
            sandbox,
        } => {
            isolate(sandbox);
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
        Command::Init {
            source,
            workdir,
            args,
            env,
            timeout,
            json,
            sandbox,
        } => {
            isolate(sandbox);
            let opts = init::InitOptions {
                launch: None,
                args,
                env: env.into_iter().collect(),
                timeout: seconds(timeout)?,
                stages: evolve::default_stages(),
            };
            let v0 = runtime()?.block_on(init::init(&source, &workdir, &opts))?;
            if json {
                print_json(&v0)?;
            } else {
                println!("{} {} {}", v0.tag, &v0.commit[..12], workdir.display());
            }
        }
        Command::Evolve {
            workdir,
            rounds,
            operators,
            json,
            evolve: args,
        } => {
            isolate(args.sandbox);
            if let Some(recovery) = Workspace::open(&workdir)?.recover()? {
                eprintln!("recovered: {recovery}");
            }
            let mut opts = args.options(args.spec().build(None)?, rounds)?;
            opts.operators = operators;
            let outcomes = runtime()?.block_on(evolve_until_interrupted(&workdir, &opts, json))?;
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
                return Err(cli::exit::RoundsFailed {
                    message: format!(
                        "{committed} of {rounds} rounds committed, {failed} tries failed; the last: {} after {} attempts: {}; the workspace stays at the last good version",
                        last.map_or("?", |o| o.version.as_str()),
                        last.map_or(0, |o| o.attempts),
                        last.and_then(|o| o.reason.as_deref())
                            .unwrap_or("no reason given")
                    ),
                    endpoint: last.is_some_and(|o| o.endpoint_failed),
                }
                .into());
            } else if failed > 0 && !json {
                eprintln!(
                    "{failed} failed tries were rolled back and retried; they are recorded in round.json (`failed_rounds`)"
                );
            }
        }
        Command::Log { workdir, json } => {
            let ws = Workspace::open(&workdir)?;
            let entries = report::log(&ws)?;
            if json {
                let usage = report::total_usage(&entries);
                print_json(&serde_json::json!({ "versions": entries, "usage": usage }))?;
            } else {
                for e in &entries {
                    let op = e.operator.as_deref().unwrap_or("--");
                    println!(
                        "{:<4} {} {:<4} {:>3} passed {:>2} unverifiable  {}",
                        e.version,
                        &e.commit[..12],
                        op,
                        e.tests.passed,
                        e.tests.unverifiable,
                        e.summary
                    );
                    for c in &e.schema_changes {
                        let breaking = if c.breaking { " [breaking]" } else { "" };
                        println!("{:26}{} {}{breaking}", "", c.tool, c.describe());
                    }
                }
                let usage = report::total_usage(&entries);
                if usage.total_tokens > 0 {
                    println!(
                        "tokens: {} prompt + {} completion = {}",
                        usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
                    );
                }
            }
        }
        Command::Diff {
            workdir,
            rev_a,
            rev_b,
            json,
        } => {
            let ws = Workspace::open(&workdir)?;
            let changes = report::diff(&ws, &rev_a, &rev_b)?;
            if json {
                print_json(&serde_json::json!({ "changes": changes }))?;
            } else {
                for c in &changes {
                    let pattern = c.pattern.as_deref().unwrap_or("--");
                    let breaking = if c.breaking { "breaking" } else { "" };
                    println!("{pattern:<4} {breaking:<9} {} {}", c.tool, c.describe());
                }
                println!("{} changes", changes.len());
            }
        }
        Command::Operators {
            command:
                OperatorsCommand::List {
                    json,
                    operator_dirs,
                },
        } => {
            let ops = operators::load_all(&operator_dirs)?;
            if json {
                let list: Vec<_> = ops
                    .iter()
                    .map(|o| serde_json::json!({"id": o.id, "name": o.name, "level": o.level, "patterns": o.patterns, "summary": o.summary, "file": o.file}))
                    .collect();
                print_json(&serde_json::json!({ "operators": list }))?;
            } else {
                for o in &ops {
                    let level = serde_json::to_value(o.level)?;
                    println!(
                        "{:<4} {:<28} {:<6} {:<12} {}",
                        o.id,
                        o.name,
                        level.as_str().unwrap_or(""),
                        o.patterns.join(","),
                        o.summary
                    );
                }
            }
        }
        Command::Operators {
            command: OperatorsCommand::Check { path },
        } => match operators::check_path(&path) {
            Ok(ops) => println!("{}: {} operator file(s) fine", path.display(), ops.len()),
            Err(problems) => {
                for p in &problems {
                    eprintln!("{p}");
                }
                anyhow::bail!("{} problem(s) in {}", problems.len(), path.display());
            }
        },
        Command::Operators {
            command: OperatorsCommand::New { id, name },
        } => {
            anyhow::ensure!(
                operators::valid_id(&id),
                "`{id}` is not a valid operator id (a letter, then letters, digits, - or _)"
            );
            print!("{}", operators::template(&id, &name));
        }
        Command::Survey {
            catalog,
            json,
            timeout,
            sandbox,
        } => {
            isolate(sandbox);
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
        Command::Batch(args) => cli::batch::run(args)?,
        Command::Export(args) => cli::export::run(args)?,
        Command::Report(args) => cli::report::run(args)?,
    }
    Ok(())
}

/// Runs the rounds, printing each as it ends; Ctrl-C restores the work tree (in the library).
async fn evolve_until_interrupted(
    workdir: &Path,
    opts: &evolve::Options,
    json: bool,
) -> Result<Vec<evolve::RoundOutcome>> {
    let outcomes = evolve::evolve_until_interrupted(workdir, opts, |o| {
        if !json {
            let tools = o.tools.join(", ");
            let op = o.operator.as_deref().unwrap_or("--");
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
    })
    .await?;
    Ok(outcomes)
}

/// Sets how servers are isolated, warning when the machine cannot do it.
fn isolate(isolation: Isolation) {
    if let Some(warning) = server::sandbox::set_isolation(isolation) {
        eprintln!("warning: {warning}");
    }
    server::sandbox::clean_up_after_killed_runs();
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each line: the arguments after `mcpevol`, and whether they parse.
    const PARSES: &[(&str, bool)] = &[
        ("anchor fixtures/if-cjs --json", true),
        ("anchor", false),
        ("tools dir --timeout 5 -- --flag", true),
        ("init pkg@1.0.0 work --arg x --env K=V", true),
        ("init pkg@1.0.0", false),
        ("evolve work --rounds 5", true),
        (
            "evolve work --rounds 5 --backend openai --model m --base-url http://h/v1",
            true,
        ),
        ("evolve work --rounds 1 --backend replay --from other", true),
        ("evolve work --rounds 1 --backend gpt", false),
        ("evolve work --rounds five", false),
        (
            "evolve work --rounds 1 --operator O5 --operator O9 --seed 3 --json",
            true,
        ),
        (
            "evolve work --rounds 1 --sandbox off --max-failed-rounds 2",
            true,
        ),
        ("evolve work --rounds 1 --sandbox maybe", false),
        ("evolve work", false),
        ("log work --json", true),
        ("diff work v0 v3", true),
        ("diff work v0", false),
        ("operators list --json", true),
        ("operators check operators/", true),
        ("operators new X1 Name", true),
        ("operators frobnicate", false),
        ("survey --json", true),
        (
            "batch m.toml --rounds 5 --out out --jobs 2 --shard 1/3",
            true,
        ),
        ("batch merge out a b", true),
        ("export work --stages early,late --into out", true),
        ("report work --html r.html", true),
        ("frobnicate", false),
    ];

    #[test]
    fn the_command_line_accepts_the_documented_forms_and_refuses_the_rest() {
        let mut wrong = Vec::new();
        for (args, ok) in PARSES {
            let argv = std::iter::once("mcpevol").chain(args.split_whitespace());
            let parsed = Cli::try_parse_from(argv);
            if parsed.is_ok() != *ok {
                wrong.push(format!(
                    "`{args}` should {}parse: {:?}",
                    if *ok { "" } else { "not " },
                    parsed.err().map(|e| e.kind())
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
