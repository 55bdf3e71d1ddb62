//! A server that dies one call after the call that set it off (a renderer whose timer throws
//! after its answer was sent): the oracle starts it again and tries the call it died in once
//! more, so an unchanged tool's old fault does not sink an honest version; a changed tool that
//! sets such a crash off is failed for it.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::validate::{Check, Verdict};

use crate::common::given::{self, hunk, one_round};

/// `echo` takes an optional `shout` that upper-cases its answer; `also` is added to its case.
fn shout(also: &str) -> mcpevol::evolve::Backend {
    given::proposal(
        "O5",
        &["echo"],
        &[],
        vec![
            hunk(
                "properties: { text: { type: \"string\" } }",
                "properties: { text: { type: \"string\" }, shout: { type: \"boolean\" } }",
            ),
            hunk(
                "      const text = args.text;",
                &format!(
                    "      const text = args.shout ? args.text.toUpperCase() : args.text;{also}"
                ),
            ),
        ],
        Vec::new(),
    )
}

#[test]
fn a_crash_an_unchanged_tool_set_off_is_not_the_next_calls_fault() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "late-crash", &dir.path().join("w"));
    let (status, reason, round) = one_round(&rt, &work, &shout(""));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    // `shout` is set after `fragile` ran: that call is the one the server died in.
    let set = round
        .tests
        .iter()
        .find(|t| {
            t.check
                == Check::ParamSet {
                    param: "shout".into(),
                }
        })
        .expect("echo called with shout");
    assert_eq!(set.verdict, Verdict::Passed, "{set:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_changed_tool_that_sets_a_crash_off_is_failed_for_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "late-crash", &dir.path().join("w"));
    let (status, reason, _) = one_round(&rt, &work, &shout(" doomed = true;"));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("`echo`") && reason.contains("crashed right after this call answered"),
        "{reason}"
    );
}
