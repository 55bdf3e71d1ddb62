//! Time of a 5-round evolution of every server of servers-npm/, split by pipeline step:
//! anchor, mutate, check (apply + syntax), server (start, list, contract, functional tests),
//! commit. The target: everything but the server step under 100 ms per round. `overlapped` is
//! work another thread did during the server step (the tree-sitter check of the edit, then the
//! edited files' facts read ahead for the next anchoring); any wait for it after the server
//! step is counted in `check`.
//! `previous` is the server time the oracle adds by running the previous version: its
//! baseline (two sessions at once, observed before the round) and any re-sampling within
//! `server`.
//!
//! Run: `cargo bench --bench evolve` (after scripts/install-servers.sh); words after `--` keep
//! only the servers whose id contains one of them (`cargo bench --bench evolve -- wiki`);
//! `MCPEVOL_BENCH_CATALOG=path/servers.toml` evolves another catalog's servers.

use std::path::PathBuf;

use mcpevol::anchor;
use mcpevol::catalog::Catalog;
use mcpevol::evolve::{self, Backend, EvolveOptions, Timings};
use mcpevol::init::{InitOptions, init};

const ROUNDS: u32 = 5;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    // Another catalog (servers never tuned on, a server with a huge bundle) by its path.
    let catalog_path = std::env::var_os("MCPEVOL_BENCH_CATALOG")
        .map_or_else(|| root.join("servers-npm/servers.toml"), PathBuf::from);
    let dir = catalog_path.parent().expect("a catalog file").to_path_buf();
    let catalog = Catalog::load(&catalog_path).expect("the catalog");
    let scratch = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    println!("evolution benchmark: {ROUNDS} rounds per server, median ms per round");
    println!(
        "{:<48} {:>9} {:>7} {:>7} {:>7} {:>8} {:>7} {:>9} {:>10}",
        "package",
        "bytes",
        "anchor",
        "mutate",
        "check",
        "server",
        "commit",
        "non-server",
        "overlapped"
    );
    // cargo passes `--bench`; the other arguments filter servers by id.
    let only: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let mut seen = Vec::new();
    let mut rows: Vec<(usize, String, f64)> = Vec::new();
    for entry in &catalog.servers {
        if seen.contains(&entry.package)
            || !(only.is_empty() || only.iter().any(|o| entry.id.contains(o.as_str())))
        {
            continue;
        }
        seen.push(entry.package.clone());
        let source = entry.package_dir(&dir);
        let bytes: usize = anchor::source_files(&source)
            .iter()
            .map(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len() as usize))
            .sum();
        let work = scratch.path().join(&entry.id);
        let init_opts = InitOptions::new(Some(entry.launch_config(&dir)));
        let opts = EvolveOptions::new(ROUNDS, 7);
        let rounds = rt.block_on(async {
            init(&source.to_string_lossy(), &work, &init_opts)
                .await
                .expect("init");
            evolve::evolve(&work, &Backend::Rules, &opts, |_| {})
                .await
                .expect("evolve")
        });
        let t: Vec<&Timings> = rounds.iter().map(|r| &r.timings).collect();
        if std::env::var_os("MCPEVOL_BENCH_ROUNDS").is_some() {
            for (r, x) in rounds.iter().zip(&t) {
                eprintln!(
                    "  {} {:?} attempts {}: {x:?}",
                    r.version, r.operator, r.attempts
                );
            }
        }
        let pick = |f: fn(&Timings) -> f64| median(t.iter().map(|x| f(x)).collect());
        let (a, m, c, s, k, o, p) = (
            pick(|x| x.anchor_ms),
            pick(|x| x.mutate_ms),
            pick(|x| x.check_ms),
            pick(|x| x.server_ms),
            pick(|x| x.commit_ms),
            pick(|x| x.overlapped_ms),
            pick(|x| x.previous_ms),
        );
        let non_server = median(
            t.iter()
                .map(|x| x.anchor_ms + x.mutate_ms + x.check_ms + x.commit_ms)
                .collect(),
        );
        println!(
            "{:<48} {bytes:>9} {a:>7.1} {m:>7.2} {c:>7.1} {s:>8.0} {k:>7.1} {non_server:>9.1} {o:>10.1} {p:>8.0}",
            entry.package
        );
        rows.push((bytes, entry.package.clone(), non_server));
    }
    if let Some((bytes, name, non_server)) = rows.iter().max_by_key(|r| r.0) {
        println!(
            "largest server: {name} ({bytes} bytes): {non_server:.1} ms per round outside the server step (target < 100 ms)"
        );
    }
}
