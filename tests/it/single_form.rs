//! A single form as a new tool: beside a tool that takes a list (`add_tags` taking `tags`), the
//! rules add the tool for one entry (`add_tag`, taking one tag's fields) and claim it; the
//! oracle calls it with the first entry of the tool's previous call and sees the tool's answer
//! to a list of that one entry, and the addition commits proven. A single form that passes its
//! arguments on without making them a list is rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::mutate::{Aliases, Proposal};
use mcpevol::validate::{Compared, Effect, Verdict};

use crate::common::given::{self, one_round};

/// The rules' Tool Addition on `tool` of `fixtures/oracle/FIXTURE`, as a release asks for it
/// (no alias copies), for the first seed that makes a single form, in a fresh workspace.
fn single_of(
    rt: &tokio::runtime::Runtime,
    dir: &std::path::Path,
    fixture: &str,
    tool: &str,
) -> (std::path::PathBuf, Proposal) {
    let work = common::oracle_fixture(rt, fixture, &dir.join("w"));
    let proposal = given::addition_claiming(&work, tool, Aliases::Refused, |e| {
        matches!(e, Effect::Single { .. })
    });
    (work, proposal)
}

/// Commits `proposal` on `work` and asserts its single-form claim passed, compared by output.
fn proven_by_one_entry(rt: &tokio::runtime::Runtime, work: &std::path::Path, proposal: Proposal) {
    let (round, claim) =
        given::claim_checked(rt, work, proposal, |e| matches!(e, Effect::Single { .. }));
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert_eq!(claim.compared, Some(Compared::Output), "{claim:?}");
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

fn written(proposal: &Proposal) -> String {
    proposal.hunks.iter().map(|h| h.replace.as_str()).collect()
}

#[test]
fn a_listed_tool_that_takes_a_list_of_objects_gets_a_single_form_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "list-tools", "add_tags");
    assert_eq!(proposal.added, ["add_tag"], "{}", proposal.summary);
    let written = written(&proposal);
    assert!(written.contains("case \"add_tag\":"), "{written}");
    assert!(
        written.contains("const set = { \"tags\": [input] };"),
        "{written}"
    );
    proven_by_one_entry(&rt, &work, proposal);
}

#[test]
fn a_listed_tool_that_takes_a_list_of_strings_gets_a_single_form_taking_one() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "list-tools", "open_notes");
    assert_eq!(proposal.added, ["open_note"], "{}", proposal.summary);
    let written = written(&proposal);
    assert!(
        written.contains("properties: { \"title\": { type: \"string\" } }, required: [\"title\"]"),
        "{written}"
    );
    proven_by_one_entry(&rt, &work, proposal);
}

#[test]
fn a_zod_registered_tool_that_takes_a_list_gets_a_single_form_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "list-tools-zod", "create_notes");
    assert_eq!(proposal.added, ["create_note"], "{}", proposal.summary);
    let written = written(&proposal);
    assert!(
        written.contains("{ title: z.string(), text: z.string() },"),
        "{written}"
    );
    proven_by_one_entry(&rt, &work, proposal);
}

#[test]
fn a_single_form_that_does_not_make_its_entry_a_list_is_rejected() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, mut proposal) = single_of(&rt, dir.path(), "list-tools-zod", "read_notes");
    let wraps = "{ \"titles\": [input[\"title\"]] }";
    let broken = (proposal.hunks.iter_mut())
        .find(|h| h.replace.contains(wraps))
        .expect("the list the single form makes");
    broken.replace = broken.replace.replace(wraps, "{ \"titles\": [] }");
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(proposal),
    };
    let (status, reason, _) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("is not `read_notes`'s answer"), "{reason}");
}

#[test]
fn the_single_forms_of_each_style_match_their_snapshot() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut out = String::new();
    for (fixture, tool) in [
        ("list-tools", "add_tags"),
        ("list-tools", "open_notes"),
        ("list-tools-zod", "create_notes"),
        ("list-tools-zod", "read_notes"),
        ("held-fields", "read_notes"),
        ("py-forms", "open_notes"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let (_, p) = single_of(&rt, dir.path(), fixture, tool);
        out.push_str(&format!("# {fixture}\n{}", given::rendered(&p)));
        out.push('\n');
    }
    insta::with_settings!({ snapshot_path => "../../snapshots", prepend_module_to_snapshot => false, omit_expression => true }, {
        insta::assert_snapshot!("single-forms", out);
    });
}

#[test]
fn a_decorated_python_tool_that_takes_a_list_gets_a_single_function_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "py-forms", "open_notes");
    assert_eq!(proposal.added, ["open_note"], "{}", proposal.summary);
    let written = written(&proposal);
    assert!(
        written.contains("async def open_note(title: str):"),
        "{written}"
    );
    assert!(
        written.contains("answer = run(titles=[title])"),
        "{written}"
    );
    proven_by_one_entry(&rt, &work, proposal);
}

#[test]
fn a_registration_that_reads_a_constants_fields_gets_a_single_form_copied_from_its_call() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "held-fields", "read_notes");
    assert_eq!(proposal.added, ["read_note"], "{}", proposal.summary);
    let written = written(&proposal);
    assert!(
        written.contains("inputSchema: { title: z.string() },"),
        "{written}"
    );
    proven_by_one_entry(&rt, &work, proposal);
}

/// A bound on a listed single form's parameter, added a version after the form: its check sits
/// ahead of the section that passes the form's call on, so a value beyond it is refused. Behind
/// that section (where new code went before), the check never ran and the change was dropped.
#[test]
fn a_bound_on_a_listed_single_forms_parameter_is_enforced_ahead_of_its_passing_on() {
    use mcpevol::mutate::ConstraintKind;
    use mcpevol::operators::Builtin;
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "list-tools", "add_tags");
    proven_by_one_entry(&rt, &work, proposal);
    let bound = given::rules_on_as(
        &work,
        Builtin::ConstraintMutation,
        "add_tag",
        ConstraintKind::Bound,
    );
    let backend = mcpevol::evolve::Backend::Given {
        proposal: Box::new(bound),
    };
    let (status, reason, round) = one_round(&rt, &work, &backend);
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    let round = round.unwrap();
    assert!(round.proof.is_proven(), "{:?}", round.proof);
    let text = std::fs::read_to_string(work.join("server.js")).unwrap();
    let (check_at, pass_at) = (text.find("must be at most"), text.find("const set = {"));
    assert!(check_at < pass_at, "{text}");
}

/// A zod single form's handler is a plain function over a copy of the tool's (not a wrapper),
/// so two later changes that each add a parameter to it leave one wrapper around it, none
/// stacked (memory's `delete_observation` had a wrapper stacked on the form's own).
#[test]
fn a_single_form_changed_twice_later_holds_one_wrapper() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (work, proposal) = single_of(&rt, dir.path(), "list-tools-zod", "create_notes");
    let single = proposal.added[0].clone();
    proven_by_one_entry(&rt, &work, proposal);
    let file = |w: &std::path::Path| std::fs::read_to_string(w.join("server.js")).unwrap();
    assert_eq!(
        mcpevol::realism::wrappers(&file(&work)),
        (0, 0),
        "{}",
        file(&work)
    );
    for _ in 0..2 {
        let proposal = given::expansion_where(&work, &single, false, |p| {
            p.effects.iter().any(|e| e.param().is_some())
        })
        .expect("some seed adds a parameter to the single form");
        let backend = mcpevol::evolve::Backend::Given {
            proposal: Box::new(proposal),
        };
        let (status, reason, _) = given::one_round(&rt, &work, &backend);
        assert_eq!(status, mcpevol::evolve::RoundStatus::Committed, "{reason}");
    }
    assert_eq!(
        mcpevol::realism::wrappers(&file(&work)),
        (1, 0),
        "{}",
        file(&work)
    );
}
