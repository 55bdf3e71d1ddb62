use std::collections::BTreeSet;

use super::*;
use crate::contract::check;
use crate::schema::{ChangeKind, ChangeKind::*, SchemaChange};

fn change(
    kind: ChangeKind,
    tool: &str,
    param: Option<&str>,
    required: Option<bool>,
) -> SchemaChange {
    SchemaChange {
        kind,
        tool: tool.into(),
        param: param.map(str::to_string),
        breaking: false,
        pattern: None,
        detail: None,
        required,
    }
}

fn tool(kind: ChangeKind, tool: &str) -> SchemaChange {
    change(kind, tool, None, None)
}

fn param(kind: ChangeKind, p: &str) -> SchemaChange {
    let required =
        matches!(kind, ParamAdded | ParamRemoved | ParamRequiredChanged).then_some(false);
    change(kind, "get_forecast", Some(p), required)
}

/// For each operator: a round it should accept and one it should reject, with the round's targets.
fn cases(id: &str) -> (Vec<SchemaChange>, Vec<SchemaChange>, Vec<&'static str>) {
    let t = vec!["get_forecast", "list_cities"];
    match id {
        "O1" => (
            vec![tool(ToolAdded, "get_alerts")],
            vec![
                tool(ToolAdded, "get_alerts"),
                tool(ToolRemoved, "get_forecast"),
            ],
            t,
        ),
        "O2" => (
            vec![
                tool(ToolRemoved, "get_forecast"),
                tool(ToolAdded, "fetch_forecast"),
            ],
            vec![tool(ToolRemoved, "get_forecast")],
            t,
        ),
        "O3" => (
            vec![
                tool(ToolRemoved, "list_cities"),
                tool(ToolDescriptionChanged, "get_forecast"),
                param(ParamAdded, "all"),
            ],
            vec![
                tool(ToolDescriptionChanged, "get_forecast"),
                param(ParamAdded, "all"),
            ],
            t,
        ),
        "O4" => (
            vec![
                tool(ToolAdded, "get_alerts"),
                tool(ToolDescriptionChanged, "get_forecast"),
            ],
            vec![tool(ToolAdded, "get_alerts")],
            t,
        ),
        "O5" => (
            vec![param(ParamAdded, "lang"), param(ParamAdded, "units")],
            vec![param(ParamAdded, "lang"), param(ParamRemoved, "city")],
            t,
        ),
        "O6" => (
            vec![
                param(ParamConstraintChanged, "days"),
                param(ParamDescriptionChanged, "days"),
            ],
            vec![param(ParamDescriptionChanged, "days")],
            t,
        ),
        "O7" => (
            vec![param(ParamRemoved, "units")],
            vec![param(ParamRemoved, "units"), param(ParamAdded, "lang")],
            t,
        ),
        "O8" => (
            vec![
                tool(ToolDescriptionChanged, "get_forecast"),
                param(ParamAdded, "lang"),
                param(ParamRemoved, "units"),
            ],
            vec![param(ParamAdded, "lang")],
            t,
        ),
        "O9" => (
            vec![tool(ToolDescriptionChanged, "get_forecast")],
            vec![
                tool(ToolDescriptionChanged, "get_forecast"),
                param(ParamDescriptionChanged, "city"),
            ],
            t,
        ),
        "O10" => (
            vec![param(ParamDescriptionChanged, "city")],
            vec![param(ParamConstraintChanged, "city")],
            t,
        ),
        "O11" => (
            vec![
                tool(ToolDescriptionChanged, "get_forecast"),
                param(ParamDescriptionChanged, "city"),
            ],
            vec![
                tool(ToolDescriptionChanged, "get_forecast"),
                tool(ToolDescriptionChanged, "list_cities"),
            ],
            t,
        ),
        other => panic!("no cases for {other}"),
    }
}

#[test]
fn every_built_in_operator_file_parses_with_a_function_section() {
    let ops = builtin();
    assert_eq!(ops.len(), 11);
    for op in &ops {
        assert!(
            op.body.contains("\n## Function\n"),
            "{} lacks ## Function",
            op.file
        );
        assert!(
            std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
                .join(&op.file)
                .is_file(),
            "{}",
            op.file
        );
        assert!(
            !op.patterns.is_empty() && !op.summary.is_empty(),
            "{}",
            op.file
        );
    }
}

#[test]
fn built_in_ids_are_o1_to_o11_in_order_and_unique() {
    let ids: Vec<String> = builtin().into_iter().map(|o| o.id).collect();
    let expected: Vec<String> = (1..=11).map(|n| format!("O{n}")).collect();
    assert_eq!(ids, expected);
}

#[test]
fn built_in_levels_follow_table_11() {
    let levels: Vec<Level> = builtin().iter().map(|o| o.level).collect();
    use Level::*;
    assert_eq!(
        levels,
        [
            Tool, Tool, Tool, Tool, Param, Param, Param, Param, Desc, Desc, Desc
        ]
    );
}

#[test]
fn the_operators_folder_loads_the_same_operators_as_the_built_ins() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("operators");
    let loaded = load_dir(&dir).unwrap();
    let builtin = builtin();
    assert_eq!(loaded.len(), builtin.len());
    for (a, b) in loaded.iter().zip(&builtin) {
        assert_eq!((&a.id, &a.contract, &a.body), (&b.id, &b.contract, &b.body));
    }
}

#[test]
fn each_contract_accepts_its_own_kind_of_round_and_rejects_another() {
    for op in builtin() {
        let (good, bad, targets) = cases(&op.id);
        let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            check(&op.contract, &good, &targets),
            Ok(()),
            "{} should accept {good:#?}",
            op.id
        );
        assert!(
            check(&op.contract, &bad, &targets).is_err(),
            "{} should reject {bad:#?}",
            op.id
        );
        assert!(
            check(&op.contract, &[], &targets).is_err(),
            "{} should reject an empty round",
            op.id
        );
    }
}

#[test]
fn a_rename_satisfies_tool_replacement() {
    let ops = builtin();
    let o2 = find(&ops, "O2").unwrap();
    let rename = [tool(ToolRenamed, "get_forecast")];
    assert_eq!(
        check(&o2.contract, &rename, &["get_forecast".into()]),
        Ok(())
    );
}

#[test]
fn flexible_expansion_rejects_a_required_parameter() {
    let ops = builtin();
    let mut added = param(ParamAdded, "zone");
    added.required = Some(true);
    assert!(
        check(
            &find(&ops, "O5").unwrap().contract,
            &[added],
            &["get_forecast".into()]
        )
        .is_err()
    );
}

#[test]
fn find_accepts_any_spelling_of_an_id() {
    let ops = builtin();
    for id in ["O5", "o5", "O05"] {
        assert_eq!(
            find(&ops, id).map(|o| o.name.as_str()),
            Some("Flexible Expansion"),
            "{id}"
        );
    }
    assert!(find(&ops, "O12").is_none() && find(&ops, "5").is_none() && find(&ops, "O").is_none());
}

#[test]
fn built_in_patterns_are_known_table_10_patterns() {
    let all: BTreeSet<String> = builtin().into_iter().flat_map(|o| o.patterns).collect();
    for p in &all {
        assert!(
            crate::schema::pattern_number(p).is_some_and(|n| (1..=18).contains(&n)),
            "{p}"
        );
    }
}

const GOOD: &str = "+++\nid = \"O12\"\nname = \"X\"\nlevel = \"DESC\"\nsummary = \"s\"\n[contract]\nallow = [\"tool-description-changed\"]\n+++\n\n## Function\n\nText.\n";

#[test]
fn a_user_operator_parses_with_its_body_and_file() {
    let op = parse(GOOD, "mine/O12-x.md").unwrap();
    assert_eq!(
        (op.id.as_str(), op.file.as_str(), op.body.as_str()),
        ("O12", "mine/O12-x.md", "## Function\n\nText.\n")
    );
    assert!(op.contract.targets_only);
}

#[test]
fn a_file_without_front_matter_is_an_error_naming_the_file() {
    let e = parse("# O12\n", "x.md").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.md:1: no front matter: an operator file starts with a `+++` line"
    );
    let e = parse("+++\nid = \"O1\"\n", "x.md").unwrap_err();
    assert!(matches!(e, OperatorError::Unclosed { .. }), "{e}");
}

#[test]
fn bad_toml_is_reported_at_its_line() {
    let e = parse(&GOOD.replace("summary = \"s\"", "summary = s"), "x.md").unwrap_err();
    assert!(e.to_string().starts_with("x.md:5: "), "{e}");
}

#[test]
fn an_unknown_change_kind_is_reported_at_its_line() {
    let e = parse(
        &GOOD.replace("tool-description-changed", "tool-desc-change"),
        "x.md",
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        msg.starts_with("x.md:7: ") && msg.contains("tool-desc-change"),
        "{msg}"
    );
}

#[test]
fn a_missing_contract_is_an_error() {
    let text = GOOD.replace("[contract]\nallow = [\"tool-description-changed\"]\n", "");
    let e = parse(&text, "x.md").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.md:6: the front matter has no [contract] table"
    );
}

#[test]
fn an_id_that_is_not_o_and_a_number_is_an_error() {
    let e = parse(&GOOD.replace("O12", "X1"), "x.md").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.md:2: operator id `X1` is not `O` followed by a number"
    );
}

#[test]
fn two_files_with_the_same_id_in_a_folder_are_an_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), GOOD).unwrap();
    std::fs::write(dir.path().join("b.md"), GOOD.replace("O12", "O012")).unwrap();
    std::fs::write(dir.path().join("README.md"), "not an operator").unwrap();
    let e = load_dir(dir.path()).unwrap_err();
    assert!(matches!(e, OperatorError::Duplicate { .. }), "{e}");
}
