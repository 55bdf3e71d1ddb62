//! The code a behaviour runs around a tool's handler, as text in the handler's language: what
//! the behaviours write (`behaviours.rs`, `capitals.rs`) and what the wrappers of each language
//! splice in (`wrap.rs`, `python/wrap.rs`). Its own module so that both sides depend on it and
//! not on each other.

/// Code run around a handler, in the handler's language (JavaScript that is also valid
/// TypeScript, or Python).
pub struct Around {
    /// Statements before the call; they see `input` and may `return` an answer instead.
    pub before: String,
    /// Statements after the call; they see `input` and may reassign `result`.
    pub after: String,
}

/// Code that takes `param` out of the call's arguments before the handler sees them, so that
/// a removed parameter sent anyway has no effect (`python`: the handler is Python's).
pub fn drop_param(python: bool, param: &str) -> Around {
    let key = serde_json::to_string(param).expect("a string serializes");
    let before = if python {
        format!("if isinstance(arguments, dict):\n    arguments.pop({key}, None)")
    } else {
        format!("if (input && typeof input === \"object\") {{\ndelete input[{key}];\n}}")
    };
    Around {
        before,
        after: String::new(),
    }
}
