//! Running a server process: its own process group, a scrubbed environment, stderr kept aside,
//! and a kill of the whole group (grandchildren included) when we are done with it.

use std::collections::VecDeque;
use std::path::Path;
use std::process::Stdio;
use std::sync::{Arc, Mutex};

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{Child, ChildStdin, Command};

use super::launch::{LaunchConfig, TMP_PLACEHOLDER};

/// Variables a server may see from our environment; everything else (API keys, tokens) is withheld.
const INHERITED_ENV: &[&str] = &["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "TZ"];
/// How much of the server's stderr we keep for error messages: the tail is what explains a crash.
const STDERR_TAIL_BYTES: usize = 16 * 1024;
/// Stdout lines that are not JSON-RPC, kept to explain a failed handshake.
const NOISE_LINES_KEPT: usize = 5;
/// JSON-RPC messages can be large (a tool list on one line); the pipe only buffers between tasks.
const PIPE_BYTES: usize = 256 * 1024;

/// A running server. Dropping it kills its whole process group.
pub struct ServerProcess {
    child: Child,
    /// The folder `{tmp}` stands for in this run; removed when the process is dropped.
    tmp: Option<tempfile::TempDir>,
    pgid: Pid,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    noise: Arc<Mutex<Vec<String>>>,
}

/// The two ends the MCP client talks through: the server's filtered stdout, and its stdin.
pub type Pipes = (DuplexStream, DuplexStream);

/// A change made to each line the client sends, before the server sees it.
pub type Rewrite = fn(String) -> String;

impl ServerProcess {
    pub fn spawn(
        config: &LaunchConfig,
        cwd: &Path,
        extra_args: &[String],
        rewrite: Rewrite,
    ) -> std::io::Result<(Self, Pipes)> {
        let uses_tmp = config
            .args
            .iter()
            .chain(config.env.values())
            .any(|s| s.contains(TMP_PLACEHOLDER));
        let tmp = if uses_tmp {
            Some(tempfile::tempdir()?)
        } else {
            None
        };
        let tmp_path = tmp
            .as_ref()
            .map(|t| t.path().to_string_lossy().into_owned())
            .unwrap_or_default();
        let fill = |s: &String| s.replace(TMP_PLACEHOLDER, &tmp_path);
        let mut cmd = Command::new(&config.command);
        cmd.args(config.args.iter().map(fill))
            .args(extra_args)
            .current_dir(cwd)
            .env_clear()
            .envs(
                INHERITED_ENV
                    .iter()
                    .filter_map(|k| Some((*k, std::env::var_os(k)?))),
            )
            .envs(config.env.iter().map(|(k, v)| (k, fill(v))))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // Its own group, so that one signal reaches everything the server started.
            .process_group(0)
            .kill_on_drop(true);
        let mut child = cmd.spawn()?;
        let pid = child
            .id()
            .ok_or_else(|| std::io::Error::other("the server exited at once"))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");

        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        tokio::spawn(keep_tail(stderr_pipe, stderr.clone()));
        let noise = Arc::new(Mutex::new(Vec::new()));
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        tokio::spawn(forward_json_lines(stdout, theirs, noise.clone()));
        let (client_end, from_client) = tokio::io::duplex(PIPE_BYTES);
        tokio::spawn(forward_requests(from_client, stdin, rewrite));

        let process = ServerProcess {
            child,
            tmp,
            pgid: Pid::from_raw(pid as i32),
            stderr,
            noise,
        };
        Ok((process, (ours, client_end)))
    }

    /// The folder `{tmp}` stands for in this run, if the launch settings use it.
    pub fn tmp_path(&self) -> Option<&Path> {
        self.tmp.as_ref().map(|t| t.path())
    }

    /// The last lines the server wrote to stderr.
    pub fn stderr_tail(&self, max_lines: usize) -> String {
        let bytes: Vec<u8> = self.stderr.lock().unwrap().iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(max_lines)..].join("\n")
    }

    /// Lines the server printed on stdout that were not JSON-RPC messages.
    pub fn noise(&self) -> Vec<String> {
        self.noise.lock().unwrap().clone()
    }

    /// The exit status, if the server has already exited.
    pub fn exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Kills the whole process group and reaps the server.
    pub async fn kill(mut self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let _ = self.child.wait().await;
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Also on early returns and panics: no server or grandchild may outlive us.
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let _ = self.child.start_kill();
    }
}

async fn forward_requests(from_client: DuplexStream, mut stdin: ChildStdin, rewrite: Rewrite) {
    let mut lines = BufReader::new(from_client).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let line = rewrite(line);
        if stdin.write_all(line.as_bytes()).await.is_err() || stdin.write_all(b"\n").await.is_err()
        {
            break;
        }
        let _ = stdin.flush().await;
    }
    // Dropping stdin closes it: the MCP stdio way of asking a server to exit.
}

async fn keep_tail(mut pipe: impl AsyncRead + Unpin, tail: Arc<Mutex<VecDeque<u8>>>) {
    let mut buf = [0u8; 4096];
    while let Ok(n) = pipe.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut tail = tail.lock().unwrap();
        tail.extend(&buf[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL_BYTES);
        tail.drain(..excess);
    }
}

/// Passes JSON-RPC lines on to the client and sets aside anything else a server prints on stdout
/// (banners, console.log debugging), as the reference TypeScript client tolerates them too.
async fn forward_json_lines(
    stdout: impl AsyncRead + Unpin,
    mut to_client: DuplexStream,
    noise: Arc<Mutex<Vec<String>>>,
) {
    let mut lines = BufReader::new(stdout).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        let trimmed = line.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            if to_client.write_all(line.as_bytes()).await.is_err()
                || to_client.write_all(b"\n").await.is_err()
            {
                break;
            }
        } else if !trimmed.is_empty() {
            let mut noise = noise.lock().unwrap();
            if noise.len() < NOISE_LINES_KEPT {
                noise.push(line.chars().take(200).collect());
            }
        }
    }
    let _ = to_client.shutdown().await;
}
