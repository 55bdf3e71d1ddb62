//! `mcpevol batch merge OUT DIR...`: the outputs of the shards of one batch joined into one
//! folder and one summary, as if the batch had run on one machine. Shards of another batch
//! (manifest, seed, rounds, backend), overlapping, missing or unfinished ones are refused.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::BatchError;
use super::shard::Shard;
use super::state::{self, BatchPlan, ServerState};
use super::summary::Summary;
use crate::workspace;

/// Joins the shard folders `dirs` into `out` (new or empty) and writes its summary.
pub fn merge(out: &Path, dirs: &[PathBuf]) -> Result<Summary, BatchError> {
    let shards = load(dirs)?;
    let (first_dir, first) = shards[0].clone();
    let by_index = one_batch(&first_dir, &first, &shards)?;
    let count = first.shard.count;
    complete(count, &by_index)?;
    finished(&shards)?;
    let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
    if !empty {
        return Err(refuse(format!(
            "{} is not empty; `batch merge` writes the merged batch into a new or empty folder",
            out.display()
        )));
    }
    copy(out, &shards)?;
    let merged = BatchPlan {
        shard: Shard::default(),
        ..first
    };
    merged.save(out)?;
    let all: Vec<Shard> = (0..count).map(|index| Shard { index, count }).collect();
    let summary = Summary::build(out, &merged, &all)?;
    summary.save(out)?;
    Ok(summary)
}

fn refuse(why: String) -> BatchError {
    BatchError::Merge(why)
}

/// Each folder's plan; at least one.
fn load(dirs: &[PathBuf]) -> Result<Vec<(PathBuf, BatchPlan)>, BatchError> {
    let mut shards = Vec::new();
    for dir in dirs {
        let plan = BatchPlan::load(dir)?.ok_or_else(|| {
            refuse(format!(
                "{} is not a batch folder (no {})",
                dir.display(),
                state::PLAN_FILE
            ))
        })?;
        shards.push((dir.clone(), plan));
    }
    if shards.is_empty() {
        return Err(refuse("no shard folders given".into()));
    }
    Ok(shards)
}

/// The shards by index, once it is sure they are distinct shards of one batch split one way.
fn one_batch<'a>(
    first_dir: &Path,
    first: &BatchPlan,
    shards: &'a [(PathBuf, BatchPlan)],
) -> Result<BTreeMap<u32, &'a Path>, BatchError> {
    let mut by_index: BTreeMap<u32, &Path> = BTreeMap::new();
    for (dir, plan) in shards {
        if let Some(what) = first.difference(plan) {
            return Err(refuse(format!(
                "{} and {} are shards of different batches: they differ in {what}",
                first_dir.display(),
                dir.display()
            )));
        }
        if plan.shard.count != first.shard.count {
            return Err(refuse(format!(
                "{} is shard {} but {} is shard {}: the batch was split in different ways",
                first_dir.display(),
                first.shard,
                dir.display(),
                plan.shard
            )));
        }
        if let Some(other) = by_index.insert(plan.shard.index, dir) {
            return Err(refuse(format!(
                "shard {} is given twice ({} and {}); shards overlap",
                plan.shard,
                other.display(),
                dir.display()
            )));
        }
    }
    Ok(by_index)
}

/// Every shard of the split is there.
fn complete(count: u32, by_index: &BTreeMap<u32, &Path>) -> Result<(), BatchError> {
    let missing: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|index| Shard { index, count }.to_string())
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    Err(refuse(format!(
        "shard{} {} of the batch {} missing; give every shard's folder",
        if missing.len() > 1 { "s" } else { "" },
        missing.join(", "),
        if missing.len() > 1 { "are" } else { "is" }
    )))
}

/// Every server of every shard has finished (committed its rounds, or stopped on an error).
fn finished(shards: &[(PathBuf, BatchPlan)]) -> Result<(), BatchError> {
    for (dir, plan) in shards {
        let unfinished: Vec<&str> = plan
            .owned()
            .map(|p| p.name.as_str())
            .filter(|name| {
                ServerState::load(dir, name).map_or(true, |st| !st.finished && st.error.is_none())
            })
            .collect();
        if !unfinished.is_empty() {
            return Err(refuse(format!(
                "shard {} ({}) has not finished: {}; run it again to resume it, then merge",
                plan.shard,
                dir.display(),
                unfinished.join(", ")
            )));
        }
    }
    Ok(())
}

/// Each shard's workspaces and state files, copied into `out`.
fn copy(out: &Path, shards: &[(PathBuf, BatchPlan)]) -> Result<(), BatchError> {
    for (dir, plan) in shards {
        for planned in plan.owned() {
            let name = &planned.name;
            let from = state::workspace_dir(dir, name);
            if from.exists() {
                workspace::copy_tree(&from, &state::workspace_dir(out, name)).map_err(|e| {
                    BatchError::Server {
                        name: name.clone(),
                        why: e.to_string(),
                    }
                })?;
            }
            ServerState::load(dir, name)?.save(out, name)?;
        }
    }
    Ok(())
}
