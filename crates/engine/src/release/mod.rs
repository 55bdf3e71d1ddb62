//! Release-shaped versions (`--shape release`): each version a release of several changes on
//! several tools, shaped like real npm releases of MCP servers. The target is data ([`mix`]:
//! the shipped `data/release-mix.toml` or a user's file), a release is drawn from it ([`plan`]),
//! several changes of one version answer each for their own schema changes ([`owners`]), and a
//! run's versions are counted the way the real releases were ([`events`]).
//!
//! The proposer that builds a release with the rules is `evolve::ReleaseProposer`.

pub mod events;
pub mod mix;
pub mod owners;
pub mod plan;
mod tally;

use serde::{Deserialize, Serialize};

pub use events::{RunMix, VersionEvents, classify};
pub use mix::{Label, Mix, MixError, Shares};

/// What a version is: one operator on one tool (the paper's rounds), or a release of several
/// changes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Shape {
    /// One operator applied to its tools per version, as in the MCPEvol-Bench paper.
    #[default]
    Round,
    /// Several changes on several tools per version, drawn to match real npm releases.
    Release,
}

impl Shape {
    pub fn as_str(self) -> &'static str {
        match self {
            Shape::Round => "round",
            Shape::Release => "release",
        }
    }
}

impl std::fmt::Display for Shape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `round.json` keeps of a release: the target it was drawn for and what was planned.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReleaseRecord {
    /// Where the target mix came from (`data/release-mix.toml` or the user's file).
    pub mix: String,
    /// The target's share of events per pattern (`other` for changes no pattern names).
    pub target: std::collections::BTreeMap<String, f64>,
    /// Tools the release was drawn to touch, and how many of them to change in two ways.
    pub planned_tools: usize,
    pub planned_composite: usize,
    /// Changes drafted for the release; the ones that failed their checks were dropped, each
    /// recorded in `rejected`.
    pub drafted: usize,
}

impl ReleaseRecord {
    /// The recorded target as a mix (the shipped shape figures beside it), for measuring.
    pub fn target_mix(&self) -> Mix {
        let patterns: Shares = self
            .target
            .iter()
            .filter_map(|(k, v)| Label::parse(k).map(|l| (l, *v)))
            .collect();
        Mix {
            source: self.mix.clone(),
            patterns,
            ..Mix::shipped()
        }
    }
}
