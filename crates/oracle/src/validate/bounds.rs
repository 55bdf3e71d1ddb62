//! Values just beyond a parameter's new bound, which the previous bound allowed: what a server
//! that enforces the bound must refuse.

use serde_json::{Value, json};

use super::args::{MAX_ARGUMENT_BYTES, value_for};

/// The longest string or array a probe builds: a bound beyond this is not worth proving.
const MAX_PROBE_LEN: u64 = 100_000;

/// Two values of a parameter that differ only in crossing its new bound: the refusal of
/// `beyond` counts as enforcement only where `edge` is not refused the same way (a tool may
/// refuse both for its own reasons, say an unknown city).
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    pub edge: Value,
    pub beyond: Value,
}

/// Values at and just beyond the bound that `new` (the schema now) sets and `old` (before) did
/// not, or None when the change tightens nothing a value can show.
pub fn probe(new: &Value, old: &Value, name: &str) -> Option<Probe> {
    let beyond = outside(new, old, name)?;
    let edge = match &beyond {
        Value::String(s) if new["maxLength"].is_number() => {
            json!("x".repeat(s.chars().count() - 1))
        }
        Value::String(s) if new["minLength"].is_number() => json!(format!("{s}x")),
        Value::Number(n) => {
            let v = n.as_f64().unwrap_or(0.0);
            let back = if new["minimum"].is_number() && old["minimum"] != new["minimum"] {
                v + 1.0
            } else {
                v - 1.0
            };
            if back.fract() == 0.0 {
                json!(back as i64)
            } else {
                json!(back)
            }
        }
        Value::Array(items) => Value::Array(items[..items.len().saturating_sub(1)].to_vec()),
        _ => new["enum"]
            .as_array()
            .and_then(|e| e.first())
            .cloned()
            .unwrap_or(Value::Null),
    };
    Some(Probe { edge, beyond })
}

/// A value of the parameter that breaks `new` (its schema now) but kept `old` (its schema
/// before), or None when the change does not tighten anything a value can show.
pub fn outside(new: &Value, old: &Value, name: &str) -> Option<Value> {
    let tighter = |key: &str, below: bool| -> Option<f64> {
        let n = new[key].as_f64()?;
        match old[key].as_f64() {
            Some(o) if (below && o <= n) || (!below && o >= n) => None,
            _ => Some(n),
        }
    };
    if let Some(max) = tighter("maxLength", true)
        && (max as u64) < MAX_PROBE_LEN
    {
        return Some(json!("x".repeat(max as usize + 1)));
    }
    if let Some(min) = tighter("minLength", false)
        && min >= 1.0
        && (min as u64) <= MAX_PROBE_LEN
    {
        return Some(json!("x".repeat(min as usize - 1)));
    }
    let integer = new["type"] == "integer";
    let step = |v: f64, up: bool| {
        let out = if up { v + 1.0 } else { v - 1.0 };
        if integer || out.fract() == 0.0 {
            json!(out as i64)
        } else {
            json!(out)
        }
    };
    if let Some(max) = tighter("maximum", true) {
        return Some(step(max, true));
    }
    if let Some(max) = tighter("exclusiveMaximum", true) {
        return Some(step(max + 1.0, false));
    }
    if let Some(min) = tighter("minimum", false) {
        return Some(step(min, false));
    }
    if let Some(max) = tighter("maxItems", true)
        && (max as u64) < MAX_PROBE_LEN
    {
        // The schema may be the model's: an item of a megabyte times many is not sent.
        let item = value_for(&new["items"], name);
        let size = serde_json::to_string(&item).map_or(usize::MAX, |t| t.len() + 1);
        if size.saturating_mul(max as usize + 1) <= MAX_ARGUMENT_BYTES {
            return Some(Value::Array(vec![item; max as usize + 1]));
        }
    }
    if let (Some(now), Some(before)) = (new["enum"].as_array(), old["enum"].as_array()) {
        return before.iter().find(|v| !now.contains(v)).cloned();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_huge_min_length_or_a_huge_array_is_not_built() {
        let old = json!({"type": "string"});
        assert_eq!(
            outside(&json!({"type": "string", "minLength": 1e9}), &old, "q"),
            None
        );
        let big = json!({"type": "array", "maxItems": 99_999,
            "items": {"type": "string", "minLength": 1_000_000}});
        assert_eq!(outside(&big, &json!({"type": "array"}), "q"), None);
        let small = json!({"type": "array", "maxItems": 3, "items": {"type": "string"}});
        assert_eq!(
            outside(&small, &json!({"type": "array"}), "q")
                .and_then(|v| v.as_array().map(Vec::len)),
            Some(4)
        );
    }

    #[test]
    fn a_value_just_beyond_each_new_bound_is_built() {
        let s = |n: Value| outside(&n, &json!({"type": "string"}), "p");
        assert_eq!(
            s(json!({"type": "string", "maxLength": 3})),
            Some(json!("xxxx"))
        );
        assert_eq!(
            s(json!({"type": "string", "minLength": 2})),
            Some(json!("x"))
        );
        assert_eq!(
            outside(
                &json!({"type": "integer", "maximum": 10}),
                &json!({"type": "integer"}),
                "p"
            ),
            Some(json!(11))
        );
        assert_eq!(
            outside(
                &json!({"type": "number", "minimum": 0}),
                &json!({"type": "number"}),
                "p"
            ),
            Some(json!(-1))
        );
        assert_eq!(
            outside(
                &json!({"type": "array", "items": {"type": "string"}, "maxItems": 1}),
                &json!({"type": "array", "items": {"type": "string"}}),
                "p"
            ),
            Some(json!(["test", "test"]))
        );
        assert_eq!(
            outside(&json!({"enum": ["a"]}), &json!({"enum": ["a", "b"]}), "p"),
            Some(json!("b"))
        );
    }

    #[test]
    fn the_edge_value_sits_just_inside_the_bound() {
        let p = probe(&json!({"type": "string", "maxLength": 3}), &json!({}), "p").unwrap();
        assert_eq!((p.edge, p.beyond), (json!("xxx"), json!("xxxx")));
        let p = probe(&json!({"type": "integer", "maximum": 10}), &json!({}), "p").unwrap();
        assert_eq!((p.edge, p.beyond), (json!(10), json!(11)));
        let p = probe(&json!({"type": "integer", "minimum": 2}), &json!({}), "p").unwrap();
        assert_eq!((p.edge, p.beyond), (json!(2), json!(1)));
    }

    #[test]
    fn a_loosened_or_huge_bound_gives_no_probe() {
        let old = json!({"type": "string", "maxLength": 3});
        assert_eq!(
            outside(&json!({"type": "string", "maxLength": 10}), &old, "p"),
            None
        );
        assert_eq!(
            outside(
                &json!({"type": "string", "maxLength": 1e9}),
                &json!({}),
                "p"
            ),
            None
        );
    }
}
