//! The parts of a tool's definition beside its description, title and input schema: behaviour
//! hints (`annotations`), the output schema, `_meta` and any other field. Each is a change of
//! its own, counted `other` as real releases were.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::{Change, SchemaChange, ToolView, short};

/// The parts of a tool's definition beside its description, title and input: behaviour hints,
/// the output schema, `_meta`, any other field. Each is counted `other`, as real releases were.
pub(super) fn changes(tool: &str, old: &ToolView, new: &ToolView, out: &mut Vec<SchemaChange>) {
    let other = |what: Change, breaking: bool, detail: String| {
        SchemaChange::of(tool, what)
            .breaking(breaking)
            .detail(detail)
    };
    if old.annotations != new.annotations {
        let words = map_words(&old.annotations, &new.annotations);
        out.push(other(Change::ToolAnnotationsChanged, false, words));
    }
    if old.output_schema != new.output_schema {
        // A client that checks structured results against the old schema may refuse new ones.
        let breaking = old.output_schema.is_some();
        let detail = match (old.output_schema, new.output_schema) {
            (None, Some(_)) => "output schema added",
            (Some(_), None) => "output schema removed",
            _ => "output schema changed",
        };
        out.push(other(
            Change::ToolOutputSchemaChanged,
            breaking,
            detail.into(),
        ));
    }
    if old.meta != new.meta {
        out.push(other(
            Change::ToolMetaChanged,
            false,
            "_meta changed".into(),
        ));
    }
    if old.rest != new.rest {
        out.push(other(
            Change::ToolDefinitionChanged,
            false,
            map_words(&old.rest, &new.rest),
        ));
    }
}

/// "destructiveHint false -> true; openWorldHint added (true)": how two maps differ.
fn map_words(before: &Map<String, Value>, after: &Map<String, Value>) -> String {
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter()
        .filter_map(|k| match (before.get(k), after.get(k)) {
            (Some(a), Some(b)) if a == b => None,
            (Some(a), Some(b)) => Some(format!("{k} {} -> {}", short(a), short(b))),
            (None, Some(b)) => Some(format!("{k} added ({})", short(b))),
            (Some(a), None) => Some(format!("{k} removed (was {})", short(a))),
            (None, None) => None,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
#[path = "definition_tests.rs"]
mod tests;
