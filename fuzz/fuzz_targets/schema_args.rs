//! Building call arguments from an arbitrary (hostile) JSON schema: bounded in size whatever
//! `minItems`, `minLength` or nesting the schema asks for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpevol::validate::{MAX_ARGUMENT_BYTES, MAX_SCHEMA_DEPTH, arguments_for};
use serde_json::{Value, json};

fn depth(value: &Value) -> usize {
    match value {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // The schema as a whole, and as the schema of one required property.
    let wrapped = json!({"type": "object", "properties": {"x": schema.clone()}, "required": ["x"]});
    for s in [&schema, &wrapped] {
        let args = Value::Object(arguments_for(s));
        let size = serde_json::to_vec(&args).expect("arguments serialize").len();
        // The last string or number may pass the budget by its own few bytes.
        assert!(size <= MAX_ARGUMENT_BYTES + 64, "{size} bytes of arguments");
        assert!(depth(&args) <= MAX_SCHEMA_DEPTH + 1, "depth {}", depth(&args));
    }
});
