//! Why an attempt was rejected, as a type: every step of the attempt loop fails with one of
//! these, the record keeps its kind and its words, and a model reads the words back.

use crate::hunks::EditError;
use crate::llm::LlmError;
use crate::mutate::reply::ReplyError;
use crate::mutate::{MutateError, Proposal};
use crate::syntax_check::CheckError;
use crate::version_record::{Rejection, RejectionKind};
use crate::workspace::WorkspaceError;
use mcpevol_core::operators::Builtin;
use mcpevol_oracle::server::ServerError;
use mcpevol_oracle::validate::{Check, Effect};

#[derive(Debug, thiserror::Error)]
pub enum AttemptError {
    /// The rules could not draft the operator's edits on the chosen tool.
    #[error(transparent)]
    Mutate(#[from] MutateError),
    /// A model's reply could not be read (blocks, choice, test cases).
    #[error(transparent)]
    Reply(#[from] ReplyError),
    /// The model's choice of operator or tools is not one it may make.
    #[error("{0}")]
    Choice(String),
    #[error(transparent)]
    Edit(#[from] EditError),
    #[error(transparent)]
    Syntax(#[from] CheckError),
    /// The edited server did not start or list its tools.
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error("the schema change breaks the contract of {operator}: {}", .violations.join("; "))]
    Contract {
        operator: String,
        violations: Vec<String>,
        /// The change that broke it, or the tools no change of a release accounts for.
        blame: Blame,
    },
    /// A description was lost, garbled or padded.
    #[error(transparent)]
    Description(#[from] mcpevol_oracle::describe_check::Refused),
    /// A check of the oracle failed on the new version.
    #[error("test of `{tool}` failed: {reason}")]
    Test {
        tool: String,
        reason: String,
        /// What the failed call checked: the change it is about is the one whose claims name
        /// its parameter.
        check: Box<Check>,
    },
    /// A test case the model wrote failed on the new version.
    #[error("generated test of `{tool}` with arguments {arguments} failed: {reason}")]
    GeneratedTest {
        tool: String,
        arguments: String,
        reason: String,
    },
    /// The model's test cases stayed unusable after being told why.
    #[error("the generated tests were still unusable: {0}")]
    TestsUnusable(String),
    /// The previous version, sampled again, did not answer.
    #[error("the previous version did not answer again: {0}")]
    Previous(ServerError),
    /// The model endpoint itself failed (not the model's reply).
    #[error("the model could not be asked: {0}")]
    Endpoint(#[from] LlmError),
    #[error(transparent)]
    Workspace(#[from] WorkspaceError),
    #[error("cannot make a scratch folder: {0}")]
    Scratch(std::io::Error),
    /// `--require-proof`: every check of the change passed or proved nothing, none showed it.
    #[error("no passed check showed the change (--require-proof): {why}")]
    Unproven {
        why: String,
        /// The last change of the version that stayed unproven (its place among the proposals).
        change: Option<usize>,
    },
    /// A syntax check thread died.
    #[error("the syntax check panicked")]
    CheckPanicked,
}

impl AttemptError {
    pub fn kind(&self) -> RejectionKind {
        match self {
            AttemptError::Mutate(_) => RejectionKind::NotApplicable,
            AttemptError::Reply(_) | AttemptError::Choice(_) | AttemptError::TestsUnusable(_) => {
                RejectionKind::Reply
            }
            AttemptError::Edit(_) => RejectionKind::Edit,
            AttemptError::Syntax(_) => RejectionKind::Syntax,
            AttemptError::Server(_) | AttemptError::Previous(_) => RejectionKind::Server,
            AttemptError::Contract { .. } => RejectionKind::Contract,
            AttemptError::Description(_) => RejectionKind::Description,
            AttemptError::Test { .. } => RejectionKind::Test,
            AttemptError::GeneratedTest { .. } => RejectionKind::GeneratedTest,
            AttemptError::Endpoint(_) => RejectionKind::Endpoint,
            AttemptError::Unproven { .. } => RejectionKind::Unproven,
            AttemptError::Workspace(_) | AttemptError::Scratch(_) | AttemptError::CheckPanicked => {
                RejectionKind::Other
            }
        }
    }

    /// What the rejection is about, as the step that failed knows it.
    pub fn blame(&self) -> Blame {
        match self {
            AttemptError::Contract { blame, .. } => blame.clone(),
            AttemptError::Test { tool, check, .. } => Blame::Check {
                tool: tool.clone(),
                check: check.clone(),
            },
            AttemptError::GeneratedTest { tool, .. } => Blame::Tools(vec![tool.clone()]),
            AttemptError::Description(refused) => {
                Blame::Tools(refused.0.iter().map(|v| v.tool.clone()).collect())
            }
            AttemptError::Server(e) | AttemptError::Previous(e) => Blame::Trace(e.to_string()),
            AttemptError::Unproven {
                change: Some(i), ..
            } => Blame::Change(*i),
            _ => Blame::Unknown,
        }
    }

    /// The record of an attempt this error ended: the operator tried (None when the model's
    /// choice of one was unusable), its targets and the edits rolled back.
    pub fn rejection(
        &self,
        operator: Option<mcpevol_core::operators::OperatorId>,
        targets: Vec<String>,
        hunks: Vec<crate::hunks::Hunk>,
    ) -> Rejection {
        Rejection {
            operator,
            targets,
            kind: self.kind(),
            reason: self.to_string(),
            hunks,
        }
    }
}

/// What a rejected version's failure is about: which of its changes a release drops before it
/// tries again. Carried by the error from the step that failed, which knows it.
#[derive(Debug, Clone, PartialEq)]
pub enum Blame {
    /// One change, by its place among the version's proposals (a broken contract, a change
    /// left unproven).
    Change(usize),
    /// The tools a check failed on (a description, a change no proposal accounts for).
    Tools(Vec<String>),
    /// A call of the oracle that failed on `tool`: the change whose claims name what it
    /// checked (its effect, or its parameter), else as [`Blame::Tools`]. Blamed on the tool
    /// alone, a bound a description explained beside it (P9) lost its description first, the
    /// last drafted, and the bound failed again: on servers-npm 14 descriptions were dropped so.
    Check { tool: String, check: Box<Check> },
    /// What the server said when it failed: a stack trace may point into an edited file (a
    /// server that throws at load names no tool: `.../work/build/charts/liquid.js:11`).
    Trace(String),
    /// Nothing more specific.
    Unknown,
}

impl Blame {
    /// The change of `changes` this is about: the one named, else the last that touches a
    /// named tool, else the last whose edited file the trace points into, else the last drafted.
    /// Without the trace, a server that would not start had its last drafted change dropped,
    /// again and again, while the change that broke it stayed: on a 27-tool server, 26 changes
    /// were dropped in 5 releases for one edit's crash.
    pub fn pick(&self, changes: &[Proposal]) -> usize {
        let last = changes.len().saturating_sub(1);
        let found = match self {
            Blame::Change(i) => (*i < changes.len()).then_some(*i),
            Blame::Tools(tools) => touching(changes, tools),
            Blame::Check { tool, check } => changes
                .iter()
                .rposition(|p| p.effects.iter().any(|e| answers(e, tool, check)))
                .or_else(|| touching(changes, std::slice::from_ref(tool)))
                .or_else(|| acting(changes)),
            Blame::Trace(why) => changes.iter().rposition(|p| {
                (p.hunks.iter()).any(|h| !h.file.is_empty() && traces_into(why, &h.file))
            }),
            Blame::Unknown => None,
        };
        found.unwrap_or(last)
    }
}

/// The last of `changes` that can change what a tool answers: a call failed on a tool no
/// change touches (state an earlier call left), and a description rewritten elsewhere cannot
/// have done it. On a heldout-43 server seven changes, description ones first, were dropped
/// in turn before the parameter removal behind such a failure.
fn acting(changes: &[Proposal]) -> Option<usize> {
    changes.iter().rposition(|p| {
        !matches!(
            p.operator.builtin(),
            Some(
                Builtin::ToolDescriptionUpdate
                    | Builtin::ParameterDescriptionUpdate
                    | Builtin::JointDescriptionUpdate
            )
        )
    })
}

/// The last of `changes` that touches or adds one of `tools`.
fn touching(changes: &[Proposal], tools: &[String]) -> Option<usize> {
    (changes.iter()).rposition(|p| (p.targets.iter().chain(&p.added)).any(|t| tools.contains(t)))
}

/// Whether claim `e` is what `check` of `tool` checked: the claim itself, or one on its
/// parameter.
fn answers(e: &Effect, tool: &str, check: &Check) -> bool {
    match check {
        Check::Claim { effect } => e == effect,
        _ => e.tool() == tool && check.param().is_some_and(|p| e.param() == Some(p)),
    }
}

/// Whether a stack trace in `why` points into the package's own `file` (a path from the
/// package root), not into a dependency's file of that name (`node_modules/x/index.js`).
fn traces_into(why: &str, file: &str) -> bool {
    why.match_indices(&format!("/{file}:")).any(|(i, _)| {
        let path_start = why[..i]
            .rfind(|c: char| c.is_whitespace() || c == '(')
            .map_or(0, |s| s + 1);
        !why[path_start..i].contains("node_modules")
    })
}

#[cfg(test)]
#[path = "attempt_error_tests.rs"]
mod tests;
