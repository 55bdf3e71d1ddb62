//! Anchoring throughput on the real servers of servers-npm/, beside the bare tree-sitter parse
//! of the same files (the ceiling for this design), and the peak memory of `mcpevol anchor`.
//!
//! Run: `cargo bench --bench anchor` (after scripts/install-servers.sh). Medians of RUNS runs,
//! each variant measured in the same loop iteration so that machine noise hits all alike.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcpevol::anchor::{self, files::SourceFile};
use mcpevol::catalog::Catalog;
use rayon::prelude::*;

const RUNS: usize = 7;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn mbps(bytes: usize, d: Duration) -> f64 {
    bytes as f64 / 1e6 / d.as_secs_f64()
}

fn read_all(files: &[SourceFile]) -> Vec<(String, anchor::grammar::Lang)> {
    files
        .iter()
        .map(|f| (std::fs::read_to_string(&f.path).unwrap_or_default(), f.lang))
        .collect()
}

fn parse_serial(sources: &[(String, anchor::grammar::Lang)]) {
    for (src, lang) in sources {
        std::hint::black_box(anchor::parse_with(src, *lang, None));
    }
}

fn parse_parallel(sources: &[(String, anchor::grammar::Lang)]) {
    sources.par_iter().for_each(|(src, lang)| {
        std::hint::black_box(anchor::parse_with(src, *lang, None));
    });
}

/// Peak resident memory of `mcpevol anchor DIR --json` so far, in MB: the kernel's maximum over
/// the children waited for, so the bench's own memory does not count.
fn peak_rss_mb(bin: &Path, dir: &Path) -> f64 {
    let status = Command::new(bin)
        .arg("anchor")
        .arg(dir)
        .arg("--json")
        .stdout(Stdio::null())
        .status();
    assert!(
        status.is_ok_and(|s| s.success()),
        "mcpevol anchor failed on {}",
        dir.display()
    );
    let usage =
        nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN).unwrap();
    usage.max_rss() as f64 / 1024.0
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let catalog_dir = root.join("servers-npm");
    let catalog =
        Catalog::load(&catalog_dir.join("servers.toml")).expect("servers-npm/servers.toml");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_mcpevol"));
    let mut packages: Vec<PathBuf> = catalog
        .servers
        .iter()
        .map(|e| e.package_dir(&catalog_dir))
        .collect();
    packages.dedup();
    assert!(
        packages.iter().all(|p| p.is_dir()),
        "run scripts/install-servers.sh first"
    );

    println!(
        "anchoring benchmark: median of {RUNS} runs, {} threads",
        rayon::current_num_threads()
    );
    println!(
        "{:<48} {:>9} {:>6} {:>6} {:>10} {:>10} {:>11} {:>11}",
        "package",
        "bytes",
        "files",
        "tools",
        "anchor ms",
        "anchor MB/s",
        "parse1 MB/s",
        "parseN MB/s"
    );
    let (mut total_bytes, mut total_files, mut total_tools) = (0, 0, 0);
    let (mut t_anchor, mut t_serial, mut t_parallel) =
        (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    for dir in &packages {
        let files = anchor::source_files(dir);
        let sources = read_all(&files);
        let bytes: usize = sources.iter().map(|(s, _)| s.len()).sum();
        let (mut a, mut s, mut p) = (Vec::new(), Vec::new(), Vec::new());
        let mut tools = 0;
        for _ in 0..RUNS {
            // Cold anchoring, as for a package never seen: no tree kept from the last run.
            anchor::trees::clear();
            let start = Instant::now();
            tools = anchor::anchor(dir).unwrap().tools.len();
            a.push(start.elapsed());
            let start = Instant::now();
            parse_serial(&sources);
            s.push(start.elapsed());
            let start = Instant::now();
            parse_parallel(&sources);
            p.push(start.elapsed());
        }
        let (a, s, p) = (median(a), median(s), median(p));
        let name = dir
            .strip_prefix(catalog_dir.join("node_modules"))
            .unwrap_or(dir)
            .display()
            .to_string();
        println!(
            "{name:<48} {bytes:>9} {:>6} {tools:>6} {:>10.1} {:>10.2} {:>11.2} {:>11.2}",
            files.len(),
            a.as_secs_f64() * 1e3,
            mbps(bytes, a),
            mbps(bytes, s),
            mbps(bytes, p)
        );
        total_bytes += bytes;
        total_files += files.len();
        total_tools += tools;
        t_anchor += a;
        t_serial += s;
        t_parallel += p;
    }
    println!(
        "{:<48} {total_bytes:>9} {total_files:>6} {total_tools:>6} {:>10.1} {:>10.2} {:>11.2} {:>11.2}",
        "all",
        t_anchor.as_secs_f64() * 1e3,
        mbps(total_bytes, t_anchor),
        mbps(total_bytes, t_serial),
        mbps(total_bytes, t_parallel)
    );
    println!(
        "anchoring / bare parallel parse throughput: {:.0}%   anchoring / bare one-core parse: {:.0}%",
        100.0 * t_parallel.as_secs_f64() / t_anchor.as_secs_f64(),
        100.0 * t_serial.as_secs_f64() / t_anchor.as_secs_f64()
    );
    let peak = packages
        .iter()
        .map(|d| peak_rss_mb(&bin, d))
        .fold(0.0, f64::max);
    println!("peak RSS of `mcpevol anchor --json` over all packages: {peak:.1} MB");
    let largest = packages
        .iter()
        .flat_map(|d| anchor::source_files(d))
        .filter(|f| f.lang != anchor::grammar::Lang::Python)
        .max_by_key(|f| std::fs::metadata(&f.path).map_or(0, |m| m.len()));
    one_large_file(largest.expect("a source file").path);
    if let Some(extra) = std::env::var_os("MCPEVOL_BENCH_FILE") {
        one_large_file(PathBuf::from(extra));
    }
}

/// Cold anchoring of one large file (parse and facts) in a pool of one thread and in a pool of
/// every thread, alternated run by run.
fn one_large_file(path: PathBuf) {
    let lang = anchor::grammar::Lang::for_path(&path).expect("a JS or TS file");
    let bytes = std::fs::read(&path).expect("the file");
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    let (one, all) = (pool(1), pool(threads));
    let (mut t1, mut tn) = (Vec::new(), Vec::new());
    let mut tools = (0, 0);
    for _ in 0..RUNS {
        for (pool, times, count) in [(&one, &mut t1, &mut tools.0), (&all, &mut tn, &mut tools.1)] {
            anchor::trees::clear();
            let start = Instant::now();
            let facts = pool.install(|| anchor::read_source("f", lang, bytes.clone()));
            times.push(start.elapsed());
            *count = facts.candidates.len();
        }
    }
    assert_eq!(tools.0, tools.1, "the same candidates either way");
    let (t1, tn) = (median(t1), median(tn));
    println!(
        "one file, cold: {} ({} bytes): 1 thread {:.0} ms, {threads} threads {:.0} ms, {:.2}x",
        path.display(),
        bytes.len(),
        t1.as_secs_f64() * 1e3,
        tn.as_secs_f64() * 1e3,
        t1.as_secs_f64() / tn.as_secs_f64()
    );
}
