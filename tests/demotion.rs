//! A required parameter made optional (P13) is proven by a call without it answering as a call
//! with the default its schema now declares: the rules' demotion (a zod `.default(...)`) commits
//! proven by that check; a demotion whose handler ignores the declared default is rejected.

mod common;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::mutate::{ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Check, Verdict};
use mcpevol::version_record::{RoundRecord, read_round};
use mcpevol::workspace::Workspace;

use common::given::{self, hunk};

/// One round of `backend` on the workspace `work`: its status and reason, and its record when
/// it committed.
fn one_round(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    backend: &Backend,
) -> (RoundStatus, String, Option<RoundRecord>) {
    let options = EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(1, 7)
    };
    let rounds = rt
        .block_on(evolve::evolve(work, backend, &options, |_| {}))
        .unwrap();
    let reason = rounds[0].reason.clone().unwrap_or_default();
    let ws = Workspace::open(work).unwrap();
    let record = (rounds[0].status == RoundStatus::Committed)
        .then(|| read_round(&ws, rounds[0].version).unwrap().unwrap());
    (rounds[0].status, reason, record)
}

#[test]
fn the_rules_demotion_commits_proven_by_a_call_without_the_parameter() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let inventory = mcpevol::anchor::anchor(&work).unwrap();
    let ctx = Context {
        root: &work,
        inventory: &inventory,
        seed: 1,
        avoid: &[],
        answering: &[],
        constraint: ConstraintKind::Demotion,
    };
    let proposal = rules::propose(Builtin::ConstraintMutation, &ctx).unwrap();
    assert_eq!(proposal.targets, ["convert"], "{}", proposal.summary);
    assert!(
        proposal.hunks[0].replace.contains(".default(1).describe("),
        "{:?}",
        proposal.hunks
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal),
    };
    let (_, reason, round) = one_round(&rt, &work, &backend);
    let round = round.expect(&reason);
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
