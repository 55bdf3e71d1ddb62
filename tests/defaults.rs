//! A required parameter made optional (P13), or an optional one given another default
//! (`other`), is proven by a call without it answering as a call with the default its schema now
//! declares: the rules' demotion and changed default (zod `.default(...)`) commit proven by that
//! check; a demotion or a new default the handler ignores is rejected. An optional parameter
//! made required (P13) is proven by the previous call without it refused; one the server does
//! not require is rejected.

mod common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Check, Verdict};
use mcpevol::version_record::RoundRecord;

use common::given::{self, hunk, one_round};

/// The rules' Constraint Mutation of the kind asked for on `tool` of the fixture in `work`,
/// written as `written`, committed: its record.
fn committed(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    (kind, tool): (ConstraintKind, &str),
    written: &str,
) -> RoundRecord {
    let proposal = constraint_mutation(work, kind);
    assert_eq!(proposal.targets, [tool], "{}", proposal.summary);
    assert!(
        proposal.hunks[0].replace.contains(written),
        "{:?}",
        proposal.hunks
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (_, reason, round) = one_round(rt, work, &backend);
    round.expect(&reason)
}

/// The rules' Constraint Mutation of the kind asked for, on the fixture in `work`.
fn constraint_mutation(work: &std::path::Path, kind: ConstraintKind) -> mcpevol::mutate::Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let ctx = Context {
        root: work,
        inventory: &inventory,
        seed: 1,
        avoid: &[],
        answering: &[],
        multiline: &[],
        constraint: kind,
    };
    rules::propose(Builtin::ConstraintMutation, &ctx).unwrap()
}

#[test]
fn the_rules_demotion_commits_proven_by_a_call_without_the_parameter() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let round = committed(
        &rt,
        &work,
        (ConstraintKind::Demotion, "convert"),
        ".default(1).describe(",
    );
    let kinds: Vec<_> = round.schema_changes.iter().map(|c| c.kind).collect();
    assert!(
        kinds.contains(&mcpevol::schema::ChangeKind::ParamRequiredChanged),
        "{kinds:?}"
    );
    let check = round
        .tests
        .iter()
        .find(|t| {
            t.check
                == Check::Defaulted {
                    param: "metres".into(),
                }
        })
        .expect("a call of convert without metres");
    assert_eq!(check.verdict, Verdict::Passed, "{check:?}");
    assert!(check.arguments.get("metres").is_none(), "{check:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

/// `greet`'s `name` made optional with a declared default, on the JSON-schema server of
/// `fixtures/oracle/content`; `handler` is what the handler reads `name` as.
fn demotion(handler: &str) -> Backend {
    let mut hunks = vec![
        hunk(
            r#"properties: { name: { type: "string" }, loud"#,
            r#"properties: { name: { type: "string", default: "world" }, loud"#,
        ),
        hunk(r#"required: ["name"],"#, "required: [],"),
    ];
    if !handler.is_empty() {
        hunks.push(hunk("${request.params.arguments.name}", handler));
    }
    given::proposal("O6", &["greet"], &[], hunks, Vec::new())
}

#[test]
fn a_demotion_whose_handler_ignores_the_declared_default_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "content", &dir.path().join("broken"));
    let (status, reason, _) = one_round(&rt, &work, &demotion(""));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("without `name`") && reason.contains("\"world\""),
        "{reason}"
    );

    // The handler that falls back to the default commits, proven by the same call.
    let work = common::oracle_fixture(&rt, "content", &dir.path().join("honest"));
    let backend = demotion(r#"${request.params.arguments.name ?? "world"}"#);
    let (_, reason, round) = one_round(&rt, &work, &backend);
    let round = round.expect(&reason);
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn the_rules_changed_default_commits_proven_and_old_calls_send_the_old_default() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let round = committed(
        &rt,
        &work,
        (ConstraintKind::Redefault, "convert"),
        ".default(6).describe(",
    );
    let kinds: Vec<_> = round.schema_changes.iter().map(|c| c.kind).collect();
    assert_eq!(
        kinds,
        [mcpevol::schema::ChangeKind::ParamDefaultChanged],
        "{:?}",
        round.schema_changes
    );
    let defaulted = round
        .tests
        .iter()
        .find(|t| {
            t.check
                == Check::Defaulted {
                    param: "digits".into(),
                }
        })
        .expect("a call of convert without digits");
    assert_eq!(defaulted.verdict, Verdict::Passed, "{defaulted:?}");
    assert!(defaulted.arguments.get("digits").is_none(), "{defaulted:?}");
    // The previous call still asks for three places, so it answers as before.
    let before = round
        .tests
        .iter()
        .find(|t| t.tool == "convert" && t.check == Check::AsBefore)
        .expect("convert called as before");
    assert_eq!(before.verdict, Verdict::Passed, "{before:?}");
    assert_eq!(before.arguments.get("digits"), Some(&serde_json::json!(3)));
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

/// Why an O6 edit of `greet` on the JSON-schema server of `fixtures/oracle/content`, `from`
/// written as `to`, was rejected (it must be).
fn rejected_greet(from: &str, to: &str) -> String {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "content", &dir.path().join("w"));
    let backend = given::proposal("O6", &["greet"], &[], vec![hunk(from, to)], Vec::new());
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    reason
}

#[test]
fn a_new_default_the_handler_ignores_is_rejected() {
    let reason = rejected_greet(
        r#"loud: { type: "boolean", description: "Shout the greeting" }"#,
        r#"loud: { type: "boolean", description: "Shout the greeting", default: true }"#,
    );
    assert!(
        reason.contains("without `loud`") && reason.contains("default true"),
        "{reason}"
    );
}

#[test]
fn the_rules_promotion_commits_proven_by_the_call_without_it_refused() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let round = committed(
        &rt,
        &work,
        (ConstraintKind::Promotion, "echo"),
        "z.number().int().min(1).max(5).describe(",
    );
    let required = round
        .tests
        .iter()
        .find(|t| {
            t.check
                == Check::Required {
                    param: "times".into(),
                }
        })
        .expect("a call of echo without times");
    assert_eq!(required.verdict, Verdict::Passed, "{required:?}");
    assert!(required.arguments.get("times").is_none(), "{required:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_promotion_the_server_does_not_enforce_is_rejected() {
    let reason = rejected_greet(r#"required: ["name"],"#, r#"required: ["name", "loud"],"#);
    assert!(
        reason.contains("without `loud`, required now, it still answers"),
        "{reason}"
    );
}
