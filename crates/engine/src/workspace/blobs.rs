//! Large changed files staged without compressing them in the commit: a round writes the blob
//! of an edited megabyte bundle during its server step (`write_blobs_ahead`), and the commit
//! stages the file by its content, which only hashes it when the blob is already written.
//! libgit2's `add_path` streams a file into the object store and compresses it every time
//! (about 40 ms of a 6.6 MB bundle's commit, on the critical path of the round).

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use git2::{AttrCheckFlags, Index, IndexEntry, IndexTime, ObjectType, Oid};

use super::repo::Workspace;

/// Files from this size on are written ahead and staged by content; smaller ones cost a
/// commit well under a millisecond either way.
const LARGE_BYTES: u64 = 256 * 1024;

/// Attributes under which git changes a file's content when it stages it: such a file is left
/// to `add_path`, which applies them.
const FILTER_ATTRIBUTES: &[&str] = &["filter", "text", "eol", "crlf", "ident"];

impl Workspace {
    /// Writes the blobs of the large regular files among `paths` (relative to the root) into the
    /// object store, so that the commit that may follow finds them written. Rolled back edits
    /// leave their blobs unreferenced, as any aborted `git add` does; a failure here only loses
    /// the head start.
    pub fn write_blobs_ahead(&self, paths: &[String]) {
        for rel in paths {
            if let Some((_, data)) = self.large_content(Path::new(rel))
                && let Err(e) = self
                    .repo
                    .odb()
                    .and_then(|o| o.write(ObjectType::Blob, &data))
            {
                tracing::debug!("{rel}: blob not written ahead: {e}");
            }
        }
    }

    /// Stages `rel` by its content when it is a large regular file no attribute filters; false
    /// when the caller should stage it with `add_path`.
    pub(super) fn stage_large(&self, index: &mut Index, rel: &Path) -> Result<bool, git2::Error> {
        let Some((meta, data)) = self.large_content(rel) else {
            return Ok(false);
        };
        // Hashes the content; compresses it only when no blob of it was written ahead.
        let id = self.repo.odb()?.write(ObjectType::Blob, &data)?;
        index.add(&entry(rel, id, &meta))?;
        Ok(true)
    }

    /// The file's stat data, taken before its content is read (a change in between then shows
    /// as a stat mismatch, never as a clean file), and its content.
    fn large_content(&self, rel: &Path) -> Option<(std::fs::Metadata, Vec<u8>)> {
        let meta = self.root.join(rel).symlink_metadata().ok()?;
        // Size first: every changed file of a commit comes through here.
        if !meta.is_file() || meta.len() < LARGE_BYTES {
            return None;
        }
        let filtered = FILTER_ATTRIBUTES.iter().any(|a| {
            self.repo
                .get_attr(rel, a, AttrCheckFlags::FILE_THEN_INDEX)
                .ok()
                .flatten()
                .is_some()
        });
        if filtered {
            return None;
        }
        let data = std::fs::read(self.root.join(rel)).ok()?;
        Some((meta, data))
    }
}

/// The index entry `add_path` would make: the file's stat data (so that status does not hash it
/// again), its blob and its mode (executable by its owner or not; core.fileMode is pinned on).
fn entry(rel: &Path, id: Oid, meta: &std::fs::Metadata) -> IndexEntry {
    use std::os::unix::ffi::OsStrExt;
    let time = |secs: i64, nanos: i64| IndexTime::new(secs as i32, nanos as u32);
    IndexEntry {
        ctime: time(meta.ctime(), meta.ctime_nsec()),
        mtime: time(meta.mtime(), meta.mtime_nsec()),
        dev: meta.dev() as u32,
        ino: meta.ino() as u32,
        mode: if meta.mode() & 0o100 != 0 {
            0o100755
        } else {
            0o100644
        },
        uid: meta.uid(),
        gid: meta.gid(),
        file_size: meta.len() as u32,
        id,
        flags: 0,
        flags_extended: 0,
        path: rel.as_os_str().as_bytes().to_vec(),
    }
}
