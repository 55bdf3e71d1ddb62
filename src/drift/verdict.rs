//! A replayed call classified: the original's answer (two sessions, so that its determinism is
//! known) against the version's, judged with the oracle's own rules (`validate::against`,
//! `hard_failure`, the server's unknown-tool shape), then sorted into the drift verdicts; and,
//! where the forecast and the replay disagree, the likely reason.

use super::Verdict;
use super::forecast::{Finding, Rule};
use super::lineage::Fate;
use crate::server::session::{CallStatus, Outcome};
use crate::validate::{self, Compared, Observation, UnknownShape};

/// What the classification needs to know of the version besides the two answers.
pub struct Context<'a> {
    /// The called name, as the original knew it.
    pub tool: &'a str,
    /// Whether the version lists it (by that name).
    pub listed: bool,
    /// How the version's server answers a name it never had, when that can be told.
    pub unknown: Option<&'a UnknownShape>,
    /// The forecast's findings for this call at this version.
    pub findings: &'a [Finding],
    /// Where the tool went, from the records.
    pub fate: &'a Fate,
    /// An earlier call refused at this version (its id) without which the original answers
    /// this call as this version did: the difference is the state that call would have made.
    pub cascade: Option<usize>,
}

/// The verdict on one call at one version, with its reason on one line. `now` is None when
/// the call was not made (the original timed out on it, so it would only hold the rest up).
// Long: one arm per way a replayed call can end, each with the reason it gives.
pub fn classify(seen: &Observation, now: Option<&Outcome>, cx: &Context) -> (Verdict, String) {
    let Some(now) = now.filter(|_| seen.status != CallStatus::Timeout) else {
        return (
            Verdict::Unverifiable,
            "the original timed out on it, so it was not called".into(),
        );
    };
    match now.status {
        CallStatus::Crashed if seen.status == CallStatus::Crashed => {
            return (
                Verdict::Unverifiable,
                "the original crashed on it too".into(),
            );
        }
        CallStatus::Crashed => {
            return (
                Verdict::Crash,
                format!("the server crashed: {}", validate::quote(&now.text)),
            );
        }
        CallStatus::Timeout => return (Verdict::Timeout, now.text.clone()),
        _ => {}
    }
    let refused_as_unknown = match cx.unknown {
        Some(shape) => shape.matches(now, cx.tool),
        // A server whose unknown-tool answer cannot be told apart: an error from a tool it no
        // longer lists is taken for that answer.
        None => now.status != CallStatus::Ok,
    };
    if !cx.listed && refused_as_unknown {
        let mut reason = String::from("refused as an unknown tool");
        if !cx.fate.steps.is_empty() {
            reason += &format!(" ({})", cx.fate.steps.join("; "));
        }
        reason += &format!(": {}", validate::quote(&now.text));
        return (Verdict::UnknownTool, reason);
    }
    if seen.status != CallStatus::Ok {
        return (
            Verdict::Unverifiable,
            format!(
                "the original answered {:?} on it: {}",
                seen.status,
                validate::quote(&seen.text())
            ),
        );
    }
    let judged = validate::against(seen, now, cx.tool, cx.unknown);
    let hidden = if cx.listed {
        ""
    } else {
        " (it is not listed at this version, but still answers)"
    };
    let (verdict, reason) = match judged.verdict {
        validate::Verdict::Passed => {
            let what = match judged.compared {
                Some(Compared::Output) => "the same output as the original",
                _ => {
                    "the same status as the original (its output varies between runs, so only the status is compared)"
                }
            };
            (Verdict::Same, format!("{what}{hidden}"))
        }
        validate::Verdict::Unverifiable => {
            (Verdict::Unverifiable, judged.reason.unwrap_or_default())
        }
        validate::Verdict::Failed if judged.differed => (
            Verdict::Changed,
            format!(
                "its output differs from the original's{hidden}: {}",
                validate::first_difference(
                    &seen.text(),
                    &validate::parts_as_learned(now, &seen.volatile).join("\n")
                )
            ),
        ),
        // A listed tool answering like an unknown one: the judge's own words say so.
        validate::Verdict::Failed if refused_as_unknown && cx.unknown.is_some() => {
            (Verdict::Error, judged.reason.unwrap_or_default())
        }
        validate::Verdict::Failed => {
            let arguments: Vec<&str> = cx
                .findings
                .iter()
                .filter(|f| f.about_arguments())
                .map(|f| f.detail.as_str())
                .collect();
            let answer = format!("{:?}: {}", now.status, validate::quote(&now.text));
            if arguments.is_empty() {
                (
                    Verdict::Error,
                    format!("it answered {answer} where the original succeeded"),
                )
            } else {
                (
                    Verdict::RefusedArguments,
                    format!(
                        "refused for its arguments: {}; the server answered {answer}",
                        arguments.join("; ")
                    ),
                )
            }
        }
    };
    match (verdict, cx.cascade) {
        (Verdict::Changed | Verdict::Error, Some(k)) => (
            verdict,
            format!(
                "{reason} (call #{k} was refused here, and without it the original answers as this version did: the state differs, not the tool)"
            ),
        ),
        _ => (verdict, reason),
    }
}

/// Why the forecast and the replay disagree on a call, or None when they agree (or the replay
/// cannot tell: an unverifiable call agrees with any forecast).
pub fn disagreement(
    verdict: Verdict,
    findings: &[Finding],
    cascade: Option<usize>,
    not_started: bool,
) -> Option<String> {
    let forecast_breaks = !findings.is_empty();
    let breaks = verdict.breaks()?;
    if breaks == forecast_breaks {
        return None;
    }
    if !forecast_breaks {
        let why = if not_started {
            "the server did not start at this version; no schema diff shows that".to_string()
        } else if let Some(k) =
            cascade.filter(|_| matches!(verdict, Verdict::Changed | Verdict::Error))
        {
            format!(
                "call #{k} was refused here, and the original without it answers the same way: the state differs, not this tool"
            )
        } else {
            match verdict {
                Verdict::Changed => "the behaviour changed where the schema did not: the schema says nothing of outputs".into(),
                Verdict::Error => "the tool now fails on a call its schema still allows: the schema says nothing of behaviour".into(),
                Verdict::Crash => "the server crashes on a call its schema still allows".into(),
                Verdict::Timeout => "the tool hangs on a call its schema still allows".into(),
                Verdict::UnknownTool => "the tool is listed but refused as unknown".into(),
                _ => "the replay found a break the schema does not show".into(),
            }
        };
        return Some(why);
    }
    let rule = findings.first().map(|f| f.rule);
    Some(
        match rule {
            Some(Rule::RemovedParam) => {
                "the server ignores the removed parameter (unknown arguments are dropped, not refused)"
            }
            Some(Rule::TighterBound | Rule::EnumValueRemoved) => {
                "the new restriction is declared in the schema but not enforced by the handler"
            }
            Some(Rule::NewRequiredParam) => {
                "the server does not enforce the new required parameter"
            }
            Some(Rule::TypeChanged) => "the server still accepts the value of the old type",
            Some(Rule::ToolGone) => "the tool is no longer listed, but the server still answers it",
            None => "the schema forecast a break the replay did not see",
        }
        .to_string(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unknown() -> UnknownShape {
        UnknownShape {
            status: CallStatus::ToolError,
            texts: vec!["Unknown tool: {name}".into()],
            empty: false,
        }
    }

    fn verdict(
        seen: &Observation,
        answer: &Outcome,
        listed: bool,
        findings: &[Finding],
    ) -> Verdict {
        let fate = Fate {
            now: Some("old_tool".into()),
            steps: Vec::new(),
        };
        let shape = unknown();
        let cx = Context {
            tool: "old_tool",
            listed,
            unknown: Some(&shape),
            findings,
            fate: &fate,
            cascade: None,
        };
        classify(seen, Some(answer), &cx).0
    }

    fn required(param: &str) -> Finding {
        Finding {
            rule: Rule::NewRequiredParam,
            param: Some(param.into()),
            detail: format!("new required parameter `{param}`"),
        }
    }

    /// A previous answer as these tests write it: one text part, no arguments.
    fn observed(status: CallStatus, text: &str, deterministic: bool) -> Observation {
        Observation {
            arguments: Default::default(),
            status,
            parts: vec![text.to_string()],
            raw: vec![text.to_string()],
            other: Vec::new(),
            second: text.to_string(),
            volatile: validate::Volatile::default(),
            deterministic,
            like_unknown: false,
        }
    }

    /// An answer now: its text is the one part of a success, an error's message otherwise.
    fn answered(status: CallStatus, text: &str) -> Outcome {
        let parts = match status {
            CallStatus::Ok => vec![text.to_string()],
            _ => Vec::new(),
        };
        Outcome {
            status,
            text: text.into(),
            parts,
            other: Vec::new(),
        }
    }

    #[test]
    fn each_kind_of_answer_gets_its_verdict() {
        let ok = observed(CallStatus::Ok, "paris: 14 celsius", true);
        let varying = observed(CallStatus::Ok, "roll: 4", false);
        let failed = observed(CallStatus::ToolError, "getaddrinfo ENOTFOUND", true);
        let cases = [
            (
                &ok,
                answered(CallStatus::Ok, "paris: 14 celsius"),
                true,
                vec![],
                Verdict::Same,
            ),
            (
                &ok,
                answered(CallStatus::Ok, "paris: 57 fahrenheit"),
                true,
                vec![],
                Verdict::Changed,
            ),
            (
                &varying,
                answered(CallStatus::Ok, "roll: 2"),
                true,
                vec![],
                Verdict::Same,
            ),
            (
                &ok,
                answered(CallStatus::ToolError, "Unknown tool: old_tool"),
                false,
                vec![],
                Verdict::UnknownTool,
            ),
            (
                &ok,
                answered(CallStatus::ToolError, "region is required"),
                true,
                vec![required("region")],
                Verdict::RefusedArguments,
            ),
            (
                &ok,
                answered(CallStatus::ToolError, "kelvin is not supported"),
                true,
                vec![],
                Verdict::Error,
            ),
            (
                &ok,
                answered(CallStatus::Crashed, "the server exited"),
                true,
                vec![],
                Verdict::Crash,
            ),
            (
                &ok,
                answered(CallStatus::Timeout, "no answer within 2s"),
                true,
                vec![],
                Verdict::Timeout,
            ),
            (
                &failed,
                answered(CallStatus::ToolError, "getaddrinfo ENOTFOUND"),
                true,
                vec![],
                Verdict::Unverifiable,
            ),
            // Refused as unknown whatever the original answered: the name itself is gone.
            (
                &failed,
                answered(CallStatus::ToolError, "Unknown tool: old_tool"),
                false,
                vec![],
                Verdict::UnknownTool,
            ),
            // A listed tool answering like an unknown one is an error, not a rename.
            (
                &ok,
                answered(CallStatus::ToolError, "Unknown tool: old_tool"),
                true,
                vec![],
                Verdict::Error,
            ),
        ];
        for (before, answer, listed, findings, expected) in cases {
            assert_eq!(
                verdict(before, &answer, listed, &findings),
                expected,
                "{answer:?}"
            );
        }
    }

    #[test]
    fn a_call_the_original_timed_out_on_is_unverifiable_and_not_called() {
        let fate = Fate {
            now: Some("old_tool".into()),
            steps: Vec::new(),
        };
        let cx = Context {
            tool: "old_tool",
            listed: true,
            unknown: None,
            findings: &[],
            fate: &fate,
            cascade: None,
        };
        let (v, reason) = classify(&observed(CallStatus::Timeout, "", false), None, &cx);
        assert_eq!(v, Verdict::Unverifiable);
        assert!(reason.contains("not called"), "{reason}");
    }

    #[test]
    fn disagreements_name_their_likely_cause() {
        assert_eq!(disagreement(Verdict::Same, &[], None, false), None);
        assert_eq!(
            disagreement(Verdict::Unverifiable, &[required("r")], None, false),
            None
        );
        assert!(
            disagreement(Verdict::Changed, &[], None, false)
                .unwrap()
                .contains("schema says nothing of outputs")
        );
        assert!(
            disagreement(Verdict::Changed, &[], Some(2), false)
                .unwrap()
                .contains("call #2")
        );
        assert!(
            disagreement(Verdict::Same, &[required("r")], None, false)
                .unwrap()
                .contains("does not enforce")
        );
        assert!(
            disagreement(Verdict::Crash, &[], None, true)
                .unwrap()
                .contains("did not start")
        );
    }
}
