//! One round of evolution with the rules backend: attempts, each anchored, proposed, applied,
//! checked, run against the server and judged; the shared validation steps live here too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::served::{self, mark_opaque_params};
use super::{Clock, EvolveError, Options, RoundOutcome, add};

/// Targets an operator gets in one round before another operator is tried.
const TARGETS_PER_OPERATOR: usize = 2;
use crate::anchor;
use crate::hunks;
use crate::mutate::reply::GeneratedTest;
use crate::mutate::{self, Context, Rng, rules};
use crate::operators::Operator;
use crate::schema;
use crate::server::{LaunchConfig, LiveTools};
use crate::validate::Baseline;
use crate::version_record::{Rejection, RoundRecord};
use crate::workspace::Workspace;

pub(super) struct Round<'a> {
    pub(super) root: &'a Path,
    pub(super) ws: &'a Workspace,
    pub(super) config: &'a LaunchConfig,
    pub(super) opts: &'a Options,
    pub(super) all_ops: &'a [Operator],
    pub(super) number: u32,
    /// Earlier tries of this round that failed: each new try draws other seeds.
    pub(super) try_number: u32,
    pub(super) clock: Clock,
    pub(super) cache: &'a std::sync::Arc<std::sync::Mutex<anchor::Cache>>,
    /// What the round record says made the change: `rules`, or the LLM backend's name.
    pub(super) backend: String,
}

/// Asks for extra test cases once a change has passed its contract (the LLM backends' model
/// writes them); Err is the reason the attempt fails.
pub(super) type TestGen<'a> = dyn Fn(
        Vec<schema::SchemaChange>,
        Vec<serde_json::Value>,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<Vec<GeneratedTest>, String>> + Send + 'a>,
    > + Send
    + Sync
    + 'a;

pub(super) type Attempt = Result<(RoundRecord, LiveTools), String>;

impl Round<'_> {
    /// Tries up to `max_attempts` proposals; the workspace is back at HEAD after each failure.
    pub(super) async fn run(
        &self,
        forced: Option<&Operator>,
        previous: &LiveTools,
        baseline: &Baseline,
    ) -> Result<Result<(RoundRecord, LiveTools), RoundOutcome>, EvolveError> {
        let head = self.ws.head()?;
        let mut rejected: Vec<Rejection> = Vec::new();
        // Operators given up on: each gets TARGETS_PER_OPERATOR targets before another is tried.
        let mut tried: BTreeSet<String> = BTreeSet::new();
        let mut unserved = Vec::new();
        for attempt in 1..=self.opts.max_attempts {
            let seed = Rng::for_attempt(
                self.opts.seed,
                self.number,
                attempt + self.try_number * self.opts.max_attempts,
            );
            let started = std::time::Instant::now();
            let mut inventory = anchor::anchor_with(self.root, self.cache).map_err(|e| {
                EvolveError::ServerBroken {
                    root: self.root.display().to_string(),
                    version: format!("v{}", self.number - 1),
                    why: e.to_string(),
                }
            })?;
            unserved = served::keep_served(&mut inventory, previous);
            let op = match forced {
                Some(op) => op,
                None => match self.choose(&inventory, seed, &tried) {
                    Some(op) => op,
                    None => break,
                },
            };
            mark_opaque_params(&mut inventory, previous);
            add(&self.clock.anchor, started);
            let avoid: Vec<String> = rejected
                .iter()
                .filter(|r| r.operator == op.id)
                .flat_map(|r| r.targets.clone())
                .collect();
            let failures = rejected.iter().filter(|r| r.operator == op.id).count();
            if failures + 1 >= TARGETS_PER_OPERATOR {
                tried.insert(op.id.clone());
            }
            let ctx = Context {
                root: self.root,
                inventory: &inventory,
                seed,
                avoid: &avoid,
            };
            let started = std::time::Instant::now();
            let proposal = match op.builtin() {
                Some(b) => rules::propose(b, &ctx),
                None => Err(mutate::MutateError::UnknownOperator(op.id.clone())),
            };
            add(&self.clock.mutate, started);
            let proposal = match proposal {
                Ok(p) => p,
                Err(e) => {
                    tried.insert(op.id.clone());
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: vec![],
                        reason: e.to_string(),
                        hunks: Vec::new(),
                    });
                    if forced.is_some() {
                        break; // the forced operator fits no other target either
                    }
                    continue;
                }
            };
            let result = self.validate(op, &proposal, previous, baseline, None).await;
            match result {
                Ok((mut record, tools)) => {
                    record.inapplicable = self.inapplicable(&inventory);
                    record.seed = Some(self.opts.seed);
                    record.attempts = attempt;
                    record.rejected = rejected;
                    return Ok(Ok((record, tools)));
                }
                Err(reason) => {
                    tracing::debug!(operator = %op.id, targets = ?proposal.targets, %reason, "attempt rejected");
                    self.ws.restore(&head)?;
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: proposal.targets.clone(),
                        reason,
                        hunks: proposal.hunks.clone(),
                    });
                }
            }
        }
        self.ws.restore(&head)?;
        let reason = match rejected.last() {
            Some(r) => r.reason.clone(),
            None => served::why_nothing_applies(self.root, &unserved),
        };
        let operator = rejected.last().map(|r| r.operator.clone());
        Ok(Err(RoundOutcome::failed(
            self.number,
            operator,
            reason,
            &rejected,
        )))
    }

    /// Judges one proposal made elsewhere; its operator's contract applies.
    pub(super) async fn run_given(
        &self,
        proposal: &mutate::Proposal,
        previous: &LiveTools,
        baseline: &Baseline,
    ) -> Result<Result<(RoundRecord, LiveTools), RoundOutcome>, EvolveError> {
        let head = self.ws.head()?;
        let op = crate::operators::find(self.all_ops, &proposal.operator)
            .ok_or_else(|| EvolveError::UnknownOperator(proposal.operator.clone()))?;
        match self.validate(op, proposal, previous, baseline, None).await {
            Ok((mut record, tools)) => {
                record.attempts = 1;
                Ok(Ok((record, tools)))
            }
            Err(reason) => {
                self.ws.restore(&head)?;
                let rejected = [Rejection {
                    operator: op.id.clone(),
                    targets: proposal.targets.clone(),
                    reason: reason.clone(),
                    hunks: proposal.hunks.clone(),
                }];
                Ok(Err(RoundOutcome::failed(
                    self.number,
                    Some(op.id.clone()),
                    reason,
                    &rejected,
                )))
            }
        }
    }

    /// An operator, by seed, among those that apply to some tool and were not tried yet.
    fn choose<'o>(
        &'o self,
        inventory: &crate::inventory::Inventory,
        seed: u64,
        tried: &BTreeSet<String>,
    ) -> Option<&'o Operator> {
        let fitting: Vec<&Operator> = self
            .all_ops
            .iter()
            .filter(|op| !tried.contains(&op.id))
            .filter(|op| {
                inventory
                    .tools
                    .iter()
                    .any(|t| fits(op, t, &inventory.tools).is_ok())
            })
            .collect();
        Rng::new(seed).pick(&fitting).copied()
    }

    /// Why each operator the rules cannot apply to any tool does not fit (the first tool's reason).
    fn inapplicable(&self, inventory: &crate::inventory::Inventory) -> BTreeMap<String, String> {
        let tools = &inventory.tools;
        self.all_ops
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

    /// Applies a proposal and judges it; Err holds the reason in words.
    pub(super) async fn validate(
        &self,
        op: &Operator,
        proposal: &mutate::Proposal,
        previous: &LiveTools,
        baseline: &Baseline,
        generate: Option<&TestGen<'_>>,
    ) -> Attempt {
        let started = std::time::Instant::now();
        let before = crate::syntax_check::Before::read(
            self.root,
            proposal.hunks.iter().map(|h| h.file.as_str()),
        );
        let applied = hunks::apply(self.root, &proposal.hunks)
            .map_err(|e| e.to_string())
            .and_then(|files| {
                let node = crate::syntax_check::NodeCheck::spawn(self.root, &files)
                    .map_err(|e| e.to_string())?;
                Ok((node, files))
            });
        add(&self.clock.check, started);
        let (node_check, files) = applied?;
        let trees_check = self.check_in_background(files, before);
        let started = std::time::Instant::now();
        // Both syntax checks run while the server starts; their verdicts come first all the
        // same, so code they reject is never judged on what the server did.
        let result = self
            .run_server(op, proposal, previous, baseline, generate)
            .await;
        let node_verdict = node_check.wait().map_err(|e| e.to_string());
        add(&self.clock.server, started);
        // Any wait for the background work is time the server step did not hide.
        let started = std::time::Instant::now();
        let (trees_verdict, worked) = trees_check
            .join()
            .unwrap_or_else(|_| (Err("the syntax check panicked".into()), 0.0));
        add(&self.clock.check, started);
        self.clock
            .overlapped
            .set(self.clock.overlapped.get() + worked);
        trees_verdict?;
        node_verdict?;
        result
    }

    /// The tree-sitter check of the edited files on another thread, then, when it passes,
    /// their facts read for the next round's anchoring (on a bundle of megabytes, the largest
    /// step outside the server's). The result is the verdict and the milliseconds worked.
    fn check_in_background(
        &self,
        files: Vec<String>,
        before: crate::syntax_check::Before,
    ) -> std::thread::JoinHandle<(Result<(), String>, f64)> {
        let (root, cache) = (self.root.to_path_buf(), self.cache.clone());
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let verdict =
                crate::syntax_check::check_trees(&root, &files, &before).map_err(|e| e.to_string());
            if verdict.is_ok() {
                anchor::read_ahead(&root, Some(&files), &cache);
            }
            (verdict, started.elapsed().as_secs_f64() * 1e3)
        })
    }
}

/// Why the rules cannot apply `op` to `tool`, or Ok; a user's operator has no rules.
fn fits(
    op: &Operator,
    tool: &crate::inventory::Tool,
    all: &[crate::inventory::Tool],
) -> Result<(), &'static str> {
    match op.builtin() {
        Some(b) => rules::applies(b, tool, all),
        None => Err("the rules backend implements only the built-in operators"),
    }
}
