//! Proving a started version: its schema change held to the operators' contracts, the oracle
//! run against the previous version's answers (adjusted to the change: tools it removed left
//! out, deterministic outputs confirmed before a difference fails the round), and the
//! proposer's own test cases, excused where the previous version answers them the same way.

use std::path::Path;

use super::attempt::{Proven, Round};
use super::clock::Step;
use super::proposer::{Ask, Proposer};
use super::{AttemptError, Blame};
use crate::mutate::Proposal;
use crate::version_record::{self, GeneratedResult};
use mcpevol_core::contract;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::operators::{Builtin, Operator, OperatorId};
use mcpevol_core::schema::{self, ChangeKind, SchemaChange};
use mcpevol_oracle::server::LiveTools;
use mcpevol_oracle::server::session::Session;
use mcpevol_oracle::validate::{self, Baseline, TestResult, Verdict};

/// How many more pairs of sessions of the previous version an output that now differs gets
/// before the change is blamed. A tool with few possible answers agrees with itself by chance:
/// a die's two baseline rolls in one run in six, four rolls in one in 216, six in one in 7,776.
const CONFIRMING_PAIRS: usize = 2;

#[async_trait::async_trait(?Send)]
impl validate::Restart for Round<'_> {
    async fn restart(&self) -> Option<Session> {
        let mut session = self.start().await.ok()?;
        if session.list_tools().await.is_err() {
            session.close().await;
            return None;
        }
        Some(session)
    }
}

impl Round<'_> {
    /// Starts the new version, checks its schema change and runs the oracle and the proposer's
    /// test cases.
    pub(super) async fn prove(
        &self,
        ask: &Ask<'_>,
        proposals: &[Proposal],
        operators: &[&Operator],
        previous: &LiveTools,
        baseline: &Baseline,
        proposer: &mut dyn Proposer,
    ) -> Result<Proven, AttemptError> {
        let mut session = self.start().await?;
        let mut live = match session.list_tools().await {
            Ok(live) => live,
            Err(e) => {
                session.close().await;
                return Err(e.into());
            }
        };
        // The renames the changes declare (Tool Replacement: its target becomes the tool it
        // adds), so that `debug` renamed `diagnose` is recorded as a rename, not a tool gone
        // and another come, though their names share no word.
        let declared: Vec<(String, String)> = (proposals.iter())
            .filter(|p| p.operator == OperatorId::from(Builtin::ToolReplacement))
            .filter_map(|p| match (p.targets.as_slice(), p.added.as_slice()) {
                ([old], [new]) => Some((old.clone(), new.clone())),
                _ => None,
            })
            .collect();
        let changes = schema::diff_declared(&previous.tools, &live.tools, &declared);
        let judged = self
            .judge(
                ask,
                &mut session,
                proposals,
                operators,
                previous,
                baseline,
                &changes,
                &live,
                proposer,
            )
            .await;
        let tmp = session.tmp_path().map(Path::to_path_buf);
        session.close().await;
        let (tests, generated) = judged?;
        version_record::scrub_tmp(&mut live, tmp.as_deref());
        if let Some(failed) = tests.iter().find(|t| t.verdict == Verdict::Failed) {
            return Err(AttemptError::Test {
                tool: failed.tool.clone(),
                reason: failed.reason.clone().unwrap_or_default(),
                check: Box::new(failed.check.clone()),
            });
        }
        if let Some(failed) = generated.iter().find(|t| t.verdict == Verdict::Failed) {
            return Err(AttemptError::GeneratedTest {
                tool: failed.test.tool.clone(),
                arguments: serde_json::Value::Object(failed.test.arguments.clone()).to_string(),
                reason: failed.reason.clone().unwrap_or_default(),
            });
        }
        Ok(Proven {
            live,
            schema_changes: changes,
            tests,
            generated,
        })
    }

    pub(super) async fn start(&self) -> Result<Session, AttemptError> {
        Ok(Session::start(self.root, self.config, &[], self.opts.timeout).await?)
    }

    /// The contracts, the oracle and the generated tests on a running version. A difference
    /// from a previous output that two samples called deterministic is confirmed with two more
    /// samples of the previous version before it counts; if they vary, the oracle runs again
    /// on a fresh start of the new version.
    #[allow(clippy::too_many_arguments)]
    async fn judge(
        &self,
        ask: &Ask<'_>,
        session: &mut Session,
        proposals: &[Proposal],
        operators: &[&Operator],
        previous: &LiveTools,
        baseline: &Baseline,
        changes: &[SchemaChange],
        live: &LiveTools,
        proposer: &mut dyn Proposer,
    ) -> Result<(Vec<TestResult>, Vec<GeneratedResult>), AttemptError> {
        let own: Vec<SchemaChange> = (changes.iter())
            .filter(|c| !follows_its_tool(c, &previous.tools, &live.tools))
            .cloned()
            .collect();
        verify_contracts(proposals, operators, &own)?;
        // One operator's rules on what its descriptions keep; several changes are held to
        // what every description change must keep.
        let operator = match operators {
            [op] => op.builtin(),
            _ => None,
        };
        mcpevol_oracle::describe_check::check(&previous.tools, &live.tools, changes, operator)?;
        // The proposer's test cases first: a model states what its change does beside them,
        // and those claims are checked as the proposals' own.
        let cases = proposer.tests(ask, changes, &live.tools).await?;
        let mut effects: Vec<validate::Effect> =
            proposals.iter().flat_map(|p| p.effects.clone()).collect();
        effects.extend(proposer.claims());
        let change = validate::VersionChange {
            previous: &previous.tools,
            current: &live.tools,
            changes,
            effects: &effects,
        };
        // Without a removed tool's calls, the state later tools see differs: they are compared
        // with the previous version called the same way.
        let adjusted = self.without_removed(changes, previous, baseline).await?;
        let mut base = adjusted.unwrap_or_else(|| baseline.clone());
        let mut tests = validate::run(session, &base, &change, Some(self)).await;
        // Two samples that agreed may have agreed by chance (a die that rolled the same twice):
        // an output that now differs is sampled again, up to CONFIRMING_PAIRS more pairs,
        // before the change is blamed for it.
        let mut pairs = 0;
        while pairs < CONFIRMING_PAIRS && tests.iter().any(|t| t.differed) {
            pairs += 1;
            let kept: Vec<ListedTool> = previous
                .tools
                .iter()
                .filter(|t| base.calls.keys().any(|k| t.is_named(k)))
                .cloned()
                .collect();
            let again = self.observe_previous(&kept, &base).await?;
            if let Some(confirmed) = base.confirm(&again) {
                base = confirmed;
                let fresh = self.start().await?;
                let old = std::mem::replace(session, fresh);
                old.close().await;
                session.list_tools().await?;
                tests = validate::run(session, &base, &change, Some(self)).await;
            }
        }
        let mut generated = super::generated::run_generated(session, cases).await;
        self.run_on_previous(changes, &mut generated).await;
        Ok((tests, generated))
    }

    /// Two more samples of the previous version (a snapshot of HEAD), calling `tools` as the
    /// baseline did.
    async fn observe_previous(
        &self,
        tools: &[ListedTool],
        baseline: &Baseline,
    ) -> Result<Baseline, AttemptError> {
        let started = std::time::Instant::now();
        let observed = self.observe_head(tools, baseline).await;
        self.clock.add(Step::Previous, started);
        observed
    }

    async fn observe_head(
        &self,
        tools: &[ListedTool],
        baseline: &Baseline,
    ) -> Result<Baseline, AttemptError> {
        let dir = tempfile::tempdir().map_err(AttemptError::Scratch)?;
        let head = self.ws.head()?;
        self.ws.snapshot(&head, dir.path())?;
        // The same calls, in the same order, as the baseline made.
        let mut again =
            Baseline::replay(dir.path(), self.config, tools, baseline, self.opts.timeout)
                .await
                .map_err(AttemptError::Previous)?;
        again.unknown = baseline.unknown.clone();
        Ok(again)
    }

    /// The previous version's answers with the tools this change removes left out of the
    /// calls, or None when it removes none.
    async fn without_removed(
        &self,
        changes: &[SchemaChange],
        previous: &LiveTools,
        baseline: &Baseline,
    ) -> Result<Option<Baseline>, AttemptError> {
        let removed: Vec<&str> = changes
            .iter()
            .filter(|c| c.kind() == ChangeKind::ToolRemoved)
            .map(|c| c.tool.as_str())
            .collect();
        if removed.is_empty() {
            return Ok(None);
        }
        let kept: Vec<ListedTool> = previous
            .tools
            .iter()
            .filter(|t| !removed.iter().any(|r| t.is_named(r)))
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

/// Whether `change` is a batch form's `items` following its tool's input schema: before and
/// after, they are that tool's schema as listed, and the tool's schema changed. Such `items`
/// are the tool's schema expression, copied (`zodToJsonSchema(ArgsSchema)`), and change with
/// it as a maintainer's batch form would; held to a contract, every later change of the tool
/// broke the release ("no change of the release makes tool `x_batch`"), 40 of 45 drops on one
/// server.
fn follows_its_tool(change: &SchemaChange, before: &[ListedTool], after: &[ListedTool]) -> bool {
    let Some(param) = change.param() else {
        return false;
    };
    let items = |list: &[ListedTool]| {
        (list.iter().find(|t| t.is_named(&change.tool)))
            .and_then(|t| t.property(param).get("items").cloned())
    };
    let (Some(was), Some(now)) = (items(before), items(after)) else {
        return false;
    };
    before.iter().any(|tool| {
        let Some(name) = tool.name().filter(|n| *n != change.tool) else {
            return false;
        };
        let later = after.iter().find(|t| t.is_named(name));
        *tool.input_schema() == was && later.is_some_and(|t| *t.input_schema() == now && now != was)
    })
}

/// Each change held to its operator's contract. One change answers for every schema change;
/// several answer each for the schema changes of their own tools (two on one tool each for the
/// kinds its contract allows: `release::owners`), and a schema change that no change's tools
/// account for breaks the version's contract.
fn verify_contracts(
    proposals: &[Proposal],
    operators: &[&Operator],
    changes: &[SchemaChange],
) -> Result<(), AttemptError> {
    // In a release, the change is named by its tools as well as its operator, so that the one
    // that broke its contract is the one dropped: named by operator alone, a release of several
    // copies, one of them listed where no tool list reads it, had its other copies dropped one
    // by one, each "no change at all".
    let broken =
        |i: usize, p: &Proposal, op: &Operator, violations: Vec<String>| AttemptError::Contract {
            operator: match proposals.len() {
                1 => op.id.to_string(),
                _ => format!(
                    "{} on {}",
                    op.id,
                    (p.targets.iter())
                        .map(|t| format!("`{t}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            violations,
            blame: Blame::Change(i),
        };
    let pairs: Vec<(&Proposal, &mcpevol_core::contract::Contract)> = proposals
        .iter()
        .zip(operators)
        .map(|(p, op)| (p, &op.contract))
        .collect();
    let owned = crate::release::owners::assign(&pairs, changes);
    let mut claimed = vec![false; changes.len()];
    for (i, ((p, op), mine)) in proposals.iter().zip(operators).zip(&owned).enumerate() {
        let mine: Vec<SchemaChange> = mine
            .iter()
            .map(|i| {
                claimed[*i] = true;
                changes[*i].clone()
            })
            .collect();
        contract::verify(&op.contract, &mine, &p.targets).map_err(|v| broken(i, p, op, v))?;
    }
    let unclaimed: Vec<&SchemaChange> = changes
        .iter()
        .zip(&claimed)
        .filter(|(_, claimed)| !**claimed)
        .map(|(c, _)| c)
        .collect();
    if unclaimed.is_empty() {
        Ok(())
    } else {
        Err(AttemptError::Contract {
            operator: "the release".into(),
            violations: vec![format!(
                "no change of the release makes {}",
                (unclaimed.iter())
                    .map(|c| format!("tool `{}`: {}", c.tool, c.describe()))
                    .collect::<Vec<_>>()
                    .join("; ")
            )],
            blame: Blame::Tools(unclaimed.iter().map(|c| c.tool.clone()).collect()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcpevol_core::listed::listed;
    use mcpevol_core::schema::diff;
    use serde_json::{Value, json};

    /// `define_word` taking `params`, and its batch form whose items take `items`.
    fn tools(params: Value, items: Value) -> Vec<ListedTool> {
        let schema = |props: Value| json!({ "type": "object", "properties": props });
        listed([
            json!({ "name": "define_word", "inputSchema": schema(params) }),
            json!({ "name": "define_words", "inputSchema": schema(json!({
                "items": { "type": "array", "items": schema(items) }
            })) }),
        ])
    }

    /// Whether each change `diff` finds on `define_words` follows its tool.
    fn followers(before: &[ListedTool], after: &[ListedTool]) -> Vec<bool> {
        (diff(before, after).iter())
            .filter(|c| c.tool == "define_words")
            .map(|c| follows_its_tool(c, before, after))
            .collect()
    }

    #[test]
    fn a_batch_forms_items_that_change_as_its_tool_does_follow_it() {
        let word = json!({ "word": { "type": "string" } });
        let upper = json!({ "word": { "type": "string" }, "upper": { "type": "boolean" } });
        let before = tools(word.clone(), word.clone());
        assert_eq!(
            followers(&before, &tools(upper.clone(), upper.clone())),
            [true]
        );
        // Its items changed alone, or otherwise than its tool: a change of its own.
        assert_eq!(
            followers(&before, &tools(word.clone(), upper.clone())),
            [false]
        );
        let other = json!({ "word": { "type": "string" }, "lang": { "type": "string" } });
        assert_eq!(followers(&before, &tools(upper, other)), [false]);
    }
}
