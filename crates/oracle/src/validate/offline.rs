//! Calls that cannot answer on this machine: a tool whose call timed out, or failed the way a
//! request to a host that cannot be reached fails (the sandbox has no network; a service such
//! as a database is not running). Another try at the next version would wait the same
//! seconds for the same failure, so such a tool is not called again while its failure is the
//! one carried forward: its checks are unverifiable, saying why.
//!
//! The words are those of the runtimes' own network errors (Node's `errno` codes and `fetch`,
//! Python's `socket`, `urllib3`, `requests` and `httpx`), not of any server.

use crate::server::session::CallStatus;

/// Words of a failed connection or name lookup, compared without case.
const NETWORK_WORDS: &[&str] = &[
    "econnrefused",
    "enotfound",
    "eai_again",
    "enetunreach",
    "ehostunreach",
    "etimedout",
    "econnreset",
    "getaddrinfo",
    "fetch failed",
    "socket hang up",
    "connection refused",
    "connection reset",
    "network is unreachable",
    "name or service not known",
    "temporary failure in name resolution",
    "nodename nor servname",
    "failed to establish a new connection",
    "max retries exceeded with url",
    "connecterror",
    "connecttimeout",
    "connection timed out",
    "could not resolve host",
];

/// Whether a call that ended with `status` and `text` cannot answer on this machine: it timed
/// out, or it failed with a network error.
pub fn unreachable(status: CallStatus, text: &str) -> bool {
    match status {
        CallStatus::Timeout => true,
        CallStatus::ToolError | CallStatus::RpcError | CallStatus::Malformed => {
            let text = text.to_lowercase();
            NETWORK_WORDS.iter().any(|w| text.contains(w))
        }
        CallStatus::Ok | CallStatus::Crashed => false,
    }
}

/// The reason a check gives for a call it did not make, `seen` being the previous version's
/// answer (its first line, shortened).
pub fn not_called(status: CallStatus, seen: &str) -> String {
    if status == CallStatus::Timeout {
        return "it timed out at the previous version, so it was not called".into();
    }
    let first = seen.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut short: String = first.chars().take(120).collect();
    if short.len() < first.len() {
        short.push_str("...");
    }
    format!(
        "it could not reach the network or a service at the previous version ({short}), so it was not called"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_connection_or_a_failed_lookup_is_unreachable() {
        for text in [
            "Error: connect ECONNREFUSED 127.0.0.1:9200",
            "TypeError: fetch failed",
            "getaddrinfo ENOTFOUND api.example.com",
            "HTTPSConnectionPool(host='api.x.io', port=443): Max retries exceeded with url: /v1",
            "httpx.ConnectError: [Errno -3] Temporary failure in name resolution",
        ] {
            assert!(unreachable(CallStatus::ToolError, text), "{text}");
        }
        assert!(unreachable(CallStatus::Timeout, "no answer within 10s"));
    }

    #[test]
    fn other_failures_and_answers_are_not_unreachable() {
        assert!(!unreachable(
            CallStatus::ToolError,
            "Error: note `x` not found"
        ));
        assert!(!unreachable(
            CallStatus::RpcError,
            "Invalid params: `path` is required"
        ));
        // An answer that talks about a network is still an answer.
        assert!(!unreachable(CallStatus::Ok, "ECONNREFUSED is errno 111"));
        assert!(!unreachable(CallStatus::Crashed, "fetch failed"));
    }

    #[test]
    fn the_reason_quotes_the_first_line_of_the_failure() {
        let reason = not_called(
            CallStatus::ToolError,
            "\nError: connect ECONNREFUSED 127.0.0.1:9200\n  at x",
        );
        assert!(
            reason.contains("(Error: connect ECONNREFUSED 127.0.0.1:9200)"),
            "{reason}"
        );
        assert!(not_called(CallStatus::Timeout, "").contains("timed out"));
    }
}
