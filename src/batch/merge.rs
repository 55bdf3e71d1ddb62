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
    let refuse = |why: String| BatchError::Merge(why);
    let mut shards: Vec<(PathBuf, BatchPlan)> = Vec::new();
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
    let Some((first_dir, first)) = shards.first().cloned() else {
        return Err(refuse("no shard folders given".into()));
    };
    let mut by_index: BTreeMap<u32, &Path> = BTreeMap::new();
    for (dir, plan) in &shards {
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
    let count = first.shard.count;
    let missing: Vec<String> = (0..count)
        .filter(|i| !by_index.contains_key(i))
        .map(|index| Shard { index, count }.to_string())
        .collect();
    if !missing.is_empty() {
        return Err(refuse(format!(
            "shard{} {} of the batch {} missing; give every shard's folder",
            if missing.len() > 1 { "s" } else { "" },
            missing.join(", "),
            if missing.len() > 1 { "are" } else { "is" }
        )));
    }
    for (dir, plan) in &shards {
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
    let empty = std::fs::read_dir(out).map_or(true, |mut d| d.next().is_none());
    if !empty {
        return Err(BatchError::NotABatch(out.to_path_buf()));
    }
    for (dir, plan) in &shards {
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
