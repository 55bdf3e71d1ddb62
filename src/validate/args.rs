//! Call arguments built from a tool's input schema: the simplest values the schema accepts.

use serde_json::{Map, Value, json};

/// Arguments that satisfy a JSON schema's required properties, with the simplest valid values.
pub fn arguments_for(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(props) = schema["properties"].as_object() {
        for (name, prop) in props {
            if required.contains(&name.as_str()) {
                out.insert(name.clone(), value_for(prop, name));
            }
        }
    }
    out
}

pub(crate) fn value_for(schema: &Value, name: &str) -> Value {
    if let Some(v) = schema.get("default").or_else(|| schema.get("const")) {
        return v.clone();
    }
    if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
        return first.clone();
    }
    for key in ["anyOf", "oneOf", "allOf"] {
        if let Some(first) = schema[key]
            .as_array()
            .and_then(|a| a.iter().find(|s| s["type"] != "null"))
        {
            return value_for(first, name);
        }
    }
    let ty = match &schema["type"] {
        Value::Array(types) => types
            .iter()
            .filter_map(Value::as_str)
            .find(|t| *t != "null")
            .unwrap_or("string"),
        Value::String(t) => t.as_str(),
        _ => {
            if schema.get("properties").is_some() {
                "object"
            } else {
                "string"
            }
        }
    };
    match ty {
        "number" | "integer" => {
            let min = schema["minimum"]
                .as_f64()
                .or_else(|| schema["exclusiveMinimum"].as_f64().map(|m| m + 1.0));
            let n = min
                .unwrap_or(1.0)
                .max(schema["maximum"].as_f64().map_or(f64::MIN, |m| m.min(1.0)));
            if ty == "integer" || n.fract() == 0.0 {
                json!(n as i64)
            } else {
                json!(n)
            }
        }
        "boolean" => json!(false),
        "array" => {
            let min = schema["minItems"].as_u64().unwrap_or(0);
            let items: Vec<Value> = (0..min.max(1))
                .map(|_| value_for(&schema["items"], name))
                .collect();
            if min == 0 && schema["items"].is_null() {
                json!([])
            } else {
                Value::Array(items)
            }
        }
        "object" => Value::Object(arguments_for(schema)),
        "null" => Value::Null,
        _ => json!(string_for(schema, name)),
    }
}

fn string_for(schema: &Value, name: &str) -> String {
    let text = match schema["format"].as_str() {
        Some("uri" | "url") => "https://example.com/".to_string(),
        Some("date-time") => "2026-01-01T00:00:00Z".to_string(),
        Some("date") => "2026-01-01".to_string(),
        Some("email") => "user@example.com".to_string(),
        _ if name.to_ascii_lowercase().contains("url") => "https://example.com/".to_string(),
        _ => schema["examples"][0]
            .as_str()
            .map(str::to_string)
            .or_else(|| example_in(schema["description"].as_str().unwrap_or("")))
            .unwrap_or_else(|| "test".to_string()),
    };
    let min = schema["minLength"].as_u64().unwrap_or(0) as usize;
    if text.len() < min {
        format!("{text}{}", "x".repeat(min - text.len()))
    } else {
        text
    }
}

/// The value a description gives as an example ("City name, e.g. paris"), which the server
/// is more likely to know than a made-up word.
fn example_in(description: &str) -> Option<String> {
    const MARKERS: &[&str] = &["e.g.", "for example", "such as", "example:"];
    let lower = description.to_ascii_lowercase();
    let at = MARKERS
        .iter()
        .filter_map(|m| lower.find(m).map(|i| i + m.len()))
        .min()?;
    let word: String = description[at..]
        .trim_start_matches([' ', ':', ','])
        .trim_start_matches(['"', '\'', '`'])
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ')' | ';' | '"' | '\'' | '`'))
        .collect();
    let word = word.trim_end_matches('.').to_string();
    (!word.is_empty() && word.len() <= 64).then_some(word)
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_string_takes_the_example_its_description_gives() {
        assert_eq!(example_in("City name, e.g. paris"), Some("paris".into()));
        assert_eq!(
            example_in("A repo, for example `octo/hello`."),
            Some("octo/hello".into())
        );
        assert_eq!(example_in("Free text"), None);
        let schema = json!({"type": "object", "properties": {"city": {"type": "string", "description": "City, e.g. lima"}}, "required": ["city"]});
        assert_eq!(arguments_for(&schema)["city"], "lima");
    }

    use super::*;

    #[test]
    fn arguments_fill_required_properties_with_valid_values() {
        let schema = json!({"type": "object", "properties": {
            "city": {"type": "string"}, "days": {"type": "integer", "minimum": 3},
            "unit": {"type": "string", "enum": ["c", "f"]}, "url": {"type": "string", "format": "uri"},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1},
            "extra": {"type": "string"}
        }, "required": ["city", "days", "unit", "url", "tags"]});
        let args = arguments_for(&schema);
        assert_eq!(
            Value::Object(args),
            json!({"city": "test", "days": 3, "unit": "c", "url": "https://example.com/", "tags": ["test"]})
        );
    }
}
