//! `mcpevol report <WORKDIR|DIR> --html FILE [--markdown FILE] [--drift FILE]`.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;

use mcpevol::report::model::ReportData;
use mcpevol::report::{html, markdown};

#[derive(Args)]
#[command(group = clap::ArgGroup::new("format").required(true).multiple(true).args(["html", "markdown"]))]
pub struct ReportArgs {
    /// A workspace, or a batch folder (an overview of every server, then each one).
    source: PathBuf,
    /// Write a self-contained HTML page (no script, no network) to FILE.
    #[arg(long, value_name = "FILE")]
    html: Option<PathBuf>,
    /// Write the same report as Markdown to FILE.
    #[arg(long, value_name = "FILE")]
    markdown: Option<PathBuf>,
    /// Add the drift of the original's calls: FILE is what `mcpevol drift --json` printed.
    #[arg(long, value_name = "FILE")]
    drift: Option<PathBuf>,
}

pub fn run(args: ReportArgs) -> Result<()> {
    let mut data = ReportData::gather(&args.source)?;
    if let Some(path) = &args.drift {
        data.drift = Some(mcpevol::drift::DriftReport::load(path)?);
    }
    for (path, text) in [
        (&args.html, args.html.as_ref().map(|_| html::render(&data))),
        (
            &args.markdown,
            args.markdown.as_ref().map(|_| markdown::render(&data)),
        ),
    ] {
        if let (Some(path), Some(text)) = (path, text) {
            std::fs::write(path, text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            println!("{}", path.display());
        }
    }
    Ok(())
}
