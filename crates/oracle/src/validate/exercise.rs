//! The second half of the oracle's calls: what changed, exercised. New parameters set, values
//! on both sides of a new bound, old names that must be unknown, new tools, and each claimed
//! effect, all after the calls that compare with the previous version.

use serde_json::Value;

use super::claimed::Rework;
use super::judge::{self, Judged, hard_failure, quote};
use super::{
    Check, Effect, Oracle, TestKind, Verdict, args, arguments_for, effect, fresh, result,
    succeeds_as_before,
};
use crate::server::session::CallStatus;
use mcpevol_core::schema::{Change, ChangeKind};

impl Oracle<'_> {
    /// Calls that exercise what changed, after the calls that compare with the previous
    /// version, so that they cannot change the state those calls see.
    pub(super) async fn exercise(&mut self) {
        let change = self.change;
        for c in change.changes {
            let tool = c.tool.as_str();
            match &c.what {
                Change::ToolRemoved | Change::ToolRenamed { .. } => self.gone(tool).await,
                Change::ToolAdded => self.added(tool).await,
                Change::ParamAdded {
                    param,
                    required: false,
                } => self.param_set(tool, param).await,
                // A new required parameter: the previous call, which lacks it, is refused
                // now; with it set, the tool answers and shows any claimed effect.
                Change::ParamAdded {
                    param,
                    required: true,
                } => {
                    self.required(tool, param).await;
                    self.param_set(tool, param).await;
                }
                Change::ParamConstraintChanged { param } => self.bound(tool, param).await,
                Change::ParamRemoved { param, .. } => self.removed_param(tool, param).await,
                Change::ParamRequiredChanged {
                    param,
                    required: true,
                } => self.required(tool, param).await,
                // A demotion declares its default too: one check for both.
                Change::ParamRequiredChanged {
                    param,
                    required: false,
                } => self.defaulted(tool, param).await,
                Change::ParamDefaultChanged { param }
                    if !change.changes.iter().any(|d| {
                        d.kind() == ChangeKind::ParamRequiredChanged
                            && (d.tool.as_str(), d.param()) == (tool, Some(param.as_str()))
                    }) =>
                {
                    self.defaulted(tool, param).await
                }
                _ => {}
            }
        }
    }

    /// A removed tool's successor, as a claim names it: sent the removed tool's previous call,
    /// it answers as the removed tool did then.
    async fn successor(&mut self, old: &str, new: &str, claim: Effect, kind: TestKind) {
        let Some(seen) = self.baseline.calls.get(old).cloned() else {
            return;
        };
        let outcome = self.call(new, &seen.arguments).await;
        let mut judged = judge::against(&seen, &outcome, new, self.unknown());
        if let Some(reason) = &judged.reason {
            judged.reason = Some(format!("as the successor of `{old}`: {reason}"));
        }
        self.results.push(result(
            new,
            kind,
            Check::Claim { effect: claim },
            &seen.arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
    }

    /// The old name must be refused the way the server refuses a name it never had; a
    /// successor the change names answers its calls.
    async fn gone(&mut self, old: &str) {
        self.refused(old).await;
        let successor = self.change.effects.iter().find_map(|e| match e {
            Effect::Successor { tool, successor } if tool == old => Some(successor.clone()),
            _ => None,
        });
        if let Some(new) = successor {
            let claim = Effect::Successor {
                tool: old.into(),
                successor: new.clone(),
            };
            self.successor(old, &new, claim, TestKind::Changed).await;
        }
    }

    /// The old name, refused the way the server refuses a name it never had.
    async fn refused(&mut self, old: &str) {
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
        let source_removed = |source: &str| {
            (self.change.changes_of(source)).any(|c| c.kind() == ChangeKind::ToolRemoved)
        };
        if let Some((source, None)) = &variant
            && source_removed(source)
        {
            // The tool it varies is gone: its answers at the previous version are the reference.
            let claim = Effect::Variant {
                tool: name.into(),
                source: source.clone(),
                max_chars: None,
            };
            self.successor(source, name, claim, TestKind::Added).await;
            return;
        }
        if let Some((source, max_chars)) = variant
            && let Some(seen) = self.baseline.calls.get(&source).cloned()
        {
            let claim = Effect::Variant {
                tool: name.into(),
                source: source.clone(),
                max_chars,
            };
            // An exact copy is compared as it is; a cut one as cut.
            let rework = match max_chars {
                None => Rework::same(),
                Some(n) => Rework::cut(
                    move |t| effect::first_chars(t, n),
                    move |t| t.chars().count() <= n,
                ),
            };
            let (outcome, judged) = self
                .claimed(&source, &seen.arguments, name, &seen.arguments, rework)
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
        if self.batch_added(name).await
            || self.single_added(name).await
            || self.search_added(name).await
        {
            return;
        }
        let schema = self
            .change
            .tool(name)
            .map(|t| t.input_schema().clone())
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

    /// A parameter made optional, or given another default: the previous call without it
    /// answers as with the default the schema now declares. Where the previous call sent
    /// exactly that value, its answer is the reference; otherwise the call that sends the
    /// default, made just before and after in this session.
    async fn defaulted(&mut self, tool: &str, param: &str) {
        let Some(seen) = self.baseline.calls.get(tool).cloned() else {
            return;
        };
        let declared =
            (self.change.tool(tool)).and_then(|t| t.property(param).get("default").cloned());
        let mut without = seen.arguments.clone();
        without.remove(param);
        let (outcome, mut judged) = match &declared {
            None => {
                let outcome = self.call(tool, &without).await;
                let why =
                    format!("`{param}` declares no default to compare a call without it with");
                (outcome, Judged::unverifiable(why))
            }
            Some(d) if seen.arguments.get(param) == Some(d) => {
                let outcome = self.call(tool, &without).await;
                let judged = judge::against(&seen, &outcome, tool, self.unknown());
                (outcome, judged)
            }
            Some(d) => {
                let mut with = seen.arguments.clone();
                with.insert(param.to_string(), d.clone());
                (self.claimed(tool, &with, tool, &without, Rework::same())).await
            }
        };
        if judged.verdict == Verdict::Failed
            && let Some(d) = &declared
        {
            let reason = judged.reason.take().unwrap_or_default();
            judged.reason = Some(format!(
                "without `{param}` it does not answer as with its default {d}: {reason}"
            ));
        }
        self.results.push(result(
            tool,
            TestKind::Changed,
            Check::Defaulted {
                param: param.into(),
            },
            &without,
            outcome.status,
            Some(seen.status),
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
            .map(|t| t.property(param).clone())
            .unwrap_or_default();
        // A required parameter is sent in the reference calls too, at a value that cuts
        // nothing the claim could see (its maximum, else far beyond any answer the oracle
        // reads): without it the reference would be refused.
        let mut plain = seen.arguments.clone();
        if self.change.tool(tool).is_some_and(|t| {
            t.required()
                .as_array()
                .is_some_and(|r| r.iter().any(|n| n == param))
        }) {
            let most = schema["maximum"].as_u64().unwrap_or(1_000_000_000);
            plain.insert(param.to_string(), most.into());
        }
        let mut arguments = seen.arguments.clone();
        // Chosen from the answer as it came (its holes' placeholders depend on which samples
        // happened to differ, which would make the value sent depend on them).
        let shown = claim.as_ref().and_then(|e| showing(e, &seen.raw));
        let (value, check) = match (&claim, &shown) {
            (Some(effect), Some(shown)) => (
                shown.value.clone(),
                Check::Claim {
                    effect: effect.clone(),
                },
            ),
            _ => (
                args::value_for(&schema, param),
                Check::ParamSet {
                    param: param.into(),
                },
            ),
        };
        arguments.insert(param.to_string(), value);
        let unseen = shown.as_ref().and_then(|s| s.unseen);
        let (outcome, mut judged) = match shown {
            Some(shown) => {
                self.claimed(tool, &plain, tool, &arguments, shown.rework)
                    .await
            }
            _ => {
                let outcome = self.call(tool, &arguments).await;
                let mut judged = succeeds_as_before(&seen, &outcome, tool, self.unknown_for(&seen));
                if judged.verdict == Verdict::Passed {
                    let new = super::acts::NewParam {
                        tool,
                        param,
                        schema: &schema,
                        required: plain.contains_key(param),
                    };
                    judged = self.acts(new, &seen, &arguments, &outcome).await;
                }
                if judged.verdict == Verdict::Failed
                    && !matches!(outcome.status, CallStatus::Crashed | CallStatus::Timeout)
                {
                    // The calls made since the baseline's may have changed what the tool
                    // sees (an item another call deleted): the same call without the new
                    // parameter, made now, tells a broken parameter from a changed state.
                    let plain = self.call(tool, &plain).await;
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
        if let Some(why) = unseen
            && judged.verdict == Verdict::Passed
        {
            judged = Judged::unverifiable(why.replace("{param}", param));
        }
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
}

/// How a claimed effect of a new parameter is made to show on the previous answer's `parts`:
/// the value sent, how the answer must follow from the reference's, and why it cannot show
/// where nothing in those parts would change (a cut of a short answer equals the uncut one).
struct Shown {
    value: Value,
    rework: Rework<'static>,
    unseen: Option<&'static str>,
}

/// The [`Shown`] of `claim`, for the claims that rework the answer by the value of a parameter.
fn showing(claim: &Effect, parts: &[String]) -> Option<Shown> {
    if let Some(cut) = claim.cut() {
        let limit = effect::revealing_limit(parts, |p| cut.measure(p));
        let n = limit.unwrap_or(1);
        return Some(Shown {
            value: n.into(),
            rework: Rework::cut(move |t| cut.apply(t, n), move |t| cut.fits(t, n)),
            unseen: limit.is_none().then_some(
                "no part of its previous answer is long enough for `{param}` to cut, so the cut cannot show",
            ),
        });
    }
    match claim {
        // A projection keeps half the keys of the previous answer's first object.
        Effect::Project { .. } => {
            let keys = effect::revealing_keys(parts);
            let unseen = keys.is_none().then_some(
                "its previous answer holds no JSON object with two keys, so `{param}` cannot show",
            );
            let keys = keys.unwrap_or_else(|| vec!["id".to_string()]);
            Some(Shown {
                value: keys.iter().map(|k| Value::from(k.as_str())).collect(),
                rework: Rework::project(keys),
                unseen,
            })
        }
        // The layout the previous answer is not in.
        Effect::Reformat { .. } => {
            let layout = effect::Layout::revealing(parts);
            Some(Shown {
                value: layout.unwrap_or(effect::Layout::Compact).value().into(),
                rework: Rework::reformat(layout.unwrap_or(effect::Layout::Compact)),
                unseen: layout.is_none().then_some(
                    "its previous answer holds no JSON object or list, so `{param}` cannot show",
                ),
            })
        }
        _ => None,
    }
}
