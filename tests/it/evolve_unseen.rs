//! Evolution of server shapes first met on unseen servers: a bundle whose original already holds
//! constructs the grammar reports as errors, tools registered through helpers and builders.

use crate::common;

use std::path::Path;

use mcpevol::evolve::{self, Backend, EvolveOptions};
use mcpevol::hunks::{self, Hunk};
use mcpevol::init::{InitOptions, init};
use mcpevol::syntax_check::{Before, check_files};
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

fn init_options() -> InitOptions {
    InitOptions::new(None)
}

fn options(seed: u64, operator: &str) -> EvolveOptions {
    EvolveOptions {
        operators: vec![mcpevol::operators::OperatorId::parse(operator)],
        ..EvolveOptions::new(1, seed)
    }
}

fn fixture(name: &str) -> String {
    common::repo()
        .join("fixtures")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// Runs each operator forced for one round, in turn, on a fresh workspace of `name`; returns
/// the rounds that did not commit.
fn evolve_each(name: &str, ops: &[&str]) -> Vec<String> {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join(name);
    rt.block_on(init(&fixture(name), &work, &init_options()))
        .unwrap();
    let mut failures = Vec::new();
    for op in ops {
        let rounds = rt
            .block_on(evolve::evolve(
                &work,
                &Backend::Rules,
                &options(7, op),
                |_| {},
            ))
            .unwrap();
        match rounds.first() {
            Some(r) if r.status == evolve::RoundStatus::Committed => {
                let ws = Workspace::open(&work).unwrap();
                let round = version_record::read_round(&ws, r.version).unwrap().unwrap();
                assert_eq!(round.operator.as_ref().map(|o| o.as_str()), Some(*op));
                assert!(!round.schema_changes.is_empty(), "{op} changed nothing");
            }
            other => failures.push(format!("{name} {op}: {other:?}")),
        }
    }
    assert!(
        Workspace::open(&work)
            .unwrap()
            .dirty_paths()
            .unwrap()
            .is_empty()
    );
    failures
}

#[test]
fn a_bundle_with_errors_the_grammar_already_reported_evolves() {
    let failures = evolve_each("bundle-grammar-gap", &["O9", "O5", "O1", "O2", "O6"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn an_edit_that_breaks_the_bundle_is_still_rejected_with_the_place_it_broke() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let file = "dist/index.js";
    std::fs::create_dir(root.join("dist")).unwrap();
    std::fs::copy(
        common::repo()
            .join("fixtures/bundle-grammar-gap")
            .join(file),
        root.join(file),
    )
    .unwrap();
    let hunk = Hunk {
        file: file.into(),
        search: "\"A LaTeX fraction of two terms\",".into(),
        replace: "\"A LaTeX fraction of two terms\" +,".into(),
    };
    // Edits apply only to files git tracks: commit the bundle first.
    let repo = git2::Repository::init(root).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new(file)).unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let who = git2::Signature::now("test", "test@localhost").unwrap();
    repo.commit(Some("HEAD"), &who, &who, "bundle", &tree, &[])
        .unwrap();
    let before = Before::read(root, [file]);
    let changed = hunks::apply(root, &[hunk]).unwrap();
    let err = check_files(root, &changed, &before)
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("dist/index.js:44: syntax error"), "{err}");
    assert!(err.contains("introduced by the edit"), "{err}");
    assert!(err.contains("A LaTeX fraction of two terms"), "{err}");
}

#[test]
fn tools_registered_through_a_helper_evolve() {
    let failures = evolve_each("helper-register", &["O9", "O5", "O1", "O2", "O6", "O3"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn tools_registered_through_a_builder_chain_evolve() {
    let failures = evolve_each("builder-chain", &["O9", "O5", "O1", "O2", "O6", "O3"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A tool whose own error says "not found" (an unknown port-forward id) is the tool working:
/// the oracle tells it from the server's unknown-tool answer by the probe's shape, so the
/// round's checks call it unverifiable at worst and every operator still commits.
#[test]
fn a_tool_whose_error_says_not_found_is_not_taken_for_an_unknown_tool() {
    let failures = evolve_each("not-found-errors", &["O9", "O5", "O1", "O2", "O3"]);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    rt.block_on(init(&fixture("not-found-errors"), &work, &init_options()))
        .unwrap();
    let ws = Workspace::open(&work).unwrap();
    let v0 = version_record::read_round(&ws, "v0").unwrap().unwrap();
    let get = v0
        .tests
        .iter()
        .find(|t| t.tool == "port_forward_get")
        .expect("port_forward_get was called");
    assert_eq!(
        get.verdict,
        mcpevol::validate::Verdict::Unverifiable,
        "{get:?}"
    );
    assert!(get.reason.as_deref().unwrap_or("").contains("not found"));
}
