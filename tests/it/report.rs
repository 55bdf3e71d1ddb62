//! `mcpevol report`: the HTML page of an evolved batch opened in a real headless Chromium (no
//! console errors, no request beyond the file, sections and counts as the records say, a
//! screenshot kept under target/tmp/report/), and the Markdown page's sections and counts.

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::ok;

use serde_json::Value;

use mcpevol::version_record::{self, RoundRecord};
use mcpevol::workspace::Workspace;

const SERVERS: [&str; 3] = ["switch-esm", "register-esm", "if-cjs"];

fn evolved_batch(tmp: &Path) -> PathBuf {
    let args = [
        "--rounds",
        "4",
        "--seed",
        "6",
        "--jobs",
        "2",
        "--stages",
        "early=v0,middle=v2,late=v4",
    ];
    common::fixture_batch(tmp, &SERVERS, &args)
}

/// Each server's records, read straight from its workspace.
fn records(batch: &Path) -> BTreeMap<String, Vec<RoundRecord>> {
    SERVERS
        .iter()
        .map(|name| {
            let ws = Workspace::open(&batch.join("servers").join(name)).unwrap();
            let rs = ws
                .versions()
                .unwrap()
                .iter()
                .map(|v| version_record::read_round(&ws, v.tag).unwrap().unwrap())
                .collect();
            (name.to_string(), rs)
        })
        .collect()
}

fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Debian's chromium, installed here when missing (as scripts/test.sh does on a fresh machine).
fn chromium() -> Option<PathBuf> {
    let find = || on_path("chromium").or_else(|| on_path("chromium-browser"));
    if let Some(found) = find() {
        return Some(found);
    }
    if on_path("apt-get").is_some() {
        let apt = |args: &[&str]| {
            Command::new("apt-get")
                .args(args)
                .env("DEBIAN_FRONTEND", "noninteractive")
                .status()
        };
        let _ = apt(&["update", "-qq"]);
        let _ = apt(&["install", "-y", "-qq", "chromium"]);
    }
    find()
}

#[test]
fn the_html_report_opens_in_headless_chromium_without_errors_and_shows_every_section() {
    let Some(browser) = chromium() else {
        eprintln!(
            "\n\n!!!!!!!! SKIPPED: the HTML report was NOT checked in a browser: chromium is not \
             installed and `apt-get install chromium` failed here !!!!!!!!\n\n"
        );
        return;
    };
    let tmp = tempfile::tempdir().unwrap();
    let batch = evolved_batch(tmp.path());
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report");
    let _ = std::fs::remove_dir_all(&out_dir);
    std::fs::create_dir_all(&out_dir).unwrap();
    let html = out_dir.join("report.html");
    let shot = out_dir.join("report.png");
    let drift = drift_of(&batch, &out_dir);
    ok(Command::new(common::bin())
        .args([
            "report",
            batch.to_str().unwrap(),
            "--html",
            html.to_str().unwrap(),
            "--drift",
            out_dir.join("drift.json").to_str().unwrap(),
        ])
        .output()
        .unwrap());
    let page = ok(Command::new("node")
        .arg(common::repo().join("tests/browser/check-report.mjs"))
        .args([&browser, &html, &shot])
        .output()
        .unwrap());
    let seen: Value = serde_json::from_slice(&page.stdout).unwrap();
    eprintln!("screenshot: {}", shot.display());

    let problems: Vec<&Value> = seen["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["type"] == "error" || m["type"] == "warn")
        .collect();
    assert!(problems.is_empty(), "console: {problems:?}");
    assert_eq!(seen["pageErrors"], Value::Array(vec![]));
    assert_eq!(
        seen["external"],
        Value::Array(vec![]),
        "the page loads nothing"
    );

    let counts = &seen["counts"];
    let sections: Vec<&str> = counts["sections"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(
        sections,
        ["Overview", "switch-esm", "register-esm", "if-cjs"]
    );
    assert_eq!(counts["overviewRows"], serde_json::json!(SERVERS));

    let all = records(&batch);
    let mut operators: BTreeMap<String, u64> = BTreeMap::new();
    let mut patterns: BTreeMap<String, u64> = BTreeMap::new();
    let mut changes = 0;
    for (name, rs) in &all {
        let shown = counts["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name.as_str())
            .unwrap();
        let breaking: usize = rs
            .iter()
            .map(|r| r.schema_changes.iter().filter(|c| c.breaking).count())
            .sum();
        assert_eq!(shown["rounds"], rs.len(), "{name}");
        assert_eq!(
            shown["timeline"].as_array().unwrap().len(),
            rs.len(),
            "{name}"
        );
        assert_eq!(
            shown["stages"],
            serde_json::json!(["early", "middle", "late"]),
            "{name}"
        );
        assert_eq!(
            shown["details"],
            rs.len() - 1,
            "{name}: one detail per round"
        );
        assert_eq!(shown["diffs"], rs.len() - 1, "{name}");
        assert_eq!(shown["openDiffs"], 0, "{name}: diffs start collapsed");
        assert_eq!(shown["breaking"], breaking, "{name}");
        assert_eq!(shown["badges"], breaking, "{name}");
        assert!(
            shown["coloured"].as_u64().unwrap() > 0,
            "{name}: the code is coloured"
        );
        for r in rs {
            if let Some(op) = &r.operator {
                *operators.entry(op.to_string()).or_default() += 1;
            }
            for p in &r.patterns {
                *patterns.entry(p.to_string()).or_default() += 1;
            }
            changes += r.schema_changes.len() as u64;
        }
    }
    let chart = |id: &str| -> BTreeMap<String, u64> {
        let c = counts["charts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["id"] == id)
            .unwrap();
        c["bars"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b[0].as_str().unwrap().to_string(), b[1].as_u64().unwrap()))
            .collect()
    };
    assert_eq!(chart("chart-operators"), operators);
    assert_eq!(chart("chart-patterns"), patterns);
    let stages = chart("chart-stages");
    assert_eq!(
        stages.keys().collect::<Vec<_>>(),
        ["early", "late", "middle"]
    );
    assert_eq!(stages.values().sum::<u64>(), changes);
    assert!(
        breaking_total(&all) > 0,
        "the fixture rounds include a breaking change"
    );

    check_overview_totals(&seen, &all);
    check_drift_matrices(&seen, &drift);

    assert!(
        seen["openHeight"].as_u64().unwrap() > seen["closedHeight"].as_u64().unwrap() + 500,
        "opened diffs show code"
    );
    assert!(
        std::fs::metadata(&shot).unwrap().len() > 50_000,
        "a real screenshot"
    );
}

/// `mcpevol drift --json` of the batch, two servers at once, kept as `dir/drift.json`.
fn drift_of(batch: &Path, dir: &Path) -> Value {
    let out = ok(Command::new(common::bin())
        .args(["drift", batch.to_str().unwrap(), "--jobs", "2", "--json"])
        .output()
        .unwrap());
    std::fs::write(dir.join("drift.json"), &out.stdout).unwrap();
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The overview's test totals are the rounds' own (v1 on), as `log` counts each version.
fn check_overview_totals(seen: &Value, all: &BTreeMap<String, Vec<RoundRecord>>) {
    for row in seen["counts"]["overviewTests"].as_array().unwrap() {
        let name = row["server"].as_str().unwrap();
        let mut t = (0, 0, 0);
        let (mut proven, mut unproven) = (0, 0);
        for r in all[name].iter().filter(|r| r.version.number() > 0) {
            let tally = r.tally();
            t = (
                t.0 + tally.passed,
                t.1 + tally.failed,
                t.2 + tally.unverifiable,
            );
            if r.proof.is_proven() {
                proven += 1;
            } else {
                unproven += 1;
            }
        }
        assert_eq!(
            row["tests"].as_str().unwrap(),
            format!("{} / {} / {}", t.0, t.1, t.2),
            "{name}: the rounds' tests, not the original's calls"
        );
        // Versions proven or not, as `log --json` says of each.
        assert_eq!(
            row["proof"].as_str().unwrap(),
            format!("{proven} / {unproven}"),
            "{name}: proven / unproven versions"
        );
        assert_eq!(proven + unproven, all[name].len() - 1);
        let with_original: usize = all[name][0].tally().passed;
        assert!(
            with_original > 0,
            "{name}: the original's calls would change the count"
        );
    }
}

/// Each server's drift matrix holds every result of the audit: a cell per call and version
/// with its verdict, its reason as the title, coloured as the legend colours that verdict (a
/// colour per verdict), and every result that is not `same` again in text below.
fn check_drift_matrices(seen: &Value, drift: &Value) {
    let legend: BTreeMap<String, String> = seen["counts"]["legend"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p[0].as_str().unwrap().to_string(),
                p[1].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(legend.len(), 8, "every verdict in the legend: {legend:?}");
    let colours: std::collections::BTreeSet<&String> = legend.values().collect();
    assert_eq!(colours.len(), 8, "a colour per verdict: {legend:?}");
    let mut verdicts_seen = std::collections::BTreeSet::new();
    for server in drift["servers"].as_array().unwrap() {
        let name = server["name"].as_str().unwrap();
        let shown = seen["counts"]["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap();
        let matrix = &shown["drift"];
        assert_eq!(matrix["versions"], server["versions"], "{name}");
        let calls: Vec<u64> = server["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_u64().unwrap())
            .collect();
        assert_eq!(matrix["rows"], serde_json::json!(calls), "{name}");
        let cells = matrix["cells"].as_array().unwrap();
        let results = server["results"].as_array().unwrap();
        assert_eq!(
            cells.len(),
            results.len(),
            "{name}: a cell per call and version"
        );
        for r in results {
            let cell = cells
                .iter()
                .find(|c| c["call"] == r["call"] && c["version"] == r["version"])
                .unwrap_or_else(|| panic!("{name}: no cell for {r}"));
            let verdict = r["verdict"].as_str().unwrap();
            assert_eq!(cell["verdict"], verdict, "{name}");
            assert_eq!(cell["title"], r["reason"], "{name}: the reason on hover");
            assert!(
                cell["text"].as_str().unwrap().starts_with(verdict),
                "{name}: {cell}"
            );
            assert_eq!(
                cell["background"], legend[verdict],
                "{name}: coloured as {verdict}"
            );
            verdicts_seen.insert(verdict.to_string());
            let noted = matrix["notes"].as_array().unwrap().iter().any(|n| {
                n["call"] == r["call"]
                    && n["version"] == r["version"]
                    && n["text"]
                        .as_str()
                        .unwrap()
                        .contains(r["reason"].as_str().unwrap())
            });
            assert_eq!(
                noted,
                verdict != "same",
                "{name}: the reason in text, for {r}"
            );
        }
        assert_eq!(
            matrix["disagreements"].as_u64().unwrap() as usize,
            server["disagreements"].as_array().unwrap().len(),
            "{name}"
        );
    }
    assert!(
        verdicts_seen.len() >= 2,
        "the batch shows more than one verdict: {verdicts_seen:?}"
    );
}

fn breaking_total(all: &BTreeMap<String, Vec<RoundRecord>>) -> usize {
    all.values()
        .flatten()
        .map(|r| r.schema_changes.iter().filter(|c| c.breaking).count())
        .sum()
}

#[test]
fn the_markdown_report_has_a_section_per_round_and_marks_breaking_changes() {
    let tmp = tempfile::tempdir().unwrap();
    let batch = evolved_batch(tmp.path());
    // A failed round lives in the batch's state, not in the workspace.
    let state = batch.join("state/if-cjs.json");
    let mut st: Value = serde_json::from_str(&std::fs::read_to_string(&state).unwrap()).unwrap();
    st["failed_rounds"] = serde_json::json!([{"version": "v5", "operator": "O3", "reason": "contract: no tool removed"}]);
    std::fs::write(&state, st.to_string()).unwrap();
    let md = tmp.path().join("report.md");
    let drift = drift_of(&batch, tmp.path());
    ok(Command::new(common::bin())
        .args([
            "report",
            batch.to_str().unwrap(),
            "--markdown",
            md.to_str().unwrap(),
            "--drift",
            tmp.path().join("drift.json").to_str().unwrap(),
        ])
        .output()
        .unwrap());
    let text = std::fs::read_to_string(&md).unwrap();
    let all = records(&batch);
    let rounds: usize = all.values().map(|rs| rs.len() - 1).sum();
    assert_eq!(text.matches("\n### v").count(), rounds);
    assert_eq!(text.matches("**breaking**").count(), breaking_total(&all));
    assert_eq!(text.matches("```diff").count(), rounds);
    for name in SERVERS {
        assert!(text.contains(&format!("\n## {name}\n")), "{name}");
    }
    assert!(text.contains("| switch-esm | complete | v4 |"), "{text}");
    assert!(text.contains("| if-cjs | incomplete | v4 |"), "{text}");
    assert!(
        text.contains("Timeline: v0 [early] original → v1 "),
        "{text}"
    );
    assert!(
        text.contains(" → v5 failed (contract: no tool removed)\n"),
        "{text}"
    );
    assert_eq!(
        text.matches("\n### Drift of the original's calls\n")
            .count(),
        SERVERS.len()
    );
    for server in drift["servers"].as_array().unwrap() {
        for c in server["calls"].as_array().unwrap() {
            let row = format!("\n| {} | `{}` ", c["id"], c["tool"].as_str().unwrap());
            assert!(text.contains(&row), "{row} in {text}");
        }
    }
    let not_same = drift["servers"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["results"].as_array().unwrap())
        .filter(|r| r["verdict"] != "same")
        .count();
    let notes = text
        .lines()
        .filter(|l| l.starts_with("- #") && l.contains(": **"))
        .count();
    assert_eq!(
        notes, not_same,
        "a line for every call not answered the same"
    );
}
