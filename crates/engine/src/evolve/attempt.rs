//! The one attempt loop every backend goes through:
//!
//! ```text
//!   propose ─▶ confine + apply ─▶ syntax ─▶ server ─▶ contract ─▶ oracle ─▶ record, commit
//!      ▲                                                                  │
//!      └──── roll back to HEAD, tell the proposer why ◀── any failure ────┘
//! ```
//!
//! A round asks its [`Proposer`] for changes until one set passes every check or the attempts
//! are spent; the round's record is built here, once, from what passed.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::clock::{Clock, Step};
use super::proposer::{Ask, GiveUp, Proposed, Proposer};
use super::{AttemptError, EvolveError, EvolveOptions, RoundOutcome};
use crate::hunks;
use crate::mutate::Proposal;
use crate::version_record::GeneratedResult;
use crate::version_record::{ChangeRecord, Rejection, RoundRecord};
use crate::workspace::{VersionTag, Workspace};
use mcpevol_anchor::{self as anchor, FactsCache};
use mcpevol_core::operators::{self, Operator};
use mcpevol_core::schema;
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::server::{LaunchConfig, LiveTools};
use mcpevol_oracle::validate::Baseline;
use mcpevol_oracle::validate::{Proof, TestResult};

/// What a version that passed showed, with what each change's checks proved.
pub(super) struct Proven {
    pub(super) live: LiveTools,
    pub(super) schema_changes: Vec<SchemaChange>,
    pub(super) tests: Vec<TestResult>,
    pub(super) generated: Vec<GeneratedResult>,
}

impl Proven {
    /// The schema changes each proposal answers for (`release::owners`): all of them for a
    /// single change; for several, the ones on each change's own tools.
    fn changes_of<'p>(
        &'p self,
        proposals: &[Proposal],
        operators: &[&Operator],
    ) -> Vec<Vec<&'p SchemaChange>> {
        let pairs: Vec<(&Proposal, &mcpevol_core::contract::Contract)> = proposals
            .iter()
            .zip(operators)
            .map(|(p, op)| (p, &op.contract))
            .collect();
        crate::release::owners::assign(&pairs, &self.schema_changes)
            .into_iter()
            .map(|mine| mine.into_iter().map(|i| &self.schema_changes[i]).collect())
            .collect()
    }

    /// Each proposal's patterns and proof (proven by a passed check that exercised its schema
    /// changes, or a model's own case that did), and the checks that exercised it.
    fn proofs(
        &self,
        proposals: &[Proposal],
        operators: &[&Operator],
    ) -> Vec<(Vec<mcpevol_core::schema::Pattern>, Proof, Vec<usize>)> {
        self.changes_of(proposals, operators)
            .into_iter()
            .map(|mine| {
                let owned: Vec<SchemaChange> = mine.iter().map(|c| (*c).clone()).collect();
                let shown_by: Vec<usize> = (0..mine.len())
                    .filter(|i| {
                        (self.generated.iter()).any(|g| super::case_proof::proves(g, mine[*i]))
                    })
                    .collect();
                let tests: Vec<usize> = (0..self.tests.len())
                    .filter(|i| {
                        mine.iter()
                            .any(|c| mcpevol_oracle::validate::proof::exercises(&self.tests[*i], c))
                    })
                    .collect();
                (
                    schema::round_patterns(&owned),
                    mcpevol_oracle::validate::proof::of_changes(&mine, &self.tests, &shown_by),
                    tests,
                )
            })
            .collect()
    }
}

/// One round: the version it makes and everything its attempts share.
pub(super) struct Round<'a> {
    pub(super) root: &'a Path,
    pub(super) ws: &'a Workspace,
    pub(super) config: &'a LaunchConfig,
    pub(super) opts: &'a EvolveOptions,
    pub(super) operators: &'a [Operator],
    pub(super) operator_dirs: &'a [std::path::PathBuf],
    pub(super) forced: Option<&'a Operator>,
    pub(super) version: VersionTag,
    /// Earlier tries of this version that failed: each new try draws other seeds.
    pub(super) try_number: u32,
    pub(super) clock: Clock,
    pub(super) cache: &'a Arc<Mutex<FactsCache>>,
}

/// How a round ended.
pub(super) enum RoundEnd {
    /// A version passed: its record and live tools, ready to commit.
    Made(Box<Made>),
    Failed(Box<RoundOutcome>),
}

pub(super) struct Made {
    pub(super) record: RoundRecord,
    pub(super) tools: LiveTools,
    pub(super) exchanges: Vec<crate::llm::Exchange>,
}

impl Round<'_> {
    pub(super) fn ask<'s>(
        &'s self,
        previous: &'s LiveTools,
        (answering, multiline, json): (&'s [String], &'s [String], &'s [String]),
    ) -> Ask<'s> {
        Ask {
            root: self.root,
            ws: self.ws,
            version: self.version,
            try_number: self.try_number,
            seed: self.opts.seed,
            max_attempts: self.opts.max_attempts,
            previous,
            answering,
            multiline,
            json,
            operators: self.operators,
            forced: self.forced,
            operator_dirs: self.operator_dirs,
            cache: self.cache,
            clock: &self.clock,
        }
    }

    /// Asks `proposer` for changes until a set passes or `max_attempts` are spent; the work
    /// tree is back at HEAD after every rejected set and after a failed round.
    pub(super) async fn run(
        &self,
        proposer: &mut dyn Proposer,
        previous: &LiveTools,
        baseline: &Baseline,
    ) -> Result<RoundEnd, EvolveError> {
        let head = self.ws.head()?;
        let (answering, multiline) = (baseline.answering(), baseline.multiline());
        let json = baseline.json_objects();
        let ask = self.ask(previous, (&answering, &multiline, &json));
        let mut rejected: Vec<Rejection> = Vec::new();
        let mut attempts = 0;
        let give_up = loop {
            if attempts >= self.opts.max_attempts {
                break GiveUp::quietly();
            }
            let proposals = match proposer.propose(&ask, &mut rejected).await? {
                Proposed::Changes(p) => p,
                Proposed::Unusable {
                    operator,
                    targets,
                    error,
                } => {
                    attempts += 1;
                    rejected.push(error.rejection(operator, targets, Vec::new()));
                    proposer.rejected(&error);
                    continue;
                }
                Proposed::GiveUp(g) => break g,
            };
            attempts += 1;
            for p in &proposals {
                tracing::debug!(operator = %p.operator, summary = %p.summary, "proposed");
            }
            let operators = self.operators_of(&proposals)?;
            match self
                .attempt(&ask, &proposals, &operators, previous, baseline, proposer)
                .await
            {
                Ok(proven) => {
                    let made =
                        self.made(proposals, &operators, proven, attempts, rejected, proposer);
                    return Ok(RoundEnd::Made(Box::new(made)));
                }
                Err(error) => {
                    tracing::debug!(%error, "attempt rejected");
                    self.ws.restore(&head)?;
                    let hunks = proposals.iter().flat_map(|p| p.hunks.clone()).collect();
                    let first = proposals.first();
                    rejected.push(error.rejection(
                        first.map(|p| p.operator.clone()),
                        proposals.iter().flat_map(|p| p.targets.clone()).collect(),
                        hunks,
                    ));
                    proposer.rejected(&error);
                }
            }
        };
        self.ws.restore(&head)?;
        let reason = match (give_up.reason, rejected.last()) {
            (Some(reason), _) => reason,
            (None, Some(last)) => last.reason.clone(),
            (None, None) => "nothing was proposed".to_string(),
        };
        let mut outcome = RoundOutcome::failed(self.version, reason, &rejected, attempts);
        outcome.endpoint_failed = give_up.endpoint_failed;
        outcome.timings = self.clock.timings();
        Ok(RoundEnd::Failed(Box::new(outcome)))
    }

    /// The operator files of the proposals, or the error that one is unknown.
    fn operators_of<'o>(
        &'o self,
        proposals: &[Proposal],
    ) -> Result<Vec<&'o Operator>, EvolveError> {
        proposals
            .iter()
            .map(|p| {
                operators::find(self.operators, &p.operator)
                    .ok_or_else(|| EvolveError::UnknownOperator(p.operator.clone()))
            })
            .collect()
    }

    /// Applies the proposals' hunks, checks the syntax while the server starts, and proves the
    /// started version.
    async fn attempt(
        &self,
        ask: &Ask<'_>,
        proposals: &[Proposal],
        operators: &[&Operator],
        previous: &LiveTools,
        baseline: &Baseline,
        proposer: &mut dyn Proposer,
    ) -> Result<Proven, AttemptError> {
        let hunks: Vec<hunks::Hunk> = proposals.iter().flat_map(|p| p.hunks.clone()).collect();
        let started = Instant::now();
        let before =
            crate::syntax_check::Before::read(self.root, hunks.iter().map(|h| h.file.as_str()));
        let applied = hunks::apply(self.root, &hunks)
            .map_err(AttemptError::from)
            .and_then(|files| {
                let node = crate::syntax_check::NodeCheck::spawn(self.root, &files)?;
                Ok((node, files))
            });
        self.clock.add(Step::Check, started);
        let (node_check, files) = applied?;
        let trees_check = self.check_in_background(files, before);
        let started = Instant::now();
        // Both syntax checks run while the server starts; their verdicts come first all the
        // same, so code they reject is never judged on what the server did.
        let proven = self
            .prove(ask, proposals, operators, previous, baseline, proposer)
            .await;
        let node_verdict = node_check.wait();
        self.clock.add(Step::Server, started);
        // Any wait for the background work is time the server step did not hide.
        let started = Instant::now();
        let (trees_verdict, worked) = trees_check
            .join()
            .unwrap_or((Err(AttemptError::CheckPanicked), 0.0));
        self.clock.add(Step::Check, started);
        self.clock.add_ms(Step::Overlapped, worked);
        trees_verdict?;
        node_verdict?;
        let proven = proven?;
        if self.opts.require_proof {
            let proofs: Vec<Proof> = (proven.proofs(proposals, operators).into_iter())
                .map(|(_, p, _)| p)
                .collect();
            let change = proofs.iter().rposition(|p| !p.is_proven());
            if let Some(why) = Proof::all(proofs).unproven_reason {
                return Err(AttemptError::Unproven { why, change });
            }
        }
        Ok(proven)
    }

    /// The tree-sitter check of the edited files on another thread, then, when it passes,
    /// their facts read for the next round's anchoring (on a bundle of megabytes, the largest
    /// step outside the server's) and the blobs of the large ones written for the commit. The
    /// result is the verdict and the milliseconds worked.
    fn check_in_background(
        &self,
        files: Vec<String>,
        before: crate::syntax_check::Before,
    ) -> std::thread::JoinHandle<(Result<(), AttemptError>, f64)> {
        let (root, cache) = (self.root.to_path_buf(), self.cache.clone());
        std::thread::spawn(move || {
            let started = Instant::now();
            let verdict = crate::syntax_check::check_trees(&root, &files, &before);
            if verdict.is_ok() {
                anchor::read_ahead(&root, Some(&files), &cache);
                // The commit's blobs of large edited files, so that the commit only hashes them.
                if let Ok(ws) = crate::workspace::Workspace::open(&root) {
                    ws.write_blobs_ahead(&files);
                }
            }
            (
                verdict.map_err(AttemptError::from),
                started.elapsed().as_secs_f64() * 1e3,
            )
        })
    }

    /// The round's record, built here and nowhere else.
    fn made(
        &self,
        proposals: Vec<Proposal>,
        operators: &[&Operator],
        proven: Proven,
        attempts: u32,
        rejected: Vec<Rejection>,
        proposer: &mut dyn Proposer,
    ) -> Made {
        let provenance = proposer.provenance();
        let proofs = proven.proofs(&proposals, operators);
        let mut changes: Vec<ChangeRecord> = proposals
            .into_iter()
            .zip(operators)
            .zip(proofs)
            .map(|((p, op), (patterns, proof, tests))| {
                ChangeRecord::new(p, op, patterns, proof, tests)
            })
            .collect();
        // A model does not say which tools its edits add; the schema does. With one change,
        // every tool the version adds is that change's.
        if let [only] = changes.as_mut_slice() {
            for name in schema::added_names(&proven.schema_changes) {
                if !only.proposal.added.contains(&name) {
                    only.proposal.added.push(name);
                }
            }
        }
        let changes_proofs: Vec<Proof> = changes.iter().map(|c| c.proof.clone()).collect();
        let one_operator = changes.first().filter(|first| {
            changes
                .iter()
                .all(|c| c.proposal.operator == first.proposal.operator)
        });
        let record = RoundRecord {
            version: self.version,
            operator: one_operator.map(|c| c.proposal.operator.clone()),
            operator_name: one_operator.map(|c| c.operator_name.clone()),
            backend: proposer.author(),
            seed: Some(self.opts.seed),
            targets: unique(changes.iter().flat_map(|c| c.proposal.targets.iter())),
            added: unique(changes.iter().flat_map(|c| c.proposal.added.iter())),
            summary: changes
                .iter()
                .map(|c| c.proposal.summary.as_str())
                .collect::<Vec<_>>()
                .join("; "),
            patterns: schema::round_patterns(&proven.schema_changes),
            changes,
            schema_changes: proven.schema_changes,
            tests: proven.tests,
            attempts,
            rejected,
            inapplicable: provenance.inapplicable,
            generated_tests: proven.generated,
            usage: provenance.usage,
            model: provenance.model,
            failed_rounds: Vec::new(),
            proof: Proof::all(changes_proofs),
            release: provenance.release,
            redacted: provenance.redacted,
        };
        Made {
            record,
            tools: proven.live,
            exchanges: provenance.exchanges,
        }
    }
}

/// The names in order of first appearance, each once.
fn unique<'a>(names: impl Iterator<Item = &'a String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for n in names {
        if !out.contains(n) {
            out.push(n.clone());
        }
    }
    out
}
