//! `mcpevol init`: a new workspace at v0 from an npm package or a package folder.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::server::{self, sandbox::Isolation};
use mcpevol::{evolve, init};

use super::options::seconds;
use super::{isolate, print_json, runtime};

#[derive(clap::Args)]
pub struct InitArgs {
    /// The package: an npm spec (name@version) or a package folder.
    source: String,
    /// The new workspace: a folder that does not exist yet, or an empty one.
    workdir: PathBuf,
    /// An argument appended to the server's launch arguments (repeatable). `{tmp}` stands for a
    /// fresh folder, `{browser}` for the machine's Chromium as mcpevol runs it.
    #[arg(long = "arg", allow_hyphen_values = true)]
    args: Vec<String>,
    /// An environment variable for the server, K=V (repeatable). `{tmp}` stands for a fresh
    /// folder, `{browser}` for the machine's Chromium as mcpevol runs it.
    #[arg(long = "env", value_parser = parse_env)]
    env: Vec<(String, String)>,
    /// Seconds the server may take to start and list its tools before its process group is killed.
    #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
    /// Isolate the server (no network, read-only files outside its scratch folder);
    /// `off` runs it without namespaces (its environment is scrubbed all the same).
    #[arg(long, value_enum, default_value_t = Isolation::On)]
    sandbox: Isolation,
}

pub fn run(args: InitArgs) -> Result<()> {
    isolate(args.sandbox);
    let opts = init::InitOptions {
        launch: None,
        args: args.args,
        env: args.env.into_iter().collect(),
        timeout: seconds(args.timeout)?,
        stages: evolve::default_stages(),
    };
    let v0 = runtime()?.block_on(init::init(&args.source, &args.workdir, &opts))?;
    let settings = args.workdir.join(".mcpevol");
    if let Some(relaxed) =
        mcpevol::workspace::pypi::read_resolution(&settings).and_then(|r| r.summary())
    {
        eprintln!("note: {relaxed}");
    }
    if args.json {
        print_json(&v0)
    } else {
        println!("{} {} {}", v0.tag, &v0.commit[..12], args.workdir.display());
        Ok(())
    }
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    s.split_once('=')
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .ok_or_else(|| format!("`{s}` is not K=V"))
}
