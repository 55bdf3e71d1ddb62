//! The model's own test cases (LLM backends): asked for with the changed tools' live schemas
//! and source, refused until at least one call exercises the change, run on the new version,
//! and excused where the previous version answers them the same way.

use std::collections::BTreeMap;

use super::AttemptError;
use super::attempt::Round;
use super::proposer::Ask;
use super::talk::{Talk, feedback};
use crate::llm::ChatMessage;
use crate::mutate::reply::{self, Expect, GeneratedTest};
use crate::mutate::snippets;
use crate::version_record::GeneratedResult;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::prompt::{self, Prompts};
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::server::session::{CallStatus, Session};
use mcpevol_oracle::validate;

/// Replies the model gets to write usable test cases.
const TEST_REPLIES: usize = 2;

/// Asks the model for test cases of the changed tools, once the change has passed its
/// contract; refused until at least one call exercises the change.
pub(super) async fn write_tests(
    talk: &mut Talk,
    prompts: &Prompts,
    ask: &Ask<'_>,
    targets: &[String],
    changes: &[SchemaChange],
    tools: &[ListedTool],
) -> Result<(Vec<GeneratedTest>, Vec<validate::Effect>), AttemptError> {
    let mut touched: Vec<String> = changes.iter().map(|c| c.tool.clone()).collect();
    touched.extend(mcpevol_core::schema::added_names(changes));
    touched.extend(targets.iter().cloned());
    let schemas: Vec<String> = tools
        .iter()
        .filter(|t| t.name().is_some_and(|n| touched.iter().any(|x| x == n)))
        .map(|t| format!("{}: {}", t.name().unwrap_or(""), t.input_schema()))
        .collect();
    let values = BTreeMap::from([
        (
            "server_name",
            mcpevol_oracle::server::launch::package_name(ask.root),
        ),
        ("tool", touched.join(", ")),
        ("schema", schemas.join("\n")),
        ("snippets", snippets_of(ask.root, ask.cache, &touched)),
    ]);
    let text = prompt::render(&prompts.tests, &values)
        .map_err(|e| AttemptError::TestsUnusable(e.to_string()))?;
    let mut messages = vec![ChatMessage::user(text)];
    let mut problem = String::new();
    for _ in 0..TEST_REPLIES {
        let answer = talk.ask(&messages).await?;
        problem = match reply::parse_tests(&answer) {
            Err(e) => format!("the test cases could not be read: {e}"),
            Ok(cases) if cases.is_empty() => {
                "the list of test cases is empty; write at least one call".to_string()
            }
            Ok(cases) if !cases.iter().any(|c| c.exercises(changes)) => format!(
                "none of these calls exercises the change ({}); call a changed or new tool, setting the new or changed parameters",
                change_words(changes)
            ),
            Ok(cases) => match reply::parse_claims(&answer) {
                Err(e) => format!("the claims could not be read: {e}"),
                Ok(claims) => match claims
                    .iter()
                    .find(|c| !touched.iter().any(|t| t == c.tool()))
                {
                    Some(stray) => format!(
                        "a claim about `{}`, which the change does not touch; claim only what the changed or new tools ({}) now do",
                        stray.tool(),
                        touched.join(", ")
                    ),
                    None => return Ok((cases, claims)),
                },
            },
        };
        messages.push(ChatMessage::assistant(answer));
        messages.push(ChatMessage::user(feedback(prompts, &problem)));
    }
    Err(AttemptError::TestsUnusable(problem))
}

impl Round<'_> {
    /// Calls every generated case on the previous version too (a snapshot of HEAD; a renamed
    /// tool by its old name), twice, to learn what varies in its answers. A case that answers
    /// otherwise there may prove the change it exercises ([`proves`]); a failed case that fails
    /// there exactly the same way shows that the change does not show on it, and becomes
    /// unverifiable (it says nothing of the edit either way).
    pub(super) async fn run_on_previous(
        &self,
        changes: &[SchemaChange],
        results: &mut [GeneratedResult],
    ) {
        // The name a tool had at the previous version: its own, or the one it was renamed from.
        let was = |tool: &str| -> String {
            changes
                .iter()
                .find(|c| c.renamed_to() == Some(tool))
                .map_or_else(|| tool.to_string(), |c| c.tool.clone())
        };
        if results.is_empty() {
            return;
        }
        let Ok(dir) = tempfile::tempdir() else {
            return;
        };
        let Ok(head) = self.ws.head() else {
            return;
        };
        if self.ws.snapshot(&head, dir.path()).is_err() {
            return;
        }
        let Ok(session) = Session::start(dir.path(), self.config, &[], self.opts.timeout).await
        else {
            return;
        };
        for r in results.iter_mut() {
            let old = was(&r.test.tool);
            let call = || session.call(&old, r.test.arguments.clone(), validate::CALL_TIMEOUT);
            let before = call().await;
            let again = call().await;
            // Compared as the previous version's two answers vary, the old name read as the new.
            let own = |t: &str| t.replace(&old, &r.test.tool);
            let volatile = validate::Volatile::learn(&own(&before.text), &own(&again.text));
            let same_text = volatile.normalize(&own(&before.text)) == volatile.normalize(&r.text);
            r.previous = Some(before.status);
            r.differs = before.status != r.status || !same_text;
            let same_failure = !r.differs && generated_failure(&r.test, &before).is_some();
            if !r.passed
                && same_failure
                && !matches!(r.status, CallStatus::Crashed | CallStatus::Timeout)
            {
                r.verdict = validate::Verdict::Unverifiable;
                r.reason = Some(format!(
                    "the previous version answers this call the same way, so the change does not show on it ({})",
                    r.reason.as_deref().unwrap_or("")
                ));
            }
        }
        session.close().await;
    }
}

/// The source of the touched tools as the new version holds them, for the test prompt.
fn snippets_of(
    root: &std::path::Path,
    cache: &std::sync::Mutex<mcpevol_anchor::FactsCache>,
    touched: &[String],
) -> String {
    let Ok(inventory) = mcpevol_anchor::anchor_with(root, cache) else {
        return String::new();
    };
    let tools: Vec<&mcpevol_core::inventory::Tool> = touched
        .iter()
        .filter_map(|name| inventory.tool(name))
        .collect();
    snippets::snippets(root, &tools)
}

fn change_words(changes: &[SchemaChange]) -> String {
    changes
        .iter()
        .map(|c| format!("`{}`: {}", c.tool, c.describe()))
        .collect::<Vec<_>>()
        .join("; ")
}

/// Runs the model's test cases: each must end as it expects (success or error) and show the
/// text it names; a crash or timeout always fails.
pub(super) async fn run_generated(
    session: &Session,
    cases: Vec<GeneratedTest>,
) -> Vec<GeneratedResult> {
    let mut out = Vec::new();
    for test in cases {
        let outcome = session
            .call(&test.tool, test.arguments.clone(), validate::CALL_TIMEOUT)
            .await;
        let reason = generated_failure(&test, &outcome);
        out.push(GeneratedResult {
            test,
            status: outcome.status,
            text: outcome.text.clone(),
            verdict: if reason.is_none() {
                validate::Verdict::Passed
            } else {
                validate::Verdict::Failed
            },
            passed: reason.is_none(),
            reason,
            previous: None,
            differs: false,
        });
    }
    out
}

/// Why a model-written case did not end as it expected, or None.
fn generated_failure(
    test: &GeneratedTest,
    outcome: &mcpevol_oracle::server::session::Outcome,
) -> Option<String> {
    let quote = |t: &str| {
        validate::normalize::normalize(
            &t.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .chars()
                .take(200)
                .collect::<String>(),
        )
    };
    let succeeded = outcome.status == CallStatus::Ok;
    match outcome.status {
        CallStatus::Crashed | CallStatus::Timeout => {
            Some(format!("{:?}: {}", outcome.status, quote(&outcome.text)))
        }
        _ if succeeded != (test.expect == Expect::Success) => Some(format!(
            "expected {} but it answered {:?}: {}",
            test.expect,
            outcome.status,
            quote(&outcome.text)
        )),
        _ => match &test.contains {
            Some(needle) if !outcome.text.contains(needle.as_str()) => Some(format!(
                "the result does not contain {needle:?}: {}",
                quote(&outcome.text)
            )),
            _ => None,
        },
    }
}
