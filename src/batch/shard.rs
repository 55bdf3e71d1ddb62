//! Shards: disjoint, stable slices of a manifest, so that an existing scheduler (a Kubernetes
//! Indexed Job, a Slurm array, a GitHub Actions matrix) can run one batch on many machines.
//!
//! A server belongs to shard `hash(name) mod N`: its shard never depends on the other servers
//! or their order, so editing the manifest moves no other server.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The I-th of N slices, counted from 0 as Kubernetes and most arrays count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Default for Shard {
    /// The whole manifest.
    fn default() -> Shard {
        Shard { index: 0, count: 1 }
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// What `--shard` says: a fixed slice, or one to read from the scheduler's environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShardArg {
    Fixed(Shard),
    Auto,
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum ShardError {
    #[error("`{0}` is not a shard: give I/N with 0 <= I < N (shards count from 0), or `auto`")]
    Syntax(String),
    #[error(
        "--shard auto found no scheduler index: set MCPEVOL_SHARD_INDEX and MCPEVOL_SHARD_COUNT \
         (GitHub Actions: from strategy.job-index and strategy.job-total), or run as a Kubernetes \
         Indexed Job (JOB_COMPLETION_INDEX, with MCPEVOL_SHARD_COUNT or JOB_COMPLETIONS) or a \
         Slurm array (SLURM_ARRAY_TASK_ID, SLURM_ARRAY_TASK_COUNT)"
    )]
    NoScheduler,
    #[error("{var} is set but {missing} is not: the number of shards is needed too")]
    NoCount { var: &'static str, missing: String },
    #[error("{var}=`{value}` is not a whole number")]
    NotANumber { var: String, value: String },
    #[error(
        "the scheduler says shard {index} of {count}, which does not exist (shards count from 0)"
    )]
    OutOfRange { index: i64, count: i64 },
}

impl std::str::FromStr for ShardArg {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<ShardArg, ShardError> {
        if s == "auto" {
            return Ok(ShardArg::Auto);
        }
        parse_fixed(s).map(ShardArg::Fixed)
    }
}

fn parse_fixed(s: &str) -> Result<Shard, ShardError> {
    let syntax = || ShardError::Syntax(s.to_string());
    let (i, n) = s.split_once('/').ok_or_else(syntax)?;
    let index: u32 = i.trim().parse().map_err(|_| syntax())?;
    let count: u32 = n.trim().parse().map_err(|_| syntax())?;
    if count == 0 || index >= count {
        return Err(syntax());
    }
    Ok(Shard { index, count })
}

impl ShardArg {
    /// The slice to run; `Auto` reads the process environment.
    pub fn resolve(self) -> Result<Shard, ShardError> {
        match self {
            ShardArg::Fixed(s) => Ok(s),
            ShardArg::Auto => from_env(|k| std::env::var(k).ok()),
        }
    }
}

/// Reads the slice from a scheduler's variables, in this order: ours (any scheduler; how a
/// GitHub Actions matrix passes `strategy.job-index`/`job-total`), a Kubernetes Indexed Job's,
/// a Slurm array's.
pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Result<Shard, ShardError> {
    let number = |name: &str| -> Result<Option<i64>, ShardError> {
        var(name)
            .filter(|v| !v.trim().is_empty())
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| ShardError::NotANumber {
                    var: name.to_string(),
                    value: v,
                })
            })
            .transpose()
    };
    let count_for = |var: &'static str, names: &[&str]| -> Result<i64, ShardError> {
        for name in names {
            if let Some(n) = number(name)? {
                return Ok(n);
            }
        }
        Err(ShardError::NoCount {
            var,
            missing: names.join(" or "),
        })
    };
    let (index, count) = if let Some(i) = number("MCPEVOL_SHARD_INDEX")? {
        (
            i,
            count_for("MCPEVOL_SHARD_INDEX", &["MCPEVOL_SHARD_COUNT"])?,
        )
    } else if let Some(i) = number("JOB_COMPLETION_INDEX")? {
        let n = count_for(
            "JOB_COMPLETION_INDEX",
            &["MCPEVOL_SHARD_COUNT", "JOB_COMPLETIONS"],
        )?;
        (i, n)
    } else if let Some(id) = number("SLURM_ARRAY_TASK_ID")? {
        let n = count_for("SLURM_ARRAY_TASK_ID", &["SLURM_ARRAY_TASK_COUNT"])?;
        // Arrays may start anywhere (`--array=1-8`) and step (`--array=0-14:2`).
        let min = number("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
        let step = number("SLURM_ARRAY_TASK_STEP")?.unwrap_or(1).max(1);
        if (id - min) % step != 0 {
            return Err(ShardError::OutOfRange {
                index: id,
                count: n,
            });
        }
        ((id - min) / step, n)
    } else {
        return Err(ShardError::NoScheduler);
    };
    if count <= 0 || index < 0 || index >= count || count > i64::from(u32::MAX) {
        return Err(ShardError::OutOfRange { index, count });
    }
    Ok(Shard {
        index: index as u32,
        count: count as u32,
    })
}

impl Shard {
    /// Whether the server named `name` is in this slice.
    pub fn owns(&self, name: &str) -> bool {
        bucket(name) % u64::from(self.count) == u64::from(self.index)
    }
}

fn bucket(name: &str) -> u64 {
    let digest = Sha256::digest(name.as_bytes());
    u64::from_be_bytes(
        digest[..8]
            .try_into()
            .expect("a SHA-256 digest has 32 bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        move |k| map.get(k).cloned()
    }

    #[test]
    fn every_name_lands_in_exactly_one_of_n_shards() {
        let names: Vec<String> = (0..200).map(|i| format!("server-{i}")).collect();
        for count in 1..6 {
            let mut sizes = vec![0; count as usize];
            for name in &names {
                let owners: Vec<u32> = (0..count)
                    .filter(|&index| Shard { index, count }.owns(name))
                    .collect();
                assert_eq!(owners.len(), 1, "{name} in {count} shards: {owners:?}");
                sizes[owners[0] as usize] += 1;
            }
            // Hashing spreads 200 names over up to 5 shards without leaving one empty.
            assert!(sizes.iter().all(|&s| s > 0), "{count}: {sizes:?}");
        }
    }

    #[test]
    fn fixed_shards_parse_and_out_of_range_ones_are_refused() {
        assert_eq!(
            "2/3".parse::<ShardArg>(),
            Ok(ShardArg::Fixed(Shard { index: 2, count: 3 }))
        );
        assert_eq!("auto".parse::<ShardArg>(), Ok(ShardArg::Auto));
        for bad in ["3/3", "1/0", "x/2", "2", "-1/3"] {
            assert!(
                matches!(bad.parse::<ShardArg>(), Err(ShardError::Syntax(_))),
                "{bad}"
            );
        }
    }

    #[test]
    fn auto_reads_each_scheduler_and_counts_from_zero() {
        let kube = env(&[("JOB_COMPLETION_INDEX", "2"), ("JOB_COMPLETIONS", "4")]);
        assert_eq!(from_env(kube), Ok(Shard { index: 2, count: 4 }));
        let ours = env(&[("MCPEVOL_SHARD_INDEX", "0"), ("MCPEVOL_SHARD_COUNT", "3")]);
        assert_eq!(from_env(ours), Ok(Shard { index: 0, count: 3 }));
        // `sbatch --array=1-8`: task 1 is the first shard.
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "8"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
        ]);
        assert_eq!(from_env(slurm), Ok(Shard { index: 7, count: 8 }));
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "4"),
            ("SLURM_ARRAY_TASK_COUNT", "3"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_STEP", "2"),
        ]);
        assert_eq!(from_env(stepped), Ok(Shard { index: 2, count: 3 }));
    }

    #[test]
    fn auto_without_a_scheduler_or_its_count_says_what_to_set() {
        assert_eq!(from_env(env(&[])), Err(ShardError::NoScheduler));
        let no_count = from_env(env(&[("JOB_COMPLETION_INDEX", "1")])).unwrap_err();
        assert!(
            no_count.to_string().contains("JOB_COMPLETIONS"),
            "{no_count}"
        );
        let beyond = from_env(env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "5"),
        ]));
        assert_eq!(beyond, Err(ShardError::OutOfRange { index: 5, count: 5 }));
        let word = from_env(env(&[("MCPEVOL_SHARD_INDEX", "one")])).unwrap_err();
        assert!(word.to_string().contains("MCPEVOL_SHARD_INDEX"), "{word}");
    }
}
