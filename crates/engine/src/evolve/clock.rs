//! Where a round's time goes, step by step: kept apart from the records, since it differs from
//! run to run while records must not.

use std::cell::Cell;
use std::time::Instant;

use serde::Serialize;

/// Milliseconds per pipeline step.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Timings {
    pub anchor_ms: f64,
    pub mutate_ms: f64,
    /// Applying hunks, and any wait for the syntax check that runs beside the server step.
    pub check_ms: f64,
    /// Server start, tools/list, contract and functional tests.
    pub server_ms: f64,
    pub commit_ms: f64,
    /// Work done on another thread during the server step (the tree-sitter check of the edit,
    /// then the edited files' facts read ahead for the next anchoring). Not part of the round's
    /// wall time: a wait for it, when it outlasts the server step, is in `check_ms`.
    pub overlapped_ms: f64,
    /// The server time the oracle adds by running the previous version: observing it (two
    /// sessions at once) before the round, and, within `server_ms`, sampling it again when an
    /// output differs or tools are removed.
    pub previous_ms: f64,
}

/// The running totals of one round's steps.
#[derive(Default)]
pub struct Clock {
    anchor: Cell<f64>,
    mutate: Cell<f64>,
    check: Cell<f64>,
    server: Cell<f64>,
    overlapped: Cell<f64>,
    /// The previous version's server time, baseline included.
    previous: Cell<f64>,
}

/// A pipeline step whose time the clock keeps.
#[derive(Debug, Clone, Copy)]
pub enum Step {
    Anchor,
    Mutate,
    Check,
    Server,
    Overlapped,
    Previous,
}

impl Clock {
    /// A clock that starts with the previous version's baseline time already counted.
    pub fn with_baseline(previous_ms: f64) -> Clock {
        let clock = Clock::default();
        clock.previous.set(previous_ms);
        clock
    }

    fn slot(&self, step: Step) -> &Cell<f64> {
        match step {
            Step::Anchor => &self.anchor,
            Step::Mutate => &self.mutate,
            Step::Check => &self.check,
            Step::Server => &self.server,
            Step::Overlapped => &self.overlapped,
            Step::Previous => &self.previous,
        }
    }

    /// Adds the time since `since` to `step`.
    pub fn add(&self, step: Step, since: Instant) {
        self.add_ms(step, since.elapsed().as_secs_f64() * 1e3);
    }

    pub fn add_ms(&self, step: Step, ms: f64) {
        let slot = self.slot(step);
        slot.set(slot.get() + ms);
    }

    pub fn timings(&self) -> Timings {
        Timings {
            anchor_ms: self.anchor.get(),
            mutate_ms: self.mutate.get(),
            check_ms: self.check.get(),
            server_ms: self.server.get(),
            commit_ms: 0.0,
            overlapped_ms: self.overlapped.get(),
            previous_ms: self.previous.get(),
        }
    }
}
