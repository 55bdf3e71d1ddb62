//! What varies in a tool's answers, learned from the server, never guessed from shapes: the
//! previous version's answers to the same call, sampled more than once, are cut into tokens and
//! aligned; the tokens that differed between samples are holes, and everything else must come
//! back exactly. A hole takes only values like those seen in it (their kinds of character,
//! about their length), so that a count that varied cannot hide an error message in its place.
//! No wall clock enters: a timestamp that read the same in both samples is compared as it is,
//! and where it later differs, more samples of the previous version ([`Volatile::widen`])
//! learn it.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use similar::{Algorithm, DiffOp};

/// What a hole reads as in a normalised answer.
pub const HOLE: &str = "<~>";

/// How long the alignment of two answers may take before it settles for a coarser one. Myers
/// costs the answers' length times how much they differ: answers alike in all but a few values
/// align in microseconds, whatever their length; only answers that differ nearly everywhere
/// (a long listing of readings) run into the deadline, and for those a coarse alignment, one
/// wide hole, is what a finer one would mostly find too. A round compares dozens of answers, so
/// this is kept short.
const DIFF_DEADLINE: std::time::Duration = std::time::Duration::from_millis(250);

/// The kinds of character a hole's values held.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Alphabet(u8);

impl Alphabet {
    const DIGIT: u8 = 1;
    const LOWER: u8 = 2;
    const UPPER: u8 = 4;
    const SPACE: u8 = 8;
    const PUNCT: u8 = 16;
    const OTHER: u8 = 32;

    fn kind(c: char) -> u8 {
        match c {
            '0'..='9' => Self::DIGIT,
            c if c.is_lowercase() => Self::LOWER,
            c if c.is_uppercase() => Self::UPPER,
            c if c.is_whitespace() => Self::SPACE,
            c if c.is_ascii_punctuation() => Self::PUNCT,
            _ => Self::OTHER,
        }
    }

    fn of(text: &str) -> Alphabet {
        Alphabet(text.chars().fold(0, |k, c| k | Self::kind(c)))
    }

    /// Letters of either case count alike (a hex id may be printed in either).
    fn widened(self) -> u8 {
        let mut k = self.0;
        if k & (Self::LOWER | Self::UPPER) != 0 {
            k |= Self::LOWER | Self::UPPER;
        }
        k
    }

    fn allows(self, other: Alphabet) -> bool {
        other.0 & !self.widened() == 0
    }
}

/// What a hole needs to know of a candidate value, read once: a value is tried against every
/// hole of the run it replaces, and reading it per hole made long answers quadratic.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    alphabet: Alphabet,
    chars: usize,
}

impl Candidate {
    fn of(value: &str) -> Candidate {
        Candidate {
            alphabet: Alphabet::of(value),
            chars: value.chars().count(),
        }
    }
}

/// One hole: the kinds of character and the longest value seen in it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hole {
    pub alphabet: Alphabet,
    pub longest: usize,
}

impl Hole {
    /// A hole whose values were `values`.
    fn of(values: &[&str]) -> Hole {
        Hole {
            alphabet: (values.iter()).fold(Alphabet::default(), |a, v| {
                Alphabet(a.0 | Alphabet::of(v).0)
            }),
            longest: values.iter().map(|v| v.chars().count()).max().unwrap_or(0),
        }
    }

    fn merge(self, other: Hole) -> Hole {
        Hole {
            alphabet: Alphabet(self.alphabet.0 | other.alphabet.0),
            longest: self.longest.max(other.longest),
        }
    }

    /// Whether `value` could be one of this hole's values: the same kinds of character, and
    /// not far longer than the longest seen (an id that grows a digit, a date that gains one).
    fn takes(&self, value: Candidate) -> bool {
        self.alphabet.allows(value.alphabet) && value.chars <= self.longest * 2 + 8
    }
}

/// Which parts of an answer vary: the reference answer's tokens, the hole each belongs to (if
/// any), and the holes of no width between them (a value that was absent in one sample).
/// Empty (the default) when nothing varied: then an answer is compared exactly.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Volatile {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    tokens: Vec<String>,
    /// Per token: its hole, if it is one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    holes: Vec<Option<Hole>>,
    /// Holes before token `i` (`i == tokens.len()`: at the end).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    gaps: BTreeMap<usize, Hole>,
}

/// `text` cut into tokens: runs of letters, digits and `_`, runs of white space, and every other
/// character alone.
pub fn tokens(text: &str) -> Vec<&str> {
    #[derive(PartialEq, Clone, Copy)]
    enum Class {
        Word,
        Space,
        Other,
    }
    let class = |c: char| {
        if c.is_alphanumeric() || c == '_' {
            Class::Word
        } else if c.is_whitespace() {
            Class::Space
        } else {
            Class::Other
        }
    };
    let mut out = Vec::new();
    let mut start = 0;
    let mut last: Option<Class> = None;
    for (i, c) in text.char_indices() {
        let k = class(c);
        if let Some(l) = last
            && (l != k || k == Class::Other)
        {
            out.push(&text[start..i]);
            start = i;
        }
        last = Some(k);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

fn diff<'a>(old: &[&'a str], new: &[&'a str]) -> Vec<DiffOp> {
    let deadline = std::time::Instant::now() + DIFF_DEADLINE;
    similar::capture_diff_slices_deadline(Algorithm::Myers, old, new, Some(deadline))
}

impl Volatile {
    /// What varies between `a` and `b`, two answers to the same call; `a` is the reference.
    pub fn learn(a: &str, b: &str) -> Volatile {
        let a = tidy(a);
        let tokens: Vec<String> = tokens(&a).into_iter().map(str::to_string).collect();
        let holes = vec![None; tokens.len()];
        Volatile {
            tokens,
            holes,
            gaps: BTreeMap::new(),
        }
        .widen(b)
    }

    /// This, with the holes another sample of the same call shows too.
    pub fn widen(mut self, sample: &str) -> Volatile {
        let sample = tidy(sample);
        let theirs = tokens(&sample);
        let ours: Vec<&str> = self.tokens.iter().map(String::as_str).collect();
        for op in diff(&ours, &theirs) {
            let (old, new) = (op.old_range(), op.new_range());
            match op {
                DiffOp::Equal { .. } => {}
                DiffOp::Insert { old_index, .. } => {
                    let hole = Hole::of(&[&theirs[new].concat()]);
                    let gap = self.gaps.entry(old_index).or_default();
                    *gap = gap.merge(hole);
                }
                DiffOp::Delete { .. } | DiffOp::Replace { .. } => {
                    let hole = Hole::of(&[&ours[old.clone()].concat(), &theirs[new].concat()]);
                    for h in &mut self.holes[old] {
                        *h = Some(h.map_or(hole, |h| h.merge(hole)));
                    }
                }
            }
        }
        self.merge_runs();
        self
    }

    /// Each run of hole tokens is one value: its members share one hole, which takes values
    /// as long as the run's.
    fn merge_runs(&mut self) {
        let mut i = 0;
        while i < self.holes.len() {
            if self.holes[i].is_none() {
                i += 1;
                continue;
            }
            let start = i;
            let mut hole = Hole::default();
            let mut chars = 0;
            while let Some(Some(h)) = self.holes.get(i) {
                hole = hole.merge(*h);
                chars += self.tokens[i].chars().count();
                i += 1;
            }
            hole.longest = hole.longest.max(chars);
            for h in &mut self.holes[start..i] {
                *h = Some(hole);
            }
        }
    }

    /// Whether nothing varied.
    pub fn is_empty(&self) -> bool {
        self.gaps.is_empty() && self.holes.iter().all(Option::is_none)
    }

    /// The share of the reference's characters that lie in holes: near 1, the answer holds
    /// nothing a comparison could rely on.
    pub fn hole_share(&self) -> f64 {
        let total: usize = self.tokens.iter().map(|t| t.chars().count()).sum();
        if total == 0 {
            return 0.0;
        }
        let holed: usize = (self.tokens.iter().zip(&self.holes))
            .filter(|(_, h)| h.is_some())
            .map(|(t, _)| t.chars().count())
            .sum();
        holed as f64 / total as f64
    }

    /// `text` with what this call varies in replaced by [`HOLE`]: equal to the reference's own
    /// rendering exactly when `text` differs from it only in values its holes take.
    pub fn normalize(&self, text: &str) -> String {
        let text = tidy(text);
        if self.is_empty() {
            return text;
        }
        let theirs = tokens(&text);
        let ours: Vec<&str> = self.tokens.iter().map(String::as_str).collect();
        let mut out = Rendered::default();
        for op in diff(&ours, &theirs) {
            match op {
                DiffOp::Equal {
                    old_index,
                    new_index,
                    len,
                } => {
                    for k in 0..len {
                        self.gap(old_index + k, &mut out);
                        match self.holes[old_index + k] {
                            Some(_) => out.hole(),
                            None => out.literal(theirs[new_index + k]),
                        }
                    }
                }
                DiffOp::Delete {
                    old_index, old_len, ..
                } => {
                    for k in 0..old_len {
                        self.gap(old_index + k, &mut out);
                        match self.holes[old_index + k] {
                            // A hole may come back empty.
                            Some(_) => out.hole(),
                            // A literal that is gone: the rendering lacks it.
                            None => out.missing(),
                        }
                    }
                }
                DiffOp::Insert {
                    old_index,
                    new_index,
                    new_len,
                } => {
                    let value: String = theirs[new_index..new_index + new_len].concat();
                    let candidate = Candidate::of(&value);
                    let beside = [old_index.checked_sub(1), Some(old_index)]
                        .into_iter()
                        .flatten()
                        .filter_map(|i| self.holes.get(i).copied().flatten())
                        .chain(self.gaps.get(&old_index).copied())
                        .find(|h| h.takes(candidate));
                    match beside {
                        Some(_) => out.hole(),
                        None => out.literal(&value),
                    }
                }
                DiffOp::Replace {
                    old_index,
                    old_len,
                    new_index,
                    new_len,
                } => {
                    let value: String = theirs[new_index..new_index + new_len].concat();
                    let candidate = Candidate::of(&value);
                    let all_holes = (old_index..old_index + old_len)
                        .all(|i| self.holes[i].is_some_and(|h| h.takes(candidate)));
                    if all_holes {
                        for k in 0..old_len {
                            self.gap(old_index + k, &mut out);
                        }
                        out.hole();
                    } else {
                        out.literal(&value);
                        out.missing();
                    }
                }
            }
        }
        self.gap(self.tokens.len(), &mut out);
        out.text
    }

    /// The reference as this renders it (what a later answer must normalise to).
    pub fn reference(&self) -> String {
        self.normalize(&self.tokens.concat())
    }

    /// A hole of no width before token `at` reads as a hole wherever it stands.
    fn gap(&self, at: usize, out: &mut Rendered) {
        if self.gaps.contains_key(&at) {
            out.hole();
        }
    }
}

/// A normalised answer being written: holes collapse into one placeholder.
#[derive(Default)]
struct Rendered {
    text: String,
    last_hole: bool,
}

impl Rendered {
    fn hole(&mut self) {
        if !self.last_hole {
            self.text.push_str(HOLE);
            self.last_hole = true;
        }
    }

    fn literal(&mut self, s: &str) {
        if !s.is_empty() {
            self.text.push_str(s);
            self.last_hole = false;
        }
    }

    /// A literal of the reference that the answer lacks: marked, so the two cannot compare
    /// equal by chance.
    fn missing(&mut self) {
        self.text.push('\u{2400}');
        self.last_hole = false;
    }
}

/// Line endings and trailing spaces made uniform.
pub fn tidy(text: &str) -> String {
    text.replace("\r\n", "\n")
        .lines()
        .map(str::trim_end)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
#[path = "volatile_tests.rs"]
mod tests;
