//! What a run has made so far, as the planner counts it: its events per pattern, its changed
//! and composite tools, and how its releases fell short of their plans.

use std::collections::BTreeMap;

use super::mix::Label;

/// The events a run has so far (its earlier versions' and the changes of the release drafted
/// already), and how many more the release being drafted is to bring after the one being
/// chosen. Without `ahead`, the tool slots, drafted first, saw a run of 0-2 events: one
/// addition met P2's whole share and the next slots went to P5 and P17 (at two and three times
/// their targets on 8 servers).
#[derive(Debug, Clone, Default)]
pub struct Tally {
    pub counts: BTreeMap<Label, usize>,
    pub ahead: usize,
    /// The changed tools of the run's earlier versions, and how many of them changed in more
    /// than one way.
    pub changed: usize,
    pub composite: usize,
    /// The earlier versions that were releases planned to touch more than one tool, and the
    /// tools they planned but their schema changes did not touch, summed release by release.
    pub releases: usize,
    pub short: usize,
    /// How many of the earlier releases touched each number of tools.
    pub sizes: BTreeMap<usize, usize>,
}

impl Tally {
    /// Events so far only: nothing planned ahead.
    pub fn of(counts: BTreeMap<Label, usize>) -> Tally {
        Tally {
            counts,
            ..Tally::default()
        }
    }

    pub fn add(&mut self, l: Label) {
        *self.counts.entry(l).or_default() += 1;
    }

    /// Takes back an event counted for a change that was dropped.
    pub fn take(&mut self, l: Label) {
        if let Some(n) = self.counts.get_mut(&l) {
            *n = n.saturating_sub(1);
        }
    }

    pub(super) fn have(&self, l: Label) -> f64 {
        *self.counts.get(&l).unwrap_or(&0) as f64
    }

    /// The events the run will have once this release is drafted, the one being chosen
    /// included.
    pub(super) fn horizon(&self) -> f64 {
        (self.counts.values().sum::<usize>() + 1 + self.ahead) as f64
    }
}
