//! `mcpevol install`: the PyPI servers of a catalog, installed beside it (skipping those there).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use mcpevol::catalog::Catalog;

#[derive(clap::Args)]
pub struct InstallArgs {
    /// A servers.toml whose `package = "pypi:NAME==VERSION"` entries are installed under
    /// `installed/` beside it.
    catalog: PathBuf,
}

pub fn run(args: InstallArgs) -> Result<()> {
    let loaded = Catalog::load(&args.catalog)?;
    let dir = args.catalog.parent().unwrap_or(Path::new("."));
    let done = loaded
        .install_pypi(dir)
        .with_context(|| format!("installing the PyPI servers of {}", args.catalog.display()))?;
    for (package, fresh) in &done {
        println!(
            "{package}: {}",
            if *fresh {
                "installed"
            } else {
                "already installed"
            }
        );
    }
    Ok(())
}
