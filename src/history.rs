//! A workspace's versions with their full records, and the counts that summaries and pages
//! show of them (tests passed, failed and unverifiable; tokens).

use serde::{Deserialize, Serialize};

use crate::llm::Usage;
use crate::version_record::{self, RecordError, RoundRecord};
use crate::workspace::{Version, Workspace};

/// Test results of a version by the oracle's verdict: unverifiable when the previous version
/// could not answer the call either (see `validate::Verdict`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tests {
    pub passed: usize,
    pub failed: usize,
    pub unverifiable: usize,
}

impl Tests {
    pub fn of(record: &RoundRecord) -> Tests {
        let t = record.tally();
        Tests {
            passed: t.passed,
            failed: t.failed,
            unverifiable: t.unverifiable,
        }
    }

    pub fn add(&mut self, other: Tests) {
        self.passed += other.passed;
        self.failed += other.failed;
        self.unverifiable += other.unverifiable;
    }
}

/// What an overview counts of one server's versions: the rounds' own tests (each version
/// after the original, counted as `log` counts it; the original's calls are the baseline the
/// first round is judged against, not a test of a change). Every overview counts through
/// here, so that a count added to the records later (whether each version is proven) is
/// added once, here, and shown alike everywhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Versions made by rounds (the original not counted).
    pub rounds: usize,
    pub tests: Tests,
}

impl Totals {
    pub fn of<'a>(records: impl IntoIterator<Item = &'a RoundRecord>) -> Totals {
        let mut totals = Totals::default();
        for r in records.into_iter().filter(|r| r.round > 0) {
            totals.rounds += 1;
            totals.tests.add(Tests::of(r));
        }
        totals
    }
}

/// Every version that has a record, oldest first.
pub fn versions(ws: &Workspace) -> Result<Vec<(Version, RoundRecord)>, RecordError> {
    let mut out = Vec::new();
    for v in ws.versions()? {
        if let Some(r) = version_record::read_round(ws, &v.tag)? {
            out.push((v, r));
        }
    }
    Ok(out)
}

/// Tokens of every record together, or None when no model was used.
pub fn usage<'a>(records: impl IntoIterator<Item = &'a RoundRecord>) -> Option<Usage> {
    records
        .into_iter()
        .filter_map(|r| r.usage)
        .reduce(|mut t, u| {
            t.prompt_tokens += u.prompt_tokens;
            t.completion_tokens += u.completion_tokens;
            t.total_tokens += u.total_tokens;
            t
        })
}

/// 3 for the version tag "v3"; None for anything else.
pub fn version_number(tag: &str) -> Option<u32> {
    tag.strip_prefix('v')?.parse().ok()
}
