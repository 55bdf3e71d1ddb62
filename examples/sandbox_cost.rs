//! What the sandbox costs at a server's start: each package is started and its tools listed
//! over and over, under three settings measured side by side, one after the other in turn:
//!
//! - `off`: `--sandbox off` (a scratch copy and a scrubbed environment only);
//! - `namespaces`: the user, mount and network namespaces alone (the sandbox before Landlock,
//!   the PID namespace and seccomp);
//! - `full`: everything this machine enforces.
//!
//!     cargo run --release --example sandbox_cost -- [ROUNDS] [PACKAGE]...
//!
//! Defaults: 15 rounds of `fixtures/switch-esm` and `fixtures/python/fastmcp-decorators`. A
//! setting is chosen once per process (the machine is probed once), so each round runs one
//! child process per setting, each starting every package once. Prints per package and setting
//! the median start-and-list time and its ratio to `off`. A measurement, not a test: its
//! numbers are quoted in RELIABILITY.md.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use mcpevol::server::sandbox::{self, Isolation, WITHOUT_VAR};
use mcpevol::server::session::list_tools;

const SETTINGS: [(&str, Isolation, &str); 3] = [
    ("off", Isolation::Off, ""),
    ("namespaces", Isolation::On, "landlock,pid,seccomp"),
    ("full", Isolation::On, ""),
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(setting) = args.first().and_then(|a| a.strip_prefix("--child=")) {
        return child(setting, &args[1..]);
    }
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(15);
    let mut packages: Vec<String> = args.iter().skip(1).cloned().collect();
    if packages.is_empty() {
        packages = ["fixtures/switch-esm", "fixtures/python/fastmcp-decorators"]
            .map(String::from)
            .to_vec();
    }
    let me = std::env::current_exe().expect("the example's own path");
    // times[package][setting]: one sample per round.
    let mut times = vec![vec![Vec::new(); SETTINGS.len()]; packages.len()];
    for _ in 0..rounds {
        for (s, (name, _, without)) in SETTINGS.iter().enumerate() {
            let out = Command::new(&me)
                .arg(format!("--child={name}"))
                .args(&packages)
                .env(WITHOUT_VAR, without)
                .output()
                .expect("the child runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout);
            for (p, line) in text.lines().enumerate() {
                times[p][s].push(line.parse::<f64>().expect("milliseconds"));
            }
        }
    }
    println!("{rounds} rounds, medians of start + tools/list, in ms (ratio to off)");
    println!(
        "{:<45} {:>14} {:>14} {:>14}",
        "package", "off", "namespaces", "full"
    );
    for (p, package) in packages.iter().enumerate() {
        let medians: Vec<f64> = times[p].iter_mut().map(|t| median(t)).collect();
        let cells: Vec<String> = medians
            .iter()
            .map(|m| format!("{m:.0} ({:.2})", m / medians[0]))
            .collect();
        println!(
            "{:<45} {:>14} {:>14} {:>14}",
            package, cells[0], cells[1], cells[2]
        );
    }
}

/// One start of each package under `setting`, printing the milliseconds each took.
fn child(setting: &str, packages: &[String]) {
    let (_, isolation, _) = SETTINGS
        .iter()
        .find(|(name, _, _)| *name == setting)
        .expect("a known setting");
    if let Some(warning) = sandbox::set_isolation(*isolation)
        && setting == "full"
    {
        eprintln!("warning: {warning}");
    }
    let rt = tokio::runtime::Runtime::new().expect("a runtime");
    for package in packages {
        let root = PathBuf::from(package);
        let started = Instant::now();
        let listed = rt.block_on(list_tools(&root, &[], Duration::from_secs(30)));
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        assert!(listed.is_ok(), "{package}: {:?}", listed.err());
        println!("{ms}");
    }
}

fn median(samples: &mut [f64]) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}
