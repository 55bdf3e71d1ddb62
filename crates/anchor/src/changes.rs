//! Where two versions of a text differ, as byte ranges: what the syntax check judges the edit on,
//! and the edits an incremental reparse needs.
//!
//! Files reach megabytes (single-file bundles), so the common head and tail are cut off first
//! (a memcmp) and only the middle is diffed: by lines when it is long, then by bytes within each
//! changed stretch that is short enough.

use std::ops::Range;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffTag};

/// How long a diff may run; past it the diff is coarser (wider changed ranges), never wrong.
const DIFF_DEADLINE: Duration = Duration::from_millis(50);
/// A stretch up to this long is diffed byte by byte; a longer one by lines first, because a
/// byte diff's cost grows with the product of the length and the number of differences.
const BYTE_DIFF_MAX: usize = 16 * 1024;

/// One difference: `old` in the old text became `new` in the new one (either may be empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextChange {
    pub old: Range<usize>,
    pub new: Range<usize>,
}

/// Texts from this long on have their last diff remembered: a round diffs the same large
/// pair twice (for the incremental reparse and for the syntax check).
const REMEMBERED_MIN_BYTES: usize = 128 * 1024;

/// The last diff of a large pair, by the hashes of its texts.
static LAST: std::sync::Mutex<Option<(u64, u64, Vec<TextChange>)>> = std::sync::Mutex::new(None);

/// The differences between `old` and `new`, in order, none overlapping. Ranges fall on char
/// boundaries of their texts.
pub fn changes(old: &str, new: &str) -> Vec<TextChange> {
    if old.len().max(new.len()) < REMEMBERED_MIN_BYTES {
        return diff(old, new, DIFF_DEADLINE);
    }
    let key = (
        super::content_hash(old.as_bytes()),
        super::content_hash(new.as_bytes()),
    );
    let mut last = LAST.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((o, n, found)) = last.as_ref()
        && (*o, *n) == key
    {
        return found.clone();
    }
    let found = diff(old, new, DIFF_DEADLINE);
    *last = Some((key.0, key.1, found.clone()));
    found
}

/// The diff, coarser past `allowed` time (tests that check its precision give it more, so
/// that a busy machine cannot fail them).
fn diff(old: &str, new: &str, allowed: Duration) -> Vec<TextChange> {
    if old == new {
        return Vec::new();
    }
    let (a, b) = (old.as_bytes(), new.as_bytes());
    let prefix = old.floor_char_boundary(common_prefix(a, b));
    let max_suffix = (a.len() - prefix).min(b.len() - prefix);
    let suffix = common_suffix(&a[a.len() - max_suffix..], &b[b.len() - max_suffix..]);
    let suffix = a.len() - old.ceil_char_boundary(a.len() - suffix);
    let middle = TextChange {
        old: prefix..a.len() - suffix,
        new: prefix..b.len() - suffix,
    };
    let deadline = Instant::now() + allowed;
    let mut out = Vec::new();
    if middle.old.len().max(middle.new.len()) <= BYTE_DIFF_MAX {
        bytes_diff(old, new, &middle, deadline, &mut out);
        return out;
    }
    let (om, nm) = (&old[middle.old.clone()], &new[middle.new.clone()]);
    let diff = similar::TextDiff::configure()
        .algorithm(Algorithm::Myers)
        .deadline(deadline)
        .diff_lines(om, nm);
    // Line indices to byte offsets within the middles.
    let offsets = |lines: &[&str]| {
        let mut at = Vec::with_capacity(lines.len() + 1);
        let mut sum = 0;
        at.push(0);
        for l in lines {
            sum += l.len();
            at.push(sum);
        }
        at
    };
    let (old_at, new_at) = (offsets(diff.old_slices()), offsets(diff.new_slices()));
    for op in diff.ops() {
        if op.tag() == DiffTag::Equal {
            continue;
        }
        let (o, n) = (op.old_range(), op.new_range());
        let stretch = TextChange {
            old: middle.old.start + old_at[o.start]..middle.old.start + old_at[o.end],
            new: middle.new.start + new_at[n.start]..middle.new.start + new_at[n.end],
        };
        if stretch.old.len().max(stretch.new.len()) <= BYTE_DIFF_MAX {
            bytes_diff(old, new, &stretch, deadline, &mut out);
        } else {
            out.push(stretch);
        }
    }
    out
}

/// The byte diff of one stretch, appended to `out` in whole characters.
fn bytes_diff(
    old: &str,
    new: &str,
    stretch: &TextChange,
    deadline: Instant,
    out: &mut Vec<TextChange>,
) {
    let ops = similar::capture_diff_slices_deadline(
        Algorithm::Myers,
        &old.as_bytes()[stretch.old.clone()],
        &new.as_bytes()[stretch.new.clone()],
        Some(deadline),
    );
    for op in ops.iter().filter(|op| op.tag() != DiffTag::Equal) {
        let (o, n) = (op.old_range(), op.new_range());
        let change = TextChange {
            old: old.floor_char_boundary(stretch.old.start + o.start)
                ..old.ceil_char_boundary(stretch.old.start + o.end),
            new: new.floor_char_boundary(stretch.new.start + n.start)
                ..new.ceil_char_boundary(stretch.new.start + n.end),
        };
        // Widening to whole characters can make neighbours meet; keep one change.
        match out.last_mut() {
            Some(last) if last.old.end >= change.old.start || last.new.end >= change.new.start => {
                last.old.end = last.old.end.max(change.old.end);
                last.new.end = last.new.end.max(change.new.end);
            }
            _ => out.push(change),
        }
    }
}

pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    // Chunks let the compiler compare many bytes at once.
    let chunk = 64;
    let mut i = 0;
    while i + chunk <= a.len().min(b.len()) && a[i..i + chunk] == b[i..i + chunk] {
        i += chunk;
    }
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

pub(super) fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let chunk = 64;
    let (mut i, n) = (0, a.len().min(b.len()));
    while i + chunk <= n
        && a[a.len() - i - chunk..a.len() - i] == b[b.len() - i - chunk..b.len() - i]
    {
        i += chunk;
    }
    i + a[..a.len() - i]
        .iter()
        .rev()
        .zip(b[..b.len() - i].iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Applies `changes` to `old` and checks that the result is `new`: the ranges say exactly
    /// what differs.
    fn replay(old: &str, new: &str, changes: &[TextChange]) -> String {
        let mut out = String::new();
        let mut at = 0;
        for c in changes {
            out.push_str(&old[at..c.old.start]);
            out.push_str(&new[c.new.clone()]);
            at = c.old.end;
        }
        out.push_str(&old[at..]);
        out
    }

    #[test]
    fn one_edit_in_a_long_text_is_found_to_the_byte() {
        let old = "let a = 1;\n".repeat(50_000);
        let mut new = old.clone();
        new.insert_str(300_000, "/* here */");
        let found = changes(&old, &new);
        assert_eq!(
            found,
            vec![TextChange {
                old: 300_000..300_000,
                new: 300_000..300_010
            }]
        );
    }

    #[test]
    fn edits_far_apart_in_a_long_text_stay_separate_and_replay_to_the_new_text() {
        let old = "function f() { return 1; }\n".repeat(40_000);
        let mut new = old.clone();
        new.replace_range(27 * 30_000 + 15..27 * 30_000 + 21, "yield");
        new.insert_str(27 * 10, "// first\n");
        // Time enough for a loaded machine: precision, not speed, is what this checks.
        let found = diff(&old, &new, Duration::from_secs(60));
        // The byte diff may split the replaced word; each change stays at one of the edits.
        let near = |at: usize| found.iter().any(|c| c.old.start.abs_diff(at) < 32);
        assert!(near(270) && near(27 * 30_000 + 15), "{found:?}");
        assert!(
            found.iter().all(|c| c.old.len() + c.new.len() < 64),
            "{found:?}"
        );
        assert_eq!(replay(&old, &new, &found), new);
    }

    #[test]
    fn ranges_fall_on_character_boundaries() {
        let old = "const s = 'ééé';";
        let new = "const s = 'èéé';";
        let found = changes(old, new);
        assert_eq!(replay(old, new, &found), new);
        for c in &found {
            assert!(old.is_char_boundary(c.old.start) && old.is_char_boundary(c.old.end));
            assert!(new.is_char_boundary(c.new.start) && new.is_char_boundary(c.new.end));
        }
    }

    #[test]
    fn equal_texts_have_no_changes_and_a_deletion_is_an_empty_new_range() {
        assert!(changes("abc", "abc").is_empty());
        assert_eq!(
            changes("abcdef", "abef"),
            vec![TextChange {
                old: 2..4,
                new: 2..2
            }]
        );
    }
}
