//! `mcpevol install`: the PyPI servers of a catalog, installed beside it (skipping those there).

use std::path::{Path, PathBuf};

use anyhow::Result;
use mcpevol::catalog::Catalog;

#[derive(clap::Args)]
pub struct InstallArgs {
    /// A servers.toml whose `package = "pypi:NAME==VERSION"` entries are installed under
    /// `installed/` beside it.
    catalog: PathBuf,
    /// Only the servers with these ids (repeat the flag or separate them with commas).
    #[arg(long, value_name = "ID", value_delimiter = ',')]
    only: Vec<String>,
}

pub fn run(args: InstallArgs) -> Result<()> {
    let mut loaded = Catalog::load(&args.catalog)?;
    if !args.only.is_empty() {
        if let Some(unknown) =
            (args.only.iter()).find(|id| !loaded.servers.iter().any(|s| &s.id == *id))
        {
            anyhow::bail!(
                "{} has no server with id `{unknown}`",
                args.catalog.display()
            );
        }
        loaded.servers.retain(|s| args.only.contains(&s.id));
    }
    let dir = args.catalog.parent().unwrap_or(Path::new("."));
    let done = loaded.install_pypi(dir);
    let mut failed = Vec::new();
    for (package, result) in &done {
        match result {
            Ok(install) => {
                let state = if install.fresh {
                    "installed"
                } else {
                    "already installed"
                };
                match &install.note {
                    Some(note) => println!("{package}: {state} ({note})"),
                    None => println!("{package}: {state}"),
                }
            }
            Err(e) => {
                eprintln!("{package}: not installed: {e}");
                failed.push(package.as_str());
            }
        }
    }
    if !failed.is_empty() {
        anyhow::bail!(
            "installing the PyPI servers of {}: {} of {} failed ({})",
            args.catalog.display(),
            failed.len(),
            done.len(),
            failed.join(", ")
        );
    }
    Ok(())
}
