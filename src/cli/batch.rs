//! `mcpevol batch MANIFEST ...` and `mcpevol batch merge OUT DIR...`.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context, Result};
use clap::{Args, Subcommand};

use mcpevol::batch::manifest::Manifest;
use mcpevol::batch::shard::ShardArg;
use mcpevol::batch::summary::{ServerStatus, Summary};
use mcpevol::batch::{self, merge, state};
use mcpevol::evolve::ReplaySource;

use super::options::EvolveArgs;

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct BatchArgs {
    #[command(subcommand)]
    command: Option<BatchCommand>,
    /// The manifest: [[server]] tables (servers-npm/servers.toml is one).
    #[arg(required = true)]
    manifest: Option<PathBuf>,
    /// Rounds per server (a server's `rounds` in the manifest wins).
    #[arg(long, required = true)]
    rounds: Option<u32>,
    /// Servers evolved at once.
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// The batch folder: one workspace per server under servers/, summary.json.
    #[arg(long, required = true)]
    out: Option<PathBuf>,
    /// Run the I-th of N slices (0 <= I < N), or `auto` to read it from the scheduler.
    #[arg(long)]
    shard: Option<ShardArg>,
    /// Print the summary as JSON instead of a table.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    evolve: EvolveArgs,
}

#[derive(Subcommand)]
enum BatchCommand {
    /// Join the output folders of every shard of one batch into OUT, with one summary.
    Merge {
        /// The merged batch folder: new or empty.
        out: PathBuf,
        /// The output folder of each shard (every shard of the batch, once).
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
    },
}

pub fn run(args: BatchArgs) -> Result<()> {
    if let Some(BatchCommand::Merge { out, dirs }) = args.command {
        let summary = merge::merge(&out, &dirs)?;
        print!("{}", summary.table());
        println!("merged {} shards into {}", dirs.len(), out.display());
        return Ok(());
    }
    let (Some(manifest), Some(rounds), Some(out)) = (args.manifest, args.rounds, args.out) else {
        unreachable!("clap requires them without a subcommand");
    };
    let common = args.evolve;
    let spec = common.spec();
    spec.check()?;
    let manifest = Manifest::load(&manifest)?;
    let shard = args
        .shard
        .unwrap_or(ShardArg::Fixed(Default::default()))
        .resolve()?;
    let from = common.from.clone().map(PathBuf::from);
    let backend: batch::BackendFor = Arc::new(move |s| {
        let replay = from
            .as_ref()
            .map(|dir| ReplaySource::Workspace(state::workspace_dir(dir, &s.name)));
        spec.build(replay).map_err(|e| format!("{e:#}").into())
    });
    let opts = batch::BatchOptions {
        evolve: common.options(rounds)?,
        jobs: args.jobs,
        backend_kind: common.backend,
        backend,
        shard,
        bars: !args.json && std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
    };
    let summary = batch::run(&manifest, &out, &opts, super::stop_signal()?)?;
    if args.json {
        let text =
            serde_json::to_string_pretty(&summary).context("cannot serialize the summary")?;
        println!("{text}");
    } else {
        print!("{}", summary.table());
    }
    outcome(&summary, &out)
}

/// Failed rounds are an outcome the summary reports; servers that stopped short are an error.
fn outcome(summary: &Summary, out: &std::path::Path) -> Result<()> {
    let t = &summary.totals;
    if t.interrupted > 0 || t.pending > 0 {
        anyhow::bail!(
            "interrupted; every workspace is at its last good version; run the same command to resume ({})",
            out.display()
        );
    }
    let errors: Vec<&str> = summary
        .servers
        .iter()
        .filter(|s| s.status == ServerStatus::Error)
        .map(|s| s.name.as_str())
        .collect();
    if !errors.is_empty() {
        anyhow::bail!(
            "{} of {} servers stopped on an error ({}); the others are done; run the same command to retry them",
            errors.len(),
            t.servers,
            errors.join(", ")
        );
    }
    Ok(())
}
