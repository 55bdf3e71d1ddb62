//! A new `fields` projects JSON answers: the rules give a tool whose answers are JSON records an
//! optional `fields` whose code keeps only the listed keys of each record, and claim it; the
//! oracle sends half the keys of the previous answer's first record, sees the others gone and
//! the change commits proven. A claimed projection that the code does not make, or that keeps
//! the wrong keys, is rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::validate::{Compared, Effect, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk, one_round};

fn round_with(backend: &mcpevol::evolve::Backend) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "records", &dir.path().join("w"));
    one_round(&rt, &work, backend)
}

/// `list_people` given an optional `fields`, claimed as a projection, whose answer's records
/// are made by `pick` (JavaScript over `p`, a record, and `fields`).
fn claimed_projection(pick: &str) -> mcpevol::evolve::Backend {
    let shape = r#"city: z.string().optional().describe("Only the people of this city"),"#;
    given::proposal(
        "O5",
        &["list_people"],
        &[],
        vec![
            hunk(
                &format!("records\",\n  {{\n    {shape}"),
                &format!(
                    "records\",\n  {{\n    {shape}\n    fields: z.array(z.string()).min(1).optional().describe(\"Keys to keep in each record.\"),"
                ),
            ),
            hunk(
                "async ({ city }) => ({\n    content: [\n",
                "async ({ city, fields }) => ({\n    content: [\n",
            ),
            hunk(
                "PEOPLE.filter((p) => city === undefined || p.city === city),",
                &format!(
                    "PEOPLE.filter((p) => city === undefined || p.city === city).map((p) => (fields ? {pick} : p)),"
                ),
            ),
        ],
        vec![Effect::Project {
            tool: "list_people".into(),
            param: "fields".into(),
        }],
    )
}

#[test]
fn the_rules_fields_keeps_the_listed_keys_and_commits_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "records", &dir.path().join("w"));
    // Offered only where the answers are known to be JSON records.
    assert!(
        given::expansion_claiming(&work, "list_people", false, |e| matches!(
            e,
            Effect::Project { .. }
        ))
        .is_none()
    );
    let proposal = given::expansion_claiming(&work, "list_people", true, |e| {
        matches!(e, Effect::Project { .. })
    })
    .expect("some seed adds fields");
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    let at = written.find("fields: ").expect("fields in the shape");
    let entry = written[at..].lines().next().unwrap();
    assert!(
        entry.contains("z.array(z.string())") && entry.contains(".optional()"),
        "{entry}"
    );
    let (round, claim) = given::claim_checked(&rt, &work, proposal, |e| {
        matches!(e, Effect::Project { .. })
    });
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    // Half of the first record's four keys.
    assert_eq!(
        claim.arguments["fields"],
        serde_json::json!(["name", "age"]),
        "{claim:?}"
    );
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_claimed_projection_that_the_code_does_not_make_is_rejected() {
    let (status, reason, _) = round_with(&claimed_projection("p"));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("as claimed"), "{reason}");
}

#[test]
fn a_projection_that_keeps_the_keys_not_listed_is_rejected() {
    let (status, reason, _) = round_with(&claimed_projection(
        "Object.fromEntries(Object.entries(p).filter(([k]) => !fields.includes(k)))",
    ));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("as claimed"), "{reason}");
}

#[test]
fn the_honest_counterpart_of_the_given_projection_commits() {
    let (status, reason, round) = round_with(&claimed_projection(
        "Object.fromEntries(Object.entries(p).filter(([k]) => fields.includes(k)))",
    ));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    assert!(round.unwrap().proof.is_proven(), "{reason}");
}

#[test]
fn a_projection_not_made_is_rejected_where_the_answers_change_from_call_to_call() {
    // `poll_people` counts its calls: its answers are never equal, so only the keys of the
    // claimed answer can show the projection, and here they are all still there.
    let backend = given::proposal(
        "O5",
        &["poll_people"],
        &[],
        vec![hunk(
            "    city: z.string().optional().describe(\"Only the people of this city\"),\n  },\n  async ({ city }) => {\n    polls",
            "    city: z.string().optional().describe(\"Only the people of this city\"),\n    fields: z.array(z.string()).min(1).optional().describe(\"Keys to keep in each record.\"),\n  },\n  async ({ city }) => {\n    polls",
        )],
        vec![Effect::Project {
            tool: "poll_people".into(),
            param: "fields".into(),
        }],
    );
    let (status, reason, _) = round_with(&backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("not cut as claimed"), "{reason}");
}
