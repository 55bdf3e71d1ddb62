//! Surviving a killed evolve (`kill -9`, a power cut): a lock file in `.git/` marks a run in
//! progress. A later run that finds the lock of a process that is gone puts the workspace back
//! at its last good version, losing nothing: a version committed but not yet tagged gets its
//! tag, and whatever else the dead run left (a round's edits, its records, a staged index) is
//! saved in git's stash, named, before the work tree is restored to HEAD.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use git2::{Repository, Signature, StashFlags};

use super::repo::IDENTITY;
use super::{Workspace, WorkspaceError, trailers};

/// In `.git/`, where no status or commit sees it.
const LOCK_FILE: &str = "mcpevol-evolve.lock";
/// Lock files git leaves when killed between taking and releasing them, relative to `.git/`.
const GIT_LOCKS: &[&str] = &["index.lock", "HEAD.lock", "packed-refs.lock", "config.lock"];
const VERSION_TRAILER: &str = "Mcpevol-Version";

/// Held while an evolve runs; removed when dropped.
#[derive(Debug)]
pub struct EvolveLock {
    path: PathBuf,
}

impl Drop for EvolveLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

/// What a recovery did, for the user.
#[derive(Debug, Default, PartialEq)]
pub struct Recovery {
    /// The process whose run was interrupted.
    pub pid: u32,
    /// A version that was committed but not tagged, now tagged.
    pub tagged: Option<String>,
    /// The stash commit holding what the interrupted run left, and its paths.
    pub stashed: Option<(String, Vec<String>)>,
    /// Lock files of git's that the killed run left, removed.
    pub removed_locks: Vec<String>,
    /// The version the workspace is at now.
    pub at: String,
}

impl fmt::Display for Recovery {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "an evolve (pid {}) was interrupted here", self.pid)?;
        if let Some(tag) = &self.tagged {
            write!(
                f,
                "; its last version was committed but not tagged, now tagged {tag}"
            )?;
        }
        if let Some((commit, paths)) = &self.stashed {
            write!(
                f,
                "; what it left uncommitted ({}) is saved in the stash as {} (`git stash show -p`)",
                paths.join(", "),
                &commit[..12]
            )?;
        }
        if !self.removed_locks.is_empty() {
            write!(
                f,
                "; stale git locks removed: {}",
                self.removed_locks.join(", ")
            )?;
        }
        write!(f, "; the workspace is at {}", self.at)
    }
}

/// Who holds a lock: a pid and its start time, which tells a live holder from a reused pid.
#[derive(Debug, PartialEq)]
struct Holder {
    pid: u32,
    started: u64,
}

impl Holder {
    fn me() -> Holder {
        let pid = std::process::id();
        Holder {
            pid,
            started: start_time(pid).unwrap_or(0),
        }
    }

    fn parse(text: &str) -> Option<Holder> {
        let mut parts = text.split_whitespace().map(str::parse::<u64>);
        let pid = parts.next()?.ok()? as u32;
        let started = parts.next()?.ok()?;
        Some(Holder { pid, started })
    }

    fn alive(&self) -> bool {
        start_time(self.pid) == Some(self.started)
    }
}

/// The start time of a process (field 22 of /proc/PID/stat, in clock ticks since boot).
fn start_time(pid: u32) -> Option<u64> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name (field 2) may hold spaces and parentheses: count from its end.
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

impl Workspace {
    fn lock_path(&self) -> PathBuf {
        self.repo.path().join(LOCK_FILE)
    }

    /// Takes the evolve lock, first recovering from an interrupted run. Another live run on
    /// the same workspace is an error.
    pub fn lock_for_evolve(&self) -> Result<(EvolveLock, Option<Recovery>), WorkspaceError> {
        let recovery = self.recover()?;
        let path = self.lock_path();
        let me = Holder::me();
        let created = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .and_then(|mut f| {
                use std::io::Write;
                writeln!(f, "{} {}", me.pid, me.started)
            });
        match created {
            Ok(()) => Ok((EvolveLock { path }, recovery)),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(self
                .busy(&path)
                .unwrap_or(WorkspaceError::Io { path, source: e })),
            Err(source) => Err(WorkspaceError::Io { path, source }),
        }
    }

    fn busy(&self, path: &Path) -> Option<WorkspaceError> {
        let holder = Holder::parse(&fs::read_to_string(path).ok()?)?;
        Some(WorkspaceError::Busy {
            root: self.root.clone(),
            pid: holder.pid,
        })
    }

    /// If an evolve was interrupted here (its lock is left and its process gone), brings the
    /// workspace back to its last good version without losing anything, and says what it did.
    pub fn recover(&self) -> Result<Option<Recovery>, WorkspaceError> {
        let path = self.lock_path();
        let Ok(text) = fs::read_to_string(&path) else {
            return Ok(None);
        };
        let holder = Holder::parse(&text);
        if let Some(h) = &holder
            && h.alive()
        {
            return Err(WorkspaceError::Busy {
                root: self.root.clone(),
                pid: h.pid,
            });
        }
        let mut recovery = Recovery {
            pid: holder.map_or(0, |h| h.pid),
            removed_locks: self.remove_git_locks()?,
            ..Recovery::default()
        };
        recovery.tagged = self.tag_half_made_version()?;
        let dirty = self.dirty_paths()?;
        if !dirty.is_empty() {
            let stash = self.stash_leftovers(recovery.pid)?;
            self.restore(&self.head()?)?;
            recovery.stashed = Some((stash, dirty));
        }
        let head = self.head()?;
        recovery.at = self
            .versions()?
            .into_iter()
            .rev()
            .find(|v| v.commit == head)
            .map_or(head, |v| v.tag.to_string());
        fs::remove_file(&path).map_err(WorkspaceError::io(&path))?;
        Ok(Some(recovery))
    }

    /// Git's own lock files, left by a process killed while holding them.
    fn remove_git_locks(&self) -> Result<Vec<String>, WorkspaceError> {
        let git_dir = self.repo.path();
        let mut candidates: Vec<PathBuf> = GIT_LOCKS.iter().map(|l| git_dir.join(l)).collect();
        let refs = walkdir::WalkDir::new(git_dir.join("refs"))
            .into_iter()
            .flatten();
        candidates.extend(
            refs.filter(|e| e.file_type().is_file())
                .map(|e| e.into_path())
                .filter(|p| p.extension().is_some_and(|x| x == "lock")),
        );
        let mut removed = Vec::new();
        for lock in candidates.into_iter().filter(|p| p.is_file()) {
            fs::remove_file(&lock).map_err(WorkspaceError::io(&lock))?;
            let shown = lock.strip_prefix(git_dir).unwrap_or(&lock);
            removed.push(format!(".git/{}", shown.display()));
        }
        Ok(removed)
    }

    /// HEAD is a version commit whose tag was never written (killed between the two): the
    /// commit is whole and validated, so it gets its tag.
    fn tag_half_made_version(&self) -> Result<Option<String>, WorkspaceError> {
        let head = self.head()?;
        let versions = self.versions()?;
        if versions.iter().any(|v| v.commit == head) {
            return Ok(None);
        }
        let message = self.message(&head)?;
        let Some(tag) = trailers(&message)
            .into_iter()
            .find(|(k, _)| k == VERSION_TRAILER)
            .map(|(_, v)| v)
        else {
            return Ok(None); // a commit of the user's: theirs to keep, not ours to tag
        };
        let parent = self.history(&head)?.get(1).cloned();
        let follows_latest = versions
            .last()
            .is_some_and(|l| Some(&l.commit) == parent.as_ref() && tag == l.tag.next().to_string());
        if !follows_latest {
            return Ok(None);
        }
        let commit = self.commit(&head)?;
        self.repo
            .tag_lightweight(&tag, commit.as_object(), false)
            .map_err(self.git(&format!("tag {tag}")))?;
        Ok(Some(tag))
    }

    /// Saves the work tree and index (untracked files too) as a stash entry.
    fn stash_leftovers(&self, pid: u32) -> Result<String, WorkspaceError> {
        let action = "save the interrupted run's changes in the stash";
        let mut repo = Repository::open(&self.root).map_err(self.git(action))?;
        let sig = Signature::now(IDENTITY.0, IDENTITY.1).map_err(self.git(action))?;
        let message = format!("mcpevol: left by the interrupted evolve (pid {pid})");
        let oid = repo
            .stash_save(&sig, &message, Some(StashFlags::INCLUDE_UNTRACKED))
            .map_err(self.git(action))?;
        Ok(oid.to_string())
    }
}
