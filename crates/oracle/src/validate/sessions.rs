//! One session's calls of a plan: a crash restarts the server for the calls after it, a call
//! with optional parameters waits for its plain call to answer, and the first session asks
//! for tool names the server never had.

use std::path::Path;
use std::time::Duration;

use serde_json::Map;

use super::plan::PlannedCall;
use super::unknown::{PROBE_TOOLS, UnknownShape};
use crate::server::session::{CallStatus, Outcome, Session};
use crate::server::{LaunchConfig, ServerError};

/// One session's calls of `calls`, made `wait` after the server listed its tools. A crash does
/// not end them: the server is started again for the calls after it (in a fresh server,
/// without what earlier calls made).
pub(super) async fn session_calls(
    root: &Path,
    config: &LaunchConfig,
    calls: &[PlannedCall],
    (timeout, call_timeout): (Duration, Duration),
    probe: bool,
    wait: Duration,
) -> Result<(Vec<Outcome>, Option<UnknownShape>), ServerError> {
    let mut session = Some(listed_session(root, config, timeout).await?);
    tokio::time::sleep(wait).await;
    let mut outcomes: Vec<Outcome> = Vec::new();
    for call in calls {
        let plain_failed = call
            .after
            .is_some_and(|i| outcomes.get(i).is_none_or(|o| o.status != CallStatus::Ok));
        let outcome = match &session {
            _ if call.skip => Outcome {
                status: CallStatus::Timeout,
                text: "not called: it timed out in the previous version".into(),
                parts: Vec::new(),
                other: Vec::new(),
            },
            _ if plain_failed => Outcome {
                status: CallStatus::Timeout,
                text: "not called: the call without its optional parameters did not answer".into(),
                parts: Vec::new(),
                other: Vec::new(),
            },
            None => Outcome {
                status: CallStatus::Crashed,
                text: "not called: the server crashed and did not start again".into(),
                parts: Vec::new(),
                other: Vec::new(),
            },
            Some(s) => {
                s.call(&call.name, call.arguments.clone(), call_timeout)
                    .await
            }
        };
        if outcome.status == CallStatus::Crashed
            && let Some(dead) = session.take()
        {
            dead.close().await;
            session = listed_session(root, config, timeout).await.ok();
        }
        outcomes.push(outcome);
    }
    let unknown = match &session {
        Some(s) if probe => {
            let mut probes = Vec::new();
            for name in PROBE_TOOLS {
                probes.push((name, s.call(name, Map::new(), call_timeout).await));
            }
            UnknownShape::learn(&probes)
        }
        _ => None,
    };
    if let Some(s) = session {
        s.close().await;
    }
    Ok((outcomes, unknown))
}

/// A started session whose tools were listed (some servers register tools on the listing).
async fn listed_session(
    root: &Path,
    config: &LaunchConfig,
    timeout: Duration,
) -> Result<Session, ServerError> {
    let mut session = Session::start(root, config, &[], timeout).await?;
    match session.list_tools().await {
        Ok(_) => Ok(session),
        Err(e) => {
            session.close().await;
            Err(e)
        }
    }
}
