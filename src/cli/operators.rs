//! `mcpevol operators list|check|new`: the mutation operators, checking and starting operator files.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::operators;

use super::print_json;

#[derive(clap::Subcommand)]
pub enum OperatorsCommand {
    /// List the built-in operators and those of --operators folders.
    List {
        /// Print one JSON document on stdout instead of text (the form in the command-line contract).
        #[arg(long)]
        json: bool,
        /// A folder of your own operator files (repeatable).
        #[arg(long = "operators")]
        operator_dirs: Vec<PathBuf>,
    },
    /// Check operator files (a file or a folder): front matter, contract, prompt placeholders.
    Check {
        /// An operator file, a shared prompt file (`_select.md`...), or a folder of them.
        path: PathBuf,
    },
    /// Print a commented template for a new operator file.
    New {
        /// The new operator's id: a letter, then letters, digits, `_` or `-` (like U1).
        id: String,
        /// Its name, as menus and records show it.
        name: String,
    },
}

pub fn run(command: OperatorsCommand) -> Result<()> {
    match command {
        OperatorsCommand::List {
            json,
            operator_dirs,
        } => list(json, &operator_dirs),
        OperatorsCommand::Check { path } => match operators::check_path(&path) {
            Ok(ops) => {
                println!("{}: {} operator file(s) fine", path.display(), ops.len());
                Ok(())
            }
            Err(problems) => {
                for p in &problems {
                    eprintln!("{p}");
                }
                anyhow::bail!("{} problem(s) in {}", problems.len(), path.display());
            }
        },
        OperatorsCommand::New { id, name } => {
            anyhow::ensure!(
                operators::valid_id(&id),
                "`{id}` is not a valid operator id (a letter, then letters, digits, - or _)"
            );
            print!("{}", operators::template(&id, &name));
            Ok(())
        }
    }
}

fn list(json: bool, operator_dirs: &[PathBuf]) -> Result<()> {
    let ops = operators::load_all(operator_dirs)?;
    if json {
        let list: Vec<_> = ops
            .iter()
            .map(|o| serde_json::json!({"id": o.id, "name": o.name, "level": o.level, "patterns": o.patterns, "summary": o.summary, "file": o.file}))
            .collect();
        return print_json(&serde_json::json!({ "operators": list }));
    }
    for o in &ops {
        let level = serde_json::to_value(o.level)?;
        println!(
            "{:<4} {:<28} {:<6} {:<12} {}",
            o.id,
            o.name,
            level.as_str().unwrap_or(""),
            mcpevol::schema::joined_patterns(&o.patterns, ","),
            o.summary
        );
    }
    Ok(())
}
