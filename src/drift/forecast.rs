//! The static forecast: from the schema diff between the original's tool list and a version's
//! alone, whether a call should break there, by rules in the style of API-diff tools (oasdiff):
//! the tool is gone, a new required parameter the call does not set, a removed parameter the
//! call sets, a changed type the call's value does not fit, a tighter bound the call's value
//! violates, an enum value the call uses removed. The replay's verdict stands beside it; where
//! they disagree, docs/drift.md says why.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::listed::ListedTool;
use crate::schema::{self, ChangeKind};

/// One forecast rule.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum Rule {
    /// The called tool is not listed at the version.
    ToolGone,
    /// A parameter is required now (new, or made required) and the call does not set it.
    NewRequiredParam,
    /// A parameter the call sets is no longer in the schema.
    RemovedParam,
    /// A parameter the call sets changed type, and the call's value does not fit the new one.
    TypeChanged,
    /// A bound (maximum, maxLength, pattern, ...) the call's value kept before and breaks now.
    TighterBound,
    /// The value the call gives is no longer among the parameter's enum values.
    EnumValueRemoved,
}

/// A rule that fires for a call, with the words a person reads.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Finding {
    pub rule: Rule,
    pub param: Option<String>,
    /// "new required parameter `region`".
    pub detail: String,
}

impl Finding {
    /// Whether the finding is about the call's arguments (the tool itself is still there).
    pub fn about_arguments(&self) -> bool {
        self.rule != Rule::ToolGone
    }
}

/// The findings for calling `tool` with `arguments` at a version listing `after`, when the
/// original listed `before`; empty when the schema says the call is fine.
// Long: one arm per kind of schema change.
pub fn forecast(
    before: &[ListedTool],
    after: &[ListedTool],
    tool: &str,
    arguments: &Map<String, Value>,
) -> Vec<Finding> {
    let find = |tools: &[ListedTool]| -> Option<ListedTool> {
        tools.iter().find(|t| t.is_named(tool)).cloned()
    };
    let Some(now) = find(after) else {
        return vec![Finding {
            rule: Rule::ToolGone,
            param: None,
            detail: format!("`{tool}` is not listed"),
        }];
    };
    // A tool the original did not list (a call file naming another server's tool) has no
    // schema to differ from.
    let Some(then) = find(before) else {
        return Vec::new();
    };
    let properties = |t: &ListedTool, p: &str| t.property(p).clone();
    let mut out = Vec::new();
    for change in schema::diff(std::slice::from_ref(&then), std::slice::from_ref(&now)) {
        let Some(param) = change.param().map(str::to_string) else {
            continue;
        };
        let value = arguments.get(&param);
        let finding = |rule: Rule, detail: String| Finding {
            rule,
            param: Some(param.clone()),
            detail,
        };
        match change.kind() {
            ChangeKind::ParamAdded if change.required() == Some(true) && value.is_none() => {
                out.push(finding(
                    Rule::NewRequiredParam,
                    format!("new required parameter `{param}`, which the call does not set"),
                ));
            }
            ChangeKind::ParamRequiredChanged
                if change.required() == Some(true) && value.is_none() =>
            {
                out.push(finding(
                    Rule::NewRequiredParam,
                    format!("parameter `{param}` is required now, and the call does not set it"),
                ));
            }
            ChangeKind::ParamRemoved if value.is_some() => {
                out.push(finding(
                    Rule::RemovedParam,
                    format!("parameter `{param}` was removed, and the call sets it"),
                ));
            }
            ChangeKind::ParamTypeChanged => {
                let Some(value) = value else { continue };
                let prop = properties(&now, &param);
                if !fits_type(value, &prop) {
                    out.push(finding(
                        Rule::TypeChanged,
                        format!(
                            "parameter `{param}` changed {}: the call's value {} does not fit",
                            change.detail.as_deref().unwrap_or("type"),
                            short(value)
                        ),
                    ));
                }
            }
            ChangeKind::ParamConstraintChanged => {
                let Some(value) = value else { continue };
                // A bound the value already broke at the original is not what changed.
                let was = violations(value, &properties(&then, &param));
                for (rule, key, why) in violations(value, &properties(&now, &param)) {
                    if !was.iter().any(|(_, k, _)| *k == key) {
                        out.push(finding(rule, format!("parameter `{param}`: {why}")));
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Whether `value` is of a type the property accepts (`type`, unions, anyOf/oneOf); a
/// property that names no type accepts anything.
pub fn fits_type(value: &Value, prop: &Value) -> bool {
    let mut types: Vec<&str> = match prop.get("type") {
        Some(Value::String(s)) => vec![s.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let alternatives: Vec<&Value> = ["anyOf", "oneOf"]
        .iter()
        .filter_map(|k| prop.get(*k).and_then(Value::as_array))
        .flatten()
        .collect();
    if types.is_empty() && alternatives.is_empty() {
        return true;
    }
    if alternatives.iter().any(|alt| fits_type(value, alt)) {
        return true;
    }
    types.retain(|t| is_of_type(value, t));
    !types.is_empty()
}

fn is_of_type(value: &Value, ty: &str) -> bool {
    match ty {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_f64().is_some_and(|n| n.fract() == 0.0),
        "boolean" => value.is_boolean(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        "null" => value.is_null(),
        _ => true,
    }
}

/// What of the property's restrictions `value` breaks, each with its rule, its keyword and
/// words.
pub fn violations(value: &Value, prop: &Value) -> Vec<(Rule, &'static str, String)> {
    let bound = |key: &str| prop.get(key).and_then(Value::as_f64);
    // (keyword, broken by a size `n` measured as the keyword measures it)
    type Test = fn(f64, f64) -> bool;
    let (size, words, tests): (Option<f64>, String, &[(&'static str, Test)]) = match value {
        Value::Number(n) => (
            n.as_f64(),
            format!("the call's value {n}"),
            &[
                ("maximum", |n, b| n > b),
                ("minimum", |n, b| n < b),
                ("exclusiveMaximum", |n, b| n >= b),
                ("exclusiveMinimum", |n, b| n <= b),
            ],
        ),
        Value::String(s) => {
            let len = s.chars().count();
            (
                Some(len as f64),
                format!("the call's value ({len} characters)"),
                &[("maxLength", |n, b| n > b), ("minLength", |n, b| n < b)],
            )
        }
        Value::Array(items) => (
            Some(items.len() as f64),
            format!("the call's value ({} items)", items.len()),
            &[("maxItems", |n, b| n > b), ("minItems", |n, b| n < b)],
        ),
        _ => (None, String::new(), &[]),
    };
    let mut out: Vec<(Rule, &'static str, String)> = Vec::new();
    if let Some(n) = size {
        for (key, broken) in tests {
            if bound(key).is_some_and(|b| broken(n, b)) {
                out.push((
                    Rule::TighterBound,
                    key,
                    format!("{words} is beyond {key} {}", prop[*key]),
                ));
            }
        }
    }
    // JSON Schema patterns are ECMAScript; one this crate's regex cannot read is not judged.
    if let (Some(s), Some(re)) = (
        value.as_str(),
        prop["pattern"]
            .as_str()
            .and_then(|p| regex::Regex::new(p).ok()),
    ) && !re.is_match(s)
    {
        let why = format!(
            "the call's value {} does not match pattern {}",
            short(value),
            prop["pattern"]
        );
        out.push((Rule::TighterBound, "pattern", why));
    }
    if let Some(allowed) = prop["enum"].as_array()
        && !allowed.contains(value)
    {
        let why = format!(
            "the call's value {} is not among {}",
            short(value),
            short(&prop["enum"])
        );
        out.push((Rule::EnumValueRemoved, "enum", why));
    }
    if let Some(constant) = prop.get("const")
        && constant != value
    {
        let why = format!(
            "the call's value {} is not the constant {}",
            short(value),
            short(constant)
        );
        out.push((Rule::TighterBound, "const", why));
    }
    out
}

fn short(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 40 {
        format!("{}…", text.chars().take(39).collect::<String>())
    } else {
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(name: &str, properties: Value, required: &[&str]) -> ListedTool {
        json!({"name": name, "inputSchema": {"type": "object", "properties": properties, "required": required}}).into()
    }

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().unwrap().clone()
    }

    fn rules(before: ListedTool, after: &[ListedTool], arguments: Value) -> Vec<Rule> {
        forecast(&[before], after, "t", &args(arguments))
            .into_iter()
            .map(|f| f.rule)
            .collect()
    }

    #[test]
    fn a_gone_tool_breaks_every_call_of_it() {
        let before = tool("t", json!({}), &[]);
        let after = [tool("t_v2", json!({}), &[])];
        assert_eq!(rules(before, &after, json!({})), [Rule::ToolGone]);
    }

    #[test]
    fn a_new_required_parameter_breaks_only_calls_that_do_not_set_it() {
        let before = tool("t", json!({"a": {"type": "string"}}), &[]);
        let after = [tool(
            "t",
            json!({"a": {"type": "string"}, "region": {"type": "string"}}),
            &["region"],
        )];
        assert_eq!(
            rules(before.clone(), &after, json!({"a": "x"})),
            [Rule::NewRequiredParam]
        );
        assert_eq!(rules(before.clone(), &after, json!({"region": "eu"})), []);
        let made_required = [tool("t", json!({"a": {"type": "string"}}), &["a"])];
        assert_eq!(
            rules(before, &made_required, json!({})),
            [Rule::NewRequiredParam]
        );
    }

    #[test]
    fn a_removed_parameter_breaks_only_calls_that_set_it() {
        let before = tool(
            "t",
            json!({"a": {"type": "string"}, "b": {"type": "number"}}),
            &[],
        );
        let after = [tool("t", json!({"a": {"type": "string"}}), &[])];
        assert_eq!(
            rules(before.clone(), &after, json!({"b": 2})),
            [Rule::RemovedParam]
        );
        assert_eq!(rules(before, &after, json!({"a": "x"})), []);
    }

    #[test]
    fn a_type_change_breaks_only_a_value_that_does_not_fit_the_new_type() {
        let before = tool("t", json!({"n": {"type": "string"}}), &[]);
        let after = [tool("t", json!({"n": {"type": "number"}}), &[])];
        assert_eq!(
            rules(before.clone(), &after, json!({"n": "12"})),
            [Rule::TypeChanged]
        );
        let widened = [tool("t", json!({"n": {"type": ["string", "number"]}}), &[])];
        assert_eq!(rules(before, &widened, json!({"n": "12"})), []);
    }

    #[test]
    fn a_tighter_bound_breaks_only_a_value_beyond_it() {
        let before = tool("t", json!({"v": {"type": "number"}}), &[]);
        let after = [tool(
            "t",
            json!({"v": {"type": "number", "maximum": 50}}),
            &[],
        )];
        let found = forecast(
            std::slice::from_ref(&before),
            &after,
            "t",
            &args(json!({"v": 100})),
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].rule, Rule::TighterBound);
        assert!(found[0].detail.contains("maximum 50"), "{found:?}");
        assert_eq!(rules(before, &after, json!({"v": 20})), []);
        let s_before = tool("t", json!({"s": {"type": "string"}}), &[]);
        let s_after = [tool(
            "t",
            json!({"s": {"type": "string", "maxLength": 3}}),
            &[],
        )];
        assert_eq!(
            rules(s_before, &s_after, json!({"s": "paris"})),
            [Rule::TighterBound]
        );
    }

    #[test]
    fn a_removed_enum_value_breaks_only_calls_that_use_it() {
        let before = tool(
            "t",
            json!({"u": {"type": "string", "enum": ["c", "f", "k"]}}),
            &[],
        );
        let after = [tool(
            "t",
            json!({"u": {"type": "string", "enum": ["c", "f"]}}),
            &[],
        )];
        assert_eq!(
            rules(before.clone(), &after, json!({"u": "k"})),
            [Rule::EnumValueRemoved]
        );
        assert_eq!(rules(before, &after, json!({"u": "c"})), []);
    }

    #[test]
    fn description_changes_and_new_optional_parameters_forecast_ok() {
        let before = tool(
            "t",
            json!({"a": {"type": "string", "description": "A"}}),
            &["a"],
        );
        let after = [tool(
            "t",
            json!({"a": {"type": "string", "description": "B"}, "max_chars": {"type": "integer"}}),
            &["a"],
        )];
        assert_eq!(rules(before, &after, json!({"a": "x"})), []);
    }
}
