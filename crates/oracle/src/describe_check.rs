//! The description check: what a round did to the descriptions clients read, judged on the
//! live tool lists before and after, whatever backend made the change.
//!
//! A description an operator keeps (O1 and O4 add aliases and pointers) must still hold its
//! original text; a rewritten one must keep the facts the original stated (the parameters it
//! names, its numbers and units, its defaults, its quoted code) unless the change removed
//! them, most of its words, and its lines. No description may become empty, shorter than a
//! sentence, or a copy of another tool's. New text may not bring repeated words, broken
//! punctuation, unbalanced quotes, backticks or brackets, or the formula phrases that say
//! nothing (a name restated in words, a bracketed title, "Takes no parameters."). Defects the
//! original already had are not held against a change.

mod text;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use text::{
    BROKEN, balanced, count_broken, facts, formulas, holds, kept_share, lines, repeated_words,
    without_code, words_in,
};

use mcpevol_core::listed::ListedTool;
use mcpevol_core::operators::Builtin;
use mcpevol_core::schema::{ChangeKind, SchemaChange};

/// One description the check refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub tool: String,
    /// The parameter whose description it is; None for the tool's own.
    pub param: Option<String>,
    pub defect: Defect,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Defect {
    /// The operator keeps the description, yet its original text is gone.
    Replaced,
    /// A fact the original stated is missing.
    LostFact(String),
    /// Most of what the original said is gone.
    Lost,
    Emptied,
    TooShort,
    /// The same text as another tool's description.
    Duplicate(String),
    RepeatedWord(String),
    BrokenPunctuation(String),
    Unbalanced(char),
    /// Fewer lines than the original: its paragraphs or lists were run together.
    Flattened {
        before: usize,
        after: usize,
    },
    /// Words that say nothing: the name restated, a bracketed title, "Takes no parameters."
    Formula(String),
}

impl std::fmt::Display for Violation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.param {
            Some(p) => write!(f, "the description of `{}`.`{p}` ", self.tool)?,
            None => write!(f, "the description of `{}` ", self.tool)?,
        }
        match &self.defect {
            Defect::Replaced => write!(
                f,
                "no longer holds its original text, which this operator keeps"
            ),
            Defect::LostFact(fact) => write!(f, "lost `{fact}`, which the original stated"),
            Defect::Lost => write!(f, "lost most of what the original said"),
            Defect::Emptied => write!(f, "is empty"),
            Defect::TooShort => write!(f, "is shorter than a sentence"),
            Defect::Duplicate(other) => write!(f, "is the same as that of `{other}`"),
            Defect::RepeatedWord(w) => write!(f, "repeats the word \"{w}\""),
            Defect::BrokenPunctuation(p) => write!(f, "has broken punctuation \"{p}\""),
            Defect::Unbalanced(c) => write!(f, "has an unbalanced {c}"),
            Defect::Flattened { before, after } => {
                write!(f, "was flattened from {before} lines to {after}")
            }
            Defect::Formula(words) => write!(f, "says nothing in \"{words}\""),
        }
    }
}

/// What the check refused, every violation in one line.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the description check refuses: {}", sentences(.0))]
pub struct Refused(pub Vec<Violation>);

fn sentences(violations: &[Violation]) -> String {
    let all: Vec<String> = violations.iter().map(Violation::to_string).collect();
    all.join("; ")
}

/// The operators whose changes add to a description and never replace it.
fn keeps_text(op: Option<Builtin>) -> bool {
    matches!(op, Some(Builtin::ToolAddition | Builtin::ToolIntegration))
}

/// Checks the descriptions of `current` against `previous` (live tool lists) for one round's
/// schema changes and operator (None for a user's operator).
pub fn check(
    previous: &[ListedTool],
    current: &[ListedTool],
    changes: &[SchemaChange],
    operator: Option<Builtin>,
) -> Result<(), Refused> {
    let renamed: BTreeMap<&str, &str> = changes
        .iter()
        .filter(|c| c.kind() == ChangeKind::ToolRenamed)
        .filter_map(|c| Some((c.renamed_to()?, c.tool.as_str())))
        .collect();
    let removed: BTreeSet<(&str, &str)> = changes
        .iter()
        .filter(|c| c.kind() == ChangeKind::ParamRemoved)
        .filter_map(|c| Some((c.tool.as_str(), c.param()?)))
        .collect();
    let mut out = Vec::new();
    for tool in current {
        let Some(name) = tool.name() else {
            continue;
        };
        let was = renamed.get(name).copied().unwrap_or(name);
        let old_tool = previous.iter().find(|t| t.is_named(was));
        let gone: Vec<&str> = removed
            .iter()
            .filter(|(t, _)| *t == was || *t == name)
            .map(|(_, p)| *p)
            .collect();
        let params_before = old_tool.map(param_names).unwrap_or_default();
        let judge = Judge {
            tool: name,
            gone: &gone,
            params: &params_before,
            keeps: keeps_text(operator),
        };
        let new = tool.description();
        // A new tool made from an old one (an alias) carries that one's text: its defects
        // are not this change's.
        let source = match old_tool {
            Some(_) => None,
            None => source_of(new, previous),
        };
        let mut defects = match old_tool {
            Some(old) => {
                let old = old.description();
                if old == new {
                    Vec::new()
                } else {
                    judge.rewrite(old, new, 3)
                }
            }
            None => new.map_or_else(Vec::new, |n| {
                judge.fresh(n, 3, source.and_then(ListedTool::description))
            }),
        };
        let changed = old_tool.is_none_or(|old| old.description() != new);
        if let Some(new) = new.filter(|_| changed)
            && let Some(other) = duplicate_of(name, new, current, previous, was)
        {
            defects.push(Defect::Duplicate(other));
        }
        out.extend(defects.into_iter().map(|defect| Violation {
            tool: name.to_string(),
            param: None,
            defect,
        }));
        let keeps = judge.keeps || keeps_params(operator);
        let params = Judge { keeps, ..judge };
        out.extend(params.parameters(tool, old_tool.or(source), old_tool.is_none(), previous));
    }
    if out.is_empty() {
        Ok(())
    } else {
        Err(Refused(out))
    }
}

fn properties(tool: &ListedTool) -> serde_json::Map<String, Value> {
    tool.properties().cloned().unwrap_or_default()
}

/// The previous tool whose description a new one holds (the longest such), if any.
fn source_of<'a>(new: Option<&str>, previous: &'a [ListedTool]) -> Option<&'a ListedTool> {
    let new = normal(new?);
    previous
        .iter()
        .filter_map(|t| Some((t, normal(t.description()?))))
        .filter(|(_, d)| !d.is_empty() && new.contains(d.as_str()))
        .max_by_key(|(_, d)| d.len())
        .map(|(t, _)| t)
}

impl Judge<'_> {
    /// The violations of one tool's parameter descriptions against `before` (the tool it was,
    /// or, for a new tool, the one it was made from: `copied`).
    fn parameters(
        &self,
        tool: &ListedTool,
        before: Option<&ListedTool>,
        copied: bool,
        previous: &[ListedTool],
    ) -> Vec<Violation> {
        let old_props = before.map(properties).unwrap_or_default();
        let mut out = Vec::new();
        for (param, schema) in properties(tool) {
            let new = schema["description"].as_str();
            let old = old_props.get(&param).map(|p| p["description"].as_str());
            let defects = match old {
                Some(old) if copied => new.map_or_else(Vec::new, |n| self.fresh(n, 2, old)),
                Some(old) if old == new => continue,
                Some(old) => self.rewrite(old, new, 2),
                None => new.map_or_else(Vec::new, |n| {
                    // The same text elsewhere before is a copy, not new writing.
                    let elsewhere = previous
                        .iter()
                        .flat_map(|t| properties(t).into_values())
                        .any(|p| p["description"].as_str() == Some(n));
                    self.fresh(n, 2, elsewhere.then_some(n))
                }),
            };
            out.extend(defects.into_iter().map(|defect| Violation {
                tool: self.tool.to_string(),
                param: Some(param.clone()),
                defect,
            }));
        }
        out
    }
}

/// Operators that change no parameter's meaning, so a parameter description they touch is
/// only added to (a bound explained, a rename's parameters).
fn keeps_params(op: Option<Builtin>) -> bool {
    matches!(
        op,
        Some(Builtin::ConstraintMutation | Builtin::ToolReplacement | Builtin::ToolAddition)
    )
}

fn param_names(tool: &ListedTool) -> Vec<String> {
    tool.properties()
        .map(|p| p.keys().cloned().collect())
        .unwrap_or_default()
}

/// The other tool whose description `new` repeats, if it did not before.
fn duplicate_of(
    name: &str,
    new: &str,
    current: &[ListedTool],
    previous: &[ListedTool],
    was: &str,
) -> Option<String> {
    let same = |t: &ListedTool| t.description().is_some_and(|d| normal(d) == normal(new));
    let before = previous
        .iter()
        .find(|t| t.is_named(was))
        .and_then(ListedTool::description);
    current
        .iter()
        .filter(|t| !t.is_named(name) && same(t))
        .filter_map(ListedTool::name)
        .find(|other| {
            // Two tools alike before stay alike: not this change's doing.
            !before.is_some_and(|b| {
                previous.iter().any(|p| {
                    p.is_named(other) && p.description().is_some_and(|d| normal(d) == normal(b))
                })
            })
        })
        .map(str::to_string)
}

fn normal(text: &str) -> String {
    text.split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .to_lowercase()
}

/// What one tool's descriptions are judged against.
#[derive(Clone, Copy)]
struct Judge<'a> {
    tool: &'a str,
    /// Parameters the change removed: naming them is no longer a fact to keep.
    gone: &'a [&'a str],
    /// The tool's parameters before the change.
    params: &'a [String],
    /// The operator adds to descriptions and never replaces them.
    keeps: bool,
}

impl Judge<'_> {
    /// Defects of a description new in this round; `source` is the text it was made from,
    /// when it copies one (an alias's), whose own defects are not held against it.
    fn fresh(&self, new: &str, min_words: usize, source: Option<&str>) -> Vec<Defect> {
        let mut out = Vec::new();
        if new.trim().is_empty() {
            out.push(Defect::Emptied);
            return out;
        }
        let source = source.unwrap_or("");
        if words_in(new) < min_words && (source.is_empty() || words_in(new) < words_in(source)) {
            out.push(Defect::TooShort);
        }
        out.extend(self.form(source, new));
        out
    }

    /// Defects of a description that changed from `old` to `new`.
    fn rewrite(&self, old: Option<&str>, new: Option<&str>, min_words: usize) -> Vec<Defect> {
        let old = old.unwrap_or("");
        let Some(new) = new.filter(|n| !n.trim().is_empty()) else {
            return if old.trim().is_empty() {
                Vec::new()
            } else {
                vec![Defect::Emptied]
            };
        };
        let mut out = Vec::new();
        if words_in(new) < min_words.min(words_in(old).max(2)) {
            out.push(Defect::TooShort);
        }
        if self.keeps && !old.trim().is_empty() && !normal(new).contains(&normal(old)) {
            out.push(Defect::Replaced);
        }
        for fact in facts(old, self.params) {
            let removed = self.gone.iter().any(|g| fact.trim_matches('`') == *g);
            if !removed && !holds(new, &fact) {
                out.push(Defect::LostFact(fact));
            }
        }
        if !out.contains(&Defect::Replaced) && kept_share(old, new) < 0.5 {
            out.push(Defect::Lost);
        }
        let (before, after) = (lines(old), lines(new));
        if before > 1 && after < before {
            out.push(Defect::Flattened { before, after });
        }
        out.extend(self.form(old, new));
        out
    }

    /// Defects of form that `new` has and `old` did not.
    fn form(&self, old: &str, new: &str) -> Vec<Defect> {
        let mut out = Vec::new();
        for w in repeated_words(new) {
            if !repeated_words(old).contains(&w) {
                out.push(Defect::RepeatedWord(w));
            }
        }
        let (old_code, new_code) = (without_code(old), without_code(new));
        for p in BROKEN {
            if count_broken(&new_code, p) > count_broken(&old_code, p) {
                out.push(Defect::BrokenPunctuation(p.to_string()));
            }
        }
        for c in ['`', '"', '(', '[', '{'] {
            if !balanced(new, c) && balanced(old, c) {
                out.push(Defect::Unbalanced(c));
            }
        }
        let old_formulas = formulas(old, self.tool, self.params);
        for f in formulas(new, self.tool, self.params) {
            if !old_formulas.contains(&f) {
                out.push(Defect::Formula(f));
            }
        }
        out
    }
}

#[cfg(test)]
#[path = "describe_check_tests.rs"]
mod tests;
