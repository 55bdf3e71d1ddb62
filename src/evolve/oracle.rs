//! Running the oracle on a started version: the schema change checked against the operator's
//! contract, the previous version's answers adjusted to the change (tools it removed left out,
//! deterministic outputs confirmed before a difference fails the round), and the model's own
//! test cases, excused where the previous version answers them the same way.

use std::path::Path;

use super::round::{Attempt, Round, TestGen};
use crate::contract;
use crate::mutate;
use crate::operators::Operator;
use crate::schema;
use crate::server::LiveTools;
use crate::server::session::{Session, Status};
use crate::validate::{self, Baseline, Verdict};
use crate::version_record::{self, GeneratedResult, RoundRecord};

impl Round<'_> {
    /// Starts the new version, checks its schema change and runs the oracle and the model's
    /// test cases; Err is the reason in words.
    pub(super) async fn run_server(
        &self,
        op: &Operator,
        proposal: &mutate::Proposal,
        previous: &LiveTools,
        baseline: &Baseline,
        generate: Option<&TestGen<'_>>,
    ) -> Attempt {
        let mut session = self.start().await?;
        let mut live = match session.list_tools().await {
            Ok(live) => live,
            Err(e) => {
                session.close().await;
                return Err(e.to_string());
            }
        };
        let changes = schema::diff(&previous.tools, &live.tools);
        let judged = self
            .judge(
                &mut session,
                op,
                proposal,
                previous,
                baseline,
                &changes,
                &live,
                generate,
            )
            .await;
        let tmp = session.tmp_path().map(Path::to_path_buf);
        session.close().await;
        let (tests, generated) = judged?;
        version_record::scrub_tmp(&mut live, tmp.as_deref());
        if let Some(failed) = tests.iter().find(|t| t.verdict == Verdict::Failed) {
            return Err(format!(
                "test of `{}` failed: {}",
                failed.tool,
                failed.reason.as_deref().unwrap_or("")
            ));
        }
        if let Some(failed) = generated.iter().find(|t| t.verdict == Verdict::Failed) {
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
            effects: proposal.effects.clone(),
            patterns: schema::round_patterns(&changes),
            schema_changes: changes,
            tests,
            attempts: 0,
            rejected: Vec::new(),
            generated_tests: generated,
            inapplicable: Default::default(),
            usage: None,
            model: None,
            failed_rounds: Vec::new(),
        };
        Ok((record, live))
    }

    async fn start(&self) -> Result<Session, String> {
        Session::start(self.root, self.config, &[], self.opts.timeout)
            .await
            .map_err(|e| e.to_string())
    }

    /// The contract, the oracle and the generated tests on a running version. A difference
    /// from a previous output that two samples called deterministic is confirmed with two more
    /// samples of the previous version before it counts; if they vary, the oracle runs again
    /// on a fresh start of the new version.
    #[allow(clippy::too_many_arguments)]
    async fn judge(
        &self,
        session: &mut Session,
        op: &Operator,
        proposal: &mutate::Proposal,
        previous: &LiveTools,
        baseline: &Baseline,
        changes: &[schema::SchemaChange],
        live: &LiveTools,
        generate: Option<&TestGen<'_>>,
    ) -> Result<(Vec<validate::TestResult>, Vec<GeneratedResult>), String> {
        contract::verify(&op.contract, changes, &proposal.targets).map_err(|violations| {
            format!(
                "the schema change breaks the contract of {}: {}",
                op.id,
                violations.join("; ")
            )
        })?;
        crate::describe_check::check(&previous.tools, &live.tools, changes, op.builtin())
            .map_err(|refused| refused.to_string())?;
        let change = validate::Change {
            previous: &previous.tools,
            current: &live.tools,
            changes,
            effects: &proposal.effects,
        };
        // Without a removed tool's calls, the state later tools see differs: they are compared
        // with the previous version called the same way.
        let adjusted = self.without_removed(changes, previous, baseline).await?;
        let mut base = adjusted.unwrap_or_else(|| baseline.clone());
        let mut tests = validate::run(session, &base, &change).await;
        if tests.iter().any(|t| t.differed) {
            let kept: Vec<serde_json::Value> = previous
                .tools
                .iter()
                .filter(|t| base.calls.keys().any(|k| t["name"] == k.as_str()))
                .cloned()
                .collect();
            let again = self.observe_previous(&kept, &base).await?;
            if let Some(confirmed) = base.confirm(&again) {
                base = confirmed;
                let fresh = self.start().await?;
                let old = std::mem::replace(session, fresh);
                old.close().await;
                session.list_tools().await.map_err(|e| e.to_string())?;
                tests = validate::run(session, &base, &change).await;
            }
        }
        let generated = match generate {
            Some(generate) => {
                let cases = generate(changes.to_vec(), live.tools.clone()).await?;
                let mut results = super::generated::run_generated(session, cases).await;
                self.excuse_on_previous(&mut results).await;
                results
            }
            None => Vec::new(),
        };
        Ok((tests, generated))
    }

    /// Two more samples of the previous version (a snapshot of HEAD), calling `tools` as the
    /// baseline did.
    async fn observe_previous(
        &self,
        tools: &[serde_json::Value],
        baseline: &Baseline,
    ) -> Result<Baseline, String> {
        let started = std::time::Instant::now();
        let observed = self.observe_head(tools, baseline).await;
        super::add(&self.clock.previous, started);
        observed
    }

    async fn observe_head(
        &self,
        tools: &[serde_json::Value],
        baseline: &Baseline,
    ) -> Result<Baseline, String> {
        let dir = tempfile::tempdir().map_err(|e| format!("cannot make a scratch folder: {e}"))?;
        let head = self.ws.head().map_err(|e| e.to_string())?;
        self.ws
            .snapshot(&head, dir.path())
            .map_err(|e| e.to_string())?;
        let slow: Vec<String> = baseline
            .calls
            .iter()
            .filter(|(_, o)| o.status == Status::Timeout)
            .map(|(n, _)| n.clone())
            .collect();
        let mut again = Baseline::observe(dir.path(), self.config, tools, self.opts.timeout, &slow)
            .await
            .map_err(|e| format!("the previous version did not answer again: {e}"))?;
        again.unknown = baseline.unknown.clone();
        Ok(again)
    }

    /// The previous version's answers with the tools this change removes left out of the
    /// calls, or None when it removes none.
    async fn without_removed(
        &self,
        changes: &[schema::SchemaChange],
        previous: &LiveTools,
        baseline: &Baseline,
    ) -> Result<Option<Baseline>, String> {
        let removed: Vec<&str> = changes
            .iter()
            .filter(|c| c.kind == schema::ChangeKind::ToolRemoved)
            .map(|c| c.tool.as_str())
            .collect();
        if removed.is_empty() {
            return Ok(None);
        }
        let kept: Vec<serde_json::Value> = previous
            .tools
            .iter()
            .filter(|t| !removed.iter().any(|r| t["name"] == *r))
            .cloned()
            .collect();
        let mut again = self.observe_previous(&kept, baseline).await?;
        for name in removed {
            if let Some(seen) = baseline.calls.get(name) {
                again.calls.insert(name.to_string(), seen.clone());
            }
        }
        Ok(Some(again))
    }
}
