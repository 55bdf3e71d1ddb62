//! Running a server process: its own process group in its sandbox, stderr kept aside, its exit
//! watched, and a kill of the whole group (grandchildren included) when we are done with it.

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::{Signal, killpg};
use nix::unistd::Pid;
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::process::{ChildStdin, Command};
use tokio::sync::watch;
use tokio::task::AbortHandle;

use super::launch::LaunchConfig;
use super::namespace::IsolationPlan;
use super::sandbox::Scratch;
use super::stdout::{self, Evidence};

/// How much of the server's stderr we keep for error messages: the tail is what explains a crash.
const STDERR_TAIL_BYTES: usize = 16 * 1024;
/// The pipe between our tasks only buffers: messages larger than this stream through it.
const PIPE_BYTES: usize = 256 * 1024;
/// How long a killed server may take to be reaped before we stop waiting (it is SIGKILLed;
/// only a process stuck in the kernel takes longer).
const REAP_WAIT: Duration = Duration::from_secs(5);

/// A running server. Dropping it kills its whole process group, and whatever it started that
/// left the group (a browser launched detached).
pub struct ServerProcess {
    pgid: Pid,
    /// Its scratch folder (HOME, TMPDIR, `{tmp}`, the copy it runs in); removed on drop.
    scratch: Scratch,
    /// Set once the server has exited and been reaped.
    exit: watch::Receiver<Option<ExitStatus>>,
    stderr: Arc<Mutex<VecDeque<u8>>>,
    stdout: Arc<Mutex<Evidence>>,
    /// The tasks holding its pipes, stopped on kill so that no descriptor outlives the server
    /// even if something escaped the group and holds the other ends.
    pipes: Vec<AbortHandle>,
}

/// The two ends the MCP client talks through: the server's filtered stdout, and its stdin.
pub type Pipes = (DuplexStream, DuplexStream);

/// A change made to each line the client sends, before the server sees it.
pub type Rewrite = fn(String) -> String;

/// The server's command: scrubbed environment, piped stdio, its own process group, and in the
/// forked child, death with mcpevol and (with `plan`) the namespaces entered before exec.
fn command(
    config: &LaunchConfig,
    scratch: &Scratch,
    extra_args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    plan: Option<IsolationPlan>,
) -> Command {
    let fill = |s: &String| scratch.fill(s);
    let parent = nix::unistd::getpid().as_raw();
    // A program given as a relative path (`.venv/bin/python`) is the package's own.
    let program = if config.command.contains('/') && Path::new(&config.command).is_relative() {
        scratch.cwd().join(&config.command)
    } else {
        PathBuf::from(&config.command)
    };
    let mut cmd = Command::new(program);
    cmd.args(config.args.iter().map(fill))
        .args(extra_args)
        .current_dir(scratch.cwd())
        .env_clear()
        .envs(scratch.environment(env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own group, so that one signal reaches everything the server started.
        .process_group(0)
        .kill_on_drop(true);
    // SAFETY: the closure runs in the forked child and makes syscalls only.
    unsafe {
        cmd.pre_exec(move || {
            // Should mcpevol itself be killed (kill -9), the server goes with it.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 || libc::getppid() != parent
            {
                return Err(std::io::Error::last_os_error());
            }
            match &plan {
                Some(plan) => plan
                    .enter()
                    .map_err(|(_, errno)| std::io::Error::from_raw_os_error(errno)),
                None => Ok(()),
            }
        });
    }
    cmd
}

impl ServerProcess {
    pub fn spawn(
        config: &LaunchConfig,
        root: &Path,
        extra_args: &[String],
        rewrite: Rewrite,
    ) -> std::io::Result<(Self, Pipes)> {
        let scratch = Scratch::new(root)?;
        let env: std::collections::BTreeMap<String, String> = config
            .env
            .iter()
            .map(|(k, v)| (k.clone(), scratch.fill(v)))
            .collect();
        let settings = config
            .args
            .iter()
            .map(|a| scratch.fill(a))
            .chain(extra_args.iter().cloned())
            .chain(env.values().cloned())
            .collect();
        let path = env
            .get("PATH")
            .map(std::ffi::OsString::from)
            .or_else(|| std::env::var_os("PATH"));
        let plan = scratch.isolation(&config.command, settings, path)?;
        let mut cmd = command(config, &scratch, extra_args, &env, plan);
        let mut child = cmd.spawn()?;
        let pid = child
            .id()
            .ok_or_else(|| std::io::Error::other("the server exited at once"))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout_pipe = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");

        let (exit_tx, exit) = watch::channel(None);
        tokio::spawn(async move {
            let status = child.wait().await.ok();
            let _ = exit_tx.send(status);
        });
        let stderr = Arc::new(Mutex::new(VecDeque::new()));
        let evidence = Arc::new(Mutex::new(Evidence::default()));
        let (ours, theirs) = tokio::io::duplex(PIPE_BYTES);
        let (client_end, from_client) = tokio::io::duplex(PIPE_BYTES);
        let pipes = vec![
            tokio::spawn(keep_tail(stderr_pipe, stderr.clone())).abort_handle(),
            tokio::spawn(stdout::forward(stdout_pipe, theirs, evidence.clone())).abort_handle(),
            tokio::spawn(forward_requests(from_client, stdin, rewrite)).abort_handle(),
        ];
        let process = ServerProcess {
            pgid: Pid::from_raw(pid as i32),
            scratch,
            exit,
            stderr,
            stdout: evidence,
            pipes,
        };
        Ok((process, (ours, client_end)))
    }

    /// The folder `{tmp}` stands for in this run.
    pub fn tmp_path(&self) -> &Path {
        self.scratch.data()
    }

    /// The last lines the server wrote to stderr.
    /// The copy of the package the server runs in.
    pub fn package_copy(&self) -> &Path {
        self.scratch.cwd()
    }

    pub fn stderr_tail(&self, max_lines: usize) -> String {
        let bytes: Vec<u8> = self.stderr.lock().unwrap().iter().copied().collect();
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(max_lines)..].join("\n")
    }

    /// Lines the server printed on stdout that were not JSON-RPC messages.
    pub fn noise(&self) -> Vec<String> {
        self.stdout.lock().unwrap().noise.clone()
    }

    /// Why its stdout was cut off, if it was (a line over the limit).
    pub fn fault(&self) -> Option<String> {
        self.stdout.lock().unwrap().fault.clone()
    }

    /// The CPU time its process group has used so far (user and system, from `/proc`): a
    /// server still loading its libraries keeps adding to it, a hung one does not.
    pub fn cpu_time(&self) -> std::time::Duration {
        // SAFETY: sysconf only reads a configuration value.
        let per_second = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        std::time::Duration::from_millis(self.cpu_ticks() * 1000 / per_second)
    }

    fn cpu_ticks(&self) -> u64 {
        let group = self.pgid.as_raw().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return 0;
        };
        entries
            .flatten()
            .filter(|e| {
                e.file_name()
                    .to_string_lossy()
                    .bytes()
                    .all(|b| b.is_ascii_digit())
            })
            .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
            .filter_map(|stat| {
                // The command name, in parentheses, may hold spaces: fields count after it.
                let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
                // pgrp is field 5 of stat, utime 14 and stime 15 (1-based, name is 2).
                (fields.get(2)? == &group.as_str()).then_some(())?;
                let ticks = |i: usize| fields.get(i)?.parse::<u64>().ok();
                Some(ticks(11)? + ticks(12)?)
            })
            .sum()
    }

    /// The exit status, if the server has already exited.
    pub fn exit_status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    /// Resolves when the server exits (its grandchildren may live on, holding its pipes).
    pub fn exited(&self) -> impl std::future::Future<Output = Option<ExitStatus>> + 'static {
        let mut exit = self.exit.clone();
        async move {
            match exit.wait_for(Option::is_some).await {
                Ok(status) => *status,
                Err(_) => None, // the watcher is gone: the runtime is shutting down
            }
        }
    }

    /// Kills the whole process group, reaps the server and closes its pipes.
    pub async fn kill(self) {
        let _ = killpg(self.pgid, Signal::SIGKILL);
        let _ = tokio::time::timeout(REAP_WAIT, self.exited()).await;
        // Drop stops the pipe tasks and removes the scratch folder.
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Also on early returns and panics: no server or grandchild may outlive us.
        let _ = killpg(self.pgid, Signal::SIGKILL);
        self.scratch.kill_strays();
        for task in &self.pipes {
            task.abort();
        }
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
