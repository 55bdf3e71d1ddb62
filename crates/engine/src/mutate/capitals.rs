//! Enum values accepted in capitals too (P8, a looser constraint, as releases add values a
//! parameter accepts): each value of a parameter's enum, all of them lowercase words, gets its
//! capitalised form beside it in the schema (`["ft", "m"]` takes `"FT"` and `"M"`), and the
//! handler is wrapped to read a capitalised value as the value it spells before it runs. The
//! change claims [`Effect::Synonym`]: a call with a new value answers exactly as the same call
//! with the value it stands for, which the oracle checks in one session. JavaScript handlers
//! only (the wrapper is JavaScript).

use std::path::Path;

use super::MutateError;
use super::around::Around;
use super::dialect::handler_dialect;
use super::splice::Edits;
use mcpevol_core::inventory::{ParamSite, Tool};
use mcpevol_oracle::validate::Effect;

/// A new value and the old one it stands for.
pub type Synonym = (String, String);

/// A parameter of `tool` whose enum values can each be accepted in capitals, with those
/// capitalised values and the values they stand for.
pub(super) fn widenable(tool: &Tool) -> Result<(&ParamSite, Vec<Synonym>), &'static str> {
    let schema =
        (tool.sites.schema.as_ref()).ok_or("its input schema is not written out literally")?;
    if schema.python.is_some() || !handler_dialect(tool).reads_capitals() {
        return Err("a Python handler is not given enum values in capitals");
    }
    if tool.handler.is_none() {
        return Err("its handler was not found, so a new value could not be read");
    }
    for site in &schema.params {
        let Some(param) = tool.params.iter().find(|p| p.name == site.name) else {
            continue;
        };
        let values = &param.shape.values;
        if values.len() < 2
            || param
                .ty
                .as_deref()
                .is_some_and(|t| t != "string" && t != "enum")
            || !values.iter().all(|v| lowercase_word(v))
        {
            continue;
        }
        let synonyms: Vec<Synonym> = values
            .iter()
            .map(|v| (v.to_ascii_uppercase(), v.clone()))
            .filter(|(upper, _)| !values.contains(upper))
            .collect();
        if synonyms.len() == values.len() {
            return Ok((site, synonyms));
        }
    }
    Err("no string parameter whose enum values are all lowercase words")
}

/// `ft`, `date-time`, `utf8`: a lowercase ASCII word, whose capitals differ from it.
fn lowercase_word(v: &str) -> bool {
    v.starts_with(|c: char| c.is_ascii_lowercase())
        && v.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-')
}

/// Writes the capitalised values at the end of the parameter's one enum list: `z.enum([...])`
/// in a zod chain, `enum: [...]` in a JSON-schema property (`json`).
pub(super) fn widen(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    json: bool,
    synonyms: &[Synonym],
) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    let not_applicable = |why: &str| MutateError::NotApplicable {
        operator: mcpevol_core::operators::Builtin::ConstraintMutation.into(),
        why: format!("the enum of `{}` {why}", site.name),
    };
    let close = list_end(&text[start..end], json)
        .ok_or_else(|| not_applicable("is not one list written out in its schema"))?;
    let list = &text[start..start + close];
    let quote = if list.rfind('\'') > list.rfind('"') {
        '\''
    } else {
        '"'
    };
    let values: Vec<String> = synonyms
        .iter()
        .map(|(upper, _)| format!("{quote}{upper}{quote}"))
        .collect();
    let lead = if list.trim_end().ends_with(',') {
        " "
    } else {
        ", "
    };
    let at = start + list.trim_end().len();
    e.insert(
        root,
        &site.value.file,
        at,
        format!("{lead}{}", values.join(", ")),
    )
}

/// Where the `]` of the value's one enum list is, from the value's start: None where the
/// value holds no enum list or more than one (an enum of its items or keys as well).
fn list_end(value: &str, json: bool) -> Option<usize> {
    let pattern = if json {
        r"\benum\s*:\s*\["
    } else {
        r"\benum\s*\(\s*\["
    };
    let re = regex::Regex::new(pattern).expect("a valid pattern");
    let mut found = re.find_iter(value);
    let open = found.next()?.end();
    if found.next().is_some() {
        return None;
    }
    // The values are plain words (see `lowercase_word`): no bracket inside a string.
    value[open..].find(']').map(|i| open + i)
}

/// Code that reads a capitalised value as the value it spells, before the handler runs.
pub(super) fn around(param: &str, synonyms: &[Synonym]) -> Around {
    let key = serde_json::to_string(param).expect("a string serializes");
    let table: serde_json::Map<String, serde_json::Value> = synonyms
        .iter()
        .map(|(upper, lower)| (upper.clone(), lower.clone().into()))
        .collect();
    let table = serde_json::Value::Object(table).to_string();
    Around {
        before: format!(
            "const spelled = {table};\n\
             if (input && typeof input[{key}] === \"string\" && Object.prototype.hasOwnProperty.call(spelled, input[{key}])) {{\n\
             input[{key}] = spelled[input[{key}]];\n\
             }}"
        ),
        after: String::new(),
    }
}

/// The claims of the change: each new value answers as the value it stands for.
pub(super) fn claims(tool: &str, param: &str, synonyms: &[Synonym]) -> Vec<Effect> {
    synonyms
        .iter()
        .map(|(value, means)| Effect::Synonym {
            tool: tool.into(),
            param: param.into(),
            value: value.clone(),
            means: means.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lowercase_words_are_given_capitals() {
        assert!(lowercase_word("ft"));
        assert!(lowercase_word("date-time"));
        assert!(!lowercase_word("Ft"));
        assert!(!lowercase_word("1st"));
        assert!(!lowercase_word("a b"));
    }

    #[test]
    fn the_one_enum_list_of_a_value_is_found_and_two_are_refused() {
        let zod = r#"z.enum(["ft", "m"]).describe("Unit")"#;
        assert_eq!(list_end(zod, false), Some(zod.find(']').unwrap()));
        let json = r#"{ type: "string", enum: ['ft', 'm'] }"#;
        assert_eq!(list_end(json, true), Some(json.find(']').unwrap()));
        assert_eq!(list_end(r#"z.enum(["a"]).or(z.enum(["b"]))"#, false), None);
        assert_eq!(list_end(r#"z.string()"#, false), None);
    }
}
