//! Tests of `defaults.rs`: which defaults are declared, and how they are written.

use super::*;
use mcpevol_core::inventory::ParamShape;

fn shape(values: &[&str], min: Option<&str>, max: Option<&str>) -> ParamShape {
    ParamShape {
        values: values.iter().map(|v| v.to_string()).collect(),
        min: min.map(str::to_string),
        max: max.map(str::to_string),
        ..ParamShape::default()
    }
}

#[test]
fn a_default_is_a_value_the_parameter_accepts_written_as_javascript() {
    let enum_of = |v: &[&str]| default_for(Some("enum"), &shape(v, None, None));
    assert_eq!(enum_of(&["ft", "m"]).as_deref(), Some("\"ft\""));
    // z.enum takes strings only, digits or not.
    assert_eq!(enum_of(&["1", "2"]).as_deref(), Some("\"1\""));
    let number = |min, max| default_for(Some("number"), &shape(&[], min, max));
    assert_eq!(number(Some("2"), Some("10")).as_deref(), Some("2"));
    assert_eq!(number(None, None).as_deref(), Some("1"));
    assert_eq!(number(None, Some("0.5")).as_deref(), Some("0.5"));
    assert_eq!(
        default_for(Some("boolean"), &ParamShape::default()).as_deref(),
        Some("false")
    );
    assert_eq!(default_for(Some("string"), &ParamShape::default()), None);
}

#[test]
fn a_stated_default_of_a_string_enum_is_written_quoted() {
    let choices = shape(&["npm", "yarn"], None, None);
    assert_eq!(
        literal(Some("string"), &choices, "npm").as_deref(),
        Some("\"npm\"")
    );
    assert_eq!(literal(None, &choices, "yarn").as_deref(), Some("\"yarn\""));
    let sizes = shape(&["1", "2"], None, None);
    assert_eq!(literal(Some("integer"), &sizes, "2").as_deref(), Some("2"));
    assert_eq!(literal(Some("string"), &choices, "pnpm"), None);
}

#[test]
fn another_default_is_a_different_value_the_parameter_accepts() {
    let other = |ty, v: &[&str], min, max, old| other_default(Some(ty), &shape(v, min, max), old);
    assert_eq!(
        other("enum", &["a", "b", "c"], None, None, "c").as_deref(),
        Some("\"a\"")
    );
    assert_eq!(other("enum", &["a", "b"], None, None, "z"), None);
    assert_eq!(
        other("boolean", &[], None, None, "true").as_deref(),
        Some("false")
    );
    assert_eq!(
        other("number", &[], None, Some("100"), "10").as_deref(),
        Some("20")
    );
    // Doubled it would pass the bound: halved.
    assert_eq!(
        other("number", &[], None, Some("15"), "10").as_deref(),
        Some("5")
    );
    assert_eq!(other("number", &[], Some("1"), Some("1"), "1"), None);
    assert_eq!(
        other("number", &[], None, None, "0.5").as_deref(),
        Some("1")
    );
    assert_eq!(other("string", &[], None, None, "utf8"), None);
}

#[test]
fn only_a_plain_literal_default_is_found_in_a_chain() {
    let at = |chain: &str| default_argument(chain).map(|(a, b)| chain[a..b].to_string());
    assert_eq!(
        at("z.number().default(10).describe(\"n\")").as_deref(),
        Some("10")
    );
    assert_eq!(at("z.enum([\"a\"]).default( 'a' )").as_deref(), Some("'a'"));
    assert_eq!(
        at("z.boolean().optional().default(false)").as_deref(),
        Some("false")
    );
    assert_eq!(at("z.number().default(LIMIT + 1)"), None);
    assert_eq!(at("z.string().default(`${x}`)"), None);
    assert_eq!(at("z.number().describe(\"n\")"), None);
}

#[test]
fn the_default_a_description_states_is_read_as_a_value_of_the_parameters_type() {
    let read = stated_default;
    assert_eq!(read("Results per page (default 10)."), Some("10"));
    assert_eq!(read("Output format. Defaults to `json`."), Some("json"));
    assert_eq!(read("Default: false"), Some("false"));
    assert_eq!(read("The default value is 2.5"), Some("2.5"));
    assert_eq!(read("Maximum depth"), None);
    let number = shape(&[], Some("1"), Some("50"));
    assert_eq!(
        literal(Some("number"), &number, "10").as_deref(),
        Some("10")
    );
    assert_eq!(literal(Some("number"), &number, "100"), None);
    assert_eq!(literal(Some("number"), &number, "the"), None);
    let formats = shape(&["json", "text"], None, None);
    assert_eq!(
        literal(Some("enum"), &formats, "json").as_deref(),
        Some("\"json\"")
    );
    assert_eq!(literal(Some("enum"), &formats, "xml"), None);
    assert_eq!(
        literal(Some("boolean"), &shape(&[], None, None), "no"),
        None
    );
    // A free text has no value that could stand for every call.
    assert_eq!(
        literal(Some("string"), &shape(&[], None, None), "utf8"),
        None
    );
}

#[test]
fn a_description_that_states_the_default_is_seen() {
    assert!(states("Results per page (default 10).", "10"));
    assert!(states("Defaults to json.", "json"));
    assert!(!states("At most 100 results", "10"));
}
