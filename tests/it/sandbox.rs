//! The sandbox of spawned servers, through the CLI: a server that tries to reach a port the test
//! opened on 127.0.0.1, to read the user's secrets and to write outside its folder fails at each,
//! and is still listed and called; `--sandbox off` lets the same attempts through (so these
//! checks can fail), but never the secrets.

use crate::common;

use std::collections::BTreeMap;
use std::io::Read;
use std::net::TcpListener;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::Value;

/// What the test's environment holds that no server may see.
const SECRETS: &[(&str, &str)] = &[
    ("OPENAI_API_KEY", "sk-secret-openai"),
    ("GITHUB_TOKEN", "ghp-secret-github"),
    ("AWS_SECRET_ACCESS_KEY", "secret-aws"),
    ("SERVICE_API_KEY", "secret-service"),
    ("SESSION_SECRET", "secret-session"),
];

fn init_escape(work: &Path, port: u16, targets: &[&Path], sandbox: &str) -> Output {
    let fixture = common::repo().join("fixtures/bad/escape");
    let mut args: Vec<String> = vec![
        "init".into(),
        fixture.to_string_lossy().into_owned(),
        work.to_string_lossy().into_owned(),
        "--sandbox".into(),
        sandbox.into(),
        "--env".into(),
        "NAMED_TOKEN=named-in-launch-settings".into(),
        "--arg".into(),
        port.to_string(),
    ];
    for t in targets {
        args.push("--arg".into());
        args.push(t.to_string_lossy().into_owned());
    }
    let out = Command::new(common::bin())
        .args(&args)
        .envs(SECRETS.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "init failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// The fixture's report of its attempts: the description of its tool in the v0 tool list.
fn report(work: &Path) -> Value {
    let tools: Value =
        serde_json::from_str(&std::fs::read_to_string(work.join(".mcpevol/tools.json")).unwrap())
            .unwrap();
    let description = tools["tools"][0]["description"].as_str().unwrap();
    serde_json::from_str(description).unwrap()
}

fn listener() -> (TcpListener, u16) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    (listener, port)
}

/// What reached the listener, if anything.
fn received(listener: &TcpListener) -> Option<String> {
    let (mut stream, _) = listener.accept().ok()?;
    stream.set_nonblocking(false).unwrap();
    let mut text = String::new();
    stream.read_to_string(&mut text).unwrap();
    Some(text)
}

fn env_of(report: &Value) -> BTreeMap<String, String> {
    serde_json::from_value(report["env"].clone()).unwrap()
}

fn assert_no_secret(report: &Value, out: &Output) {
    let env = env_of(report);
    let keys: Vec<&str> = env.keys().map(String::as_str).collect();
    // The browser's variables name mcpevol's launch script in the scratch folder, where the
    // machine has a browser: no secret, and the same for every server.
    let browser = ["CHROME_BIN", "CHROME_PATH", "PUPPETEER_EXECUTABLE_PATH"];
    let others: Vec<&str> = keys
        .iter()
        .copied()
        .filter(|k| !browser.contains(k))
        .collect();
    assert_eq!(others, ["HOME", "NAMED_TOKEN", "PATH", "TMPDIR"]);
    for var in browser.iter().filter(|v| env.contains_key(**v)) {
        assert!(
            env[*var].contains("mcpevol-server-") && env[*var].ends_with("/bin/browser"),
            "{var} is {}",
            env[*var]
        );
    }
    assert_eq!(env["NAMED_TOKEN"], "named-in-launch-settings");
    let everything = report.to_string() + &String::from_utf8_lossy(&out.stderr);
    for (name, value) in SECRETS {
        assert!(!everything.contains(value), "{name} reached the server");
    }
    for var in ["HOME", "TMPDIR"] {
        assert!(
            env[var].contains("mcpevol-server-"),
            "{var} is {}",
            env[var]
        );
    }
}

/// The server was tested: init called its tool, which answered.
fn assert_tested(work: &Path) {
    let round: Value =
        serde_json::from_str(&std::fs::read_to_string(work.join(".mcpevol/round.json")).unwrap())
            .unwrap();
    assert_eq!(round["tests"][0]["tool"], "attempts");
    assert_eq!(round["tests"][0]["status"], "ok", "{round}");
}

#[test]
fn a_sandboxed_server_reaches_no_port_no_secret_and_no_file_outside_its_scratch_folder() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let outside = dir.path().join("outside.txt");
    let in_workspace = work.join("escaped-into-workspace.txt");
    let up = Path::new("../escaped-up.txt");
    let (listener, port) = listener();
    let out = init_escape(&work, port, &[&outside, &in_workspace, up], "on");
    assert!(
        !String::from_utf8_lossy(&out.stderr).contains("warning"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = report(&work);

    assert_eq!(report["connect"], "ECONNREFUSED", "{report}");
    assert_eq!(received(&listener), None);
    let writes = &report["writes"];
    for target in [&outside, &in_workspace, &up.to_path_buf()] {
        assert_eq!(writes[target.to_str().unwrap()], "EROFS", "{report}");
    }
    assert!(!outside.exists() && !in_workspace.exists());
    // Beside itself it may write: in its scratch copy, which never reaches the workspace.
    assert_eq!(writes["escaped-beside.txt"], "written");
    assert!(!work.join("escaped-beside.txt").exists());
    assert_no_secret(&report, &out);
    assert_tested(&work);
}

#[test]
fn with_the_sandbox_off_the_same_attempts_get_through_but_the_secrets_do_not() {
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let outside = dir.path().join("outside.txt");
    let (listener, port) = listener();
    let out = init_escape(&work, port, &[&outside], "off");
    let report = report(&work);
    assert_eq!(report["connect"], "connected", "{report}");
    assert_eq!(received(&listener).as_deref(), Some("escaped\n"));
    assert_eq!(report["writes"][outside.to_str().unwrap()], "written");
    assert!(outside.exists());
    assert!(
        !work.join("escaped-beside.txt").exists(),
        "it wrote into its copy"
    );
    assert_no_secret(&report, &out);
    assert_tested(&work);
}

#[test]
fn where_the_machine_cannot_isolate_a_warning_names_why_and_the_server_still_runs() {
    // A user namespace that allows no further user namespaces: what a locked-down machine is.
    let fixture = common::repo().join("fixtures/switch-esm");
    let script = format!(
        "echo 0 > /proc/sys/user/max_user_namespaces && exec {} tools {}",
        common::bin().display(),
        fixture.display()
    );
    let out = Command::new("unshare")
        .args(["--user", "--map-root-user", "sh", "-c", &script])
        .output()
        .expect("unshare (util-linux) runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains("warning: this machine cannot isolate servers")
            && stderr.contains("unshare")
            && stderr.contains("--sandbox off"),
        "{stderr}"
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("get_forecast"));
}
