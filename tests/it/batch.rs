//! `mcpevol batch` end to end through the binary: real fixture servers, real git, shards in
//! separate processes, resume after SIGINT, merge refusals, bad manifests.

use crate::common;

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use crate::common::{mcpevol, ok};

use serde_json::Value;

const ROUNDS: &str = "3";
const SEED: &str = "7";

fn manifest() -> PathBuf {
    common::repo().join("fixtures/batch.toml")
}

/// `mcpevol batch` of the fixture manifest into `out`, ready to run.
fn batch_command(out: &Path, jobs: &str) -> Command {
    let mut cmd = Command::new(common::bin());
    cmd.arg("batch")
        .arg(manifest())
        .args(["--rounds", ROUNDS, "--seed", SEED, "--jobs", jobs, "--out"])
        .arg(out);
    cmd
}

fn batch(out: &Path, jobs: &str) -> Output {
    batch_command(out, jobs).output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn summary(dir: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap()
}

/// The summary without what differs from run to run (time; commit ids, see [`versions`]) or by
/// layout (shards).
fn comparable(mut s: Value) -> Value {
    s.as_object_mut().unwrap().remove("shards");
    for server in s["servers"].as_array_mut().unwrap() {
        let server = server.as_object_mut().unwrap();
        server.remove("seconds");
        server.remove("steps");
        for round in server["rounds"].as_array_mut().into_iter().flatten() {
            round.as_object_mut().unwrap().remove("commit");
        }
    }
    s
}

/// The JSON paths where `a` and `b` differ, each with both values: a failure's message says
/// what differs rather than printing two whole summaries.
fn differences(a: &Value, b: &Value, path: &str) -> Vec<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            keys.into_iter()
                .flat_map(|k| {
                    let (l, r) = (
                        x.get(k).unwrap_or(&Value::Null),
                        y.get(k).unwrap_or(&Value::Null),
                    );
                    differences(l, r, &format!("{path}.{k}"))
                })
                .collect()
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .flat_map(|(i, (l, r))| differences(l, r, &format!("{path}[{i}]")))
            .collect(),
        _ if a == b => Vec::new(),
        _ => vec![format!("{path}: merged {a} / unsharded {b}")],
    }
}

/// Every version tag of every server's workspace and its commit.
fn commits(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for ws in workspaces(dir) {
        for line in git(
            &ws,
            &[
                "for-each-ref",
                "--format=%(refname:short) %(objectname)",
                "refs/tags",
            ],
        )
        .lines()
        {
            let (tag, sha) = line.split_once(' ').unwrap();
            out.insert(format!("{}@{tag}", common::name_of(&ws)), sha.to_string());
        }
    }
    out
}

/// Every version of every server by what the seed decides: its commit message, its files and
/// its round record, less the one field that chance decides. A tool with random answers (the
/// fixtures' `roll_dice`) can give the same answer in both baseline sessions; the record then
/// says its output was compared (`compared: output`) where another run says `status`. So two
/// runs agree on these, and on commit ids only when no such coincidence happened.
fn versions(dir: &Path) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for ws in workspaces(dir) {
        for tag in git(&ws, &["tag", "--list"]).lines() {
            let files: Vec<String> = git(&ws, &["ls-tree", "-r", tag])
                .lines()
                .filter(|l| !l.ends_with(".mcpevol/round.json"))
                .map(str::to_string)
                .collect();
            let mut record: Value =
                serde_json::from_str(&git(&ws, &["show", &format!("{tag}:.mcpevol/round.json")]))
                    .unwrap();
            for test in record["tests"].as_array_mut().into_iter().flatten() {
                test.as_object_mut().unwrap().remove("compared");
            }
            let message = git(&ws, &["log", "-1", "--format=%B", tag]);
            out.insert(
                format!("{}@{tag}", common::name_of(&ws)),
                format!("{message}\n{}\n{record}", files.join("\n")),
            );
        }
    }
    out
}

fn workspaces(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir.join("servers"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect()
}

fn git(ws: &Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(args)
        .current_dir(ws)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?} in {}", ws.display());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn three_shards_in_separate_processes_merged_equal_one_unsharded_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    let out = ok(batch(&whole, "2"));
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("4 servers: 4 complete"), "{table}");
    let expected = summary(&whole);
    assert_eq!(expected["totals"]["rounds_committed"], 3 + 3 + 3 + 2);

    let shards: Vec<PathBuf> = (0..3)
        .map(|i| tmp.path().join(format!("shard{i}")))
        .collect();
    let children: Vec<_> = shards
        .iter()
        .enumerate()
        .map(|(i, dir)| {
            let m = manifest();
            Command::new(common::bin())
                .args([
                    "batch",
                    m.to_str().unwrap(),
                    "--rounds",
                    ROUNDS,
                    "--seed",
                    SEED,
                ])
                .args(["--out", dir.to_str().unwrap(), "--shard", "auto"])
                // As a Kubernetes Indexed Job runs it.
                .env("JOB_COMPLETION_INDEX", i.to_string())
                .env("JOB_COMPLETIONS", "3")
                .output()
                .unwrap()
        })
        .collect();
    for c in children {
        ok(c);
    }
    let owned: usize = shards
        .iter()
        .map(|d| summary(d)["servers"].as_array().unwrap().len())
        .sum();
    assert_eq!(owned, 4, "the shards split the servers without overlap");

    let merged = tmp.path().join("merged");
    let mut args = vec!["batch", "merge", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|d| d.to_str().unwrap()));
    ok(mcpevol(&args));
    let (merged_summary, expected) = (comparable(summary(&merged)), comparable(expected));
    assert!(
        merged_summary == expected,
        "merged and unsharded summaries differ at:\n{}",
        differences(&merged_summary, &expected, "").join("\n")
    );
    let whole_commits = commits(&whole);
    // v0-v3 with early and middle for three servers, v0-v2 with early for the fourth.
    assert_eq!(whole_commits.len(), 3 * 6 + 4, "{whole_commits:?}");
    assert_eq!(commits(&merged).len(), whole_commits.len());
    assert_eq!(versions(&merged), versions(&whole));
}

#[test]
fn merging_refuses_missing_overlapping_and_foreign_shards() {
    let tmp = tempfile::tempdir().unwrap();
    let shard = |name: &str, spec: &str, seed: &str| {
        let dir = tmp.path().join(name);
        let m = manifest();
        ok(mcpevol(&[
            "batch",
            m.to_str().unwrap(),
            "--rounds",
            "1",
            "--seed",
            seed,
            "--shard",
            spec,
            "--out",
            dir.to_str().unwrap(),
        ]));
        dir.to_str().unwrap().to_string()
    };
    let a = shard("a", "0/2", "1");
    let b = shard("b", "1/2", "1");
    let a_again = shard("a2", "0/2", "1");
    let other_seed = shard("c", "1/2", "2");
    let merge = |name: &str, dirs: &[&str]| {
        let out = tmp.path().join(name);
        let mut args = vec!["batch", "merge", out.to_str().unwrap()];
        args.extend_from_slice(dirs);
        let o = mcpevol(&args);
        assert!(!o.status.success(), "merged {dirs:?}");
        assert!(!out.join("summary.json").exists());
        stderr(&o)
    };
    let missing = merge("m1", &[&a]);
    assert!(
        missing.contains("shard 1/2 of the batch is missing"),
        "{missing}"
    );
    let overlap = merge("m2", &[&a, &a_again, &b]);
    assert!(overlap.contains("shard 0/2 is given twice"), "{overlap}");
    let foreign = merge("m3", &[&a, &other_seed]);
    assert!(
        foreign.contains("different batches") && foreign.contains("seed (1 vs 2)"),
        "{foreign}"
    );
    ok(mcpevol(&[
        "batch",
        "merge",
        tmp.path().join("m4").to_str().unwrap(),
        &a,
        &b,
    ]));
    // Merging into a folder that already holds a batch (the one just merged) is refused as a
    // folder that is not empty, naming no flag `merge` does not have.
    let again = mcpevol(&[
        "batch",
        "merge",
        tmp.path().join("m4").to_str().unwrap(),
        &a,
        &b,
    ]);
    assert!(!again.status.success());
    let why = stderr(&again);
    assert!(
        why.contains("is not empty") && !why.contains("--out"),
        "{why}"
    );
}

#[test]
fn a_batch_interrupted_by_sigint_resumes_to_the_same_commits_as_an_uninterrupted_run() {
    let tmp = tempfile::tempdir().unwrap();
    let whole = tmp.path().join("whole");
    ok(batch(&whole, "1"));

    let resumed = tmp.path().join("resumed");
    let mut child = batch_command(&resumed, "2")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Interrupt once the first round is committed: mid-way through the batch.
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = Vec::new();
    for line in lines.by_ref() {
        let line = line.unwrap();
        seen.push(line.clone());
        if line.contains("committed") {
            break;
        }
    }
    nix::sys::signal::kill(
        nix::unistd::Pid::from_raw(child.id() as i32),
        nix::sys::signal::Signal::SIGINT,
    )
    .unwrap();
    let rest: Vec<String> = lines.map(Result::unwrap).collect();
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted batch exits non-zero");
    let tail = rest.join("\n");
    assert!(
        tail.contains("run the same command to resume"),
        "{seen:?}\n{tail}"
    );
    let interrupted = summary(&resumed);
    assert!(
        interrupted["totals"]["interrupted"].as_u64().unwrap() >= 1,
        "{interrupted}"
    );
    // Every started workspace is clean, at a version tag.
    for entry in std::fs::read_dir(resumed.join("servers")).unwrap() {
        let ws = mcpevol::workspace::Workspace::open(&entry.unwrap().path()).unwrap();
        assert!(ws.dirty_paths().unwrap().is_empty());
        assert_eq!(ws.head().unwrap(), ws.latest().unwrap().unwrap().commit);
    }
    let before = commits(&resumed);
    assert!(
        before.len() < commits(&whole).len(),
        "the batch was stopped early"
    );

    ok(batch(&resumed, "2"));
    assert_eq!(versions(&resumed), versions(&whole));
    assert_eq!(comparable(summary(&resumed)), comparable(summary(&whole)));
    // A third run finds everything finished and runs no round.
    let third = ok(batch(&resumed, "2"));
    assert!(!stderr(&third).contains("committed"), "{}", stderr(&third));
}

#[test]
fn one_failing_server_does_not_stop_the_others_and_each_server_has_its_own_seed() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("fixtures");
    let m = tmp.path().join("m.toml");
    std::fs::write(
        &m,
        format!(
            "[[server]]\nid = \"crash\"\nsource = \"{0}/bad/crash\"\n\n\
             [[server]]\nid = \"first\"\nsource = \"{0}/register-esm\"\n\n\
             [[server]]\nid = \"second\"\nsource = \"{0}/register-esm\"\n",
            fixtures.display()
        ),
    )
    .unwrap();
    let out = tmp.path().join("out");
    let o = mcpevol(&[
        "batch",
        m.to_str().unwrap(),
        "--rounds",
        "2",
        "--jobs",
        "2",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("1 of 3 servers stopped on an error (crash)"),
        "{}",
        stderr(&o)
    );
    let s = summary(&out);
    let by_name = |n: &str| {
        s["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["name"] == n)
            .unwrap()
            .clone()
    };
    assert_eq!(by_name("crash")["status"], "error");
    assert!(
        by_name("crash")["error"]
            .as_str()
            .unwrap()
            .contains("cannot open config"),
        "{s}"
    );
    assert!(
        !out.join("servers/crash").exists(),
        "a failed install leaves no folder"
    );
    let (first, second) = (by_name("first"), by_name("second"));
    assert_eq!(
        (first["status"].as_str(), second["status"].as_str()),
        (Some("complete"), Some("complete"))
    );
    assert_ne!(first["seed"], second["seed"]);
    let ops = |x: &Value| -> Vec<Value> {
        x["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["operator"].clone())
            .collect()
    };
    assert_ne!(
        ops(&first),
        ops(&second),
        "the same server under two names gets two operator sequences"
    );
    // Progress went to stderr as plain lines (stderr is not a terminal here).
    assert!(
        stderr(&o)
            .lines()
            .any(|l| l.starts_with("[") && l.contains("rounds] first: v1 ")),
        "{}",
        stderr(&o)
    );
    // The report lists the server that has no workspace, with its error.
    let md = tmp.path().join("r.md");
    ok(mcpevol(&[
        "report",
        out.to_str().unwrap(),
        "--markdown",
        md.to_str().unwrap(),
    ]));
    let text = std::fs::read_to_string(&md).unwrap();
    let row = text
        .lines()
        .find(|l| l.starts_with("| crash |"))
        .unwrap_or_default();
    assert!(
        row.starts_with("| crash | error |") && row.contains("cannot open config"),
        "{text}"
    );
}

#[test]
fn a_bad_manifest_is_refused_with_its_lines_and_servers_before_any_work() {
    let tmp = tempfile::tempdir().unwrap();
    let fixtures = common::repo().join("fixtures");
    let m = tmp.path().join("m.toml");
    let out = tmp.path().join("out");
    let run = |text: String| {
        std::fs::write(&m, text).unwrap();
        let o = mcpevol(&[
            "batch",
            m.to_str().unwrap(),
            "--rounds",
            "1",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(!out.join("servers").exists(), "no work started");
        stderr(&o)
    };
    let unknown = run(format!(
        "[[server]]\nid = \"a\"\nsource = \"{}/switch-esm\"\nrouns = 3\n",
        fixtures.display()
    ));
    assert!(
        unknown.contains("m.toml:4: server `a`: unknown field `rouns`"),
        "{unknown}"
    );
    let twice = run(format!(
        "[[server]]\nid = \"a\"\nsource = \"{0}/switch-esm\"\n\n[[server]]\nid = \"a\"\nsource = \"{0}/if-cjs\"\n",
        fixtures.display()
    ));
    assert!(
        twice.contains("m.toml:5: server `a`: the name is used twice (first at line 1)"),
        "{twice}"
    );
    let _ = std::fs::remove_dir_all(&out);
    let gone = run(format!(
        "[[server]]\nid = \"ok\"\nsource = \"{0}/switch-esm\"\n\n[[server]]\nid = \"gone\"\nsource = \"{0}/no-such-server\"\n",
        fixtures.display()
    ));
    assert!(
        gone.contains("m.toml:5: server `gone`:") && gone.contains("does not exist"),
        "{gone}"
    );
}
