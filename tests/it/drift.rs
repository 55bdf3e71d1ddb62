//! `mcpevol drift`: calls replayed on every version of a workspace whose versions were made
//! for it, one verdict each (a renamed tool followed through the records, a new required
//! parameter, a tightened bound, a changed deterministic answer, an error, a removed tool with
//! the successor its record names, a version that does not start, a crash, a hang, a call the
//! original could not answer), each beside the schema forecast; and a refused call explaining
//! the later answers it changes.
//!
//! The versions are built on `fixtures/switch-esm`: those the oracle accepts through the
//! `Given` backend (a proposal written here, recorded like any round), the others (which the
//! oracle would rightly refuse) committed by hand with their records (`common/drift.rs`).

use crate::common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::drift::{
    by_call_and_version, by_hand, drift_json, fresh, given, hunk, rename_forecast, results,
};
use mcpevol::hunks::Hunk;
use mcpevol::validate::Effect;

const CONVERT_RETURN: &str = "      return { content: [{ type: \"text\", text: `${fromCelsius(Number(args.value), args.to)} ${args.to}` }] };";
const LIST_CITIES_SCHEMA: &str = "      description: \"List the cities that have forecasts\",\n      inputSchema: { type: \"object\", properties: {} },";
const EXIT_AT_START: &str = "console.error(\"fatal: cannot open config\"); process.exit(3);\n";

/// switch-esm at v0, then:
/// v1 `get_forecast` renamed to `get_forecast_v2` (O2, through the oracle);
/// v2 `convert_temperature.value` bounded to 50, enforced (O6, through the oracle);
/// v3 `list_cities` gets a required `region`, refused without it (by hand);
/// v4 `convert_temperature` answers in another format and refuses kelvin, its schema untouched
///    (by hand);
/// v5 `list_cities` removed, `get_forecast_v2` named to take over (O3, through the oracle);
/// v6 the server exits at start (by hand);
/// v7 it starts again; `convert_temperature` hangs below zero and exits on 30 (by hand).
fn evolved(rt: &tokio::runtime::Runtime, dir: &Path) -> PathBuf {
    let work = fresh(rt, dir, "switch-esm", "weather");
    rename_forecast(rt, &work);
    given(
        rt,
        &work,
        "O6",
        &["convert_temperature"],
        &[],
        vec![
            hunk(
                "value: { type: \"number\", description: \"Temperature in Celsius\" },",
                "value: { type: \"number\", maximum: 50, description: \"Temperature in Celsius\" },",
            ),
            hunk(
                "    case \"convert_temperature\":\n",
                "    case \"convert_temperature\":\n      if (Number(args.value) > 50) return { content: [{ type: \"text\", text: \"value must be at most 50\" }], isError: true };\n",
            ),
        ],
        vec![Effect::Enforced {
            tool: "convert_temperature".into(),
            param: "value".into(),
        }],
    );
    let with_region = "      description: \"List the cities that have forecasts\",\n      inputSchema: { type: \"object\", properties: { region: { type: \"string\", description: \"Region, e.g. europe\" } }, required: [\"region\"] },";
    let region_check = "    case \"list_cities\":\n      if (!args.region) return { content: [{ type: \"text\", text: \"region is required\" }], isError: true };\n";
    by_hand(
        rt,
        &work,
        &[
            (LIST_CITIES_SCHEMA, with_region),
            ("    case \"list_cities\":\n", region_check),
        ],
        "list_cities needs a region",
        &["list_cities"],
    );
    let new_format = "      if (args.to === \"kelvin\") return { content: [{ type: \"text\", text: \"kelvin is not supported any more\" }], isError: true };\n      return { content: [{ type: \"text\", text: `${args.to}: ${fromCelsius(Number(args.value), args.to)}` }] };";
    by_hand(
        rt,
        &work,
        &[(CONVERT_RETURN, new_format)],
        "convert_temperature answers `unit: value` and no longer converts to kelvin",
        &["convert_temperature"],
    );
    let cities_case = format!(
        "{region_check}      return {{ content: [{{ type: \"text\", text: Object.keys(CITIES).join(\", \") }}] }};\n"
    );
    given(
        rt,
        &work,
        "O3",
        &["list_cities", "get_forecast_v2"],
        &[],
        vec![
            hunk(
                &format!("    {{\n      name: \"list_cities\",\n{with_region}\n    }},\n"),
                "",
            ),
            hunk(&cities_case, ""),
        ],
        vec![],
    );
    by_hand(
        rt,
        &work,
        &[(
            "const CITIES = ",
            &format!("{EXIT_AT_START}const CITIES = "),
        )],
        "the server needs a config file it cannot find",
        &[],
    );
    by_hand(
        rt,
        &work,
        &[
            (EXIT_AT_START, ""),
            (
                "    case \"convert_temperature\":\n",
                "    case \"convert_temperature\":\n      if (Number(args.value) < 0) await new Promise(() => {});\n      if (Number(args.value) === 30) process.exit(1);\n",
            ),
        ],
        "convert_temperature hangs below zero and exits on 30",
        &["convert_temperature"],
    );
    work
}

const CALLS: &str = r#"{"name": "get_forecast", "arguments": {"city": "paris"}}
{"name": "list_cities", "arguments": {}}
{"name": "convert_temperature", "arguments": {"value": 20, "to": "fahrenheit"}}
{"name": "convert_temperature", "arguments": {"value": 100, "to": "celsius"}}
{"name": "convert_temperature", "arguments": {"value": 10, "to": "rankine"}}
{"name": "convert_temperature", "arguments": {"value": 10, "to": "kelvin"}}
{"name": "convert_temperature", "arguments": {"value": -5, "to": "celsius"}}
{"name": "convert_temperature", "arguments": {"value": 30, "to": "celsius"}}
"#;

/// The expected verdict of each call (rows) at v0..v7 (columns); `→x` is the successor, which
/// the records name whatever the verdict (at v6, which does not start, too).
const EXPECTED: [[&str; 8]; 8] = [
    [
        "same",
        "unknown-tool→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
        "crash→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
    ],
    [
        "same",
        "same",
        "same",
        "refused-arguments",
        "refused-arguments",
        "unknown-tool→get_forecast_v2",
        "crash→get_forecast_v2",
        "unknown-tool→get_forecast_v2",
    ],
    [
        "same", "same", "same", "same", "changed", "changed", "crash", "changed",
    ],
    [
        "same",
        "same",
        "refused-arguments",
        "refused-arguments",
        "refused-arguments",
        "refused-arguments",
        "crash",
        "refused-arguments",
    ],
    [
        "unverifiable",
        "unverifiable",
        "unverifiable",
        "unverifiable",
        "unverifiable",
        "unverifiable",
        "crash",
        "unverifiable",
    ],
    [
        "same", "same", "same", "same", "error", "error", "crash", "error",
    ],
    [
        "same", "same", "same", "same", "changed", "changed", "crash", "timeout",
    ],
    [
        "same", "same", "same", "same", "changed", "changed", "crash", "crash",
    ],
];

#[test]
fn every_verdict_occurs_where_the_versions_made_it_and_the_forecast_stands_beside_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = evolved(&rt, dir.path());
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(&calls, CALLS).unwrap();
    let report = drift_json(&work, &["--calls", calls.to_str().unwrap()]);
    let server = &report["servers"][0];
    let versions: Vec<String> = (0..8).map(|n| format!("v{n}")).collect();
    assert_eq!(server["versions"], serde_json::json!(versions));
    assert_eq!(server["calls"].as_array().unwrap().len(), 8);
    let by = results(server);
    assert_eq!(by.len(), 64, "one result per call and version");
    let mut wrong = Vec::new();
    for (i, row) in EXPECTED.iter().enumerate() {
        for (n, want) in row.iter().enumerate() {
            let r = by[&(i as u64 + 1, format!("v{n}"))];
            let got = match r["successor"].as_str() {
                Some(s) => format!("{}→{s}", r["verdict"].as_str().unwrap()),
                None => r["verdict"].as_str().unwrap().to_string(),
            };
            if got != *want {
                wrong.push(format!(
                    "call {} at v{n}: expected {want}, got {got}: {}",
                    i + 1,
                    r["reason"]
                ));
            }
            assert!(
                !r["reason"].as_str().unwrap().contains('\n'),
                "one line: {r}"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // The reasons say which: the records, the rule, the server's words.
    let reason = |call: u64, v: &str| {
        by[&(call, v.to_string())]["reason"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (call, v, words) in [
        (1, "v3", "renamed to `get_forecast_v2` in v1"),
        (2, "v5", "names `get_forecast_v2` to take over"),
        (2, "v3", "new required parameter `region`"),
        (2, "v3", "region is required"),
        (4, "v2", "beyond maximum 50"),
        (3, "v4", "became"),
        (6, "v4", "kelvin is not supported"),
        (3, "v6", "did not start at v6"),
        (7, "v7", "no answer within 3s"),
    ] {
        let why = reason(call, v);
        assert!(why.contains(words), "call {call} at {v}: {why}");
    }

    // Which rule refused the arguments, by name for scripts.
    let rules = |call: u64, v: &str| by[&(call, v.to_string())]["forecast_rules"].clone();
    assert_eq!(rules(2, "v3"), serde_json::json!(["new-required-param"]));
    assert_eq!(rules(4, "v2"), serde_json::json!(["tighter-bound"]));
    assert_eq!(rules(1, "v1"), serde_json::json!(["tool-gone"]));

    // The forecast: from the schema alone.
    let forecast = |call: u64, v: &str| {
        by[&(call, v.to_string())]["forecast"]
            .as_str()
            .unwrap()
            .to_string()
    };
    for (call, v, want) in [
        (1, "v0", "ok"),
        (1, "v1", "breaks"),
        (2, "v3", "breaks"),
        (2, "v5", "breaks"),
        (3, "v4", "ok"),
        (4, "v2", "breaks"),
        (6, "v4", "ok"),
        (8, "v7", "ok"),
    ] {
        assert_eq!(forecast(call, v), want, "call {call} at {v}");
    }

    // Disagreements: exactly the calls that broke where the schema says nothing, each with a why.
    let disagreements: Vec<(u64, String)> = server["disagreements"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            assert!(!d["why"].as_str().unwrap().is_empty());
            (
                d["call"].as_u64().unwrap(),
                d["version"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut expected: Vec<(u64, String)> = by
        .iter()
        .filter(|(_, r)| {
            r["forecast"] == "ok"
                && !["same", "unverifiable"].contains(&r["verdict"].as_str().unwrap())
        })
        .map(|(k, _)| k.clone())
        .collect();
    expected.sort();
    assert_eq!(disagreements, expected);
    assert!(
        disagreements.contains(&(3, "v4".into())),
        "a changed answer the schema does not show"
    );
    assert_eq!(
        server["failed_versions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["version"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["v6"],
        "the version that does not start is reported, and the later one replayed"
    );

    // The table: a row per call, a column per version, the disagreements marked.
    let text = common::ok(common::mcpevol(&[
        "drift",
        work.to_str().unwrap(),
        "--calls",
        calls.to_str().unwrap(),
        "--versions",
        "v0,v4,late",
        "--call-timeout",
        "3",
    ]));
    let table = String::from_utf8(text.stdout).unwrap();
    let header = table.lines().find(|l| l.contains("#  call")).unwrap();
    let columns: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(
        columns,
        ["#", "call", "v0", "v4", "v5"],
        "late is v5: {table}"
    );
    assert!(table.contains("CHANGED*"), "{table}");
    assert!(table.contains("unknown→get_forecast_v2"), "{table}");
    assert!(table.contains("not the same:"), "{table}");
    assert!(table.contains("forecast and replay disagree:"), "{table}");
}

#[test]
fn a_refused_call_explains_the_later_answers_it_changes_and_a_removed_parameter_can_be_ignored() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = fresh(&rt, dir.path(), "loop-register", "kv");
    let file = |search: &str, replace: &str| Hunk {
        file: "index.js".into(),
        search: search.into(),
        replace: replace.into(),
    };
    let kv_set = std::fs::read_to_string(work.join("index.js")).unwrap();
    let start = kv_set.find("  {\n    name: \"kv_set\"").unwrap();
    let end = kv_set.find("  {\n    name: \"kv_get\"").unwrap();
    given(
        &rt,
        &work,
        "O3",
        &["kv_set"],
        &[],
        vec![file(&kv_set[start..end], "")],
        vec![],
    );
    given(
        &rt,
        &work,
        "O7",
        &["kv_list"],
        &[],
        vec![file(
            "    schema: { limit: z.number().int().min(1).max(100).optional().describe(\"Maximum number of keys\") },",
            "    schema: {},",
        )],
        vec![],
    );
    let calls = dir.path().join("calls.jsonl");
    std::fs::write(
        &calls,
        r#"{"name": "kv_list", "arguments": {"limit": 10}}
{"name": "kv_set", "arguments": {"key": "city", "value": "lima"}}
{"name": "kv_get", "arguments": {"key": "city"}}
{"name": "kv_get", "arguments": {"key": "greeting"}}
"#,
    )
    .unwrap();
    let report = drift_json(&work, &["--calls", calls.to_str().unwrap()]);
    let server = &report["servers"][0];
    let by = results(server);
    let verdict = |call: u64, v: &str| {
        by[&(call, v.to_string())]["verdict"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let grid: Vec<Vec<String>> = (1..=4)
        .map(|c| ["v0", "v1", "v2"].iter().map(|v| verdict(c, v)).collect())
        .collect();
    assert_eq!(
        grid,
        [
            ["same", "same", "same"],
            ["same", "unknown-tool", "unknown-tool"],
            ["same", "changed", "changed"],
            ["same", "same", "same"],
        ]
    );
    assert_eq!(
        by[&(2, "v1".into())]["successor"],
        Value::Null,
        "the rules' removal names no successor"
    );
    let reason = by[&(3, "v1".into())]["reason"].as_str().unwrap();
    assert!(reason.contains("call #2 was refused here"), "{reason}");
    assert_eq!(by[&(1, "v2".into())]["forecast"], "breaks");
    let why: BTreeMap<(u64, String), String> = by_call_and_version(&server["disagreements"])
        .into_iter()
        .map(|(k, d)| (k, d["why"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        why.keys().cloned().collect::<Vec<_>>(),
        [(1, "v2".to_string()), (3, "v1".into()), (3, "v2".into())]
    );
    assert!(
        why[&(1, "v2".into())].contains("ignores the removed parameter"),
        "{why:?}"
    );
    assert!(
        why[&(3, "v1".into())].contains("call #2 was refused"),
        "{why:?}"
    );
}

#[test]
fn a_server_whose_original_does_not_start_is_reported_and_the_others_are_audited() {
    let tmp = tempfile::tempdir().unwrap();
    let batch = common::fixture_batch(tmp.path(), &["switch-esm", "if-cjs"], &["--rounds", "1"]);
    // Its dependencies gone, the original cannot import its SDK and exits at start.
    std::fs::remove_dir_all(batch.join("servers/if-cjs/node_modules")).unwrap();
    let out = common::mcpevol(&["drift", batch.to_str().unwrap(), "--json"]);
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("1 of 2 servers could not be audited (if-cjs)"),
        "{stderr}"
    );
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let by_name = |name: &str| {
        report["servers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap()
            .clone()
    };
    let broken = by_name("if-cjs");
    let error = broken["error"].as_str().unwrap();
    assert!(
        error.contains("the original (v0) could not be replayed"),
        "{error}"
    );
    assert_eq!(broken["results"], serde_json::json!([]));
    let fine = by_name("switch-esm");
    assert_eq!(fine.get("error"), None);
    assert_eq!(
        fine["results"].as_array().unwrap().len(),
        3 * 2,
        "3 calls at v0 and v1"
    );

    // A workspace alone: the command's error, with the exit code of a server that does not start.
    let alone = common::mcpevol(&["drift", batch.join("servers/if-cjs").to_str().unwrap()]);
    assert_eq!(alone.status.code(), Some(4));
    assert!(alone.stdout.is_empty());
}
