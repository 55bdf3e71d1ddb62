//! Applying search/replace hunks: the one way every backend (rules, LLM, replay) changes files.
//!
//! A hunk's SEARCH text must occur exactly once in its file: first as written, then with any run
//! of whitespace matching any other run (models and people re-indent). All hunks are applied in
//! memory first, so a bad hunk leaves every file untouched. Which files a hunk may touch at all
//! is [`crate::confine`]'s to say.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::confine::{Refusal, Scope, ScopeError};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Hunk {
    /// Path relative to the package root, with `/`.
    pub file: String,
    /// Text to find; empty to create `file`, which must not exist yet.
    pub search: String,
    pub replace: String,
}

impl Hunk {
    pub fn new(file: &str, search: &str, replace: &str) -> Hunk {
        Hunk {
            file: file.into(),
            search: search.into(),
            replace: replace.into(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("hunk {index} for {file}: the file does not exist")]
    NoFile { index: usize, file: String },
    #[error("hunk {index} for {file}: the file already exists, so it cannot be created")]
    Exists { index: usize, file: String },
    #[error(
        "hunk {index} for {file}: its SEARCH text is not in the file; the closest line is {closest}"
    )]
    NotFound {
        index: usize,
        file: String,
        closest: String,
    },
    #[error(
        "hunk {index} for {file}: its SEARCH text occurs {count} times (at lines {lines}); it must be unique"
    )]
    Ambiguous {
        index: usize,
        file: String,
        count: usize,
        lines: String,
    },
    #[error("hunk {index} names {file}, which is outside the package: {why}")]
    Outside {
        index: usize,
        file: String,
        why: String,
    },
    #[error("hunk {index} for {file} is refused: {why}")]
    Refused {
        index: usize,
        file: String,
        why: String,
    },
    #[error(transparent)]
    Scope(#[from] ScopeError),
    #[error("cannot {what} {file}: {source}")]
    Io {
        what: &'static str,
        file: String,
        source: std::io::Error,
    },
}

/// Applies the hunks in order (later hunks see earlier ones' results) and writes the changed
/// files. Returns the changed files, sorted.
pub fn apply(root: &Path, hunks: &[Hunk]) -> Result<Vec<String>, EditError> {
    let scope = Scope::of_workspace(root)?;
    let texts = apply_in_memory(root, &scope, hunks)?;
    for (file, text) in &texts {
        write_no_follow(&root.join(file), text).map_err(|source| EditError::Io {
            what: "write",
            file: file.clone(),
            source,
        })?;
    }
    Ok(texts.into_keys().collect())
}

/// Writes `text` to `path`, refusing to follow a link there (the scope was checked a moment
/// ago; this closes the gap should a link appear in between).
fn write_no_follow(path: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)?;
    file.write_all(text.as_bytes())
}

/// The new text of every file the hunks touch, without writing anything.
pub fn apply_in_memory(
    root: &Path,
    scope: &Scope,
    hunks: &[Hunk],
) -> Result<BTreeMap<String, String>, EditError> {
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for (i, hunk) in hunks.iter().enumerate() {
        let index = i + 1;
        let file = crate::confine::normalize(&hunk.file)
            .and_then(|file| {
                // A file made by an earlier hunk of the same edit may be edited by later ones.
                let creating = hunk.search.is_empty() || texts.contains_key(&file);
                scope.check(&file, creating)
            })
            .map_err(|refusal| match refusal {
                Refusal::Outside(why) => EditError::Outside {
                    index,
                    file: hunk.file.clone(),
                    why,
                },
                Refusal::Forbidden(why) => EditError::Refused {
                    index,
                    file: hunk.file.clone(),
                    why,
                },
            })?;
        if !texts.contains_key(&file) {
            let path = root.join(&file);
            if path.is_file() {
                let text = std::fs::read_to_string(&path).map_err(|source| EditError::Io {
                    what: "read",
                    file: file.clone(),
                    source,
                })?;
                texts.insert(file.clone(), text);
            } else if hunk.search.is_empty() {
                texts.insert(file.clone(), hunk.replace.clone());
                continue;
            } else {
                return Err(EditError::NoFile { index, file });
            }
        } else if hunk.search.is_empty() {
            return Err(EditError::Exists { index, file });
        }
        let text = texts.get_mut(&file).expect("inserted above");
        if hunk.search.is_empty() {
            return Err(EditError::Exists { index, file });
        }
        let (start, end) = locate(text, &hunk.search).map_err(|found| match found {
            Found::None => EditError::NotFound {
                index,
                file: file.clone(),
                closest: closest_line(text, &hunk.search),
            },
            Found::Many(at) => EditError::Ambiguous {
                index,
                file: file.clone(),
                count: at.len(),
                lines: at
                    .iter()
                    .map(|b| line_of(text, *b).to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
            },
        })?;
        text.replace_range(start..end, &hunk.replace);
    }
    Ok(texts)
}

enum Found {
    None,
    Many(Vec<usize>),
}

/// The byte range of the one occurrence of `search`: exact, else whitespace-tolerant.
/// Overlapping occurrences count: in `"\n\n\n\n"`, `"\n\n\n"` occurs twice.
fn locate(text: &str, search: &str) -> Result<(usize, usize), Found> {
    let exact: Vec<usize> = starts(text, search).collect();
    match exact.len() {
        1 => return Ok((exact[0], exact[0] + search.len())),
        0 => {}
        _ => return Err(Found::Many(exact)),
    }
    let tokens: Vec<String> = search.split_whitespace().map(regex::escape).collect();
    if tokens.is_empty() {
        return Err(Found::None);
    }
    let pattern = regex::Regex::new(&tokens.join(r"\s+")).map_err(|_| Found::None)?;
    let mut from = 0;
    let found: Vec<(usize, usize)> = std::iter::from_fn(|| {
        let m = pattern.find_at(text, from)?;
        from = after_char_at(text, m.start());
        Some((m.start(), m.end()))
    })
    .collect();
    match found.len() {
        0 => Err(Found::None),
        1 => Ok(found[0]),
        _ => Err(Found::Many(found.iter().map(|m| m.0).collect())),
    }
}

/// Every byte offset where `needle` starts in `text`, overlapping occurrences included
/// (`str::match_indices` skips those, and would call `"aa"` unique in `"aaa"`).
fn starts<'a>(text: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + text.get(from..)?.find(needle)?;
        from = after_char_at(text, at);
        Some(at)
    })
}

/// The offset just past the character at `at` (past the end when `at` is the end).
fn after_char_at(text: &str, at: usize) -> usize {
    at + text[at..].chars().next().map_or(1, char::len_utf8)
}

fn line_of(text: &str, byte: usize) -> usize {
    text[..byte].matches('\n').count() + 1
}

/// The file line most like the first line of the SEARCH text, to show what is really there.
fn closest_line(text: &str, search: &str) -> String {
    let wanted = search
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("");
    let best = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            (
                similar::TextDiff::from_chars(wanted, l.trim()).ratio(),
                i,
                l,
            )
        })
        .max_by(|a, b| a.0.total_cmp(&b.0));
    match best {
        Some((_, i, line)) => format!(
            "{}: {:?}",
            i + 1,
            line.trim().chars().take(160).collect::<String>()
        ),
        None => "none (the file is empty)".into(),
    }
}

/// A hunk that replaces the bytes `start..end` of `text` with `new`, with just enough context
/// around it to be unique in the file: whole lines for ordinary code, characters for the
/// very long lines of minified bundles.
pub fn hunk_for(file: &str, text: &str, start: usize, end: usize, new: &str) -> Hunk {
    const LONG_LINE: usize = 400;
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let (mut a, mut b) = if line_end - line_start > LONG_LINE {
        (start, end)
    } else {
        (line_start, line_end)
    };
    loop {
        let search = &text[a..b];
        if starts(text, search).nth(1).is_none() || (a == 0 && b == text.len()) {
            let replace = format!("{}{}{}", &text[a..start], new, &text[end..b]);
            return Hunk {
                file: file.to_string(),
                search: search.to_string(),
                replace,
            };
        }
        if b - a > LONG_LINE || text[a..b].contains('\n') || line_end - line_start <= LONG_LINE {
            // Grow by a line on each side: to the line's own ends first where the growth by
            // characters left `a` or `b` inside a line (stepping one byte past them there
            // landed inside a multi-byte character).
            let before = if text[..a].ends_with('\n') { a - 1 } else { a };
            a = text[..before].rfind('\n').map_or(0, |i| i + 1);
            let after = if text[b..].starts_with('\n') {
                b + 1
            } else {
                b
            };
            b = text[after..].find('\n').map_or(text.len(), |i| after + i);
        } else {
            a = text.floor_char_boundary(a.saturating_sub(32));
            b = text.ceil_char_boundary((b + 32).min(text.len()));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hunk_on_a_long_line_of_wide_characters_repeated_grows_to_whole_lines() {
        let half = "合".repeat(150);
        let line = format!("{half}X{half}");
        let text = format!("a\n{line}\n{line}\nb\n");
        let start = text.find('X').unwrap();
        let hunk = hunk_for("f.js", &text, start, start + 1, "Y");
        assert_eq!(text.matches(&hunk.search).count(), 1);
        assert!(hunk.search.starts_with("a\n") && !hunk.search.ends_with('\n'));
        let edited = text.replacen(&hunk.search, &hunk.replace, 1);
        assert_eq!(edited, format!("a\n{half}Y{half}\n{line}\nb\n"));
    }

    fn package(files: &[(&str, &str)]) -> tempfile::TempDir {
        crate::confine::tests::committed_package(files)
    }

    #[test]
    fn an_exact_unique_match_is_replaced() {
        let dir = package(&[("a.js", "const a = 1;\nconst b = 2;\n")]);
        apply(
            dir.path(),
            &[Hunk::new("a.js", "const b = 2;", "const b = 3;")],
        )
        .unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.js")).unwrap(),
            "const a = 1;\nconst b = 3;\n"
        );
    }

    #[test]
    fn a_match_with_different_indentation_is_found() {
        let dir = package(&[("a.js", "if (x) {\n        go(1,\n           2);\n}\n")]);
        apply(dir.path(), &[Hunk::new("a.js", "go(1,\n  2);", "go(3);")]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.js")).unwrap(),
            "if (x) {\n        go(3);\n}\n"
        );
    }

    #[test]
    fn an_ambiguous_match_names_the_hunk_and_lines_and_changes_nothing() {
        let dir = package(&[("a.js", "x();\nx();\n"), ("b.js", "y();\n")]);
        let err = apply(
            dir.path(),
            &[
                Hunk::new("b.js", "y();", "z();"),
                Hunk::new("a.js", "x();", "w();"),
            ],
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "hunk 2 for a.js: its SEARCH text occurs 2 times (at lines 1, 2); it must be unique"
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("b.js")).unwrap(),
            "y();\n",
            "nothing written"
        );
    }

    #[test]
    fn a_missing_match_shows_the_closest_real_line() {
        let dir = package(&[("a.js", "function greet(name) {\n  return name;\n}\n")]);
        let err = apply(
            dir.path(),
            &[Hunk::new("a.js", "function greeting(name) {", "x")],
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("closest line is 1: \"function greet(name) {\""),
            "{err}"
        );
    }

    #[test]
    fn an_empty_search_creates_a_new_file_but_never_overwrites() {
        let dir = package(&[("a.js", "a\n")]);
        apply(
            dir.path(),
            &[Hunk::new("new.js", "", "export const x = 1;\n")],
        )
        .unwrap();
        assert!(dir.path().join("new.js").is_file());
        assert!(matches!(
            apply(dir.path(), &[Hunk::new("a.js", "", "b")]),
            Err(EditError::Exists { .. })
        ));
    }

    #[test]
    fn a_search_text_that_overlaps_another_occurrence_of_itself_is_ambiguous() {
        let dir = package(&[("a.js", "aaa\n")]);
        let err = apply(dir.path(), &[Hunk::new("a.js", "aa", "b")]).unwrap_err();
        assert!(
            matches!(err, EditError::Ambiguous { count: 2, .. }),
            "{err}"
        );
        let dir = package(&[("a.js", "x y x y x\n")]);
        let err = apply(dir.path(), &[Hunk::new("a.js", "x  y\tx", "z")]).unwrap_err();
        assert!(
            matches!(err, EditError::Ambiguous { count: 2, .. }),
            "{err}"
        );
    }

    /// Found by the `edit_hunks` fuzz target: `"\n\n\n"` was taken as unique in `"\n\n\n\n"`,
    /// and the insertion at the end landed one line early.
    #[test]
    fn hunk_for_counts_overlapping_occurrences_so_the_edit_lands_where_asked() {
        let text = "\n\n\n\n";
        let h = hunk_for("a.js", text, 4, 4, "x\n");
        let dir = package(&[("a.js", text)]);
        apply(dir.path(), &[h]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a.js")).unwrap(),
            "\n\n\n\nx\n"
        );
    }

    #[test]
    fn hunk_for_grows_context_until_the_search_text_is_unique() {
        let text = "case \"a\":\n  run();\ncase \"b\":\n  run();\n";
        let start = text.rfind("run").unwrap();
        let h = hunk_for("x.js", text, start, start + 3, "walk");
        assert_eq!(text.matches(&h.search).count(), 1);
        let dir = package(&[("x.js", text)]);
        apply(dir.path(), &[h]).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("x.js")).unwrap(),
            "case \"a\":\n  run();\ncase \"b\":\n  walk();\n"
        );
    }
}
