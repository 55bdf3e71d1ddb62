use super::*;
use crate::schema::Change;

fn change(
    kind: ChangeKind,
    tool: &str,
    param: Option<&str>,
    required: Option<bool>,
) -> SchemaChange {
    // A rename's new name plays no part in a contract.
    let renamed_to = (kind == ChangeKind::ToolRenamed).then(|| format!("{tool}_renamed"));
    let what = Change::from_fields(kind, param.map(str::to_string), required, renamed_to);
    SchemaChange::of(tool, what.unwrap())
}

fn contract(toml_text: &str) -> Contract {
    toml::from_str(toml_text).unwrap()
}

fn targets(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| n.to_string()).collect()
}

const EXPANSION: &str = r#"
    allow = ["param-added"]
    require = [{ kind = "param-added", min = 1, max = 3 }]
    tools = { min = 1, max = 1 }
    added_params = "optional"
"#;

#[test]
fn a_change_of_a_kind_not_allowed_is_named_in_a_sentence() {
    let c = contract(EXPANSION);
    let changes = [
        change(
            ChangeKind::ParamAdded,
            "get_forecast",
            Some("lang"),
            Some(false),
        ),
        change(
            ChangeKind::ParamRemoved,
            "get_forecast",
            Some("city"),
            Some(true),
        ),
    ];
    let why = verify(&c, &changes, &targets(&["get_forecast"])).unwrap_err();
    assert_eq!(
        why,
        [
            "tool `get_forecast`: param-removed `city` is not allowed by this operator (allowed: param-added)"
        ]
    );
}

#[test]
fn an_empty_round_fails_a_contract_that_requires_changes() {
    let why = verify(&contract(EXPANSION), &[], &[]).unwrap_err();
    assert_eq!(
        why,
        ["no change at all, but this operator requires 1 to 3 param-added"]
    );
    assert!(verify(&Contract::default(), &[], &[]).is_ok());
}

#[test]
fn counts_tools_and_optionality_are_all_enforced() {
    let c = contract(EXPANSION);
    let changes: Vec<_> = ["a", "b", "c", "d"]
        .iter()
        .map(|p| {
            change(
                ChangeKind::ParamAdded,
                if *p == "d" { "other" } else { "t" },
                Some(p),
                Some(*p == "a"),
            )
        })
        .collect();
    let why = verify(&c, &changes, &targets(&["t", "other"])).unwrap_err();
    assert_eq!(why.len(), 3, "{why:#?}");
    assert!(why[0].starts_with("expected 1 to 3 param-added, found 4 (tool `t`: param-added `a`;"));
    assert_eq!(
        why[1],
        "the changes touch 2 tools (`other`, `t`), but this operator touches exactly 1 tool"
    );
    assert_eq!(
        why[2],
        "tool `t`: added parameter `a` is required, but this operator adds only optional parameters"
    );
}

#[test]
fn changes_to_tools_outside_the_targets_are_rejected_except_added_tools() {
    let c = Contract::default();
    let changes = [
        change(ChangeKind::ToolAdded, "new_tool", None, None),
        change(ChangeKind::ToolDescriptionChanged, "bystander", None, None),
    ];
    let why = verify(&c, &changes, &targets(&["t"])).unwrap_err();
    assert_eq!(
        why,
        [
            "tool `bystander` is not a target of this round (targets: `t`), yet it has tool-description-changed"
        ]
    );
    let relaxed = Contract {
        targets_only: false,
        ..Contract::default()
    };
    assert!(verify(&relaxed, &changes, &[]).is_ok());
}

#[test]
fn require_any_holds_when_one_group_holds_in_full() {
    let c = contract(
        r#"require_any = [[{ kind = "tool-renamed", max = 1 }],
                          [{ kind = "tool-removed", max = 1 }, { kind = "tool-added", max = 1 }]]"#,
    );
    let t = targets(&["old"]);
    let rename = [change(ChangeKind::ToolRenamed, "old", None, None)];
    let swap = [
        change(ChangeKind::ToolAdded, "new", None, None),
        change(ChangeKind::ToolRemoved, "old", None, None),
    ];
    assert!(verify(&c, &rename, &t).is_ok());
    assert!(verify(&c, &swap, &t).is_ok());
    let half = [change(ChangeKind::ToolRemoved, "old", None, None)];
    let why = verify(&c, &half, &t).unwrap_err();
    assert_eq!(
        why,
        [
            "expected one of: exactly 1 tool-renamed; or exactly 1 tool-removed and exactly 1 tool-added; \
          found 0 tool-added, 1 tool-removed, 0 tool-renamed"
        ]
    );
}

#[test]
fn unknown_fields_and_kinds_in_a_contract_are_errors() {
    assert!(toml::from_str::<Contract>(r#"allow = ["param-add"]"#).is_err());
    assert!(toml::from_str::<Contract>(r#"alow = ["param-added"]"#).is_err());
    assert!(toml::from_str::<Contract>(r#"added_params = "maybe""#).is_err());
}
