//! Exit codes: distinct for the failures a script handles differently (retry later, fix the
//! server, fix the command line), documented in the README's exit-code table.

use mcpevol::evolve::EvolveError;
use mcpevol::init::InitError;
use mcpevol::server::ServerError;

/// Everything asked for was done.
pub const SUCCESS: u8 = 0;
/// Any other failure: a missing file, a malformed workspace or record, a git or I/O error.
pub const FAILURE: u8 = 1;
/// The command line is wrong (clap's own code for usage errors).
pub const USAGE: u8 = 2;
/// Fewer versions were made than asked: every try of a round failed.
pub const ROUNDS_FAILED: u8 = 3;
/// The server does not start, or does not list its tools, at the current version.
pub const SERVER_BROKEN: u8 = 4;
/// The model endpoint failed (unreachable, refusing, timing out), not the model's answers.
pub const MODEL_FAILED: u8 = 5;
/// Interrupted by Ctrl-C; the workspace is back at its last committed version.
pub const INTERRUPTED: u8 = 130;

/// A run of `evolve` that made fewer versions than asked.
#[derive(Debug, thiserror::Error)]
#[error("{message}")]
pub struct RoundsFailed {
    pub message: String,
    /// The last failed try failed because the model endpoint did.
    pub endpoint: bool,
}

/// The exit code for an error, from the most specific cause in its chain.
pub fn code_for(error: &anyhow::Error) -> u8 {
    for cause in error.chain() {
        if let Some(e) = cause.downcast_ref::<RoundsFailed>() {
            return if e.endpoint {
                MODEL_FAILED
            } else {
                ROUNDS_FAILED
            };
        }
        if let Some(e) = cause.downcast_ref::<EvolveError>() {
            match e {
                EvolveError::Interrupted { .. } => return INTERRUPTED,
                EvolveError::ServerBroken { .. } | EvolveError::Server(_) => return SERVER_BROKEN,
                _ => {}
            }
        }
        match cause.downcast_ref::<mcpevol::drift::DriftError>() {
            Some(mcpevol::drift::DriftError::Interrupted) => return INTERRUPTED,
            Some(mcpevol::drift::DriftError::Original(_)) => return SERVER_BROKEN,
            _ => {}
        }
        if let Some(InitError::Server(_)) = cause.downcast_ref::<InitError>() {
            return SERVER_BROKEN;
        }
        if cause.downcast_ref::<ServerError>().is_some() {
            return SERVER_BROKEN;
        }
        if cause.downcast_ref::<mcpevol::llm::LlmError>().is_some() {
            return MODEL_FAILED;
        }
    }
    FAILURE
}
