//! A version's files in a scratch folder, runnable beside the work tree: the previous version
//! can answer calls while the work tree holds the next one.

use std::path::Path;

use git2::build::CheckoutBuilder;

use super::{Workspace, WorkspaceError};

/// Ignored folders a version needs to run, linked rather than copied.
const LINKED: &[&str] = &["node_modules", crate::workspace::pypi::VENV_LINK];

impl Workspace {
    /// Writes the files of `rev` into `dir` (which must exist and be empty) and links the
    /// work tree's installed dependencies there.
    pub fn snapshot(&self, rev: &str, dir: &Path) -> Result<(), WorkspaceError> {
        let io = |source| WorkspaceError::Io {
            path: dir.to_path_buf(),
            source,
        };
        let git = |e: git2::Error| WorkspaceError::Io {
            path: dir.to_path_buf(),
            source: std::io::Error::other(format!("cannot write {rev} here: {e}")),
        };
        let tree = self
            .repo
            .revparse_single(rev)
            .and_then(|o| o.peel_to_tree())
            .map_err(git)?;
        let mut checkout = CheckoutBuilder::new();
        checkout
            .target_dir(dir)
            .force()
            .recreate_missing(true)
            .update_index(false);
        self.repo
            .checkout_tree(tree.as_object(), Some(&mut checkout))
            .map_err(git)?;
        for name in LINKED {
            let installed = self.root.join(name);
            if installed.exists() {
                let target = installed.canonicalize().map_err(io)?;
                std::os::unix::fs::symlink(target, dir.join(name)).map_err(io)?;
            }
        }
        Ok(())
    }
}
