//! What a running batch shows: on a terminal an overall bar of rounds plus one line per
//! running server with its round and phase (indicatif); otherwise plain lines on stderr, one
//! per event, that a log file or CI output keeps readable.

use std::collections::HashMap;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often spinners redraw.
const TICK: Duration = Duration::from_millis(120);

enum Display {
    Bars {
        multi: MultiProgress,
        overall: ProgressBar,
        lines: Mutex<HashMap<String, ProgressBar>>,
    },
    Lines,
}

pub struct Progress {
    display: Display,
    /// What the overall count counts: "rounds" for `batch`, "versions" for `drift`.
    unit: &'static str,
    total_rounds: Mutex<u64>,
    done_rounds: Mutex<u64>,
    servers: usize,
    done_servers: Mutex<usize>,
}

impl Progress {
    /// Bars when both stdout and stderr are terminals (someone is watching), lines otherwise.
    pub fn auto(
        total_rounds: u64,
        done_rounds: u64,
        servers: usize,
        done_servers: usize,
    ) -> Progress {
        let terminal = std::io::stdout().is_terminal() && std::io::stderr().is_terminal();
        Progress::new(terminal, total_rounds, done_rounds, servers, done_servers)
    }

    pub fn new(
        bars: bool,
        total_rounds: u64,
        done_rounds: u64,
        servers: usize,
        done_servers: usize,
    ) -> Progress {
        Progress::counting(
            "rounds",
            bars,
            total_rounds,
            done_rounds,
            servers,
            done_servers,
        )
    }

    /// The same display counting `unit` (steps of each server's job) instead of rounds.
    pub fn counting(
        unit: &'static str,
        bars: bool,
        total_rounds: u64,
        done_rounds: u64,
        servers: usize,
        done_servers: usize,
    ) -> Progress {
        let display = if bars {
            let multi = MultiProgress::with_draw_target(ProgressDrawTarget::stderr());
            let overall = multi.add(ProgressBar::new(total_rounds));
            overall.set_style(
                ProgressStyle::with_template(&format!(
                    "{{elapsed_precise}} [{{bar:32}}] {{pos}}/{{len}} {unit}  {{msg}}"
                ))
                .expect("a valid template")
                .progress_chars("=> "),
            );
            overall.set_position(done_rounds);
            Display::Bars {
                multi,
                overall,
                lines: Mutex::new(HashMap::new()),
            }
        } else {
            Display::Lines
        };
        let p = Progress {
            display,
            unit,
            total_rounds: Mutex::new(total_rounds),
            done_rounds: Mutex::new(done_rounds),
            servers,
            done_servers: Mutex::new(done_servers),
        };
        p.update_overall();
        p
    }

    fn update_overall(&self) {
        if let Display::Bars { overall, .. } = &self.display {
            let done = *self.done_servers.lock().expect("not poisoned");
            overall.set_message(format!("{done}/{} servers done", self.servers));
        }
    }

    /// A server's phase changed (installing, round k/N ...).
    pub fn phase(&self, name: &str, text: &str) {
        match &self.display {
            Display::Bars { multi, lines, .. } => {
                let mut lines = lines.lock().expect("not poisoned");
                let bar = lines.entry(name.to_string()).or_insert_with(|| {
                    let bar = multi.add(ProgressBar::new_spinner());
                    bar.set_style(
                        ProgressStyle::with_template("  {spinner} {prefix:<24} {elapsed:>4} {msg}")
                            .expect("a valid template"),
                    );
                    bar.set_prefix(name.to_string());
                    bar.enable_steady_tick(TICK);
                    bar
                });
                bar.set_message(text.to_string());
            }
            Display::Lines => self.line(name, text),
        }
    }

    /// A round ended (committed or failed): one step of the overall count.
    pub fn round(&self, name: &str, text: &str) {
        *self.done_rounds.lock().expect("not poisoned") += 1;
        match &self.display {
            Display::Bars { overall, multi, .. } => {
                overall.inc(1);
                let _ = multi.println(format!("  {name:<24} {text}"));
            }
            Display::Lines => self.line(name, text),
        }
    }

    /// A server is done for this run; `skipped_rounds` of its planned rounds will not run
    /// (failed early, errors, interruption) and leave the overall count.
    pub fn finish(&self, name: &str, text: &str, skipped_rounds: u64) {
        *self.done_servers.lock().expect("not poisoned") += 1;
        *self.total_rounds.lock().expect("not poisoned") -= skipped_rounds;
        match &self.display {
            Display::Bars {
                overall,
                multi,
                lines,
            } => {
                if let Some(bar) = lines.lock().expect("not poisoned").remove(name) {
                    bar.finish_and_clear();
                    multi.remove(&bar);
                }
                overall.set_length(overall.length().unwrap_or(0).saturating_sub(skipped_rounds));
                let _ = multi.println(format!("  {name:<24} {text}"));
            }
            Display::Lines => self.line(name, text),
        }
        self.update_overall();
    }

    pub fn close(&self) {
        if let Display::Bars { overall, .. } = &self.display {
            overall.finish_and_clear();
        }
    }

    fn line(&self, name: &str, text: &str) {
        let total = *self.total_rounds.lock().expect("not poisoned");
        let done = *self.done_rounds.lock().expect("not poisoned");
        eprintln!("[{done}/{total} {}] {name}: {text}", self.unit);
    }
}
