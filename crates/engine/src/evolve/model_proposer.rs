//! A model as a proposer: it chooses the operator and targets, rewrites the source as
//! SEARCH/REPLACE blocks, and writes test cases; every rejection goes back to it as the next
//! message. All exchanges are kept for the record, so that a replay gives the same commits.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use async_trait::async_trait;

use super::clock::Step;
use super::model::Model;
use super::proposer::{Ask, GiveUp, Proposed, Proposer, Provenance};
use super::talk::feedback;
use super::{AttemptError, EvolveError};
use crate::llm::{Chat, ChatMessage};
use crate::mutate::reply::{self, GeneratedTest, Selection};
use crate::mutate::{Proposal, snippets};
use crate::version_record::{self, Author, Rejection};
use mcpevol_anchor as anchor;
use mcpevol_core::inventory::Tool;
use mcpevol_core::listed::ListedTool;
use mcpevol_core::operators::{self, Operator};
use mcpevol_core::prompt::{self, Prompts};
use mcpevol_core::schema::SchemaChange;
use mcpevol_oracle::server::LiveTools;

/// Where the model's conversation about the changes stands.
enum Stage {
    /// Nothing asked yet this round.
    Start,
    /// Rewriting: the chosen operator and targets, and the conversation so far.
    Rewriting {
        operator: Box<Operator>,
        selection: Selection,
        messages: Vec<ChatMessage>,
    },
}

/// Proposes with a model behind an OpenAI-compatible endpoint, or with a replay of one.
pub struct ModelProposer {
    model: Model,
    stage: Stage,
    /// The reply and the reason of the last rejection, told back before the next reply.
    told: Option<String>,
    last_reply: Option<String>,
}

impl ModelProposer {
    pub fn new(chat: Arc<dyn Chat>, model: String, author: Author, prompts: Prompts) -> Self {
        ModelProposer {
            model: Model::new(chat, model, author, prompts),
            stage: Stage::Start,
            told: None,
            last_reply: None,
        }
    }

    /// Chooses the operator and targets, and writes the first message of the rewriting step.
    async fn start(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Result<(), GiveUp>, EvolveError> {
        let started = Instant::now();
        let inventory =
            anchor::anchor_with(ask.root, ask.cache).map_err(|e| EvolveError::ServerBroken {
                root: ask.root.display().to_string(),
                version: ask.version.previous().unwrap_or_default(),
                why: e.to_string(),
            })?;
        ask.clock.add(Step::Anchor, started);
        let history = previous_rounds(ask)?;
        let menu: Vec<&Operator> = match ask.forced {
            Some(op) => vec![op],
            None => ask.operators.iter().collect(),
        };
        let selection = match self.select(ask, &menu, &history, rejected).await {
            Ok(s) => s,
            Err(give_up) => return Ok(Err(give_up)),
        };
        let operator = menu
            .iter()
            .find(|o| o.id == selection.operator)
            .map(|o| Box::new((*o).clone()))
            .expect("select() checked the operator is on the menu");
        let targets: Vec<&Tool> = selection
            .targets
            .iter()
            .filter_map(|t| inventory.tool(t))
            .collect();
        let mut values: BTreeMap<&str, String> = BTreeMap::new();
        values.insert(
            "server_name",
            mcpevol_oracle::server::launch::package_name(ask.root),
        );
        values.insert("tool_list", tool_list(ask.previous, ask.answering));
        values.insert("targets", selection.targets.join(", "));
        values.insert("snippets", snippets::snippets(ask.root, &targets));
        values.insert("previous_rounds", or_none(&history));
        values.insert("operator_id", operator.id.to_string());
        values.insert("operator_name", operator.name.clone());
        values.insert("contract", prompt::contract_words(&operator.contract));
        let first = operator.mutation_prompt(&values)?;
        self.stage = Stage::Rewriting {
            operator,
            selection,
            messages: vec![ChatMessage::user(first)],
        };
        Ok(Ok(()))
    }

    /// The operator and targets, as the model chooses them; a reply naming an unknown operator
    /// or tool is answered with what is wrong, not crashed on.
    async fn select(
        &mut self,
        ask: &Ask<'_>,
        menu: &[&Operator],
        history: &str,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Selection, GiveUp> {
        let listing: Vec<String> = menu.iter().map(|o| o.menu_line()).collect();
        let values = BTreeMap::from([
            (
                "server_name",
                mcpevol_oracle::server::launch::package_name(ask.root),
            ),
            ("tool_list", tool_list(ask.previous, ask.answering)),
            ("previous_rounds", or_none(history)),
            ("operators", listing.join("\n")),
        ]);
        let first = prompt::render(&self.model.prompts.select, &values)
            .map_err(|e| GiveUp::because(e.to_string()))?;
        let mut messages = vec![ChatMessage::user(first)];
        let names = ask.previous.names();
        let mut last = String::new();
        for _ in 0..ask.max_attempts {
            let text = match self.model.talk.ask(&messages).await {
                Ok(t) => t,
                Err(e) => return Err(endpoint_failed(e, rejected)),
            };
            let problem = match reply::parse_selection(&text) {
                Err(e) => AttemptError::from(e),
                Ok(s) => match unusable_choice(&s, menu, &names) {
                    None => return Ok(s),
                    Some(problem) => AttemptError::Choice(problem),
                },
            };
            rejected.push(problem.rejection(None, Vec::new(), Vec::new()));
            last = problem.to_string();
            messages.push(ChatMessage::assistant(text));
            messages.push(ChatMessage::user(feedback(&self.model.prompts, &last)));
        }
        Err(GiveUp::because(format!(
            "the model's choice of operator was still unusable: {last}"
        )))
    }
}

/// What is wrong with a model's choice of operator and targets, or None.
pub(super) fn unusable_choice(s: &Selection, menu: &[&Operator], names: &[&str]) -> Option<String> {
    let unknown: Vec<&String> = s
        .targets
        .iter()
        .filter(|t| !names.contains(&t.as_str()))
        .collect();
    if !menu.iter().any(|o| o.id == s.operator) {
        let ids: Vec<String> = menu.iter().map(|o| o.id.to_string()).collect();
        Some(format!(
            "operator \"{}\" is not one of: {}",
            s.operator,
            ids.join(", ")
        ))
    } else if s.targets.is_empty() {
        Some("name at least one target tool".to_string())
    } else if !unknown.is_empty() {
        Some(format!(
            "these targets are not tools of this server: {unknown:?}; the tools are: {}",
            names.join(", ")
        ))
    } else {
        None
    }
}

/// The endpoint itself failed: recorded as a rejection, and the round gives up (another try
/// would fail the same way).
pub(super) fn endpoint_failed(error: AttemptError, rejected: &mut Vec<Rejection>) -> GiveUp {
    rejected.push(error.rejection(None, Vec::new(), Vec::new()));
    GiveUp {
        reason: Some(error.to_string()),
        endpoint_failed: true,
    }
}

#[async_trait(?Send)]
impl Proposer for ModelProposer {
    fn author(&self) -> Author {
        self.model.author.clone()
    }

    async fn propose(
        &mut self,
        ask: &Ask<'_>,
        rejected: &mut Vec<Rejection>,
    ) -> Result<Proposed, EvolveError> {
        if matches!(self.stage, Stage::Start)
            && let Err(give_up) = self.start(ask, rejected).await?
        {
            return Ok(Proposed::GiveUp(give_up));
        }
        let Stage::Rewriting {
            operator,
            selection,
            messages,
        } = &mut self.stage
        else {
            unreachable!("start() moved to rewriting");
        };
        if let (Some(reply), Some(told)) = (self.last_reply.take(), self.told.take()) {
            messages.push(ChatMessage::assistant(reply));
            messages.push(ChatMessage::user(told));
        }
        let started = Instant::now();
        let answer = self.model.talk.ask(messages).await;
        ask.clock.add(Step::Mutate, started);
        let reply_text = match answer {
            Ok(r) => r,
            Err(e) => {
                let mut failure = endpoint_failed(e, rejected);
                if let Some(last) = rejected.last_mut() {
                    last.operator = Some(operator.id.clone());
                    last.targets = selection.targets.clone();
                }
                failure.reason = None;
                return Ok(Proposed::GiveUp(failure));
            }
        };
        self.last_reply = Some(reply_text.clone());
        match reply::parse_blocks(&reply_text) {
            Err(e) => Ok(Proposed::Unusable {
                operator: Some(operator.id.clone()),
                targets: selection.targets.clone(),
                error: e.into(),
            }),
            Ok(hunks) => Ok(Proposed::Changes(vec![Proposal {
                operator: operator.id.clone(),
                targets: selection.targets.clone(),
                added: Vec::new(),
                summary: format!("{}: {}", operator.name, selection.rationale.trim()),
                hunks,
                effects: Vec::new(),
            }])),
        }
    }

    fn rejected(&mut self, error: &AttemptError) {
        self.told = Some(feedback(&self.model.prompts, &error.to_string()));
    }

    async fn tests(
        &mut self,
        ask: &Ask<'_>,
        changes: &[SchemaChange],
        tools: &[ListedTool],
    ) -> Result<Vec<GeneratedTest>, AttemptError> {
        let targets = match &self.stage {
            Stage::Rewriting { selection, .. } => selection.targets.clone(),
            Stage::Start => Vec::new(),
        };
        self.model.tests(ask, &targets, changes, tools).await
    }

    fn claims(&mut self) -> Vec<mcpevol_oracle::validate::Effect> {
        self.model.claims()
    }

    fn provenance(&mut self) -> Provenance {
        self.model.provenance(None)
    }
}

pub(super) fn or_none(text: &str) -> String {
    if text.is_empty() {
        "none".to_string()
    } else {
        text.to_string()
    }
}

/// The tools with their descriptions and parameters; where some answered at the previous
/// version's checks and others did not, the others are marked "fails offline" (a change to
/// them cannot be seen working).
pub(super) fn tool_list(live: &LiveTools, answering: &[String]) -> String {
    let lines: Vec<String> = live
        .tools
        .iter()
        .map(|t| {
            let name = t.name().unwrap_or("?");
            let props = t
                .properties()
                .map(|p| p.keys().cloned().collect::<Vec<_>>().join(", "));
            let fails = !answering.is_empty() && !answering.iter().any(|a| a == name);
            format!(
                "- {}: {} (parameters: {}){}",
                name,
                t.description().unwrap_or(""),
                props.unwrap_or_default(),
                if fails { " [fails offline]" } else { "" }
            )
        })
        .collect();
    lines.join("\n")
}

/// Summaries of the earlier versions, for the model's context.
pub(super) fn previous_rounds(ask: &Ask<'_>) -> Result<String, EvolveError> {
    let mut lines = Vec::new();
    for v in ask.ws.versions()? {
        if let Some(r) = version_record::read_round(ask.ws, v.tag.to_string())? {
            lines.push(format!("{}: {}", v.tag, r.summary));
        }
    }
    Ok(lines.join("\n"))
}

/// The shared prompts, with the overrides of the user's operator folders.
pub fn prompts_for(ask_dirs: &[std::path::PathBuf]) -> Result<Prompts, EvolveError> {
    Ok(operators::load_prompts(ask_dirs)?)
}
