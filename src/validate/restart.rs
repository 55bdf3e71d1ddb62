//! A server that died during a call is started again and the call tried once more: a crash an
//! earlier call set off (a timer that throws after its answer was sent) is not the later call's
//! own. Where the call before it was on a changed or new tool, that call is failed for it; a
//! crash that comes back on the retry ends the calls.

use serde_json::{Map, Value};

use super::judge::{Judged, quote};
use super::{CALL_TIMEOUT, Check, Oracle, TestKind, Verdict, result};
use crate::server::session::{CallStatus, Outcome};

/// Restarts one version's calls may take: a server that keeps dying is not chased further.
const MAX_RESTARTS: u32 = 3;

impl Oracle<'_> {
    pub(super) async fn call(&mut self, tool: &str, arguments: &Map<String, Value>) -> Outcome {
        if self.dead {
            return Outcome {
                status: CallStatus::Crashed,
                text: "not called: the server crashed on an earlier call".into(),
                parts: Vec::new(),
                other: Vec::new(),
            };
        }
        let before = self.last_call.replace(tool.to_string());
        let outcome = self
            .session
            .call(tool, arguments.clone(), CALL_TIMEOUT)
            .await;
        if outcome.status != CallStatus::Crashed {
            return outcome;
        }
        match self.retry(tool, arguments).await {
            Some(again) if again.status != CallStatus::Crashed => {
                self.blame(before, &outcome);
                again
            }
            _ => {
                self.dead = true;
                outcome
            }
        }
    }

    /// The call once more, on a fresh start of the server; None when none can be made.
    async fn retry(&mut self, tool: &str, arguments: &Map<String, Value>) -> Option<Outcome> {
        let start = self.start?;
        if self.restarts >= MAX_RESTARTS {
            return None;
        }
        self.restarts += 1;
        self.restarted_at.get_or_insert(self.results.len());
        let fresh = start.restart().await?;
        let old = std::mem::replace(&mut *self.session, fresh);
        old.close().await;
        Some(
            self.session
                .call(tool, arguments.clone(), CALL_TIMEOUT)
                .await,
        )
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
        let changed = self.change.changes_of(&previous).next().is_some()
            || (self.change.changes.iter()).any(|c| c.renamed_to.as_deref() == Some(&previous));
        if !changed {
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
