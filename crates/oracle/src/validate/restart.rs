//! A server that died during a call is started again. A call of an unchanged tool is tried once
//! more: a crash an earlier call set off (a timer that throws after its answer was sent) is not
//! its own, and where the call before it was on a changed or new tool, that call is failed for
//! it. A call of a changed or new tool is not excused by a retry that answers (a crash that does
//! not come back every time is still a crash): on the fresh start the call before it is made
//! again, then a call of a name the server never had; only if that crashes too is the crash the
//! earlier call's, and the changed call judged by its retry. A crash that comes back on the
//! retry, or a server that does not start again, ends the calls.

use serde_json::{Map, Value};

use super::judge::{Judged, quote};
use super::{CALL_TIMEOUT, Check, Oracle, PROBE_TOOLS, TestKind, Verdict, result};
use crate::server::session::{CallStatus, Outcome};

/// Restarts one version's calls may take: a server that keeps dying is not chased further.
const MAX_RESTARTS: u32 = 3;

impl Oracle<'_> {
    pub(super) async fn call(&mut self, tool: &str, arguments: &Map<String, Value>) -> Outcome {
        if let Some(seen) = self.unreachable(tool, arguments) {
            return seen;
        }
        if self.dead {
            return Outcome {
                status: CallStatus::Crashed,
                text: "not called: the server crashed on an earlier call".into(),
                parts: Vec::new(),
                other: Vec::new(),
            };
        }
        let before = self
            .last_call
            .replace((tool.to_string(), arguments.clone()));
        let outcome = self
            .session
            .call(tool, arguments.clone(), CALL_TIMEOUT)
            .await;
        if outcome.status != CallStatus::Crashed {
            return outcome;
        }
        if self.changed(tool) && !self.set_off_by(before.as_ref()).await {
            return outcome;
        }
        match self.retry(tool, arguments).await {
            Some(again) if again.status != CallStatus::Crashed => {
                self.blame(before.map(|(t, _)| t), &outcome);
                again
            }
            _ => {
                self.dead = true;
                outcome
            }
        }
    }

    /// The answer not asked for again of a tool the new version lists, whose call could not
    /// answer at the previous version (see `offline.rs`): its failure, saying it was not
    /// called, and never a hang, which would fail the check that sees it. Only the same call,
    /// or any call of a tool that hung: other arguments of a tool that failed fast are asked
    /// (a value beyond a bound is refused before the tool reaches for the network, and a
    /// bound's check needs that answer).
    fn unreachable(&self, tool: &str, arguments: &Map<String, Value>) -> Option<Outcome> {
        self.change.tool(tool)?;
        let seen = (self.baseline.calls.get(tool))
            .filter(|s| s.unreachable())
            .filter(|s| s.status == CallStatus::Timeout || s.arguments == *arguments)?;
        let status = match seen.status {
            CallStatus::Timeout => CallStatus::ToolError,
            status => status,
        };
        Some(Outcome {
            status,
            text: format!("not called: {}", seen.not_called()),
            parts: Vec::new(),
            other: Vec::new(),
        })
    }

    /// Whether the call before a crash sets one off by itself: on a fresh start, it is made
    /// again, then a call of a name the server never had, which crashes too if so. The fresh
    /// start serves the calls after either way.
    async fn set_off_by(&mut self, before: Option<&(String, Map<String, Value>)>) -> bool {
        if !self.restart().await {
            self.dead = true;
            return false;
        }
        let Some((tool, arguments)) = before else {
            return false;
        };
        let _ = (self.session)
            .call(tool, arguments.clone(), CALL_TIMEOUT)
            .await;
        let probe = (self.session)
            .call(PROBE_TOOLS[0], Map::new(), CALL_TIMEOUT)
            .await;
        if probe.status != CallStatus::Crashed {
            return false;
        }
        // The probe's crash left the server dead: the retry starts it again.
        true
    }

    /// The call once more, on a fresh start of the server; None when none can be made.
    async fn retry(&mut self, tool: &str, arguments: &Map<String, Value>) -> Option<Outcome> {
        if !self.restart().await {
            return None;
        }
        Some(
            self.session
                .call(tool, arguments.clone(), CALL_TIMEOUT)
                .await,
        )
    }

    /// A fresh start of the server in place of the dead one; false when none can be made.
    async fn restart(&mut self) -> bool {
        let Some(start) = self.start else {
            return false;
        };
        if self.restarts >= MAX_RESTARTS {
            return false;
        }
        self.restarts += 1;
        self.restarted_at.get_or_insert(self.results.len());
        let Some(fresh) = start.restart().await else {
            return false;
        };
        let old = std::mem::replace(&mut *self.session, fresh);
        old.close().await;
        true
    }

    /// Whether the round changed `tool` (or added it, or renamed a tool to it).
    fn changed(&self, tool: &str) -> bool {
        self.change.changes_of(tool).next().is_some()
            || (self.change.changes.iter()).any(|c| c.renamed_to() == Some(tool))
    }

    /// Outputs that differ from the previous version's after a restart show nothing: the
    /// calls the server saw before them are no longer the previous version's (a counter of
    /// charts drawn starts again), so those are unverifiable, not failed.
    pub(super) fn after_restart(&mut self) {
        let Some(from) = self.restarted_at else {
            return;
        };
        for r in &mut self.results[from..] {
            if r.verdict == Verdict::Failed && r.differed {
                let why = r.reason.take().unwrap_or_default();
                r.verdict = Verdict::Unverifiable;
                r.passed = false;
                // Not the comparison's own verdict any more: not evidence to judge again.
                r.reference = None;
                r.reason = Some(format!(
                    "the server was started again after a crash, so its state is not the previous version's: {why}"
                ));
            }
        }
    }

    /// The call before a crash the crashed call did not cause itself: on a changed or new tool,
    /// the change may have set it off, so that call fails; an unchanged tool did the same
    /// before the change.
    fn blame(&mut self, before: Option<String>, crash: &Outcome) {
        let Some(previous) = before else { return };
        if !self.changed(&previous) {
            return;
        }
        let judged = Judged::failed(format!(
            "the server crashed right after this call answered (the next call answers on a fresh start): {}",
            quote(&crash.text)
        ));
        self.results.push(result(
            &previous,
            TestKind::Changed,
            Check::AsBefore,
            &Map::new(),
            CallStatus::Crashed,
            None,
            judged,
        ));
    }
}
