//! The record of each version, committed beside the code in `.mcpevol/`: what the round did
//! (`round.json`), what the server lists (`tools.json`), and the commit message that says it.

use serde::{Deserialize, Serialize};

use crate::hunks::Hunk;
use crate::mutate::Proposal;
use crate::workspace::VersionTag;
use mcpevol_core::operators::OperatorId;
use mcpevol_core::schema::{Pattern, SchemaChange};
use mcpevol_oracle::validate::{Proof, Tally, TestResult, Verdict};

pub const ROUND_PATH: &str = ".mcpevol/round.json";
pub const TOOLS_PATH: &str = ".mcpevol/tools.json";
pub const EXCHANGES_PATH: &str = ".mcpevol/exchanges.jsonl";

/// `Default` is an empty record, for building one field by field (`..RoundRecord::default()`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Default)]
pub struct RoundRecord {
    pub version: VersionTag,
    /// The operator of the version's changes when one operator made them all; None for `v0`,
    /// the original server.
    pub operator: Option<OperatorId>,
    pub operator_name: Option<String>,
    pub backend: Author,
    pub seed: Option<u64>,
    /// The existing tools the version changed (removed or renamed ones by their old names).
    pub targets: Vec<String>,
    pub added: Vec<String>,
    pub summary: String,
    /// The changes the version is made of, each one operator on its tools: one for the
    /// paper's one-operator rounds.
    #[serde(default)]
    pub changes: Vec<ChangeRecord>,
    pub schema_changes: Vec<SchemaChange>,
    pub patterns: Vec<Pattern>,
    pub tests: Vec<TestResult>,
    /// Attempts this round took, the committed one included.
    pub attempts: u32,
    /// Attempts that were rolled back, and why.
    pub rejected: Vec<Rejection>,
    /// Operators the rules could not apply to any tool this round, and why (first tool's reason).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub inapplicable: std::collections::BTreeMap<OperatorId, String>,
    /// Test cases a model wrote for the changed tools, with their results (LLM backends).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub generated_tests: Vec<GeneratedResult>,
    /// Tokens the round's model calls used, all attempts together (LLM backends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::llm::Usage>,
    /// The model that answered (LLM backends).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// Tries of this round that failed before this version was made, each rolled back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub failed_rounds: Vec<FailedRound>,
    /// Whether a passed check exercised every change of the version (`v0`, the reference,
    /// is proven by definition).
    #[serde(flatten, default)]
    pub proof: Proof,
    /// What a release-shaped version was drawn for (`--shape release`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub release: Option<crate::release::ReleaseRecord>,
    /// Credential-looking strings the server said that were kept out of the round's prompts
    /// and of these records.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub redacted: Vec<mcpevol_core::redact::Redacted>,
}

/// One change of a version: one operator applied to its tools, with the edits that did it
/// and what they claim (the proposal that passed), and the operator's name for people.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct ChangeRecord {
    #[serde(flatten)]
    pub proposal: Proposal,
    pub operator_name: String,
    /// The patterns of Table 10 this change's schema changes show.
    #[serde(default)]
    pub patterns: Vec<Pattern>,
    /// Whether a passed check exercised it.
    #[serde(flatten, default)]
    pub proof: Proof,
    /// The version's checks (indices into its `tests`) that exercised this change.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tests: Vec<usize>,
}

/// Who made a version's changes, as records and commit trailers name it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Author {
    /// Nobody: `v0` is the server as its maintainers published it.
    #[default]
    Original,
    /// The deterministic rules backend.
    Rules,
    /// A proposal given from outside (a script, a test, a person).
    Given,
    /// A model, by the host that serves it (`openai`, or an endpoint's host and port), or a
    /// proposer of your own, by the name it gives.
    Named(String),
}

impl Author {
    pub fn as_str(&self) -> &str {
        match self {
            Author::Original => "none",
            Author::Rules => "rules",
            Author::Given => "given",
            Author::Named(name) => name,
        }
    }

    pub fn parse(text: &str) -> Author {
        match text {
            "none" => Author::Original,
            "rules" => Author::Rules,
            "given" => Author::Given,
            name => Author::Named(name.to_string()),
        }
    }
}

impl std::fmt::Display for Author {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Author {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Author {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Author, D::Error> {
        Ok(Author::parse(&String::deserialize(d)?))
    }
}

/// A try of a round that ended without a version: why, and every attempt with its edits.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct FailedRound {
    pub version: VersionTag,
    pub operator: Option<OperatorId>,
    pub reason: String,
    pub attempts: Vec<Rejection>,
}

/// A generated test case and how the server answered it.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct GeneratedResult {
    pub test: crate::mutate::reply::GeneratedTest,
    pub status: mcpevol_oracle::server::session::CallStatus,
    /// What the server answered, to compare with the previous version's answer; not recorded
    /// (records hold no tool output, so that the same seed gives the same commits).
    #[serde(skip)]
    pub text: String,
    /// Unverifiable when it failed and the previous version answered the same call the same
    /// way: the change does not show on it.
    #[serde(default)]
    pub verdict: Verdict,
    pub passed: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How the previous version answered the same call (a renamed tool on its old name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub previous: Option<mcpevol_oracle::server::session::CallStatus>,
    /// Whether the previous version answered it otherwise (another status, or another output
    /// beyond what varied between two of its answers): only then can the case prove a change.
    #[serde(default)]
    pub differs: bool,
}

/// An attempt that was rolled back (or a step that proposed nothing), and why.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Rejection {
    /// The operator tried; None when the model's choice of one was unusable.
    pub operator: Option<OperatorId>,
    pub targets: Vec<String>,
    pub kind: RejectionKind,
    pub reason: String,
    /// The edits that were tried and rolled back.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hunks: Vec<Hunk>,
}

/// The kind of an attempt's rejection, as records and tallies keep it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RejectionKind {
    /// The operator fits no tool (or every tool it fits failed already).
    NotApplicable,
    /// The model's reply or choice could not be used.
    Reply,
    Edit,
    Syntax,
    Server,
    Contract,
    /// A description lost, garbled or padded (the description check).
    Description,
    Test,
    GeneratedTest,
    Endpoint,
    /// Every check passed or proved nothing, and proof was required.
    Unproven,
    /// Anything else: the machine (scratch folders, git), not the change.
    Other,
}

impl RoundRecord {
    /// What made this version, for a person: its operator; for a release of several
    /// operators' changes, "release:" and their operators; "original" for `v0`.
    pub fn made_by(&self) -> String {
        match (&self.operator, self.changes.as_slice()) {
            (Some(id), _) => id.to_string(),
            (None, []) => "original".to_string(),
            (None, changes) => {
                let ops: Vec<String> = changes
                    .iter()
                    .map(|c| c.proposal.operator.to_string())
                    .collect();
                format!("release: {}", ops.join("+"))
            }
        }
    }

    /// The record of `v0`, the original server: no change, its tools' first answers.
    pub fn original(summary: String, tests: Vec<TestResult>) -> RoundRecord {
        RoundRecord {
            version: VersionTag::ORIGINAL,
            operator: None,
            operator_name: None,
            backend: Author::Original,
            seed: None,
            targets: Vec::new(),
            added: Vec::new(),
            summary,
            changes: Vec::new(),
            schema_changes: Vec::new(),
            patterns: Vec::new(),
            tests,
            attempts: 1,
            rejected: Vec::new(),
            inapplicable: Default::default(),
            generated_tests: Vec::new(),
            usage: None,
            model: None,
            failed_rounds: Vec::new(),
            proof: Proof::proven(),
            release: None,
            redacted: Vec::new(),
        }
    }

    /// Every change's edits, in order.
    pub fn hunks(&self) -> Vec<Hunk> {
        self.changes
            .iter()
            .flat_map(|c| c.proposal.hunks.clone())
            .collect()
    }

    /// Every change's claims, in order.
    pub fn effects(&self) -> Vec<mcpevol_oracle::validate::Effect> {
        self.changes
            .iter()
            .flat_map(|c| c.proposal.effects.clone())
            .collect()
    }

    /// The checks of this version (the oracle's and the model's) by verdict.
    pub fn tally(&self) -> Tally {
        let mut tally = Tally::of(&self.tests);
        for t in &self.generated_tests {
            tally.add(t.verdict);
        }
        tally
    }

    /// The commit message: a subject, what changed in words, and trailers a script can read.
    // Long: one message, written top to bottom in the order it reads: subject, body, unproven reasons, trailers.
    pub fn commit_message(&self) -> String {
        let subject = match (&self.operator_name, &self.release) {
            (Some(name), _) => format!("{}: {name} on {}", self.version, self.targets.join(", ")),
            (None, Some(_)) => self.release_subject(),
            (None, None) => format!("{}: {}", self.version, self.summary),
        };
        let mut body = vec![self.summary.clone()];
        body.extend(self.change_lines());
        if !self.schema_changes.is_empty() {
            let changes: Vec<String> = self
                .schema_changes
                .iter()
                .map(|c| {
                    format!(
                        "- `{}`: {}{}",
                        c.tool,
                        c.describe(),
                        if c.breaking { " (breaking)" } else { "" }
                    )
                })
                .collect();
            body.push(format!("Schema changes:\n{}", changes.join("\n")));
        }
        let tally = self.tally();
        body.push(format!(
            "Tests: {} passed, {} failed, {} unverifiable.",
            tally.passed, tally.failed, tally.unverifiable
        ));
        if let Some(why) = &self.proof.unproven_reason {
            body.push(format!(
                "Unproven: no passed check showed the change ({why})."
            ));
        }
        if !self.failed_rounds.is_empty() {
            let tries: Vec<String> = self
                .failed_rounds
                .iter()
                .map(|f| {
                    format!(
                        "- {}: {}",
                        f.operator
                            .as_ref()
                            .map_or("no operator".to_string(), OperatorId::to_string),
                        f.reason
                    )
                })
                .collect();
            body.push(format!(
                "Earlier tries of this round, rolled back:\n{}",
                tries.join("\n")
            ));
        }
        let mut trailers = vec![
            ("Mcpevol-Version", self.version.to_string()),
            ("Mcpevol-Round", self.version.number().to_string()),
        ];
        if let (Some(id), Some(name)) = (&self.operator, &self.operator_name) {
            trailers.push(("Mcpevol-Operator", id.to_string()));
            trailers.push(("Mcpevol-Operator-Name", name.clone()));
            trailers.push(("Mcpevol-Targets", self.targets.join(", ")));
        }
        if !self.added.is_empty() {
            trailers.push(("Mcpevol-Added", self.added.join(", ")));
        }
        if !self.patterns.is_empty() {
            let patterns: Vec<String> = self.patterns.iter().map(Pattern::to_string).collect();
            trailers.push(("Mcpevol-Patterns", patterns.join(", ")));
        }
        trailers.extend(self.release_trailers());
        trailers.push(("Mcpevol-Backend", self.backend.to_string()));
        trailers.push((
            "Mcpevol-Proof",
            if self.proof.is_proven() {
                "proven".into()
            } else {
                "unproven".into()
            },
        ));
        if let Some(model) = &self.model {
            trailers.push(("Mcpevol-Model", model.clone()));
        }
        if let Some(seed) = self.seed {
            trailers.push(("Mcpevol-Seed", seed.to_string()));
        }
        let trailers: Vec<String> = trailers
            .into_iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect();
        format!(
            "{subject}\n\n{}\n\n{}\n",
            body.join("\n\n"),
            trailers.join("\n")
        )
    }
}

mod changes;
mod files;
pub mod observed;
pub use files::{RecordError, read_exchanges, read_round, read_tools, scrub_tmp, write};
