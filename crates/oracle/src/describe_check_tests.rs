//! Each defect of the description check on a tool list of its own, and honest changes passed.

use serde_json::{Value, json};

use super::*;
use mcpevol_core::listed::listed;
use mcpevol_core::schema;

const SEARCH: &str =
    "Performs a web search using the engine. Returns up to 10 results, 30 seconds at most.";

fn tool(name: &str, description: &str, params: Value) -> Value {
    json!({ "name": name, "description": description, "inputSchema": { "type": "object", "properties": params } })
}

fn query(description: &str) -> Value {
    json!({ "query": { "type": "string", "description": description }, "limit": { "type": "integer" } })
}

fn before() -> Vec<Value> {
    vec![
        tool(
            "web_search",
            SEARCH,
            query("What to search for, in plain words"),
        ),
        tool("read_graph", "Read the entire knowledge graph.", json!({})),
    ]
}

/// The violations of changing `web_search`'s description to `new` under `op`.
fn judged(new: &str, op: Builtin) -> Vec<Defect> {
    judged_lists(
        before(),
        vec![
            tool(
                "web_search",
                new,
                query("What to search for, in plain words"),
            ),
            before()[1].clone(),
        ],
        op,
    )
}

fn judged_lists(previous: Vec<Value>, current: Vec<Value>, op: Builtin) -> Vec<Defect> {
    let (previous, current) = (listed(previous), listed(current));
    let changes = schema::diff(&previous, &current);
    match check(&previous, &current, &changes, Some(op)) {
        Ok(()) => Vec::new(),
        Err(v) => v.0.into_iter().map(|v| v.defect).collect(),
    }
}

#[test]
fn a_description_replaced_by_a_pointer_is_refused_where_the_operator_keeps_it() {
    let got = judged(
        ". Also available as `web_search_compat`, which behaves the same.",
        Builtin::ToolIntegration,
    );
    assert!(got.contains(&Defect::Replaced), "{got:?}");
    assert!(got.contains(&Defect::LostFact("10".into())), "{got:?}");
}

#[test]
fn a_pointer_added_to_the_original_passes() {
    let new = format!("{SEARCH} Also available as `web_search_compat`, which behaves the same.");
    assert_eq!(judged(&new, Builtin::ToolIntegration), []);
}

#[test]
fn an_emptied_description_is_refused() {
    assert_eq!(
        judged("", Builtin::ToolDescriptionUpdate),
        [Defect::Emptied]
    );
}

#[test]
fn a_rewrite_that_drops_a_number_or_a_unit_is_refused() {
    let got = judged(
        "Performs a web search using the engine. Returns a few results, quickly.",
        Builtin::ToolDescriptionUpdate,
    );
    assert!(got.contains(&Defect::LostFact("10".into())), "{got:?}");
    assert!(got.contains(&Defect::LostFact("seconds".into())), "{got:?}");
}

#[test]
fn a_rewrite_that_keeps_little_of_the_original_is_refused() {
    let got = judged(
        "Looks things up online and returns 10 results within 30 seconds.",
        Builtin::ToolDescriptionUpdate,
    );
    assert!(got.contains(&Defect::Lost), "{got:?}");
}

#[test]
fn a_description_made_the_same_as_another_tools_is_refused() {
    let got = judged(
        "Read the entire knowledge graph.",
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::Duplicate("read_graph".into())),
        "{got:?}"
    );
}

#[test]
fn repeated_words_and_broken_punctuation_are_refused() {
    let got = judged(
        &format!("{SEARCH} It takes the the `query`. ."),
        Builtin::ToolDescriptionUpdate,
    );
    assert!(got.contains(&Defect::RepeatedWord("the".into())), "{got:?}");
    assert!(
        got.contains(&Defect::BrokenPunctuation(". .".into())),
        "{got:?}"
    );
    let got = judged(
        &format!("{SEARCH} It takes `query`,."),
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::BrokenPunctuation(",.".into())),
        "{got:?}"
    );
}

#[test]
fn unbalanced_backticks_quotes_and_brackets_are_refused() {
    for (added, c) in [
        ("It takes `query.", '`'),
        ("It takes \"query.", '"'),
        ("It takes (query.", '('),
    ] {
        let got = judged(&format!("{SEARCH} {added}"), Builtin::ToolDescriptionUpdate);
        assert!(got.contains(&Defect::Unbalanced(c)), "{added}: {got:?}");
    }
}

#[test]
fn the_formula_phrases_are_refused() {
    let got = judged(
        &format!("{SEARCH} Use `web_search` to web search."),
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::Formula("Use `web_search` to web search".into())),
        "{got:?}"
    );
    let got = judged(
        &format!("[Web search] {SEARCH}"),
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::Formula("[Web search]".into())),
        "{got:?}"
    );
    let got = judged(
        &format!("Web search. {SEARCH}"),
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::Formula("Web search".into())),
        "{got:?}"
    );
    let previous = before();
    let mut current = before();
    current[1]["description"] =
        json!("Read graph. Read the entire knowledge graph. Takes no parameters.");
    let got = judged_lists(previous, current, Builtin::ToolDescriptionUpdate);
    assert!(
        got.contains(&Defect::Formula("Takes no parameters".into())),
        "{got:?}"
    );
}

#[test]
fn a_parameter_described_by_its_own_name_is_refused() {
    let previous = before();
    let mut current = before();
    current[0]["inputSchema"]["properties"]["limit"]["description"] =
        json!("Required integer: the limit.");
    let (previous, current) = (listed(previous), listed(current));
    let changes = schema::diff(&previous, &current);
    let got = check(
        &previous,
        &current,
        &changes,
        Some(Builtin::ParameterDescriptionUpdate),
    )
    .unwrap_err()
    .0;
    assert_eq!(got[0].param.as_deref(), Some("limit"));
    assert!(matches!(got[0].defect, Defect::Formula(_)), "{got:?}");
}

#[test]
fn a_flattened_multi_line_description_is_refused() {
    let lines = "Think step by step.\n\nWhen to use:\n- planning\n- analysis";
    let previous = vec![tool("think", lines, json!({}))];
    let flat = "Think step by step. When to use: planning, analysis. It answers with JSON text.";
    let got = judged_lists(
        previous.clone(),
        vec![tool("think", flat, json!({}))],
        Builtin::ToolDescriptionUpdate,
    );
    assert!(
        got.contains(&Defect::Flattened {
            before: 5,
            after: 1
        }),
        "{got:?}"
    );
    let kept = format!("{lines}\n\nIt answers with JSON text.");
    assert_eq!(
        judged_lists(
            previous,
            vec![tool("think", &kept, json!({}))],
            Builtin::ToolDescriptionUpdate
        ),
        []
    );
}

#[test]
fn a_too_short_new_tool_description_is_refused_and_a_full_alias_passes() {
    let previous = before();
    let mut current = before();
    current.push(tool(
        "web_search_alias",
        "Alias.",
        query("What to search for, in plain words"),
    ));
    assert_eq!(
        judged_lists(previous.clone(), current.clone(), Builtin::ToolAddition),
        [Defect::TooShort]
    );
    current[2]["description"] = json!(format!(
        "Alias of `web_search`: it behaves exactly as `web_search` does. {SEARCH}"
    ));
    assert_eq!(judged_lists(previous, current, Builtin::ToolAddition), []);
}

#[test]
fn a_removed_parameter_may_leave_the_description_and_others_may_not() {
    let previous = vec![tool(
        "web_search",
        "Search. Pass `limit` to cap the `query` results.",
        query("q"),
    )];
    let mut without = tool(
        "web_search",
        "Search. Pass the `query`. The `limit` parameter was removed.",
        json!({ "query": { "type": "string", "description": "q" } }),
    );
    assert_eq!(
        judged_lists(
            previous.clone(),
            vec![without.clone()],
            Builtin::InterfaceRefactoring
        ),
        []
    );
    without["description"] = json!("Search. Pass a thing to cap the results.");
    let got = judged_lists(previous, vec![without], Builtin::InterfaceRefactoring);
    assert!(got.contains(&Defect::LostFact("`query`".into())), "{got:?}");
}

#[test]
fn defects_the_original_already_had_are_not_held_against_a_change() {
    let odd = "Search the the web (beta . Returns 10 results";
    let previous = vec![tool("web_search", odd, json!({}))];
    let current = vec![tool(
        "web_search",
        &format!("{odd}. It answers with JSON text."),
        json!({}),
    )];
    assert_eq!(
        judged_lists(previous, current, Builtin::ToolDescriptionUpdate),
        []
    );
}

#[test]
fn violations_read_as_one_sentence_each() {
    let v = Violation {
        tool: "web_search".into(),
        param: Some("query".into()),
        defect: Defect::LostFact("10".into()),
    };
    assert_eq!(
        v.to_string(),
        "the description of `web_search`.`query` lost `10`, which the original stated"
    );
}

#[test]
fn an_alias_copies_its_originals_defects_without_being_refused_for_them() {
    let odd = "Search, e.g., the web (beta .";
    let previous = vec![tool("web_search", odd, query("Words; e.g., milk"))];
    let mut current = previous.clone();
    let alias = format!("Alias of `web_search`: it behaves exactly as `web_search` does. {odd}");
    current.push(tool("web_search_alias", &alias, query("Words; e.g., milk")));
    assert_eq!(
        judged_lists(previous.clone(), current.clone(), Builtin::ToolAddition),
        []
    );
    // Its own new words are still judged.
    current[1]["description"] = json!(format!("{alias} It takes `query`,."));
    let got = judged_lists(previous, current, Builtin::ToolAddition);
    assert_eq!(got, [Defect::BrokenPunctuation(",.".into())]);
}

/// Found on a held-out server: "max 512KB per request" states the unit against its number.
#[test]
fn a_unit_written_against_its_number_is_kept_by_an_added_sentence() {
    let old = "Read a range of bytes (max 512KB per request).";
    let previous = vec![tool("read_bytes", old, json!({}))];
    let current = vec![tool(
        "read_bytes",
        &format!("{old} It answers with JSON text."),
        json!({}),
    )];
    assert_eq!(
        judged_lists(previous.clone(), current, Builtin::ToolDescriptionUpdate),
        []
    );
    let current = vec![tool(
        "read_bytes",
        "Read a range of bytes (max 512 per request).",
        json!({}),
    )];
    let got = judged_lists(previous, current, Builtin::ToolDescriptionUpdate);
    assert!(got.contains(&Defect::LostFact("kb".into())), "{got:?}");
}
