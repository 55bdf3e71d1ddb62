//! The code a behaviour runs around a tool's handler, as text in the handler's language: what
//! the behaviours and dialects write (`behaviours.rs`, `capitals.rs`, `dialect.rs`) and what the
//! wrappers of each language splice in (`wrap.rs`, `python/wrap.rs`). Its own module so that
//! both sides depend on it and not on each other.

/// Code run around a handler, in the handler's language (JavaScript that is also valid
/// TypeScript, or Python).
pub struct Around {
    /// Statements before the call; they see `input` and may `return` an answer instead.
    pub before: String,
    /// Statements after the call; they see `input` and may reassign `result`.
    pub after: String,
}
