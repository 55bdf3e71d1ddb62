//! A process-wide cache of the parse trees of large files. A round parses the same file in
//! several steps (anchoring, the rules' handler lookup, the syntax check of the old and the new
//! text), and a round changes a few lines of it: a 5 MB bundle took about 250 ms a full parse.
//! A text seen before gets its tree back; a text that differs a little from a cached one is
//! reparsed incrementally from that one's tree, which reuses everything outside the edits.

use std::sync::{Arc, Mutex};

use tree_sitter::{InputEdit, Point, Tree};

use super::changes::{TextChange, changes, common_prefix, common_suffix};
use super::grammar::Lang;

/// Texts shorter than this are parsed afresh: it takes well under a millisecond, and caching
/// them would only hold memory.
pub const CACHED_MIN_BYTES: usize = 128 * 1024;
/// How many trees are kept. A round needs the current and the next version of the one or two
/// large files it edits; a tree costs several times its text in memory.
const CAPACITY: usize = 4;
/// An incremental reparse pays off while the edits are small next to the file; past this share
/// of the text, a full parse is as fast and simpler to trust.
const MAX_CHANGED_SHARE: usize = 4;

struct CachedTree {
    lang: Lang,
    hash: u64,
    text: Arc<str>,
    tree: Tree,
    last_used: u64,
}

#[derive(Default)]
struct TreeCache {
    entries: Vec<CachedTree>,
    clock: u64,
}

static CACHE: Mutex<TreeCache> = Mutex::new(TreeCache {
    entries: Vec::new(),
    clock: 0,
});

/// The tree of `src`, from the cache when it holds this text or one close to it; `parse` does a
/// parse, fresh (`None`) or incremental (`Some(edited old tree)`).
pub fn tree(
    src: &str,
    lang: Lang,
    parse: impl FnOnce(Option<&Tree>) -> Option<Tree>,
) -> Option<Tree> {
    if src.len() < CACHED_MIN_BYTES {
        return parse(None);
    }
    let hash = hash(src);
    let base = {
        let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        if let Some(e) = cache
            .entries
            .iter_mut()
            .find(|e| e.lang == lang && e.hash == hash && *e.text == *src)
        {
            e.last_used = now;
            return Some(e.tree.clone());
        }
        // The closest cached text of the same grammar: the longest shared head and tail.
        cache
            .entries
            .iter()
            .filter(|e| e.lang == lang)
            .max_by_key(|e| shared_ends(&e.text, src))
            .map(|e| (e.text.clone(), e.tree.clone()))
    };
    let tree = match base {
        Some((old_text, mut old_tree)) => {
            let edits = changes(&old_text, src);
            let changed: usize = edits.iter().map(|c| c.old.len().max(c.new.len())).sum();
            if changed * MAX_CHANGED_SHARE < src.len() {
                // Edits apply last to first, so each one's old positions are still valid.
                for c in edits.iter().rev() {
                    old_tree.edit(&input_edit(&old_text, src, c));
                }
                parse(Some(&old_tree))?
            } else {
                parse(None)?
            }
        }
        None => parse(None)?,
    };
    let mut cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache.clock += 1;
    let now = cache.clock;
    if cache.entries.len() >= CAPACITY
        && let Some(oldest) = (0..cache.entries.len()).min_by_key(|&i| cache.entries[i].last_used)
    {
        cache.entries.swap_remove(oldest);
    }
    cache.entries.push(CachedTree {
        lang,
        hash,
        text: Arc::from(src),
        tree: tree.clone(),
        last_used: now,
    });
    Some(tree)
}

/// Whether [`tree`] would find `src` in the cache or reparse it from a cached text close to it,
/// rather than parse it afresh.
pub fn holds_near(src: &str, lang: Lang) -> bool {
    let cache = CACHE.lock().unwrap_or_else(|p| p.into_inner());
    cache.entries.iter().any(|e| {
        e.lang == lang && shared_ends(&e.text, src) + src.len() / MAX_CHANGED_SHARE >= src.len()
    })
}

/// Forgets every tree: for benchmarks that measure cold parses.
pub fn clear() {
    CACHE
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .entries
        .clear();
}

fn hash(src: &str) -> u64 {
    super::content_hash(src.as_bytes())
}

/// How many bytes two texts share at their start plus at their end: cheap, and large exactly
/// when one is a small edit of the other.
fn shared_ends(a: &str, b: &str) -> usize {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let head = common_prefix(a, b);
    head + common_suffix(&a[head..], &b[head..])
}

/// Tree-sitter's description of one change; positions count rows and byte columns.
fn input_edit(old: &str, new: &str, c: &TextChange) -> InputEdit {
    let start_position = point_at(old, c.old.start);
    let rest = &new[c.new.clone()];
    let new_end_position = match rest.rfind('\n') {
        Some(i) => Point::new(
            start_position.row + rest.matches('\n').count(),
            rest.len() - i - 1,
        ),
        None => Point::new(start_position.row, start_position.column + rest.len()),
    };
    InputEdit {
        start_byte: c.old.start,
        old_end_byte: c.old.end,
        new_end_byte: c.old.start + c.new.len(),
        start_position,
        old_end_position: point_at(old, c.old.end),
        new_end_position,
    }
}

/// The row and byte column of `byte` in `text`.
pub(super) fn point_at(text: &str, byte: usize) -> Point {
    let head = &text.as_bytes()[..byte];
    let row = head.iter().filter(|b| **b == b'\n').count();
    let column = byte - head.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    Point::new(row, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sexp(tree: &Tree) -> String {
        tree.root_node().to_sexp()
    }

    fn big_source(n: usize) -> String {
        (0..n)
            .map(|i| format!("function f{i}(a) {{ return a + {i}; }}\n"))
            .collect()
    }

    #[test]
    fn an_edited_large_text_reparses_to_the_tree_a_fresh_parse_gives() {
        let old = big_source(8_000);
        assert!(old.len() >= CACHED_MIN_BYTES);
        let old_tree = crate::parse(&old, Lang::JavaScript).unwrap();
        // Two edits far apart, one of them adding lines, one breaking the syntax.
        let mut new = old.clone();
        let late = new.find("function f7000(").unwrap();
        new.insert_str(late, "const broken = (;\n");
        let early = new.find("return a + 10;").unwrap();
        new.replace_range(early..early + 14, "return [a,\n 10];");
        let incremental = crate::parse(&new, Lang::JavaScript).unwrap();
        let mut fresh = tree_sitter::Parser::new();
        fresh.set_language(&Lang::JavaScript.language()).unwrap();
        let fresh = fresh.parse(&new, None).unwrap();
        assert_eq!(sexp(&incremental), sexp(&fresh));
        assert!(incremental.root_node().has_error());
        assert!(!old_tree.root_node().has_error());
    }

    #[test]
    fn points_count_rows_and_byte_columns() {
        assert_eq!(point_at("ab\ncd", 4), Point::new(1, 1));
        assert_eq!(point_at("ab\ncd", 2), Point::new(0, 2));
        let e = input_edit(
            "ab\ncd",
            "ab\nxy\nzcd",
            &TextChange {
                old: 3..3,
                new: 3..7,
            },
        );
        assert_eq!(e.new_end_position, Point::new(2, 1));
        assert_eq!(e.new_end_byte, 7);
    }
}
