//! Running the real server: launch settings, the child process, and the MCP client session.

pub mod browser;
pub(crate) mod content;
mod init;
mod landlock;
mod namespace;
pub mod process;
mod python_hint;
pub mod reads;
pub mod samples;
pub mod sandbox;
mod seccomp;
pub mod session;
mod stdout;

use std::time::Duration;

pub use mcpevol_core::launch::{self, LaunchConfig, LaunchError};
pub use session::{LiveTools, Session};

/// How long a server may take to start and answer `tools/list`, unless the user says otherwise.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The package's launch settings cannot be read (`mcpevol_core::launch`).
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("cannot start server `{server}` with `{command}`: {source}")]
    Spawn {
        server: String,
        command: String,
        source: std::io::Error,
    },
    /// The server started but did not hold up its side of the protocol.
    #[error("server `{server}` {what}{}", render_evidence(.stderr_tail, .noise))]
    Failed {
        server: String,
        what: String,
        stderr_tail: String,
        noise: Vec<String>,
    },
}

/// The last stderr line goes on the first line of the message (scripts read one line); the
/// rest of the tail follows, indented, for people.
fn render_evidence(stderr_tail: &str, noise: &[String]) -> String {
    let mut out = String::new();
    if let Some(first) = noise.first() {
        out += &format!("; it printed non-JSON on stdout: {first:?}");
    }
    match stderr_tail.lines().last() {
        Some(last) => out += &format!("; its stderr ends with: {last}"),
        None => out += "; its stderr is empty",
    }
    let lines: Vec<&str> = stderr_tail.lines().collect();
    if lines.len() > 1 {
        out += "\n  stderr tail:";
        for line in lines {
            out += &format!("\n  | {line}");
        }
    }
    out
}
