//! Workspaces: a server package's files as a git work tree, one tagged commit per version.
//!
//! A workspace folder holds the package (with `node_modules/` git-ignored) and `.mcpevol/`
//! (launch settings `server.toml`, round records), committed with it. Versions are commits
//! tagged `v0`, `v1`, ... with lightweight tags. [`package::materialize`] fills a new folder
//! from an installed package or an npm spec; [`Workspace::create`] makes it a repository.

mod blobs;
mod odb;
mod package;
pub mod pypi;
mod pypi_index;
mod pypi_relax;
mod pypi_shim;
mod pypi_spec;
mod recover;
mod repo;
mod snapshot;
mod tag;

#[cfg(test)]
mod package_tests;
#[cfg(test)]
mod repo_tests;

use std::path::PathBuf;

pub use package::{Source, copy_tree, materialize};
pub use recover::{EvolveLock, Recovery};
pub use repo::{NOTES_REF, Workspace};
pub use tag::VersionTag;

/// One evolved version: the commit tagged `v<number>`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Version {
    pub tag: VersionTag,
    /// Full hex sha of the commit.
    pub commit: String,
}

impl Version {
    pub fn number(&self) -> u32 {
        self.tag.number()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error(
        "{} is not an mcpevol workspace (no .git or no .mcpevol/server.toml); create one with `mcpevol init`",
        .0.display()
    )]
    NotAWorkspace(PathBuf),
    #[error("{} is already a git repository; refusing to create a workspace there", .0.display())]
    AlreadyARepository(PathBuf),
    #[error("cannot {action} in {}: {source}", root.display())]
    Git {
        action: String,
        root: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error("cannot resolve revision `{rev}` in {}: {source}", root.display())]
    Revision {
        rev: String,
        root: PathBuf,
        #[source]
        source: git2::Error,
    },
    #[error(
        "another mcpevol (pid {pid}) is evolving {}; wait for it, or stop it first",
        root.display()
    )]
    Busy { root: PathBuf, pid: u32 },
    #[error("tag `{tag}` already exists in {}", root.display())]
    TagExists { tag: String, root: PathBuf },
    #[error("{path} at `{rev}` is not UTF-8 text")]
    NotText { rev: String, path: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} exists and is not empty; materialize needs a new or empty folder", .0.display())]
    NotEmpty(PathBuf),
    #[error("{} has no package.json", .0.display())]
    NoPackageJson(PathBuf),
    #[error("cannot start `{command}` in {}: {source}", cwd.display())]
    CommandStart {
        command: String,
        cwd: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("`{command}` in {} failed ({status}){}", cwd.display(), indent_tail(.stderr_tail))]
    CommandFailed {
        command: String,
        cwd: PathBuf,
        status: String,
        stderr_tail: String,
    },
    #[error("npm package `{spec}`: {detail}")]
    Npm { spec: String, detail: String },
    #[error(transparent)]
    Pypi(#[from] pypi::PypiError),
    #[error("npm package `{spec}`: {source}")]
    NpmStep {
        spec: String,
        #[source]
        source: Box<WorkspaceError>,
    },
}

impl WorkspaceError {
    pub(crate) fn io(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> WorkspaceError {
        let path = path.into();
        move |source| WorkspaceError::Io { path, source }
    }
}

// The stderr tail goes below the one-line cause, indented, as elsewhere in the CLI.
fn indent_tail(tail: &str) -> String {
    tail.lines().map(|line| format!("\n    {line}")).collect()
}

/// Trailers `Key: value` from the last paragraph of a commit message, in order.
///
/// As with git, the paragraph counts only if it is not the subject and every line in it is a
/// trailer or continues one (starts with whitespace); otherwise there are none, so a body
/// paragraph such as "Note: ..." is never mistaken for trailers.
pub fn trailers(message: &str) -> Vec<(String, String)> {
    let paragraphs: Vec<&str> = message
        .trim()
        .split("\n\n")
        .map(str::trim_end)
        .filter(|p| !p.trim().is_empty())
        .collect();
    let [_, .., last] = paragraphs.as_slice() else {
        return Vec::new();
    };
    let mut found: Vec<(String, String)> = Vec::new();
    for line in last.lines() {
        if line.starts_with([' ', '\t']) {
            match found.last_mut() {
                Some((_, value)) => {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                None => return Vec::new(),
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            return Vec::new();
        };
        let key_ok = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
        if !key_ok {
            return Vec::new();
        }
        found.push((key.to_string(), value.trim().to_string()));
    }
    found
}
