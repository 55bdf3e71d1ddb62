//! Evolves every server of a catalog (default `servers-npm/servers.toml`) 5 rounds with each of
//! several seeds and prints, per server and in total: versions reached, rounds committed, tries
//! that failed and were retried, the oracle's verdicts (passed, unverifiable), and the median
//! time per round outside the server step (anchor, mutate, check, commit) and in it.
//!
//!     cargo run --release --example seed_sweep -- [CATALOG] [SEED...]
//!
//! A measurement, not a test: its numbers are quoted in the issue notes and README.

mod common;

use std::collections::BTreeMap;

use mcpevol::evolve::RoundStatus;
use mcpevol::validate::{ProofStatus, Tally};
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

const ROUNDS: u32 = 5;

#[derive(Default)]
struct Row {
    reached: Vec<u32>,
    committed: usize,
    failed_tries: usize,
    tally: Tally,
    /// Committed versions proven by a passed check of their change, and those recorded
    /// unproven, with their reasons.
    proven: usize,
    unproven: Vec<String>,
    errors: Vec<String>,
    /// Per committed round: milliseconds outside the server step, and in it.
    overhead_ms: Vec<f64>,
    server_ms: Vec<f64>,
}

fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> anyhow::Result<()> {
    let sweep = common::Sweep::from_args(std::env::args().skip(1).collect())?;
    let seeds = &sweep.seeds;
    let scratch = tempfile::tempdir()?;
    let mut rows: BTreeMap<String, Row> = BTreeMap::new();
    let started = std::time::Instant::now();
    sweep.evolve_all(scratch.path(), ROUNDS, |id, _, work, result| {
        let row = rows.entry(id.to_string()).or_default();
        match result {
            Err(e) => row.errors.push(e),
            Ok(rounds) => {
                row.committed += rounds
                    .iter()
                    .filter(|r| r.status == RoundStatus::Committed)
                    .count();
                for r in rounds.iter().filter(|r| r.status == RoundStatus::Committed) {
                    let t = &r.timings;
                    row.overhead_ms
                        .push(t.anchor_ms + t.mutate_ms + t.check_ms + t.commit_ms);
                    row.server_ms.push(t.server_ms);
                }
                row.failed_tries += rounds
                    .iter()
                    .filter(|r| r.status == RoundStatus::Failed)
                    .count();
                let ws = Workspace::open(work)?;
                let versions = ws.versions()?;
                row.reached.push(versions.last().map_or(0, |v| v.number()));
                for v in versions.iter().skip(1) {
                    if let Some(r) = version_record::read_round(&ws, v.tag)? {
                        let t = r.tally();
                        row.tally.passed += t.passed;
                        row.tally.failed += t.failed;
                        row.tally.unverifiable += t.unverifiable;
                        if r.proof.proof == ProofStatus::Proven {
                            row.proven += 1;
                        } else {
                            row.unproven.push(format!(
                                "{} {}: {}",
                                v.tag,
                                r.operator
                                    .as_ref()
                                    .map(|o| o.to_string())
                                    .unwrap_or_default(),
                                r.proof.unproven_reason.clone().unwrap_or_default()
                            ));
                        }
                    }
                }
            }
        }
        Ok(())
    })?;
    println!(
        "{:<22} {:>10} {:>9} {:>7} {:>12} {:>7} {:>13} {:>12} {:>10}",
        "server",
        "reached",
        "committed",
        "proven",
        "failed tries",
        "passed",
        "unverifiable",
        "overhead ms",
        "server ms"
    );
    let (mut committed, mut tries, mut planned, mut proven) = (0, 0, 0, 0);
    let mut unproven = Vec::new();
    for (id, row) in rows.iter_mut() {
        let reached: Vec<String> = row.reached.iter().map(|n| format!("v{n}")).collect();
        println!(
            "{id:<22} {:>10} {:>9} {:>7} {:>12} {:>7} {:>13} {:>12.1} {:>10.0}{}",
            reached.join(","),
            row.committed,
            row.proven,
            row.failed_tries,
            row.tally.passed,
            row.tally.unverifiable,
            median(&mut row.overhead_ms),
            median(&mut row.server_ms),
            if row.errors.is_empty() {
                String::new()
            } else {
                format!("  error: {}", row.errors.join("; "))
            }
        );
        committed += row.committed;
        proven += row.proven;
        unproven.extend(row.unproven.iter().map(|u| format!("{id} {u}")));
        tries += row.failed_tries;
        planned += ROUNDS as usize * seeds.len();
    }
    println!(
        "\n{} servers x {} seeds x {ROUNDS} rounds: {committed} of {planned} versions made ({:.1}%), {tries} failed tries retried ({:.1}% of all tries), {:.0} s",
        rows.len(),
        seeds.len(),
        100.0 * committed as f64 / planned.max(1) as f64,
        100.0 * tries as f64 / (committed + tries).max(1) as f64,
        started.elapsed().as_secs_f64()
    );
    let versions = proven + unproven.len();
    println!(
        "proof: {proven} of {versions} versions proven ({:.1}%), {} unproven; rounds committed: {committed} of {} rounds tried ({:.1}%)",
        100.0 * proven as f64 / versions.max(1) as f64,
        unproven.len(),
        committed + tries,
        100.0 * committed as f64 / (committed + tries).max(1) as f64,
    );
    for u in &unproven {
        println!("  unproven {u}");
    }
    Ok(())
}
