//! A new `offset` pages through a long answer: the rules give a tool whose answer is several
//! lines an optional `offset` whose code leaves out that many lines of each text part, and claim
//! it; the oracle sees the lines skipped and the change commits proven. A claimed skip that the
//! code does not make, or makes one line short, is rejected.

use crate::common;

use mcpevol::evolve::RoundStatus;
use mcpevol::mutate::{Aliases, ConstraintKind, Context, Proposal, rules};
use mcpevol::operators::Builtin;
use mcpevol::validate::{Effect, Verdict};
use mcpevol::version_record::RoundRecord;

use crate::common::given::{self, hunk, one_round};

/// The rules' Flexible Expansion on `list_fruit` of the fixture in `work`, for the first seed
/// that adds `offset`.
fn offset_on_list(work: &std::path::Path) -> Proposal {
    let inventory = mcpevol::anchor::anchor(work).unwrap();
    let avoid = ["count_fruit".to_string()];
    (1..60)
        .map(|seed| {
            let ctx = Context {
                root: work,
                inventory: &inventory,
                seed,
                avoid: &avoid,
                answering: &["list_fruit".into()],
                multiline: &["list_fruit".into()],
                json: &[],
                constraint: ConstraintKind::Bound,
                aliases: Aliases::Allowed,
            };
            rules::propose(Builtin::FlexibleExpansion, &ctx).unwrap()
        })
        .find(|p| {
            p.effects
                .iter()
                .any(|e| matches!(e, Effect::SkipLines { .. }))
        })
        .expect("some seed adds offset")
}

fn round_with(backend: &mcpevol::evolve::Backend) -> (RoundStatus, String, Option<RoundRecord>) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "pages", &dir.path().join("w"));
    one_round(&rt, &work, backend)
}

/// `list_fruit` given an optional `offset`, described as a skip of lines and claimed as one,
/// with `after` run on its answer (`limit` is the value sent, `text` the answer's text).
fn claimed_skip(after: &str) -> mcpevol::evolve::Backend {
    let shape = r#"contains: z.string().optional().describe("A text the names must contain"),"#;
    let handler = "async ({ contains }) => ({";
    given::proposal(
        "O5",
        &["list_fruit"],
        &[],
        vec![
            hunk(
                shape,
                &format!(
                    "{shape}\n    offset: z.number().int().min(1).optional().describe(\"How many lines to skip at the start of the answer.\"),"
                ),
            ),
            hunk(
                handler,
                "async ({ contains, offset }) => { const limit = offset; const done = ({",
            ),
            hunk(
                "  }),\n);\n\nserver.tool(\n  \"count_fruit\"",
                &format!(
                    "  }});\n  if (limit) {{ const text = done.content[0].text; done.content[0].text = {after}; }}\n  return done;\n  }},\n);\n\nserver.tool(\n  \"count_fruit\""
                ),
            ),
        ],
        vec![Effect::SkipLines {
            tool: "list_fruit".into(),
            param: "offset".into(),
        }],
    )
}

#[test]
fn the_rules_offset_leaves_out_the_first_lines_and_commits_proven_by_its_claim() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = common::oracle_fixture(&rt, "pages", &dir.path().join("w"));
    let proposal = offset_on_list(&work);
    let param = (proposal.effects.iter())
        .find_map(|e| match e {
            Effect::SkipLines { param, .. } => Some(param.clone()),
            _ => None,
        })
        .expect("a skip claimed");
    let written: String = proposal.hunks.iter().map(|h| h.replace.as_str()).collect();
    let entry = written
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{param}:")))
        .unwrap_or_else(|| panic!("the skip `{param}` in the shape: {written}"));
    assert!(
        entry.contains(".optional()") && entry.to_lowercase().contains("lines"),
        "{entry}"
    );
    let (round, claim) = given::claim_checked(&rt, &work, proposal, |e| {
        matches!(e, Effect::SkipLines { .. })
    });
    assert_eq!(claim.verdict, Verdict::Passed, "{claim:?}");
    assert!(
        claim.arguments[&param].as_u64().is_some_and(|n| n >= 1),
        "{claim:?}"
    );
    assert!(round.proof.is_proven(), "{:?}", round.proof);
}

#[test]
fn a_claimed_skip_that_the_code_does_not_make_is_rejected() {
    let (status, reason, _) = round_with(&claimed_skip("text"));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("cut as claimed"), "{reason}");
}

#[test]
fn a_skip_one_line_short_of_its_claim_is_rejected() {
    let (status, reason, _) = round_with(&claimed_skip(
        r#"text.split("\n").slice(limit - 1).join("\n")"#,
    ));
    assert_eq!(status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("cut as claimed"), "{reason}");
    // The difference named is the line that should have been left out (the oracle skips
    // half of the eight lines).
    assert!(reason.contains("became `4. damson"), "{reason}");
}

#[test]
fn the_honest_counterpart_of_the_given_skip_commits() {
    let (status, reason, round) =
        round_with(&claimed_skip(r#"text.split("\n").slice(limit).join("\n")"#));
    assert_eq!(status, RoundStatus::Committed, "{reason}");
    assert!(round.unwrap().proof.is_proven(), "{reason}");
}
