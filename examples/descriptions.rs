//! What evolution does to descriptions: evolves every server of a catalog (default
//! `servers-npm/servers.toml`) 5 rounds per seed with the rules backend, then reads each
//! version's recorded tool list against the one before and prints, per server and in total:
//! descriptions changed (tools and parameters) and new (added tools and parameters), attempts
//! the description check refused, and any committed description that was lost (its original
//! text gone), emptied, flattened (fewer lines) or holds a formula phrase; then a handful of
//! before/after pairs.
//!
//!     cargo run --example descriptions -- [CATALOG] [SEED...] [--pairs N]
//!     cargo run --example descriptions -- --measure DIR   (workspaces `ID-SEED` made before)
//!
//! A measurement, not a test: its numbers are quoted in the README.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use mcpevol::listed::ListedTool;
use mcpevol::schema::ChangeKind;
use mcpevol::version_record::{self, RoundRecord};
use mcpevol::workspace::Workspace;
use serde_json::Value;

const ROUNDS: u32 = 5;
/// What a refusal by the description check starts with (`describe_check::Refused`).
const REFUSED: &str = "the description check refuses";

#[derive(Default)]
struct Row {
    versions: usize,
    changed: usize,
    added: usize,
    refused_attempts: usize,
    refused_descriptions: usize,
    /// What the check said, per refused attempt.
    reasons: Vec<String>,
    flags: Vec<String>,
    errors: Vec<String>,
}

/// One description before and after a round.
struct Pair {
    server: String,
    operator: String,
    what: String,
    before: String,
    after: String,
}

fn main() -> anyhow::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let pairs_wanted = match args.iter().position(|a| a == "--pairs") {
        Some(at) => {
            let n = args
                .get(at + 1)
                .map(|n| n.parse())
                .transpose()?
                .unwrap_or(8);
            args.drain(at..(at + 2).min(args.len()));
            n
        }
        None => 8,
    };
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let mut pairs: Vec<Pair> = Vec::new();
    let started = std::time::Instant::now();
    // `--measure DIR`: read workspaces evolved before (folders named `ID-SEED`), evolve nothing.
    if let Some(at) = args.iter().position(|a| a == "--measure") {
        let dir = PathBuf::from(args.get(at + 1).cloned().unwrap_or_default());
        let mut seeds = BTreeSet::new();
        for entry in std::fs::read_dir(&dir)? {
            let work = entry?.path();
            let name = work
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            let Some((id, seed)) = name.rsplit_once('-') else {
                continue;
            };
            let Ok(ws) = Workspace::open(&work) else {
                continue;
            };
            seeds.insert(seed.to_string());
            measure(&ws, id, rows.entry(id.to_string()).or_default(), &mut pairs)?;
        }
        print_table(&rows, seeds.len());
        print_pairs(&pairs, pairs_wanted);
        return Ok(());
    }
    let sweep = common::Sweep::from_args(args)?;
    let scratch = tempfile::tempdir()?;
    sweep.evolve_all(scratch.path(), ROUNDS, |id, _, work, result| {
        let row = rows.entry(id.to_string()).or_default();
        row.errors.extend(result.err());
        if let Ok(ws) = Workspace::open(work) {
            measure(&ws, id, row, &mut pairs)?;
        }
        Ok(())
    })?;
    let seeds = &sweep.seeds;
    print_table(&rows, seeds.len());
    println!("{:.0} s", started.elapsed().as_secs_f64());
    print_pairs(&pairs, pairs_wanted);
    Ok(())
}

/// Reads every version of one evolved workspace into its row.
fn measure(ws: &Workspace, id: &str, row: &mut Row, pairs: &mut Vec<Pair>) -> anyhow::Result<()> {
    let versions = ws.versions()?;
    for pair in versions.windows(2) {
        let (prev, this) = (&pair[0].tag, &pair[1].tag);
        let Some(record) = version_record::read_round(ws, this)? else {
            continue;
        };
        row.versions += 1;
        count_refusals(&record, row);
        let (Some(old), Some(new)) = (
            version_record::read_tools(ws, prev)?,
            version_record::read_tools(ws, this)?,
        ) else {
            continue;
        };
        let operator = record
            .operator
            .as_ref()
            .map(|o| o.to_string())
            .unwrap_or_default();
        for (what, before, after) in described(&old.tools, &new.tools, &record) {
            let Some(after) = after else { continue };
            match before {
                None => row.added += 1,
                Some(before) if before != after => {
                    row.changed += 1;
                    for flag in flags(&before, &after) {
                        row.flags.push(format!("{this} {what}: {flag}"));
                    }
                    pairs.push(Pair {
                        server: id.to_string(),
                        operator: operator.clone(),
                        what,
                        before,
                        after,
                    });
                }
                Some(_) => {}
            }
        }
    }
    Ok(())
}

/// Attempts and failed rounds the description check refused, and the violations they held.
fn count_refusals(record: &RoundRecord, row: &mut Row) {
    let reasons = record.rejected.iter().map(|r| &r.reason).chain(
        record
            .failed_rounds
            .iter()
            .flat_map(|f| f.attempts.iter().map(|a| &a.reason)),
    );
    for reason in reasons.filter(|r| r.contains(REFUSED)) {
        row.reasons.push(format!("{}: {reason}", record.version));
        row.refused_attempts += 1;
        row.refused_descriptions += reason.matches("; the description of").count() + 1;
    }
}

/// Every description of the new list beside the one it had before (None when the tool or
/// parameter is new), keyed `tool` or `tool.param`; renamed tools are matched to their old
/// name.
fn described(
    old: &[ListedTool],
    new: &[ListedTool],
    record: &RoundRecord,
) -> Vec<(String, Option<String>, Option<String>)> {
    let renamed: BTreeMap<&str, &str> = record
        .schema_changes
        .iter()
        .filter(|c| c.kind() == ChangeKind::ToolRenamed)
        .filter_map(|c| Some((c.renamed_to()?, c.tool.as_str())))
        .collect();
    let text = |v: &Value| v["description"].as_str().map(str::to_string);
    let mut out = Vec::new();
    for tool in new {
        let name = tool.name().unwrap_or_default();
        let was = renamed.get(name).copied().unwrap_or(name);
        let before = old.iter().find(|t| t.is_named(was));
        out.push((
            name.to_string(),
            before.and_then(|b| text(b.as_value())),
            text(tool.as_value()),
        ));
        let props = tool.properties().cloned().unwrap_or_default();
        for (param, schema) in props {
            // An existing parameter without a description had "": giving it one is a change.
            let old_text = before
                .and_then(|b| b.properties()?.get(&param))
                .map(|p| text(p).unwrap_or_default());
            out.push((format!("{name}.{param}"), old_text, text(&schema)));
        }
    }
    out
}

/// What is wrong with a committed change of a description, by the measures of issue 16.
fn flags(before: &str, after: &str) -> Vec<String> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    if after.trim().is_empty() {
        out.push("emptied".to_string());
    } else if !norm(after).contains(&norm(before)) {
        out.push("lost (the original text is not in the new one)".to_string());
    }
    let lines = |s: &str| s.trim().lines().count();
    if lines(after) < lines(before) {
        out.push(format!(
            "flattened ({} lines to {})",
            lines(before),
            lines(after)
        ));
    }
    for phrase in formula_phrases(after) {
        if !formula_phrases(before).contains(&phrase) {
            out.push(format!("formula \"{phrase}\""));
        }
    }
    out
}

/// The phrases issue 16 found: "Use `x` to ...", a bracketed title first, "Takes no
/// parameters.", "Required array: the ...".
fn formula_phrases(text: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let t = text.trim_start();
    if t.starts_with('[')
        && let Some(end) = t.find("] ")
    {
        out.insert(t[..end + 1].to_string());
    }
    for (at, _) in text.match_indices("Use `") {
        let rest = &text[at + 5..];
        if let Some(end) = rest.find("` to ") {
            out.insert(format!("Use `{}` to", &rest[..end]));
        }
    }
    if text.contains("Takes no parameters") {
        out.insert("Takes no parameters".into());
    }
    for need in ["Required ", "Optional "] {
        for (at, _) in text.match_indices(need) {
            let rest = &text[at..];
            if let Some(colon) = rest.find(": the ")
                && colon < 20
                && !rest[need.len()..colon].contains(' ')
            {
                out.insert(rest[..colon + 6].to_string());
            }
        }
    }
    out
}

fn print_table(rows: &BTreeMap<String, Row>, seeds: usize) {
    println!(
        "{:<22} {:>8} {:>8} {:>6} {:>9} {:>12} {:>6}",
        "server", "versions", "changed", "new", "refused", "(violations)", "flags"
    );
    let mut total = Row::default();
    for (id, row) in rows {
        println!(
            "{id:<22} {:>8} {:>8} {:>6} {:>9} {:>12} {:>6}{}",
            row.versions,
            row.changed,
            row.added,
            row.refused_attempts,
            row.refused_descriptions,
            row.flags.len(),
            if row.errors.is_empty() {
                String::new()
            } else {
                format!("  error: {}", row.errors.join("; "))
            }
        );
        for f in &row.flags {
            println!("    flag: {f}");
        }
        for r in &row.reasons {
            println!("    refused: {r}");
        }
        total.versions += row.versions;
        total.changed += row.changed;
        total.added += row.added;
        total.refused_attempts += row.refused_attempts;
        total.refused_descriptions += row.refused_descriptions;
        total.flags.extend(row.flags.iter().cloned());
    }
    println!(
        "\n{} servers x {seeds} seeds x {ROUNDS} rounds: {} versions, {} descriptions changed, {} new, {} attempts refused by the description check ({} violations), {} flagged (lost, emptied, flattened or formula)",
        rows.len(),
        total.versions,
        total.changed,
        total.added,
        total.refused_attempts,
        total.refused_descriptions,
        total.flags.len()
    );
}

/// A handful of pairs: each of another server and operator first, then of another pair of
/// the two.
fn print_pairs(pairs: &[Pair], wanted: usize) {
    let (mut servers, mut operators, mut both) =
        (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut chosen: Vec<usize> = Vec::new();
    for (i, p) in pairs.iter().enumerate() {
        if chosen.len() < wanted && !servers.contains(&p.server) && !operators.contains(&p.operator)
        {
            servers.insert(p.server.clone());
            operators.insert(p.operator.clone());
            both.insert((p.server.clone(), p.operator.clone()));
            chosen.push(i);
        }
    }
    for (i, p) in pairs.iter().enumerate() {
        if chosen.len() < wanted && both.insert((p.server.clone(), p.operator.clone())) {
            chosen.push(i);
        }
    }
    for p in chosen.into_iter().map(|i| &pairs[i]) {
        println!("\n{} {} ({}):", p.server, p.what, p.operator);
        println!("  before: {}", p.before.replace('\n', "\n          "));
        println!("  after:  {}", p.after.replace('\n', "\n          "));
    }
}
