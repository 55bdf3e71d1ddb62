//! Proof that cannot be dodged, on `fixtures/oracle/guarded`: a switch server that answers an
//! empty result to any name missing from its own list of known tools, and whose `lookup`
//! needs a program that is not installed (a tool error offline).
//!
//! - An alias added to the tool list and the `switch` but not to the known list answers like
//!   a name the server never had: rejected, although its source tool's own check is only
//!   unverifiable.
//! - A description change of `lookup`, whose calls all fail at the original too, has no check
//!   that saw it work: committed as unproven with the reason, and refused with
//!   `--require-proof`. The same change of `echo` is proven.
//! - On `fixtures/oracle/error-text`, a failure answered as text without `isError` proves no
//!   change either.

use crate::common;

use std::path::Path;

use mcpevol::evolve::{self, Backend, EvolveOptions, RoundStatus};
use mcpevol::hunks::Hunk;
use mcpevol::validate::ProofStatus;
use mcpevol::version_record;
use mcpevol::workspace::Workspace;

use crate::common::given::hunk;

fn workspace(rt: &tokio::runtime::Runtime, dir: &Path, name: &str) -> std::path::PathBuf {
    common::oracle_fixture(rt, "guarded", &dir.join(name))
}

fn given(operator: &str, targets: &[&str], added: &[&str], hunks: Vec<Hunk>) -> Backend {
    common::given::proposal(operator, targets, added, hunks, Vec::new())
}

fn options(require_proof: bool) -> EvolveOptions {
    EvolveOptions {
        max_failed_rounds: 1,
        require_proof,
        ..EvolveOptions::new(1, 7)
    }
}

/// A description change of `tool` from `old` to `new`.
fn described(tool: &str, old: &str, new: &str) -> Backend {
    given(
        "O9",
        &[tool],
        &[],
        vec![hunk(
            &format!("description: \"{old}\""),
            &format!("description: \"{new}\""),
        )],
    )
}

/// An O4 alias `lookup_word` of `lookup`: listed, described and routed by the `switch`, and
/// added to the server's own list of known names only when `known`.
fn alias(known: bool) -> Backend {
    let mut hunks = vec![
        hunk(
            "description: \"Look a word up in the local dictionary program\",",
            "description: \"Look a word up in the local dictionary program. `lookup_word` is another name for this tool.\",",
        ),
        hunk(
            "    {\n      name: \"echo\",",
            "    {\n      name: \"lookup_word\",\n      description: \"Alias of `lookup`: it behaves exactly as `lookup` does. Look a word up in the local dictionary program\",\n      inputSchema: { type: \"object\", properties: { word: { type: \"string\", description: \"The word\" } }, required: [\"word\"] },\n    },\n    {\n      name: \"echo\",",
        ),
        hunk(
            "    case \"lookup\": {",
            "    case \"lookup\":\n    case \"lookup_word\": {",
        ),
    ];
    if known {
        hunks.push(hunk(
            "const KNOWN = [\"lookup\", \"echo\"];",
            "const KNOWN = [\"lookup\", \"lookup_word\", \"echo\"];",
        ));
    }
    given("O4", &["lookup"], &["lookup_word"], hunks)
}

#[test]
fn an_alias_the_name_guard_does_not_know_is_rejected_as_an_unknown_tool() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let work = workspace(&rt, dir.path(), "alias");
    let unknown = alias(false);
    let rounds = rt
        .block_on(evolve::evolve(&work, &unknown, &options(false), |_| {}))
        .unwrap();
    let reason = rounds[0].reason.clone().unwrap_or_default();
    assert_eq!(rounds[0].status, RoundStatus::Failed, "{reason}");
    assert!(reason.contains("lookup_word"), "{reason}");
    assert!(reason.contains("does not know the tool"), "{reason}");
    // The honest alias, known to the guard too, commits.
    let honest = alias(true);
    let rounds = rt
        .block_on(evolve::evolve(&work, &honest, &options(false), |_| {}))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
}

#[test]
fn a_change_whose_checks_are_all_unverifiable_is_unproven_and_refused_when_proof_is_required() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let old = "Look a word up in the local dictionary program";
    let new = "Look a word up in the local dictionary program. It needs the program installed";

    let work = workspace(&rt, dir.path(), "unproven");
    let rounds = rt
        .block_on(evolve::evolve(
            &work,
            &described("lookup", old, new),
            &options(false),
            |_| {},
        ))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
    let ws = Workspace::open(&work).unwrap();
    let round = version_record::read_round(&ws, rounds[0].version)
        .unwrap()
        .unwrap();
    assert_eq!(round.proof.proof, ProofStatus::Unproven);
    let why = round.proof.unproven_reason.clone().unwrap_or_default();
    assert!(why.contains("lookup"), "{why}");
    assert!(why.contains("dictionary unavailable"), "{why}");

    let strict = workspace(&rt, dir.path(), "strict");
    let at_v0 = Workspace::open(&strict).unwrap().head().unwrap();
    let rounds = rt
        .block_on(evolve::evolve(
            &strict,
            &described("lookup", old, new),
            &options(true),
            |_| {},
        ))
        .unwrap();
    assert_eq!(rounds[0].status, RoundStatus::Failed);
    let reason = rounds[0].reason.clone().unwrap_or_default();
    assert!(
        reason.contains("unproven") || reason.contains("proof"),
        "{reason}"
    );
    assert_eq!(
        Workspace::open(&strict).unwrap().head().unwrap(),
        at_v0,
        "nothing committed"
    );

    // The same kind of change of a tool that answers is proven.
    let echo = workspace(&rt, dir.path(), "echo");
    let rounds = rt
        .block_on(evolve::evolve(
            &echo,
            &described(
                "echo",
                "Answer the text it is given",
                "Answer the text it is given, unchanged",
            ),
            &options(true),
            |_| {},
        ))
        .unwrap();
    assert_eq!(
        rounds[0].status,
        RoundStatus::Committed,
        "{:?}",
        rounds[0].reason
    );
}

#[test]
fn the_rules_change_tools_that_answer_offline_so_every_version_is_proven() {
    // `lookup` fails offline on every call: a change to it could only be committed unproven.
    // The rules target the tools whose calls answered at the previous version (chosen among
    // all three, a third of the rounds would land on `lookup`).
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let operators = ["O1", "O5", "O6", "O9", "O2"];
    let mut unproven = Vec::new();
    for seed in [1, 2, 3] {
        let work = common::oracle_fixture(&rt, "offline", &dir.path().join(seed.to_string()));
        let opts = EvolveOptions {
            operators: operators
                .iter()
                .map(|o| mcpevol::operators::OperatorId::parse(o))
                .collect(),
            ..EvolveOptions::new(5, seed)
        };
        let rounds = rt
            .block_on(evolve::evolve(&work, &Backend::Rules, &opts, |_| {}))
            .unwrap();
        let ws = Workspace::open(&work).unwrap();
        assert_eq!(rounds.len(), 5);
        for r in &rounds {
            assert_eq!(r.status, RoundStatus::Committed, "{:?}", r.reason);
            let round = version_record::read_round(&ws, r.version).unwrap().unwrap();
            if round.proof.proof != ProofStatus::Proven || r.tools.iter().any(|t| t == "lookup") {
                unproven.push(format!(
                    "seed {seed} {}: {:?} {:?}",
                    r.version, r.tools, round.proof.unproven_reason
                ));
            }
        }
    }
    assert!(unproven.is_empty(), "{}", unproven.join("\n"));
}

/// `fixtures/oracle/error-text`'s `fetch_page` answers `{"error": "fetch failed"}` offline,
/// without `isError`. Its description change answers that as it did before, which shows
/// nothing working: committed unproven, with the failure as the reason (before, the two
/// failures alike passed as its proof). The same change of `echo` is proven.
#[test]
fn a_failure_answered_as_text_proves_no_change() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    for (tool, old, proven) in [
        ("fetch_page", "Fetch a web page and answer its text", false),
        ("echo", "Answer the text it is given", true),
    ] {
        let work = common::oracle_fixture(&rt, "error-text", &dir.path().join(tool));
        let new = format!("{old}. Read-only");
        let rounds = rt
            .block_on(evolve::evolve(
                &work,
                &described(tool, old, &new),
                &options(false),
                |_| {},
            ))
            .unwrap();
        let reason = rounds[0].reason.clone().unwrap_or_default();
        assert_eq!(rounds[0].status, RoundStatus::Committed, "{reason}");
        let ws = Workspace::open(&work).unwrap();
        let round = version_record::read_round(&ws, rounds[0].version)
            .unwrap()
            .unwrap();
        assert_eq!(round.proof.is_proven(), proven, "{tool}: {:?}", round.proof);
        if !proven {
            let why = round.proof.unproven_reason.clone().unwrap_or_default();
            assert!(why.contains("fetch failed"), "{why}");
        }
    }
}

/// `mcpevol log --rejudge` on `work`: its exit status and stdout.
fn rejudge(work: &Path) -> (bool, String) {
    let out = std::process::Command::new(common::bin())
        .args(["log", work.to_str().unwrap(), "--rejudge"])
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn every_verdict_judged_again_from_the_evidence_beside_its_commit_comes_out_as_recorded() {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    // `clock` answers the time: what varies in it is learned from the samples, not the clock.
    let work = common::oracle_fixture(&rt, "mutants-json", &dir.path().join("w"));
    let options = EvolveOptions {
        max_failed_rounds: 1,
        ..EvolveOptions::new(2, 5)
    };
    let rounds = rt
        .block_on(evolve::evolve(&work, &Backend::Rules, &options, |_| {}))
        .unwrap();
    assert!(
        rounds.iter().all(|r| r.status == RoundStatus::Committed),
        "{rounds:?}"
    );
    let (ok, text) = rejudge(&work);
    assert!(ok, "{text}");
    assert_eq!(
        text.lines().count(),
        2,
        "v1 and v2 kept their evidence: {text}"
    );
    assert!(
        text.lines()
            .all(|l| l.contains("all as recorded") && !l.contains(" 0 comparisons")),
        "{text}"
    );
    // Evidence that says otherwise than the record is caught: the check can fail.
    let ws = Workspace::open(&work).unwrap();
    let v2 = ws.resolve("v2").unwrap();
    let note = ws.note(&v2).unwrap().unwrap();
    let mut evidence: mcpevol::validate::evidence::Evidence = serde_json::from_str(&note).unwrap();
    let forecast = (evidence.comparisons.iter_mut())
        .find(|c| c.tool == "forecast" && c.reference.deterministic)
        .expect("forecast compared");
    forecast.answer.text = "Forecast for nowhere".into();
    forecast.answer.parts = vec!["Forecast for nowhere".into()];
    ws.set_note(&v2, &serde_json::to_string(&evidence).unwrap())
        .unwrap();
    let (ok, text) = rejudge(&work);
    assert!(
        !ok && text.contains("recorded Passed, now Failed"),
        "{text}"
    );
}
