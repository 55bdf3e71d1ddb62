//! A new required parameter (P10) is proven by the previous call, which lacks it, now refused,
//! and by what it claims to do seen done: the rules add one to a zod shape (which refuses calls
//! without it) with a handler that uses it, and that commits proven; a required parameter the
//! server does not enforce, or one its handler ignores while its claim says otherwise, is
//! rejected. A claimed cut of an answer too short to cut shows nothing, and says so.

use crate::common;

use mcpevol::evolve::{Backend, RoundStatus};
use mcpevol::mutate::{Aliases, ConstraintKind, Context, rules};
use mcpevol::operators::Builtin;
use mcpevol::release::{Label, classify};
use mcpevol::schema::ChangeKind;
use mcpevol::validate::{Check, Effect, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk, one_round};

/// The rules' Constraint Mutation that adds a required parameter, on the fixture in `work`:
/// the first seed's that adds `max_chars` (the fixture's answers are one line each, so a
/// `max_lines` has nothing to cut there).
fn new_required(work: &std::path::Path) -> mcpevol::mutate::Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    (1..40)
        .map(|seed| {
            let ctx = Context {
                root: work,
                inventory: &inventory,
                seed,
                avoid: &[],
                answering: &[],
                multiline: &[],
                json: &[],
                constraint: ConstraintKind::NewRequired,
                aliases: Aliases::Allowed,
            };
            rules::propose(Builtin::ConstraintMutation, &ctx).unwrap()
        })
        .find(|p| matches!(p.effects[..], [Effect::TruncateChars { .. }]))
        .expect("some seed adds max_chars")
}

#[test]
fn the_rules_new_required_parameter_commits_proven_by_the_old_call_refused_and_its_cut_seen() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "demote", &dir.path().join("w"));
    let proposal = new_required(&work);
    let [tool] = &proposal.targets[..] else {
        panic!("one target: {proposal:?}")
    };
    let [Effect::TruncateChars { param, .. }] = &proposal.effects[..] else {
        panic!("one cut claimed: {:?}", proposal.effects)
    };
    let param = param.clone();
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    let entry = written
        .lines()
        .find(|l| l.contains(&format!("{param}:")))
        .expect("the new parameter in the shape");
    assert!(
        entry.contains(".min(1).describe(") && !entry.contains(".optional()"),
        "{entry}"
    );
    assert!(
        !entry.contains("Leave it out") && !entry.contains("Without it"),
        "a required parameter described as one that may be left out: {entry}"
    );
    let backend = Backend::Given {
        proposal: Box::new(proposal.clone()),
    };
    let (_, reason, round) = one_round(&rt, &work, &backend);
    let round = round.expect(&reason);
    let added: Vec<_> = round
        .schema_changes
        .iter()
        .filter(|c| c.kind() == ChangeKind::ParamAdded)
        .collect();
    assert_eq!(added.len(), 1, "{:?}", round.schema_changes);
    assert_eq!(added[0].required(), Some(true), "{:?}", added[0]);
    assert_eq!(
        classify(&round.schema_changes).events,
        [Label::parse("P10").unwrap()],
        "a new required parameter alone is P10"
    );
    let check = |wanted: &dyn Fn(&Check) -> bool, what: &str| {
        let t = round
            .tests
            .iter()
            .find(|t| t.tool == *tool && wanted(&t.check))
            .unwrap_or_else(|| panic!("{what}: {:?}", round.tests));
        assert_eq!(t.verdict, Verdict::Passed, "{what}: {t:?}");
        t.clone()
    };
    let refused = check(
        &|c| {
            *c == Check::Required {
                param: param.clone(),
            }
        },
        "the previous call without the new parameter",
    );
    assert!(refused.arguments.get(&param).is_none(), "{refused:?}");
    let cut = check(
        &|c| matches!(c, Check::Claim { effect } if effect.param() == Some(param.as_str())),
        "the claimed cut",
    );
    assert!(cut.arguments.get(&param).is_some(), "{cut:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

/// One round of `backend` on a fresh copy of `fixtures/oracle/<fixture>`.
fn round_on(fixture: &str, backend: &Backend) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, fixture, &dir.path().join("w"));
    one_round(&rt, &work, backend)
}

/// `convert` of `fixtures/oracle/demote` given a new parameter, `entry` in its shape, that
/// its handler never reads, claiming `effect` of it.
fn ignored_by_convert(operator: &str, entry: &str, effect: Effect) -> Backend {
    let unit = r#"unit: z.enum(["ft", "m", "in"]).describe("The unit to convert to"),"#;
    given::proposal(
        operator,
        &["convert"],
        &[],
        vec![hunk(unit, &format!("{unit}\n    {entry}"))],
        vec![effect],
    )
}

#[test]
fn a_new_required_parameter_the_server_does_not_enforce_is_rejected() {
    let backend = given::proposal(
        "O6",
        &["greet"],
        &[],
        vec![
            hunk(
                r#"loud: { type: "boolean", description: "Shout the greeting" } },"#,
                r#"loud: { type: "boolean", description: "Shout the greeting" }, times: { type: "integer", minimum: 1, description: "How many greetings" } },"#,
            ),
            hunk(r#"required: ["name"],"#, r#"required: ["name", "times"],"#),
        ],
        Vec::new(),
    );
    let (status, reason, _) = round_on("content", &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("without `times`, required now, it still answers"),
        "{reason}"
    );
}

#[test]
fn a_new_required_parameter_whose_handler_ignores_its_claimed_cut_is_rejected() {
    let backend = ignored_by_convert(
        "O6",
        r#"max_chars: z.number().int().min(1).describe("Cut the answer to at most this many characters."),"#,
        Effect::TruncateChars {
            tool: "convert".into(),
            param: "max_chars".into(),
        },
    );
    let (status, reason, _) = round_on("demote", &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("not cut as claimed"), "{reason}");
}

#[test]
fn a_claimed_cut_of_an_answer_too_short_to_cut_proves_nothing() {
    // `convert` answers one line; its new `max_lines` is never read by the handler, so a cut
    // answer and an uncut one are the same text.
    let backend = ignored_by_convert(
        "O5",
        r#"max_lines: z.number().int().min(1).optional().describe("Keep at most this many lines of the answer."),"#,
        Effect::TruncateLines {
            tool: "convert".into(),
            param: "max_lines".into(),
        },
    );
    let (_, reason, round) = round_on("demote", &backend);
    let round = round.expect(&reason);
    let claim = round
        .tests
        .iter()
        .find(|t| matches!(t.check, Check::Claim { .. }))
        .expect("the claim checked");
    assert_eq!(claim.verdict, Verdict::Unverifiable, "{claim:?}");
    assert!(
        claim
            .reason
            .as_deref()
            .unwrap_or("")
            .contains("long enough"),
        "{claim:?}"
    );
    assert!(!round.proof.is_proven(), "{:?}", round.proof);
}
