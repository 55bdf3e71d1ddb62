//! Required status of parameters of a JSON schema written in JavaScript, which the SDK neither
//! checks nor fills in: a promotion (P13) names an optional parameter in the schema's
//! `required` list and refuses calls without it before the handler runs; a demotion takes a
//! required one out of the list, declares its `default`, and hands the handler that value where
//! a call leaves it out. (Zod shapes do both by themselves: `defaults.rs`.)

use std::path::Path;

use tree_sitter::Node;

use super::MutateError;
use super::around::Around;
use super::defaults::{default_for, promotable_param, says_optional};
use super::dialect::dialect_of;
use super::splice::{Edits, append_entry, item_range};
use mcpevol_anchor::grammar::Lang;
use mcpevol_core::inventory::{ParamSite, SchemaSite, Span, Tool};

/// The JSON schema of `tool` when it is written in JavaScript and its handler too: the one
/// form whose `required` list only a handler's own code keeps.
fn json_schema(tool: &Tool) -> Result<&SchemaSite, &'static str> {
    let schema =
        (tool.sites.schema.as_ref()).ok_or("its input schema is not written out literally")?;
    if !schema.json || schema.python.is_some() || schema.json_root.is_none() {
        return Err("its input schema is not a JSON schema object written in JavaScript");
    }
    let handler = tool.handler.as_ref().ok_or("its handler was not found")?;
    if !dialect_of(&handler.file).writes_zod() || !dialect_of(&schema.object.file).writes_zod() {
        return Err("its schema or handler is not JavaScript or TypeScript");
    }
    Ok(schema)
}

/// Whether a parameter's name says it picks one thing out (`id`, `issue_number`, `index`):
/// no default could stand for every call.
fn identifies(name: &str) -> bool {
    let words = mcpevol_core::words::words(name);
    (words.iter()).any(|w| {
        ["id", "ids", "uid", "uuid", "number", "num", "index", "key"].contains(&w.as_str())
    })
}

/// A required parameter of `tool`'s JSON schema that can be given a default, with the default
/// as a JS literal (as `defaults::demotable` chooses one for zod).
pub(super) fn demotable(tool: &Tool) -> Result<(&ParamSite, String), &'static str> {
    let schema = json_schema(tool)?;
    for site in &schema.params {
        let Some(param) = tool
            .params
            .iter()
            .find(|p| p.name == site.name && p.required)
        else {
            continue;
        };
        if identifies(&param.name) {
            continue;
        }
        if let Some(value) = default_for(param.ty.as_deref(), &param.shape) {
            return Ok((site, value));
        }
    }
    Err("no required enum, number or boolean parameter in its JSON schema")
}

/// An optional plain parameter of `tool`'s JSON schema (no default, no object) whose words do
/// not say it may be left out.
pub(super) fn promotable(tool: &Tool) -> Result<&ParamSite, &'static str> {
    let schema = json_schema(tool)?;
    if says_optional(tool.description.as_deref()) {
        return Err("its description says what happens when a parameter is left out");
    }
    for site in &schema.params {
        let optional = (tool.params.iter()).find(|p| p.name == site.name && !p.required);
        if optional.is_some_and(promotable_param) {
            return Ok(site);
        }
    }
    Err("no plain optional parameter in its JSON schema whose description allows it to be required")
}

/// The `required` entry of the schema object `root`, as written: its array's items (strings)
/// and where the array and the object's last entry lie.
struct RequiredList {
    /// The array literal, when the entry is there.
    array: Option<(usize, usize)>,
    /// Each item: its text without quotes, and its span.
    items: Vec<(String, (usize, usize))>,
    /// The object's last entry, for a new `required` after it.
    last_entry: Option<(usize, usize)>,
    /// Whether the object's keys are written quoted (`"properties": ...`).
    quoted_keys: bool,
}

fn unquote(s: &str) -> &str {
    s.trim_matches(['"', '\'', '`'])
}

/// Reads the `required` entry of the object literal at `root`.
fn required_list(text: &str, file: &Path, root: &Span) -> Result<RequiredList, &'static str> {
    let lang =
        Lang::for_path(file).ok_or("its schema is not in a JavaScript or TypeScript file")?;
    let tree = mcpevol_anchor::parse(text, lang).ok_or("its schema's file does not parse")?;
    let (start, end) = root.bytes;
    let mut node: Option<Node> = tree.root_node().descendant_for_byte_range(start, end);
    while let Some(n) = node {
        if n.kind() == "object" && n.start_byte() == start && n.end_byte() == end {
            break;
        }
        node = n
            .parent()
            .filter(|p| p.start_byte() >= start && p.end_byte() <= end);
    }
    let object = node.ok_or("its schema object was not found where it was anchored")?;
    let mut list = RequiredList {
        array: None,
        items: Vec::new(),
        last_entry: None,
        quoted_keys: false,
    };
    let mut cursor = object.walk();
    for pair in object.named_children(&mut cursor) {
        list.last_entry = Some((pair.start_byte(), pair.end_byte()));
        if pair.kind() != "pair" {
            continue;
        }
        let (Some(key), Some(value)) = (
            pair.child_by_field_name("key"),
            pair.child_by_field_name("value"),
        ) else {
            continue;
        };
        let key_text = &text[key.byte_range()];
        list.quoted_keys |= key.kind() == "string";
        if unquote(key_text) != "required" {
            continue;
        }
        if value.kind() != "array" {
            return Err("its `required` list is not written as an array literal");
        }
        list.array = Some((value.start_byte(), value.end_byte()));
        let mut items = value.walk();
        for item in value.named_children(&mut items) {
            if item.kind() != "string" {
                return Err("its `required` list holds more than plain strings");
            }
            let range = (item.start_byte(), item.end_byte());
            list.items
                .push((unquote(&text[item.byte_range()]).to_string(), range));
        }
    }
    Ok(list)
}

/// The schema object of `tool`, its file's text and its `required` list.
fn listed(
    e: &mut Edits,
    root: &Path,
    tool: &Tool,
) -> Result<(Span, String, RequiredList), MutateError> {
    let schema = json_schema(tool).map_err(|why| not_here(tool, why))?;
    let at = (schema.json_root.clone()).expect("checked by json_schema");
    let text = e.text(root, &at.file)?.to_string();
    let list = required_list(&text, Path::new(&at.file), &at).map_err(|why| not_here(tool, why))?;
    Ok((at, text, list))
}

/// Names `site` in the schema's `required` list (writing the list where there is none) and
/// refuses calls without it before the handler.
pub(super) fn promote(
    e: &mut Edits,
    root: &Path,
    tool: &Tool,
    site: &ParamSite,
) -> Result<Around, MutateError> {
    let (at, text, list) = listed(e, root, tool)?;
    let name = serde_json::to_string(&site.name).expect("a string serializes");
    if list.items.iter().any(|(n, _)| *n == site.name) {
        return Err(not_here(
            tool,
            "the parameter is listed as required already",
        ));
    }
    let (pos, new) = listing(&text, &at, &list, &site.name);
    e.insert(root, &at.file, pos, new)?;
    let message = serde_json::to_string(&format!("Missing required argument: {}", site.name))
        .expect("a string serializes");
    Ok(Around {
        before: format!(
            "if (input[{name}] === undefined || input[{name}] === null) {{\nreturn {{ content: [{{ type: \"text\", text: {message} }}], isError: true }};\n}}"
        ),
        after: String::new(),
    })
}

/// Where and what to insert to list `param` as required in the schema object `at`: after the
/// list's last item, in its quotes; in an empty list; or as a new `required` entry after the
/// object's last, its key quoted as the object's are.
fn listing(text: &str, at: &Span, list: &RequiredList, param: &str) -> (usize, String) {
    let name = serde_json::to_string(param).expect("a string serializes");
    match (list.array, list.items.last()) {
        (Some(_), Some((_, (a, b)))) => {
            let item = match &text[*a..a + 1] {
                q @ ("'" | "`") => format!("{q}{param}{q}"),
                _ => name,
            };
            (*b, format!(", {item}"))
        }
        (Some((open, _)), None) => (open + 1, name),
        (None, _) => {
            let key = if list.quoted_keys {
                "\"required\""
            } else {
                "required"
            };
            let last = (list.last_entry).map(|bytes| Span {
                bytes,
                ..at.clone()
            });
            append_entry(text, at, last.as_ref(), &format!("{key}: [{name}]"))
        }
    }
}

/// Takes `site` out of the schema's `required` list and hands the handler `value` where a call
/// leaves it out. The caller declares the default in the parameter's schema.
pub(super) fn demote(
    e: &mut Edits,
    root: &Path,
    tool: &Tool,
    site: &ParamSite,
    value: &str,
) -> Result<Around, MutateError> {
    let (at, text, list) = listed(e, root, tool)?;
    let (_, bytes) = (list.items.iter())
        .find(|(n, _)| *n == site.name)
        .ok_or_else(|| not_here(tool, "the parameter is not in its schema's `required` list"))?;
    let item = Span {
        bytes: *bytes,
        ..at.clone()
    };
    let (a, b) = item_range(&text, &item);
    e.replace(
        root,
        &Span {
            bytes: (a, b),
            ..at.clone()
        },
        "",
    )?;
    let key = serde_json::to_string(&site.name).expect("a string serializes");
    Ok(Around {
        before: format!("if (input[{key}] === undefined) {{\ninput[{key}] = {value};\n}}"),
        after: String::new(),
    })
}

fn not_here(tool: &Tool, why: &str) -> MutateError {
    MutateError::NotApplicable {
        operator: mcpevol_core::operators::Builtin::ConstraintMutation.into(),
        why: format!("`{}`: {why}", tool.name),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `schema` (an object literal) with `param` listed as required, as [`listing`] writes it.
    fn listed_in(schema: &str, param: &str) -> String {
        let text = format!("const s = {schema};\n");
        let at = Span {
            file: "s.js".into(),
            bytes: (10, 10 + schema.len()),
            start_line: 1,
            end_line: 1,
        };
        let list = required_list(&text, Path::new("s.js"), &at).unwrap();
        let (pos, new) = listing(&text, &at, &list, param);
        format!("{}{new}{}", &text[10..pos], &text[pos..10 + schema.len()])
    }

    #[test]
    fn a_parameter_made_required_joins_the_list_in_its_quotes_or_starts_one_after_the_last_entry() {
        assert_eq!(
            listed_in("{ properties: { a: {}, b: {} }, required: ['a'] }", "b"),
            "{ properties: { a: {}, b: {} }, required: ['a', 'b'] }"
        );
        assert_eq!(
            listed_in(r#"{ "properties": { "a": {} }, "required": [] }"#, "a"),
            r#"{ "properties": { "a": {} }, "required": ["a"] }"#
        );
        assert_eq!(
            listed_in("{\n  type: \"object\",\n  properties: { a: {} },\n}", "a"),
            "{\n  type: \"object\",\n  properties: { a: {} },\n  required: [\"a\"]\n}"
        );
        assert_eq!(
            listed_in(r#"{ "type": "object", "properties": { "a": {} } }"#, "a"),
            r#"{ "type": "object", "properties": { "a": {} }, "required": ["a"] }"#
        );
    }

    #[test]
    fn a_required_list_that_is_not_an_array_of_strings_is_refused() {
        let text = "const s = { properties: {}, required: REQUIRED };\n";
        let at = Span {
            file: "s.js".into(),
            bytes: (10, text.len() - 2),
            start_line: 1,
            end_line: 1,
        };
        assert!(required_list(text, Path::new("s.js"), &at).is_err());
    }
}
