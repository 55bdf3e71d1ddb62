//! Workspaces with versions made for the drift tests: rounds through the oracle from a
//! proposal written by the test (`Backend::Given`), versions the oracle would refuse committed
//! by hand with their records, and `mcpevol drift --json` read back.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::init::{InitOptions, init};
use mcpevol::mutate::Proposal;
use mcpevol::schema;
use mcpevol::server::session;
use mcpevol::validate::Effect;
use mcpevol::version_record::{self, RoundRecord};
use mcpevol::workspace::{VersionTag, Workspace};

pub const FILE: &str = "server.js";

/// A hunk of `server.js`, the file of `fixtures/switch-esm`.
pub fn hunk(search: &str, replace: &str) -> Hunk {
    Hunk {
        file: FILE.into(),
        search: search.into(),
        replace: replace.into(),
    }
}

/// One round through the oracle, from a proposal written here; it must commit.
pub fn given(
    rt: &tokio::runtime::Runtime,
    work: &Path,
    operator: &str,
    targets: &[&str],
    added: &[&str],
    hunks: Vec<Hunk>,
    effects: Vec<Effect>,
) {
    let proposal = Proposal {
        operator: mcpevol::operators::OperatorId::parse(operator),
        targets: targets.iter().map(|s| s.to_string()).collect(),
        added: added.iter().map(|s| s.to_string()).collect(),
        summary: format!("a hand-written {operator}"),
        hunks,
        effects,
    };
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let opts = EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 1)
    };
    let rounds = rt
        .block_on(evolve::evolve(work, &backend, &opts, |_| {}))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{operator}: {:?}",
        rounds[0].reason
    );
}

/// A version the oracle would refuse, committed by hand with its records: the edits applied
/// to the work tree, the live tool list (the previous one when it does not start), the schema
/// changes from the previous version.
pub fn by_hand(
    rt: &tokio::runtime::Runtime,
    work: &Path,
    edits: &[(&str, &str)],
    summary: &str,
    targets: &[&str],
) {
    let ws = Workspace::open(work).unwrap();
    let number = ws.latest().unwrap().unwrap().number() + 1;
    let path = work.join(FILE);
    let mut text = std::fs::read_to_string(&path).unwrap();
    for (search, replace) in edits {
        assert!(
            text.contains(search),
            "v{number}: {search:?} is not in {FILE}"
        );
        text = text.replacen(search, replace, 1);
    }
    std::fs::write(&path, text).unwrap();
    let previous = version_record::read_tools(&ws, format!("v{}", number - 1))
        .unwrap()
        .unwrap();
    let live = rt
        .block_on(session::list_tools(work, &[], Duration::from_secs(20)))
        .unwrap_or_else(|_| previous.clone());
    let changes = schema::diff(&previous.tools, &live.tools);
    let record = RoundRecord {
        version: VersionTag::new(number),
        operator: Some(mcpevol::operators::OperatorId::parse("X1")),
        operator_name: Some("Hand-made change".into()),
        backend: mcpevol::version_record::Author::Given,
        targets: targets.iter().map(|s| s.to_string()).collect(),
        summary: summary.into(),
        patterns: schema::round_patterns(&changes),
        schema_changes: changes,
        attempts: 1,
        ..RoundRecord::default()
    };
    version_record::write(work, &record, &live, &[]).unwrap();
    ws.commit_version(VersionTag::new(number), &record.commit_message())
        .unwrap();
}

/// A workspace of `fixtures/NAME` at v0, in `dir/work`.
pub fn fresh(rt: &tokio::runtime::Runtime, dir: &Path, name: &str, work: &str) -> PathBuf {
    let work = dir.join(work);
    let fixture = super::repo().join("fixtures").join(name);
    rt.block_on(init(
        &fixture.to_string_lossy(),
        &work,
        &InitOptions::new(None),
    ))
    .unwrap();
    work
}

/// v(N+1) of a switch-esm workspace: `get_forecast` renamed to `get_forecast_v2` (O2).
pub fn rename_forecast(rt: &tokio::runtime::Runtime, work: &Path) {
    given(
        rt,
        work,
        "O2",
        &["get_forecast"],
        &["get_forecast_v2"],
        vec![
            hunk(
                "      name: \"get_forecast\",",
                "      name: \"get_forecast_v2\",",
            ),
            hunk(
                "    case \"get_forecast\": {",
                "    case \"get_forecast_v2\": {",
            ),
        ],
        vec![],
    );
}

pub fn drift_json(work: &Path, extra: &[&str]) -> Value {
    let mut args = vec![
        "drift",
        work.to_str().unwrap(),
        "--json",
        "--call-timeout",
        "3",
    ];
    args.extend_from_slice(extra);
    let out = super::ok(super::mcpevol(&args));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The results of a server's audit by (call id, version).
pub fn results(server: &Value) -> BTreeMap<(u64, String), &Value> {
    by_call_and_version(&server["results"])
}

/// Entries of a list of the audit (results, disagreements) by (call id, version).
pub fn by_call_and_version(list: &Value) -> BTreeMap<(u64, String), &Value> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let version = r["version"].as_str().unwrap().to_string();
            ((r["call"].as_u64().unwrap(), version), r)
        })
        .collect()
}
