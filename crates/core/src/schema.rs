//! The schema-level difference between two versions' live tool lists (`tools/list`): what
//! changed, whether a client written against the old version can break, and which evolution
//! patterns (P1-P18 of the MCPEvol-Bench paper, Table 10) the round shows.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::listed::ListedTool;

use ChangeKind::*;

mod change;
mod definition;
mod kind;
mod pairing;
mod pattern;
mod view;
pub use change::{Change, SchemaChange};
pub use kind::ChangeKind;
pub use pattern::{Pattern, joined as joined_patterns};
use view::{ToolView, by_name, listings};

impl SchemaChange {
    /// A change `diff` found, with its single-change pattern.
    fn found(tool: &str, what: Change, pattern: u8) -> SchemaChange {
        SchemaChange {
            pattern: Some(Pattern::known(pattern)),
            ..SchemaChange::of(tool, what)
        }
    }

    fn breaking(mut self, breaking: bool) -> SchemaChange {
        self.breaking = breaking;
        self
    }

    fn detail(mut self, detail: impl Into<String>) -> SchemaChange {
        self.detail = Some(detail.into());
        self
    }
}

/// Every schema change from `before` to `after`, ordered by tool, then kind, then parameter.
pub fn diff(before: &[ListedTool], after: &[ListedTool]) -> Vec<SchemaChange> {
    diff_declared(before, after, &[])
}

/// [`diff`], knowing the renames the change declares (`(old, new)`): a tool gone and one come
/// with the same schema are that rename even where their names share no word to pair them by
/// (`debug` to `diagnose`).
pub fn diff_declared(
    before: &[ListedTool],
    after: &[ListedTool],
    declared: &[(String, String)],
) -> Vec<SchemaChange> {
    let old = by_name(before);
    let new = by_name(after);
    let removed: Vec<&str> = old
        .keys()
        .filter(|n| !new.contains_key(*n))
        .copied()
        .collect();
    let added: Vec<&str> = new
        .keys()
        .filter(|n| !old.contains_key(*n))
        .copied()
        .collect();

    let mut changes = Vec::new();
    let mut renamed_to: BTreeSet<&str> = BTreeSet::new();
    for r in &removed {
        let candidates: Vec<&str> = added
            .iter()
            .filter(|a| new[**a].schema == old[*r].schema)
            .copied()
            .collect();
        // The pairing must be unique both ways, or which tool became which is a guess. Among
        // tools of one schema (tools without parameters all have the same), the one that
        // shares most of the other's name words is the pair, where no other shares as many.
        let declared_pair = (declared.iter())
            .find(|(from, to)| from == r && candidates.contains(&to.as_str()))
            .map(|(_, to)| to.as_str());
        let pair = declared_pair.or_else(|| {
            pairing::closest(r, &candidates).filter(|a| {
                let rivals: Vec<&str> = (removed.iter().copied())
                    .filter(|r2| old[*r2].schema == new[*a].schema)
                    .collect();
                pairing::closest(a, &rivals) == Some(*r)
            })
        });
        let candidates: Vec<&str> = pair.into_iter().collect();
        let unique = candidates.len() == 1;
        changes.push(if unique {
            renamed_to.insert(candidates[0]);
            let to = candidates[0].to_string();
            SchemaChange::found(r, Change::ToolRenamed { to }, 5)
                .breaking(true)
                .detail(format!("renamed to {}", candidates[0]))
        } else {
            SchemaChange::found(r, Change::ToolRemoved, 17).breaking(true)
        });
    }
    for a in added.iter().filter(|a| !renamed_to.contains(*a)) {
        changes.push(SchemaChange::found(a, Change::ToolAdded, 2));
    }
    for (name, o) in &old {
        if let Some(n) = new.get(name) {
            tool_changes(name, o, n, &mut changes);
        }
    }
    let (was, is) = (listings(before), listings(after));
    for (name, times) in is.iter().filter(|(_, n)| **n > 1) {
        if was.get(name).copied().unwrap_or(0) < *times {
            let change = SchemaChange::of(name, Change::ToolListedTwice)
                .breaking(true)
                .detail(format!("listed {times} times"));
            changes.push(change);
        }
    }
    changes.sort_by(|a, b| (&a.tool, a.kind(), a.param()).cmp(&(&b.tool, b.kind(), b.param())));
    changes
}

fn tool_changes(tool: &str, old: &ToolView, new: &ToolView, out: &mut Vec<SchemaChange>) {
    if old.description != new.description {
        out.push(SchemaChange::found(tool, Change::ToolDescriptionChanged, 1));
    }
    if old.title != new.title {
        let detail = match (old.title, new.title) {
            (None, Some(t)) => format!("title {} added", short(t)),
            (Some(t), None) => format!("title {} removed", short(t)),
            (Some(a), Some(b)) => format!("title {} -> {}", short(a), short(b)),
            (None, None) => unreachable!("they differ"),
        };
        out.push(SchemaChange::of(tool, Change::ToolTitleChanged).detail(detail));
    }
    definition::changes(tool, old, new, out);
    for p in new
        .properties
        .keys()
        .filter(|p| !old.properties.contains_key(*p))
    {
        let req = new.required.contains(p);
        let (pattern, detail) = if req {
            (10, "required parameter")
        } else {
            (4, "optional parameter")
        };
        out.push(
            SchemaChange::found(
                tool,
                Change::ParamAdded {
                    param: p.clone(),
                    required: req,
                },
                pattern,
            )
            .breaking(req)
            .detail(detail),
        );
    }
    for (p, before) in &old.properties {
        let Some(after) = new.properties.get(p) else {
            let req = old.required.contains(p);
            let (pattern, detail) = if req {
                (14, "was required")
            } else {
                (11, "was optional")
            };
            out.push(
                SchemaChange::found(
                    tool,
                    Change::ParamRemoved {
                        param: p.clone(),
                        required: req,
                    },
                    pattern,
                )
                .breaking(true)
                .detail(detail),
            );
            continue;
        };
        param_changes(tool, p, before, after, out);
        let (was, is) = (old.required.contains(p), new.required.contains(p));
        if was != is {
            let detail = if is { "now required" } else { "now optional" };
            out.push(
                SchemaChange::found(
                    tool,
                    Change::ParamRequiredChanged {
                        param: p.clone(),
                        required: is,
                    },
                    13,
                )
                .breaking(is)
                .detail(detail),
            );
        }
    }
}

fn param_changes(tool: &str, p: &str, before: &Value, after: &Value, out: &mut Vec<SchemaChange>) {
    if before.get("description") != after.get("description") {
        out.push(SchemaChange::found(
            tool,
            Change::ParamDescriptionChanged {
                param: p.to_string(),
            },
            3,
        ));
    }
    let (t0, t1) = (type_of(before), type_of(after));
    if t0 != t1 {
        let show = |t: Option<String>| t.unwrap_or_else(|| "any".into());
        let detail = format!("type {} -> {}", show(t0), show(t1));
        out.push(
            SchemaChange::found(
                tool,
                Change::ParamTypeChanged {
                    param: p.to_string(),
                },
                8,
            )
            .breaking(true)
            .detail(detail),
        );
    }
    let (d0, d1) = (before.get("default"), after.get("default"));
    if d0 != d1 {
        let detail = match (d0, d1) {
            (Some(a), Some(b)) => format!("default {} -> {}", short(a), short(b)),
            (None, Some(b)) => format!("default added ({})", short(b)),
            (Some(a), _) => format!("default removed (was {})", short(a)),
            (None, None) => unreachable!("they differ"),
        };
        let change = SchemaChange::of(
            tool,
            Change::ParamDefaultChanged {
                param: p.to_string(),
            },
        )
        .detail(detail);
        // A call without the parameter got the old default and may now do something else; a
        // default where there was none breaks no call.
        out.push(change.breaking(d0.is_some()));
    }
    let (c0, c1) = (constraints(before), constraints(after));
    if c0 != c1 {
        let keys: BTreeSet<&String> = c0.keys().chain(c1.keys()).collect();
        let words: Vec<String> = keys
            .into_iter()
            .filter_map(|k| match (c0.get(k), c1.get(k)) {
                (Some(a), Some(b)) if a == b => None,
                (Some(a), Some(b)) => Some(format!("{k} {} -> {}", short(a), short(b))),
                (None, Some(b)) => Some(format!("{k} added ({})", short(b))),
                (Some(a), None) => Some(format!("{k} removed (was {})", short(a))),
                (None, None) => None,
            })
            .collect();
        let change = SchemaChange::found(
            tool,
            Change::ParamConstraintChanged {
                param: p.to_string(),
            },
            8,
        );
        out.push(change.breaking(narrows(&c0, &c1)).detail(words.join("; ")));
    }
}

/// The type a parameter accepts, as "string" or "null|string" for unions (anyOf/oneOf included).
fn type_of(prop: &Value) -> Option<String> {
    let mut types = BTreeSet::new();
    match prop.get("type") {
        Some(Value::String(s)) => {
            types.insert(s.clone());
        }
        Some(Value::Array(a)) => {
            types.extend(a.iter().filter_map(Value::as_str).map(str::to_string))
        }
        _ => {}
    }
    for key in ["anyOf", "oneOf"] {
        for alt in prop
            .get(key)
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(t) = type_of(alt) {
                types.extend(t.split('|').map(str::to_string));
            }
        }
    }
    (!types.is_empty()).then(|| types.into_iter().collect::<Vec<_>>().join("|"))
}

/// Everything of a property that restricts values, without the words and the types (those are
/// reported as their own kinds). Union alternatives keep only what restricts beyond their type,
/// so `string|null` becoming `number|null` is a type change and nothing more.
fn constraints(prop: &Value) -> Map<String, Value> {
    let mut m = prop.as_object().cloned().unwrap_or_default();
    // Examples restrict nothing; a default is its own kind of change.
    for k in ["description", "type", "title", "examples", "default"] {
        m.remove(k);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(alts)) = m.get(key) {
            let kept: Vec<Value> = alts
                .iter()
                .map(|a| Value::Object(constraints(a)))
                .filter(|a| a.as_object().is_some_and(|o| !o.is_empty()))
                .collect();
            if kept.is_empty() {
                m.remove(key);
            } else {
                m.insert(key.into(), Value::Array(kept));
            }
        }
    }
    m
}

/// Whether a constraint change can reject a value the old schema accepted. Keywords this does not
/// understand count as narrowing: a breaking flag that is wrong the safe way.
fn narrows(old: &Map<String, Value>, new: &Map<String, Value>) -> bool {
    let keys: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    keys.into_iter().any(|k| {
        let (a, b) = (old.get(k), new.get(k));
        if a == b {
            return false;
        }
        match k.as_str() {
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                b.is_some() && (a.is_none() || bound(b) > bound(a))
            }
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                b.is_some() && (a.is_none() || bound(b) < bound(a))
            }
            "enum" => match (a.and_then(Value::as_array), b.and_then(Value::as_array)) {
                (Some(a), Some(b)) => a.iter().any(|v| !b.contains(v)),
                (None, Some(_)) => true,
                _ => false,
            },
            "pattern" | "format" | "const" | "multipleOf" => b.is_some(),
            "uniqueItems" => b == Some(&Value::Bool(true)),
            "additionalProperties" => {
                b == Some(&Value::Bool(false)) || b.is_some_and(Value::is_object)
            }
            "items" => match (a.and_then(Value::as_object), b.and_then(Value::as_object)) {
                (Some(a), Some(b)) => {
                    type_of(&Value::Object(a.clone())) != type_of(&Value::Object(b.clone()))
                        || narrows(
                            &constraints(&Value::Object(a.clone())),
                            &constraints(&Value::Object(b.clone())),
                        )
                }
                (_, None) => false,
                (None, Some(_)) => true,
            },
            "default" | "examples" | "deprecated" | "readOnly" | "writeOnly" | "$comment" => false,
            _ => true,
        }
    })
}

/// A numeric bound; draft-4 boolean `exclusiveMinimum: true` counts as tighter than none.
fn bound(v: Option<&Value>) -> f64 {
    match v {
        Some(Value::Number(n)) => n.as_f64().unwrap_or(0.0),
        Some(Value::Bool(true)) => 1.0,
        _ => 0.0,
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        format!("{}…", s.chars().take(59).collect::<String>())
    } else {
        s
    }
}

/// The names a change brought in: added tools and the new names of renamed ones.
pub fn added_names(changes: &[SchemaChange]) -> Vec<String> {
    changes
        .iter()
        .filter_map(|c| match &c.what {
            Change::ToolAdded => Some(c.tool.clone()),
            Change::ToolRenamed { to } => Some(to.clone()),
            _ => None,
        })
        .collect()
}

/// The patterns a round shows: each change's own pattern plus the composites whose parts occur
/// together. Composites are judged per tool, as each describes one tool's new version, except
/// P18, which is about two tools. P16 has the same definition as P6 and is reported as P6.
pub fn round_patterns(changes: &[SchemaChange]) -> Vec<Pattern> {
    let mut found: BTreeSet<Pattern> = changes.iter().filter_map(|c| c.pattern).collect();
    let tools: BTreeSet<&str> = changes.iter().map(|c| c.tool.as_str()).collect();
    for tool in &tools {
        let has = |kind: ChangeKind| changes.iter().any(|c| c.tool == *tool && c.kind() == kind);
        let has_optional = |kind: ChangeKind| {
            changes
                .iter()
                .any(|c| c.tool == *tool && c.kind() == kind && c.required() == Some(false))
        };
        // A param's description change is always on another param than the one added or
        // removed, since those have no before or after to compare.
        let param_desc = has(ParamDescriptionChanged);
        let tool_desc = has(ToolDescriptionChanged);
        let composites = [
            (6, tool_desc && has_optional(ParamAdded)),
            (7, tool_desc && param_desc),
            (
                9,
                param_desc && (has(ParamConstraintChanged) || has(ParamTypeChanged)),
            ),
            (12, param_desc && has_optional(ParamAdded)),
            (15, param_desc && has_optional(ParamRemoved)),
        ];
        found.extend(
            composites
                .into_iter()
                .filter(|(_, shown)| *shown)
                .map(|(p, _)| Pattern::known(p)),
        );
    }
    let added: BTreeSet<&str> = changes
        .iter()
        .filter(|c| c.kind() == ToolAdded)
        .map(|c| c.tool.as_str())
        .collect();
    let other_described = changes
        .iter()
        .any(|c| c.kind() == ToolDescriptionChanged && !added.contains(c.tool.as_str()));
    if !added.is_empty() && other_described {
        found.insert(Pattern::known(18));
    }
    found.into_iter().collect()
}

#[cfg(test)]
#[path = "schema_tests.rs"]
mod tests;
