use serde_json::{Value, json};

use super::*;

/// [`super::diff`] of lists written as JSON.
fn diff(before: &[Value], after: &[Value]) -> Vec<SchemaChange> {
    let listed = |l: &[Value]| crate::listed::listed(l.to_vec());
    super::diff(&listed(before), &listed(after))
}

fn forecast() -> Value {
    json!({
        "name": "get_forecast",
        "description": "Get today's forecast for a city",
        "inputSchema": {
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name", "maxLength": 100},
                "days": {"type": "number", "description": "How many days", "minimum": 1, "maximum": 7},
                "units": {"type": "string", "enum": ["c", "f", "k"]}
            },
            "required": ["city"]
        }
    })
}

fn cities() -> Value {
    json!({"name": "list_cities", "description": "List the cities", "inputSchema": {"type": "object", "properties": {}}})
}

/// `forecast()` with `edit` applied to it.
fn edited(edit: impl FnOnce(&mut Value)) -> Value {
    let mut t = forecast();
    edit(&mut t);
    t
}

fn only(changes: &[SchemaChange]) -> &SchemaChange {
    assert_eq!(changes.len(), 1, "expected one change, got {changes:#?}");
    &changes[0]
}

#[test]
fn identical_lists_have_no_changes() {
    assert!(diff(&[forecast(), cities()], &[cities(), forecast()]).is_empty());
}

#[test]
fn an_added_tool_is_one_non_breaking_p2_change() {
    let c = diff(&[forecast()], &[forecast(), cities()]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.tool.as_str(), c.breaking),
        (ChangeKind::ToolAdded, "list_cities", false)
    );
    assert_eq!(c.pattern.map(Pattern::as_str), Some("P2"));
}

#[test]
fn a_removed_tool_is_one_breaking_p17_change_without_its_params() {
    let c = diff(&[forecast(), cities()], &[cities()]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.breaking, c.pattern.map(Pattern::as_str)),
        (ChangeKind::ToolRemoved, true, Some("P17"))
    );
}

#[test]
fn a_tool_with_the_same_schema_under_a_new_name_is_a_rename() {
    let renamed = edited(|t| t["name"] = json!("fetch_forecast"));
    let c = diff(&[forecast(), cities()], &[renamed, cities()]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.tool.as_str(), c.breaking),
        (ChangeKind::ToolRenamed, "get_forecast", true)
    );
    assert_eq!(c.detail.as_deref(), Some("renamed to fetch_forecast"));
    assert_eq!(c.pattern.map(Pattern::as_str), Some("P5"));
}

#[test]
fn an_ambiguous_rename_is_reported_as_removal_and_addition() {
    let a = json!({"name": "a", "inputSchema": {"type": "object", "properties": {}}});
    let b = json!({"name": "b", "inputSchema": {"type": "object", "properties": {}}});
    let c = json!({"name": "c", "inputSchema": {"type": "object", "properties": {}}});
    let kinds: Vec<_> = diff(&[a], &[b, c]).iter().map(|c| c.kind()).collect();
    assert_eq!(
        kinds,
        [
            ChangeKind::ToolRemoved,
            ChangeKind::ToolAdded,
            ChangeKind::ToolAdded
        ]
    );
}

#[test]
fn a_renamed_tool_with_a_different_schema_is_removal_and_addition() {
    let other = edited(|t| {
        t["name"] = json!("fetch_forecast");
        t["inputSchema"]["required"] = json!([]);
    });
    let kinds: Vec<_> = diff(&[forecast()], &[other])
        .iter()
        .map(|c| c.kind())
        .collect();
    assert_eq!(kinds, [ChangeKind::ToolAdded, ChangeKind::ToolRemoved]);
}

#[test]
fn a_new_tool_description_is_a_non_breaking_p1_change() {
    let after = edited(|t| t["description"] = json!("Forecast for a city"));
    let c = diff(&[forecast()], &[after]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.breaking, c.pattern.map(Pattern::as_str)),
        (ChangeKind::ToolDescriptionChanged, false, Some("P1"))
    );
}

#[test]
fn an_added_optional_param_is_p4_and_an_added_required_one_is_breaking_p10() {
    let after = edited(|t| {
        t["inputSchema"]["properties"]["lang"] = json!({"type": "string"});
        t["inputSchema"]["properties"]["zone"] = json!({"type": "string"});
        t["inputSchema"]["required"] = json!(["city", "zone"]);
    });
    let c = diff(&[forecast()], &[after]);
    assert_eq!(c.len(), 2);
    let added = |param: &str, required| Change::ParamAdded {
        param: param.into(),
        required,
    };
    assert_eq!((&c[0].what, c[0].breaking), (&added("lang", false), false));
    assert_eq!(c[0].pattern.map(Pattern::as_str), Some("P4"));
    assert_eq!((&c[1].what, c[1].breaking), (&added("zone", true), true));
    assert_eq!(c[1].pattern.map(Pattern::as_str), Some("P10"));
    assert_eq!(c[1].detail.as_deref(), Some("required parameter"));
}

#[test]
fn a_removed_param_is_breaking_p11_when_optional_and_p14_when_required() {
    let after = edited(|t| {
        let props = t["inputSchema"]["properties"].as_object_mut().unwrap();
        props.remove("city");
        props.remove("units");
        t["inputSchema"]["required"] = json!([]);
    });
    let c = diff(&[forecast()], &[after]);
    assert_eq!(c.len(), 2);
    assert!(c.iter().all(|c| c.breaking));
    let removed = |param: &str, required| Change::ParamRemoved {
        param: param.into(),
        required,
    };
    let pattern = |c: &SchemaChange| c.pattern.map(Pattern::as_str);
    assert_eq!(
        (&c[0].what, pattern(&c[0])),
        (&removed("city", true), Some("P14"))
    );
    assert_eq!(
        (&c[1].what, pattern(&c[1])),
        (&removed("units", false), Some("P11"))
    );
}

#[test]
fn a_new_param_description_is_a_non_breaking_p3_change() {
    let after =
        edited(|t| t["inputSchema"]["properties"]["city"]["description"] = json!("The city"));
    let c = diff(&[forecast()], &[after]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.param(), c.breaking),
        (ChangeKind::ParamDescriptionChanged, Some("city"), false)
    );
    assert_eq!(c.pattern.map(Pattern::as_str), Some("P3"));
}

#[test]
fn a_lowered_maximum_length_is_a_breaking_constraint_change() {
    let after = edited(|t| t["inputSchema"]["properties"]["city"]["maxLength"] = json!(50));
    let c = diff(&[forecast()], &[after]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.breaking, c.pattern.map(Pattern::as_str)),
        (ChangeKind::ParamConstraintChanged, true, Some("P8"))
    );
    assert_eq!(c.detail.as_deref(), Some("maxLength 100 -> 50"));
}

#[test]
fn a_relaxed_constraint_is_not_breaking() {
    let after = edited(|t| {
        let days = t["inputSchema"]["properties"]["days"]
            .as_object_mut()
            .unwrap();
        days.remove("minimum");
        days.insert("maximum".into(), json!(14));
        t["inputSchema"]["properties"]["units"]["enum"] = json!(["c", "f", "k", "r"]);
    });
    let c = diff(&[forecast()], &[after]);
    assert_eq!(c.len(), 2);
    assert!(
        c.iter()
            .all(|c| c.kind() == ChangeKind::ParamConstraintChanged && !c.breaking),
        "{c:#?}"
    );
    assert_eq!(
        c[0].detail.as_deref(),
        Some("maximum 7 -> 14; minimum removed (was 1)")
    );
}

#[test]
fn narrowing_changes_are_breaking() {
    let narrowings = [
        ("days", "minimum", json!(2)),
        ("units", "enum", json!(["c", "f"])),
        ("city", "pattern", json!("^[A-Z]")),
        ("city", "minLength", json!(1)),
    ];
    for (param, keyword, value) in narrowings {
        let after = edited(|t| t["inputSchema"]["properties"][param][keyword] = value.clone());
        let c = diff(&[forecast()], &[after]);
        assert!(only(&c).breaking, "{keyword} = {value} should break");
    }
}

#[test]
fn a_new_default_alone_is_not_breaking() {
    let after = edited(|t| t["inputSchema"]["properties"]["days"]["default"] = json!(3));
    let c = diff(&[forecast()], &[after]);
    assert!(!only(&c).breaking);
    assert_eq!(only(&c).detail.as_deref(), Some("default added (3)"));
}

#[test]
fn a_param_made_required_breaks_and_one_made_optional_does_not() {
    let after = edited(|t| t["inputSchema"]["required"] = json!(["days"]));
    let c = diff(&[forecast()], &[after]);
    assert_eq!(c.len(), 2);
    assert!(
        c.iter()
            .all(|c| c.kind() == ChangeKind::ParamRequiredChanged
                && c.pattern.map(Pattern::as_str) == Some("P13"))
    );
    let now = |param: &str, required| Change::ParamRequiredChanged {
        param: param.into(),
        required,
    };
    assert_eq!((&c[0].what, c[0].breaking), (&now("city", false), false));
    assert_eq!(c[0].detail.as_deref(), Some("now optional"));
    assert_eq!((&c[1].what, c[1].breaking), (&now("days", true), true));
}

#[test]
fn a_new_type_is_a_breaking_p8_change() {
    let after = edited(|t| t["inputSchema"]["properties"]["days"]["type"] = json!("string"));
    let c = diff(&[forecast()], &[after]);
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.breaking, c.pattern.map(Pattern::as_str)),
        (ChangeKind::ParamTypeChanged, true, Some("P8"))
    );
    assert_eq!(c.detail.as_deref(), Some("type number -> string"));
}

#[test]
fn a_new_default_is_its_own_kind_and_no_constraint_change_as_releases_were_counted() {
    let after = edited(|t| t["inputSchema"]["properties"]["days"]["default"] = json!(3));
    let c = diff(&[forecast()], std::slice::from_ref(&after));
    let c = only(&c);
    assert_eq!(
        (c.kind(), c.pattern),
        (ChangeKind::ParamDefaultChanged, None)
    );
    let changed = edited(|t| t["inputSchema"]["properties"]["days"]["default"] = json!(5));
    let c = diff(&[after], &[changed]);
    assert!(only(&c).breaking, "a call without it gets 5 where it got 3");
    assert_eq!(only(&c).detail.as_deref(), Some("default 3 -> 5"));
    // Examples restrict nothing and are no change at all.
    let after = edited(|t| t["inputSchema"]["properties"]["days"]["examples"] = json!([3]));
    assert!(diff(&[forecast()], &[after]).is_empty());
}

#[test]
fn a_union_type_change_is_a_type_change_and_not_a_constraint_change() {
    let union = |t: &str| json!({"anyOf": [{"type": t}, {"type": "null"}]});
    let tool = |p: Value| json!({"name": "t", "inputSchema": {"properties": {"x": p}}});
    let c = diff(&[tool(union("string"))], &[tool(union("number"))]);
    assert_eq!(only(&c).kind(), ChangeKind::ParamTypeChanged);
    assert_eq!(
        only(&c).detail.as_deref(),
        Some("type null|string -> null|number")
    );
}

#[test]
fn missing_or_odd_input_schemas_are_tolerated() {
    let bare = json!({"name": "t"});
    let null = json!({"name": "t", "inputSchema": null, "description": "d"});
    let one = json!({"name": "t", "description": "d", "inputSchema": {"properties": {"x": {}}, "required": "x"}});
    assert_eq!(
        only(&diff(
            std::slice::from_ref(&bare),
            std::slice::from_ref(&null)
        ))
        .kind(),
        ChangeKind::ToolDescriptionChanged
    );
    assert_eq!(only(&diff(&[null], &[one])).kind(), ChangeKind::ParamAdded);
    assert!(diff(&[json!("not a tool"), bare.clone()], &[bare]).is_empty());
}

#[test]
fn changes_are_ordered_by_tool_then_kind_then_param() {
    let after = edited(|t| {
        t["description"] = json!("new");
        t["inputSchema"]["properties"]["b"] = json!({});
        t["inputSchema"]["properties"]["a"] = json!({});
    });
    let c = diff(&[forecast(), cities()], &[after, json!({"name": "alpha"})]);
    let order: Vec<_> = c
        .iter()
        .map(|c| (c.tool.as_str(), c.kind(), c.param()))
        .collect();
    assert_eq!(
        order,
        [
            ("alpha", ChangeKind::ToolAdded, None),
            ("get_forecast", ChangeKind::ToolDescriptionChanged, None),
            ("get_forecast", ChangeKind::ParamAdded, Some("a")),
            ("get_forecast", ChangeKind::ParamAdded, Some("b")),
            ("list_cities", ChangeKind::ToolRemoved, None),
        ]
    );
}

#[test]
fn changes_serialize_with_kebab_case_kinds_and_null_params() {
    let c = diff(&[], &[cities()]);
    let v = serde_json::to_value(&c[0]).unwrap();
    assert_eq!(v["kind"], "tool-added");
    assert_eq!(v["param"], Value::Null);
    assert!(v.get("required").is_none());
    let back: SchemaChange = serde_json::from_value(v).unwrap();
    assert_eq!(back, c[0]);
}

#[test]
fn a_tool_description_with_an_optional_param_added_shows_p6() {
    let after = edited(|t| {
        t["description"] = json!("new");
        t["inputSchema"]["properties"]["lang"] = json!({"type": "string"});
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[after]))),
        ["P1", "P4", "P6"]
    );
}

#[test]
fn an_added_tool_beside_another_tools_new_description_shows_p18() {
    let after = edited(|t| t["description"] = json!("new"));
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[after, cities()]))),
        ["P1", "P2", "P18"]
    );
}

#[test]
fn description_composites_need_their_parts_on_the_same_tool() {
    let desc =
        |t: &mut Value| t["inputSchema"]["properties"]["city"]["description"] = json!("The city");
    let both = edited(|t| {
        t["description"] = json!("new");
        desc(t);
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[both]))),
        ["P1", "P3", "P7"]
    );
    let strict = edited(|t| {
        t["inputSchema"]["properties"]["days"]["maximum"] = json!(5);
        desc(t);
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[strict]))),
        ["P3", "P8", "P9"]
    );
    let apart = json!({"name": "list_cities", "description": "Cities"});
    assert_eq!(
        names(&round_patterns(&diff(
            &[forecast(), cities()],
            &[edited(desc), apart]
        ))),
        ["P1", "P3"]
    );
}

#[test]
fn optional_param_changes_with_other_param_descriptions_show_p12_and_p15() {
    let added = edited(|t| {
        t["inputSchema"]["properties"]["lang"] = json!({"type": "string"});
        t["inputSchema"]["properties"]["city"]["description"] = json!("The city");
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[added]))),
        ["P3", "P4", "P12"]
    );
    let removed = edited(|t| {
        t["inputSchema"]["properties"]
            .as_object_mut()
            .unwrap()
            .remove("units");
        t["inputSchema"]["properties"]["city"]["description"] = json!("The city");
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[removed]))),
        ["P3", "P11", "P15"]
    );
}

#[test]
fn round_patterns_are_in_numeric_order_without_duplicates() {
    let after = edited(|t| {
        t["inputSchema"]["properties"]["a"] = json!({});
        t["inputSchema"]["properties"]["b"] = json!({});
        t["inputSchema"]["required"] = json!(["city", "b"]);
    });
    assert_eq!(
        names(&round_patterns(&diff(&[forecast()], &[after, cities()]))),
        ["P2", "P4", "P10"]
    );
}

#[test]
fn kind_names_in_messages_match_their_serialized_names() {
    use ChangeKind::*;
    let kinds = [
        ToolAdded,
        ToolRemoved,
        ToolRenamed,
        ToolDescriptionChanged,
        ParamAdded,
        ParamRemoved,
        ParamDescriptionChanged,
        ParamConstraintChanged,
        ParamRequiredChanged,
        ParamTypeChanged,
        ParamDefaultChanged,
    ];
    for k in kinds {
        assert_eq!(serde_json::to_value(k).unwrap(), k.as_str());
    }
}

fn names(patterns: &[Pattern]) -> Vec<&'static str> {
    patterns.iter().map(|p| p.as_str()).collect()
}

#[test]
fn a_renamed_tool_among_added_tools_of_the_same_schema_is_paired_by_its_name_words() {
    let bare = |name: &str| json!({"name": name, "description": "d", "inputSchema": {"type": "object", "properties": {}}});
    let before = [bare("get-system-info"), bare("poll-system-stats")];
    let after = [
        bare("get-system-info-v2"),
        bare("poll-system-stats"),
        bare("poll-system-stats-compat"),
    ];
    let changes = diff(&before, &after);
    let kinds: Vec<_> = changes
        .iter()
        .map(|c| (c.kind(), c.tool.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            (ChangeKind::ToolRenamed, "get-system-info"),
            (ChangeKind::ToolAdded, "poll-system-stats-compat")
        ]
    );
    // Two removed tools that share as many words with the one added: a guess, not a pair.
    let before = [bare("list_a"), bare("list_b")];
    let after = [bare("list_c")];
    let kinds: Vec<_> = diff(&before, &after).iter().map(|c| c.kind()).collect();
    assert!(!kinds.contains(&ChangeKind::ToolRenamed), "{kinds:?}");
}

#[test]
fn a_removal_beside_a_copy_of_another_tool_with_the_same_schema_is_no_rename() {
    let bare = |name: &str| json!({"name": name, "description": "d", "inputSchema": {"type": "object", "properties": {}}});
    let before = [bare("lower"), bare("upper")];
    let after = [bare("upper"), bare("upper_compat")];
    let kinds: Vec<_> = diff(&before, &after).iter().map(|c| c.kind()).collect();
    assert_eq!(kinds, [ChangeKind::ToolRemoved, ChangeKind::ToolAdded]);
}
