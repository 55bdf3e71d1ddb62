//! `mcpevol anchor`: the tools a package defines, found statically.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::inventory::{Inventory, Span};

use super::{first_line, print_json};

#[derive(clap::Args)]
pub struct AnchorArgs {
    /// The package folder (holding package.json).
    dir: PathBuf,
    /// Print one JSON document instead of a table.
    #[arg(long)]
    json: bool,
}

pub fn run(args: AnchorArgs) -> Result<()> {
    let inventory = mcpevol::anchor::anchor(&args.dir)?;
    if args.json {
        print_json(&inventory)
    } else {
        print_inventory(&inventory);
        Ok(())
    }
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
    if !inventory.not_reached.is_empty() {
        let names: Vec<String> = inventory
            .not_reached
            .iter()
            .map(|n| format!("{} ({})", n.name, n.file))
            .collect();
        println!(
            "not reached from the launch, so left out: {}",
            names.join(", ")
        );
    }
    for w in &inventory.warnings {
        eprintln!("warning: {w}");
    }
}

fn show_span(s: &Span) -> String {
    format!("{}:{}-{}", s.file, s.start_line, s.end_line)
}
