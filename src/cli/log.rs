//! `mcpevol log`: the versions of a workspace, oldest first, with what each round changed.

use std::path::PathBuf;

use anyhow::Result;
use mcpevol::history;
use mcpevol::workspace::Workspace;

use super::print_json;

#[derive(clap::Args)]
pub struct LogArgs {
    /// The workspace.
    workdir: PathBuf,
    /// Print one JSON document on stdout instead of text (the form in the command-line contract).
    #[arg(long)]
    json: bool,
    /// Judge each version's comparisons with the previous version again from the evidence kept
    /// beside its commit, and say whether every verdict comes out as recorded (exit 1 if not).
    #[arg(long)]
    rejudge: bool,
}

pub fn run(args: LogArgs) -> Result<()> {
    let ws = Workspace::open(&args.workdir)?;
    if args.rejudge {
        return rejudge(&ws, args.json);
    }
    let entries = history::log(&ws)?;
    let usage = history::total_usage(entries.iter().map(|e| e.usage)).unwrap_or_default();
    let records: Vec<_> = history::versions(&ws)?
        .into_iter()
        .map(|(_, r)| r)
        .collect();
    let mix = history::run_mix(&records);
    if args.json {
        return print_json(&serde_json::json!({ "versions": entries, "usage": usage, "mix": mix }));
    }
    for e in &entries {
        let op = e
            .operator
            .as_ref()
            .map_or("--".to_string(), |o| o.to_string());
        println!(
            "{:<4} {} {:<4} {:>3} passed {:>2} unverifiable  {}",
            e.version,
            &e.commit[..12],
            op,
            e.tests.passed,
            e.tests.unverifiable,
            e.summary
        );
        if let Some(why) = &e.proof.unproven_reason {
            println!("{:26}unproven: {why}", "");
        }
        if e.changes.len() > 1 {
            for c in &e.changes {
                let proof = if c.proof.is_proven() {
                    "proven"
                } else {
                    "unproven"
                };
                println!(
                    "{:26}{} on {} ({}, {proof})",
                    "",
                    c.operator,
                    c.targets
                        .iter()
                        .chain(&c.added)
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", "),
                    mcpevol::schema::joined_patterns(&c.patterns, ", ")
                );
            }
        }
        for c in &e.schema_changes {
            let breaking = if c.breaking { " [breaking]" } else { "" };
            println!("{:26}{} {}{breaking}", "", c.tool, c.describe());
        }
    }
    if let Some(tv) = mix.tv_distance {
        println!(
            "mix: {} events, total-variation distance {tv:.3} from {}",
            mix.events,
            mix.source.as_deref().unwrap_or("the target")
        );
    }
    if usage.total_tokens > 0 {
        println!(
            "tokens: {} prompt + {} completion = {}",
            usage.prompt_tokens, usage.completion_tokens, usage.total_tokens
        );
    }
    Ok(())
}

/// `log --rejudge`: every version's comparisons judged again.
fn rejudge(ws: &Workspace, json: bool) -> Result<()> {
    let judged = history::rejudge(ws)?;
    let differ = judged.iter().any(|j| !j.disagreements.is_empty());
    if json {
        print_json(&serde_json::json!({ "rejudged": judged }))?;
    } else {
        for j in &judged {
            match j.disagreements.as_slice() {
                [] => println!(
                    "{:<4} {} comparisons judged again: all as recorded",
                    j.version, j.comparisons
                ),
                d => {
                    println!(
                        "{:<4} {} comparisons judged again: {} otherwise",
                        j.version,
                        j.comparisons,
                        d.len()
                    );
                    for (i, was, now) in d {
                        println!("{:26}check {i}: recorded {was:?}, now {now:?}", "");
                    }
                }
            }
        }
    }
    if differ {
        anyhow::bail!("some verdicts judged again differ from those recorded");
    }
    Ok(())
}
