//! A required parameter made optional (P13), or an optional one given another default
//! (`other`), is proven by a call without it answering as a call with the default its schema now
//! declares: the rules' demotion and changed default (zod `.default(...)`) commit proven by that
//! check; a demotion or a new default the handler ignores is rejected. A default a description
//! states, declared in the schema (`other`), commits where the handler used it and is rejected
//! where it used another. An optional parameter
//! made required (P13) is proven by the previous call without it refused; one the server does
//! not require is rejected.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Check, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk, one_round};

/// The rules' Constraint Mutation of the kind asked for on `tool` of the fixture in `work`,
/// written as `written`, committed: its record.
fn committed(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    (kind, tool): (ConstraintKind, &str),
    written: &str,
) -> RoundRecord {
    let proposal = constraint_mutation(work, kind, &[]);
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

/// The rules' Constraint Mutation of the kind asked for, on the fixture in `work`, on a tool
/// not in `avoid`.
fn constraint_mutation(
    work: &std::path::Path,
    kind: ConstraintKind,
    avoid: &[String],
) -> mcpevol::mutate::Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let ctx = Context {
        root: work,
        inventory: &inventory,
        seed: 1,
        avoid,
        answering: &[],
        multiline: &[],
        json: &[],
        constraint: kind,
        aliases: mcpevol::mutate::Aliases::Allowed,
    };
    rules::propose(Builtin::ConstraintMutation, &ctx).unwrap()
}

/// The round's one schema change is a changed default.
fn only_a_default_changed(round: &RoundRecord) {
    let kinds: Vec<_> = round.schema_changes.iter().map(|c| c.kind()).collect();
    assert_eq!(
        kinds,
        [mcpevol::schema::ChangeKind::ParamDefaultChanged],
        "{:?}",
        round.schema_changes
    );
}

/// The round's call of `tool` as before, passed.
fn passed_as_before<'a>(round: &'a RoundRecord, tool: &str) -> &'a mcpevol::validate::TestResult {
    let before = round
        .tests
        .iter()
        .find(|t| t.tool == tool && t.check == Check::AsBefore)
        .unwrap_or_else(|| panic!("{tool} called as before"));
    assert_eq!(before.verdict, Verdict::Passed, "{before:?}");
    before
}

/// The rules' demotion of `convert`'s `metres` on oracle fixture `fixture`, written as
/// `written`: committed, proven by a call without `metres` that passed.
fn demoted(fixture: &str, written: &str) -> RoundRecord {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, fixture, &dir.path().join("w"));
    let round = committed(&rt, &work, (ConstraintKind::Demotion, "convert"), written);
    let kinds: Vec<_> = round.schema_changes.iter().map(|c| c.kind()).collect();
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
    round
}

#[test]
fn the_rules_demotion_commits_proven_by_a_call_without_the_parameter() {
    demoted("demote", ".default(1).describe(");
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
    only_a_default_changed(&round);
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
    let before = passed_as_before(&round, "convert");
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

/// The rules' declared default of `tool` on `fixtures/oracle/declare` (every other tool
/// avoided), written as `written`, with the round's status, reason and record.
fn declared(tool: &str, written: &str) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "declare", &dir.path().join("w"));
    let others: Vec<String> = ["shout", "whisper", "quote", "title"]
        .into_iter()
        .filter(|t| *t != tool)
        .map(str::to_string)
        .collect();
    let proposal = constraint_mutation(&work, ConstraintKind::Redefault, &others);
    assert_eq!(proposal.targets, [tool], "{}", proposal.summary);
    assert!(
        proposal.hunks.iter().any(|h| h.replace.contains(written)),
        "{:?}",
        proposal.hunks
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    one_round(&rt, &work, &backend)
}

#[test]
fn the_default_a_description_states_is_declared_and_commits_proven_where_the_handler_uses_it() {
    let (_, reason, round) = declared("shout", ".optional().default(1).describe(");
    let round = round.expect(&reason);
    only_a_default_changed(&round);
    // The previous call, without `marks`, now gets the declared 1 and answers as before.
    let before = passed_as_before(&round, "shout");
    assert!(before.arguments.get("marks").is_none(), "{before:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_stated_default_the_handler_never_used_is_rejected_once_declared() {
    let (status, reason, _) = declared("whisper", ".optional().default(3).describe(");
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    // Its previous call, without `dots`, got one dot; it gets the declared three now.
    assert!(
        reason.contains("`whisper`") && reason.contains("`test.` became `test...`"),
        "{reason}"
    );
}

#[test]
fn a_boolean_no_words_give_a_default_is_declared_false_and_commits_where_false_is_what_it_read() {
    let (_, reason, round) = declared("quote", ".optional().default(false).describe(");
    let round = round.expect(&reason);
    passed_as_before(&round, "quote");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_boolean_declared_false_where_the_handler_read_it_as_true_is_rejected() {
    let (status, reason, _) = declared("title", ".optional().default(false).describe(");
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("`title`") && reason.contains("differs from the previous version"),
        "{reason}"
    );
}

#[test]
fn a_json_schema_boolean_declared_false_commits_proven_by_a_call_without_it_answering_as_with_false()
 {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "content", &dir.path().join("w"));
    let round = committed(
        &rt,
        &work,
        (ConstraintKind::Redefault, "greet"),
        "loud: { default: false, type:",
    );
    only_a_default_changed(&round);
    // Nothing hands the handler a JSON schema's default: the call without `loud` answering as
    // one with `false` is what shows the declared default true.
    let defaulted = round
        .tests
        .iter()
        .find(|t| {
            t.check
                == Check::Defaulted {
                    param: "loud".into(),
                }
        })
        .expect("a call of greet without loud");
    assert_eq!(defaulted.verdict, Verdict::Passed, "{defaulted:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_demotion_of_a_chain_that_goes_on_after_its_description_writes_the_default_at_its_end() {
    // Before `.describe(...)`, the default cut the chain (`.default(..).describe(..).min(0)`):
    // the server threw at load and the round could not commit.
    demoted(
        "demote-chain",
        r#".min(0, { message: "A length is at least 0." }).default("#,
    );
}
