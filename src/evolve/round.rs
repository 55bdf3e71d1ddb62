//! One round of evolution with the rules backend: attempts, each anchored, proposed, applied,
//! checked, run against the server and judged; the shared validation steps live here too.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use super::{Clock, EvolveError, Options, RoundOutcome, add, mark_opaque_params, mix, touched};
use crate::anchor;
use crate::contract;
use crate::edit;
use crate::mutate::reply::GeneratedTest;
use crate::mutate::{self, Context, Rng, rules};
use crate::operators::Operator;
use crate::record::{self, GeneratedResult, Rejection, RoundRecord};
use crate::schema;
use crate::server::session::{Session, Status};
use crate::server::{LaunchConfig, LiveTools};
use crate::validate;
use crate::workspace::Workspace;

pub(super) struct Round<'a> {
    pub(super) root: &'a Path,
    pub(super) ws: &'a Workspace,
    pub(super) config: &'a LaunchConfig,
    pub(super) opts: &'a Options,
    pub(super) all_ops: &'a [Operator],
    pub(super) number: u32,
    pub(super) clock: Clock,
    pub(super) cache: &'a std::sync::Mutex<anchor::Cache>,
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

type Attempt = Result<(RoundRecord, LiveTools), String>;

impl Round<'_> {
    /// Tries up to `max_attempts` proposals; the workspace is back at HEAD after each failure.
    pub(super) async fn run(
        &self,
        forced: Option<&Operator>,
        previous: &LiveTools,
        statuses: &BTreeMap<String, Status>,
    ) -> Result<Result<(RoundRecord, LiveTools), RoundOutcome>, EvolveError> {
        let head = self.ws.head()?;
        let mut rejected: Vec<Rejection> = Vec::new();
        let mut tried: BTreeSet<String> = BTreeSet::new();
        for attempt in 1..=self.opts.max_attempts {
            let seed = mix(self.opts.seed, self.number, attempt);
            let started = std::time::Instant::now();
            let mut inventory = anchor::anchor_with(self.root, self.cache).map_err(|e| {
                EvolveError::ServerBroken {
                    root: self.root.display().to_string(),
                    version: format!("v{}", self.number - 1),
                    why: e.to_string(),
                }
            })?;
            let op = match forced {
                Some(op) => op,
                None => match self.choose(&inventory, seed, &tried) {
                    Some(op) => op,
                    None => break,
                },
            };
            mark_opaque_params(&mut inventory, previous);
            add(&self.clock.anchor, started);
            tried.insert(op.id.clone());
            let avoid: Vec<String> = rejected
                .iter()
                .filter(|r| r.operator == op.id)
                .flat_map(|r| r.targets.clone())
                .collect();
            let ctx = Context {
                root: self.root,
                inventory: &inventory,
                seed,
                avoid: &avoid,
            };
            let started = std::time::Instant::now();
            let proposal = rules::propose(&op.id, &ctx);
            add(&self.clock.mutate, started);
            let proposal = match proposal {
                Ok(p) => p,
                Err(e) => {
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: vec![],
                        reason: e.to_string(),
                    });
                    if forced.is_some() {
                        break; // the forced operator will not fit on the next attempt either
                    }
                    continue;
                }
            };
            let result = self.validate(op, &proposal, previous, statuses, None).await;
            match result {
                Ok((mut record, tools)) => {
                    record.inapplicable = self.inapplicable(&inventory);
                    record.seed = Some(self.opts.seed);
                    record.attempts = attempt;
                    record.rejected = rejected;
                    return Ok(Ok((record, tools)));
                }
                Err(reason) => {
                    self.ws.restore(&head)?;
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: proposal.targets.clone(),
                        reason,
                    });
                }
            }
        }
        self.ws.restore(&head)?;
        let reason = rejected
            .last()
            .map_or("no operator applies to this server".to_string(), |r| {
                r.reason.clone()
            });
        let operator = rejected.last().map(|r| r.operator.clone());
        Ok(Err(RoundOutcome::failed(
            self.number,
            operator,
            reason,
            &rejected,
        )))
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
                    .any(|t| rules::applies(&op.id, t, &inventory.tools).is_ok())
            })
            .collect();
        Rng::new(seed).pick(&fitting).copied()
    }

    /// Why each operator the rules cannot apply to any tool does not fit (the first tool's reason).
    fn inapplicable(&self, inventory: &crate::inventory::Inventory) -> BTreeMap<String, String> {
        let tools = &inventory.tools;
        self.all_ops
            .iter()
            .filter(|op| {
                !tools
                    .iter()
                    .any(|t| rules::applies(&op.id, t, tools).is_ok())
            })
            .map(|op| {
                let why =
                    tools
                        .first()
                        .map_or("the server has no anchored tools".to_string(), |t| {
                            format!(
                                "`{}`: {}",
                                t.name,
                                rules::applies(&op.id, t, tools).unwrap_err()
                            )
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
        statuses: &BTreeMap<String, Status>,
        generate: Option<&TestGen<'_>>,
    ) -> Attempt {
        let started = std::time::Instant::now();
        let before =
            crate::check::Before::read(self.root, proposal.hunks.iter().map(|h| h.file.as_str()));
        let changed_files = edit::apply(self.root, &proposal.hunks).map_err(|e| e.to_string());
        let checked = changed_files.and_then(|files| {
            crate::check::check_trees(self.root, &files, &before).map_err(|e| e.to_string())?;
            crate::check::NodeCheck::spawn(self.root, &files).map_err(|e| e.to_string())
        });
        add(&self.clock.check, started);
        let node_check = checked?;
        let started = std::time::Instant::now();
        // `node --check` runs while the server starts; its verdict comes first all the same.
        let result = self
            .run_server(op, proposal, previous, statuses, generate)
            .await;
        let node_verdict = node_check.wait().map_err(|e| e.to_string());
        add(&self.clock.server, started);
        node_verdict?;
        result
    }

    /// Starts the new version, checks its schema change and runs the functional tests.
    async fn run_server(
        &self,
        op: &Operator,
        proposal: &mutate::Proposal,
        previous: &LiveTools,
        statuses: &BTreeMap<String, Status>,
        generate: Option<&TestGen<'_>>,
    ) -> Attempt {
        let mut session = Session::start(self.root, self.config, &[], self.opts.timeout)
            .await
            .map_err(|e| e.to_string())?;
        let listed = session.list_tools().await;
        let tests = match &listed {
            Ok(live) => {
                let changes = schema::diff(&previous.tools, &live.tools);
                let (added, changed) = touched(&changes);
                if let Err(violations) = contract::check(&op.contract, &changes, &proposal.targets)
                {
                    session.close().await;
                    return Err(format!(
                        "the schema change breaks the contract of {}: {}",
                        op.id,
                        violations.join("; ")
                    ));
                }
                let tests = validate::run(&session, &live.tools, &added, &changed, statuses).await;
                let generated = match generate {
                    Some(generate) => match generate(changes.clone(), live.tools.clone()).await {
                        Ok(cases) => run_generated(&session, cases).await,
                        Err(reason) => {
                            session.close().await;
                            return Err(reason);
                        }
                    },
                    None => Vec::new(),
                };
                Some((changes, tests, generated))
            }
            Err(_) => None,
        };
        let tmp = session.tmp_path().map(Path::to_path_buf);
        session.close().await;
        let mut live = listed.map_err(|e| e.to_string())?;
        record::scrub_tmp(&mut live, tmp.as_deref());
        let (changes, tests, generated) = tests.expect("listed is Ok here");
        if let Some(failed) = tests.iter().find(|t| !t.passed) {
            return Err(format!(
                "test of `{}` failed: {}",
                failed.tool,
                failed.reason.as_deref().unwrap_or("")
            ));
        }
        if let Some(failed) = generated.iter().find(|t| !t.passed) {
            return Err(format!(
                "generated test of `{}` with arguments {} failed: {}",
                failed.test.tool,
                serde_json::Value::Object(failed.test.arguments.clone()),
                failed.reason.as_deref().unwrap_or("")
            ));
        }
        let record = RoundRecord {
            version: format!("v{}", self.number),
            round: self.number,
            operator: Some(op.id.clone()),
            operator_name: Some(op.name.clone()),
            backend: self.backend.clone(),
            seed: None,
            targets: proposal.targets.clone(),
            added: proposal.added.clone(),
            summary: proposal.summary.clone(),
            hunks: proposal.hunks.clone(),
            patterns: schema::round_patterns(&changes),
            schema_changes: changes,
            tests,
            attempts: 0,
            rejected: Vec::new(),
            generated_tests: generated,
            inapplicable: Default::default(),
            usage: None,
            model: None,
        };
        Ok((record, live))
    }
}

/// Runs the model's test cases: each must end as it expects (success or error) and show the
/// text it names; a crash or timeout always fails.
async fn run_generated(session: &Session, cases: Vec<GeneratedTest>) -> Vec<GeneratedResult> {
    let mut out = Vec::new();
    for test in cases {
        let outcome = session
            .call(&test.tool, test.arguments.clone(), validate::CALL_TIMEOUT)
            .await;
        let succeeded = outcome.status == Status::Ok;
        let reason = match outcome.status {
            Status::Crashed | Status::Timeout => {
                Some(format!("{:?}: {}", outcome.status, outcome.text))
            }
            _ if succeeded != (test.expect == "success") => Some(format!(
                "expected {} but it answered {:?}: {}",
                test.expect,
                outcome.status,
                outcome.text.chars().take(200).collect::<String>()
            )),
            _ => match &test.contains {
                Some(needle) if !outcome.text.contains(needle.as_str()) => Some(format!(
                    "the result does not contain {needle:?}: {}",
                    outcome.text.chars().take(200).collect::<String>()
                )),
                _ => None,
            },
        };
        out.push(GeneratedResult {
            test,
            status: outcome.status,
            passed: reason.is_none(),
            reason,
        });
    }
    out
}
