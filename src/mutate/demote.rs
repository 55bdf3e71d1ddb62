//! Demotion (P13): a required zod parameter made optional by a `.default(value)`, which zod
//! fills in before the handler runs, so that a call without it answers as a call that sends the
//! value. Only where a default means something by itself: an enum member, a number, a boolean
//! (a path or a query has no value that could stand for every call).

use super::MutateError;
use super::splice::{Edits, js_string};
use crate::inventory::{ParamSite, Tool};
use std::path::Path;

/// A required zod parameter of `tool` that can be given a default, with the default as a JS
/// literal: the enum's first member, the number's lower bound (else 1), `false`.
pub(super) fn demotable(tool: &Tool) -> Result<(&ParamSite, String), &'static str> {
    let schema =
        (tool.sites.schema.as_ref()).ok_or("its input schema is not written out literally")?;
    if schema.json || schema.python.is_some() {
        return Err(
            "a default in a JSON schema or a Python signature is not what the handler gets",
        );
    }
    for site in schema.params.iter().filter(|s| s.base.is_some()) {
        let Some(param) = tool
            .params
            .iter()
            .find(|p| p.name == site.name && p.required)
        else {
            continue;
        };
        if let Some(value) = default_for(param.ty.as_deref(), &param.shape) {
            return Ok((site, value));
        }
    }
    Err("no required enum, number or boolean parameter written in zod")
}

/// The default a maintainer would give a parameter of this type and shape, as a JS literal.
fn default_for(ty: Option<&str>, shape: &crate::inventory::ParamShape) -> Option<String> {
    let numeric = matches!(ty, Some("number" | "integer"));
    if let Some(first) = shape.values.first() {
        // Members are kept without their quotes; a `z.enum` of "1" and "2" still takes strings.
        return Some(if numeric && first.parse::<f64>().is_ok() {
            first.clone()
        } else {
            js_string(first)
        });
    }
    match ty? {
        "boolean" => Some("false".into()),
        "number" | "integer" => {
            let min = shape.min.as_deref().and_then(|m| m.parse::<f64>().ok());
            let max = shape.max.as_deref().and_then(|m| m.parse::<f64>().ok());
            let n = min.unwrap_or(1.0).min(max.unwrap_or(f64::MAX));
            Some(if n.fract() == 0.0 {
                format!("{}", n as i64)
            } else {
                n.to_string()
            })
        }
        _ => None,
    }
}

/// Writes `.default(value)` into the parameter's zod chain: before its `.describe(...)`, so
/// that the description stays on the outermost schema (what zod's JSON Schema reads), else at
/// its end.
pub(super) fn demote(
    e: &mut Edits,
    root: &Path,
    site: &ParamSite,
    value: &str,
) -> Result<(), MutateError> {
    let (start, end) = site.value.bytes;
    let text = e.text(root, &site.value.file)?;
    let chain = &text[start..end];
    let at = match &site.description {
        Some(d) if d.span.file == site.value.file && (start..end).contains(&d.span.bytes.0) => {
            chain[..d.span.bytes.0 - start]
                .rfind(".describe(")
                .map_or(end, |i| start + i)
        }
        _ => end,
    };
    e.insert(root, &site.value.file, at, format!(".default({value})"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inventory::ParamShape;

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
}
