//! The `mcpevol` command line: parses arguments, hands each subcommand to its module under
//! `cli/`, and maps errors to exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod cli;

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
    /// Find every tool a server package defines in its JS/TS or Python source.
    Anchor(cli::anchor::AnchorArgs),
    /// Start the server over stdio and print its live tools/list (every page).
    Tools(cli::tools::ToolsArgs),
    /// Create a workspace from an npm package (name@version), a PyPI release (pypi:NAME==VERSION)
    /// or a package folder, as version v0.
    Init(cli::init::InitArgs),
    /// Run N rounds of evolution on a workspace; each version that passes its checks is committed
    /// as vK, proven or unproven (`--require-proof` commits proven versions only).
    Evolve(cli::evolve::EvolveCommandArgs),
    /// The versions of a workspace, oldest first.
    Log(cli::log::LogArgs),
    /// The schema-level changes between two versions, classified.
    Diff(cli::diff::DiffArgs),
    /// The mutation operators.
    Operators {
        #[command(subcommand)]
        command: cli::operators::OperatorsCommand,
    },
    /// Install the PyPI servers a catalog names (pypi:NAME==VERSION), skipping installed ones.
    Install(cli::install::InstallArgs),
    /// Anchor and list the live tools of every server in a catalog, and compare the two.
    Survey(cli::survey::SurveyArgs),
    /// Evolve every server of a manifest, several at once, one workspace each (resumable).
    Batch(cli::batch::BatchArgs),
    /// Write stages of a workspace or batch as runnable folders, with an mcp.json for clients.
    Export(cli::export::ExportArgs),
    /// Write a report of a workspace or batch: one self-contained HTML page, or Markdown.
    Report(cli::report::ReportArgs),
    /// Replay calls that worked on the original against every version: which still answer the
    /// same, which changed, which are refused and why, beside the schema's forecast.
    Drift(cli::drift::DriftArgs),
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

/// At most two malloc arenas. glibc gives each thread that allocates its own, and a tree
/// freed on a pool thread stays resident in that thread's arena: anchoring a 6.6 MB bundle,
/// whose pieces are parsed on every core, peaked at 59-64 MB with an arena per thread and at
/// 50-54 MB with two, in the same time.
fn fewer_arenas() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets a tunable of the allocator, before any thread is started.
    unsafe {
        libc::mallopt(libc::M_ARENA_MAX, 2);
    }
}

fn main() -> ExitCode {
    fewer_arenas();
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

fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Anchor(args) => cli::anchor::run(args),
        Command::Tools(args) => cli::tools::run(args),
        Command::Init(args) => cli::init::run(args),
        Command::Evolve(args) => cli::evolve::run(args),
        Command::Log(args) => cli::log::run(args),
        Command::Diff(args) => cli::diff::run(args),
        Command::Operators { command } => cli::operators::run(command),
        Command::Install(args) => cli::install::run(args),
        Command::Survey(args) => cli::survey::run(args),
        Command::Batch(args) => cli::batch::run(args),
        Command::Export(args) => cli::export::run(args),
        Command::Report(args) => cli::report::run(args),
        Command::Drift(args) => cli::drift::run(args),
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
        ("install servers-pypi/servers.toml", true),
        ("install", false),
        (
            "batch m.toml --rounds 5 --out out --jobs 2 --shard 1/3",
            true,
        ),
        ("batch merge out a b", true),
        ("export work --stages early,late --into out", true),
        ("report work --html r.html", true),
        ("report work --html r.html --drift d.json", true),
        ("drift work", true),
        (
            "drift work --calls calls.jsonl --versions v0,v3,late --json",
            true,
        ),
        (
            "drift batch --jobs 2 --timeout 5 --call-timeout 2 --sandbox off",
            true,
        ),
        ("drift", false),
        ("drift work --jobs two", false),
        ("drift work --call-timeout", false),
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

    /// Every argument and flag of every subcommand, by its path (`evolve --rounds`), that has
    /// no help text.
    fn undocumented(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        for arg in cmd.get_arguments() {
            let id = arg.get_id().as_str();
            if matches!(id, "help" | "version") {
                continue;
            }
            if arg.get_help().is_none() && arg.get_long_help().is_none() {
                let shown = match arg.get_long() {
                    Some(long) => format!("--{long}"),
                    None => id.to_uppercase(),
                };
                out.push(format!("{path} {shown}"));
            }
        }
        for sub in cmd.get_subcommands() {
            if sub.get_about().is_none() {
                out.push(format!("{path} {} (no about)", sub.get_name()));
            }
            undocumented(sub, &format!("{path} {}", sub.get_name()), out);
        }
    }

    #[test]
    fn every_argument_and_flag_has_help_text() {
        use clap::CommandFactory;
        let mut missing = Vec::new();
        undocumented(&Cli::command(), "mcpevol", &mut missing);
        assert!(missing.is_empty(), "without help:\n{}", missing.join("\n"));
    }
}
