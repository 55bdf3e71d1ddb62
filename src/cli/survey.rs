//! `mcpevol survey`: anchored against live tools for every server of a catalog.

use std::path::{Path, PathBuf};

use anyhow::Result;
use mcpevol::catalog::Catalog;
use mcpevol::server::{self, sandbox::Isolation};
use mcpevol::survey::{self, PackageSurvey};

use super::options::seconds;
use super::{first_line, isolate, print_json, runtime};

#[derive(clap::Args)]
pub struct SurveyArgs {
    /// A servers.toml; its packages are under node_modules/ beside it.
    #[arg(default_value = "servers-npm/servers.toml")]
    catalog: PathBuf,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
    /// Seconds each server may take to start and list its tools before its process group is killed.
    #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Isolate the server (no network, read-only files outside its scratch folder);
    /// `off` runs it without namespaces (its environment is scrubbed all the same).
    #[arg(long, value_enum, default_value_t = Isolation::On)]
    sandbox: Isolation,
}

pub fn run(args: SurveyArgs) -> Result<()> {
    isolate(args.sandbox);
    let loaded = Catalog::load(&args.catalog)?;
    let dir = args.catalog.parent().unwrap_or(Path::new("."));
    let entries = runtime()?.block_on(survey::survey_catalog(&loaded, dir, seconds(args.timeout)?));
    let packages = survey::by_package(&entries);
    if args.json {
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
    Ok(())
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
            Err(e) => println!(
                "{:<48} failed: {}",
                s.package,
                first_line(&e.to_string(), 120)
            ),
        }
    }
}
