//! The second half of the oracle's calls: what changed, exercised. New parameters set, values
//! on both sides of a new bound, old names that must be unknown, new tools, and each claimed
//! effect, all after the calls that compare with the previous version.

use serde_json::{Map, Value};

use super::judge::{self, Judged, hard_failure, quote};
use super::{
    Check, Compared, Effect, Oracle, TestKind, Verdict, args, arguments_for, baseline, bounds,
    effect, fresh, normalize, result, succeeds_as_before,
};
use crate::schema::ChangeKind;
use crate::server::session::{CallStatus, Outcome};

impl Oracle<'_> {
    /// Calls that exercise what changed, after the calls that compare with the previous
    /// version, so that they cannot change the state those calls see.
    pub(super) async fn exercise(&mut self) {
        let change = self.change;
        for c in change.changes {
            match c.kind {
                ChangeKind::ToolRemoved | ChangeKind::ToolRenamed => self.gone(&c.tool).await,
                ChangeKind::ToolAdded => self.added(&c.tool).await,
                ChangeKind::ParamAdded if c.required != Some(true) => {
                    if let Some(param) = &c.param {
                        self.param_set(&c.tool, param).await;
                    }
                }
                ChangeKind::ParamConstraintChanged => {
                    if let Some(param) = &c.param {
                        self.bound(&c.tool, param).await;
                    }
                }
                ChangeKind::ParamRemoved => {
                    if let Some(param) = &c.param {
                        self.removed_param(&c.tool, param).await;
                    }
                }
                _ => {}
            }
        }
    }

    /// The old name must be refused the way the server refuses a name it never had.
    async fn gone(&mut self, old: &str) {
        let arguments = self
            .baseline
            .calls
            .get(old)
            .map(|s| s.arguments.clone())
            .unwrap_or_default();
        let outcome = self.call(old, &arguments).await;
        let judged = match (&outcome.status, self.unknown()) {
            (CallStatus::Crashed | CallStatus::Timeout, _) => {
                hard_failure(&outcome, old, None).expect("a crash or hang")
            }
            (_, Some(shape)) if shape.matches(&outcome, old) => Judged::passed(None),
            (_, Some(_)) => Judged::failed(format!(
                "the old name still answers ({:?}: {}); a dispatch branch was left behind",
                outcome.status,
                quote(&outcome.text)
            )),
            (CallStatus::Ok, None) => Judged::failed(format!(
                "the old name still answers: {}",
                quote(&outcome.text)
            )),
            (_, None) => Judged::unverifiable(
                "the old name is refused, but the server's answer to unknown tools is not known",
            ),
        };
        self.results.push(result(
            old,
            TestKind::Removed,
            Check::Gone,
            &arguments,
            outcome.status,
            None,
            judged,
        ));
    }

    /// A new tool: as the tool it is a variant of, when the change says so; else it must answer.
    async fn added(&mut self, name: &str) {
        let variant = self.change.effects.iter().find_map(|e| match e {
            Effect::Variant {
                tool,
                source,
                max_chars,
            } if tool == name => Some((source.clone(), *max_chars)),
            _ => None,
        });
        if let Some((source, max_chars)) = variant
            && let Some(seen) = self.baseline.calls.get(&source).cloned()
        {
            let claim = Effect::Variant {
                tool: name.into(),
                source: source.clone(),
                max_chars,
            };
            let n = max_chars.unwrap_or(usize::MAX);
            let (outcome, judged) = self
                .claimed(
                    &source,
                    &seen.arguments,
                    name,
                    &seen.arguments,
                    |t| effect::first_chars(t, n),
                    |t| t.chars().count() <= n,
                )
                .await;
            self.results.push(result(
                name,
                TestKind::Added,
                Check::Claim { effect: claim },
                &seen.arguments,
                outcome.status,
                Some(seen.status),
                judged,
            ));
            return;
        }
        let schema = self
            .change
            .tool(name)
            .map(|t| t["inputSchema"].clone())
            .unwrap_or_default();
        let arguments = arguments_for(&schema);
        let outcome = self.call(name, &arguments).await;
        let judged = fresh(&outcome, name, self.unknown(), None);
        self.results.push(result(
            name,
            TestKind::Added,
            Check::New,
            &arguments,
            outcome.status,
            None,
            judged,
        ));
    }

    /// The previous call plus the new parameter: still answers, and shows any claimed effect.
    // Long: one arm per kind of claimed effect of a new parameter.
    async fn param_set(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let claim = self
            .change
            .effects
            .iter()
            .find(|e| e.tool() == tool && e.param() == Some(param))
            .cloned();
        let schema = self
            .change
            .tool(tool)
            .map(|t| t["inputSchema"]["properties"][param].clone())
            .unwrap_or_default();
        let mut arguments = seen.arguments.clone();
        let (value, check): (Value, Check) = match &claim {
            Some(Effect::TruncateChars { .. }) => {
                let n = effect::revealing_limit(&seen.parts, |p| p.chars().count()).unwrap_or(1);
                (
                    n.into(),
                    Check::Claim {
                        effect: claim.clone().expect("matched"),
                    },
                )
            }
            Some(Effect::TruncateLines { .. }) => {
                let n =
                    effect::revealing_limit(&seen.parts, |p| p.split('\n').count()).unwrap_or(1);
                (
                    n.into(),
                    Check::Claim {
                        effect: claim.clone().expect("matched"),
                    },
                )
            }
            _ => (
                args::value_for(&schema, param),
                Check::ParamSet {
                    param: param.into(),
                },
            ),
        };
        arguments.insert(param.to_string(), value.clone());
        let n = value.as_u64().unwrap_or(1) as usize;
        let (outcome, judged) = match &claim {
            Some(Effect::TruncateChars { .. }) => {
                self.claimed(
                    tool,
                    &seen.arguments,
                    tool,
                    &arguments,
                    |t| effect::first_chars(t, n),
                    |t| t.chars().count() <= n,
                )
                .await
            }
            Some(Effect::TruncateLines { .. }) => {
                self.claimed(
                    tool,
                    &seen.arguments,
                    tool,
                    &arguments,
                    |t| effect::first_lines(t, n),
                    |t| t.split('\n').count() <= n,
                )
                .await
            }
            _ => {
                let outcome = self.call(tool, &arguments).await;
                let mut judged = succeeds_as_before(&seen, &outcome, tool, self.unknown_for(&seen));
                if judged.verdict == Verdict::Failed
                    && !matches!(outcome.status, CallStatus::Crashed | CallStatus::Timeout)
                {
                    // The calls made since the baseline's may have changed what the tool
                    // sees (an item another call deleted): the same call without the new
                    // parameter, made now, tells a broken parameter from a changed state.
                    let plain = self.call(tool, &seen.arguments).await;
                    if plain.status == outcome.status {
                        judged = Judged::unverifiable(format!(
                            "without `{param}` it now answers {:?} too (the earlier calls changed what it sees): {}",
                            plain.status,
                            quote(&plain.text)
                        ));
                    }
                }
                (outcome, judged)
            }
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            check,
            &arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
    }

    /// A claim that `tool` on `arguments` answers as `reference` on `plain`, each text part
    /// cut by `cut`. The reference is called just before and just after in the same session,
    /// so that state the calls change cannot pass for a broken claim: where both reference
    /// answers agree, the claimed answer must equal them cut; where they differ, each part
    /// must still `fit`.
    // Long: the two reference calls, the claimed call and their comparison belong together: split, the reason for a failure would lose what it compares.
    async fn claimed(
        &mut self,
        reference: &str,
        plain: &Map<String, Value>,
        tool: &str,
        arguments: &Map<String, Value>,
        cut: impl Fn(&str) -> String,
        fits: impl Fn(&str) -> bool,
    ) -> (Outcome, Judged) {
        let before = self.call(reference, plain).await;
        let outcome = self.call(tool, arguments).await;
        let after = self.call(reference, plain).await;
        if let Some(f) = hard_failure(&outcome, tool, self.unknown()) {
            return (outcome, f);
        }
        if self
            .unknown()
            .is_some_and(|u| u.matches(&before, reference))
        {
            let judged = Judged::unverifiable(format!(
                "`{reference}` itself answers as the server answers a tool it does not have"
            ));
            return (outcome, judged);
        }
        if before.status != CallStatus::Ok {
            let judged = match outcome.status {
                status if judge::is_protocol_error(status) && before.status != status => {
                    Judged::failed(format!(
                        "a protocol error where `{reference}` answered {:?}: {}",
                        before.status,
                        quote(&outcome.text)
                    ))
                }
                _ => Judged::unverifiable(format!(
                    "`{reference}` itself answered {:?}: {}",
                    before.status,
                    quote(&before.text)
                )),
            };
            return (outcome, judged);
        }
        if outcome.status != CallStatus::Ok {
            let judged = Judged::failed(format!(
                "it answered {:?} where `{reference}` succeeded: {}",
                outcome.status,
                quote(&outcome.text)
            ));
            return (outcome, judged);
        }
        if let Some(part) = outcome.parts.iter().find(|p| !fits(p)) {
            let judged = Judged::failed(format!(
                "a part of the answer is not cut as claimed: {}",
                quote(part)
            ));
            return (outcome, judged);
        }
        let steady = after.status == CallStatus::Ok
            && baseline::normalized_parts(&before) == baseline::normalized_parts(&after);
        if !steady {
            return (outcome, Judged::passed(Some(Compared::CallStatus)));
        }
        let expected: Vec<String> = before
            .parts
            .iter()
            .map(|p| normalize::normalize(&cut(p)))
            .collect();
        let now: Vec<String> = outcome
            .parts
            .iter()
            .map(|p| normalize::normalize(p))
            .collect();
        let judged = if now == expected {
            Judged::passed(Some(Compared::Output))
        } else {
            Judged::failed(format!(
                "the answer is not `{reference}`'s answer cut as claimed: {}",
                judge::first_difference(&expected.join("\n"), &now.join("\n"))
            ))
        };
        (outcome, judged)
    }

    /// A value inside the new bound is accepted; one beyond it is refused where the server
    /// enforces it, which is recorded either way and required where the change claims it.
    // Long: the probe at the edge and beyond the bound, and what each answer means, belong together.
    async fn bound(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let prop = |tools: &[Value]| {
            tools
                .iter()
                .find(|t| t["name"] == tool)
                .map(|t| t["inputSchema"]["properties"][param].clone())
                .unwrap_or_default()
        };
        let (new, old) = (prop(self.change.current), prop(self.change.previous));
        let mut inside = seen.arguments.clone();
        inside.insert(param.into(), args::value_for(&new, param));
        let accepted = self.call(tool, &inside).await;
        let judged = match hard_failure(&accepted, tool, self.unknown_for(&seen)) {
            Some(f) => f,
            None if judge::is_protocol_error(accepted.status) => Judged::failed(format!(
                "a value inside the bound was refused: {}",
                quote(&accepted.text)
            )),
            None if accepted.status == CallStatus::Ok => Judged::passed(None),
            None => Judged::unverifiable(format!(
                "the tool answered an error for this value: {}",
                quote(&accepted.text)
            )),
        };
        self.results.push(result(
            tool,
            TestKind::Changed,
            Check::InsideBound {
                param: param.into(),
            },
            &inside,
            accepted.status,
            Some(seen.status),
            judged,
        ));

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
    async fn removed_param(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let old = self
            .change
            .previous
            .iter()
            .find(|t| t["name"] == tool)
            .map(|t| t["inputSchema"]["properties"][param].clone())
            .unwrap_or_default();
        let mut plain = seen.arguments.clone();
        plain.remove(param);
        let mut arguments = plain.clone();
        let value = seen
            .arguments
            .get(param)
            .cloned()
            .unwrap_or_else(|| args::value_for(&old, param));
        arguments.insert(param.to_string(), value);
        let without = self.call(tool, &plain).await;
        let with = self.call(tool, &arguments).await;
        let judged = match hard_failure(&with, tool, self.unknown_for(&seen)) {
            Some(f) => f,
            None if without.status != CallStatus::Ok => Judged::unverifiable(format!(
                "without `{param}` it answered {:?} too: {}",
                without.status,
                quote(&without.text)
            )),
            None if with.status != CallStatus::Ok => Judged::passed(None), // refused
            None if baseline::normalized_parts(&with) == baseline::normalized_parts(&without) => {
                Judged::passed(Some(Compared::Output)) // ignored
            }
            None => Judged::failed(format!(
                "the removed parameter `{param}` still changes the answer: {}",
                judge::first_difference(
                    &baseline::normalized_parts(&without).join("\n"),
                    &baseline::normalized_parts(&with).join("\n")
                )
            )),
        };
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
