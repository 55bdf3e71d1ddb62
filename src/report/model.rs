//! What a report shows, gathered once for the HTML and Markdown pages: per server its versions
//! with their records, stage tags, test counts and code diffs (from git, `.mcpevol/` left out),
//! and for a batch folder its summary (status, failed rounds, time).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use git2::{Delta, DiffOptions, Patch, Repository};

use super::highlight;
use crate::batch::summary::{ServerSummary, Summary};
use crate::evolve::RoundStatus;
use crate::history;
use crate::validate::Tally;
use crate::version_record::RoundRecord;
use crate::workspace::{Version, VersionTag, Workspace};

/// Lines of one file's diff shown; the rest is summarized.
pub const MAX_DIFF_LINES: usize = 400;
/// Longer lines (minified bundles) are cut and left uncoloured.
pub const MAX_LINE_CHARS: usize = 240;

/// The stage of rounds made after a server's last stage tag.
pub const BEYOND_STAGES: &str = "beyond stages";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineKind {
    Context,
    Added,
    Removed,
    /// `@@ -a,b +c,d @@`
    Hunk,
}

#[derive(Debug, Clone)]
pub struct DiffLine {
    pub kind: LineKind,
    pub old: Option<u32>,
    pub new: Option<u32>,
    /// The text, without its newline.
    pub text: String,
    /// Coloured HTML of `text`, when the file's language is known and the line not too long.
    pub html: Option<String>,
}

#[derive(Debug, Clone)]
pub struct FileDiff {
    pub path: String,
    pub added: usize,
    pub removed: usize,
    pub lines: Vec<DiffLine>,
    /// Lines left out beyond [`MAX_DIFF_LINES`].
    pub omitted: usize,
    pub binary: bool,
}

#[derive(Debug, Clone)]
pub struct VersionView {
    pub version: Version,
    pub record: RoundRecord,
    pub tests: Tally,
    /// Stage tags that point at this version.
    pub stages: Vec<String>,
    /// From the previous version (empty for v0).
    pub diff: Vec<FileDiff>,
}

#[derive(Debug, Clone)]
pub struct ServerView {
    pub name: String,
    pub dir: PathBuf,
    pub versions: Vec<VersionView>,
    /// The batch's view of it: status, failed rounds, time (batch folders only).
    pub batch: Option<ServerSummary>,
}

/// One step of a server's timeline: a version, or a round that failed.
#[derive(Debug, Clone)]
pub struct TimelineItem {
    pub version: VersionTag,
    pub stages: Vec<String>,
    /// What made the version (`RoundRecord::made_by`), or the operator a failed round tried.
    pub made_by: String,
    /// Why the round failed; None for a committed version.
    pub failed: Option<String>,
}

impl ServerView {
    /// Versions and failed rounds, in round order (a failed round after the version it did not
    /// replace, when the evolution went on).
    pub fn timeline(&self) -> Vec<TimelineItem> {
        let mut items: Vec<(u32, bool, TimelineItem)> = self
            .versions
            .iter()
            .map(|v| {
                let item = TimelineItem {
                    version: v.version.tag,
                    stages: v.stages.clone(),
                    made_by: v.record.made_by(),
                    failed: None,
                };
                (v.version.number(), false, item)
            })
            .collect();
        for r in self
            .batch
            .iter()
            .flat_map(|b| &b.rounds)
            .filter(|r| r.status == RoundStatus::Failed)
        {
            let item = TimelineItem {
                version: r.version,
                stages: Vec::new(),
                made_by: r
                    .operator
                    .as_ref()
                    .map_or("-".to_string(), |o| o.to_string()),
                failed: Some(r.reason.clone().unwrap_or_default()),
            };
            items.push((r.version.number(), true, item));
        }
        items.sort_by_key(|(n, failed, _)| (*n, *failed));
        items.into_iter().map(|(_, _, item)| item).collect()
    }
}

#[derive(Debug, Clone)]
pub struct ReportData {
    /// What the report is of, as given.
    pub source: String,
    pub servers: Vec<ServerView>,
    pub summary: Option<Summary>,
    /// What `drift --json` found for these servers, when given (`report --drift`).
    pub drift: Option<crate::drift::DriftReport>,
}

impl ReportData {
    /// The drift audit of a server, when one was given.
    pub fn drift_of(&self, server: &str) -> Option<&crate::drift::ServerDrift> {
        self.drift.as_ref()?.server(server)
    }

    /// Servers of a batch that have no workspace (they did not install or start).
    pub fn without_workspace(&self) -> Vec<&ServerSummary> {
        self.summary
            .iter()
            .flat_map(|s| &s.servers)
            .filter(|b| !self.servers.iter().any(|s| s.name == b.name))
            .collect()
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error(transparent)]
    Batch(#[from] crate::batch::BatchError),
    #[error(transparent)]
    Record(#[from] crate::version_record::RecordError),
    #[error(transparent)]
    Workspace(#[from] crate::workspace::WorkspaceError),
    #[error("cannot read the git history of {}: {source}", root.display())]
    Git { root: PathBuf, source: git2::Error },
}

impl ReportData {
    /// Gathers the report of a workspace or of a batch folder.
    pub fn gather(path: &Path) -> Result<ReportData, ReportError> {
        let workspaces = crate::batch::workspaces(path)?.found;
        let summary = crate::batch::summary_of(path)?;
        let mut servers = Vec::new();
        for (name, dir) in workspaces {
            let batch = summary
                .as_ref()
                .and_then(|s| s.servers.iter().find(|x| x.name == name).cloned());
            servers.push(ServerView {
                versions: versions(&dir)?,
                name,
                dir,
                batch,
            });
        }
        Ok(ReportData {
            source: path.display().to_string(),
            servers,
            summary,
            drift: None,
        })
    }
}

fn versions(dir: &Path) -> Result<Vec<VersionView>, ReportError> {
    let ws = Workspace::open(dir)?;
    let git = |source| ReportError::Git {
        root: dir.to_path_buf(),
        source,
    };
    let repo = Repository::open(dir).map_err(git)?;
    let stages = stage_tags(&repo).map_err(git)?;
    let mut out: Vec<VersionView> = Vec::new();
    for (version, record) in history::versions(&ws)? {
        let diff = match out.last() {
            Some(prev) => diff(&repo, &prev.version.commit, &version.commit).map_err(git)?,
            None => Vec::new(),
        };
        out.push(VersionView {
            tests: record.tally(),
            stages: stages.get(&version.commit).cloned().unwrap_or_default(),
            version,
            record,
            diff,
        });
    }
    Ok(out)
}

/// Tags other than `vN`, by the commit they point at.
fn stage_tags(repo: &Repository) -> Result<BTreeMap<String, Vec<String>>, git2::Error> {
    let mut by_commit: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for name in repo.tag_names(None)?.iter().flatten().flatten() {
        let is_version = name
            .strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
        if is_version {
            continue;
        }
        let commit = repo
            .revparse_single(name)?
            .peel_to_commit()?
            .id()
            .to_string();
        by_commit.entry(commit).or_default().push(name.to_string());
    }
    Ok(by_commit)
}

/// The code diff between two commits, records (`.mcpevol/`) left out.
fn diff(repo: &Repository, from: &str, to: &str) -> Result<Vec<FileDiff>, git2::Error> {
    let tree = |rev: &str| repo.revparse_single(rev)?.peel_to_tree();
    let mut opts = DiffOptions::new();
    opts.context_lines(3);
    let diff = repo.diff_tree_to_tree(Some(&tree(from)?), Some(&tree(to)?), Some(&mut opts))?;
    let mut files = Vec::new();
    for (i, delta) in diff.deltas().enumerate() {
        let file = delta.new_file().path().or(delta.old_file().path());
        let path = file
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_default();
        if path.starts_with(".mcpevol/") {
            continue;
        }
        if let Some(patch) = Patch::from_diff(&diff, i)? {
            files.push(file_diff(repo, &delta, &patch, path)?);
        }
    }
    Ok(files)
}

/// One file's diff, its lines coloured from the highlighted text of both blobs.
fn file_diff(
    repo: &Repository,
    delta: &git2::DiffDelta,
    patch: &Patch,
    path: String,
) -> Result<FileDiff, git2::Error> {
    let (_, added, removed) = patch.line_stats()?;
    let mut fd = FileDiff {
        path,
        added,
        removed,
        lines: Vec::new(),
        omitted: 0,
        binary: delta.flags().is_binary(),
    };
    if fd.binary {
        return Ok(fd);
    }
    let blob_lines = |id: git2::Oid, present: bool| -> Option<Vec<String>> {
        let blob = repo.find_blob(id).ok().filter(|_| present)?;
        highlight::lines(&fd.path, blob.content())
    };
    let coloured = Coloured {
        old: blob_lines(delta.old_file().id(), delta.status() != Delta::Added),
        new: blob_lines(delta.new_file().id(), delta.status() != Delta::Deleted),
    };
    for h in 0..patch.num_hunks() {
        let (hunk, count) = patch.hunk(h)?;
        push(
            &mut fd,
            DiffLine {
                kind: LineKind::Hunk,
                old: None,
                new: None,
                text: String::from_utf8_lossy(hunk.header())
                    .trim_end()
                    .to_string(),
                html: None,
            },
        );
        for l in 0..count {
            if let Some(line) = coloured.line(&patch.line_in_hunk(h, l)?) {
                push(&mut fd, line);
            }
        }
    }
    Ok(fd)
}

/// The highlighted lines of a file's old and new text.
struct Coloured {
    old: Option<Vec<String>>,
    new: Option<Vec<String>>,
}

impl Coloured {
    /// A line of a hunk, cut when too long (then uncoloured); None for git's "no newline at
    /// end of file" markers.
    fn line(&self, line: &git2::DiffLine) -> Option<DiffLine> {
        let kind = match line.origin() {
            '+' => LineKind::Added,
            '-' => LineKind::Removed,
            ' ' => LineKind::Context,
            _ => return None,
        };
        let text = String::from_utf8_lossy(line.content())
            .trim_end_matches(['\n', '\r'])
            .to_string();
        let (old, new) = (line.old_lineno(), line.new_lineno());
        let pick = |lines: &Option<Vec<String>>, n: Option<u32>| {
            let n = n? as usize;
            lines.as_ref()?.get(n.checked_sub(1)?).cloned()
        };
        let long = text.chars().count() > MAX_LINE_CHARS;
        let (text, html) = if long {
            let cut = text.chars().take(MAX_LINE_CHARS).collect::<String>();
            (format!("{cut}…"), None)
        } else if kind == LineKind::Removed {
            (text, pick(&self.old, old))
        } else {
            (text, pick(&self.new, new))
        };
        Some(DiffLine {
            kind,
            old,
            new,
            text,
            html,
        })
    }
}

/// Counts in the order of their keys (operators and patterns order by number), as labels.
fn labelled<K: std::fmt::Display>(counts: BTreeMap<K, u64>) -> Vec<(String, u64)> {
    counts
        .into_iter()
        .map(|(k, n)| (k.to_string(), n))
        .collect()
}

fn push(fd: &mut FileDiff, line: DiffLine) {
    if fd.lines.len() < MAX_DIFF_LINES {
        fd.lines.push(line);
    } else {
        fd.omitted += 1;
    }
}

impl ReportData {
    /// Operator ids with the rounds that used them, over every server.
    pub fn operator_counts(&self) -> Vec<(String, u64)> {
        let mut counts = BTreeMap::new();
        for v in self.servers.iter().flat_map(|s| &s.versions) {
            if let Some(op) = &v.record.operator {
                *counts.entry(op.clone()).or_insert(0) += 1;
            }
        }
        labelled(counts)
    }

    /// Patterns P1-P18 with the rounds that showed them.
    pub fn pattern_counts(&self) -> Vec<(String, u64)> {
        let mut counts = BTreeMap::new();
        for v in self.servers.iter().flat_map(|s| &s.versions) {
            for p in &v.record.patterns {
                *counts.entry(*p).or_insert(0) += 1;
            }
        }
        labelled(counts)
    }

    /// Per stage, in version order: schema changes (breaking, other) made by the rounds that
    /// lead to it from the stage before; rounds past a server's last stage tag come last, as
    /// [`BEYOND_STAGES`].
    pub fn changes_per_stage(&self) -> Vec<(String, u64, u64)> {
        let mut per: BTreeMap<(u32, String), (u64, u64)> = BTreeMap::new();
        for s in &self.servers {
            let marks: Vec<(u32, &String)> = s
                .versions
                .iter()
                .flat_map(|v| v.stages.iter().map(move |st| (v.version.number(), st)))
                .collect();
            for v in &s.versions {
                let key = marks
                    .iter()
                    .filter(|(n, _)| *n >= v.version.number())
                    .min_by_key(|(n, _)| *n)
                    .map_or((u32::MAX, BEYOND_STAGES.to_string()), |(n, st)| {
                        (*n, (*st).clone())
                    });
                let slot = per.entry(key).or_default();
                for c in &v.record.schema_changes {
                    if c.breaking {
                        slot.0 += 1;
                    } else {
                        slot.1 += 1;
                    }
                }
            }
        }
        // One bar per stage name, at its earliest version.
        let mut seen: Vec<(String, u64, u64)> = Vec::new();
        for ((_, stage), (b, o)) in per {
            match seen.iter_mut().find(|(s, _, _)| *s == stage) {
                Some(slot) => {
                    slot.1 += b;
                    slot.2 += o;
                }
                None => seen.push((stage, b, o)),
            }
        }
        seen
    }
}
