//! A test hook for crash recovery: when `MCPEVOL_CRASH_AT` names a point the process passes, it
//! kills itself there with SIGKILL, exactly as `kill -9` would, at a moment an outside kill
//! cannot hit reliably (between two git writes). Unset, a point costs one cached lookup.

use std::sync::OnceLock;

/// The variable that names the point to die at.
pub const VARIABLE: &str = "MCPEVOL_CRASH_AT";

/// Dies here, by SIGKILL, if this is the point `MCPEVOL_CRASH_AT` names.
pub fn here(point: &str) {
    static AT: OnceLock<Option<String>> = OnceLock::new();
    if AT.get_or_init(|| std::env::var(VARIABLE).ok()).as_deref() == Some(point) {
        let _ = nix::sys::signal::raise(nix::sys::signal::Signal::SIGKILL);
    }
}
