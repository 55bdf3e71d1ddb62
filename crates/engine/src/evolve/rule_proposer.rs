//! The rules backend as a proposer: each proposal anchors the work tree, keeps the tools the
//! server lists, chooses an operator by seed among those that fit some tool (or the forced one)
//! and a target the earlier attempts of the round did not fail on, and drafts its edits.

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use async_trait::async_trait;

use super::clock::Step;
use super::proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
use super::served::{self, mark_opaque_params};
use super::{AttemptError, EvolveError};
use crate::mutate::{Aliases, ConstraintKind, Context, MutateError, Rng, rules};
use crate::version_record::{Author, Rejection};
use mcpevol_anchor as anchor;
use mcpevol_core::inventory::{Inventory, Tool};
use mcpevol_core::operators::{Operator, OperatorId};

/// Targets an operator gets in one round before another operator is tried.
const TARGETS_PER_OPERATOR: usize = 2;

/// Proposes with the deterministic rules; the same seed gives the same proposals.
#[derive(Default)]
pub struct RuleProposer {
    /// Operators given up on this round: each gets `TARGETS_PER_OPERATOR` targets.
    tried: BTreeSet<OperatorId>,
    /// Proposals drafted this round, failed ones included: each draws its own seed.
    drafted: u32,
    inapplicable: BTreeMap<OperatorId, String>,
}

#[async_trait(?Send)]
impl Proposer for RuleProposer {
    fn author(&self) -> Author {
        Author::Rules
    }

    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        loop {
            self.drafted += 1;
            let seed = Rng::for_attempt(
                ask.seed,
                ask.version.number(),
                self.drafted + ask.try_number * ask.max_attempts,
            );
            let started = Instant::now();
            let mut inventory = anchor::anchor_with(ask.root, ask.cache).map_err(|e| {
                EvolveError::ServerBroken {
                    root: ask.root.display().to_string(),
                    version: ask.version.previous().unwrap_or_default(),
                    why: e.to_string(),
                }
            })?;
            let unserved = served::keep_served(&mut inventory, ask.previous);
            mark_opaque_params(&mut inventory, ask.previous);
            ask.clock.add(Step::Anchor, started);
            let op = match ask.forced {
                Some(op) => op,
                None => match self.choose(ask.operators, &inventory, seed) {
                    Some(op) => op,
                    None if rejected.is_empty() => {
                        return Ok(Proposed::GiveUp(GiveUp::because(
                            served::why_nothing_applies(ask.root, &unserved),
                        )));
                    }
                    None => return Ok(Proposed::GiveUp(GiveUp::quietly())),
                },
            };
            let earlier: Vec<&Rejection> = rejected
                .iter()
                .filter(|r| r.operator.as_ref() == Some(&op.id))
                .collect();
            let avoid: Vec<String> = earlier.iter().flat_map(|r| r.targets.clone()).collect();
            if earlier.len() + 1 >= TARGETS_PER_OPERATOR {
                self.tried.insert(op.id.clone());
            }
            let ctx = Context {
                root: ask.root,
                inventory: &inventory,
                seed,
                avoid: &avoid,
                answering: ask.answering,
                multiline: ask.multiline,
                json: ask.json,
                constraint: ConstraintKind::DescribedBound,
                aliases: Aliases::Allowed,
            };
            let started = Instant::now();
            let proposal = match op.builtin() {
                Some(b) => rules::propose(b, &ctx),
                None => Err(MutateError::UnknownOperator(op.id.clone())),
            };
            ask.clock.add(Step::Mutate, started);
            match proposal {
                Ok(p) => {
                    self.inapplicable = inapplicable(ask.operators, &inventory);
                    return Ok(Proposed::Changes(vec![p]));
                }
                Err(e) => {
                    self.tried.insert(op.id.clone());
                    let error = AttemptError::from(e);
                    rejected.push(error.rejection(Some(op.id.clone()), Vec::new(), Vec::new()));
                    if ask.forced.is_some() {
                        // The forced operator fits no other target either.
                        return Ok(Proposed::GiveUp(GiveUp::quietly()));
                    }
                }
            }
        }
    }

    fn provenance(&mut self) -> Provenance {
        Provenance {
            inapplicable: std::mem::take(&mut self.inapplicable),
            ..Provenance::default()
        }
    }
}

impl RuleProposer {
    /// An operator, by seed, among those that apply to some tool and were not given up on.
    fn choose<'o>(
        &self,
        operators: &'o [Operator],
        inventory: &Inventory,
        seed: u64,
    ) -> Option<&'o Operator> {
        let fitting: Vec<&Operator> = operators
            .iter()
            .filter(|op| !self.tried.contains(&op.id))
            .filter(|op| {
                inventory
                    .tools
                    .iter()
                    .any(|t| fits(op, t, &inventory.tools).is_ok())
            })
            .collect();
        Rng::new(seed).pick(&fitting).copied()
    }
}

/// Why each operator the rules cannot apply to any tool does not fit (the first tool's reason).
fn inapplicable(operators: &[Operator], inventory: &Inventory) -> BTreeMap<OperatorId, String> {
    let tools = &inventory.tools;
    operators
        .iter()
        .filter(|op| !tools.iter().any(|t| fits(op, t, tools).is_ok()))
        .map(|op| {
            let why = tools
                .first()
                .map_or("the server has no anchored tools".to_string(), |t| {
                    format!("`{}`: {}", t.name, fits(op, t, tools).unwrap_err())
                });
            (op.id.clone(), why)
        })
        .collect()
}

/// Why the rules cannot apply `op` to `tool`, or Ok; a user's operator has no rules.
fn fits(op: &Operator, tool: &Tool, all: &[Tool]) -> Result<(), &'static str> {
    match op.builtin() {
        Some(b) => rules::applies(b, tool, all),
        None => Err("the rules backend implements only the built-in operators"),
    }
}
