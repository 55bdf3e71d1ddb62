//! Mutators: turn the anchored tools and an operator into a proposal of source edits.
//!
//! Every backend produces the same [`Proposal`]: search/replace hunks per file, applied by
//! [`crate::hunks`]. Everything after the proposal (check, validate, commit) is shared.

pub mod around;
mod batch_form;
pub mod behaviours;
pub mod bound;
mod capitals;
mod defaults;
pub mod dialect;
pub mod docstring;
mod json_required;
mod loosen;
pub mod param_names;
pub mod prose;
pub mod python;
mod registration_call;
pub mod reply;
pub mod retext;
pub mod rules;
pub mod snippets;
pub mod splice;
mod title;
pub mod unroute;
pub use mcpevol_core::words;
pub mod wrap;

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::hunks::Hunk;
use mcpevol_core::inventory::Inventory;
use mcpevol_core::operators::OperatorId;

/// One change a backend proposes: one operator applied to its tools.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Proposal {
    pub operator: OperatorId,
    /// The existing tools the change is about (a removed or renamed tool by its old name).
    pub targets: Vec<String>,
    /// Tools the change adds, by their new names.
    pub added: Vec<String>,
    /// One sentence a person reads in `git log`.
    pub summary: String,
    pub hunks: Vec<Hunk>,
    /// What the change claims to do to the tools' answers; the oracle checks each claim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub effects: Vec<mcpevol_oracle::validate::Effect>,
}

impl Proposal {
    /// Whether the change is about `tool` (a target, or a tool it adds).
    pub fn touches(&self, tool: &str) -> bool {
        self.targets.iter().chain(&self.added).any(|t| t == tool)
    }
}

/// What a mutator sees of the server.
pub struct Context<'a> {
    pub root: &'a Path,
    pub inventory: &'a Inventory,
    /// Varies choices between rounds and attempts while staying reproducible.
    pub seed: u64,
    /// Tools not to target: earlier attempts of this round failed on them.
    pub avoid: &'a [String],
    /// Tools whose call answered without error at the previous version: a change to one of
    /// them can be seen working, so the rules target them first (empty: no preference).
    pub answering: &'a [String],
    /// Those of them with a text part of more than one line: a new `max_lines` is added only
    /// there (elsewhere its cut could not show), where anything is known of the answers.
    pub multiline: &'a [String],
    /// Those of them whose answers are JSON objects with keys to name: a new `fields` (a
    /// projection) is added only there.
    pub json: &'a [String],
    /// What Constraint Mutation (O6) makes: a round leaves it to the rules
    /// ([`ConstraintKind::DescribedBound`]); a release recipe asks for the pattern it aims at.
    pub constraint: ConstraintKind,
    /// Whether a new tool may be an alias copy where nothing new fits.
    pub aliases: Aliases,
}

/// Whether Tool Addition and Tool Integration may register an alias copy of a tool (`x_v1`,
/// `x_compat`) where no new tool the rules can write honestly fits it. A round asked for the
/// operator by name, and an alias is the one addition left; a release is shaped like real
/// ones, whose added tools do something new (4 of 107 real ones were named as an older tool
/// plus a suffix).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Aliases {
    Allowed,
    Refused,
}

/// Whether a parameter the rules add may be left out of a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    Optional,
    Required,
}

/// The kinds of change a release's recipe asks of its operator: Constraint Mutation's, and
/// the title Tool Description Update may write instead of description text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConstraintKind {
    /// A bound, explained in its parameter's description where that can be edited (P9, else P8).
    DescribedBound,
    /// A bound alone (P8), or beside a tool description (P1 + P8, where an explained bound
    /// would make P7 + P8).
    Bound,
    /// A required parameter made optional with the default the handler then receives (P13):
    /// zod's `.default(...)`, or in a JSON schema a declared default the handler's wrapper fills in.
    Demotion,
    /// An optional parameter made required (P13): zod refuses calls without it, and in a JSON
    /// schema the handler's wrapper does.
    Promotion,
    /// An optional parameter's default changed to another valid value (`other`).
    Redefault,
    /// A new required parameter the handler uses, which a zod shape then demands (P10).
    NewRequired,
    /// An upper bound of a parameter's own raised (P8, looser).
    Loosen,
    /// Each lowercase value of a parameter's enum accepted in capitals too, read by the handler
    /// as the value it spells (P8, looser).
    Capitals,
    /// Tool Description Update's display title for the tool (`other`).
    Title,
    /// Interface Refactoring's new optional parameter, never a pruned one: P6, which a release
    /// asks of it. (Pruning where no new parameter could show, it made P1 + P11 in 35 of 118
    /// refactorings on servers-npm, and the run, still behind on P6, drew it again: P11 came
    /// out at 8.4% against 4.0%.)
    NewOption,
}

#[derive(Debug, thiserror::Error)]
pub enum MutateError {
    #[error("operator {operator} does not apply to this server: {why}")]
    NotApplicable { operator: OperatorId, why: String },
    /// A description cannot be rewritten as the change needs.
    #[error("its description cannot be rewritten: {0}")]
    Description(String),
    #[error("the {0} file does not parse")]
    DoesNotParse(&'static str),
    #[error("{0}")]
    Unregistrable(&'static str),
    #[error("the handler of `{tool}` cannot be wrapped: {why}")]
    Unwrappable { tool: String, why: &'static str },
    #[error("the default of `{param}` is not one plain literal in its zod chain")]
    DefaultNotLiteral { param: String },
    #[error("`{param}` is not made optional by exactly one `.optional()` in its zod chain")]
    NotOneOptional { param: String },
    #[error(
        "`{tool}` answered one line at the previous version, so no new parameter the rules have could be seen at work"
    )]
    NothingToShow { tool: String },
    #[error("operator {0} is not known to the rules backend")]
    UnknownOperator(OperatorId),
    #[error("cannot read {file}: {source}")]
    Io {
        file: String,
        source: std::io::Error,
    },
}

/// A small, fast, reproducible generator (splitmix64): choices must follow from the seed alone.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// An index below `n` (n > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// The generator of one attempt of one round: different for each, fixed by the user's seed.
    pub fn for_attempt(seed: u64, round: u32, attempt: u32) -> u64 {
        Rng::new(seed ^ ((round as u64) << 32) ^ attempt as u64).next_u64()
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }
}
