//! New tools claimed as another form of an existing one, exercised: a batch form called with
//! two argument sets of its source, a single form called with one entry of its source's list,
//! a search form called with its source's arguments and a word of its source's answer.

use serde_json::{Map, Value};

use super::claimed::Rework;
use super::effect;
use super::judge::Judged;
use super::{Check, Effect, Oracle, TestKind, result};

impl Oracle<'_> {
    /// A new tool claimed as a batch form: called with two argument sets of the tool it runs,
    /// it answers that tool's answer twice. False where the change claims no batch form of it,
    /// or the tool it runs has no previous call.
    pub(super) async fn batch_added(&mut self, name: &str) -> bool {
        let claim = (self.change.effects.iter())
            .find(|e| matches!(e, Effect::Batch { tool, .. } if tool == name))
            .cloned();
        if let Some(claim) = claim
            && let Effect::Batch { source, items, .. } = &claim
            && let Some(seen) = self.baseline.calls.get(source).cloned()
        {
            // Two sets, so that an answer for the first item alone does not pass.
            let set = Value::Object(seen.arguments.clone());
            let mut arguments = Map::new();
            arguments.insert(items.clone(), Value::Array(vec![set.clone(), set]));
            let (outcome, judged) = self
                .claimed(
                    source,
                    &seen.arguments,
                    name,
                    &arguments,
                    Rework {
                        times: 2,
                        ..Rework::same()
                    },
                )
                .await;
            // Called all the same, so that the record holds the batch form's own status.
            let judged = match self.items_unlike_source(name, source, items) {
                Some(why) => Judged::failed(why),
                None => judged,
            };
            self.results.push(result(
                name,
                TestKind::Added,
                Check::Claim { effect: claim },
                &arguments,
                outcome.status,
                Some(seen.status),
                judged,
            ));
            return true;
        }
        false
    }

    /// Why batch form `name`'s listed `items` do not take `source`'s argument sets (their
    /// parameters or required ones are not the source's, as listed now or before), or None,
    /// also where they are objects of no declared parameters.
    /// Answers alone would not show it: a batch form whose `items` a server's listing mangled
    /// (a zod object where JSON was due) still runs each set it is given.
    fn items_unlike_source(&self, name: &str, source: &str, items: &str) -> Option<String> {
        let batch = self.change.tool(name)?;
        let declared = batch.property(items).get("items");
        let shape = |schema: &Value| {
            let mut keys: Vec<String> = (schema.get("properties").and_then(Value::as_object))
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            keys.sort();
            let mut required: Vec<String> = (schema.get("required").and_then(Value::as_array))
                .map(|r| {
                    r.iter()
                        .filter_map(|v| v.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            required.sort();
            (keys, required)
        };
        // Items typed as objects and nothing more (`list[dict]` in Python) declare no
        // parameters to compare; anything else that is no object schema is compared as empty.
        let untyped = declared.is_some_and(|d| {
            d.get("type").and_then(Value::as_str) == Some("object") && d.get("properties").is_none()
        });
        if untyped {
            return None;
        }
        let mine = declared.map(shape).unwrap_or_default();
        let sources = [self.change.previous, self.change.current]
            .into_iter()
            .filter_map(|list| list.iter().find(|t| t.is_named(source)))
            .map(|t| shape(t.input_schema()))
            .collect::<Vec<_>>();
        if sources.is_empty() || sources.contains(&mine) {
            return None;
        }
        let (keys, _) = &sources[0];
        Some(format!(
            "its `{items}` are listed with the parameters [{}] where `{source}` takes [{}]",
            mine.0.join(", "),
            keys.join(", ")
        ))
    }

    /// A new tool claimed as the single form of a tool that takes a list: called with the
    /// first item of that tool's previous call, it answers as that tool does on a list of
    /// that one item. False where the change claims no single form of it, or the tool it
    /// runs has no previous call with an item in the list.
    pub(super) async fn single_added(&mut self, name: &str) -> bool {
        let claim = (self.change.effects.iter())
            .find(|e| matches!(e, Effect::Single { tool, .. } if tool == name))
            .cloned();
        let Some(Effect::Single {
            source, param, key, ..
        }) = &claim
        else {
            return false;
        };
        let Some(seen) = self.baseline.calls.get(source).cloned() else {
            return false;
        };
        let Some(item) = (seen.arguments.get(param))
            .and_then(Value::as_array)
            .and_then(|items| items.first())
            .cloned()
        else {
            return false;
        };
        let arguments = match (key, &item) {
            (None, Value::Object(fields)) => fields.clone(),
            (None, _) => return false,
            (Some(key), _) => Map::from_iter([(key.clone(), item.clone())]),
        };
        // The single form passes the list alone: the tool's other (optional) arguments keep
        // their defaults.
        let reference = Map::from_iter([(param.clone(), Value::Array(vec![item]))]);
        let (outcome, judged) = self
            .claimed(source, &reference, name, &arguments, Rework::same())
            .await;
        self.results.push(result(
            name,
            TestKind::Added,
            Check::Claim {
                effect: claim.clone().expect("matched above"),
            },
            &arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
        true
    }

    /// A new tool claimed as a search form: called with the arguments of its source's previous
    /// call and a word found in some lines of that call's answer and not in others, it answers
    /// the source's answer with only the lines holding the word. Unverifiable where no word
    /// splits the answer's lines (an answer of one line keeps it or keeps nothing). False where
    /// the change claims no search form of it, or its source has no previous call.
    pub(super) async fn search_added(&mut self, name: &str) -> bool {
        let claim = (self.change.effects.iter())
            .find(|e| matches!(e, Effect::Search { tool, .. } if tool == name))
            .cloned();
        let Some(Effect::Search { source, param, .. }) = &claim else {
            return false;
        };
        let Some(seen) = self.baseline.calls.get(source).cloned() else {
            return false;
        };
        let claim = claim.clone().expect("matched above");
        let word = effect::search_word(&seen.raw);
        let mut arguments = seen.arguments.clone();
        let sent = word.clone().unwrap_or_else(|| "a".to_string());
        arguments.insert(param.clone(), Value::String(sent));
        let Some(word) = word else {
            // Still called, so that its record holds its own answer's status, not its source's.
            let outcome = self.call(name, &arguments).await;
            let judged = Judged::unverifiable(format!(
                "no word of `{source}`'s answer is in some of its lines and not in others"
            ));
            self.results.push(result(
                name,
                TestKind::Added,
                Check::Claim { effect: claim },
                &arguments,
                outcome.status,
                Some(seen.status),
                judged,
            ));
            return true;
        };
        let (outcome, judged) = self
            .claimed(
                source,
                &seen.arguments,
                name,
                &arguments,
                Rework::search(word),
            )
            .await;
        self.results.push(result(
            name,
            TestKind::Added,
            Check::Claim { effect: claim },
            &arguments,
            outcome.status,
            Some(seen.status),
            judged,
        ));
        true
    }
}
