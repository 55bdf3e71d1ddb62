//! The target of release-shaped evolutions as data: the share of change events per pattern,
//! how many tools a release touches and how many of the changed ones change in more than one
//! way. The shipped file (`data/release-mix.toml`) holds the figures measured on real npm
//! releases; a user file of the same form replaces it (`--mix FILE`).

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Serialize, Serializer};

use mcpevol_core::schema::Pattern;

/// The shipped mix, compiled in so that a binary moved elsewhere still has it.
const SHIPPED: &str = include_str!("../../../../data/release-mix.toml");
/// Where the shipped mix is read from, as errors and records name it.
pub const SHIPPED_PATH: &str = "data/release-mix.toml";

/// What a change event is labelled: a pattern of Table 10, or a schema change none names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Label {
    Pattern(Pattern),
    Other,
}

impl Label {
    /// `P4` or `other`; None for anything else.
    pub fn parse(text: &str) -> Option<Label> {
        if text == "other" {
            return Some(Label::Other);
        }
        Pattern::parse(text).map(Label::Pattern)
    }

    pub(crate) const fn p(n: u8) -> Label {
        Label::Pattern(Pattern::known(n))
    }
}

impl fmt::Display for Label {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Label::Pattern(p) => p.fmt(f),
            Label::Other => f.write_str("other"),
        }
    }
}

impl Serialize for Label {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Shares of events per label, summing to 1 (labels with no events left out).
pub type Shares = BTreeMap<Label, f64>;

/// A target mix and release shape.
#[derive(Debug, Clone, PartialEq)]
pub struct Mix {
    /// Where it was read from: the shipped path or the user's file.
    pub source: String,
    /// The share of events per label.
    pub patterns: Shares,
    /// Weights of the number of tools a release touches (1, 2, ...), normalised.
    pub tools: BTreeMap<u32, f64>,
    /// The share of changed tools with more than one kind of change.
    pub composite: f64,
}

#[derive(Debug, thiserror::Error)]
pub enum MixError {
    #[error("cannot read the mix file {path}: {source}")]
    Read {
        path: String,
        source: std::io::Error,
    },
    #[error("the mix file {path} is not TOML: {message}")]
    Syntax { path: String, message: String },
    #[error("{path}:{line}: `{field}`: {why}")]
    Field {
        path: String,
        line: usize,
        field: String,
        why: String,
    },
}

impl Default for Mix {
    fn default() -> Mix {
        Mix::shipped()
    }
}

impl Mix {
    /// The figures of real npm releases, as shipped.
    pub fn shipped() -> Mix {
        Mix::parse(SHIPPED, SHIPPED_PATH, None).expect("the shipped mix file is valid")
    }

    /// A user's mix file; tables it leaves out keep the shipped values.
    pub fn load(path: &Path) -> Result<Mix, MixError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| MixError::Read {
            path: shown.clone(),
            source,
        })?;
        Mix::parse(&text, &shown, Some(Mix::shipped()))
    }

    /// Reads `text` (from `path`, for errors); `fallback` fills the tables it leaves out.
    pub fn parse(text: &str, path: &str, fallback: Option<Mix>) -> Result<Mix, MixError> {
        let table: toml::Table = text
            .parse()
            .map_err(|e: toml::de::Error| MixError::Syntax {
                path: path.to_string(),
                message: e.to_string().trim().replace('\n', " "),
            })?;
        let field = |section: &str, key: &str, why: String| MixError::Field {
            path: path.to_string(),
            line: line_of(text, section, key),
            field: if section.is_empty() {
                key.to_string()
            } else {
                format!("{section}.{key}")
            },
            why,
        };
        for key in table.keys() {
            if !["patterns", "tools", "composite"].contains(&key.as_str()) {
                return Err(field(
                    "",
                    key,
                    "unknown table; a mix file has [patterns], [tools] and [composite]".into(),
                ));
            }
        }
        let section = |name: &str| -> Result<Option<&toml::Table>, MixError> {
            match table.get(name) {
                None => Ok(None),
                Some(toml::Value::Table(t)) => Ok(Some(t)),
                Some(_) => Err(field("", name, "must be a table".into())),
            }
        };
        let patterns = match section("patterns")? {
            Some(t) => weights(t, "patterns", Label::parse, "P1 to P18 or `other`", &field)?,
            None => match &fallback {
                Some(f) => f.patterns.clone(),
                None => return Err(field("", "patterns", "the table is missing".into())),
            },
        };
        let tools = match section("tools")? {
            Some(t) => weights(
                t,
                "tools",
                |k| k.parse::<u32>().ok().filter(|n| (1..=50).contains(n)),
                "a number of tools from 1 to 50",
                &field,
            )?,
            None => fallback
                .as_ref()
                .map(|f| f.tools.clone())
                .ok_or_else(|| field("", "tools", "the table is missing".into()))?,
        };
        let composite = match section("composite")? {
            Some(t) => {
                if let Some(key) = t.keys().find(|k| *k != "share") {
                    return Err(field("composite", key, "unknown key; only `share`".into()));
                }
                let share = t
                    .get("share")
                    .ok_or_else(|| field("composite", "share", "missing".into()))?;
                number(share)
                    .filter(|s| (0.0..=1.0).contains(s))
                    .ok_or_else(|| {
                        field("composite", "share", "must be a number from 0 to 1".into())
                    })?
            }
            None => fallback
                .as_ref()
                .map(|f| f.composite)
                .ok_or_else(|| field("", "composite", "the table is missing".into()))?,
        };
        Ok(Mix {
            source: path.to_string(),
            patterns,
            tools,
            composite,
        })
    }

    /// The target share of `label` (0 when the mix leaves it out).
    pub fn share(&self, label: Label) -> f64 {
        self.patterns.get(&label).copied().unwrap_or(0.0)
    }
}

/// Half the sum over labels of the absolute difference of their shares.
pub fn tv_distance(a: &Shares, b: &Shares) -> f64 {
    let labels: std::collections::BTreeSet<&Label> = a.keys().chain(b.keys()).collect();
    labels
        .into_iter()
        .map(|l| (a.get(l).unwrap_or(&0.0) - b.get(l).unwrap_or(&0.0)).abs())
        .sum::<f64>()
        / 2.0
}

/// Counts as shares of their total (empty when there are none).
pub fn shares<K: Ord + Clone>(counts: &BTreeMap<K, usize>) -> BTreeMap<K, f64> {
    let total: usize = counts.values().sum();
    counts
        .iter()
        .filter(|(_, n)| **n > 0)
        .map(|(k, n)| (k.clone(), *n as f64 / total as f64))
        .collect()
}

fn number(v: &toml::Value) -> Option<f64> {
    match v {
        toml::Value::Integer(i) => Some(*i as f64),
        toml::Value::Float(f) if f.is_finite() => Some(*f),
        _ => None,
    }
}

/// A table of non-negative weights keyed by what `key` reads, normalised to sum 1.
fn weights<K: Ord>(
    table: &toml::Table,
    section: &str,
    key: impl Fn(&str) -> Option<K>,
    keys_are: &str,
    field: &dyn Fn(&str, &str, String) -> MixError,
) -> Result<BTreeMap<K, f64>, MixError> {
    let mut out = BTreeMap::new();
    for (k, v) in table {
        let parsed = key(k).ok_or_else(|| field(section, k, format!("keys are {keys_are}")))?;
        let w = number(v)
            .filter(|w| *w >= 0.0)
            .ok_or_else(|| field(section, k, "must be a number, 0 or more".into()))?;
        out.insert(parsed, w);
    }
    let total: f64 = out.values().sum();
    if total <= 0.0 {
        return Err(field(
            "",
            section,
            "needs at least one weight above 0".into(),
        ));
    }
    out.retain(|_, w| *w > 0.0);
    Ok(out.into_iter().map(|(k, w)| (k, w / total)).collect())
}

/// The line (from 1) where `key` is written in `[section]` (the section's own line for a
/// whole table, the first line when not found).
fn line_of(text: &str, section: &str, key: &str) -> usize {
    let mut current = String::new();
    let mut section_line = None;
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if let Some(name) = t.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            current = name.trim().to_string();
            if section.is_empty() && current == key {
                return i + 1;
            }
            if current == section {
                section_line = Some(i + 1);
            }
            continue;
        }
        let written = t.split('=').next().unwrap_or("").trim().trim_matches('"');
        if current == section && written == key && t.contains('=') {
            return i + 1;
        }
    }
    section_line.unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_mix_has_the_real_figures_normalised() {
        let mix = Mix::shipped();
        let total: f64 = mix.patterns.values().sum();
        assert!((total - 1.0).abs() < 1e-9);
        assert!(mix.share(Label::p(2)) > mix.share(Label::p(1)));
        assert!((mix.composite - 0.51).abs() < 1e-9);
        let more_than_one: f64 = mix
            .tools
            .iter()
            .filter(|(n, _)| **n > 1)
            .map(|(_, w)| w)
            .sum();
        assert!((more_than_one - 0.79).abs() < 0.01, "{more_than_one}");
    }

    #[test]
    fn a_wrong_key_is_refused_with_its_line_and_field() {
        let text = "[patterns]\nP1 = 1\nP19 = 2\n";
        let err = Mix::parse(text, "mine.toml", None).unwrap_err().to_string();
        assert!(err.starts_with("mine.toml:3: `patterns.P19`"), "{err}");
        let text = "[patterns]\nP1 = 1\n\n[composite]\nshare = 1.5\n";
        let err = Mix::parse(text, "m", Some(Mix::shipped()))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("m:5: `composite.share`"), "{err}");
        let err = Mix::parse("[patterns]\nP1 = -1\n", "m", Some(Mix::shipped()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("m:2: `patterns.P1`"), "{err}");
    }

    #[test]
    fn the_distance_is_half_the_absolute_differences() {
        let a: Shares = [(Label::p(1), 0.5), (Label::p(2), 0.5)].into();
        let b: Shares = [(Label::p(1), 1.0)].into();
        assert!((tv_distance(&a, &b) - 0.5).abs() < 1e-12);
        assert_eq!(tv_distance(&a, &a), 0.0);
    }
}
