//! Anchoring real npm MCP servers (servers-npm/): anchored names against what they list live.

use crate::common;

use std::collections::BTreeSet;

use mcpevol::anchor::anchor;
use mcpevol::catalog::Catalog;
use mcpevol::inventory::Style;
use mcpevol::server::DEFAULT_TIMEOUT;
use mcpevol::survey::{by_package, survey_catalog};

fn catalog() -> (Catalog, std::path::PathBuf) {
    let dir = common::repo().join("servers-npm");
    common::require_npm_install(&dir);
    (Catalog::load(&dir.join("servers.toml")).unwrap(), dir)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_real_server_anchors_exactly_the_tools_it_lists_under_all_its_settings() {
    let (catalog, dir) = catalog();
    assert!(
        catalog.servers.len() >= 12,
        "servers.toml should list at least 12 servers"
    );
    let entries = survey_catalog(&catalog, &dir, DEFAULT_TIMEOUT).await;
    let packages = by_package(&entries);
    let mut failures = Vec::new();
    println!(
        "{:<50} {:>8} {:>5} {:>7} {:>9}",
        "package", "anchored", "live", "recall", "precision"
    );
    for p in &packages {
        match &p.result {
            Ok(c) => {
                println!(
                    "{:<50} {:>8} {:>5} {:>7.3} {:>9.3}",
                    p.package, c.anchored, c.live, c.recall, c.precision
                );
                if c.live == 0 {
                    failures.push(format!("{}: listed no tools", p.package));
                } else if !c.is_exact() {
                    failures.push(format!(
                        "{}: missing {:?}, extra {:?}",
                        p.package, c.missing, c.extra
                    ));
                }
            }
            Err(e) => failures.push(format!("{}: {e}", p.package)),
        }
    }
    assert!(
        packages.len() >= 12,
        "expected at least 12 packages, got {}",
        packages.len()
    );
    assert!(
        failures.is_empty(),
        "anchoring differs from the live servers:\n{}",
        failures.join("\n")
    );
}

#[test]
fn the_real_servers_cover_all_four_registration_styles() {
    let (catalog, dir) = catalog();
    let mut styles = BTreeSet::new();
    for entry in &catalog.servers {
        let inventory = anchor(&entry.package_dir(&dir)).unwrap();
        styles.extend(inventory.tools.iter().map(|t| t.style));
    }
    for style in [Style::Register, Style::Switch, Style::If, Style::CrossFile] {
        assert!(
            styles.contains(&style),
            "no real server anchors as {style:?}; found {styles:?}"
        );
    }
}

#[test]
fn every_anchored_tool_of_a_real_server_has_a_handler() {
    let (catalog, dir) = catalog();
    let mut missing = Vec::new();
    for entry in &catalog.servers {
        let inventory = anchor(&entry.package_dir(&dir)).unwrap();
        missing.extend(
            inventory
                .tools
                .iter()
                .filter(|t| t.handler.is_none())
                .map(|t| format!("{}: {}", entry.id, t.name)),
        );
    }
    assert!(
        missing.is_empty(),
        "tools without a handler span:\n{}",
        missing.join("\n")
    );
}
