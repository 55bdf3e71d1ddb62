//! One module per subcommand, each with its arguments (clap) and its `run`; `options` holds
//! what `evolve` and `batch` share (the backend and its settings), `exit` the exit codes;
//! [`stop_signal`] is how `batch` and `drift` hear Ctrl-C.
//! Library behaviour stays in the library: these modules parse, call and print.

pub mod anchor;
pub mod batch;
pub mod diff;
pub mod drift;
pub mod evolve;
pub mod exit;
pub mod export;
pub mod init;
pub mod install;
pub mod log;
pub mod operators;
pub mod options;
pub mod report;
pub mod survey;
pub mod tools;

use anyhow::{Context, Result};
use mcpevol::server::{self, sandbox::Isolation};

/// Sets how servers are isolated, warning when the machine cannot do it.
fn isolate(isolation: Isolation) {
    if let Some(warning) = server::sandbox::set_isolation(isolation) {
        eprintln!("warning: {warning}");
    }
    server::sandbox::clean_up_after_killed_runs();
}

/// Turns true on Ctrl-C (SIGINT) or SIGTERM (what Kubernetes and Slurm send to stop a job).
pub(crate) fn stop_signal() -> Result<tokio::sync::watch::Receiver<bool>> {
    let (tx, rx) = tokio::sync::watch::channel(false);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the signal listener")?;
    let mut term = rt
        .block_on(async {
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        })
        .context("cannot listen for SIGTERM")?;
    std::thread::Builder::new()
        .name("signals".into())
        .spawn(move || {
            rt.block_on(async {
                tokio::select! {
                    _ = tokio::signal::ctrl_c() => {}
                    _ = term.recv() => {}
                }
            });
            let _ = tx.send(true);
        })
        .context("cannot start the signal listener")?;
    Ok(rx)
}

fn runtime() -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Runtime::new().context("cannot start the async runtime")
}

fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value).context("cannot serialize the output")?;
    println!("{text}");
    Ok(())
}

/// The first line of `text`, cut to `max` characters.
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or("");
    if line.chars().count() > max {
        format!("{}…", line.chars().take(max - 1).collect::<String>())
    } else {
        line.to_string()
    }
}
