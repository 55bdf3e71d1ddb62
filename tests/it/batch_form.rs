//! A batch form as a new tool: the rules add `<tool>_batch`, which takes `items` (argument sets
//! of the tool) and answers each set's answer in order, and claim it; the oracle calls it with
//! two sets and sees both answers, and the addition commits proven. A batch form that answers
//! one set only, or does not run the tool at all, is rejected; so is one whose loop sits inside
//! the gate the tool's handler is passed through (each set must meet it, as a call does).

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::mutate::{Aliases, ConstraintKind, Context, Proposal, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Compared, Effect, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk, one_round};

/// The rules' Tool Addition on `count_fruit` of the fixture in `work`, for the first seed that
/// makes a batch form.
fn batch_of_count(work: &std::path::Path) -> Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let avoid = ["list_fruit".to_string()];
    (1..60)
        .map(|seed| {
            let ctx = Context {
                root: work,
                inventory: &inventory,
                seed,
                avoid: &avoid,
                answering: &["count_fruit".into()],
                multiline: &[],
                json: &[],
                constraint: ConstraintKind::Bound,
                aliases: Aliases::Allowed,
            };
            rules::propose(Builtin::ToolAddition, &ctx).unwrap()
        })
        .find(|p| p.effects.iter().any(|e| matches!(e, Effect::Batch { .. })))
        .expect("some seed adds a batch form")
}

fn round_with(backend: &mcpevol::evolve::Backend) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "pages", &dir.path().join("w"));
    one_round(&rt, &work, backend)
}

/// `count_fruit_batch` registered beside `count_fruit` with `body` as its handler's body (it
/// sees `items`), claimed as a batch form of `count_fruit`.
fn claimed_batch(body: &str) -> mcpevol::evolve::Backend {
    let anchor = "await server.connect(";
    given::proposal(
        "O1",
        &["count_fruit"],
        &["count_fruit_batch"],
        vec![hunk(
            anchor,
            &format!(
                "server.tool(\n  \"count_fruit_batch\",\n  \"Count the fruit for each of several texts, in order\",\n  {{ items: z.array(z.object({{ text: z.string() }})).min(1) }},\n  async ({{ items }}) => {{ {body} }},\n);\n\n{anchor}"
            ),
        )],
        vec![Effect::Batch {
            tool: "count_fruit_batch".into(),
            source: "count_fruit".into(),
            items: "items".into(),
        }],
    )
}

/// Commits `proposal` on `work` and asserts its batch claim passed, compared by output, on two
/// argument sets, and the version proven.
pub(crate) fn proven_by_two_sets(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    proposal: Proposal,
) {
    let (round, claim) =
        given::claim_checked(rt, work, proposal, |e| matches!(e, Effect::Batch { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    assert_eq!(
        claim.arguments["items"].as_array().map(Vec::len),
        Some(2),
        "{claim:?}"
    );
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

/// Commits `proposal` on `work` with its loop over the argument sets (`loops`) made `first`
/// (a loop over the first set only), and asserts the version is rejected for its answer to
/// two sets.
pub(crate) fn rejected_with_first_set_only(
    rt: &tokio::runtime::Runtime,
    work: &std::path::Path,
    mut proposal: Proposal,
    loops: &str,
    first: &str,
) {
    let broken = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains(loops))
        .expect("the loop over the sets");
    broken.replace = broken.replace.replace(loops, first);
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(rt, work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("2 argument sets"), "{reason}");
}

#[test]
fn the_rules_batch_form_runs_the_tool_on_each_set_and_commits_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "pages", &dir.path().join("w"));
    let proposal = batch_of_count(&work);
    assert_eq!(proposal.added, ["count_fruits"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(written.contains("items: z.array(z.object({"), "{written}");
    // What the description says is what the handler does: at most ten sets, stop at an error.
    assert!(
        written.contains(".max(10)") && written.contains("10"),
        "{written}"
    );
    assert!(written.contains("if (answer?.isError)"), "{written}");
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_batch_form_that_answers_its_first_set_only_is_rejected() {
    let (status, reason, _) = round_with(&claimed_batch(
        "const text = items[0].text; return { content: [{ type: \"text\", text: String(FRUIT.filter((f) => f.includes(text)).length) }] };",
    ));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("2 argument sets"), "{reason}");
}

#[test]
fn a_batch_form_that_does_not_run_the_tool_is_rejected() {
    let (status, reason, _) = round_with(&claimed_batch(
        "return { content: items.map(() => ({ type: \"text\", text: \"done\" })) };",
    ));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("2 argument sets"), "{reason}");
}

#[test]
fn the_honest_counterpart_of_the_given_batch_form_commits() {
    let (status, reason, round) = round_with(&claimed_batch(
        "return { content: items.map(({ text }) => ({ type: \"text\", text: String(FRUIT.filter((f) => f.includes(text)).length) })) };",
    ));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    assert!(round.unwrap().proof.is_proven(), "{reason}");
}

/// The rules' Tool Addition on `get_forecast` of `fixtures/switch-esm` (listed by a JSON
/// definition, routed by `switch (request.params.name)`), for the first seed that makes a
/// batch form, in a fresh workspace.
fn listed_batch(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    listed_batch_of(rt, dir, "switch-esm", "get_forecast")
}

/// [`listed_batch`] on `tool` of `fixtures/FIXTURE`.
fn listed_batch_of(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
    fixture: &str,
    tool: &str,
) -> (std::path::PathBuf, Proposal) {
    let work = dir.join("w");
    common::require_npm_install(&common::repo().join("fixtures"));
    let fixture = common::repo().join("fixtures").join(fixture);
    rt.block_on(mcpevol::init::init(
        &fixture.to_string_lossy(),
        &work,
        &mcpevol::init::InitOptions::new(None),
    ))
    .unwrap();
    let proposal = given::addition_claiming(&work, tool, Aliases::Allowed, |e| {
        matches!(e, Effect::Batch { .. })
    });
    (work, proposal)
}

#[test]
fn a_listed_tool_routed_by_a_switch_gets_a_plural_batch_form_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = listed_batch(&rt, dir.path());
    assert_eq!(proposal.added, ["get_forecasts"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(written.contains("case \"get_forecasts\":"), "{written}");
    assert!(written.contains("items: { type: \"array\""), "{written}");
    // The most sets its description states is enforced by the wrapper: a low-level server
    // does not enforce its listed `maxItems`.
    assert!(written.contains("sets.length > 10"), "{written}");
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_listed_batch_form_that_runs_its_first_set_only_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = listed_batch(&rt, dir.path());
    rejected_with_first_set_only(
        &rt,
        &work,
        proposal,
        "for (const set of sets)",
        "for (const set of sets.slice(0, 1))",
    );
}

#[test]
fn a_tool_defined_as_a_constant_gets_a_constant_of_its_batch_form_listed_beside_it() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = listed_batch_of(&rt, dir.path(), "oracle/held-tools", "get_note");
    assert_eq!(proposal.added, ["get_notes"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(written.contains("const GET_NOTES_TOOL = {"), "{written}");
    // Declared, and listed.
    assert_eq!(written.matches("GET_NOTES_TOOL").count(), 2, "{written}");
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_registration_that_reads_a_constants_fields_gets_a_batch_form_copied_from_its_call() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "held-fields", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    assert_eq!(proposal.added, ["get_notes"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("inputSchema: { items: z.array(z.object({"),
        "{written}"
    );
    proven_by_two_sets(&rt, &work, proposal);
}

/// The batch form of the oracle fixture `fixture`'s `get_note`, copied from its call, made to
/// run its first set only, is rejected.
fn call_batch_of_first_set_only_is_rejected(fixture: &str) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, fixture, &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    rejected_with_first_set_only(
        &rt,
        &work,
        proposal,
        "for (const set of sets)",
        "for (const set of sets.slice(0, 1))",
    );
}

#[test]
fn a_batch_form_copied_from_a_call_that_runs_its_first_set_only_is_rejected() {
    call_batch_of_first_set_only_is_rejected("held-fields");
}

#[test]
fn a_registration_whose_handler_a_call_makes_gets_a_batch_form_that_makes_it_again() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "made-handlers", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    // The copy runs the handler the same call makes: `noteTool(GET_NOTE)`, not another's.
    assert!(written.contains("= noteTool(GET_NOTE);"), "{written}");
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_batch_form_of_a_made_handler_that_runs_its_first_set_only_is_rejected() {
    call_batch_of_first_set_only_is_rejected("made-handlers");
}

#[test]
fn the_batch_forms_of_each_style_match_their_snapshot() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut out = String::new();
    for (fixture, tool) in [
        ("held-fields", "get_note"),
        ("held-tools", "get_note"),
        ("py-forms", "get_note"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let work = common::oracle_fixture(&rt, fixture, &dir.path().join("w"));
        let p = given::addition_claiming(&work, tool, Aliases::Refused, |e| {
            matches!(e, Effect::Batch { .. })
        });
        out.push_str(&format!("# {fixture}\n{}\n", given::rendered(&p)));
    }
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("batch-forms", out);
    });
}

#[test]
fn a_release_adds_no_alias_where_no_form_fits_and_a_round_still_may() {
    common::require_npm_install(&common::repo().join("fixtures"));
    // Tools declared as classes: an alias can be derived, no batch or single form written.
    let root = common::repo().join("fixtures/class-tools");
    let propose = |aliases| {
        given::rules_try(
            &root,
            Builtin::ToolAddition,
            None,
            ConstraintKind::Bound,
            aliases,
        )
    };
    let refused = propose(Aliases::Refused).expect_err("a release writes no alias");
    assert!(
        refused
            .to_string()
            .contains("no new tool the rules can write fits it"),
        "{refused}"
    );
    let round = propose(Aliases::Allowed).expect("a round falls back on an alias");
    let source = &round.targets[0];
    assert!(
        round.added[0].starts_with(&format!("{source}_")),
        "{:?}",
        round.added
    );
}

/// The batch form's handler is a function of its own, not a wrapper: two later changes that
/// each add a parameter to the batch form leave one wrapper around it, and none stacked.
#[test]
fn a_batch_form_changed_twice_later_holds_one_wrapper() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // A tool whose answer is several lines, which a new parameter can be seen cutting.
    let work = common::oracle_fixture(&rt, "pages", &dir.path().join("w"));
    let proposal = given::addition_claiming(&work, "list_fruit", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    let batch = proposal.added[0].clone();
    let (round, _) =
        given::claim_checked(&rt, &work, proposal, |e| matches!(e, Effect::Batch { .. }));
    assert!(round.proof.is_proven(), "{:?}", round.proof);
    let before = std::fs::read_to_string(work.join("server.js")).unwrap();
    assert_eq!(mcpevol::realism::wrappers(&before), (0, 0), "{before}");
    // The first change adds one cut by characters, so that a cut by lines is left to add.
    for i in 0..2 {
        let proposal = given::expansion_where(&work, &batch, false, |p| match i {
            0 => matches!(p.effects[..], [Effect::TruncateChars { .. }]),
            _ => p.effects.iter().any(|e| e.param().is_some()),
        })
        .expect("some seed adds a parameter to the batch form");
        let backend = mcpevol::evolve::Backend::Given {
            proposal: Box::new(proposal),
        };
        let (status, reason, _) = given::one_round(&rt, &work, &backend);
        assert_eq!(status, RoundStatus::Committed, "{reason}");
    }
    let text = std::fs::read_to_string(work.join("server.js")).unwrap();
    assert_eq!(mcpevol::realism::wrappers(&text), (1, 0), "{text}");
}

/// The rules' batch form of `get_stock` of `fixtures/oracle/structured`, a tool that declares
/// an output schema, in a fresh workspace.
fn structured_batch(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, "structured", &dir.join("w"));
    let proposal = given::addition_claiming(&work, "get_stock", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    (work, proposal)
}

#[test]
fn a_tool_with_an_output_schema_gets_a_batch_form_without_it_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = structured_batch(&rt, dir.path());
    assert_eq!(proposal.added, ["get_stocks"], "{}", proposal.summary);
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    // The batch form, written beside the tool (whose own registration is left as it was),
    // declares no output schema.
    assert!(written.contains("\"get_stocks\""), "{written}");
    assert!(!written.contains("outputSchema"), "{written}");
    insta::assert_snapshot!("batch-without-output", given::rendered(&proposal));
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_batch_form_that_keeps_the_copied_output_schema_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = structured_batch(&rt, dir.path());
    let copy = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains("\"get_stocks\""))
        .expect("the batch form's registration");
    // The broken version: the copy keeps the output schema its joined answer does not fill.
    copy.replace = copy.replace.replacen(
        "inputSchema:",
        "outputSchema: { fruit: z.string(), count: z.number() },\n    inputSchema:",
        1,
    );
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(
        reason.contains("get_stocks") && reason.contains("no structured content"),
        "{reason}"
    );
}

/// The rules' batch form of `get_note` in `fixtures/oracle/gated`, whose handler the server
/// passes through a gate (`gated(accountConfigured, handler)`, a fixed notice while no account
/// is configured), in a fresh workspace.
fn gated_batch(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, "gated", &dir.join("w"));
    let proposal = given::addition_claiming(&work, "get_note", Aliases::Refused, |e| {
        matches!(e, Effect::Batch { .. })
    });
    (work, proposal)
}

#[test]
fn a_batch_form_runs_each_set_through_the_gate_the_tools_handler_is_passed_through() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = gated_batch(&rt, dir.path());
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    assert!(
        written.contains("const runOne = gated(accountConfigured, async ({ title }) =>"),
        "{written}"
    );
    proven_by_two_sets(&rt, &work, proposal);
}

#[test]
fn a_batch_form_whose_loop_sits_inside_the_gate_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = gated_batch(&rt, dir.path());
    // The loop passed through the gate once, over a copy of the handler without it: the gate
    // answers its notice once for the whole batch.
    let hunk = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains("const runOne = gated("))
        .expect("the batch form");
    hunk.replace = hunk
        .replace
        .replacen(
            "async (args, ...rest) => {",
            "gated(accountConfigured, async (args, ...rest) => {",
            1,
        )
        .replacen(
            "const runOne = gated(accountConfigured, ",
            "const runOne = (",
            1,
        )
        .replacen("return { content };\n  }", "return { content };\n  })", 1);
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("2 argument sets"), "{reason}");
}
