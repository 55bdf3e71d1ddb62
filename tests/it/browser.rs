//! A server that drives a browser (servers-npm's puppeteer) gets the machine's Chromium through
//! mcpevol's launch script, and the sample page for its web addresses: offline, its tools
//! answer (a tool that hung on a selector the page lacks is tried again with one it has) and a
//! round's change is seen working. Pointed at a browser that is not there (the
//! broken set-up), the same round is committed unproven, with the reason. Skipped, saying so,
//! where the machine has no browser (the README's test command installs Debian's chromium).

use crate::common;

use std::path::Path;

use serde_json::Value;

fn puppeteer() -> std::path::PathBuf {
    let servers = common::repo().join("servers-npm");
    common::require_npm_install(&servers);
    servers.join("node_modules/@modelcontextprotocol/server-puppeteer")
}

/// `v1`'s record after one round (seed 7) on a fresh workspace of puppeteer, `init` given
/// `extra` arguments.
fn one_round(dir: &Path, extra: &[&str]) -> Value {
    let work = dir.to_str().unwrap();
    let package = puppeteer();
    let mut init = vec!["init", package.to_str().unwrap(), work, "--timeout", "60"];
    init.extend(extra);
    common::ok(common::mcpevol(&init));
    common::ok(common::mcpevol(&[
        "evolve", work, "--rounds", "1", "--seed", "7",
    ]));
    let shown = common::git(dir, &["show", "v1:.mcpevol/round.json"]);
    serde_json::from_slice(&shown.stdout).expect("v1 has its record")
}

fn passed_on_the_sample_page(record: &Value) -> Vec<String> {
    record["tests"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t["verdict"] == "passed" && t["status"] == "ok")
        .filter(|t| t["arguments"].to_string().contains("samples/sample.html"))
        .map(|t| t["tool"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_browser_server_answers_offline_on_the_sample_page_and_its_round_is_proven_only_with_a_browser()
{
    if mcpevol::server::browser::installed().is_none() {
        eprintln!("SKIPPED: no chromium or chrome on PATH; the browser server cannot be checked");
        return;
    }
    let tmp = tempfile::tempdir().unwrap();

    let record = one_round(&tmp.path().join("with"), &[]);
    assert_eq!(record["proof"], "proven", "{:#}", record["unproven_reason"]);
    let opened = passed_on_the_sample_page(&record);
    assert!(
        !opened.is_empty(),
        "no tool answered on the sample page: {:#}",
        record["tests"]
    );
    // `puppeteer_hover` waits for its selector: the schema-built one ("test") outlasts the
    // call's time, and only the second try after a timeout reaches the page's field.
    let hovered = record["tests"].as_array().unwrap().iter().any(|t| {
        t["tool"] == "puppeteer_hover"
            && t["verdict"] == "passed"
            && t["arguments"]["selector"] == "input"
    });
    assert!(hovered, "{:#}", record["tests"]);

    let record = one_round(
        &tmp.path().join("without"),
        &["--env", "PUPPETEER_EXECUTABLE_PATH=/nonexistent/browser"],
    );
    assert_eq!(record["proof"], "unproven");
    let reason = record["unproven_reason"].as_str().unwrap();
    assert!(reason.contains("/nonexistent/browser"), "{reason}");
    assert!(passed_on_the_sample_page(&record).is_empty());
}
