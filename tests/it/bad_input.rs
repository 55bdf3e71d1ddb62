//! Bad input gets a clear error naming the cause, within the timeout, and leaves nothing running.

use crate::common;

use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn mcpevol(args: &[&str]) -> Output {
    Command::new(common::bin())
        .args(args)
        .output()
        .expect("the mcpevol binary runs")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn write_package(dir: &Path) {
    std::fs::write(
        dir.join("package.json"),
        r#"{"name": "scratch-server", "main": "index.js"}"#,
    )
    .unwrap();
    std::fs::write(
        dir.join("index.js"),
        "server.tool(\"kept_tool\", \"still found\", {}, async () => ({ content: [] }));\n",
    )
    .unwrap();
}

#[test]
fn anchor_skips_a_binary_file_with_a_warning_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path());
    std::fs::write(
        dir.path().join("blob.js"),
        b"\x7fELF\x00\x00\x01server.tool('ghost')",
    )
    .unwrap();
    let out = mcpevol(&["anchor", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("blob.js") && warnings.contains("binary"),
        "{warnings}"
    );
    let names: Vec<&str> = json["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["kept_tool"]);
}

#[test]
fn anchor_warns_about_an_unparsable_file_and_still_anchors_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    write_package(dir.path());
    std::fs::write(
        dir.path().join("broken.js"),
        "function (( {{ ]] => ;;\nconst = ;\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("latin1.js"), b"const s = '\xe9\xe8';\n").unwrap();
    let out = mcpevol(&["anchor", dir.path().to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("broken.js: syntax error at line 1"),
        "{warnings}"
    );
    assert!(
        warnings.contains("latin1.js: skipped, it is not UTF-8"),
        "{warnings}"
    );
    assert_eq!(json["tools"][0]["name"], "kept_tool");
}

#[test]
fn a_folder_without_package_json_is_a_clear_error_for_anchor_and_tools() {
    let dir = common::repo().join("fixtures/bad/no-package-json");
    for command in ["anchor", "tools"] {
        let out = mcpevol(&[command, dir.to_str().unwrap()]);
        assert!(!out.status.success());
        let err = stderr(&out);
        assert!(
            err.contains("no-package-json has no package.json"),
            "{command}: {err}"
        );
        assert!(out.stdout.is_empty(), "{command} printed on stdout");
    }
}

#[test]
fn tools_reports_a_crashing_server_with_its_exit_status_and_stderr() {
    let dir = common::repo().join("fixtures/bad/crash");
    let out = mcpevol(&["tools", dir.to_str().unwrap(), "--json", "--timeout", "10"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    let first = err.lines().next().unwrap();
    assert!(
        first.contains("bad-crash-fixture"),
        "names the server: {err}"
    );
    assert!(
        first.contains("exit status: 3"),
        "gives the exit status: {err}"
    );
    assert!(
        first.contains("fatal: cannot open config"),
        "quotes stderr: {err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn tools_reports_a_server_that_prints_non_json_on_stdout() {
    let dir = common::repo().join("fixtures/bad/noise");
    let out = mcpevol(&["tools", dir.to_str().unwrap(), "--timeout", "3"]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(err.contains("bad-noise-fixture"), "{err}");
    assert!(
        err.contains("non-JSON on stdout") && err.contains("Server listening"),
        "{err}"
    );
}

/// The live processes (not zombies awaiting their reaper) whose command line holds `tag`.
fn processes_tagged(tag: &str) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|e| {
            let pid = e.file_name().to_string_lossy().into_owned();
            let cmdline = std::fs::read(e.path().join("cmdline")).ok()?;
            let stat = std::fs::read_to_string(e.path().join("stat")).ok()?;
            let tagged = String::from_utf8_lossy(&cmdline).contains(tag);
            (tagged && !stat.contains(") Z ")).then_some(pid)
        })
        .collect()
}

#[test]
fn tools_kills_a_hung_server_and_its_grandchildren_within_the_timeout_even_one_that_left_its_group()
{
    let dir = common::repo().join("fixtures/bad/hang");
    let tag = format!("hang-tag-{}", std::process::id());
    let started = Instant::now();
    let out = mcpevol(&["tools", dir.to_str().unwrap(), "--timeout", "2", "--", &tag]);
    let took = started.elapsed();
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("bad-hang-fixture") && err.contains("within 2s"),
        "{err}"
    );
    assert!(
        err.contains("never answering") && err.contains("spawned detached grandchild"),
        "quotes the server's stderr: {err}"
    );
    // Generous: the bound is the 2 s timeout plus process start-up on a loaded machine.
    assert!(took < Duration::from_secs(15), "took {took:?}");
    let mut waited = 0;
    while !processes_tagged(&tag).is_empty() && waited < 20 {
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    }
    assert_eq!(
        processes_tagged(&tag),
        Vec::<String>::new(),
        "grandchildren outlived the command"
    );
}

#[test]
fn anchor_json_prints_one_json_document_and_nothing_else_on_stdout() {
    let dir = common::repo().join("fixtures/switch-esm");
    let out = mcpevol(&["anchor", dir.to_str().unwrap(), "--json"]);
    assert!(out.status.success());
    let json: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("stdout is one JSON document");
    assert_eq!(json["tools"].as_array().unwrap().len(), 3);
    assert_eq!(json["root"], dir.to_str().unwrap());
}

#[test]
fn install_refuses_an_id_the_catalog_does_not_have_naming_it_and_installs_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let catalog = dir.path().join("servers.toml");
    let entry = "[[server]]\nid = \"time\"\npackage = \"pypi:mcp-server-time==2025.9.25\"\n";
    std::fs::write(&catalog, entry).unwrap();
    let out = mcpevol(&["install", catalog.to_str().unwrap(), "--only", "time,tiem"]);
    assert!(!out.status.success());
    assert!(
        stderr(&out).contains("no server with id `tiem`"),
        "{}",
        stderr(&out)
    );
    assert!(!dir.path().join("installed").exists());
}
