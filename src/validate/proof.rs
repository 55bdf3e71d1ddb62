//! Whether a change was seen working: proven only by a passed check that exercises it (a new
//! tool answering, an old name refused, a new parameter set and answered, a value inside a new
//! bound accepted, a described tool answering as before...), never by the absence of a failure.
//! A change whose every exercising check was unverifiable is recorded as unproven, with the
//! reasons those checks give (a missing program, the network, a credential).

use serde::{Deserialize, Serialize};

use super::{Check, TestResult, Verdict};
use crate::schema::{ChangeKind, SchemaChange};

/// Proven or not.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ProofStatus {
    #[default]
    Proven,
    Unproven,
}

/// A change's or a version's proof, as records and `log --json` write it: `"proof": "proven"`,
/// or `"proof": "unproven"` with `"unproven_reason"`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq, Default)]
pub struct Proof {
    pub proof: ProofStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unproven_reason: Option<String>,
}

impl Proof {
    pub fn proven() -> Proof {
        Proof::default()
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
/// shows the change, not merely that nothing broke elsewhere.
pub fn exercises(test: &TestResult, change: &SchemaChange) -> bool {
    let on_tool = test.tool == change.tool;
    let param = change.param.as_deref();
    match change.kind {
        ChangeKind::ToolAdded => on_tool && matches!(test.check, Check::New | Check::Claim { .. }),
        ChangeKind::ToolRemoved => on_tool && test.check == Check::Gone,
        ChangeKind::ToolRenamed => {
            let renamed = change.renamed_to.as_deref() == Some(test.tool.as_str())
                && matches!(&test.check, Check::Renamed { from } if *from == change.tool);
            renamed || (on_tool && test.check == Check::Gone)
        }
        // Text a model or client reads: shown working by the tool answering as it did.
        ChangeKind::ToolDescriptionChanged
        | ChangeKind::ParamDescriptionChanged
        | ChangeKind::ToolTitleChanged => {
            on_tool && matches!(test.check, Check::AsBefore | Check::WithOptions { .. })
        }
        // A new required parameter: the call without it refused, or the tool called with it
        // (its claim shown, or simply answering where nothing was claimed).
        ChangeKind::ParamAdded if change.required == Some(true) => {
            on_tool
                && match &test.check {
                    Check::New => true,
                    Check::Required { param: p } | Check::ParamSet { param: p } => {
                        Some(p.as_str()) == param
                    }
                    Check::Claim { effect } => effect.param() == param,
                    _ => false,
                }
        }
        ChangeKind::ParamAdded => {
            on_tool
                && match &test.check {
                    Check::ParamSet { param: p } => Some(p.as_str()) == param,
                    Check::Claim { effect } => effect.param() == param,
                    _ => false,
                }
        }
        ChangeKind::ParamRemoved => {
            on_tool
                && matches!(&test.check, Check::ParamRemoved { param: p } if Some(p.as_str()) == param)
        }
        ChangeKind::ParamConstraintChanged => {
            on_tool
                && match &test.check {
                    Check::InsideBound { param: p } | Check::BeyondBound { param: p } => {
                        Some(p.as_str()) == param
                    }
                    Check::Claim { effect } => effect.param() == param,
                    _ => false,
                }
        }
        // Made optional: called without it, the tool answers as with its declared default.
        ChangeKind::ParamRequiredChanged if change.required == Some(false) => {
            on_tool
                && matches!(&test.check, Check::Defaulted { param: p } if Some(p.as_str()) == param)
        }
        // Made required: called without it, the tool refuses.
        ChangeKind::ParamRequiredChanged if change.required == Some(true) => {
            on_tool
                && matches!(&test.check, Check::Required { param: p } if Some(p.as_str()) == param)
        }
        ChangeKind::ParamDefaultChanged => {
            on_tool
                && matches!(&test.check, Check::Defaulted { param: p } if Some(p.as_str()) == param)
        }
        ChangeKind::ParamRequiredChanged | ChangeKind::ParamTypeChanged => {
            on_tool && matches!(test.check, Check::New | Check::AsBefore)
        }
    }
}

/// The proof of one schema change from a version's checks: proven by a passed check that
/// exercises it; unproven with the reasons of the checks that could not show it.
pub fn of_change(change: &SchemaChange, tests: &[TestResult]) -> Proof {
    let exercising: Vec<&TestResult> = tests.iter().filter(|t| exercises(t, change)).collect();
    // A rename shows by its new name answering as the old one did; its old name refused only
    // shows the old name is gone.
    let shows = |t: &&TestResult| {
        t.verdict == Verdict::Passed
            && (change.kind != ChangeKind::ToolRenamed || matches!(t.check, Check::Renamed { .. }))
    };
    if exercising.iter().any(shows) {
        return Proof::proven();
    }
    let what = format!("`{}`: {}", change.tool, change.describe());
    let reasons: Vec<String> = exercising.iter().filter_map(|t| t.reason.clone()).collect();
    match reasons.first() {
        Some(first) => Proof::unproven(format!("{what}: {first}")),
        None => Proof::unproven(format!("{what}: no check exercised it")),
    }
}

/// The proof of a change made of `changes`, from the version's checks and the model's own
/// cases that passed and exercise it (`extra`: the tools those cases called).
pub fn of_changes(changes: &[&SchemaChange], tests: &[TestResult], extra: &[&str]) -> Proof {
    if changes.is_empty() {
        return Proof::unproven("the change made no schema change to check");
    }
    Proof::all(changes.iter().map(|c| {
        let proof = of_change(c, tests);
        let shown_by_case = !proof.is_proven()
            && extra
                .iter()
                .any(|t| *t == c.tool || c.renamed_to.as_deref() == Some(t));
        if shown_by_case {
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
        }
    }

    #[test]
    fn a_change_is_proven_only_by_a_passed_check_that_exercises_it() {
        let added = SchemaChange::plain(ChangeKind::ParamAdded, "t", Some("limit"), Some(false));
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
        let mut renamed = SchemaChange::plain(ChangeKind::ToolRenamed, "old", None, None);
        renamed.renamed_to = Some("new".into());
        let gone = test("old", Check::Gone, Verdict::Passed, None);
        assert!(!of_change(&renamed, std::slice::from_ref(&gone)).is_proven());
        let new = test(
            "new",
            Check::Renamed { from: "old".into() },
            Verdict::Passed,
            None,
        );
        assert!(of_change(&renamed, &[gone, new]).is_proven());
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
