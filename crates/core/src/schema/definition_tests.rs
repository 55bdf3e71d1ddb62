use serde_json::json;

use crate::schema::{ChangeKind, SchemaChange};

/// [`crate::schema::diff`] of lists written as JSON.
fn diff(before: &[serde_json::Value], after: &[serde_json::Value]) -> Vec<SchemaChange> {
    let listed = |l: &[serde_json::Value]| crate::listed::listed(l.to_vec());
    crate::schema::diff(&listed(before), &listed(after))
}

fn tool(extra: serde_json::Value) -> serde_json::Value {
    let mut t = json!({"name": "t", "description": "d", "inputSchema": {"type": "object"}});
    for (k, v) in extra.as_object().unwrap() {
        t[k] = v.clone();
    }
    t
}

fn kinds(before: serde_json::Value, after: serde_json::Value) -> Vec<(ChangeKind, String)> {
    diff(&[tool(before)], &[tool(after)])
        .into_iter()
        .map(|c| (c.kind(), c.detail.unwrap_or_default()))
        .collect()
}

#[test]
fn a_flipped_behaviour_hint_is_a_change_naming_the_hint() {
    let changes = kinds(
        json!({"annotations": {"title": "T", "destructiveHint": false}}),
        json!({"annotations": {"title": "T", "destructiveHint": true}}),
    );
    assert_eq!(
        changes,
        [(
            ChangeKind::ToolAnnotationsChanged,
            "destructiveHint false -> true".to_string()
        )]
    );
}

#[test]
fn an_output_schema_meta_and_other_fields_are_compared_too() {
    let changes = kinds(
        json!({"outputSchema": {"type": "object"}, "_meta": {"a": 1}, "icons": []}),
        json!({"outputSchema": {"type": "array"}, "_meta": {"a": 2}, "icons": [1]}),
    );
    let found: Vec<ChangeKind> = changes.iter().map(|(k, _)| *k).collect();
    assert_eq!(
        found,
        [
            ChangeKind::ToolOutputSchemaChanged,
            ChangeKind::ToolMetaChanged,
            ChangeKind::ToolDefinitionChanged
        ]
    );
    let breaking = diff(
        &[tool(json!({"outputSchema": {"type": "object"}}))],
        &[tool(json!({"outputSchema": {"type": "array"}}))],
    );
    assert!(
        breaking[0].breaking,
        "a client checking results may refuse the new ones"
    );
}

#[test]
fn a_tool_listed_twice_is_a_breaking_change_and_a_title_alone_is_not_an_annotation() {
    let once = [tool(json!({}))];
    let twice = [tool(json!({})), tool(json!({}))];
    let changes = diff(&once, &twice);
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].kind(), ChangeKind::ToolListedTwice);
    assert!(changes[0].breaking);
    assert!(diff(&twice, &twice).is_empty(), "listed twice before, too");
    let titled = kinds(json!({}), json!({"annotations": {"title": "T"}}));
    assert_eq!(titled.len(), 1);
    assert_eq!(titled[0].0, ChangeKind::ToolTitleChanged);
}
