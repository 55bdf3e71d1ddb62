//! Tests of operator files: the built-in ones, user ones, contracts, prompts, and the menu.
//!
//! Over 500 lines on purpose: the file format has many rules (front matter fields, contract
//! kinds, placeholders, sections), each tested with a good and a bad file that share the
//! helpers here; split by rule, the helpers would be scattered.

use std::collections::{BTreeMap, BTreeSet};

use super::*;
use crate::contract::verify;
use crate::schema::{Change, ChangeKind, ChangeKind::*, SchemaChange};

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
fn every_built_in_operator_file_parses_with_its_four_sections() {
    let ops = builtin();
    assert_eq!(ops.len(), 11);
    for op in &ops {
        assert!(
            op.body.contains("\n## Function\n"),
            "{} lacks ## Function",
            op.file
        );
        assert!(
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
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
        for (name, text) in [
            ("Prompt", &op.prompt),
            ("Examples", &op.examples),
            ("Function", &op.function),
            ("Instructions", &op.instructions),
        ] {
            assert!(!text.is_empty(), "{} has an empty ## {name}", op.file);
        }
        assert!(op.instructions.contains("<<<<<<< SEARCH"), "{}", op.file);
        assert!(op.examples.contains(">>>>>>> REPLACE"), "{}", op.file);
    }
}

#[test]
fn built_in_ids_are_o1_to_o11_in_order_and_unique() {
    let ids: Vec<String> = builtin().into_iter().map(|o| o.id.to_string()).collect();
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
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("operators");
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
        let (good, bad, targets) = cases(&op.id.to_string());
        let targets: Vec<String> = targets.iter().map(|t| t.to_string()).collect();
        assert_eq!(
            verify(&op.contract, &good, &targets),
            Ok(()),
            "{} should accept {good:#?}",
            op.id
        );
        assert!(
            verify(&op.contract, &bad, &targets).is_err(),
            "{} should reject {bad:#?}",
            op.id
        );
        assert!(
            verify(&op.contract, &[], &targets).is_err(),
            "{} should reject an empty round",
            op.id
        );
    }
}

#[test]
fn a_rename_satisfies_tool_replacement() {
    let ops = builtin();
    let o2 = find(&ops, &OperatorId::parse("O2")).unwrap();
    let rename = [tool(ToolRenamed, "get_forecast")];
    assert_eq!(
        verify(&o2.contract, &rename, &["get_forecast".into()]),
        Ok(())
    );
}

#[test]
fn flexible_expansion_rejects_a_required_parameter() {
    let ops = builtin();
    let added = change(ParamAdded, "get_forecast", Some("zone"), Some(true));
    assert!(
        verify(
            &find(&ops, &OperatorId::parse("O5")).unwrap().contract,
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
            find(&ops, &OperatorId::parse(id)).map(|o| o.name.as_str()),
            Some("Flexible Expansion"),
            "{id}"
        );
    }
    assert!(
        find(&ops, &OperatorId::parse("O12")).is_none()
            && find(&ops, &OperatorId::parse("5")).is_none()
            && find(&ops, &OperatorId::parse("O")).is_none()
    );
}

#[test]
fn built_in_patterns_are_known_table_10_patterns() {
    let all: BTreeSet<crate::schema::Pattern> =
        builtin().into_iter().flat_map(|o| o.patterns).collect();
    for p in &all {
        assert!((1..=18).contains(&p.number()), "{p}");
    }
}

/// A user operator: lines 2 (id) to 7 (allow) are front matter, 14 is `## Prompt`, 16 its text.
const GOOD: &str = "+++\nid = \"O12\"\nname = \"X\"\nlevel = \"DESC\"\nsummary = \"s\"\n[contract]\nallow = [\"tool-description-changed\"]\n+++\n\n## Function\n\nText.\n\n## Prompt\n\nDo {{operator_name}} on {{targets}}: {{function}}\n";

fn messages(problems: &[CheckProblem]) -> Vec<String> {
    problems.iter().map(ToString::to_string).collect()
}

/// The problems of `text` checked as the file `name` of a fresh folder, as `name:line: ...`.
fn problems_of(name: &str, text: &str) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, text).unwrap();
    let problems = check_path(&path).expect_err("the file should be rejected");
    let prefix = format!("{}:", path.display());
    messages(&problems)
        .into_iter()
        .map(|m| m.replacen(&prefix, &format!("{name}:"), 1))
        .collect()
}

#[test]
fn a_user_operator_parses_with_its_body_sections_and_file() {
    let op = parse(GOOD, "mine/O12-x.md").unwrap();
    assert_eq!((op.id.as_str(), op.file.as_str()), ("O12", "mine/O12-x.md"));
    assert!(op.body.starts_with("## Function\n\nText.\n"), "{}", op.body);
    assert_eq!(
        (op.function.as_str(), op.prompt.as_str()),
        ("Text.", "Do {{operator_name}} on {{targets}}: {{function}}")
    );
    assert!(op.contract.targets_only);
}

#[test]
fn a_mutation_prompt_fills_its_sections_and_defaults_to_its_own_name() {
    let op = parse(GOOD, "x.md").unwrap();
    let values = BTreeMap::from([("targets", "get_forecast".to_string())]);
    assert_eq!(
        op.mutation_prompt(&values).unwrap(),
        "Do X on get_forecast: Text."
    );
}

#[test]
fn every_built_in_mutation_prompt_renders_with_the_values_evolve_supplies() {
    for op in builtin() {
        let values: BTreeMap<&str, String> = crate::prompt::PromptKind::Mutation
            .supplied()
            .iter()
            .filter(|k| !crate::prompt::SECTIONS.contains(k))
            .map(|k| (*k, format!("<{k}>")))
            .collect();
        let text = op.mutation_prompt(&values).unwrap();
        for k in values.keys() {
            assert!(
                text.contains(&format!("<{k}>")),
                "{} never shows {k}",
                op.id
            );
        }
        assert!(
            text.contains(&op.function) && text.contains("<<<<<<< SEARCH"),
            "{}",
            op.id
        );
        assert!(!text.contains("{{") && !text.contains("<!--"), "{}", op.id);
    }
}

#[test]
fn every_built_in_operator_and_prompt_file_passes_the_check() {
    let dir = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("operators");
    let ops = check_path(&dir).unwrap_or_else(|p| panic!("{}", messages(&p).join("\n")));
    assert_eq!(ops.len(), 11);
    for name in [
        "_select.md",
        "_feedback.md",
        "_tests.md",
        "_release.md",
        "O05-flexible-expansion.md",
    ] {
        check_path(&dir.join(name)).unwrap_or_else(|p| panic!("{}", messages(&p).join("\n")));
    }
}

#[test]
fn a_file_without_front_matter_is_an_error_naming_the_file() {
    let e = parse("# O12\n", "x.md").unwrap_err();
    assert_eq!(
        e.to_string(),
        "x.md:1: no front matter: an operator file starts with a `+++` line"
    );
    let e = parse("+++\nid = \"O1\"\n", "x.md").unwrap_err();
    assert!(e.to_string().contains("not closed by a `+++` line"), "{e}");
}

#[test]
fn malformed_front_matter_is_reported_at_its_line() {
    let e = problems_of("u.md", &GOOD.replace("summary = \"s\"", "summary = s"));
    assert!(
        e.len() == 1 && e[0].starts_with("u.md:5: front matter: "),
        "{e:?}"
    );
    let e = problems_of(
        "u.md",
        &GOOD.replace("level = \"DESC\"", "level = \"DESC\"\ncolour = \"red\""),
    );
    assert!(
        e.len() == 1 && e[0].starts_with("u.md:5: ") && e[0].contains("colour"),
        "{e:?}"
    );
}

#[test]
fn an_unknown_change_kind_is_reported_at_its_line() {
    let e = problems_of(
        "u.md",
        &GOOD.replace("tool-description-changed", "tool-desc-change"),
    );
    assert!(
        e[0].starts_with("u.md:7: ") && e[0].contains("tool-desc-change"),
        "{e:?}"
    );
}

#[test]
fn a_missing_contract_is_reported_at_the_closing_fence() {
    let e = problems_of(
        "u.md",
        &GOOD.replace("[contract]\nallow = [\"tool-description-changed\"]\n", ""),
    );
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("u.md:6: the front matter has no [contract] table"),
        "{e:?}"
    );
}

#[test]
fn a_missing_prompt_section_is_reported_at_the_end_of_the_file() {
    let text = GOOD.split("\n## Prompt").next().unwrap();
    let e = problems_of("u.md", text);
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].starts_with("u.md:12: no `## Prompt` section"), "{e:?}");
}

#[test]
fn an_unknown_placeholder_is_reported_at_its_line() {
    let e = problems_of("u.md", &GOOD.replace("{{targets}}", "{{target}}"));
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].starts_with("u.md:16: unknown placeholder {{target}}"),
        "{e:?}"
    );
}

#[test]
fn a_placeholder_the_mutation_prompt_has_no_value_for_is_reported() {
    let e = problems_of("u.md", &GOOD.replace("{{targets}}", "{{operators}}"));
    assert!(
        e.len() == 1 && e[0].starts_with("u.md:16: placeholder {{operators}} has no value"),
        "{e:?}"
    );
}

#[test]
fn a_section_placeholder_needs_its_section_and_cannot_be_nested() {
    let e = problems_of("u.md", &GOOD.replace("{{function}}", "{{examples}}"));
    assert!(
        e.len() == 1
            && e[0].starts_with("u.md:16: {{examples}} is used but the file has no `## Examples`"),
        "{e:?}"
    );
    let e = problems_of("u.md", &GOOD.replace("Text.", "Text {{instructions}}."));
    assert!(
        e.len() == 1 && e[0].starts_with("u.md:12: {{instructions}} belongs in `## Prompt`"),
        "{e:?}"
    );
}

#[test]
fn every_problem_of_a_file_is_reported_in_one_check() {
    let text = GOOD
        .replace("id = \"O12\"", "id = \"1-bad\"")
        .replace("Text.", "Text {{nope}}.")
        .replace("{{targets}}", "{{targetz}}");
    let e = problems_of("u.md", &text);
    let lines: Vec<&str> = e.iter().map(|m| m.split(": ").next().unwrap()).collect();
    assert_eq!(lines, ["u.md:2", "u.md:12", "u.md:16"], "{e:?}");
    assert!(
        e[0].contains("operator id `1-bad` is not a letter"),
        "{e:?}"
    );
}

#[test]
fn an_unknown_shared_prompt_file_and_a_bad_one_are_reported() {
    let e = problems_of("_other.md", "hello");
    assert!(
        e[0].starts_with("_other.md:1: files starting with `_` are shared prompts"),
        "{e:?}"
    );
    let e = problems_of("_feedback.md", "<!-- {{tool}} -->\nFix it:\n{{schema}}\n");
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].starts_with("_feedback.md:1: _feedback.md never uses {{error}}"),
        "{e:?}"
    );
    assert!(
        e[1].starts_with("_feedback.md:3: placeholder {{schema}} has no value"),
        "{e:?}"
    );
}

#[test]
fn two_files_with_the_same_id_in_a_folder_are_reported_with_both_files() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.md"), GOOD).unwrap();
    std::fs::write(dir.path().join("b.md"), GOOD.replace("O12", "o012")).unwrap();
    std::fs::write(dir.path().join("README.md"), "not an operator").unwrap();
    let e = messages(&check_path(dir.path()).unwrap_err());
    let a = dir.path().join("a.md").display().to_string();
    let b = dir.path().join("b.md").display().to_string();
    assert_eq!(
        e,
        [format!(
            "{b}:2: operator id `o012` is already defined in {a}:2"
        )]
    );
    assert!(matches!(
        load_dir(dir.path()),
        Err(OperatorError::Invalid(_))
    ));
}

#[test]
fn a_user_file_reusing_a_built_in_id_is_rejected_naming_both_files() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("mine.md");
    std::fs::write(&mine, GOOD.replace("O12", "O5")).unwrap();
    let e = load_all(&[dir.path().to_path_buf()])
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(&format!("{}:2: ", mine.display())), "{e}");
    assert!(
        e.contains("clashes with built-in operator O5 Flexible Expansion (operators/O05-flexible-expansion.md)"),
        "{e}"
    );
    assert!(check_path(&mine).is_err());
}

#[test]
fn load_all_puts_user_operators_after_the_built_ins_sorted_by_id() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("b.md"), GOOD.replace("O12", "X-myop")).unwrap();
    std::fs::write(dir.path().join("a.md"), GOOD.replace("O12", "U1")).unwrap();
    let ops = load_all(&[dir.path().to_path_buf()]).unwrap();
    let ids: Vec<&str> = ops.iter().map(|o| o.id.as_str()).collect();
    assert_eq!(
        ids[..11],
        builtin().iter().map(|o| o.id.as_str()).collect::<Vec<_>>()[..]
    );
    assert_eq!(ids[11..], ["U1", "X-myop"]);
    assert_eq!(
        find(&ops, &OperatorId::parse("u1")).map(|o| o.id.as_str()),
        Some("U1")
    );
}

#[test]
fn load_all_with_one_user_operator_lists_twelve_and_the_repository_folder_adds_none() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("u1.md"), GOOD.replace("O12", "U1")).unwrap();
    let repo =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("operators");
    let ops = load_all(&[dir.path().to_path_buf(), repo]).unwrap();
    assert_eq!(ops.len(), 12);
    assert!(load_all(&[dir.path().join("missing")]).is_err());
}

#[test]
fn the_template_passes_the_check_as_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("U7-mine.md");
    std::fs::write(&path, template("U7", "My \"Op\"")).unwrap();
    let ops = check_path(&path).unwrap_or_else(|p| panic!("{}", messages(&p).join("\n")));
    assert_eq!(
        (ops[0].id.as_str(), ops[0].name.as_str()),
        ("U7", "My 'Op'")
    );
    assert!(!ops[0].prompt.contains("<!--") && !ops[0].function.is_empty());
    let values: BTreeMap<&str, String> = crate::prompt::PromptKind::Mutation
        .supplied()
        .iter()
        .map(|k| (*k, String::new()))
        .collect();
    assert!(ops[0].mutation_prompt(&values).is_ok());
}

#[test]
fn the_documented_example_operator_passes_the_check() {
    let dir =
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../..")).join("docs/operators");
    let ops = check_path(&dir).unwrap_or_else(|p| panic!("{}", messages(&p).join("\n")));
    assert_eq!(
        ops.iter().map(|o| o.id.as_str()).collect::<Vec<_>>(),
        ["U1"]
    );
    assert_eq!(load_all(&[dir]).unwrap().len(), 12);
}

#[test]
fn user_prompt_files_replace_the_built_in_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("_feedback.md"),
        "<!-- mine -->\nNo: {{error}}\n",
    )
    .unwrap();
    let prompts = load_prompts(&[dir.path().to_path_buf()]).unwrap();
    assert_eq!(prompts.feedback, "No: {{error}}");
    assert_eq!(prompts.select, crate::prompt::builtin_prompts().select);
    std::fs::write(dir.path().join("_tests.md"), "no schema here").unwrap();
    assert!(load_prompts(&[dir.path().to_path_buf()]).is_err());
}

#[test]
fn ids_are_a_letter_then_letters_digits_underscores_or_hyphens() {
    for ok in ["U1", "X-myop", "o5", "a_b"] {
        assert!(valid_id(ok), "{ok}");
    }
    for bad in ["1X", "", "-a", "my op", "é1"] {
        assert!(!valid_id(bad), "{bad}");
    }
    assert!(
        OperatorId::parse("O05") == OperatorId::parse("o5")
            && OperatorId::parse("U1") == OperatorId::parse("u1")
            && OperatorId::parse("U1") != OperatorId::parse("U10")
    );
}

#[test]
fn the_menu_a_model_chooses_from_has_one_line_per_operator_with_its_level_and_summary() {
    let lines: Vec<String> = builtin().iter().map(Operator::menu_line).collect();
    assert_eq!(lines.len(), 11);
    assert!(
        lines.contains(&"- O5 Flexible Expansion (PARAM): Adds one to three optional parameters to one tool, keeping its old behaviour as the default.".to_string()),
        "{lines:#?}"
    );
    assert!(lines.iter().all(|l| !l.contains('\n')));
}
