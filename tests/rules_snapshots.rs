//! The rules backend's edits, pinned: for every fixture, what each of the 11 operators proposes
//! (summary, claims, hunks) or why it does not apply, as one snapshot per fixture in
//! `snapshots/rules-<fixture>.snap`. No node, no server: a change to a rule shows up here as
//! exactly the fixtures it changes. Review with `cargo insta review` (see README).

mod common;

use std::fmt::Write;
use std::path::Path;

use mcpevol::mutate::{Context, rules};

/// The seed every proposal here uses: fixed, so that snapshots only change with the rules.
const SEED: u64 = 11;

fn proposals(dir: &Path) -> String {
    let root = common::relative_to_repo(dir);
    let root = common::repo().join(root);
    let inventory = mcpevol::anchor::anchor(&root).expect("fixtures anchor");
    let mut out = String::new();
    for &op in rules::OPERATORS {
        let ctx = Context {
            root: &root,
            inventory: &inventory,
            seed: SEED,
            avoid: &[],
        };
        writeln!(out, "## {op}").unwrap();
        match rules::propose(op, &ctx) {
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

#[test]
fn every_operators_edits_on_every_fixture_match_their_snapshot() {
    common::require_npm_install(&common::repo().join("fixtures"));
    insta::glob!("../fixtures", "*/package.json", |path| {
        let dir = path.parent().expect("package.json is in a folder");
        let name = common::name_of(dir);
        if name.starts_with(['.', '_']) || name == "bad" {
            return;
        }
        insta::with_settings!({ snapshot_path => "../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
            insta::assert_snapshot!(format!("rules-{name}"), proposals(dir));
        });
    });
}
