//! A server none of whose tools can answer on this machine (`fixtures/oracle/cut-off`: each call
//! fails as a lookup of the web API's host fails offline, naming a token drawn at the server's
//! start): its tools are asked at `init`, and not again while their failure is carried
//! forward, so a round waits on nothing; rounds still commit, each check saying why it was not
//! made.

use crate::common;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::init::{InitOptions, init};
use mcpevol::server::DEFAULT_TIMEOUT;
use mcpevol::validate::{Check, Verdict};
use mcpevol::version_record::{self, observed};
use mcpevol::workspace::Workspace;

#[test]
fn tools_that_cannot_reach_their_host_are_asked_once_and_their_failure_carried_forward() {
    common::require_npm_install(&common::repo().join("fixtures"));
    let fixture = common::repo().join("fixtures/oracle/cut-off");
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("w");
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(init(
        &fixture.to_string_lossy(),
        &work,
        &InitOptions::new(None),
    ))
    .unwrap();
    let ws = Workspace::open(&work).unwrap();
    let v0 = ws.versions().unwrap()[0].commit.clone();
    let first = observed::read(&ws, &v0, DEFAULT_TIMEOUT).expect("init keeps v0's answers");
    // The failure as it came, with the token of init's start.
    let failure = first.calls["list_alerts"].raw.join("\n");
    assert!(failure.contains("ENOTFOUND"), "{failure}");
    let token = |tool: &str| {
        let raw = first.calls[tool].raw.join("\n");
        let token = raw.rsplit("request ").next().unwrap();
        token.trim_end_matches(')').to_string()
    };

    let opts = EvolveOptions::new(2, 3);
    let rounds = rt
        .block_on(evolve::evolve(&work, &Backend::Rules, &opts, |_| {}))
        .unwrap();
    assert!(
        rounds.iter().all(|r| r.status == RoundStatus::Committed),
        "{rounds:?}"
    );
    for round in &rounds {
        let record = version_record::read_round(&ws, round.version)
            .unwrap()
            .unwrap();
        let checks: Vec<_> = (record.tests.iter())
            .filter(|t| t.check != Check::Gone && first.calls.contains_key(&t.tool))
            .collect();
        assert!(!checks.is_empty(), "{:?}", record.tests);
        for t in checks {
            assert_eq!(t.verdict, Verdict::Unverifiable, "{t:?}");
            let reason = t.reason.as_deref().unwrap_or_default();
            assert!(
                reason.contains("could not reach the network") && reason.contains("not called"),
                "{t:?}"
            );
            // The first round judged against init's answers, kept beside v0, without starting
            // v0 again; later rounds against the same failure carried forward.
            let token = token(&t.tool);
            assert!(reason.contains(&token), "{reason} lacks {token}");
        }
    }
    // v1, observed for the second round, answers with the token of init's start: its failure
    // was carried over, not asked for again (a new start draws a new token).
    let v1 = rounds[0].commit.clone().unwrap();
    let next =
        observed::read(&ws, &v1, DEFAULT_TIMEOUT).expect("the first round keeps v1's answers");
    for (tool, seen) in &next.calls {
        if let Some(before) = first.calls.get(tool) {
            assert_eq!(seen.raw, before.raw, "{tool}");
        }
    }
}
