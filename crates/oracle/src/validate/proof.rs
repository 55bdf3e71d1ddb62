//! Whether a change was seen working: proven only by a passed check that exercises it (a new
//! tool answering, an old name refused, a new parameter set and answered, a value inside a new
//! bound accepted, a described tool answering as before...), never by the absence of a failure.
//! A change whose every exercising check was unverifiable is recorded as unproven, with the
//! reasons those checks give (a missing program, the network, a credential).

use serde::{Deserialize, Serialize};

use super::{Check, TestResult, Verdict};
use mcpevol_core::schema::{ChangeKind, SchemaChange};

/// Proven or not. A record that does not say reads as unproven (fail closed).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ProofStatus {
    Proven,
    #[default]
    Unproven,
}

/// A change's or a version's proof, as records and `log --json` write it: `"proof": "proven"`,
/// or `"proof": "unproven"` with `"unproven_reason"`. Missing, it reads as unproven.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Proof {
    #[serde(default)]
    pub proof: ProofStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unproven_reason: Option<String>,
}

impl Default for Proof {
    /// What a record without a proof reads as.
    fn default() -> Proof {
        Proof::unproven("the record says nothing of a proof")
    }
}

impl Proof {
    pub fn proven() -> Proof {
        Proof {
            proof: ProofStatus::Proven,
            unproven_reason: None,
        }
    }

    pub fn unproven(reason: impl Into<String>) -> Proof {
        Proof {
            proof: ProofStatus::Unproven,
            unproven_reason: Some(reason.into()),
        }
    }

    pub fn is_proven(&self) -> bool {
        self.proof == ProofStatus::Proven
    }

    /// All of `proofs` together: proven when each is, else unproven with every reason.
    pub fn all(proofs: impl IntoIterator<Item = Proof>) -> Proof {
        let reasons: Vec<String> = proofs
            .into_iter()
            .filter_map(|p| p.unproven_reason)
            .collect();
        if reasons.is_empty() {
            Proof::proven()
        } else {
            Proof::unproven(reasons.join("; "))
        }
    }
}

/// Whether `test` exercises `change`: calls the changed tool (or its new name) in a way that
/// touches the change. Exercising is not proving: see [`proves`].
pub fn exercises(test: &TestResult, change: &SchemaChange) -> bool {
    let on_tool = test.tool == change.tool;
    let param = change.param();
    let on_param = |p: &str| Some(p) == param;
    match change.kind() {
        ChangeKind::ToolAdded => on_tool && matches!(test.check, Check::New | Check::Claim { .. }),
        ChangeKind::ToolRemoved => on_tool && test.check == Check::Gone,
        ChangeKind::ToolRenamed => {
            let renamed = change.renamed_to() == Some(test.tool.as_str())
                && matches!(&test.check, Check::Renamed { from } if *from == change.tool);
            renamed || (on_tool && test.check == Check::Gone)
        }
        kind if kind.is_text() => {
            on_tool && matches!(test.check, Check::AsBefore | Check::WithOptions { .. })
        }
        _ => {
            on_tool
                && match &test.check {
                    Check::ParamSet { param: p }
                    | Check::Required { param: p }
                    | Check::InsideBound { param: p }
                    | Check::Loosened { param: p }
                    | Check::BeyondBound { param: p }
                    | Check::ParamRemoved { param: p }
                    | Check::Defaulted { param: p } => on_param(p),
                    Check::Claim { effect } => effect.param() == param,
                    Check::New | Check::AsBefore => change.kind() == ChangeKind::ParamTypeChanged,
                    _ => false,
                }
        }
    }
}

/// The table of evidence: whether `test`, passed, proves `change`. The rule behind every row:
/// a check proves a change only if it exercises that change and its answer could not have been
/// the same without it, that is, the previous version answers (or refuses) the same call
/// otherwise. An answer compared by its status only proves nothing.
///
/// | change | proven by |
/// | --- | --- |
/// | tool added | the new tool answering its call (the previous version lists no such tool), or its claim kept (a variant, a batch) |
/// | tool removed | its name refused as the server refuses names it never had |
/// | tool renamed | the new name answering the old name's previous call exactly as the old name did |
/// | description, title, annotations, output schema, `_meta` | the listing (the schema diff saw it) and the tool answering its previous calls exactly as before |
/// | parameter added | some value of it changing the answer, from the previous version's and from the same call without it now; or its claim kept |
/// | parameter removed | sent as before, refused or ignored (the same answer as without it) |
/// | bound tighter | a value beyond it refused that one at its edge is not (the previous schema allowed both) |
/// | bound looser | a value the old bound refused, accepted now |
/// | made required | the previous call, which answered, refused now without it |
/// | made optional, default changed | without it, the answer with the default the schema declares |
/// | type changed | the tool answering its call as the new schema says |
pub fn proves(test: &TestResult, change: &SchemaChange) -> bool {
    if test.verdict != Verdict::Passed
        || test.compared == Some(super::Compared::CallStatus)
        || !exercises(test, change)
    {
        return false;
    }
    let param = change.param();
    match change.kind() {
        // Answering as the old name did: only an exact comparison shows it.
        ChangeKind::ToolRenamed => {
            matches!(test.check, Check::Renamed { .. })
                && test.compared == Some(super::Compared::Output)
        }
        kind if kind.is_text() => test.compared == Some(super::Compared::Output),
        ChangeKind::ParamAdded => {
            matches!(test.check, Check::ParamSet { .. } | Check::Claim { .. })
        }
        // Any valid value shows nothing of a tighter bound: the previous version took it.
        ChangeKind::ParamConstraintChanged => matches!(
            test.check,
            Check::BeyondBound { .. } | Check::Loosened { .. } | Check::Claim { .. }
        ),
        ChangeKind::ParamRequiredChanged if change.required() == Some(true) => {
            matches!(&test.check, Check::Required { param: p } if Some(p.as_str()) == param)
        }
        _ => true,
    }
}

/// The proof of one schema change from a version's checks: proven by a passed check that
/// proves it (see [`proves`]); unproven with the reasons of the checks that could not show it.
pub fn of_change(change: &SchemaChange, tests: &[TestResult]) -> Proof {
    if tests.iter().any(|t| proves(t, change)) {
        return Proof::proven();
    }
    let exercising: Vec<&TestResult> = tests.iter().filter(|t| exercises(t, change)).collect();
    let what = format!("`{}`: {}", change.tool, change.describe());
    let reasons: Vec<String> = exercising.iter().filter_map(|t| t.reason.clone()).collect();
    if let Some(first) = reasons.first() {
        return Proof::unproven(format!("{what}: {first}"));
    }
    let status_only = exercising
        .iter()
        .any(|t| t.verdict == Verdict::Passed && t.compared == Some(super::Compared::CallStatus));
    let why = match change.kind() {
        _ if status_only => "its answers vary from call to call, so only their status was compared",
        ChangeKind::ParamConstraintChanged => "bound declared, not enforced",
        _ if exercising.is_empty() => "no check exercised it",
        _ => "no check that exercised it could tell it from the previous version",
    };
    Proof::unproven(format!("{what}: {why}"))
}

/// The proof of a change made of `changes`, from the version's checks and the model's own
/// cases that proved some of them (`shown`: indices into `changes`).
pub fn of_changes(changes: &[&SchemaChange], tests: &[TestResult], shown: &[usize]) -> Proof {
    if changes.is_empty() {
        return Proof::unproven("the change made no schema change to check");
    }
    Proof::all(changes.iter().enumerate().map(|(i, c)| {
        let proof = of_change(c, tests);
        if !proof.is_proven() && shown.contains(&i) {
            Proof::proven()
        } else {
            proof
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::session::CallStatus;
    use crate::validate::TestKind;
    use mcpevol_core::schema::Change;

    fn test(tool: &str, check: Check, verdict: Verdict, reason: Option<&str>) -> TestResult {
        TestResult {
            tool: tool.into(),
            kind: TestKind::Changed,
            check,
            arguments: serde_json::json!({}),
            status: CallStatus::Ok,
            expected: None,
            verdict,
            passed: verdict == Verdict::Passed,
            compared: None,
            enforced: None,
            reason: reason.map(str::to_string),
            differed: false,
            reference: None,
            answer: None,
        }
    }

    #[test]
    fn a_change_is_proven_only_by_a_passed_check_that_exercises_it() {
        let added = SchemaChange::of(
            "t",
            Change::ParamAdded {
                param: "limit".into(),
                required: false,
            },
        );
        let unrelated = test("t", Check::AsBefore, Verdict::Passed, None);
        let set = |v| {
            test(
                "t",
                Check::ParamSet {
                    param: "limit".into(),
                },
                v,
                Some("the previous version answered ToolError"),
            )
        };
        // Nothing failed, but nothing showed the new parameter: unproven, with the reason.
        let p = of_change(&added, &[unrelated.clone(), set(Verdict::Unverifiable)]);
        assert!(!p.is_proven());
        assert!(
            p.unproven_reason.unwrap().contains("ToolError"),
            "the reason says why"
        );
        assert!(of_change(&added, &[unrelated, set(Verdict::Passed)]).is_proven());
        let none = of_change(&added, &[]);
        assert!(
            none.unproven_reason
                .unwrap()
                .contains("no check exercised it")
        );
    }

    #[test]
    fn a_rename_is_proven_by_its_new_name_not_by_the_old_one_refused() {
        let renamed = SchemaChange::of("old", Change::ToolRenamed { to: "new".into() });
        let gone = test("old", Check::Gone, Verdict::Passed, None);
        assert!(!of_change(&renamed, std::slice::from_ref(&gone)).is_proven());
        let mut new = test(
            "new",
            Check::Renamed { from: "old".into() },
            Verdict::Passed,
            None,
        );
        new.compared = Some(crate::validate::Compared::CallStatus);
        assert!(
            !of_change(&renamed, &[gone.clone(), new.clone()]).is_proven(),
            "answering by status only shows nothing of what it answers"
        );
        new.compared = Some(crate::validate::Compared::Output);
        assert!(of_change(&renamed, &[gone, new]).is_proven());
    }

    #[test]
    fn a_description_change_is_not_proven_by_an_answer_compared_by_its_status_only() {
        let described = SchemaChange::of("t", Change::ToolDescriptionChanged);
        let mut as_before = test("t", Check::AsBefore, Verdict::Passed, None);
        as_before.compared = Some(crate::validate::Compared::CallStatus);
        let p = of_change(&described, std::slice::from_ref(&as_before));
        assert!(!p.is_proven());
        assert!(p.unproven_reason.unwrap().contains("only their status"));
        as_before.compared = Some(crate::validate::Compared::Output);
        assert!(of_change(&described, &[as_before]).is_proven());
    }

    #[test]
    fn a_tighter_bound_is_proven_by_a_value_beyond_it_refused_not_by_one_inside_accepted() {
        let bound = SchemaChange::of("t", Change::ParamConstraintChanged { param: "n".into() });
        let inside = test(
            "t",
            Check::InsideBound { param: "n".into() },
            Verdict::Passed,
            None,
        );
        let p = of_change(&bound, std::slice::from_ref(&inside));
        assert!(!p.is_proven());
        assert!(
            p.unproven_reason.unwrap().contains("not enforced"),
            "the reason"
        );
        let beyond = test(
            "t",
            Check::BeyondBound { param: "n".into() },
            Verdict::Passed,
            None,
        );
        assert!(of_change(&bound, &[inside, beyond]).is_proven());
        let loosened = test(
            "t",
            Check::Loosened { param: "n".into() },
            Verdict::Passed,
            None,
        );
        assert!(of_change(&bound, &[loosened]).is_proven());
    }

    #[test]
    fn a_record_without_a_proof_or_a_verdict_reads_as_unproven_and_failed() {
        let proof: Proof = serde_json::from_value(serde_json::json!({})).unwrap();
        assert!(!proof.is_proven());
        let verdict: Verdict = Verdict::default();
        assert_eq!(verdict, Verdict::Failed);
    }

    #[test]
    fn proofs_together_keep_every_reason() {
        let p = Proof::all([Proof::proven(), Proof::unproven("a"), Proof::unproven("b")]);
        assert_eq!(p.unproven_reason.as_deref(), Some("a; b"));
        assert!(Proof::all([Proof::proven()]).is_proven());
        let json = serde_json::to_value(Proof::unproven("x")).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"proof": "unproven", "unproven_reason": "x"})
        );
    }
}
