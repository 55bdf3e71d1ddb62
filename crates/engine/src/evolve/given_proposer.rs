//! A proposal made elsewhere (a script, a test, a person) as a proposer: it is offered once and
//! judged exactly like a backend's, which makes the oracle usable on a hand-made edit.

use async_trait::async_trait;

use super::EvolveError;
use super::proposer::{Ask, GiveUp, Proposed, Proposer};
use crate::mutate::Proposal;
use crate::version_record::{Author, Rejection};

/// Offers its proposal once; after a rejection there is nothing else to try.
pub struct GivenProposer {
    proposal: Option<Proposal>,
}

impl GivenProposer {
    pub fn new(proposal: Proposal) -> GivenProposer {
        GivenProposer {
            proposal: Some(proposal),
        }
    }
}

#[async_trait(?Send)]
impl Proposer for GivenProposer {
    fn author(&self) -> Author {
        Author::Given
    }

    async fn propose(
        &mut self,
        _ask: &Ask<'_>,
        _rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        Ok(match self.proposal.take() {
            Some(p) => Proposed::Changes(vec![p]),
            None => Proposed::GiveUp(GiveUp::quietly()),
        })
    }
}
