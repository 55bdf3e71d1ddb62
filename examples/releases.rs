//! Evolves every server of a catalog (default `servers-npm/servers.toml`) 5 releases
//! (`--shape release`, the shipped target mix) with each of several seeds and prints, per
//! server and in total: releases committed, the realised pattern mix against the target
//! (total-variation distance), the median number of tools a release touched, the share of
//! releases touching more than one, the share of changed tools with a composite change, and the
//! share of committed changes proven (the others are recorded unproven with their reason);
//! then how machine-made the versions read (`mcpevol::realism`: suffix-named additions, the
//! most common added parameter, wrappers, formula phrases) beside the real figures.
//!
//!     MCPEVOL_ONLY=memory,time cargo run --release --example releases -- [CATALOG] [SEED...]
//!
//! `MCPEVOL_ONLY` picks servers by id; `MCPEVOL_KEEP=DIR` keeps the workspaces in DIR.
//!
//! A measurement, not a test: its numbers are quoted in the issue notes and README.

mod common;

use std::collections::BTreeMap;

use mcpevol::evolve::{self, EvolveOptions, RoundStatus};
use mcpevol::history;
use mcpevol::release::{self, Mix, RunMix, Shape, VersionEvents};
use mcpevol::workspace::Workspace;

const RELEASES: u32 = 5;

#[derive(Default)]
struct Row {
    committed: usize,
    failed_tries: usize,
    events: Vec<VersionEvents>,
    changes: usize,
    proven: usize,
    dropped: usize,
    errors: Vec<String>,
    realism: mcpevol::realism::Realism,
}

fn main() -> anyhow::Result<()> {
    let sweep = common::Sweep::from_args(std::env::args().skip(1).collect())?;
    let scratch = tempfile::tempdir()?;
    // MCPEVOL_KEEP=DIR keeps the workspaces there to look at afterwards.
    let keep = std::env::var_os("MCPEVOL_KEEP").map(std::path::PathBuf::from);
    let root = keep.as_deref().unwrap_or(scratch.path());
    let mix = std::sync::Arc::new(Mix::shipped());
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let started = std::time::Instant::now();
    let options = |seed| EvolveOptions {
        shape: Shape::Release,
        mix: mix.clone(),
        max_attempts: evolve::MAX_RELEASE_ATTEMPTS,
        ..EvolveOptions::new(RELEASES, seed)
    };
    sweep.evolve_all_with(root, &options, |id, seed, work, result| {
        let row = rows.entry(id.to_string()).or_default();
        let rounds = match result {
            Err(e) => {
                row.errors.push(format!("seed {seed}: {e}"));
                return Ok(());
            }
            Ok(rounds) => rounds,
        };
        row.committed += rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Committed)
            .count();
        row.failed_tries += rounds
            .iter()
            .filter(|r| r.status == RoundStatus::Failed)
            .count();
        // Why a try failed, so that a server left behind can be read from the sweep's log.
        for r in rounds.iter().filter(|r| r.status == RoundStatus::Failed) {
            let reason = r.reason.as_deref().unwrap_or("no reason recorded");
            eprintln!("{id} seed {seed}: a try of {} failed: {reason}", r.version);
        }
        let ws = Workspace::open(work)?;
        row.realism
            .add(mcpevol::realism::Realism::of_workspace(&ws)?);
        let records: Vec<_> = history::versions(&ws)?.into_iter().map(|(_, r)| r).collect();
        let m = history::run_mix(&records);
        // Progress, so that a long sweep shows its figures as it goes.
        eprintln!(
            "{id} seed {seed}: {} committed, {} events, tv {:.3}, median tools {:.1}, composite {:.0}%",
            rounds.iter().filter(|r| r.status == RoundStatus::Committed).count(),
            m.events,
            m.tv_distance.unwrap_or(1.0),
            m.median_tools_touched,
            100.0 * m.composite_share
        );
        for (v, r) in history::versions(&ws)? {
            if v.tag == mcpevol::workspace::VersionTag::ORIGINAL {
                continue;
            }
            row.events.push(release::classify(&r.schema_changes));
            row.changes += r.changes.len();
            row.proven += r.changes.iter().filter(|c| c.proof.is_proven()).count();
            row.dropped += r
                .rejected
                .iter()
                .filter(|x| x.reason.starts_with("dropped from the release"))
                .count();
        }
        Ok(())
    })?;
    println!(
        "{:<22} {:>9} {:>7} {:>6} {:>6} {:>7} {:>9} {:>7} {:>7}",
        "server", "committed", "failed", "TV", "tools", ">1 tool", "composite", "proven", "dropped"
    );
    let pct = |a: usize, b: usize| 100.0 * a as f64 / b.max(1) as f64;
    let mut all = Row::default();
    for (id, row) in &rows {
        let m = RunMix::of(&row.events, Some(&mix));
        println!(
            "{id:<22} {:>9} {:>7} {:>6.3} {:>6.1} {:>6.0}% {:>8.0}% {:>6.0}% {:>7}{}",
            row.committed,
            row.failed_tries,
            m.tv_distance.unwrap_or(1.0),
            m.median_tools_touched,
            100.0 * m.more_than_one_tool,
            100.0 * m.composite_share,
            pct(row.proven, row.changes),
            row.dropped,
            if row.errors.is_empty() {
                String::new()
            } else {
                format!("  error: {}", row.errors.join("; "))
            }
        );
        all.committed += row.committed;
        all.failed_tries += row.failed_tries;
        all.events.extend(row.events.iter().cloned());
        all.changes += row.changes;
        all.proven += row.proven;
        all.dropped += row.dropped;
        all.realism.add(row.realism.clone());
    }
    let planned = rows.len() * sweep.seeds.len() * RELEASES as usize;
    let m = RunMix::of(&all.events, Some(&mix));
    println!("\nrealised mix (target):");
    for (label, target) in &mix.patterns {
        println!(
            "  {:<6} {:>5.1}% ({:>4.1}%)",
            label.to_string(),
            100.0 * m.realised.get(label).copied().unwrap_or(0.0),
            100.0 * target
        );
    }
    println!(
        "\n{} servers x {} seeds x {RELEASES} releases: {} of {planned} releases committed ({:.1}%), \
         {} failed tries; {} events, TV distance {:.3}; median {:.1} tools touched per release, \
         {:.0}% touch more than one; {:.0}% of changed tools composite; {} of {} committed changes \
         proven ({:.1}%), {} changes dropped from releases; {:.0} s",
        rows.len(),
        sweep.seeds.len(),
        all.committed,
        pct(all.committed, planned),
        all.failed_tries,
        m.events,
        m.tv_distance.unwrap_or(1.0),
        m.median_tools_touched,
        100.0 * m.more_than_one_tool,
        100.0 * m.composite_share,
        all.proven,
        all.changes,
        pct(all.proven, all.changes),
        all.dropped,
        started.elapsed().as_secs_f64()
    );
    let r = &all.realism;
    println!("\n{}", r.summary());
    let mut names: Vec<_> = r.added_params.iter().collect();
    names.sort_by_key(|(name, n)| (std::cmp::Reverse(**n), *name));
    let top: Vec<String> = names
        .iter()
        .take(12)
        .map(|(n, c)| format!("{n} {c}"))
        .collect();
    println!("most common added parameters: {}", top.join(", "));
    println!("suffix-named additions: {}", r.suffix_named.join(", "));
    for f in &r.formulas {
        println!("formula: {f}");
    }
    Ok(())
}
