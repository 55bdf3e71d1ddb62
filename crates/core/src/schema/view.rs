//! One tool of a live list as the diff reads it: its description, title, hints, output schema,
//! `_meta`, other fields, and its input's properties and required names.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::listed::ListedTool;

/// One tool as far as the diff cares.
pub(super) struct ToolView<'a> {
    pub(super) description: Option<&'a Value>,
    pub(super) title: Option<&'a Value>,
    /// `annotations` without its `title` (which is `title`'s).
    pub(super) annotations: Map<String, Value>,
    pub(super) output_schema: Option<&'a Value>,
    pub(super) meta: Option<&'a Value>,
    /// Every other field of the definition.
    pub(super) rest: Map<String, Value>,
    /// The raw inputSchema, `Null` when missing: renames compare it whole.
    pub(super) schema: &'a Value,
    pub(super) properties: Map<String, Value>,
    pub(super) required: BTreeSet<String>,
}

static NULL: Value = Value::Null;

pub(super) fn view(tool: &Value) -> ToolView<'_> {
    let schema = tool.get("inputSchema").unwrap_or(&NULL);
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let mut annotations = tool
        .get("annotations")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    annotations.remove("title");
    let mut rest = tool.as_object().cloned().unwrap_or_default();
    for known in [
        "name",
        "description",
        "title",
        "inputSchema",
        "annotations",
        "outputSchema",
        "_meta",
    ] {
        rest.remove(known);
    }
    ToolView {
        description: tool.get("description"),
        // The SDKs list it at the top, older ones in the annotations.
        title: tool
            .get("title")
            .or_else(|| tool.get("annotations").and_then(|a| a.get("title"))),
        annotations,
        output_schema: tool.get("outputSchema"),
        meta: tool.get("_meta"),
        rest,
        schema,
        properties,
        required,
    }
}

pub(super) fn by_name(tools: &[ListedTool]) -> BTreeMap<&str, ToolView<'_>> {
    let mut map = BTreeMap::new();
    for t in tools {
        if let Some(name) = t.name() {
            // A server listing a name twice is broken; the first entry is what clients see first.
            map.entry(name).or_insert_with(|| view(t.as_value()));
        }
    }
    map
}

/// How many times each name is listed.
pub(super) fn listings(tools: &[ListedTool]) -> BTreeMap<&str, usize> {
    let mut counts = BTreeMap::new();
    for name in tools.iter().filter_map(ListedTool::name) {
        *counts.entry(name).or_insert(0) += 1;
    }
    counts
}
