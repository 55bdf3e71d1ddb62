use std::collections::BTreeMap;

use super::*;

fn values(pairs: &[(&'static str, &str)]) -> BTreeMap<&'static str, String> {
    pairs.iter().map(|(k, v)| (*k, v.to_string())).collect()
}

#[test]
fn render_fills_every_placeholder_and_ignores_unused_values() {
    let out = render(
        "Server {{server_name}}: {{ targets }}.\n{{targets}}",
        &values(&[
            ("server_name", "weather"),
            ("targets", "a, b"),
            ("tool", "x"),
        ]),
    );
    assert_eq!(out.unwrap(), "Server weather: a, b.\na, b");
}

#[test]
fn render_does_not_rescan_what_it_inserted() {
    let out = render("{{snippets}}", &values(&[("snippets", "x = {{error}}")]));
    assert_eq!(out.unwrap(), "x = {{error}}");
}

#[test]
fn render_rejects_an_unknown_placeholder_naming_it_and_its_line() {
    let e = render("a\n{{server}}", &values(&[])).unwrap_err();
    assert_eq!(
        e,
        PromptError::Unknown {
            name: "server".into(),
            line: 2
        }
    );
    assert!(
        e.to_string()
            .starts_with("line 2: unknown placeholder {{server}}"),
        "{e}"
    );
}

#[test]
fn render_rejects_a_placeholder_without_a_value() {
    let e = render("{{tool}} and {{error}}", &values(&[("tool", "t")])).unwrap_err();
    assert_eq!(
        e.to_string(),
        "line 1: no value was given for placeholder {{error}}"
    );
}

#[test]
fn javascript_braces_are_not_placeholders() {
    let js = "const s = { a: { b: 1 }};\nf({ x });\n{{ }}\n{{1abc}}\n{{{tool}}}";
    assert_eq!(placeholders(js), vec![("tool".to_string(), 5)]);
}

#[test]
fn placeholders_are_listed_in_order_with_lines() {
    let found = placeholders("{{a}}\n\n x {{b}} {{a}}\n");
    assert_eq!(
        found,
        vec![("a".into(), 1), ("b".into(), 3), ("a".into(), 3)]
    );
}

#[test]
fn sections_end_at_the_next_level_two_heading_outside_fences_and_drop_comments() {
    let md = "# T\n\n## Prompt\n\n### Sub\n<!-- note\n -->\ntext\n```\n## not a heading\n```\n## Function\nf\n";
    let s = sections(md);
    assert_eq!(s.len(), 2);
    assert_eq!((s[0].title.as_str(), s[0].line), ("Prompt", 3));
    assert_eq!(s[0].text, "### Sub\ntext\n```\n## not a heading\n```");
    assert_eq!(s[0].raw.lines().count(), md.lines().skip(3).take(8).count());
    assert_eq!((s[1].title.as_str(), s[1].text.as_str()), ("Function", "f"));
}

#[test]
fn a_template_check_reports_unknown_and_unavailable_placeholders_at_file_lines() {
    let problems = check_template(PromptKind::Feedback, "x\n{{nope}}\n{{error}} {{tool}}", 10);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert_eq!(problems[0].0, 11);
    assert!(problems[0].1.contains("unknown placeholder {{nope}}"));
    assert_eq!(problems[1].0, 12);
    assert!(
        problems[1]
            .1
            .contains("{{tool}} has no value in _feedback.md")
    );
}

#[test]
fn a_selection_prompt_without_the_operator_menu_is_a_problem() {
    let problems = check_template(PromptKind::Select, "{{server_name}}", 1);
    assert_eq!(problems.len(), 1);
    assert!(
        problems[0].1.contains("never uses {{operators}}"),
        "{problems:?}"
    );
}

#[test]
fn the_shared_prompts_render_with_the_values_their_callers_supply() {
    let prompts = builtin_prompts();
    for kind in PromptKind::SHARED {
        let all: BTreeMap<&str, String> = kind
            .supplied()
            .iter()
            .map(|k| (*k, format!("<{k}>")))
            .collect();
        let text = render(prompts.get(kind).unwrap(), &all).unwrap();
        assert!(!text.contains("<!--"), "{kind:?} keeps a comment");
        assert!(
            text.contains(&format!("<{}>", kind.needs().unwrap())),
            "{kind:?}"
        );
    }
}

#[test]
fn the_built_in_feedback_prompt_needs_only_the_error() {
    let text = render(&builtin_prompts().feedback, &values(&[("error", "boom")])).unwrap();
    assert!(text.contains("boom"));
}

#[test]
fn a_contract_in_words_states_each_rule() {
    let ops = crate::operators::builtin();
    let words = contract_words(
        &crate::operators::find(&ops, &crate::operators::OperatorId::parse("O5"))
            .unwrap()
            .contract,
    );
    assert!(
        words.contains("param-added (an input parameter appears)"),
        "{words}"
    );
    assert!(
        words.contains("There must be 1 to 3 param-added."),
        "{words}"
    );
    assert!(words.contains("exactly 1 tool "), "{words}");
    assert!(
        words.contains("Every added parameter is optional."),
        "{words}"
    );
    let o2 = contract_words(
        &crate::operators::find(&ops, &crate::operators::OperatorId::parse("O2"))
            .unwrap()
            .contract,
    );
    assert!(
        o2.contains(
            "either exactly 1 tool-renamed, or exactly 1 tool-removed and exactly 1 tool-added"
        ),
        "{o2}"
    );
}

#[test]
fn a_comment_between_paragraphs_leaves_one_blank_line() {
    let text = "a\n\n<!-- note\nmore -->\n\nb <!-- x -->\n";
    assert_eq!(clean(text, &blank_comments(text)), "a\n\nb");
}
