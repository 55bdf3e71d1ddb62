//! `mcpevol drift <WORKDIR|BATCH_DIR> [--calls FILE] [--versions LIST] [--json]`: the calls
//! that worked on the original, replayed on every version; a table per server (call ×
//! version), the reasons, and where the schema forecast and the replay disagree.

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;
use clap::Args;

use mcpevol::drift::{self, CallSource, Forecast, ServerDrift, Verdict};
use mcpevol::server::{self, sandbox::Isolation};

use super::{first_line, print_json};

/// Characters of a call (tool and arguments) shown in its table row.
const CALL_WIDTH: usize = 44;
/// Characters of a reason shown in the text listing (the JSON has it whole).
const REASON_WIDTH: usize = 220;

#[derive(Args)]
pub struct DriftArgs {
    /// A workspace, or a batch folder (each of its servers, `--jobs` at once).
    source: PathBuf,
    /// The calls to replay: a JSONL file of {"name", "arguments"} objects, a JSON-RPC log of an
    /// agent session (its tools/call requests), or a folder of NAME.jsonl files, one per server.
    /// Default: the calls the original's record holds, one per tool.
    #[arg(long, value_name = "FILE")]
    calls: Option<PathBuf>,
    /// Versions or stage tags to replay, separated by commas (`v0,v3,v5`, `early,late`).
    /// Default: every version.
    #[arg(long, value_name = "LIST", value_delimiter = ',')]
    versions: Option<Vec<String>>,
    /// Servers audited at once (batch folders).
    #[arg(long, default_value_t = 1)]
    jobs: usize,
    /// Seconds for a server to start and list its tools.
    #[arg(long, default_value_t = server::DEFAULT_TIMEOUT.as_secs_f64())]
    timeout: f64,
    /// Seconds for each call.
    #[arg(long, default_value_t = mcpevol::validate::CALL_TIMEOUT.as_secs_f64())]
    call_timeout: f64,
    /// Isolate the servers (see `evolve --sandbox`).
    #[arg(long, value_enum, default_value_t = Isolation::On)]
    sandbox: Isolation,
    /// Print the audit as JSON instead of tables.
    #[arg(long)]
    json: bool,
}

pub fn run(args: DriftArgs) -> Result<()> {
    super::isolate(args.sandbox);
    let seconds = |s: f64, what: &str| -> Result<Duration> {
        Duration::try_from_secs_f64(s)
            .map_err(|_| anyhow::anyhow!("{what} must be a number of seconds, not {s}"))
    };
    let opts = drift::DriftOptions {
        calls: args.calls.map_or(CallSource::Recorded, CallSource::File),
        versions: args.versions,
        timeout: seconds(args.timeout, "--timeout")?,
        call_timeout: seconds(args.call_timeout, "--call-timeout")?,
        jobs: args.jobs,
        bars: !args.json && std::io::stdout().is_terminal() && std::io::stderr().is_terminal(),
    };
    let report = drift::run(&args.source, &opts, super::stop_signal()?)?;
    if args.json {
        print_json(&report)?;
    } else {
        for s in &report.servers {
            print!("{}", table(s));
        }
    }
    let failed: Vec<&str> = report
        .servers
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| s.name.as_str())
        .collect();
    if !failed.is_empty() {
        anyhow::bail!(
            "{} of {} servers could not be audited ({}); the others are reported",
            failed.len(),
            report.servers.len(),
            failed.join(", ")
        );
    }
    Ok(())
}

/// A table cell: the verdict in a word, where the call's tool went, and `*` where the
/// forecast disagrees.
fn cell(r: &drift::CallResult) -> String {
    let mut text = match r.verdict {
        Verdict::Same => "same".to_string(),
        Verdict::Changed => "CHANGED".into(),
        Verdict::UnknownTool => "unknown".into(),
        Verdict::RefusedArguments => "refused".into(),
        Verdict::Error => "ERROR".into(),
        Verdict::Crash => "CRASH".into(),
        Verdict::Timeout => "TIMEOUT".into(),
        Verdict::Unverifiable => "unverif".into(),
    };
    if let Some(s) = &r.successor {
        text += &format!("→{s}");
    }
    let forecast_breaks = r.forecast == Forecast::Breaks;
    if r.verdict.breaks().is_some_and(|b| b != forecast_breaks) {
        text.push('*');
    }
    text
}

// Long: the table written in the order it prints.
fn table(s: &ServerDrift) -> String {
    let mut out = format!("{}\n", s.name);
    if let Some(e) = &s.error {
        return out + &format!("  could not be audited: {}\n\n", first_line(e, 400));
    }
    let call = |c: &drift::Call| {
        first_line(
            &format!(
                "{} {}",
                c.tool,
                serde_json::Value::Object(c.arguments.clone())
            ),
            CALL_WIDTH,
        )
    };
    let rows: Vec<(String, Vec<String>)> = s
        .calls
        .iter()
        .map(|c| {
            let cells = s
                .versions
                .iter()
                .map(|v| s.result(c.id, *v).map_or("-".into(), cell))
                .collect();
            (format!("{:>3}  {}", c.id, call(c)), cells)
        })
        .collect();
    let first = rows
        .iter()
        .map(|(c, _)| c.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    let widths: Vec<usize> = s
        .versions
        .iter()
        .enumerate()
        .map(|(i, v)| {
            rows.iter()
                .map(|(_, cells)| cells[i].chars().count())
                .chain([v.to_string().len()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |head: &str, cells: &[String]| {
        let mut l = format!("  {head:<first$}");
        for (c, w) in cells.iter().zip(&widths) {
            l += &format!("  {c:<w$}");
        }
        l.trim_end().to_string() + "\n"
    };
    let tags: Vec<String> = s.versions.iter().map(|v| v.to_string()).collect();
    out += &line("  #  call", &tags);
    for (head, cells) in &rows {
        out += &line(head, cells);
    }
    let counts: Vec<String> = s
        .counts()
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(v, n)| format!("{n} {v}"))
        .collect();
    out += &format!(
        "  {} calls × {} versions: {}; * = the schema forecast disagrees\n",
        s.calls.len(),
        s.versions.len(),
        counts.join(", ")
    );
    for f in &s.failed_versions {
        out += &format!(
            "  {} did not start: {}\n",
            f.version,
            first_line(&f.error, REASON_WIDTH)
        );
    }
    let notes: Vec<String> = s
        .results
        .iter()
        .filter(|r| r.verdict != Verdict::Same)
        .filter(|r| !s.failed_versions.iter().any(|f| f.version == r.version))
        .map(|r| {
            let text = format!("#{} {} {}: {}", r.call, r.version, r.verdict, r.reason);
            format!("    {}\n", first_line(&text, REASON_WIDTH))
        })
        .collect();
    if !notes.is_empty() {
        out += "  not the same:\n";
        out += &notes.concat();
    }
    if !s.disagreements.is_empty() {
        out += "  forecast and replay disagree:\n";
        for d in &s.disagreements {
            let forecast = match d.forecast {
                Forecast::Ok => "ok",
                Forecast::Breaks => "breaks",
            };
            let text = format!(
                "#{} {}: forecast {forecast}, replay {}: {}",
                d.call, d.version, d.verdict, d.why
            );
            out += &format!("    {}\n", first_line(&text, REASON_WIDTH));
        }
    }
    out + "\n"
}
