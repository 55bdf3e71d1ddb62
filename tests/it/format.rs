//! A new `format` lays JSON answers out: the rules give a tool whose answers are JSON records an
//! optional `format` (`compact` or `indented`) whose code rewrites each JSON text part in that
//! layout, and claim it; the oracle sends the layout the previous answer is not in, sees the same
//! JSON laid out so, and the change commits proven. A claimed layout the code does not make, or
//! makes with other JSON, is rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::validate::{Compared, Effect, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk};

fn round_with(backend: &mcpevol::evolve::Backend) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "records", &dir.path().join("w"));
    given::one_round(&rt, &work, backend)
}

/// `list_people` given an optional `format`, claimed as a layout, whose answer is written with
/// `indent` (JavaScript over `format`: the third argument of `JSON.stringify`), its list of
/// records followed by `then` (`.slice(1)` to leave the first out).
fn claimed_layout(indent: &str, then: &str) -> mcpevol::evolve::Backend {
    let shape = r#"city: z.string().optional().describe("Only the people of this city"),"#;
    given::proposal(
        "O5",
        &["list_people"],
        &[],
        vec![
            hunk(
                &format!("records\",\n  {{\n    {shape}"),
                &format!(
                    "records\",\n  {{\n    {shape}\n    format: z.enum([\"compact\", \"indented\"]).optional().describe(\"How the JSON is laid out.\"),"
                ),
            ),
            hunk(
                "async ({ city }) => ({\n    content: [\n",
                "async ({ city, format }) => ({\n    content: [\n",
            ),
            hunk(
                "city === undefined || p.city === city),\n          null,\n          2,\n",
                &format!(
                    "city === undefined || p.city === city){then},\n          null,\n          {indent},\n"
                ),
            ),
        ],
        vec![Effect::Reformat {
            tool: "list_people".into(),
            param: "format".into(),
        }],
    )
}

#[test]
fn the_rules_format_lays_the_json_out_as_asked_and_commits_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "records", &dir.path().join("w"));
    // Offered only where the answers are known to be JSON.
    assert!(
        given::expansion_claiming(&work, "list_people", false, |e| matches!(
            e,
            Effect::Reformat { .. }
        ))
        .is_none()
    );
    let proposal = given::expansion_claiming(&work, "list_people", true, |e| {
        matches!(e, Effect::Reformat { .. })
    })
    .expect("some seed adds a layout");
    let param = (proposal.effects.iter())
        .find_map(|e| match e {
            Effect::Reformat { param, .. } => Some(param.clone()),
            _ => None,
        })
        .unwrap();
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    let at = (written.find(&format!("{param}: "))).expect("the layout parameter in the shape");
    let entry = written[at..].lines().next().unwrap();
    assert!(
        entry.contains(r#"z.enum(["compact", "indented"])"#) && entry.contains(".optional()"),
        "{entry}"
    );
    let (round, claim) = given::claim_checked(&rt, &work, proposal, |e| {
        matches!(e, Effect::Reformat { .. })
    });
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    // The previous answer is indented: the claim is seen on the other layout.
    assert_eq!(claim.arguments[&param], "compact", "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_claimed_layout_that_the_code_does_not_make_is_rejected() {
    let (status, reason, _) = round_with(&claimed_layout("2", ""));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("laid out as claimed"), "{reason}");
}

#[test]
fn a_layout_with_four_spaces_where_compact_is_asked_is_rejected() {
    let (status, reason, _) = round_with(&claimed_layout("format === \"compact\" ? 4 : 2", ""));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("laid out as claimed"), "{reason}");
}

#[test]
fn the_honest_counterpart_of_the_given_layout_commits() {
    let (status, reason, round) = round_with(&claimed_layout(
        "format === \"compact\" ? undefined : 2",
        "",
    ));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    assert!(round.unwrap().proof.is_proven(), "{reason}");
}

#[test]
fn a_compact_layout_that_leaves_a_record_out_is_rejected() {
    let (status, reason, _) = round_with(&claimed_layout(
        "format === \"compact\" ? undefined : 2",
        ".slice(format === \"compact\" ? 1 : 0)",
    ));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("laid out as claimed"), "{reason}");
}
