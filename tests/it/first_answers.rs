//! The answers `init` keeps for v0 are the ones the first round would observe: the round plans
//! its calls from v0's checks, and where that plan differs from the one `init` first made (a
//! tool that failed goes later), v0 is observed again under it. A resumed or later run then
//! judges its first round as a run that observed v0 itself would.

use crate::common;

use mcpevol::catalog::Catalog;
use mcpevol::init::{InitOptions, init};
use mcpevol::server::DEFAULT_TIMEOUT;
use mcpevol::validate::{Baseline, CallHints};
use mcpevol::version_record::{self, observed};
use mcpevol::workspace::{VersionTag, Workspace};

#[test]
fn init_keeps_v0_answered_in_the_order_the_first_round_calls_it() {
    let dir = common::repo().join("servers-npm");
    common::require_npm_install(&dir);
    let catalog = Catalog::load(&dir.join("servers.toml")).unwrap();
    // The knowledge-graph server: the search for calls that answer moves one of its tools
    // (`add_observations`) ahead of others, so v0's checks are in another order than the
    // first plan's.
    let entry = (catalog.servers.iter()).find(|e| e.id == "memory").unwrap();
    let scratch = tempfile::tempdir().unwrap();
    let work = scratch.path().join("w");
    let source = entry.package_dir(&dir).to_string_lossy().into_owned();
    let opts = InitOptions::new(Some(entry.launch_config(&dir)));
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(init(&source, &work, &opts)).unwrap();

    let ws = Workspace::open(&work).unwrap();
    let v0 = ws.versions().unwrap()[0].commit.clone();
    let kept = observed::read(&ws, &v0, DEFAULT_TIMEOUT).expect("init keeps v0's answers");
    let tools = version_record::read_tools(&ws, VersionTag::ORIGINAL)
        .unwrap()
        .unwrap()
        .tools;
    let round = version_record::read_round(&ws, VersionTag::ORIGINAL)
        .unwrap()
        .unwrap();
    let planned: Vec<String> = Baseline::first_plan(&tools, &CallHints::from_tests(&round.tests))
        .into_iter()
        .map(|c| c.name)
        .collect();
    let first: Vec<String> = Baseline::first_plan(&tools, &CallHints::default())
        .into_iter()
        .map(|c| c.name)
        .collect();
    assert_ne!(planned, first, "the case this test is about");
    let answered: Vec<&String> = kept.calls.keys().collect();
    assert_eq!(answered, planned.iter().collect::<Vec<_>>());
}
