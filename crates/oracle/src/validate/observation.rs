//! One call's answer at the previous version, as the oracle keeps it: its parts as they came
//! and as learned (what varied between its samples replaced), and how a later answer is read
//! the same way to be compared with it.

use serde_json::{Map, Value};

use super::normalize::normalize;
use super::volatile::Volatile;
use crate::server::session::{CallStatus, Outcome};

/// One call at the previous version.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Observation {
    pub arguments: Map<String, Value>,
    pub status: CallStatus,
    /// Normalised text parts of the result (or the error message as one part).
    pub parts: Vec<String>,
    /// The same parts as the first session answered them, for claims that transform them.
    pub raw: Vec<String>,
    /// Its non-text content as the first session answered it ([`Outcome::other`]).
    pub other: Vec<String>,
    /// The whole answer of the second session, as it came (what [`Observation::volatile`]
    /// learned from beside the first).
    pub second: String,
    /// The values that varied between the samples' answers: a later answer is compared with
    /// `parts` after replacing these, and nothing else.
    pub volatile: Volatile,
    /// The samples answered with the same status, and what varied is a small part of the
    /// answer, so a later version's answer can be compared with it.
    pub deterministic: bool,
    /// It answered as the server answers a tool it does not have: an answer the same at a
    /// later version shows nothing about the tool.
    pub like_unknown: bool,
}

impl Observation {
    pub fn text(&self) -> String {
        self.parts.join("\n")
    }

    /// Whether the call cannot answer on this machine (it timed out or could not reach the
    /// network, see `offline.rs`): it is not made again while this answer is carried forward.
    pub fn unreachable(&self) -> bool {
        super::offline::unreachable(self.status, &self.failure())
    }

    /// Why a check of this call was not made (see [`Observation::unreachable`]).
    pub fn not_called(&self) -> String {
        super::offline::not_called(self.status, &self.failure())
    }

    /// The answer as it came where it was kept, else as learned.
    fn failure(&self) -> String {
        let raw = if self.raw.is_empty() {
            &self.parts
        } else {
            &self.raw
        };
        raw.join("\n")
    }

    /// The answer as the first session got it.
    pub fn as_outcome(&self) -> Outcome {
        Outcome {
            status: self.status,
            text: self.text(),
            parts: self.raw.clone(),
            other: self.other.clone(),
        }
    }

    /// Whether `again`, a later sample of the same call on the same version, gave this
    /// answer as learned.
    pub fn confirmed_by(&self, again: &Observation) -> bool {
        if again.status != self.status {
            return false;
        }
        if again.raw.is_empty() && again.other.is_empty() && again.second.is_empty() {
            // A sample already read as learned (the drift audit's).
            return again.parts == self.parts;
        }
        let learned = |text: &str| split_parts(&self.volatile.normalize(text));
        learned(&whole(&again.as_outcome())) == self.parts
            && (again.second.is_empty() || learned(&again.second) == self.parts)
    }

    /// This observation with what `again` shows to vary learned too: the same answer with
    /// more holes, still compared exactly elsewhere; varying in status or mostly holes, it is
    /// no longer deterministic.
    pub(super) fn widened_by(&mut self, again: &Observation) {
        if again.status != self.status {
            self.deterministic = false;
            return;
        }
        self.volatile = std::mem::take(&mut self.volatile)
            .widen(&whole(&again.as_outcome()))
            .widen(&again.second);
        self.parts = parts_as_learned(&self.as_outcome(), &self.volatile);
        self.deterministic = self.volatile.hole_share() <= MAX_HOLE_SHARE;
    }
}

/// The most of an answer that may vary for it to be compared: beyond, what stays the same
/// between samples is too little to show anything.
pub(super) const MAX_HOLE_SHARE: f64 = 0.5;

impl Observation {
    /// An answer as tests write it: one text part, no arguments (the root crate's tests write
    /// theirs from the public fields).
    #[cfg(test)]
    pub fn answered(status: CallStatus, text: &str, deterministic: bool) -> Observation {
        Observation {
            arguments: Map::new(),
            status,
            parts: vec![text.to_string()],
            raw: vec![text.to_string()],
            other: Vec::new(),
            second: text.to_string(),
            volatile: Volatile::default(),
            deterministic,
            like_unknown: false,
        }
    }
}

/// The normalised parts of an outcome (its message when it has no content), then its
/// non-text content: hashes as they are (a placeholder would hide a changed image), JSON
/// normalised as text is.
pub fn normalized_parts(outcome: &Outcome) -> Vec<String> {
    let mut out = if outcome.parts.is_empty() && outcome.other.is_empty() {
        vec![normalize(&outcome.text)]
    } else {
        outcome.parts.iter().map(|p| normalize(p)).collect()
    };
    out.extend(outcome.other.iter().map(|o| {
        if o.starts_with(crate::server::content::STRUCTURED)
            || (o.starts_with("[resource ") && !o.ends_with(']'))
        {
            normalize(o)
        } else {
            o.clone()
        }
    }));
    out
}

/// What separates the parts of an answer in [`whole`]: no volatile shape spans a line break.
const PART_BREAK: &str = "\n\u{1e}\n";

/// An answer's parts as one text (its message when it has no content), for learning and
/// applying a [`Volatile`] across all of them.
pub(super) fn whole(outcome: &Outcome) -> String {
    if outcome.parts.is_empty() && outcome.other.is_empty() {
        return outcome.text.clone();
    }
    let parts: Vec<&str> = outcome
        .parts
        .iter()
        .chain(&outcome.other)
        .map(String::as_str)
        .collect();
    parts.join(PART_BREAK)
}

/// The parts of `outcome` with what `volatile` says varies replaced: how a later answer is
/// compared with an [`Observation`]'s `parts`.
pub fn parts_as_learned(outcome: &Outcome, volatile: &Volatile) -> Vec<String> {
    split_parts(&volatile.normalize(&whole(outcome)))
}

/// A whole answer (see [`whole`]), normalised, back into its parts.
fn split_parts(text: &str) -> Vec<String> {
    text.split(PART_BREAK.trim_matches('\n'))
        .map(|p| p.trim_matches('\n').to_string())
        .collect()
}
