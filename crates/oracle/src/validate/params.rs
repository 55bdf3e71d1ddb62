//! The oracle's calls of a changed parameter: values on both sides of a new bound, and a
//! parameter the change removed, sent anyway.

use serde_json::Value;

use super::judge::{self, Judged, hard_failure, quote};
use super::{Check, Compared, Effect, Oracle, TestKind, args, baseline, bounds, normalize, result};
use crate::server::session::CallStatus;
use mcpevol_core::listed::ListedTool;

impl Oracle<'_> {
    /// A value inside the new bound is accepted; one beyond it is refused where the server
    /// enforces it, which is recorded either way and required where the change claims it.
    // Long: the probe at the edge and beyond the bound, and what each answer means, belong together.
    pub(super) async fn bound(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let prop = |tools: &[ListedTool]| {
            tools
                .iter()
                .find(|t| t.is_named(tool))
                .map(|t| t.property(param).clone())
                .unwrap_or_default()
        };
        let (new, old) = (prop(self.change.current), prop(self.change.previous));
        // A looser bound (or a new enum value) is shown by a value the old schema refused and
        // the new one allows; any valid value shows nothing of it.
        let looser = bounds::outside(&old, &new, param);
        let mut inside = seen.arguments.clone();
        let value = looser
            .clone()
            .unwrap_or_else(|| args::value_for(&new, param));
        inside.insert(param.into(), value);
        let accepted = self.call(tool, &inside).await;
        let judged = match hard_failure(&accepted, tool, self.unknown_for(&seen)) {
            Some(f) => f,
            // Refused as the previous version refused its own call (a host it cannot reach):
            // the bound is not what refuses it.
            None if judge::is_protocol_error(accepted.status)
                && judge::is_protocol_error(seen.status) =>
            {
                Judged::unverifiable(format!(
                    "the previous version's call was refused too: {}",
                    quote(&accepted.text)
                ))
            }
            None if judge::is_protocol_error(accepted.status) => Judged::failed(format!(
                "a value inside the bound{} was refused: {}",
                if looser.is_some() {
                    ", beyond the old one,"
                } else {
                    ""
                },
                quote(&accepted.text)
            )),
            None if accepted.status == CallStatus::Ok => Judged::passed(None),
            // The schema allows it now, the handler still does not.
            None if looser.is_some() && seen.status == CallStatus::Ok => Judged::failed(format!(
                "a value the looser bound allows, beyond the old one, was refused by the tool: {}",
                quote(&accepted.text)
            )),
            None => Judged::unverifiable(format!(
                "the tool answered an error for this value: {}",
                quote(&accepted.text)
            )),
        };
        let check = match looser {
            Some(_) => Check::Loosened {
                param: param.into(),
            },
            None => Check::InsideBound {
                param: param.into(),
            },
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            check,
            &inside,
            accepted.status,
            Some(seen.status),
            judged,
        ));

        self.synonym(tool, param, &seen).await;
        let Some(probe) = bounds::probe(&new, &old, param) else {
            return;
        };
        let claimed = self.change.effects.iter().any(
            |e| matches!(e, Effect::Enforced { tool: t, param: p } if t == tool && p == param),
        );
        let mut at_edge = seen.arguments.clone();
        at_edge.insert(param.into(), probe.edge.clone());
        let edge = self.call(tool, &at_edge).await;
        let mut arguments = seen.arguments.clone();
        arguments.insert(param.into(), probe.beyond.clone());
        let outcome = self.call(tool, &arguments).await;
        let refused = matches!(outcome.status, CallStatus::ToolError | CallStatus::RpcError);
        // Refused for the tool's own reasons if the edge value gets the same answer.
        let same_answer = edge.status == outcome.status
            && without_value(&edge.text, &probe.edge)
                == without_value(&outcome.text, &probe.beyond);
        let enforced = refused && !same_answer;
        let judged = match hard_failure(&outcome, tool, self.unknown_for(&seen)) {
            Some(f) => f,
            None if enforced => Judged::passed(None),
            None if claimed => Judged::failed(format!(
                "the bound is said to be enforced, but a value beyond it was {}",
                if refused {
                    "refused only as a value inside it is"
                } else {
                    "accepted"
                }
            )),
            None => Judged::unverifiable(
                "declared, not enforced: a value beyond the bound is answered as one inside it",
            ),
        };
        let mut r = result(
            tool,
            TestKind::Changed,
            Check::BeyondBound {
                param: param.into(),
            },
            &arguments,
            outcome.status,
            None,
            judged,
        );
        r.enforced = Some(enforced);
        self.results.push(r);
    }
}

impl Oracle<'_> {
    /// A parameter the change removed, sent as before it was removed: it must not still act.
    /// The server may refuse it (an error where the call without it succeeds) or ignore it
    /// (the same answer as without it); an answer that differs otherwise means the handler
    /// still reads it. Both calls are made here, one after the other, so that state cannot
    /// pass for a difference.
    pub(super) async fn removed_param(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let old = self
            .change
            .previous
            .iter()
            .find(|t| t.is_named(tool))
            .map(|t| t.property(param).clone())
            .unwrap_or_default();
        let mut plain = seen.arguments.clone();
        plain.remove(param);
        // The value the previous call sent, then the values worth trying: a handler that
        // still reads the parameter shows it on some value (the default shows nothing).
        let mut values: Vec<Value> = seen.arguments.get(param).cloned().into_iter().collect();
        values.extend(args::values_to_try(&old, param, 3));
        values.dedup();
        let without = self.call(tool, &plain).await;
        let learned =
            |o: &crate::server::session::Outcome| baseline::parts_as_learned(o, &seen.volatile);
        let mut arguments = plain.clone();
        let mut with = without.clone();
        let mut judged = Judged::passed(Some(Compared::Output)); // ignored by every value
        for value in values {
            arguments = plain.clone();
            arguments.insert(param.to_string(), value);
            with = self.call(tool, &arguments).await;
            judged = match hard_failure(&with, tool, self.unknown_for(&seen)) {
                Some(f) => f,
                None if without.status != CallStatus::Ok => Judged::unverifiable(format!(
                    "without `{param}` it answered {:?} too: {}",
                    without.status,
                    quote(&without.text)
                )),
                None if with.status != CallStatus::Ok => Judged::passed(None), // refused
                None if learned(&with) == learned(&without) => continue,       // ignored so far
                None => Judged::failed(format!(
                    "the removed parameter `{param}` still changes the answer: {}",
                    judge::first_difference(
                        &learned(&without).join("\n"),
                        &learned(&with).join("\n")
                    )
                )),
            };
            break;
        }
        self.results.push(result(
            tool,
            TestKind::Changed,
            Check::ParamRemoved {
                param: param.into(),
            },
            &arguments,
            with.status,
            Some(without.status),
            judged,
        ));
    }
}

impl Oracle<'_> {
    /// A parameter made required: the previous call without it, which answered then, is
    /// refused now (a server that still answers it does not require it).
    pub(super) async fn required(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let mut without = seen.arguments.clone();
        without.remove(param);
        let outcome = self.call(tool, &without).await;
        let judged = match hard_failure(&outcome, tool, self.unknown_for(&seen)) {
            Some(f) => f,
            None if seen.status != CallStatus::Ok => Judged::unverifiable(format!(
                "it answered {:?} at the previous version too, so a refusal shows nothing",
                seen.status
            )),
            None if outcome.status == CallStatus::Ok => Judged::failed(format!(
                "without `{param}`, required now, it still answers: {}",
                quote(&outcome.text)
            )),
            None => Judged::passed(None),
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            Check::Required {
                param: param.into(),
            },
            &without,
            outcome.status,
            Some(seen.status),
            judged,
        ));
    }
}

/// An answer with the value it was called with taken out, normalised.
fn without_value(text: &str, value: &Value) -> String {
    let shown = match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let text = if shown.is_empty() {
        text.to_string()
    } else {
        text.replace(&shown, "<value>")
    };
    normalize::normalize(&text)
}

impl Oracle<'_> {
    /// A new value claimed to stand for an old one ([`Effect::Synonym`]): the previous call
    /// with the new value answers as the same call with the old value, both made now. The one
    /// claimed for the value the previous call sent is checked, else the first claimed.
    async fn synonym(&mut self, tool: &str, param: &str, seen: &baseline::Observation) {
        let claims: Vec<&Effect> = (self.change.effects.iter())
            .filter(|e| matches!(e, Effect::Synonym { tool: t, param: p, .. } if t == tool && p == param))
            .collect();
        let sent = seen.arguments.get(param).and_then(Value::as_str);
        let Some(claim) = (claims.iter())
            .find(|e| matches!(e, Effect::Synonym { means, .. } if Some(means.as_str()) == sent))
            .or(claims.first())
            .map(|e| (*e).clone())
        else {
            return;
        };
        let Effect::Synonym { value, means, .. } = &claim else {
            return;
        };
        let mut plain = seen.arguments.clone();
        plain.insert(param.into(), means.clone().into());
        let mut arguments = seen.arguments.clone();
        arguments.insert(param.into(), value.clone().into());
        let (outcome, judged) = self
            .claimed(
                tool,
                &plain,
                tool,
                &arguments,
                super::claimed::Rework::same(),
            )
            .await;
        self.results.push(result(
            tool,
            TestKind::Changed,
            super::Check::Claim { effect: claim },
            &arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
    }
}
