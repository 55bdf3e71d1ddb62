//! How machine-made a run's versions read: the share of added tools named as an earlier tool
//! plus a suffix, how concentrated the names of added parameters are, the handler wrappers each
//! file holds (and how many are stacked on another), and the formula phrases changed
//! descriptions gained. The real figures they are read beside are in
//! `../shared/release-patterns.md` (4% suffix-named, the most common parameter name 5%).

use std::collections::BTreeMap;
use std::path::Path;

use crate::schema::Change;
use crate::version_record::{self, RecordError};
use crate::workspace::{VersionTag, Workspace};
use mcpevol_core::listed::ListedTool;
use mcpevol_core::words;

/// Words real releases end an alias with, and that mark a copy rather than a new capability.
const SUFFIX_WORDS: &[&str] = &[
    "alias", "v1", "v2", "v3", "compat", "copy", "new", "old", "legacy", "batch", "2", "ex",
];

/// Phrases of a template rather than of a maintainer: a schema listed back, an alias pointed
/// at, a bound the schema states repeated with its refusal.
const FORMULAS: &[&str] = &[
    "for a related task, see",
    "from its schema",
    "also made available as",
    "an exact copy of",
    "values are refused",
    "lists are refused",
    "required: `",
    "optional: `",
    "parameters: `",
    "all its parameters are optional",
    "and, optionally,",
];

/// What one run (or many, added together) reads like.
#[derive(Debug, Default, Clone)]
pub struct Realism {
    /// Names of the tools versions added.
    pub added_tools: Vec<String>,
    /// Those named as a tool of the version before plus a suffix.
    pub suffix_named: Vec<String>,
    /// Names of the parameters versions added to existing tools, with how often.
    pub added_params: BTreeMap<String, usize>,
    /// Descriptions (of tools and of parameters) versions changed or wrote anew.
    pub changed_descriptions: usize,
    /// The formula phrases those descriptions gained, each with the tool it is on.
    pub formulas: Vec<String>,
    /// Handler wrappers in the last version's files.
    pub wrappers: usize,
    /// The most wrappers one file holds.
    pub most_wrappers_in_file: usize,
    /// Wrappers written directly around another wrapper.
    pub stacked: usize,
}

impl Realism {
    /// The figures of the versions of `ws`, its work tree as the last version left it.
    pub fn of_workspace(ws: &Workspace) -> Result<Realism, RecordError> {
        let mut out = Realism::default();
        let mut before: Option<Vec<ListedTool>> = None;
        for (version, record) in crate::history::versions(ws)? {
            let tools = version_record::read_tools(ws, version.tag.to_string())?
                .map(|l| l.tools)
                .unwrap_or_default();
            if version.tag != VersionTag::ORIGINAL
                && let Some(old) = &before
            {
                out.add_version(old, &tools, &record.schema_changes);
            }
            before = Some(tools);
        }
        out.add_files(ws.root());
        Ok(out)
    }

    fn add_version(
        &mut self,
        old: &[ListedTool],
        new: &[ListedTool],
        changes: &[crate::schema::SchemaChange],
    ) {
        let old_names: Vec<&str> = old.iter().filter_map(ListedTool::name).collect();
        for c in changes {
            match &c.what {
                Change::ToolAdded => {
                    self.added_tools.push(c.tool.clone());
                    if suffix_named(&c.tool, &old_names) {
                        self.suffix_named.push(c.tool.clone());
                    }
                }
                Change::ParamAdded { param, .. } => {
                    *self.added_params.entry(param.clone()).or_default() += 1
                }
                _ => {}
            }
        }
        for tool in new {
            let Some(name) = tool.name() else { continue };
            let was = old.iter().find(|t| t.is_named(name));
            let mut texts = vec![(
                tool.description().unwrap_or_default(),
                was.and_then(ListedTool::description).unwrap_or_default(),
            )];
            for (param, schema) in tool.properties().into_iter().flatten() {
                let now = schema["description"].as_str().unwrap_or_default();
                let then = (was.map(|w| w.property(param)))
                    .and_then(|p| p["description"].as_str())
                    .unwrap_or_default();
                texts.push((now, then));
            }
            for (now, then) in texts {
                if now == then || now.is_empty() {
                    continue;
                }
                self.changed_descriptions += 1;
                for f in new_formulas(now, then) {
                    self.formulas.push(format!("{name}: {f}"));
                }
            }
        }
    }

    fn add_files(&mut self, root: &Path) {
        for entry in walkdir::WalkDir::new(root)
            .into_iter()
            // The server's own files: `.mcpevol/round.json` quotes the round's hunks, and its
            // wrappers counted a second time (howtocook's record showed 42 in one file).
            .filter_entry(|e| {
                ![".git", "node_modules", ".mcpevol"]
                    .contains(&e.file_name().to_str().unwrap_or_default())
            })
            .flatten()
        {
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            let (count, stacked) = wrappers(&text);
            self.wrappers += count;
            self.stacked += stacked;
            self.most_wrappers_in_file = self.most_wrappers_in_file.max(count);
        }
    }

    /// Adds another run's figures to these.
    pub fn add(&mut self, other: Realism) {
        self.added_tools.extend(other.added_tools);
        self.suffix_named.extend(other.suffix_named);
        for (name, n) in other.added_params {
            *self.added_params.entry(name).or_default() += n;
        }
        self.changed_descriptions += other.changed_descriptions;
        self.formulas.extend(other.formulas);
        self.wrappers += other.wrappers;
        self.stacked += other.stacked;
        self.most_wrappers_in_file = self.most_wrappers_in_file.max(other.most_wrappers_in_file);
    }

    /// The share of added tools named as an earlier tool plus a suffix.
    pub fn suffix_share(&self) -> f64 {
        self.suffix_named.len() as f64 / self.added_tools.len().max(1) as f64
    }

    /// The most common added parameter name and its share of all added parameters.
    pub fn top_param(&self) -> Option<(&str, f64)> {
        let total: usize = self.added_params.values().sum();
        let (name, n) = self.added_params.iter().max_by_key(|(_, n)| **n)?;
        Some((name, *n as f64 / total.max(1) as f64))
    }

    /// One paragraph of the figures beside the real ones.
    pub fn summary(&self) -> String {
        let params: usize = self.added_params.values().sum();
        let (top, share) = self.top_param().unwrap_or(("-", 0.0));
        format!(
            "added tools named as an earlier tool plus a suffix: {} of {} ({:.0}%; real 4%)\n\
             added parameters: {params}, {} distinct names, the most common `{top}` {:.0}% (real 5%)\n\
             handler wrappers: {} in all, at most {} in one file, {} stacked on another\n\
             changed descriptions: {}, with {} formula phrases",
            self.suffix_named.len(),
            self.added_tools.len(),
            100.0 * self.suffix_share(),
            self.added_params.len(),
            100.0 * share,
            self.wrappers,
            self.most_wrappers_in_file,
            self.stacked,
            self.changed_descriptions,
            self.formulas.len(),
        )
    }
}

/// Whether `new` is the name of one of `before` plus a word or two that mark a copy (`x_v1`,
/// `xCompat`, `x-batch`, `x2`).
pub fn suffix_named(new: &str, before: &[&str]) -> bool {
    let new_words = words::words(new);
    before.iter().any(|old| {
        let old_words = words::words(old);
        if old_words.is_empty() || new_words.len() <= old_words.len() {
            return numbered(new, old);
        }
        new_words[..old_words.len()] == old_words[..]
            && new_words[old_words.len()..]
                .iter()
                .all(|w| SUFFIX_WORDS.contains(&w.as_str()) || w.parse::<u32>().is_ok())
    })
}

/// `old` with digits after it: `search2`.
fn numbered(new: &str, old: &str) -> bool {
    new.strip_prefix(old)
        .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
}

/// The formula phrases in `now` that `then` did not have.
pub fn new_formulas(now: &str, then: &str) -> Vec<&'static str> {
    let (now, then) = (now.to_lowercase(), then.to_lowercase());
    FORMULAS
        .iter()
        .filter(|f| now.matches(*f).count() > then.matches(*f).count())
        .copied()
        .collect()
}

/// The wrappers the rules write around a handler in `text`, and how many of them wrap another
/// wrapper directly.
pub fn wrappers(text: &str) -> (usize, usize) {
    const OPEN: &str = "((handler) => async function (...callArgs) {";
    const BODY: &str = "= await (async () =>";
    const PY: &str = "def _mcpevol_wrap_";
    let count = text.matches(OPEN).count() + text.matches(BODY).count() + text.matches(PY).count();
    // A wrapper whose wrapped function is itself a wrapper: `})(` then the next wrapper.
    let stacked = text
        .match_indices("})(")
        .filter(|(i, s)| text[i + s.len()..].trim_start().starts_with(OPEN))
        .count()
        + text
            .match_indices(BODY)
            .filter(|(i, s)| {
                let rest = text[i + s.len()..].trim_start();
                rest.starts_with('{') && rest[1..].trim_start().starts_with("const input")
            })
            .count()
        // Python: two wrapping decorators on one function.
        + text
            .match_indices("@_mcpevol_wrap_")
            .filter(|(i, _)| {
                let line_end = text[*i..].find('\n').map_or(text.len(), |n| i + n);
                text[line_end..].trim_start().starts_with("@_mcpevol_wrap_")
            })
            .count();
    (count, stacked)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_copy_named_with_a_suffix_counts_and_a_new_capability_does_not() {
        let before = ["list_notes", "get_note", "searchDocs"];
        assert!(suffix_named("list_notes_v1", &before));
        assert!(suffix_named("get_note_compat", &before));
        assert!(suffix_named("searchDocsBatch", &before));
        assert!(suffix_named("get_note2", &before));
        assert!(!suffix_named("get_notes", &before));
        assert!(!suffix_named("search_notes", &before));
        assert!(!suffix_named("list_notes_by_tag", &before));
        assert!(!suffix_named(
            "get_note",
            &before[1..2].iter().map(|_| "x").collect::<Vec<_>>()
        ));
    }

    #[test]
    fn a_formula_counts_only_where_the_description_gained_it() {
        assert_eq!(
            new_formulas("Get it. For a related task, see `x`: y.", "Get it."),
            vec!["for a related task, see"]
        );
        assert!(new_formulas("Get it. Optional: `a`.", "Get it. Optional: `a`.").is_empty());
        assert!(
            new_formulas("Get the forecast for a city, in metric units.", "Get it.").is_empty()
        );
    }

    #[test]
    fn stacked_wrappers_are_told_from_wrappers_side_by_side() {
        let one = "((handler) => async function (...callArgs) {\nreturn 1;\n})(\nasync (a) => a)";
        assert_eq!(wrappers(one), (1, 0));
        let two = format!("((handler) => async function (...callArgs) {{\nreturn 1;\n}})(\n{one})");
        assert_eq!(wrappers(&two), (2, 1));
        assert_eq!(wrappers(&format!("{one}\n{one}")), (2, 0));
    }

    #[test]
    fn wrappers_are_counted_in_the_servers_files_not_in_the_round_records_quoting_them() {
        let dir = tempfile::tempdir().unwrap();
        let one = "((handler) => async function (...callArgs) {\nreturn 1;\n})(\nasync (a) => a)";
        std::fs::write(dir.path().join("index.js"), one).unwrap();
        std::fs::create_dir(dir.path().join(".mcpevol")).unwrap();
        std::fs::write(
            dir.path().join(".mcpevol/round.json"),
            format!("{one}{one}"),
        )
        .unwrap();
        let mut r = Realism::default();
        r.add_files(dir.path());
        assert_eq!((r.wrappers, r.most_wrappers_in_file), (1, 1));
    }
}
