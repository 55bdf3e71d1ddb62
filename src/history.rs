//! A workspace's history as its records tell it: the versions with their full records, the
//! `log` entries and the schema-level `diff` between any two versions, and the token counts
//! that summaries and pages show.

use serde::Serialize;

use crate::llm::Usage;
use crate::operators::OperatorId;
use crate::schema::{self, Pattern, SchemaChange};
use crate::validate::{Proof, Tally};
use crate::version_record::{self, RecordError, RoundRecord};
use crate::workspace::{Version, VersionTag, Workspace};

/// What an overview counts of one server's versions: the rounds' own tests (each version
/// after the original, counted as `log` counts it; the original's calls are the baseline the
/// first round is judged against, not a test of a change). Every overview counts through
/// here, so that a count added to the records later (whether each version is proven) is
/// added once, here, and shown alike everywhere.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    /// Versions made by rounds (the original not counted).
    pub rounds: usize,
    pub tests: Tally,
    /// Of those versions, the ones a passed check showed working, and the others.
    pub proven: usize,
    pub unproven: usize,
}

impl Totals {
    pub fn of<'a>(records: impl IntoIterator<Item = &'a RoundRecord>) -> Totals {
        let mut totals = Totals::default();
        for r in records
            .into_iter()
            .filter(|r| r.version != VersionTag::ORIGINAL)
        {
            totals.rounds += 1;
            totals.tests = Tally::sum([totals.tests, r.tally()]);
            if r.proof.is_proven() {
                totals.proven += 1;
            } else {
                totals.unproven += 1;
            }
        }
        totals
    }
}

/// Every version that has a record, oldest first.
pub fn versions(ws: &Workspace) -> Result<Vec<(Version, RoundRecord)>, RecordError> {
    let mut out = Vec::new();
    for v in ws.versions()? {
        if let Some(r) = version_record::read_round(ws, v.tag)? {
            out.push((v, r));
        }
    }
    Ok(out)
}

/// A version's comparisons judged again from its evidence (the note beside its commit).
#[derive(Debug, Clone, Serialize)]
pub struct Rejudged {
    pub version: String,
    /// Comparisons the evidence holds.
    pub comparisons: usize,
    /// Those whose verdict judged again is not the recorded one: the check's index in the
    /// version's `tests`, the recorded verdict and the one now.
    pub disagreements: Vec<(usize, crate::validate::Verdict, crate::validate::Verdict)>,
}

/// Every version's comparisons judged again from its evidence; versions without evidence
/// (`v0`, versions made before evidence was kept) are left out.
pub fn rejudge(ws: &Workspace) -> Result<Vec<Rejudged>, RecordError> {
    let mut out = Vec::new();
    for (v, record) in versions(ws)? {
        let Some(text) = ws.note(&v.commit)? else {
            continue;
        };
        let evidence: crate::validate::evidence::Evidence =
            serde_json::from_str(&text).map_err(|e| RecordError::Malformed {
                path: crate::workspace::NOTES_REF.into(),
                rev: v.tag.to_string(),
                why: e.to_string(),
            })?;
        out.push(Rejudged {
            version: v.tag.to_string(),
            comparisons: evidence.comparisons.len(),
            disagreements: evidence.disagreements(&record.tests),
        });
    }
    Ok(out)
}

/// Tokens of rounds together (each round's, where it used a model), or None when no round
/// used a model.
pub fn total_usage(rounds: impl IntoIterator<Item = Option<Usage>>) -> Option<Usage> {
    rounds.into_iter().flatten().reduce(|mut t, u| {
        t.prompt_tokens += u.prompt_tokens;
        t.completion_tokens += u.completion_tokens;
        t.total_tokens += u.total_tokens;
        t
    })
}

/// One version as `log` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub version: VersionTag,
    pub commit: String,
    pub operator: Option<OperatorId>,
    pub operator_name: Option<String>,
    pub tools: Vec<String>,
    pub summary: String,
    pub tests: Tally,
    pub schema_changes: Vec<SchemaChange>,
    pub patterns: Vec<Pattern>,
    /// Tokens of the round's model calls (LLM backends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Whether a passed check showed every change of the version.
    #[serde(flatten)]
    pub proof: Proof,
    /// The changes the version is made of (one for a one-operator round), each with its
    /// operator, targets, patterns and proof.
    pub changes: Vec<LogChange>,
}

/// One change of a version as `log` shows it.
#[derive(Debug, Clone, Serialize)]
pub struct LogChange {
    pub operator: OperatorId,
    pub operator_name: String,
    pub targets: Vec<String>,
    pub added: Vec<String>,
    pub summary: String,
    pub patterns: Vec<Pattern>,
    #[serde(flatten)]
    pub proof: Proof,
    /// The version's checks (indices into the record's `tests`) that exercised it.
    pub tests: Vec<usize>,
}

/// The pattern mix the versions realised, counted as real releases were, beside the target
/// the latest release recorded (None when no version is a release).
pub fn run_mix(records: &[RoundRecord]) -> crate::release::RunMix {
    let made: Vec<&RoundRecord> = records
        .iter()
        .filter(|r| r.version != VersionTag::ORIGINAL)
        .collect();
    let events: Vec<crate::release::VersionEvents> = made
        .iter()
        .map(|r| crate::release::classify(&r.schema_changes))
        .collect();
    let target = made
        .iter()
        .rev()
        .find_map(|r| r.release.as_ref())
        .map(|r| r.target_mix());
    crate::release::RunMix::of(&events, target.as_ref())
}

/// One entry per version, oldest first.
pub fn log(ws: &Workspace) -> Result<Vec<LogEntry>, RecordError> {
    Ok(versions(ws)?
        .into_iter()
        .map(|(v, r)| LogEntry {
            version: v.tag,
            commit: v.commit,
            tests: r.tally(),
            tools: r.targets.iter().chain(&r.added).cloned().collect(),
            operator: r.operator,
            operator_name: r.operator_name,
            summary: r.summary,
            schema_changes: r.schema_changes,
            patterns: r.patterns,
            usage: r.usage,
            proof: r.proof,
            changes: r
                .changes
                .into_iter()
                .map(|c| LogChange {
                    operator: c.proposal.operator,
                    operator_name: c.operator_name,
                    targets: c.proposal.targets,
                    added: c.proposal.added,
                    summary: c.proposal.summary,
                    patterns: c.patterns,
                    proof: c.proof,
                    tests: c.tests,
                })
                .collect(),
        })
        .collect())
}

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error(transparent)]
    Record(#[from] RecordError),
    #[error("{rev} has no tool list (.mcpevol/tools.json); it is not a version made by mcpevol")]
    NoTools { rev: String },
}

/// The schema changes from `a` to `b` (version tags, stage tags, any revision).
pub fn diff(ws: &Workspace, a: &str, b: &str) -> Result<Vec<SchemaChange>, DiffError> {
    let tools = |rev: &str| -> Result<Vec<crate::listed::ListedTool>, DiffError> {
        let t = version_record::read_tools(ws, rev)?.ok_or_else(|| DiffError::NoTools {
            rev: rev.to_string(),
        })?;
        Ok(t.tools)
    };
    Ok(schema::diff(&tools(a)?, &tools(b)?))
}
