//! The evolution patterns P1-P18 of the MCPEvol-Bench paper (Table 10) as a type: parsed once
//! where they come in (an operator file, a record), written `P4` everywhere.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One of the paper's 18 evolution patterns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Pattern(u8);

impl Pattern {
    /// The highest pattern number of Table 10.
    pub const LAST: u8 = 18;

    /// Pattern `n` (1 to 18).
    pub const fn new(n: u8) -> Option<Pattern> {
        if n >= 1 && n <= Self::LAST {
            Some(Pattern(n))
        } else {
            None
        }
    }

    /// Pattern `n`, for numbers written in the code (a wrong one is a bug, caught by tests).
    pub const fn known(n: u8) -> Pattern {
        match Pattern::new(n) {
            Some(p) => p,
            None => panic!("Table 10 has patterns P1 to P18"),
        }
    }

    pub fn number(self) -> u8 {
        self.0
    }

    /// `P4`, as a static string.
    pub fn as_str(self) -> &'static str {
        const NAMES: [&str; Pattern::LAST as usize] = [
            "P1", "P2", "P3", "P4", "P5", "P6", "P7", "P8", "P9", "P10", "P11", "P12", "P13",
            "P14", "P15", "P16", "P17", "P18",
        ];
        NAMES[usize::from(self.0) - 1]
    }

    /// What the pattern is, in the words of Table 10 (for a model planning a release).
    pub fn meaning(self) -> &'static str {
        const MEANINGS: [&str; Pattern::LAST as usize] = [
            "a tool's description updated",
            "a new tool",
            "a parameter's description updated",
            "a new optional parameter",
            "a tool replaced by a new one",
            "a tool's description updated with a new optional parameter",
            "a tool's description and a parameter's description updated",
            "a parameter's constraint made stricter or looser",
            "a parameter's constraint changed with its description",
            "a new required parameter",
            "an optional parameter removed",
            "a new optional parameter with other parameters' descriptions updated",
            "a parameter made required, or optional",
            "a required parameter removed",
            "an optional parameter removed with the remaining parameters' descriptions updated",
            "a tool's description updated with a new optional parameter",
            "a tool removed",
            "a new tool with another tool's description updated",
        ];
        MEANINGS[usize::from(self.0) - 1]
    }

    /// `P4`, `p04`; None for anything else or a number outside 1-18.
    pub fn parse(text: &str) -> Option<Pattern> {
        let digits = text.strip_prefix(['P', 'p'])?;
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Pattern::new(digits.parse().ok()?)
    }

    /// All 18, in order.
    pub fn all() -> impl Iterator<Item = Pattern> {
        (1..=Self::LAST).map(Pattern)
    }
}

/// Patterns written out with `sep` between them: `P4, P6`; `none` when there are none (a
/// changed default alone is no pattern of Table 10).
pub fn joined(patterns: &[Pattern], sep: &str) -> String {
    if patterns.is_empty() {
        return "none".into();
    }
    patterns
        .iter()
        .map(Pattern::to_string)
        .collect::<Vec<_>>()
        .join(sep)
}

impl fmt::Display for Pattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Pattern {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Pattern {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Pattern, D::Error> {
        let text = String::deserialize(d)?;
        Pattern::parse(&text).ok_or_else(|| {
            serde::de::Error::custom(format!("`{text}` is not a pattern of Table 10 (P1 to P18)"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn patterns_parse_from_their_written_forms_and_nothing_else() {
        assert_eq!(Pattern::parse("P4"), Pattern::new(4));
        assert_eq!(Pattern::parse("p04"), Pattern::new(4));
        assert_eq!(Pattern::parse("P0"), None);
        assert_eq!(Pattern::parse("P19"), None);
        assert_eq!(Pattern::parse("P"), None);
        assert_eq!(Pattern::parse("Q4"), None);
        assert_eq!(Pattern::all().count(), 18);
        for p in Pattern::all() {
            assert_eq!(Pattern::parse(p.as_str()), Some(p));
        }
        let json = serde_json::to_string(&Pattern::known(18)).unwrap();
        assert_eq!(json, "\"P18\"");
        assert!(serde_json::from_str::<Pattern>("\"P42\"").is_err());
    }
}
