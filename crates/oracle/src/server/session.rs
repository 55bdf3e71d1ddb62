//! An MCP client session with a spawned server, through rmcp, the official Rust SDK.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

// Roots are deprecated in rmcp (SEP-2577), but servers of the TypeScript SDK 1.x still ask.
#[allow(deprecated)]
use rmcp::model::{CallToolRequestParams, ClientConfig, ListRootsResult, Root};
use rmcp::service::{RequestContext, RoleClient, RunningService};
use rmcp::{ClientHandler, ServiceExt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tokio::time::Instant;

pub use mcpevol_core::listed::ListedTool;

use super::ServerError;
use super::content;
use super::launch::{self, LaunchConfig};
use super::process::ServerProcess;

/// Lines of stderr quoted in an error.
const STDERR_LINES_QUOTED: usize = 20;
/// Time for a crashed server's last stderr to arrive before we quote it.
const STDERR_SETTLE: Duration = Duration::from_millis(150);
/// How long a server whose pipes closed during the handshake is given to be seen exiting.
const EXIT_SETTLE: Duration = Duration::from_secs(1);

/// How one tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallStatus {
    /// A result without `isError` whose text does not only report a failure.
    Ok,
    /// A result with `isError: true`, or whose text only reports a failure
    /// (`{"error": "..."}`, `Error: ...`): the tool ran and reported a failure.
    ToolError,
    /// A JSON-RPC error response (invalid params, unknown tool in some SDKs).
    RpcError,
    Timeout,
    /// The connection closed: the server crashed or exited.
    Crashed,
    /// An answer that is not a valid tool result (the session goes on).
    Malformed,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Outcome {
    pub status: CallStatus,
    /// The text content of the result, or the error message.
    pub text: String,
    /// Each text part of the result's content on its own (empty for errors), for checks that
    /// look at one part at a time.
    pub parts: Vec<String>,
    /// What the result holds beside text, one entry each: an image, audio or binary resource
    /// by its kind and a hash of its data, a text resource by its text, and
    /// `structuredContent` as JSON with sorted keys. Compared as the text parts are.
    pub other: Vec<String>,
}

impl Outcome {
    fn failed(status: CallStatus, text: String) -> Outcome {
        Outcome {
            status,
            text,
            parts: Vec::new(),
            other: Vec::new(),
        }
    }
}

impl Outcome {
    /// An answer as tests write it: the text is the one part of a success, an error's message
    /// otherwise (the root crate's tests write theirs from the public fields).
    #[cfg(test)]
    pub fn answered(status: CallStatus, text: &str) -> Outcome {
        let parts = if status == CallStatus::Ok {
            vec![text.to_string()]
        } else {
            Vec::new()
        };
        Outcome {
            status,
            text: text.into(),
            parts,
            other: Vec::new(),
        }
    }
}

/// `{tmp}` in a string argument stands for this start's fresh folder, as in the launch
/// settings: a call can name a path inside the folder the server is given, the same way in
/// every run and in the records.
fn fill_tmp(arguments: Map<String, Value>, tmp: &Path) -> Map<String, Value> {
    fn fill(value: &mut Value, tmp: &str) {
        match value {
            Value::String(s) if s.contains(launch::TMP_PLACEHOLDER) => {
                *s = s.replace(launch::TMP_PLACEHOLDER, tmp);
            }
            Value::Array(items) => items.iter_mut().for_each(|v| fill(v, tmp)),
            Value::Object(map) => map.values_mut().for_each(|v| fill(v, tmp)),
            _ => {}
        }
    }
    let tmp = tmp.to_string_lossy();
    let mut arguments = arguments;
    arguments.values_mut().for_each(|v| fill(v, &tmp));
    arguments
}

/// What `mcpevol tools --json` prints: the live `tools/list`, every page.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct LiveTools {
    pub server: Value,
    pub tools: Vec<ListedTool>,
}

impl LiveTools {
    pub fn names(&self) -> Vec<&str> {
        self.tools.iter().filter_map(ListedTool::name).collect()
    }
}

/// The client we present. Some servers list tools only to clients that declare these
/// capabilities, so all of them are declared; requests for them are answered empty or refused.
fn client_config() -> ClientConfig {
    let capabilities = json!({
        "roots": {"listChanged": true},
        "sampling": {},
        "elicitation": {"form": {}, "url": {}},
        "extensions": {"io.modelcontextprotocol/tasks": {}},
    });
    ClientConfig::new(
        serde_json::from_value(capabilities).expect("the capabilities above are well-formed"),
        rmcp::model::Implementation::new("mcpevol", env!("CARGO_PKG_VERSION")),
    )
}

/// The client a session presents: its capabilities, and one root, the start's fresh folder
/// (`{tmp}`), so that a server that takes its allowed folders from the client's roots may use
/// the same folder a server given `{tmp}` on its command line does.
#[allow(deprecated)]
struct Client {
    config: ClientConfig,
    roots: Vec<Root>,
    /// The server asked for the roots.
    asked: Arc<AtomicBool>,
}

#[allow(deprecated)]
impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        self.config.clone()
    }

    fn list_roots(
        &self,
        _context: RequestContext<RoleClient>,
    ) -> impl Future<Output = Result<ListRootsResult, rmcp::ErrorData>> + Send + '_ {
        self.asked.store(true, Ordering::SeqCst);
        std::future::ready(Ok(ListRootsResult::new(self.roots.clone())))
    }
}

/// rmcp declares tasks in the extensions map (SEP-2663), but servers built on the TypeScript
/// SDK 1.x look for `capabilities.tasks`, which rmcp's types cannot carry; it is added on the
/// way out so that task-gated tools are listed too.
fn declare_legacy_tasks(line: String) -> String {
    if !line.contains("\"initialize\"") {
        return line;
    }
    let Ok(mut message) = serde_json::from_str::<Value>(&line) else {
        return line;
    };
    if message["method"] != "initialize" {
        return line;
    }
    message["params"]["capabilities"]["tasks"] = json!({
        "list": {},
        "cancel": {},
        "requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}},
    });
    message.to_string()
}

pub struct Session {
    client: RunningService<RoleClient, Client>,
    process: ServerProcess,
    server: String,
    timeout: Duration,
    /// The server asked for the roots (then its first call waits [`ROOTS_SETTLE`]).
    roots_asked: Arc<AtomicBool>,
    /// The first call was made.
    called: AtomicBool,
}

/// How many times its start timeout a server that is still using CPU at the limit may take to
/// answer `initialize`; one that is idle at the limit (hung) fails then.
const START_PATIENCE: u32 = 3;

/// How long a server that asked for the client's roots is given to take them in before its
/// first tool call: servers apply them asynchronously after the handshake (the filesystem
/// server resolves each folder on disk), and a call that comes first is refused as outside
/// its allowed folders.
const ROOTS_SETTLE: Duration = Duration::from_millis(250);

impl Session {
    /// Starts the server at `root` and completes the MCP handshake within `timeout`.
    pub async fn start(
        root: &Path,
        config: &LaunchConfig,
        extra_args: &[String],
        timeout: Duration,
    ) -> Result<Session, ServerError> {
        let server = launch::package_name(root);
        let (process, pipes) = ServerProcess::spawn(config, root, extra_args, declare_legacy_tasks)
            .map_err(|source| ServerError::Spawn {
                server: server.clone(),
                command: config.command.clone(),
                source,
            })?;
        let started = Instant::now();
        let exited = process.exited();
        let folder = format!("file://{}", process.tmp_path().display());
        let roots_asked = Arc::new(AtomicBool::new(false));
        #[allow(deprecated)]
        let client = Client {
            config: client_config(),
            roots: vec![Root::new(folder).with_name("data")],
            asked: roots_asked.clone(),
        };
        let handshake = client.serve(pipes);
        tokio::pin!(handshake, exited);
        let mut deadline = started + timeout;
        let latest = started + timeout * START_PATIENCE;
        // The CPU time is sampled every quarter of the limit: at the deadline, what the last
        // quarter added tells a server at work from one that waits forever.
        let step = (timeout / 4).max(Duration::from_millis(50));
        let mut next = started + step;
        let mut used = process.cpu_time();
        loop {
            tokio::select! {
                handshake = &mut handshake => return match handshake {
                    Ok(client) => Ok(Session {
                        client,
                        process,
                        server,
                        timeout,
                        roots_asked,
                        called: AtomicBool::new(false),
                    }),
                    Err(e) => {
                        let what = handshake_failed(&e, &mut exited).await;
                        Err(fail(process, &server, &what).await)
                    }
                },
                _ = tokio::time::sleep_until(next.min(deadline)) => {
                    // At work: a twentieth of a core or more over the last quarter (a timer
                    // that wakes an idle server now and then uses far less).
                    let now = process.cpu_time();
                    let busy = now.saturating_sub(used) >= step / 20;
                    used = now;
                    next = Instant::now() + step;
                    if Instant::now() < deadline {
                        continue;
                    }
                    // Still working (loading a large library on a loaded machine, say): a
                    // little longer, up to START_PATIENCE times the limit.
                    if busy && deadline < latest {
                        deadline = (deadline + step).min(latest);
                        continue;
                    }
                    let what = format!(
                        "did not answer `initialize` within {}",
                        secs(deadline - started)
                    );
                    return Err(fail(process, &server, &what).await);
                }
                // Its pipes may stay open after it exits (a grandchild holds them): the exit
                // itself ends the wait.
                _ = &mut exited => {
                    return Err(fail(process, &server, "exited before the MCP handshake").await);
                }
            }
        }
    }

    /// The server's `serverInfo` from the handshake.
    pub fn server_info(&self) -> Value {
        let info = self
            .client
            .peer_info()
            .and_then(|i| serde_json::to_value(&*i).ok());
        info.map_or(Value::Null, |i| i["serverInfo"].clone())
    }

    /// `tools/list`, following every page.
    pub async fn list_tools(&mut self) -> Result<LiveTools, ServerError> {
        let listing = tokio::select! {
            listing = tokio::time::timeout(self.timeout, self.client.peer().list_all_tools()) => listing,
            _ = self.process.exited() => {
                return Err(self.error("exited before answering `tools/list`").await);
            }
        };
        let tools = match listing {
            Ok(Ok(tools)) => tools,
            Ok(Err(rmcp::ServiceError::UnexpectedResponse)) => {
                let what = "answered `tools/list` with something that is not a list of tools \
                    (each needs a name and an inputSchema object)";
                return Err(self.error(what).await);
            }
            Ok(Err(e)) => return Err(self.error(&format!("failed `tools/list` ({e})")).await),
            Err(_) => {
                let what = format!("did not answer `tools/list` within {}", secs(self.timeout));
                return Err(self.error(&what).await);
            }
        };
        let tools = tools
            .iter()
            .map(|t| ListedTool::from(serde_json::to_value(t).unwrap_or(Value::Null)))
            .collect();
        Ok(LiveTools {
            server: self.server_info(),
            tools,
        })
    }

    /// Calls one tool within `timeout`. Every way a call can end is an [`Outcome`]; whether
    /// it is acceptable is for the caller to judge.
    pub async fn call(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        timeout: Duration,
    ) -> Outcome {
        let first = !self.called.swap(true, Ordering::SeqCst);
        if first && self.roots_asked.load(Ordering::SeqCst) {
            tokio::time::sleep(ROOTS_SETTLE).await;
        }
        let arguments = fill_tmp(arguments, self.process.tmp_path());
        let params = CallToolRequestParams::new(name.to_string()).with_arguments(arguments);
        let answer = tokio::select! {
            answer = tokio::time::timeout(timeout, self.client.peer().call_tool(params)) => answer,
            status = self.process.exited() => {
                let text = self.evidence(&format!("the server exited{}", exit_words(status))).await;
                return Outcome::failed(CallStatus::Crashed, text);
            }
        };
        match answer {
            Ok(Ok(result)) => {
                let value = serde_json::to_value(result).unwrap_or(Value::Null);
                let parts = content::text_parts(&value);
                let other = content::other_parts(&value);
                // A failure reported as text is a tool error, flagged or not.
                let status = if value["isError"] == true || content::reports_error(&parts, &other) {
                    CallStatus::ToolError
                } else {
                    CallStatus::Ok
                };
                Outcome {
                    status,
                    text: parts.join("\n"),
                    parts,
                    other,
                }
            }
            Ok(Err(rmcp::ServiceError::McpError(e))) => {
                Outcome::failed(CallStatus::RpcError, e.message.to_string())
            }
            Ok(Err(rmcp::ServiceError::UnexpectedResponse)) => Outcome::failed(
                CallStatus::Malformed,
                "the answer is not a valid tool result".into(),
            ),
            Ok(Err(e)) => Outcome::failed(CallStatus::Crashed, self.evidence(&e.to_string()).await),
            Err(_) => Outcome::failed(
                CallStatus::Timeout,
                format!("no answer within {}", secs(timeout)),
            ),
        }
    }

    /// The folder `{tmp}` stood for in this run, to keep it out of records.
    pub fn tmp_path(&self) -> Option<&Path> {
        Some(self.process.tmp_path())
    }

    /// What went wrong in a call, with the server's side of it: a cut-off stdout, stderr.
    async fn evidence(&self, what: &str) -> String {
        tokio::time::sleep(STDERR_SETTLE).await;
        let fault = self
            .process
            .fault()
            .map(|f| format!("; it {f}"))
            .unwrap_or_default();
        let tail = self.process.stderr_tail(3);
        format!("{what}{fault}; stderr: {tail}")
    }

    async fn error(&mut self, what: &str) -> ServerError {
        failure(&mut self.process, &self.server, what).await
    }

    /// Ends the session and kills the server's whole process group.
    pub async fn close(self) {
        let Session {
            client, process, ..
        } = self;
        drop(client);
        process.kill().await;
    }
}

/// The error for a server that misbehaved, with the evidence: exit status, stderr, stray stdout.
async fn failure(process: &mut ServerProcess, server: &str, what: &str) -> ServerError {
    tokio::time::sleep(STDERR_SETTLE).await;
    let what = match (process.exit_status(), what.strip_prefix("exited")) {
        (Some(status), Some(rest)) => format!("exited ({status}){rest}"),
        (Some(status), None) => format!("{what}: it exited ({status})"),
        (None, _) => what.to_string(),
    };
    // A cut-off stdout is the cause of the rest.
    let what = match process.fault() {
        Some(fault) => format!("{fault}, and {what}"),
        None => what,
    };
    // A Python server's traceback may name the dependency that broke it.
    let stderr = process.stderr_tail(80);
    let what = match super::python_hint::broken_dependency(&stderr, process.package_copy()) {
        Some(hint) => format!("{what}; {hint}"),
        None => what,
    };
    ServerError::Failed {
        server: server.to_string(),
        what,
        stderr_tail: process.stderr_tail(STDERR_LINES_QUOTED),
        noise: process.noise(),
    }
}

/// Why a handshake failed: a server that exits closes its pipes as it goes (its PID
/// namespace's init ends with it), so an exit that follows at once is the cause.
async fn handshake_failed(
    error: &impl std::fmt::Display,
    exited: &mut (impl std::future::Future<Output = Option<std::process::ExitStatus>> + Unpin),
) -> String {
    match tokio::time::timeout(EXIT_SETTLE, exited).await {
        Ok(_) => "exited before the MCP handshake".to_string(),
        Err(_) => format!("failed the MCP handshake ({error})"),
    }
}

async fn fail(mut process: ServerProcess, server: &str, what: &str) -> ServerError {
    let error = failure(&mut process, server, what).await;
    process.kill().await;
    error
}

fn exit_words(status: Option<std::process::ExitStatus>) -> String {
    status.map(|s| format!(" ({s})")).unwrap_or_default()
}

fn secs(d: Duration) -> String {
    format!("{}s", d.as_secs_f64())
}

/// Starts the server at `root`, lists its tools, and stops it.
pub async fn list_tools(
    root: &Path,
    extra_args: &[String],
    timeout: Duration,
) -> Result<LiveTools, ServerError> {
    let config = LaunchConfig::for_package(root)?;
    let mut session = Session::start(root, &config, extra_args, timeout).await?;
    let listed = session.list_tools().await;
    session.close().await;
    listed
}
