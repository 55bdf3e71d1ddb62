//! Where an edit may land: a file tracked in the workspace's git tree, reached without a link,
//! outside the folders that git, mcpevol and npm manage; a new file only beside tracked ones.
//!
//! Hunks come from a model, so every path in them is suspect. A workspace's `node_modules`
//! entries are links into an install shared by every workspace, `.git/` and `.mcpevol/` hold
//! what a rollback relies on, and ignored files survive a rollback: an edit to any of them would
//! outlive the round or reach other workspaces. The rules are checked before anything is read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Folders no edit may enter, with the reason given to whoever wrote the hunk.
const MANAGED_FOLDERS: &[(&str, &str)] = &[
    (
        ".git",
        "`.git/` holds the version history, which only mcpevol writes",
    ),
    (
        ".mcpevol",
        "`.mcpevol/` holds mcpevol's launch settings and records, which only mcpevol writes",
    ),
    (
        "node_modules",
        "`node_modules/` holds installed dependencies, shared with other workspaces; change the package's own sources instead",
    ),
    (
        ".venv",
        "`.venv/` is the Python environment, shared with other workspaces; change the package's own sources instead",
    ),
];

/// Files that decide what git records (an edit could make `node_modules/` part of a version).
const GIT_CONTROL_FILES: &[&str] = &[".gitignore", ".gitattributes", ".gitmodules"];

/// Folders named as examples when a new file is refused.
const FOLDERS_SHOWN: usize = 8;

/// git's mode for a regular file, executable or not.
fn is_regular_mode(mode: i32) -> bool {
    mode == 0o100644 || mode == 0o100755
}

#[derive(Debug, thiserror::Error)]
pub enum ScopeError {
    #[error(
        "edits apply only to files tracked by git, and {} is not a git work tree with a commit: {source}",
        root.display()
    )]
    NoTree { root: PathBuf, source: git2::Error },
}

/// Why a path is refused, in words for the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The path leaves the package (absolute, or `..`).
    Outside(String),
    /// The path stays inside but may not be edited.
    Forbidden(String),
}

/// The tracked files of a workspace at HEAD, and the folders that hold them.
pub struct Scope {
    root: PathBuf,
    /// Tracked path -> whether git records it as a regular file (not a link or submodule).
    files: BTreeMap<String, bool>,
    /// Folders holding at least one tracked file; "" is the root.
    folders: BTreeSet<String>,
}

impl Scope {
    /// The scope of the git work tree at `root`, from its HEAD commit.
    pub fn of_workspace(root: &Path) -> Result<Scope, ScopeError> {
        let no_tree = |source| ScopeError::NoTree {
            root: root.to_path_buf(),
            source,
        };
        let repo = git2::Repository::open(root).map_err(no_tree)?;
        let tree = repo
            .head()
            .and_then(|h| h.peel_to_tree())
            .map_err(no_tree)?;
        let mut files = BTreeMap::new();
        let mut folders = BTreeSet::new();
        tree.walk(git2::TreeWalkMode::PreOrder, |dir, entry| {
            if entry.kind() != Some(git2::ObjectType::Tree) {
                let name = String::from_utf8_lossy(entry.name_bytes());
                files.insert(format!("{dir}{name}"), is_regular_mode(entry.filemode()));
                folders.insert(dir.trim_end_matches('/').to_string());
            }
            git2::TreeWalkResult::Ok
        })
        .map_err(no_tree)?;
        Ok(Scope {
            root: root.to_path_buf(),
            files,
            folders,
        })
    }

    /// The path a hunk for `file` may write, normalized (`./` and empty parts dropped), or why
    /// not. `creating` is for a hunk that makes a new file.
    pub fn check(&self, file: &str, creating: bool) -> Result<String, Refusal> {
        let parts = relative_parts(file)?;
        let path = parts.join("/");
        for part in &parts {
            if let Some((_, why)) = MANAGED_FOLDERS.iter().find(|(name, _)| name == part) {
                return Err(Refusal::Forbidden(why.to_string()));
            }
        }
        let name = parts
            .last()
            .expect("relative_parts returns at least one part");
        if GIT_CONTROL_FILES.contains(name) {
            return Err(Refusal::Forbidden(format!(
                "`{name}` decides what git records in a version, which only mcpevol changes"
            )));
        }
        self.no_link_on_the_way(&parts)?;
        let exists = std::fs::symlink_metadata(self.root.join(&path)).is_ok();
        match self.files.get(&path) {
            Some(true) => Ok(path),
            Some(false) => Err(Refusal::Forbidden(
                "git records it as a link or submodule, not a regular file".into(),
            )),
            None if exists => Err(Refusal::Forbidden(
                "it is not tracked in the workspace's git tree (an ignored or generated file); edit tracked files only".into(),
            )),
            None if creating => {
                let folder = parts[..parts.len() - 1].join("/");
                if self.folders.contains(&folder) {
                    Ok(path)
                } else {
                    Err(Refusal::Forbidden(format!(
                        "a new file may only be created in a folder that already holds tracked files ({})",
                        self.folder_examples()
                    )))
                }
            }
            // Not there at all: applying the hunk says so, with the hunk's number.
            None => Ok(path),
        }
    }

    /// Every existing prefix of the path must be a real folder (and the file a real file): a
    /// link could lead anywhere, the shared install included.
    fn no_link_on_the_way(&self, parts: &[&str]) -> Result<(), Refusal> {
        let mut at = self.root.clone();
        for (i, part) in parts.iter().enumerate() {
            at.push(part);
            let Ok(meta) = std::fs::symlink_metadata(&at) else {
                return Ok(()); // nothing further exists, so no link further on either
            };
            if meta.file_type().is_symlink() {
                return Err(Refusal::Forbidden(format!(
                    "`{}` is a symbolic link, and a link may lead outside the package",
                    parts[..=i].join("/")
                )));
            }
        }
        Ok(())
    }

    fn folder_examples(&self) -> String {
        let shown: Vec<String> = self
            .folders
            .iter()
            .filter(|f| !f.split('/').any(|p| p == ".mcpevol"))
            .take(FOLDERS_SHOWN)
            .map(|f| {
                if f.is_empty() {
                    ".".into()
                } else {
                    format!("{f}/")
                }
            })
            .collect();
        format!("such as {}", shown.join(", "))
    }
}

/// The path with `./` and empty parts dropped, if it is a plain relative path inside the root.
pub fn normalize(file: &str) -> Result<String, Refusal> {
    relative_parts(file).map(|parts| parts.join("/"))
}

/// The path's parts, if it is a plain relative path that stays inside the root.
fn relative_parts(file: &str) -> Result<Vec<&str>, Refusal> {
    if file.starts_with('/') || file.starts_with('~') || Path::new(file).is_absolute() {
        return Err(Refusal::Outside(
            "it is an absolute path (or one from the home folder); name files relative to the package root".into(),
        ));
    }
    if file.contains('\0') {
        return Err(Refusal::Forbidden("the path holds a NUL byte".into()));
    }
    let parts: Vec<&str> = file
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    if parts.contains(&"..") {
        return Err(Refusal::Outside(
            "`..` leads out of the package; name files relative to the package root".into(),
        ));
    }
    if parts.is_empty() {
        return Err(Refusal::Forbidden("the path names no file".into()));
    }
    Ok(parts)
}

#[cfg(test)]
#[path = "confine_tests.rs"]
pub(crate) mod tests;
