//! Where the replay backend reads recorded rounds from: another workspace, or a revision of
//! the one being evolved.

use std::path::Path;

use super::EvolveError;
use crate::version_record::{self, RoundRecord};
use crate::workspace::{VersionTag, Workspace};

/// Where recorded rounds are read from.
#[derive(Clone, Debug)]
pub enum ReplaySource {
    /// Another workspace: round K is its version `vK`.
    Workspace(std::path::PathBuf),
    /// A revision of the workspace being evolved (say a branch kept before resetting to `v0`
    /// and deleting the later version tags): round K is the commit in its history whose record
    /// says round K.
    Rev(String),
}

impl ReplaySource {
    /// A folder is a workspace; anything else is taken as a revision.
    pub fn parse(arg: &str) -> ReplaySource {
        if Path::new(arg).is_dir() {
            ReplaySource::Workspace(arg.into())
        } else {
            ReplaySource::Rev(arg.to_string())
        }
    }

    /// The record and exchanges of round `k`.
    pub(super) fn round(
        &self,
        ws: &Workspace,
        version: VersionTag,
    ) -> Result<(RoundRecord, Vec<crate::llm::Exchange>), EvolveError> {
        let missing = || EvolveError::NothingToReplay {
            from: self.to_string(),
            version,
        };
        match self {
            ReplaySource::Workspace(dir) => {
                let recorded = Workspace::open(dir)?;
                let tag = version.to_string();
                let round = version_record::read_round(&recorded, &tag)?.ok_or_else(missing)?;
                Ok((round, version_record::read_exchanges(&recorded, &tag)?))
            }
            ReplaySource::Rev(rev) => {
                for commit in ws.history(rev)? {
                    if let Some(round) =
                        version_record::read_round(ws, &commit)?.filter(|r| r.version == version)
                    {
                        return Ok((round, version_record::read_exchanges(ws, &commit)?));
                    }
                }
                Err(missing())
            }
        }
    }
}

impl std::fmt::Display for ReplaySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReplaySource::Workspace(dir) => write!(f, "{}", dir.display()),
            ReplaySource::Rev(rev) => write!(f, "revision {rev}"),
        }
    }
}
