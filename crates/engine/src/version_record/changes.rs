//! The several changes of a release-shaped version in its commit message: a subject naming
//! the release, one line per change, and trailers scripts read.

use super::{ChangeRecord, RoundRecord};
use crate::mutate::Proposal;
use mcpevol_core::operators::Operator;
use mcpevol_core::schema::Pattern;
use mcpevol_oracle::validate::Proof;

impl ChangeRecord {
    /// A change that passed: its proposal, patterns, proof and the checks that exercised it.
    pub fn new(
        proposal: Proposal,
        operator: &Operator,
        patterns: Vec<Pattern>,
        proof: Proof,
        tests: Vec<usize>,
    ) -> ChangeRecord {
        ChangeRecord {
            proposal,
            operator_name: operator.name.clone(),
            patterns,
            proof,
            tests,
        }
    }

    /// Its tools: targets, then the tools it adds.
    pub fn tools(&self) -> Vec<String> {
        self.proposal
            .targets
            .iter()
            .chain(&self.proposal.added)
            .cloned()
            .collect()
    }
}

impl RoundRecord {
    /// `Changes:` and one line per change (operator, tools, patterns, proof), for a version of
    /// several changes; nothing for one.
    pub(super) fn change_lines(&self) -> Option<String> {
        if self.changes.len() < 2 {
            return None;
        }
        let lines: Vec<String> = self
            .changes
            .iter()
            .map(|c| {
                let proof = match &c.proof.unproven_reason {
                    None => "proven".to_string(),
                    Some(why) => format!("unproven: {why}"),
                };
                format!(
                    "- {} {} on {} ({}; {proof})",
                    c.proposal.operator,
                    c.operator_name,
                    c.tools().join(", "),
                    mcpevol_core::schema::joined_patterns(&c.patterns, ", "),
                )
            })
            .collect();
        Some(format!("Changes:\n{}", lines.join("\n")))
    }

    /// `v2: release of 3 changes on a, b, c`.
    pub(super) fn release_subject(&self) -> String {
        format!(
            "{}: release of {} changes on {}",
            self.version,
            self.changes.len(),
            unique_tools(&self.changes).join(", ")
        )
    }

    /// `Mcpevol-Shape`, `Mcpevol-Mix` for a release; `Mcpevol-Changes` for several changes.
    pub(super) fn release_trailers(&self) -> Vec<(&'static str, String)> {
        let mut trailers = Vec::new();
        if let Some(release) = &self.release {
            trailers.push(("Mcpevol-Shape", "release".into()));
            trailers.push(("Mcpevol-Mix", release.mix.clone()));
        }
        if self.changes.len() > 1 {
            let changes: Vec<String> = self
                .changes
                .iter()
                .map(|c| format!("{} on {}", c.proposal.operator, c.tools().join(", ")))
                .collect();
            trailers.push(("Mcpevol-Changes", changes.join("; ")));
        }
        trailers
    }
}

/// The changes' tools, each once, in order.
fn unique_tools(changes: &[ChangeRecord]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in changes.iter().flat_map(ChangeRecord::tools) {
        if !out.contains(&t) {
            out.push(t);
        }
    }
    out
}
