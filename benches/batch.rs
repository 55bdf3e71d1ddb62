//! `mcpevol batch` over every server of servers-npm/, 5 rounds with the rules backend, at
//! `--jobs 1` and `--jobs 2`, in one run: wall time, speedup, peak memory of mcpevol itself (its
//! own VmHWM, not the node servers it starts), CPU time of mcpevol and of its children (node,
//! npm), and the share of each server's time spent waiting on node (server start, listing,
//! calls; installing). Targets: a speedup of at least 1.6x on a 2-core machine, mcpevol's peak
//! memory under 150 MB.
//!
//! Run: `cargo bench --bench batch` (after scripts/install-servers.sh).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

const ROUNDS: &str = "5";
const SEED: &str = "7";
const POLL: Duration = Duration::from_millis(50);
const TARGET_SPEEDUP: f64 = 1.6;
const TARGET_PEAK_MB: f64 = 150.0;

struct Run {
    jobs: usize,
    wall: f64,
    peak_mb: f64,
    self_cpu: f64,
    children_cpu: f64,
    summary: Value,
}

/// `VmHWM` (peak resident memory) of a live process, in MB.
fn peak_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

/// CPU seconds (user + system) of a live process itself.
fn self_cpu(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which may hold spaces, closed by the last ')'.
    let rest = &stat[stat.rfind(')')? + 2..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = fields[11].parse::<f64>().ok()? + fields[12].parse::<f64>().ok()?;
    Some(ticks / clock_ticks())
}

/// Clock ticks per second, the unit of /proc times.
fn clock_ticks() -> f64 {
    static TICKS: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *TICKS.get_or_init(|| {
        let out = Command::new("getconf")
            .arg("CLK_TCK")
            .output()
            .expect("getconf");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number of ticks")
    })
}

fn children_cpu() -> f64 {
    let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
        .expect("getrusage");
    let secs = |t: nix::sys::time::TimeVal| t.tv_sec() as f64 + t.tv_usec() as f64 / 1e6;
    secs(usage.user_time()) + secs(usage.system_time())
}

fn run(manifest: &Path, out: &Path, jobs: usize) -> Run {
    let before_children = children_cpu();
    let started = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcpevol"))
        .args([
            "batch",
            manifest.to_str().unwrap(),
            "--rounds",
            ROUNDS,
            "--seed",
            SEED,
        ])
        .args([
            "--jobs",
            &jobs.to_string(),
            "--out",
            out.to_str().unwrap(),
            "--json",
        ])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mcpevol starts");
    let (mut peak, mut cpu) = (0.0f64, 0.0f64);
    let status = loop {
        if let Some(p) = peak_mb(child.id()) {
            peak = peak.max(p);
        }
        if let Some(c) = self_cpu(child.id()) {
            cpu = cpu.max(c);
        }
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        std::thread::sleep(POLL);
    };
    let wall = started.elapsed().as_secs_f64();
    let summary: Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("summary.json")).expect("summary.json"),
    )
    .unwrap();
    if !status.success() {
        eprintln!(
            "note: mcpevol batch --jobs {jobs} exited {status}: some servers stopped on an error"
        );
    }
    Run {
        jobs,
        wall,
        peak_mb: peak,
        self_cpu: cpu,
        children_cpu: (children_cpu() - before_children - cpu).max(0.0),
        summary,
    }
}

fn sum(summary: &Value, step: &str) -> f64 {
    summary["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["steps"][step].as_f64().unwrap_or(0.0))
        .sum()
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let manifest = root.join("servers-npm/servers.toml");
    // Kept after the run, to read the summaries and workspaces.
    let kept = root.join("target/bench-batch");
    let _ = std::fs::remove_dir_all(&kept);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "batch benchmark: every server of servers-npm/, {ROUNDS} rounds, rules backend, {cores} cores, \
         load average {} (other work on the machine skews the speedup)",
        load_average()
    );
    let runs: Vec<Run> = [1, 2]
        .iter()
        .map(|&jobs| run(&manifest, &kept.join(format!("jobs{jobs}")), jobs))
        .collect();
    println!(
        "load average after: {}; outputs in {}",
        load_average(),
        kept.display()
    );
    println!(
        "{:>4} {:>8} {:>8} {:>12} {:>12} {:>9} {:>9} {:>7}",
        "jobs", "wall s", "peak MB", "mcpevol cpu", "children cpu", "servers", "rounds", "failed"
    );
    for r in &runs {
        let t = &r.summary["totals"];
        println!(
            "{:>4} {:>8.1} {:>8.1} {:>11.1}s {:>11.1}s {:>4}/{:<4} {:>9} {:>7}",
            r.jobs,
            r.wall,
            r.peak_mb,
            r.self_cpu,
            r.children_cpu,
            t["complete"],
            t["servers"],
            t["rounds_committed"],
            t["rounds_failed"]
        );
    }
    for r in &runs {
        let s = &r.summary;
        let per_server: f64 = s["servers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|x| x["seconds"].as_f64().unwrap_or(0.0) * 1e3)
            .sum();
        let node = sum(s, "server_ms") + sum(s, "init_ms");
        let steps = [
            "init_ms",
            "anchor_ms",
            "mutate_ms",
            "check_ms",
            "server_ms",
            "commit_ms",
        ];
        let split: Vec<String> = steps
            .iter()
            .map(|k| {
                format!(
                    "{} {:.0}%",
                    k.trim_end_matches("_ms"),
                    100.0 * sum(s, k) / per_server
                )
            })
            .collect();
        println!(
            "jobs {}: waiting on node (init + server steps) {:.0}% of the servers' time; {}",
            r.jobs,
            100.0 * node / per_server,
            split.join(", ")
        );
    }
    // The best --jobs 2 can do: half the servers' time, or the longest server if more.
    let times: Vec<(String, f64)> = runs[0].summary["servers"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| {
            (
                x["name"].as_str().unwrap().to_string(),
                x["seconds"].as_f64().unwrap_or(0.0),
            )
        })
        .collect();
    let total: f64 = times.iter().map(|t| t.1).sum();
    let longest = times
        .iter()
        .cloned()
        .fold((String::new(), 0.0), |a, b| if b.1 > a.1 { b } else { a });
    println!(
        "servers' time at --jobs 1: {total:.1} s in all, longest {} {:.1} s: --jobs 2 cannot take less than {:.1} s ({:.2}x)",
        longest.0,
        longest.1,
        (total / 2.0).max(longest.1),
        runs[0].wall / (total / 2.0).max(longest.1)
    );
    let speedup = runs[0].wall / runs[1].wall;
    let peak = runs.iter().map(|r| r.peak_mb).fold(0.0, f64::max);
    println!(
        "speedup --jobs 2 over --jobs 1: {speedup:.2}x (target >= {TARGET_SPEEDUP}x: {})",
        if speedup >= TARGET_SPEEDUP {
            "met"
        } else {
            "NOT met"
        }
    );
    println!(
        "peak memory of mcpevol: {peak:.1} MB (target < {TARGET_PEAK_MB} MB: {})",
        if peak < TARGET_PEAK_MB {
            "met"
        } else {
            "NOT met"
        }
    );
}
