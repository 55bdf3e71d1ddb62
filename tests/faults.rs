//! Servers that misbehave (fixtures/bad), run by this process: each fault ends in an error that
//! names its cause within the timeout, and leaves no process (found by a marker in their
//! environment) and no file descriptor of ours behind, and the package folder unchanged.
//! The tests share this process's descriptor table, so they run one at a time.

mod common;

use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use mcpevol::server::session::{CallStatus, Outcome, Session};
use mcpevol::server::{LaunchConfig, ServerError};
use serde_json::Map;

static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// Holds this process to one test at a time (a failed test must not stop the others).
fn one_at_a_time() -> MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner())
}

/// Room for process start-up and the kill on a loaded machine, beyond the timeout itself.
const SLACK: Duration = Duration::from_secs(6);
/// How long the process table and descriptor count may take to settle after a kill.
const SETTLE: Duration = Duration::from_secs(5);
const MARK_VAR: &str = "MCPEVOL_FAULT_MARK";

/// Counts this process's open file descriptors.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn marked_processes(marker: &str) -> Vec<String> {
    common::marked_processes(MARK_VAR, marker)
}

/// Polls `probe` until `done` holds or SETTLE passes; the last value either way.
fn settle<T>(probe: impl Fn() -> T, done: impl Fn(&T) -> bool) -> T {
    let until = Instant::now() + SETTLE;
    loop {
        let value = probe();
        if done(&value) || Instant::now() > until {
            return value;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One bad server, run under the checks that hold for every fault.
struct Run {
    _one: MutexGuard<'static, ()>,
    dir: PathBuf,
    config: LaunchConfig,
    marker: String,
    rt: tokio::runtime::Runtime,
}

impl Run {
    fn new(fixture: &str) -> Run {
        let one = one_at_a_time();
        let dir = common::repo().join("fixtures/bad").join(fixture);
        let mut config = LaunchConfig::for_package(&dir).unwrap();
        let marker = format!("{fixture}-{}", std::process::id());
        config.env.insert(MARK_VAR.into(), marker.clone());
        let rt = tokio::runtime::Runtime::new().unwrap();
        // The runtime's process driver opens its descriptors on the first spawn, and the
        // sandbox probe runs once: both happen before anything is counted.
        rt.block_on(async {
            tokio::process::Command::new("node")
                .arg("--version")
                .output()
                .await
                .unwrap();
        });
        let _ = mcpevol::server::sandbox::available();
        Run {
            _one: one,
            dir,
            config,
            marker,
            rt,
        }
    }

    /// Runs `body`, which must end within `bound`, then checks that nothing is left behind.
    fn checked<T>(&self, bound: Duration, body: impl AsyncFnOnce(&Run) -> T) -> T {
        let fds = open_fds();
        let digest = common::tree_digest(&self.dir);
        let started = Instant::now();
        let out = self.rt.block_on(body(self));
        let took = started.elapsed();
        assert!(took < bound + SLACK, "took {took:?}, bound {bound:?}");
        let left = settle(|| marked_processes(&self.marker), Vec::is_empty);
        assert!(left.is_empty(), "processes left behind: {left:?}");
        let now = settle(open_fds, |n| *n <= fds);
        assert!(now <= fds, "file descriptors: {fds} before, {now} after");
        assert_eq!(
            common::tree_digest(&self.dir),
            digest,
            "the package changed"
        );
        out
    }

    async fn start(&self, timeout: Duration) -> Result<Session, ServerError> {
        Session::start(&self.dir, &self.config, &[], timeout).await
    }

    /// Starts, lists and stops the server; the error it ended in.
    fn list_error(&self, timeout: Duration) -> String {
        self.checked(timeout, async |run| {
            let mut session = match run.start(timeout).await {
                Ok(s) => s,
                Err(e) => return e.to_string(),
            };
            let listed = session.list_tools().await;
            session.close().await;
            listed.expect_err("the listing must fail").to_string()
        })
    }

    /// Starts the server, calls `tool` and stops it.
    fn call(&self, tool: &str, timeout: Duration) -> Outcome {
        self.checked(timeout * 2, async |run| {
            let mut session = run.start(timeout).await.unwrap();
            session.list_tools().await.unwrap();
            let outcome = session.call(tool, Map::new(), timeout).await;
            session.close().await;
            outcome
        })
    }
}

fn first_line(s: &str) -> &str {
    s.lines().next().unwrap_or("")
}

#[test]
fn a_server_that_exits_at_start_is_named_with_its_exit_status_and_stderr() {
    let err = Run::new("crash").list_error(Duration::from_secs(5));
    let first = first_line(&err);
    assert!(
        first.contains("bad-crash-fixture")
            && first.contains("exit status: 3")
            && first.contains("fatal: cannot open config"),
        "{err}"
    );
}

#[test]
fn a_server_that_never_answers_initialize_is_killed_with_its_grandchild_at_the_timeout() {
    let err = Run::new("hang").list_error(Duration::from_secs(2));
    assert!(
        err.contains("did not answer `initialize` within 2s") && err.contains("never answering"),
        "{err}"
    );
}

#[test]
fn a_server_still_working_at_its_start_timeout_is_given_longer_and_a_hung_one_is_not() {
    // Three seconds of work before it answers, against a limit of two: it starts.
    let run = Run::new("busy-start");
    let names = run.checked(Duration::from_secs(6), async |run| {
        let mut session = run.start(Duration::from_secs(2)).await.unwrap();
        let listed = session.list_tools().await.unwrap();
        session.close().await;
        listed.tools.len()
    });
    assert_eq!(names, 1);
    drop(run);
    // The same limit against a server that waits instead: it fails at the limit (the test
    // above, `hang`, checks the message and the time).
    let err = Run::new("hang").list_error(Duration::from_secs(2));
    assert!(err.contains("within 2s"), "{err}");
}

#[test]
fn a_server_that_stops_halfway_through_its_initialize_answer_times_out_cleanly() {
    let err = Run::new("hang-in-init").list_error(Duration::from_secs(2));
    assert!(
        err.contains("did not answer `initialize` within 2s"),
        "{err}"
    );
}

#[test]
fn a_tool_call_that_never_returns_times_out_and_the_server_still_answers_others() {
    let run = Run::new("hang-in-call");
    let timeout = Duration::from_secs(2);
    let (hung, after) = run.checked(timeout * 2, async |run| {
        let mut session = run.start(timeout).await.unwrap();
        session.list_tools().await.unwrap();
        let hung = session.call("wait_forever", Map::new(), timeout).await;
        let after = session.call("ping", Map::new(), timeout).await;
        session.close().await;
        (hung, after)
    });
    assert_eq!(hung.status, CallStatus::Timeout, "{hung:?}");
    assert_eq!(hung.text, "no answer within 2s");
    assert_eq!(
        (after.status, after.text.as_str()),
        (CallStatus::Ok, "pong")
    );
}

#[test]
fn non_json_on_stdout_is_quoted_in_the_error() {
    let err = Run::new("noise").list_error(Duration::from_secs(2));
    assert!(
        err.contains("non-JSON on stdout") && err.contains("Server listening on port 3000"),
        "{err}"
    );
}

#[test]
fn a_100_mb_line_on_stdout_ends_the_session_naming_the_limit() {
    let err = Run::new("huge-line").list_error(Duration::from_secs(10));
    assert!(
        first_line(&err).contains("printed a line of more than 16 MiB on stdout"),
        "{err}"
    );
}

#[test]
fn a_server_flooding_stderr_is_still_listed_and_called() {
    let outcome = Run::new("stderr-flood").call("ping", Duration::from_secs(5));
    assert_eq!(
        (outcome.status, outcome.text.as_str()),
        (CallStatus::Ok, "pong")
    );
}

#[test]
fn a_server_that_exits_leaving_a_grandchild_on_its_pipes_fails_at_once_not_at_the_timeout() {
    let run = Run::new("orphan-pipes");
    let timeout = Duration::from_secs(30);
    let started = Instant::now();
    let err = run.list_error(timeout);
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "waited for the pipes: {:?}",
        started.elapsed()
    );
    assert!(
        first_line(&err).contains("exited (exit status: 4) before the MCP handshake")
            && err.contains("keeps the pipes"),
        "{err}"
    );
}

#[test]
fn a_malformed_tool_list_is_an_error_saying_so() {
    let err = Run::new("bad-tools-list").list_error(Duration::from_secs(5));
    assert!(
        err.contains("answered `tools/list` with something that is not a list of tools"),
        "{err}"
    );
}

#[test]
fn a_50_mb_tool_result_fails_the_call_naming_the_limit() {
    let outcome = Run::new("huge-result").call("dump", Duration::from_secs(10));
    assert_eq!(outcome.status, CallStatus::Crashed, "{outcome:?}");
    assert!(
        outcome.text.contains("more than 16 MiB on stdout"),
        "{outcome:?}"
    );
}

/// Pipes this process holds open: a server's stdio left behind would show here (sockets of the
/// model client's connection pool come and go, so they are not counted).
fn open_pipes() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .flatten()
        .filter(|fd| {
            std::fs::read_link(fd.path()).is_ok_and(|t| t.to_string_lossy().starts_with("pipe:"))
        })
        .count()
}

#[test]
fn a_model_that_writes_each_fault_into_the_server_gets_each_cause_back_and_the_workspace_stays_good()
 {
    use common::rounds::{blocks, init_at, llm, options, selection};
    use common::stub::{Scripted, StubServer};
    use mcpevol::hunks::Hunk;

    let _one = one_at_a_time();
    let dir = tempfile::tempdir().unwrap();
    let source = common::repo().join("fixtures/if-cjs");
    let marker = format!("rounds-{}", std::process::id());
    let mut launch = LaunchConfig::for_package(&source).unwrap();
    launch.env.insert(MARK_VAR.into(), marker.clone());
    let work = dir.path().join("w");
    init_at(&source, &work, Some(launch));

    let describe = Hunk {
        file: "index.js".into(),
        search: "description: \"Encode UTF-8 text as base64\",".into(),
        replace: "description: \"Encode UTF-8 text as base64, standard or URL-safe\",".into(),
    };
    let at_top = |code: &str| Hunk {
        file: "index.js".into(),
        search: "const crypto = require(\"crypto\");".into(),
        replace: format!("const crypto = require(\"crypto\");\n{code}"),
    };
    let server_line = "const server = new Server({ name: \"if-cjs\", version: \"1.0.0\" }, { capabilities: { tools: {} } });";
    // Makes the changed tool's calls answer with `answer` (JS expression), the others as before.
    let tool_answers = |answer: &str| Hunk {
        file: "index.js".into(),
        search: server_line.into(),
        replace: format!(
            "{server_line}\nconst setHandler = server.setRequestHandler.bind(server);\n\
             server.setRequestHandler = (schema, handler) => setHandler(schema, schema === CallToolRequestSchema\n  \
             ? (request, extra) => (request.params.name === \"base64_encode\" ? {answer} : handler(request, extra))\n  \
             : handler);"
        ),
    };
    // (the edit, whether the server gets as far as its tool calls, where the model is asked for
    // test cases too, the cause the model must get back)
    let faults: Vec<(Hunk, bool, &str)> = vec![
        (at_top("process.exit(7);"), false, "exit status: 7"),
        (
            at_top("Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0);"),
            false,
            "did not answer `initialize` within 8s",
        ),
        (
            at_top(
                "process.stdout.write(Buffer.alloc(100 * 1024 * 1024, \"x\"));\nprocess.stdout.write(\"\\n\");",
            ),
            false,
            "printed a line of more than 16 MiB on stdout",
        ),
        (
            at_top(
                "require(\"child_process\").spawn(\"node\", [\"-e\", \"setInterval(() => {}, 1000)\"], { stdio: \"inherit\" });\nprocess.exit(5);",
            ),
            false,
            "exited (exit status: 5) before the MCP handshake",
        ),
        (
            at_top(
                "const write = process.stdout.write.bind(process.stdout);\nprocess.stdout.write = (chunk, ...rest) => write(String(chunk).replace('\"tools\":[', '\"tools\":[42,'), ...rest);",
            ),
            false,
            "answered `tools/list` with something that is not a list of tools",
        ),
        (
            tool_answers("new Promise(() => {})"),
            true,
            "test of `base64_encode` failed: no answer within 10s",
        ),
        (
            tool_answers("{ content: [{ type: \"text\", text: \"z\".repeat(50 * 1024 * 1024) }] }"),
            true,
            "more than 16 MiB on stdout",
        ),
    ];
    let targets = vec!["base64_encode".to_string()];
    let test_cases = Scripted::reply(
        "```json\n[{\"tool\": \"base64_encode\", \"arguments\": {\"text\": \"hi\"}, \"expect\": \"success\"}]\n```",
    );
    let mut script = vec![Scripted::reply(selection("O9", &targets))];
    for (fault, reaches_calls, _) in &faults {
        script.push(Scripted::reply(blocks(&[describe.clone(), fault.clone()])));
        if *reaches_calls {
            script.push(test_cases.clone());
        }
    }
    script.push(Scripted::reply(blocks(std::slice::from_ref(&describe))));
    script.push(test_cases);
    let stub = StubServer::start(script);
    let mut opts = options(llm(&stub, Duration::from_secs(30)), 1, &["O9"]);
    // Short, so that the hung start ends soon; not so short that a healthy start on a loaded
    // 2-core machine misses it (3s did, with the suite and other work beside it).
    opts.opts.timeout = Duration::from_secs(8);
    opts.opts.max_attempts = faults.len() as u32 + 1;

    let rt = tokio::runtime::Runtime::new().unwrap();
    let pipes = open_pipes();
    let rounds = rt
        .block_on(mcpevol::evolve::evolve(
            &work,
            &opts.backend,
            &opts.opts,
            |_| {},
        ))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        mcpevol::evolve::RoundStatus::Committed,
        "{rounds:?}"
    );

    let ws = mcpevol::workspace::Workspace::open(&work).unwrap();
    let record = mcpevol::version_record::read_round(&ws, "v1")
        .unwrap()
        .unwrap();
    let reasons: Vec<&str> = record.rejected.iter().map(|r| r.reason.as_str()).collect();
    assert_eq!(reasons.len(), faults.len(), "{reasons:#?}");
    for ((_, _, cause), reason) in faults.iter().zip(&reasons) {
        assert!(reason.contains(cause), "{cause:?} not in: {reason}");
    }
    let v1 = ws.read_at("v1", "index.js").unwrap().unwrap();
    let v0 = ws.read_at("v0", "index.js").unwrap().unwrap();
    assert_eq!(
        v1,
        v0.replace(&describe.search, &describe.replace),
        "v1 holds the good edit and no fault"
    );
    assert!(ws.dirty_paths().unwrap().is_empty());
    let left = settle(|| marked_processes(&marker), Vec::is_empty);
    assert!(left.is_empty(), "processes left behind: {left:?}");
    let now = settle(open_pipes, |n| *n <= pipes);
    assert!(now <= pipes, "pipes: {pipes} before, {now} after");
}
