//! What a version's comparisons were judged on, kept so that a verdict can be judged again:
//! for each check that compared an answer with the previous version's (as before, renamed,
//! with options), the reference as learned (its parts, what varied in it, whether it was
//! deterministic) and the answer as it came. Judging them again gives the same verdicts at any
//! hour: no clock enters a verdict, only these. Stored beside the version's commit as a git
//! note (`refs/notes/mcpevol`), so that commit ids do not change with it.

use serde::{Deserialize, Serialize};

use super::baseline::Observation;
use super::judge::against;
use super::{Check, TestResult, Verdict};
use crate::server::session::Outcome;

/// One comparison: the check's index in the version's `tests`, the tool called, and both sides.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    pub test: usize,
    pub tool: String,
    pub reference: Observation,
    pub answer: Outcome,
}

/// A version's comparisons.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Evidence {
    pub comparisons: Vec<Comparison>,
}

impl Evidence {
    /// The comparisons of `tests`, those that kept both sides.
    pub fn of(tests: &[TestResult]) -> Evidence {
        let comparisons = (tests.iter().enumerate())
            .filter(|(_, t)| {
                matches!(
                    t.check,
                    Check::AsBefore | Check::Renamed { .. } | Check::WithOptions { .. }
                )
            })
            .filter_map(|(i, t)| {
                Some(Comparison {
                    test: i,
                    tool: t.tool.clone(),
                    reference: t.reference.clone()?,
                    answer: t.answer.clone()?,
                })
            })
            .collect();
        Evidence { comparisons }
    }

    /// Each comparison judged again: its test's index and the verdict.
    pub fn judge_again(&self) -> Vec<(usize, Verdict)> {
        (self.comparisons.iter())
            .map(|c| {
                (
                    c.test,
                    against(&c.reference, &c.answer, &c.tool, None).verdict,
                )
            })
            .collect()
    }

    /// The comparisons whose verdict judged again is not the one recorded in `tests`: the
    /// index, the recorded verdict and the new one.
    pub fn disagreements(&self, tests: &[TestResult]) -> Vec<(usize, Verdict, Verdict)> {
        (self.judge_again().into_iter())
            .filter_map(|(i, again)| {
                let recorded = tests.get(i)?.verdict;
                (recorded != again).then_some((i, recorded, again))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::session::CallStatus;
    use crate::validate::Volatile;

    #[test]
    fn a_comparison_judged_again_from_its_record_gives_the_recorded_verdict() {
        let first = "uptime 12s, served 3 requests";
        let volatile = Volatile::learn(first, "uptime 13s, served 3 requests");
        let mut reference = Observation::answered(CallStatus::Ok, first, true);
        reference.parts = vec![volatile.normalize(first)];
        reference.volatile = volatile;
        let same = Outcome::answered(CallStatus::Ok, "uptime 99s, served 3 requests");
        let other = Outcome::answered(CallStatus::Ok, "uptime 99s, served 4 requests");
        let evidence = Evidence {
            comparisons: vec![
                Comparison {
                    test: 0,
                    tool: "t".into(),
                    reference: reference.clone(),
                    answer: same,
                },
                Comparison {
                    test: 1,
                    tool: "t".into(),
                    reference,
                    answer: other,
                },
            ],
        };
        let json = serde_json::to_string(&evidence).unwrap();
        let back: Evidence = serde_json::from_str(&json).unwrap();
        assert_eq!(
            back.judge_again(),
            [(0, Verdict::Passed), (1, Verdict::Failed)]
        );
    }
}
