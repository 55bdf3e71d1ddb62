//! The same batch with two binaries, one after the other on the same machine: an earlier
//! build (`OLD`, the binary before a speed change) and this one. Prints both wall times and
//! their ratio, each run's time per step (summed over servers), and whether every version got
//! the same commit id from both: a speed change must not change a verdict.
//!
//!     cargo build --release && cargo run --release --example batch_versus -- OLD [MANIFEST]
//!
//! MANIFEST defaults to `servers-npm/servers.toml`; 5 rounds, seed 7, `--jobs 2`. Outputs stay
//! in `target/bench-versus/`. A measurement, not a test: its numbers are quoted in the README.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use anyhow::{Context, Result, bail};
use serde_json::Value;

const ROUNDS: &str = "5";
const SEED: &str = "7";
const JOBS: &str = "2";
const STEPS: &[&str] = &[
    "init_ms",
    "anchor_ms",
    "mutate_ms",
    "check_ms",
    "server_ms",
    "commit_ms",
    "previous_ms",
];

struct Run {
    wall: f64,
    summary: Value,
    /// Server id, then version tag, to commit id.
    commits: BTreeMap<String, BTreeMap<String, String>>,
}

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let old = PathBuf::from(args.next().context("usage: batch_versus OLD [MANIFEST]")?);
    let manifest = PathBuf::from(
        args.next()
            .unwrap_or_else(|| "servers-npm/servers.toml".into()),
    );
    let new = std::env::current_exe()?
        .parent()
        .and_then(Path::parent)
        .map(|dir| dir.join("mcpevol"))
        .context("the example sits in target/<profile>/examples")?;
    let out = PathBuf::from("target/bench-versus");
    let mut runs = Vec::new();
    for (label, bin) in [("old", &old), ("new", &new)] {
        let dir = out.join(label);
        if dir.exists() {
            std::fs::remove_dir_all(&dir).with_context(|| format!("clear {}", dir.display()))?;
        }
        eprintln!("{label}: {} batch {}", bin.display(), manifest.display());
        runs.push(run(bin, &manifest, &dir)?);
    }
    let (old_run, new_run) = (&runs[0], &runs[1]);
    println!("machine: {} cores, load average after: {}", cores(), load());
    for (label, r) in [("old", old_run), ("new", new_run)] {
        let t = &r.summary["totals"];
        let steps: Vec<String> = STEPS
            .iter()
            .map(|s| {
                format!(
                    "{} {:.0} s",
                    s.trim_end_matches("_ms"),
                    sum(&r.summary, s) / 1e3
                )
            })
            .collect();
        println!(
            "{label}: wall {:.1} s, {} rounds committed, {} failed; {}",
            r.wall,
            t["rounds_committed"],
            t["rounds_failed"],
            steps.join(", ")
        );
    }
    println!(
        "speedup (old wall / new wall): {:.2}x",
        old_run.wall / new_run.wall
    );
    let (mut same, mut differ) = (0, Vec::new());
    for (server, versions) in &old_run.commits {
        for (tag, commit) in versions {
            match new_run.commits.get(server).and_then(|v| v.get(tag)) {
                Some(c) if c == commit => same += 1,
                other => differ.push(format!(
                    "{server} {tag}: {} / {}",
                    &commit[..12],
                    other.map_or("none", |c| &c[..12])
                )),
            }
        }
    }
    let only_new: usize = (new_run.commits.iter())
        .map(|(s, v)| {
            let old = old_run.commits.get(s);
            v.keys()
                .filter(|t| old.is_none_or(|o| !o.contains_key(*t)))
                .count()
        })
        .sum();
    println!(
        "commit ids: {same} the same, {} different, {only_new} made by the new binary only",
        differ.len()
    );
    for d in &differ {
        println!("  differs: {d}");
    }
    Ok(())
}

fn run(bin: &Path, manifest: &Path, out: &Path) -> Result<Run> {
    let started = Instant::now();
    let status = Command::new(bin)
        .args(["batch", &manifest.to_string_lossy(), "--rounds", ROUNDS])
        .args(["--seed", SEED, "--jobs", JOBS, "--json", "--out"])
        .arg(out)
        .stdout(Stdio::null())
        .status()
        .with_context(|| format!("start {}", bin.display()))?;
    let wall = started.elapsed().as_secs_f64();
    if !status.success() {
        eprintln!("note: {} exited {status}", bin.display());
    }
    let path = out.join("summary.json");
    let text =
        std::fs::read_to_string(&path).with_context(|| format!("read {}", path.display()))?;
    let summary: Value = serde_json::from_str(&text).context("summary.json")?;
    let mut commits = BTreeMap::new();
    let servers = out.join("servers");
    for entry in
        std::fs::read_dir(&servers).with_context(|| format!("list {}", servers.display()))?
    {
        let ws = entry?.path();
        let name = ws.file_name().unwrap().to_string_lossy().into_owned();
        commits.insert(name, tags(&ws)?);
    }
    if commits.is_empty() {
        bail!("no workspace under {}", servers.display());
    }
    Ok(Run {
        wall,
        summary,
        commits,
    })
}

/// Version tag to commit id, from `git for-each-ref`.
fn tags(ws: &Path) -> Result<BTreeMap<String, String>> {
    let out = Command::new("git")
        .arg("-C")
        .arg(ws)
        .args([
            "for-each-ref",
            "--format=%(refname:short) %(objectname) %(*objectname)",
        ])
        .arg("refs/tags/v*")
        .output()
        .with_context(|| format!("list the tags of {}", ws.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    // An annotated tag's own object first, then the commit it points at.
    Ok(text
        .lines()
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let (tag, object) = (words.next()?, words.next()?);
            Some((tag, words.next().unwrap_or(object)))
        })
        .filter(|(tag, _)| tag[1..].chars().all(|c| c.is_ascii_digit()))
        .map(|(tag, commit)| (tag.to_string(), commit.to_string()))
        .collect())
}

fn sum(summary: &Value, step: &str) -> f64 {
    (summary["servers"].as_array().into_iter().flatten())
        .map(|s| s["steps"][step].as_f64().unwrap_or(0.0))
        .sum()
}

fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
