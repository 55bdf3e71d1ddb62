//! Building call arguments from an arbitrary (hostile) JSON schema: bounded in size whatever
//! `minItems`, `minLength` or nesting the schema asks for.
#![no_main]

use libfuzzer_sys::fuzz_target;
use mcpevol::validate::arguments_for;
use serde_json::{Value, json};

/// Far above what the arguments may hold (`validate`'s budget), far below what would matter.
const MAX_ARGUMENT_BYTES: usize = 8 << 20;

fuzz_target!(|data: &[u8]| {
    let Ok(schema) = serde_json::from_slice::<Value>(data) else {
        return;
    };
    // The schema as a whole, and as the schema of one required property.
    let wrapped = json!({"type": "object", "properties": {"x": schema.clone()}, "required": ["x"]});
    for s in [&schema, &wrapped] {
        let args = arguments_for(s);
        let size = serde_json::to_vec(&args).expect("arguments serialize").len();
        assert!(size <= MAX_ARGUMENT_BYTES, "{size} bytes of arguments");
    }
});
