//! One round with a model: it chooses the operator and targets, rewrites the source as
//! SEARCH/REPLACE blocks, and writes test cases; every failure goes back to it as the next
//! message, for at most `max_attempts` tries per step. All exchanges are kept for the record.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::round::Round;
use super::{EvolveError, RoundOutcome, add};
use crate::anchor;
use crate::inventory::Tool;
use crate::llm::{Chat, ChatMessage, Exchange, Usage};
use crate::mutate::{self, reply, snippets};
use crate::operators::Operator;
use crate::prompt::{self, Prompts};
use crate::schema::SchemaChange;
use crate::server::LiveTools;
use crate::version_record::{self, Rejection, RoundRecord};

type Committed = (RoundRecord, LiveTools, Vec<Exchange>);

/// The conversation of one step and the exchanges of the whole round.
/// How a reason starts when the model endpoint itself failed (not the model's reply).
pub(super) const ENDPOINT_FAILED: &str = "the model could not be asked";

pub(super) struct Talk<'c> {
    chat: &'c dyn Chat,
    exchanges: Mutex<Vec<Exchange>>,
}

impl Talk<'_> {
    pub(super) async fn ask(&self, messages: &[ChatMessage]) -> Result<String, String> {
        let exchange = self
            .chat
            .chat(messages)
            .await
            .map_err(|e| format!("{ENDPOINT_FAILED}: {e}"))?;
        let reply = exchange.reply.clone();
        self.exchanges.lock().unwrap().push(exchange);
        Ok(reply)
    }

    fn usage(&self) -> Usage {
        let all = self.exchanges.lock().unwrap();
        all.iter().fold(Usage::default(), |mut u, e| {
            u.prompt_tokens += e.usage.prompt_tokens;
            u.completion_tokens += e.usage.completion_tokens;
            u.total_tokens += e.usage.total_tokens;
            u
        })
    }
}

fn tool_list(live: &LiveTools) -> String {
    let lines: Vec<String> = live
        .tools
        .iter()
        .map(|t| {
            let props = t["inputSchema"]["properties"]
                .as_object()
                .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "));
            format!(
                "- {}: {} (parameters: {})",
                t["name"].as_str().unwrap_or("?"),
                t["description"].as_str().unwrap_or(""),
                props.unwrap_or_default()
            )
        })
        .collect();
    lines.join("\n")
}

pub(super) fn feedback(prompts: &Prompts, error: &str) -> String {
    let values = BTreeMap::from([("error", error.to_string())]);
    prompt::render(&prompts.feedback, &values)
        .unwrap_or_else(|_| format!("That did not work: {error}\nPlease fix it."))
}

impl Round<'_> {
    pub(super) async fn run_llm(
        &self,
        chat: &dyn Chat,
        model: &str,
        forced: Option<&Operator>,
        previous: &LiveTools,
        baseline: &crate::validate::Baseline,
    ) -> Result<Result<Committed, RoundOutcome>, EvolveError> {
        let head = self.ws.head()?;
        let talk = Talk {
            chat,
            exchanges: Mutex::new(Vec::new()),
        };
        let prompts = prompt::builtin_prompts();
        let started = std::time::Instant::now();
        let inventory =
            anchor::anchor_with(self.root, self.cache).map_err(|e| EvolveError::ServerBroken {
                root: self.root.display().to_string(),
                version: format!("v{}", self.number - 1),
                why: e.to_string(),
            })?;
        add(&self.clock.anchor, started);
        let history = self.previous_rounds()?;
        let menu: Vec<&Operator> = match forced {
            Some(op) => vec![op],
            None => self.all_ops.iter().collect(),
        };
        let mut rejected = Vec::new();
        let selection = match self
            .select(&talk, &prompts, &menu, previous, &history, &mut rejected)
            .await
        {
            Ok(s) => s,
            Err(reason) => return Ok(Err(self.failed(&head, reason, rejected, &talk)?)),
        };
        let op = menu
            .iter()
            .find(|o| {
                crate::operators::find(self.all_ops, &selection.operator)
                    .is_some_and(|f| f.id == o.id)
            })
            .copied()
            .expect("select() checked");
        let targets: Vec<&Tool> = selection
            .targets
            .iter()
            .filter_map(|t| inventory.tool(t))
            .collect();
        let mut values: BTreeMap<&str, String> = BTreeMap::new();
        values.insert(
            "server_name",
            crate::server::launch::package_name(self.root),
        );
        values.insert("tool_list", tool_list(previous));
        values.insert("targets", selection.targets.join(", "));
        values.insert("snippets", snippets::snippets(self.root, &targets));
        values.insert(
            "previous_rounds",
            if history.is_empty() {
                "none".into()
            } else {
                history.clone()
            },
        );
        values.insert("operator_id", op.id.clone());
        values.insert("operator_name", op.name.clone());
        values.insert("contract", prompt::contract_words(&op.contract));
        let first = op
            .mutation_prompt(&values)
            .map_err(|e| EvolveError::Prompt(e.to_string()))?;
        let mut messages = vec![ChatMessage::user(first)];
        let generate = self.test_generator(&talk, &prompts, &selection.targets);
        for attempt in 1..=self.opts.max_attempts {
            let started = std::time::Instant::now();
            let answer = talk.ask(&messages).await;
            add(&self.clock.mutate, started);
            let reply_text = match answer {
                Ok(r) => r,
                Err(reason) => {
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: selection.targets.clone(),
                        reason,
                        hunks: Vec::new(),
                    });
                    break; // the endpoint itself failed: another try would fail the same way
                }
            };
            let outcome = match reply::parse_blocks(&reply_text) {
                Err(e) => Err(e.to_string()),
                Ok(hunks) => {
                    let proposal = mutate::Proposal {
                        operator: op.id.clone(),
                        targets: selection.targets.clone(),
                        added: Vec::new(),
                        summary: format!("{}: {}", op.name, selection.rationale.trim()),
                        hunks,
                        effects: Vec::new(),
                    };
                    self.validate(op, &proposal, previous, baseline, Some(&generate))
                        .await
                }
            };
            match outcome {
                Ok((mut record, tools)) => {
                    record.added = added_tools(&record.schema_changes);
                    record.attempts = attempt;
                    record.rejected = rejected;
                    record.usage = Some(talk.usage());
                    record.model = Some(model.to_string());
                    record.seed = Some(self.opts.seed);
                    let exchanges = std::mem::take(&mut *talk.exchanges.lock().unwrap());
                    return Ok(Ok((record, tools, exchanges)));
                }
                Err(reason) => {
                    self.ws.restore(&head)?;
                    rejected.push(Rejection {
                        operator: op.id.clone(),
                        targets: selection.targets.clone(),
                        reason: reason.clone(),
                        hunks: Vec::new(),
                    });
                    messages.push(ChatMessage::assistant(reply_text));
                    messages.push(ChatMessage::user(feedback(&prompts, &reason)));
                }
            }
        }
        let reason = rejected
            .last()
            .map(|r| r.reason.clone())
            .unwrap_or_default();
        Ok(Err(self.failed(&head, reason, rejected, &talk)?))
    }

    /// The operator and targets, as the model chooses them; a reply naming an unknown operator
    /// or tool is answered with what is wrong, not crashed on.
    async fn select(
        &self,
        talk: &Talk<'_>,
        prompts: &Prompts,
        menu: &[&Operator],
        live: &LiveTools,
        history: &str,
        rejected: &mut Vec<Rejection>,
    ) -> Result<reply::Selection, String> {
        let listing: Vec<String> = menu.iter().map(|o| o.menu_line()).collect();
        let values = BTreeMap::from([
            (
                "server_name",
                crate::server::launch::package_name(self.root),
            ),
            ("tool_list", tool_list(live)),
            (
                "previous_rounds",
                if history.is_empty() {
                    "none".to_string()
                } else {
                    history.to_string()
                },
            ),
            ("operators", listing.join("\n")),
        ]);
        let first = prompt::render(&prompts.select, &values).map_err(|e| e.to_string())?;
        let mut messages = vec![ChatMessage::user(first)];
        let names = live.names();
        let mut last = String::new();
        for _ in 0..self.opts.max_attempts {
            let text = talk.ask(&messages).await?;
            let problem = match reply::parse_selection(&text) {
                Err(e) => e.to_string(),
                Ok(s) => {
                    let known_op = menu.iter().any(|o| {
                        crate::operators::find(self.all_ops, &s.operator)
                            .is_some_and(|f| f.id == o.id)
                    });
                    let unknown: Vec<&String> = s
                        .targets
                        .iter()
                        .filter(|t| !names.contains(&t.as_str()))
                        .collect();
                    if !known_op {
                        format!(
                            "operator {:?} is not one of: {}",
                            s.operator,
                            menu.iter()
                                .map(|o| o.id.as_str())
                                .collect::<Vec<_>>()
                                .join(", ")
                        )
                    } else if s.targets.is_empty() {
                        "name at least one target tool".to_string()
                    } else if !unknown.is_empty() {
                        format!(
                            "these targets are not tools of this server: {unknown:?}; the tools are: {}",
                            names.join(", ")
                        )
                    } else {
                        return Ok(s);
                    }
                }
            };
            rejected.push(Rejection {
                operator: "selection".into(),
                targets: vec![],
                reason: problem.clone(),
                hunks: Vec::new(),
            });
            messages.push(ChatMessage::assistant(text));
            messages.push(ChatMessage::user(feedback(prompts, &problem)));
            last = problem;
        }
        Err(format!(
            "the model's choice of operator was still unusable: {last}"
        ))
    }

    /// Summaries of the earlier versions, for the model's context.
    fn previous_rounds(&self) -> Result<String, EvolveError> {
        let mut lines = Vec::new();
        for v in self.ws.versions()? {
            if let Some(r) = version_record::read_round(self.ws, &v.tag)? {
                lines.push(format!("{}: {}", v.tag, r.summary));
            }
        }
        Ok(lines.join("\n"))
    }

    fn failed(
        &self,
        head: &str,
        reason: String,
        rejected: Vec<Rejection>,
        _talk: &Talk<'_>,
    ) -> Result<RoundOutcome, EvolveError> {
        self.ws.restore(head)?;
        let operator = rejected
            .iter()
            .rev()
            .find(|r| r.operator != "selection")
            .map(|r| r.operator.clone());
        let endpoint_failed = reason.starts_with(ENDPOINT_FAILED);
        Ok(RoundOutcome {
            endpoint_failed,
            ..RoundOutcome::failed(self.number, operator, reason, &rejected)
        })
    }
}

/// The names a schema change brought in: added tools and the new names of renamed ones.
pub(super) fn added_tools(changes: &[SchemaChange]) -> Vec<String> {
    changes
        .iter()
        .filter_map(|c| match c.kind {
            crate::schema::ChangeKind::ToolAdded => Some(c.tool.clone()),
            crate::schema::ChangeKind::ToolRenamed => c.renamed_to.clone(),
            _ => None,
        })
        .collect()
}
