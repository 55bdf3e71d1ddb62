//! Call arguments built from a tool's input schema: the simplest values the schema accepts,
//! within fixed bounds whatever the schema asks for. The schema comes from the server, which
//! may be hostile or broken: `minItems: 1000000000` or `minLength: 1000000000`, items nested in
//! items that each ask for a thousand more, or a property name of a megabyte.

use std::collections::HashSet;

use serde_json::{Map, Value, json};

/// What the arguments of one call may add up to, in bytes of JSON text (each value counts at
/// least [`VALUE_BYTES`]). A schema asking for more gets less: shorter strings, fewer items, then
/// `null`s, and the call fails as it would for any invalid argument.
pub const MAX_ARGUMENT_BYTES: usize = 1 << 20;
/// How deep items, properties and alternatives are followed; deeper values are `null`.
pub const MAX_SCHEMA_DEPTH: usize = 32;
/// What one value counts for at least, so that a budget of bytes also bounds the number of
/// values (and their memory, a few times this).
const VALUE_BYTES: usize = 8;

/// Arguments that satisfy a JSON schema's required properties, with the simplest valid values.
pub fn arguments_for(schema: &Value) -> Map<String, Value> {
    Budget {
        left: MAX_ARGUMENT_BYTES,
    }
    .object(schema, 0)
}

/// What is left of [`MAX_ARGUMENT_BYTES`] while one call's arguments are built.
struct Budget {
    left: usize,
}

impl Budget {
    /// Takes `bytes` from the budget; false (and nothing taken) when that is more than is left.
    fn spend(&mut self, bytes: usize) -> bool {
        let bytes = bytes.max(VALUE_BYTES);
        if bytes > self.left {
            return false;
        }
        self.left -= bytes;
        true
    }

    /// Takes what a value already built costs (with the comma after it) beyond the
    /// [`VALUE_BYTES`] spent on it; at most what is left (the value was made to fit, or is a
    /// number of a few bytes).
    fn charge(&mut self, value: &Value) {
        let extra = (json_len(value) + 1).saturating_sub(VALUE_BYTES);
        self.left = self.left.saturating_sub(extra);
    }

    /// A copy of a value the schema gives (`default`, `const`, an `enum` member), if it fits.
    fn copy(&mut self, value: &Value) -> Value {
        if self.spend(json_len(value)) {
            value.clone()
        } else {
            self.left = 0;
            Value::Null
        }
    }

    fn object(&mut self, schema: &Value, depth: usize) -> Map<String, Value> {
        let mut out = Map::new();
        let required: HashSet<&str> = schema["required"]
            .as_array()
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        if let Some(props) = schema["properties"].as_object() {
            for (name, prop) in props {
                if required.contains(name.as_str()) {
                    // The name, its quotes, the colon and the comma.
                    if !self.spend(name.len() + 4) {
                        break;
                    }
                    let value = self.value(prop, name, depth + 1);
                    out.insert(name.clone(), value);
                }
            }
        }
        out
    }

    fn value(&mut self, schema: &Value, name: &str, depth: usize) -> Value {
        // Spent before the depth check, so that even a `null` counts: an array of a billion
        // items too deep to build still stops when the budget does.
        if !self.spend(VALUE_BYTES) || depth > MAX_SCHEMA_DEPTH {
            return Value::Null;
        }
        if let Some(v) = schema.get("default").or_else(|| schema.get("const")) {
            return self.copy(v);
        }
        if let Some(first) = schema["enum"].as_array().and_then(|e| e.first()) {
            return self.copy(first);
        }
        for key in ["anyOf", "oneOf", "allOf"] {
            if let Some(first) = schema[key]
                .as_array()
                .and_then(|a| a.iter().find(|s| s["type"] != "null"))
            {
                return self.value(first, name, depth + 1);
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
                let number = if ty == "integer" || n.fract() == 0.0 {
                    json!(n as i64)
                } else {
                    json!(n)
                };
                self.charge(&number);
                number
            }
            "boolean" => json!(false),
            "array" => {
                let min = count(schema, "minItems");
                if min == 0 && schema["items"].is_null() {
                    return json!([]);
                }
                let mut items = Vec::new();
                while items.len() < min.max(1) && self.left >= VALUE_BYTES {
                    items.push(self.value(&schema["items"], name, depth + 1));
                }
                Value::Array(items)
            }
            "object" => Value::Object(self.object(schema, depth)),
            "null" => Value::Null,
            _ => {
                let text = json!(string_for(schema, name, self.left));
                self.charge(&text);
                text
            }
        }
    }
}

/// A count the schema asks for (`minItems`, `minLength`): a whole number, or a float such as
/// `1e9` taken as the whole number it is (saturating); 0 when absent or not a count.
fn count(schema: &Value, key: &str) -> usize {
    let value = &schema[key];
    match value.as_u64() {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        // `as` saturates: 1e300 becomes usize::MAX; NaN cannot come from JSON.
        None => value
            .as_f64()
            .filter(|f| *f > 0.0)
            .map_or(0, |f| f as usize),
    }
}

/// The length of a value as compact JSON text, without writing it anywhere.
fn json_len(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a Value to a writer that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
}

/// A value for one parameter (say a new one the oracle sets), with a budget of its own.
pub(crate) fn value_for(schema: &Value, name: &str) -> Value {
    Budget {
        left: MAX_ARGUMENT_BYTES,
    }
    .value(schema, name, 1)
}

/// A valid value for an optional parameter that differs from what the server assumes without
/// it (its `default`), so that setting it shows behaviour the required-only call never reaches:
/// another `enum` member, the other boolean, a number past the default within its bounds.
/// None when the schema leaves no other value (a `const`, a one-member `enum`).
pub(crate) fn other_value(schema: &Value, name: &str) -> Option<Value> {
    if schema.get("const").is_some() {
        return None;
    }
    let default = schema.get("default");
    if let Some(members) = schema["enum"].as_array() {
        return members.iter().find(|m| Some(*m) != default).cloned();
    }
    let mut plain = schema.clone();
    if let Some(o) = plain.as_object_mut() {
        o.remove("default");
    }
    let value = match (&schema["type"], default) {
        (t, d) if t == "boolean" => json!(!d.and_then(Value::as_bool).unwrap_or(false)),
        (t, Some(d)) if (t == "integer" || t == "number") && d.is_number() => {
            let next = d.as_f64().unwrap_or(0.0) + 1.0;
            let within = schema["maximum"].as_f64().is_none_or(|m| next <= m);
            if !within {
                return None;
            }
            if t == "integer" || next.fract() == 0.0 {
                json!(next as i64)
            } else {
                json!(next)
            }
        }
        _ => value_for(&plain, name),
    };
    (Some(&value) != default && !value.is_null()).then_some(value)
}

/// Values to try for a parameter, most telling first: the one [`value_for`] picks, another
/// than the default, every `enum` member, both booleans, the bounds of a number. At most `max`,
/// each once.
pub(crate) fn values_to_try(schema: &Value, name: &str, max: usize) -> Vec<Value> {
    let mut out: Vec<Value> = vec![value_for(schema, name)];
    out.extend(other_value(schema, name));
    if let Some(members) = schema["enum"].as_array() {
        out.extend(members.iter().cloned());
    }
    match schema["type"].as_str() {
        Some("boolean") => out.extend([json!(true), json!(false)]),
        Some("integer" | "number") => {
            out.extend(
                ["minimum", "maximum"]
                    .iter()
                    .filter_map(|k| schema.get(*k).cloned()),
            );
            out.extend([json!(1), json!(0)]);
        }
        _ => {}
    }
    let mut unique: Vec<Value> = Vec::new();
    for v in out {
        if !v.is_null() && !unique.contains(&v) {
            unique.push(v);
        }
    }
    unique.truncate(max);
    unique
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
    // `lower` has the byte offsets of `description` (ASCII case changes keep lengths).
    let word: String = description
        .get(at..)?
        .trim_start_matches([' ', ':', ','])
        .trim_start_matches(['"', '\'', '`'])
        .chars()
        .take_while(|c| !c.is_whitespace() && !matches!(c, ',' | ')' | ';' | '"' | '\'' | '`'))
        .collect();
    let word = word.trim_end_matches('.').to_string();
    (!word.is_empty() && word.len() <= 64).then_some(word)
}

/// A string for `schema`, at most `max` bytes long (a `minLength` above that is not met).
fn string_for(schema: &Value, name: &str, max: usize) -> String {
    let text = match schema["format"].as_str() {
        Some("uri" | "url") => "https://example.com/".to_string(),
        Some("date-time") => "2026-01-01T00:00:00Z".to_string(),
        Some("date") => "2026-01-01".to_string(),
        Some("email") => "user@example.com".to_string(),
        _ if name.to_ascii_lowercase().contains("url") => "https://example.com/".to_string(),
        // A shell command or script: `test` runs and fails silently; `echo` answers.
        _ if is_shell_input(name) => "echo test".to_string(),
        _ => schema["examples"][0]
            .as_str()
            .map(str::to_string)
            .or_else(|| example_in(schema["description"].as_str().unwrap_or("")))
            .filter(|e| e.len() <= max)
            .unwrap_or_else(|| "test".to_string()),
    };
    let min = count(schema, "minLength").min(max);
    if text.len() < min {
        format!("{text}{}", "x".repeat(min - text.len()))
    } else {
        text
    }
}

/// Whether a parameter named `name` takes a shell command line (`command`, `cmd`, `script`).
fn is_shell_input(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "command" | "cmd" | "script" | "shell_command" | "commandline"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_shell_command_parameter_gets_a_command_that_answers() {
        let schema = json!({"type": "object", "properties": {"command": {"type": "string"}, "name": {"type": "string"}}, "required": ["command", "name"]});
        let args = arguments_for(&schema);
        assert_eq!(args["command"], "echo test");
        assert_eq!(args["name"], "test");
    }

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

    #[test]
    fn an_optional_value_differs_from_what_the_server_assumes_without_it() {
        let other = |schema: Value| other_value(&schema, "p");
        assert_eq!(other(json!({"type": "boolean"})), Some(json!(true)));
        assert_eq!(
            other(json!({"type": "boolean", "default": true})),
            Some(json!(false))
        );
        assert_eq!(
            other(json!({"type": "string", "enum": ["a", "b"], "default": "a"})),
            Some(json!("b"))
        );
        assert_eq!(
            other(json!({"type": "integer", "default": 10, "maximum": 100})),
            Some(json!(11))
        );
        assert_eq!(
            other(json!({"type": "integer", "default": 5, "maximum": 5})),
            None
        );
        assert_eq!(
            other(json!({"type": "string", "enum": ["only"]})),
            Some(json!("only"))
        );
        assert_eq!(other(json!({"const": "x"})), None);
        assert_eq!(other(json!({"type": "string", "default": "test"})), None);
        assert_eq!(other(json!({"type": "string"})), Some(json!("test")));
    }

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

    fn json_size(args: &Map<String, Value>) -> usize {
        serde_json::to_vec(args).unwrap().len()
    }

    fn depth(value: &Value) -> usize {
        match value {
            Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
            Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
            _ => 0,
        }
    }

    fn one_required(schema: Value) -> Value {
        json!({"type": "object", "properties": {"x": schema}, "required": ["x"]})
    }

    #[test]
    fn a_billion_items_of_a_billion_characters_stay_within_the_budget() {
        for (items, length) in [
            (json!(1_000_000_000u64), json!(1_000_000_000u64)),
            (json!(1e9), json!(1e9)),
            (json!(1e300), json!(u64::MAX)),
        ] {
            let schema = one_required(json!({"type": "array", "minItems": items,
                "items": {"type": "string", "minLength": length}}));
            let size = json_size(&arguments_for(&schema));
            assert!(size <= MAX_ARGUMENT_BYTES + 64, "{size} bytes");
            assert!(
                size >= MAX_ARGUMENT_BYTES / 2,
                "the budget is used: {size} bytes"
            );
        }
    }

    /// Found by the property test of tests/it/untrusted_input.rs: numbers of nineteen digits
    /// counted as [`VALUE_BYTES`] each made a billion of them 1.4 MB.
    #[test]
    fn a_billion_huge_integers_count_by_their_real_size() {
        let schema = one_required(json!({"type": "array", "minItems": 1_000_000_000u64,
            "items": {"type": "integer", "minimum": 1e300}}));
        let size = json_size(&arguments_for(&schema));
        assert!(size <= MAX_ARGUMENT_BYTES + 64, "{size} bytes");
    }

    #[test]
    fn a_float_min_length_is_met_like_a_whole_one() {
        let args = arguments_for(&one_required(json!({"type": "string", "minLength": 6.0})));
        assert_eq!(args["x"], "testxx");
    }

    #[test]
    fn nested_arrays_that_multiply_stay_within_the_budget() {
        let mut schema = json!({"type": "string", "minLength": 100});
        for _ in 0..10 {
            schema = json!({"type": "array", "minItems": 100, "items": schema});
        }
        let size = json_size(&arguments_for(&one_required(schema)));
        assert!(size <= MAX_ARGUMENT_BYTES + 64, "{size} bytes");
    }

    #[test]
    fn a_large_default_copied_into_many_items_stays_within_the_budget() {
        let default = json!("d".repeat(100_000));
        let schema = one_required(json!({"type": "array", "minItems": 1000,
            "items": {"type": "string", "default": default}}));
        let args = arguments_for(&schema);
        let size = json_size(&args);
        assert!(size <= MAX_ARGUMENT_BYTES + 64, "{size} bytes");
        assert_eq!(args["x"][0], default, "the first copies fit");
    }

    #[test]
    fn deep_nesting_is_followed_only_to_the_depth_limit() {
        let levels = 500;
        let mut schema = json!({"type": "string"});
        for i in 0..levels {
            schema = if i % 2 == 0 {
                json!({"type": "array", "minItems": 1, "items": schema})
            } else {
                one_required(schema)
            };
        }
        let args = Value::Object(arguments_for(&schema));
        let depth = depth(&args);
        assert!(
            depth <= MAX_SCHEMA_DEPTH + 1 && depth < levels / 4,
            "depth {depth}"
        );
        assert!(depth >= MAX_SCHEMA_DEPTH / 2, "depth {depth}");
    }
}
