//! The rules backend's edits on the Python fixtures (`fixtures/python/`), pinned: what each of
//! the 11 operators proposes (summary, claims, hunks) or why it does not apply, one snapshot per
//! fixture in `snapshots/rules-py-<fixture>.snap`; and every proposal, applied to a copy of the
//! fixture, compiles with the fixture's Python.

use crate::common;

use std::fmt::Write;
use std::path::Path;

use mcpevol::mutate::{Aliases, ConstraintKind, Context, rules};

/// The seed every proposal here uses: fixed, so that snapshots only change with the rules.
const SEED: u64 = 11;

fn proposals(root: &Path) -> Vec<(String, Result<mcpevol::mutate::Proposal, String>)> {
    let inventory = mcpevol::anchor::anchor(root).expect("fixtures anchor");
    rules::OPERATORS
        .iter()
        .map(|op| {
            let ctx = Context {
                root,
                inventory: &inventory,
                seed: SEED,
                avoid: &[],
                answering: &[],
                multiline: &[],
                json: &[],
                constraint: ConstraintKind::DescribedBound,
                aliases: Aliases::Allowed,
            };
            (
                op.to_string(),
                rules::propose(*op, &ctx).map_err(|e| e.to_string()),
            )
        })
        .collect()
}

fn render(proposals: &[(String, Result<mcpevol::mutate::Proposal, String>)]) -> String {
    let mut out = String::new();
    for (op, proposal) in proposals {
        writeln!(out, "## {op}").unwrap();
        match proposal {
            Err(e) => writeln!(out, "does not apply: {e}").unwrap(),
            Ok(p) => {
                writeln!(out, "{}", p.summary).unwrap();
                writeln!(out, "targets: {:?}; added: {:?}", p.targets, p.added).unwrap();
                for effect in &p.effects {
                    writeln!(out, "claims: {}", serde_json::to_string(effect).unwrap()).unwrap();
                }
                for h in &p.hunks {
                    writeln!(out, "--- {}", h.file).unwrap();
                    for line in h.search.lines() {
                        writeln!(out, "-{line}").unwrap();
                    }
                    for line in h.replace.lines() {
                        writeln!(out, "+{line}").unwrap();
                    }
                }
            }
        }
        writeln!(out).unwrap();
    }
    out
}

fn fixture_root(dir: &Path) -> std::path::PathBuf {
    common::repo().join(common::relative_to_repo(dir))
}

#[test]
fn every_operators_edits_on_every_python_fixture_match_their_snapshot() {
    for dir in common::python_fixtures() {
        let name = common::name_of(&dir);
        let text = render(&proposals(&fixture_root(&dir)));
        insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("rules-py-{name}"), text);
        });
    }
}

/// Copies a fixture's files (not its environment link) into a new git repository, so that
/// hunks can be applied inside it as a workspace's are.
fn scratch_copy(dir: &Path) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    for entry in walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".venv" && e.file_name() != "__pycache__")
    {
        let entry = entry.unwrap();
        let rel = entry.path().strip_prefix(dir).unwrap();
        let to = tmp.path().join(rel);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&to).unwrap();
        } else {
            std::fs::copy(entry.path(), &to).unwrap();
        }
    }
    let run = |args: &[&str]| {
        let ok = std::process::Command::new("git")
            .args(args)
            .current_dir(tmp.path())
            .output()
            .unwrap()
            .status
            .success();
        assert!(ok, "git {args:?}");
    };
    run(&["init", "-q"]);
    run(&["add", "-A"]);
    run(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "fixture",
    ]);
    tmp
}

#[test]
fn every_proposal_on_the_python_fixtures_applies_and_compiles() {
    let python = common::repo().join("fixtures/python/.venv/bin/python");
    let mut applied = 0;
    for dir in common::python_fixtures() {
        let root = fixture_root(&dir);
        for (op, proposal) in proposals(&root) {
            let Ok(p) = proposal else { continue };
            let copy = scratch_copy(&root);
            mcpevol::hunks::apply(copy.path(), &p.hunks)
                .unwrap_or_else(|e| panic!("{}: {op}: {e}", common::name_of(&dir)));
            for h in &p.hunks {
                let out = std::process::Command::new(&python)
                    .args([
                        "-c",
                        "import sys; compile(open(sys.argv[1]).read(), sys.argv[1], 'exec')",
                        &h.file,
                    ])
                    .current_dir(copy.path())
                    .output()
                    .unwrap();
                assert!(
                    out.status.success(),
                    "{}: {op} breaks {}:\n{}",
                    common::name_of(&dir),
                    h.file,
                    String::from_utf8_lossy(&out.stderr)
                );
            }
            applied += 1;
        }
    }
    assert!(applied >= 40, "only {applied} proposals applied");
}
