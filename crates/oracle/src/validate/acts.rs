//! Whether a new parameter acts: some value of it changes the answer, from the previous
//! version's answer to the same call without it, and from that call made now. A parameter the
//! handler ignores is accepted, and shows nothing: "accepted" alone proves nothing.

use serde_json::{Map, Value};

use super::baseline::{Observation, parts_as_learned};
use super::judge::{Judged, first_difference};
use super::{Compared, Oracle, args};
use crate::server::session::{CallStatus, Outcome};

/// Values of a new parameter tried before it is called inert.
const VALUES_TRIED: usize = 4;

/// The new parameter under judgement: its tool, name and schema, and whether it is required.
pub(super) struct NewParam<'a> {
    pub(super) tool: &'a str,
    pub(super) param: &'a str,
    pub(super) schema: &'a Value,
    pub(super) required: bool,
}

impl Oracle<'_> {
    /// Judges the new parameter, already called with `arguments` (its first value set) and
    /// answered `answered`; `seen` is the previous version's answer to the previous call. A
    /// required parameter is judged by its values against each other (without it, the call is
    /// refused).
    // Long: the reference, each value tried and what each answer means belong together.
    pub(super) async fn acts(
        &mut self,
        new: NewParam<'_>,
        seen: &Observation,
        arguments: &Map<String, Value>,
        answered: &Outcome,
    ) -> Judged {
        let NewParam {
            tool,
            param,
            schema,
            required,
        } = new;
        if !seen.deterministic {
            return Judged::unverifiable(format!(
                "its answers vary from call to call, so no difference a value of `{param}` makes can be told"
            ));
        }
        // The reference: the previous answer, which the call without the parameter (or, for a
        // required one, with another value) must still give now, or state has moved on.
        let reference: Vec<String> = if required {
            let answers = self.answers(tool, param, schema, arguments).await;
            match answers.split_first() {
                Some(((_, first), rest)) if rest.iter().any(|(_, a)| a != first) => {
                    return Judged::passed(Some(Compared::Output));
                }
                _ => {
                    return Judged::unverifiable(format!(
                        "no value of `{param}` changed the answer ({} tried)",
                        answers.len()
                    ));
                }
            }
        } else {
            let mut plain = arguments.clone();
            plain.remove(param);
            let now = self.call(tool, &plain).await;
            let now = parts_as_learned(&now, &seen.volatile);
            if now != seen.parts {
                return Judged::unverifiable(format!(
                    "without `{param}` it no longer answers as the previous version did (the earlier calls changed what it sees), so what `{param}` does cannot be told: {}",
                    first_difference(&seen.parts.join("\n"), &now.join("\n"))
                ));
            }
            seen.parts.clone()
        };
        if answered.status == CallStatus::Ok
            && parts_as_learned(answered, &seen.volatile) != reference
        {
            return Judged::passed(Some(Compared::Output));
        }
        let tried = args::values_to_try(schema, param, VALUES_TRIED);
        let sent = arguments.get(param);
        let mut count = 1;
        for value in tried.iter().filter(|v| Some(*v) != sent) {
            let mut with = arguments.clone();
            with.insert(param.to_string(), value.clone());
            let outcome = self.call(tool, &with).await;
            count += 1;
            if outcome.status == CallStatus::Ok
                && parts_as_learned(&outcome, &seen.volatile) != reference
            {
                return Judged::passed(Some(Compared::Output));
            }
        }
        Judged::unverifiable(format!(
            "no value of `{param}` changed the answer ({count} tried)"
        ))
    }

    /// The answers to `arguments` with each value worth trying of `param` (those that
    /// succeeded), as learned parts.
    async fn answers(
        &mut self,
        tool: &str,
        param: &str,
        schema: &Value,
        arguments: &Map<String, Value>,
    ) -> Vec<(Value, Vec<String>)> {
        let mut out = Vec::new();
        let volatile = (self.baseline.calls.get(tool))
            .map(|s| s.volatile.clone())
            .unwrap_or_default();
        for value in args::values_to_try(schema, param, VALUES_TRIED) {
            let mut with = arguments.clone();
            with.insert(param.to_string(), value.clone());
            let outcome = self.call(tool, &with).await;
            if outcome.status == CallStatus::Ok {
                out.push((value, parts_as_learned(&outcome, &volatile)));
            }
        }
        out
    }
}
