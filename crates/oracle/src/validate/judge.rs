//! Verdicts on single calls: pure functions of what the new version answered and what the
//! previous one answered on the same call.

use serde::{Deserialize, Serialize};

use super::baseline::{Observation, parts_as_learned};
use super::unknown::UnknownShape;
use crate::server::session::{CallStatus, Outcome};

/// Characters of a tool's answer quoted in a reason.
const QUOTED: usize = 160;

/// How a check ended. Unverifiable is never counted as passed: the previous version could not
/// answer the call either (it needs the network, a credential, a service), so the call proves
/// nothing about the change. A record that does not say reads as failed (fail closed).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    Passed,
    #[default]
    Failed,
    Unverifiable,
}

/// What a passing comparison looked at.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Compared {
    /// The normalised output equals the previous version's.
    Output,
    /// Only the success or error status: the previous version's output varies between runs.
    CallStatus,
}

/// A verdict with its reason in one line.
#[derive(Debug, Clone, PartialEq)]
pub struct Judged {
    pub verdict: Verdict,
    pub reason: Option<String>,
    pub compared: Option<Compared>,
    /// Failed only because the output is not the previous one, which two samples of the
    /// previous version may have wrongly called deterministic.
    pub differed: bool,
}

impl Judged {
    pub fn passed(compared: Option<Compared>) -> Judged {
        Judged {
            verdict: Verdict::Passed,
            reason: None,
            compared,
            differed: false,
        }
    }

    pub fn failed(reason: impl Into<String>) -> Judged {
        Judged {
            verdict: Verdict::Failed,
            reason: Some(reason.into()),
            compared: None,
            differed: false,
        }
    }

    pub fn unverifiable(reason: impl Into<String>) -> Judged {
        Judged {
            verdict: Verdict::Unverifiable,
            reason: Some(reason.into()),
            compared: None,
            differed: false,
        }
    }
}

/// An answer outside the tool's own success or error results: a JSON-RPC error, or a result
/// that is not one.
pub fn is_protocol_error(status: CallStatus) -> bool {
    matches!(status, CallStatus::RpcError | CallStatus::Malformed)
}

/// A tool's answer quoted on one line (a failure's cause stays one line in every report) and
/// normalised (no timestamp or temporary path, so that the same seed gives the same record).
pub fn quote(text: &str) -> String {
    shorten(&super::normalize::normalize(text))
}

/// `text` on one line, cut to a length a reason can hold.
fn shorten(text: &str) -> String {
    let line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut short: String = line.chars().take(QUOTED).collect();
    if line.chars().count() > QUOTED {
        short.push('…');
    }
    short
}

/// Failures no previous answer can excuse: a crash, a hang, the server not knowing a tool it
/// lists. None when the call answered in some way worth comparing.
pub fn hard_failure(
    outcome: &Outcome,
    name: &str,
    unknown: Option<&UnknownShape>,
) -> Option<Judged> {
    match outcome.status {
        CallStatus::Crashed => Some(Judged::failed(format!(
            "the server crashed: {}",
            quote(&outcome.text)
        ))),
        // The session's own words ("no answer within 10s"), not the tool's.
        CallStatus::Timeout => Some(Judged::failed(outcome.text.clone())),
        _ if unknown.is_some_and(|u| u.matches(outcome, name)) => {
            let answer = if outcome.text.trim().is_empty() && outcome.other.is_empty() {
                "an empty result, as to names it never had".to_string()
            } else {
                quote(&outcome.text)
            };
            Some(Judged::failed(format!(
                "the server does not know the tool it lists: {answer}"
            )))
        }
        _ => None,
    }
}

/// The same call at the previous version and now: equal outputs where the previous output was
/// deterministic, equal status otherwise; a previous failure makes the check unverifiable
/// unless the new answer is a crash, a hang or a protocol error.
pub fn against(
    reference: &Observation,
    outcome: &Outcome,
    name: &str,
    unknown: Option<&UnknownShape>,
) -> Judged {
    if reference.status == CallStatus::Timeout {
        return Judged::unverifiable("it timed out at the previous version, so it was not called");
    }
    if reference.like_unknown {
        // Answered as a name the server never had, then and maybe now: the same answer twice
        // shows nothing about the tool.
        if let Some(failure) = hard_failure(outcome, name, None) {
            return failure;
        }
        if is_protocol_error(outcome.status) && reference.status != outcome.status {
            return Judged::failed(format!(
                "a protocol error where the previous version answered {:?}: {}",
                reference.status,
                quote(&outcome.text)
            ));
        }
        return Judged::unverifiable(
            "it answered as the server answers a tool it does not have at the previous version too",
        );
    }
    if let Some(failure) = hard_failure(outcome, name, unknown) {
        return failure;
    }
    if reference.status != CallStatus::Ok {
        if is_protocol_error(outcome.status) && reference.status != outcome.status {
            return Judged::failed(format!(
                "a protocol error where the previous version answered {:?}: {}",
                reference.status,
                quote(&outcome.text)
            ));
        }
        return Judged::unverifiable(format!(
            "the previous version answered {:?} too: {}",
            reference.status,
            quote(&reference.text())
        ));
    }
    if outcome.status != CallStatus::Ok {
        return Judged::failed(format!(
            "it answered {:?} where the previous version succeeded: {}",
            outcome.status,
            quote(&outcome.text)
        ));
    }
    if !reference.deterministic {
        return Judged::passed(Some(Compared::CallStatus));
    }
    let now = parts_as_learned(outcome, &reference.volatile);
    if now == reference.parts {
        Judged::passed(Some(Compared::Output))
    } else {
        Judged {
            differed: true,
            ..Judged::failed(format!(
                "its output differs from the previous version's: {}",
                first_difference(&reference.parts.join("\n"), &now.join("\n"))
            ))
        }
    }
}

/// "`before…` became `after…`", from the first differing character.
pub fn first_difference(before: &str, after: &str) -> String {
    let common = before
        .chars()
        .zip(after.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let from = common.saturating_sub(20);
    // Not normalised again: the difference may be in a value a placeholder would hide.
    let cut = |s: &str| shorten(&s.chars().skip(from).take(60).collect::<String>());
    format!("`{}` became `{}`", cut(before), cut(after))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(status: CallStatus, text: &str, deterministic: bool) -> Observation {
        Observation::answered(status, text, deterministic)
    }

    fn now(status: CallStatus, text: &str) -> Outcome {
        Outcome::answered(status, text)
    }

    #[test]
    fn a_changed_output_fails_where_the_previous_output_was_deterministic() {
        let before = seen(CallStatus::Ok, "Paris: 14C", true);
        assert_eq!(
            against(&before, &now(CallStatus::Ok, "Paris: 14C"), "t", None).verdict,
            Verdict::Passed
        );
        let changed = against(&before, &now(CallStatus::Ok, "Paris: 57F"), "t", None);
        assert_eq!(changed.verdict, Verdict::Failed);
        assert!(changed.reason.unwrap().contains("differs"));
    }

    #[test]
    fn a_varying_output_is_compared_by_status_only() {
        let before = seen(CallStatus::Ok, "random 0.41", false);
        let judged = against(&before, &now(CallStatus::Ok, "random 0.93"), "t", None);
        assert_eq!(judged.verdict, Verdict::Passed);
        assert_eq!(judged.compared, Some(Compared::CallStatus));
        assert_eq!(
            against(&before, &now(CallStatus::ToolError, "boom"), "t", None).verdict,
            Verdict::Failed
        );
    }

    #[test]
    fn the_same_failure_as_before_is_unverifiable_but_a_new_protocol_error_or_crash_fails() {
        let before = seen(
            CallStatus::ToolError,
            "getaddrinfo ENOTFOUND api.example.com",
            true,
        );
        let same = against(
            &before,
            &now(CallStatus::ToolError, "getaddrinfo ENOTFOUND"),
            "t",
            None,
        );
        assert_eq!(same.verdict, Verdict::Unverifiable);
        assert_eq!(
            against(
                &before,
                &now(CallStatus::RpcError, "-32602 invalid"),
                "t",
                None
            )
            .verdict,
            Verdict::Failed
        );
        assert_eq!(
            against(&before, &now(CallStatus::Crashed, "closed"), "t", None).verdict,
            Verdict::Failed
        );
        let timed_out = seen(CallStatus::Timeout, "", false);
        assert_eq!(
            against(&timed_out, &now(CallStatus::Timeout, ""), "t", None).verdict,
            Verdict::Unverifiable
        );
    }

    #[test]
    fn an_answer_like_an_unknown_tool_fails_unless_it_was_like_that_before_and_then_proves_nothing()
    {
        let shape = UnknownShape::of(&now(CallStatus::Ok, ""), "probe");
        let empty = Outcome {
            status: CallStatus::Ok,
            text: String::new(),
            parts: Vec::new(),
            other: Vec::new(),
        };
        // The tool answered an error before; now it answers like an unknown name: a failure.
        let before = seen(CallStatus::ToolError, "chromium not found", true);
        let judged = against(&before, &empty, "alias", Some(&shape));
        assert_eq!(judged.verdict, Verdict::Failed);
        assert!(judged.reason.unwrap().contains("does not know"));
        // It answered like an unknown name before too: the same empty answer proves nothing.
        let mut hollow = seen(CallStatus::Ok, "", true);
        hollow.raw.clear();
        hollow.like_unknown = true;
        assert_eq!(
            against(&hollow, &empty, "alias", Some(&shape)).verdict,
            Verdict::Unverifiable
        );
    }

    #[test]
    fn a_reason_stays_on_one_line_whatever_the_tool_printed() {
        let before = seen(CallStatus::Ok, "ok", true);
        let judged = against(
            &before,
            &now(CallStatus::ToolError, "line one\nline two\n\tthree"),
            "t",
            None,
        );
        let reason = judged.reason.unwrap();
        assert!(!reason.contains('\n'), "{reason}");
        assert!(reason.contains("line one line two three"));
    }
}
