//! Why an attempt was rejected, as a type: every step of the attempt loop fails with one of
//! these, the record keeps its kind and its words, and a model reads the words back.

use crate::hunks::EditError;
use crate::llm::LlmError;
use crate::mutate::MutateError;
use crate::mutate::reply::ReplyError;
use crate::syntax_check::CheckError;
use crate::version_record::{Rejection, RejectionKind};
use crate::workspace::WorkspaceError;
use mcpevol_oracle::server::ServerError;

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
    },
    /// A description was lost, garbled or padded.
    #[error(transparent)]
    Description(#[from] mcpevol_oracle::describe_check::Refused),
    /// A check of the oracle failed on the new version.
    #[error("test of `{tool}` failed: {reason}")]
    Test { tool: String, reason: String },
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
    #[error("no passed check showed the change (--require-proof): {0}")]
    Unproven(String),
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
            AttemptError::Unproven(_) => RejectionKind::Unproven,
            AttemptError::Workspace(_) | AttemptError::Scratch(_) | AttemptError::CheckPanicked => {
                RejectionKind::Other
            }
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
