//! Schemas that compiled TypeScript keeps in constants of their own module
//! (`fixtures/shape-constants`): `exports.X = z.object(Shape)`, a shape spread into another,
//! one schema exported under two names, entries that name a parameter schema held alone.

use crate::common;

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcpevol::inventory::Inventory;
use mcpevol::mutate::{Aliases, ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::server::{DEFAULT_TIMEOUT, LaunchConfig, Session};

fn fixture() -> PathBuf {
    common::require_npm_install(&common::repo().join("fixtures"));
    common::repo().join("fixtures/shape-constants")
}

/// Each tool's parameters, by name, with whether they are required.
type Params = BTreeMap<String, BTreeMap<String, bool>>;

fn anchored(inventory: &Inventory) -> Params {
    (inventory.tools.iter())
        .map(|t| {
            let params = t.params.iter().map(|p| (p.name.clone(), p.required));
            (t.name.clone(), params.collect())
        })
        .collect()
}

fn listed(root: &std::path::Path) -> Params {
    let config = LaunchConfig::for_package(root).unwrap();
    common::rounds::runtime().block_on(async {
        let mut session = Session::start(root, &config, &[], DEFAULT_TIMEOUT)
            .await
            .unwrap();
        let tools = session.list_tools().await.unwrap().tools;
        session.close().await;
        (tools.iter())
            .map(|t| {
                let required = t.required().as_array().cloned().unwrap_or_default();
                let params = (t.properties().cloned().unwrap_or_default().keys())
                    .map(|k| (k.clone(), required.iter().any(|r| r == k.as_str())))
                    .collect();
                (t.name().unwrap().to_string(), params)
            })
            .collect()
    })
}

#[test]
fn shapes_held_in_constants_give_each_tool_the_parameters_its_server_lists() {
    let root = fixture();
    let inventory = mcpevol::anchor::anchor(&root).unwrap();
    let anchored = anchored(&inventory);
    assert_eq!(anchored.len(), 5, "{anchored:?}");
    assert_eq!(anchored, listed(&root));
    // Types are read where the parameter schema is declared (`limit: SearchLimit`).
    let search = inventory.tools.iter().find(|t| t.name == "search_notes");
    let limit = search.and_then(|t| t.params.iter().find(|p| p.name == "limit"));
    assert_eq!(limit.and_then(|p| p.ty.as_deref()), Some("number"));
}

/// The tools Flexible Expansion may add a parameter to, each tried alone.
fn expandable(inventory: &Inventory, root: &std::path::Path) -> Vec<String> {
    let names: Vec<String> = inventory.tools.iter().map(|t| t.name.clone()).collect();
    (names.iter())
        .filter(|name| {
            let avoid: Vec<String> = names.iter().filter(|n| n != name).cloned().collect();
            let ctx = Context {
                root,
                inventory,
                seed: 3,
                avoid: &avoid,
                answering: &[],
                multiline: &[],
                json: &[],
                constraint: ConstraintKind::Bound,
                aliases: Aliases::Allowed,
            };
            rules::propose(Builtin::FlexibleExpansion, &ctx).is_ok()
        })
        .cloned()
        .collect()
}

#[test]
fn a_shape_that_another_tool_spreads_or_shares_is_not_edited_for_one_tool() {
    let root = fixture();
    let inventory = mcpevol::anchor::anchor(&root).unwrap();
    // read_note's shape is archive_note's too (exported twice) and spread into put_note's:
    // a parameter added there would reach three tools. list_notes' shape is its own, but
    // spread into search_notes'. put_note's own object and search_notes' are theirs alone.
    assert_eq!(expandable(&inventory, &root), ["put_note", "search_notes"]);
}
